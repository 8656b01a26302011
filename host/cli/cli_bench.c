/* `clconv bench`: measured ceilings, the standard problem set on every
 * device, a side-by-side table, JSON and CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clconv_bench.h"
#include "clconv_model.h"
#include "cli.h"

#ifndef CLCONV_GIT_VERSION
#define CLCONV_GIT_VERSION ""
#endif

typedef struct bench_options {
    const char *suite;  /* NULL: full if a GPU is selected, else quick */
    int dims;           /* custom problem when > 0 */
    size_t size[3];
    int mask;
    const char *device;
    int strategy;       /* -1: all */
    clconv_mask_mode mask_mode;
    int all_tiles;      /* 0: only each strategy's default tile; 2: all
                           tiles on GPUs, the default tile elsewhere */
    int reps, warmup;
    uint64_t seed;
    const char *json, *csv;
    int quiet;
} bench_options;

static void usage(FILE *f)
{
    fputs(
        "usage: clconv bench [--suite full|quick | --dims D --size X[xY[xZ]]\n"
        "                    --mask W] [--device SEL] [--strategy S|all]\n"
        "                    [--tiles all|default] [--reps N] [--warmup N]\n"
        "                    [--seed S] [--json FILE] [--csv FILE] [--quiet]\n"
        "Measure each device's copy bandwidth and FP32 FMA peak, then run\n"
        "every strategy with every tile that fits on each problem: verify it\n"
        "once against the double-precision reference, time --reps launches\n"
        "after --warmup, and report the best variant per problem and device\n"
        "with its %% of the roofline floor max(bytes/copy, flops/peak).\n"
        "  --suite NAME    full (1D 2^26, 2D 8192^2, 3D 512^3; the default when\n"
        "                  a GPU is selected) or quick (1D 2^22, 2D 1024^2,\n"
        "                  3D 128^3; the default on CPUs only)\n"
        "  --dims D --size X[xY[xZ]] --mask W   one custom problem instead\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --strategy S    naive, output_tile, ... or all (default all)\n"
        "  --mask-mode M   argument, baked or auto (default: baked for coarse\n"
        "                  and vector on GPUs, argument otherwise)\n"
        "  --tiles T       all: 1D 64..512, 2D 8..32, 3D 4, 8 (default);\n"
        "                  default: each strategy's default tile only;\n"
        "                  gpu: all on GPUs, default elsewhere\n"
        "  --reps N        timed launches per variant, >= 10 (default 10)\n"
        "  --warmup N      untimed launches first (default 1)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json FILE     every row, devices, ceilings (bench/README.md)\n"
        "  --csv FILE      every row as CSV\n"
        "  --quiet         no progress on stderr\n"
        "Exit: 0 ok, 1 a variant failed verification, 2 usage error,\n"
        "      3 OpenCL error (tiles that do not fit are skipped, not errors).\n",
        f);
}

static int parse(int argc, char **argv, bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->all_tiles = 1;
    o->reps = 10;
    o->warmup = 1;
    o->seed = cli_default_seed();
    o->device = getenv("CLCONV_DEVICE");
    const char *size = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--suite", &v))) {
            const clconv_bench_problem *ps;
            if (r < 0)
                return -1;
            if (clconv_bench_suite(v, &ps) == 0) {
                cli_error("--suite: unknown suite '%s' (full, quick)", v);
                return -1;
            }
            o->suite = v;
        } else if ((r = cli_parse_problem_option(argc, argv, &i, &o->dims,
                                              &size, &o->mask))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_parse_run_option(argc, argv, &i, 10, &o->device,
                                             &o->reps, &o->warmup,
                                             &o->seed))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--mask-mode", &v))) {
            int modes[3], n = 0;
            if (r < 0 || cli_parse_mask_modes(v, modes, &n))
                return -1;
            if (n != 1) {
                cli_error("bench: --mask-mode takes one mode");
                return -1;
            }
            o->mask_mode = (clconv_mask_mode)modes[0];
        } else if ((r = cli_opt_value(argc, argv, &i, "--strategy", &v))) {
            if (r < 0 || cli_parse_strategy(v, 0, &o->strategy))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--tiles", &v))) {
            if (r < 0)
                return -1;
            if (strcmp(v, "all") == 0) {
                o->all_tiles = 1;
            } else if (strcmp(v, "default") == 0) {
                o->all_tiles = 0;
            } else if (strcmp(v, "gpu") == 0) {
                o->all_tiles = 2;
            } else {
                cli_error("--tiles: '%s' is not all, default or gpu", v);
                return -1;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--json", &v))) {
            if (r < 0)
                return -1;
            o->json = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--csv", &v))) {
            if (r < 0)
                return -1;
            o->csv = v;
        } else if (cli_opt_flag(argv, i, "--quiet")) {
            o->quiet = 1;
        } else {
            cli_error("bench: unknown option '%s' (see clconv bench --help)",
                      argv[i]);
            return -1;
        }
    }
    if ((o->dims || size || o->mask) && o->suite) {
        cli_error("bench: --suite and --dims/--size/--mask are exclusive");
        return -1;
    }
    if ((size || o->mask) && !o->dims) {
        cli_error("bench: --size and --mask need --dims");
        return -1;
    }
    if (o->dims && (!size || !o->mask)) {
        cli_error("bench: a custom problem needs --dims, --size and --mask");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    return 0;
}

/* The tiles a strategy tries on a dims: the table, plus its default tile,
 * without duplicates. Returns the count (at most cap). */
static size_t tiles_of(const bench_options *o, const clconv_device_info *dev,
                       clconv_strategy s, int dims, int mask, int *out,
                       size_t cap)
{
    size_t n = 0;
    const int *table = NULL;
    int sweep = o->all_tiles == 1 ||
                (o->all_tiles == 2 && dev->kind == CLCONV_DEVICE_GPU);
    size_t count = sweep ? clconv_bench_tiles(dims, &table) : 0;
    for (size_t i = 0; i < count && n < cap; ++i)
        out[n++] = table[i];
    int def = clconv_default_tile(s, dims, mask);
    for (size_t i = 0; i < n; ++i)
        if (out[i] == def)
            return n;
    if (n < cap)
        out[n++] = def;
    return n;
}

/* Relative cost of running one variant on a problem, for the estimate of
 * the time left: every output reads the mask's taps. */
static double work_of(const clconv_bench_problem *b)
{
    double taps = 1.0, n = 1.0;
    for (int k = 0; k < b->dims; ++k) {
        taps *= b->mask_width;
        n *= (double)b->size[k];
    }
    return n * (taps + 4.0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void problem_label(const clconv_bench_problem *b, char *buf, size_t len)
{
    char size[64];
    cli_format_size(b->size, b->dims, size, sizeof size);
    snprintf(buf, len, "%dD %s W=%d", b->dims, size, b->mask_width);
}

/* One row per problem, a column group per device (best variant, median ms,
 * % of roofline), then each device's speed relative to the first. */
static void print_table(const clconv_bench_report *r)
{
    printf("\nclconv bench %s: suite %s, seed %llu, median of %d launches "
           "after %d warm-up\n",
           r->version, r->suite, (unsigned long long)r->seed, r->reps,
           r->warmup);
    for (size_t d = 0; d < r->ndevices; ++d) {
        const clconv_bench_device *v = &r->devices[d];
        printf("  [%c] %u:%u %s (%s, %u CUs): copy %.1f GB/s, FP32 %.1f "
               "GFLOP/s%s%s\n",
               (int)('A' + d % 26), v->info.platform_index,
               v->info.device_index, v->info.name, v->info.driver,
               v->info.compute_units, v->ceilings.copy_gbs,
               v->ceilings.fp32_gflops, v->ceilings_error[0] ? ": " : "",
               v->ceilings_error);
    }
    printf("\n%-24s", "problem");
    for (size_t d = 0; d < r->ndevices; ++d)
        printf(" | [%c] %-15s %10s %6s", (int)('A' + d % 26), "best", "ms",
               "%roof");
    for (size_t d = 1; d < r->ndevices; ++d)
        printf(" | %c vs A", (int)('A' + d % 26));
    printf("\n");
    for (size_t p = 0; p < r->nproblems; ++p) {
        char label[96];
        problem_label(&r->problems[p], label, sizeof label);
        printf("%-24s", label);
        double t0 = 0.0;
        for (size_t d = 0; d < r->ndevices; ++d) {
            long b = clconv_bench_best(r, p, d);
            if (b < 0) {
                printf(" |     %-15s %10s %6s", "(none)", "-", "-");
                continue;
            }
            const clconv_bench_row *w = &r->rows[b];
            char variant[48], pct[16];
            snprintf(variant, sizeof variant, "%s/%d",
                     clconv_strategy_name(w->p.strategy), w->p.tile);
            if (w->m.roofline_pct > 0)
                snprintf(pct, sizeof pct, "%5.1f%%", w->m.roofline_pct);
            else
                snprintf(pct, sizeof pct, "-");
            printf(" |     %-15s %10.4f %6s", variant, w->res.timing.median_ms,
                   pct);
            if (d == 0)
                t0 = w->res.timing.median_ms;
        }
        for (size_t d = 1; d < r->ndevices; ++d) {
            long b = clconv_bench_best(r, p, d);
            if (b < 0 || t0 <= 0)
                printf(" | %6s", "-");
            else
                printf(" | %5.2fx", t0 / r->rows[b].res.timing.median_ms);
        }
        printf("\n");
    }
    if (r->ndevices > 1)
        printf("(X vs A: how many times faster device X's best variant is "
               "than device A's)\n");
}

static int write_file(const char *path, const clconv_bench_report *r,
                      clconv_status (*writer)(const clconv_bench_report *,
                                              FILE *))
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("cannot open %s for writing", path);
        return -1;
    }
    clconv_status st = writer(r, f);
    if (fclose(f) != 0 && st == CLCONV_OK) {
        cli_error("writing %s failed", path);
        return -1;
    }
    if (st != CLCONV_OK) {
        cli_error("%s: %s", path, clconv_last_error());
        return -1;
    }
    return 0;
}

/* Run every strategy and tile of problem p on device d; returns the exit
 * code this contributes. */
static int run_problem_on_device(const bench_options *o,
                                 clconv_bench_report *r, size_t p, size_t d,
                                 clconv_session *s, const clconv_dataset *data)
{
    const clconv_bench_problem *b = &r->problems[p];
    int code = CLI_EXIT_OK;
    for (int si = 0; si < CLCONV_STRATEGY_COUNT; ++si) {
        if (o->strategy >= 0 && si != o->strategy)
            continue;
        const clconv_strategy strat = (clconv_strategy)si;
        int tiles[16];
        size_t nt = tiles_of(o, &r->devices[d].info, strat, b->dims,
                             b->mask_width, tiles, 16);
        for (size_t t = 0; t < nt; ++t) {
            clconv_bench_row w;
            memset(&w, 0, sizeof w);
            w.device = d;
            w.problem = p;
            clconv_bench_shape(b, &w.p);
            w.p.tile = tiles[t];
            w.p.strategy = strat;
            w.p.mask_mode = o->mask_mode;
            clconv_problem_apply_defaults(&r->devices[d].info, &w.p);
            clconv_run_verified(s, &w.p, data, o->warmup, o->reps, &w.res);
            if (w.res.status == CLCONV_OK && w.res.verdict.ok)
                clconv_bench_metrics_of(&w.p, w.res.timing.median_ms,
                                        &r->devices[d].ceilings, &w.m);
            if (strat != CLCONV_NAIVE)
                w.model_reduction = clconv_model_interior_reduction(
                    b->dims, w.p.tile, b->mask_width);
            if (w.res.status == CLCONV_OK && !w.res.verdict.ok) {
                cli_error("%s: %s/%d on %s FAILED verification (%zu elements "
                          "out of bound)",
                          "bench", clconv_strategy_name(strat), w.p.tile,
                          r->devices[d].info.name, w.res.verdict.failures);
                code = CLI_EXIT_VERIFY;
            } else if (w.res.status != CLCONV_OK &&
                       w.res.status != CLCONV_EUNSUPPORTED &&
                       code == CLI_EXIT_OK) {
                code = cli_exit_code(w.res.status);
            }
            if (clconv_bench_add_row(r, &w) != CLCONV_OK) {
                cli_error("%s", clconv_last_error());
                return CLI_EXIT_UNSUPPORTED;
            }
        }
    }
    return code;
}

static void set_date(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cli_bench_main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    bench_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;

    clconv_bench_report r;
    memset(&r, 0, sizeof r);
    snprintf(r.version, sizeof r.version, "%s",
             CLCONV_GIT_VERSION[0] ? CLCONV_GIT_VERSION : CLCONV_VERSION_STRING);
    set_date(r.date, sizeof r.date);
    r.seed = o.seed;
    r.warmup = o.warmup;
    r.reps = o.reps;

    clconv_device_list list = {NULL, 0};
    clconv_session **sessions = NULL;
    size_t *sel = NULL, nsel = 0;
    int code = CLI_EXIT_OK;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    sel = calloc(list.count, sizeof *sel);
    sessions = calloc(list.count, sizeof *sessions);
    r.devices = calloc(list.count, sizeof *r.devices);
    if (!sel || !sessions || !r.devices) {
        cli_error("out of memory");
        code = CLI_EXIT_UNSUPPORTED;
        goto out;
    }
    if (clconv_devices_select(&list, o.device, sel, &nsel) != CLCONV_OK) {
        cli_error("--device: %s", clconv_last_error());
        code = CLI_EXIT_USAGE;
        goto out;
    }

    /* The problems: custom, the named suite, or the default for the
     * devices (full as soon as a GPU is among them). */
    if (o.dims) {
        r.problems = calloc(1, sizeof *r.problems);
        if (!r.problems) {
            cli_error("out of memory");
            code = CLI_EXIT_UNSUPPORTED;
            goto out;
        }
        r.problems[0].dims = o.dims;
        memcpy(r.problems[0].size, o.size, sizeof o.size);
        r.problems[0].mask_width = o.mask;
        r.nproblems = 1;
        snprintf(r.suite, sizeof r.suite, "custom");
    } else {
        const char *name = o.suite;
        if (!name) {
            name = "quick";
            for (size_t d = 0; d < nsel; ++d)
                if (list.devices[sel[d]].kind == CLCONV_DEVICE_GPU)
                    name = "full";
        }
        const clconv_bench_problem *ps = NULL;
        r.nproblems = clconv_bench_suite(name, &ps);
        r.problems = calloc(r.nproblems, sizeof *r.problems);
        if (!r.problems) {
            cli_error("out of memory");
            code = CLI_EXIT_UNSUPPORTED;
            goto out;
        }
        memcpy(r.problems, ps, r.nproblems * sizeof *ps);
        snprintf(r.suite, sizeof r.suite, "%s", name);
    }
    for (size_t p = 0; p < r.nproblems; ++p) {
        clconv_problem shape;
        clconv_bench_shape(&r.problems[p], &shape);
        if (clconv_problem_validate(&shape) != CLCONV_OK) {
            cli_error("bench: %s", clconv_last_error());
            code = CLI_EXIT_USAGE;
            goto out;
        }
    }

    const double t_start = now_s();
    if (!o.quiet)
        fprintf(stderr, "clconv: bench suite %s on %zu device(s), seed %llu "
                        "(repeat with --seed %llu)\n",
                r.suite, nsel, (unsigned long long)o.seed,
                (unsigned long long)o.seed);
    for (size_t d = 0; d < nsel; ++d) {
        clconv_bench_device *bd = &r.devices[r.ndevices++];
        bd->info = list.devices[sel[d]];
        st = clconv_session_create(&bd->info, &sessions[d]);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", bd->info.name, clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
        st = clconv_measure_ceilings(sessions[d], &bd->ceilings);
        if (st != CLCONV_OK) {
            /* Rows still run; they get no roofline. */
            snprintf(bd->ceilings_error, sizeof bd->ceilings_error, "%.*s",
                     (int)strcspn(clconv_last_error(), "\n"),
                     clconv_last_error());
            cli_error("%s: ceilings not measured: %s", bd->info.name,
                      bd->ceilings_error);
        }
        if (!o.quiet)
            fprintf(stderr, "clconv: %s: copy %.1f GB/s, FP32 %.1f GFLOP/s\n",
                    bd->info.name, bd->ceilings.copy_gbs,
                    bd->ceilings.fp32_gflops);
    }

    double total = 0.0, done = 0.0;
    for (size_t p = 0; p < r.nproblems; ++p)
        total += work_of(&r.problems[p]) * (double)nsel;
    for (size_t p = 0; p < r.nproblems; ++p) {
        char label[96];
        problem_label(&r.problems[p], label, sizeof label);
        clconv_problem shape;
        clconv_bench_shape(&r.problems[p], &shape);
        clconv_dataset *data = NULL;
        st = clconv_dataset_create(&shape, o.seed, &data);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", label, clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
        for (size_t d = 0; d < nsel; ++d) {
            int c = run_problem_on_device(&o, &r, p, d, sessions[d], data);
            if (c == CLI_EXIT_VERIFY || (c && code == CLI_EXIT_OK))
                code = c;
            done += work_of(&r.problems[p]);
            if (!o.quiet) {
                double el = now_s() - t_start;
                long b = clconv_bench_best(&r, p, d);
                fprintf(stderr, "clconv: [%zu/%zu] %s on %.30s: ",
                        p * nsel + d + 1, r.nproblems * nsel, label,
                        r.devices[d].info.name);
                if (b >= 0)
                    fprintf(stderr, "best %s/%d %.4f ms",
                            clconv_strategy_name(r.rows[b].p.strategy),
                            r.rows[b].p.tile,
                            r.rows[b].res.timing.median_ms);
                else if (r.nrows > 0)
                    fprintf(stderr, "no variant ran (last: %s)",
                            r.rows[r.nrows - 1].res.reason);
                else
                    fprintf(stderr, "no variant ran");
                fprintf(stderr, "; %.0f s elapsed, about %.0f s left\n", el,
                        done > 0 ? el * (total - done) / done : 0.0);
            }
        }
        clconv_dataset_destroy(data);
    }

    print_table(&r);
    if (o.json && write_file(o.json, &r, clconv_bench_write_json))
        code = CLI_EXIT_UNSUPPORTED;
    if (o.csv && write_file(o.csv, &r, clconv_bench_write_csv))
        code = CLI_EXIT_UNSUPPORTED;
out:
    if (sessions)
        for (size_t d = 0; d < nsel; ++d)
            clconv_session_destroy(sessions[d]);
    free(sessions);
    free(sel);
    clconv_bench_report_free(&r);
    clconv_devices_free(&list);
    return code;
}
