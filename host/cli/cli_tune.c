/* `clconv tune`: search the best verified configuration per device and
 * problem class within a time budget, and store it in the tuning cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clconv_bench.h"
#include "clconv_tune.h"
#include "cli.h"

typedef struct tune_options {
    const char *suite; /* NULL: --dims or quick */
    int dims;          /* one problem when > 0 */
    size_t size[3];
    int have_size, mask;
    const char *device;
    double budget_s;
    int reps, warmup, finalists;
    uint64_t seed;
    int json, quiet;
} tune_options;

/* Without --size/--mask: the same default problems as `clconv run`. */
static const clconv_bench_problem defaults[3] = {
    {1, {1u << 20, 1, 1}, 9},
    {2, {1024, 1024, 1}, 5},
    {3, {128, 128, 128}, 3},
};

static void usage(FILE *f)
{
    fputs(
        "usage: clconv tune [--device SEL] [--dims D [--size X[xY[xZ]]]\n"
        "                   [--mask W] | --suite quick|full] [--budget S]\n"
        "                   [--reps N] [--warmup N] [--seed S] [--json]\n"
        "                   [--quiet]\n"
        "For each device and problem, try strategy x tile x coarsening x\n"
        "work-group shape (the default pick first), verify every candidate\n"
        "against the double-precision reference, time the verified ones,\n"
        "re-time the 3 best, and store the fastest per problem class (dims,\n"
        "mask, power-of-two size class) in the device's tuning cache under\n"
        "$XDG_CACHE_HOME/clconv/ (else ~/.cache/clconv/). `clconv run\n"
        "--strategy auto` then uses it. Progress and time left on stderr.\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --dims D        one problem (default size and mask as clconv run)\n"
        "  --size, --mask  its extents and odd mask width\n"
        "  --suite NAME    quick or full: the bench suite (default quick)\n"
        "  --budget S      seconds for the whole command (default 300); split\n"
        "                  evenly over the device x problem pairs left, time\n"
        "                  one pair leaves unused goes to the next\n"
        "  --reps N        timed launches per candidate (default 5)\n"
        "  --warmup N      untimed launches first (default 1)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json          the results as a JSON array on stdout\n"
        "  --quiet         no line per candidate on stderr\n"
        "Exit: 0 ok, 1 a candidate failed verification (never chosen),\n"
        "      2 usage error, 3 a candidate hit an OpenCL or build error, or\n"
        "      the tuning cache could not be written.\n",
        f);
}

static int parse(int argc, char **argv, tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->budget_s = 300;
    o->reps = 5;
    o->warmup = 1;
    o->finalists = 3;
    o->seed = cli_default_seed();
    o->device = getenv("CLCONV_DEVICE");
    const char *size = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        if ((r = cli_parse_problem_option(argc, argv, &i, &o->dims,
                                              &size, &o->mask))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--suite", &v))) {
            const clconv_bench_problem *ps;
            if (r < 0)
                return -1;
            if (!clconv_bench_suite(v, &ps)) {
                cli_error("--suite: unknown suite '%s' (quick, full)", v);
                return -1;
            }
            o->suite = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--budget", &v))) {
            if (r < 0 || cli_parse_int("--budget", v, 0, 7 * 24 * 3600, &x))
                return -1;
            o->budget_s = (double)x;
        } else if ((r = cli_parse_run_option(argc, argv, &i, 1, &o->device,
                                             &o->reps, &o->warmup,
                                             &o->seed))) {
            if (r < 0)
                return -1;
        } else if (cli_opt_flag(argv, i, "--json")) {
            o->json = 1;
        } else if (cli_opt_flag(argv, i, "--quiet")) {
            o->quiet = 1;
        } else {
            cli_error("tune: unknown option '%s' (see clconv tune --help)",
                      argv[i]);
            return -1;
        }
    }
    if (o->suite && o->dims) {
        cli_error("tune: --suite and --dims are exclusive");
        return -1;
    }
    if (!o->dims && (size || o->mask)) {
        cli_error("tune: --size and --mask need --dims");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    o->have_size = size != NULL;
    return 0;
}

/* The problems to tune (malloc'd), their count in *n. */
static clconv_problem *problems_of(const tune_options *o, size_t *n)
{
    const clconv_bench_problem *bp = NULL;
    size_t nb = 0;
    clconv_bench_problem one;
    if (o->dims) {
        one = defaults[o->dims - 1];
        if (o->have_size)
            memcpy(one.size, o->size, sizeof one.size);
        if (o->mask)
            one.mask_width = o->mask;
        bp = &one;
        nb = 1;
    } else {
        nb = clconv_bench_suite(o->suite ? o->suite : "quick", &bp);
    }
    clconv_problem *ps = calloc(nb ? nb : 1, sizeof *ps);
    if (!ps)
        return NULL;
    for (size_t k = 0; k < nb; ++k) {
        ps[k].dims = bp[k].dims;
        memcpy(ps[k].size, bp[k].size, sizeof ps[k].size);
        ps[k].mask_width = bp[k].mask_width;
        ps[k].tile = 1;
        ps[k].strategy = CLCONV_NAIVE;
    }
    *n = nb;
    return ps;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void format_candidate(const clconv_tune_candidate *c, char *buf,
                             size_t len)
{
    if (c->strategy == CLCONV_COARSE && c->group_y)
        snprintf(buf, len, "%s T=%d C=%d GY=%d",
                 clconv_strategy_name(c->strategy), c->tile, c->coarsen,
                 c->group_y);
    else if (c->strategy == CLCONV_COARSE || c->coarsen)
        snprintf(buf, len, "%s T=%d C=%d", clconv_strategy_name(c->strategy),
                 c->tile, c->coarsen);
    else
        snprintf(buf, len, "%s T=%d", clconv_strategy_name(c->strategy),
                 c->tile);
}

/* What the progress callback needs to name the pair it reports on. */
typedef struct progress_ctx {
    const clconv_device_info *dev;
    const clconv_problem *p;
    const tune_options *o;
    double total_left_s; /* the command's budget left when the pair began */
    int failed, errors;
} progress_ctx;

static void progress(void *user, const clconv_tune_event *ev)
{
    progress_ctx *c = user;
    char size[64], cand[96], best[96] = "none yet", head[160];
    cli_format_size(c->p->size, c->p->dims, size, sizeof size);
    format_candidate(ev->candidate, cand, sizeof cand);
    snprintf(head, sizeof head, "%u:%u %dD %s W=%d", c->dev->platform_index,
             c->dev->device_index, c->p->dims, size, c->p->mask_width);
    const clconv_result *r = ev->result;
    const clconv_verdict *v = &r->verdict;
    if (r->status == CLCONV_OK && !v->ok) {
        c->failed = 1;
        cli_error("VERIFICATION FAILED: %s %s: %zu elements out of bound, "
                  "max_err %.3g, worst at index %zu: got %.9g expected %.9g; "
                  "excluded from the choice (please report this)",
                  head, cand, v->failures, v->max_err, v->worst_index,
                  v->worst_got, v->worst_expected);
    } else if (r->status != CLCONV_OK && r->status != CLCONV_EUNSUPPORTED) {
        c->errors = 1;
        cli_error("tune: %s %s: %s: %s", head, cand,
                  clconv_status_name(r->status), r->reason);
    }
    if (c->o->quiet)
        return;
    char what[160];
    if (r->status == CLCONV_EUNSUPPORTED)
        snprintf(what, sizeof what, "unsupported");
    else if (r->status != CLCONV_OK)
        snprintf(what, sizeof what, "error");
    else if (!v->ok)
        snprintf(what, sizeof what, "FAILED verification");
    else
        snprintf(what, sizeof what, "ok %.4f ms", r->timing.median_ms);
    if (ev->best) {
        format_candidate(ev->best, best, sizeof best);
        size_t n = strlen(best);
        snprintf(best + n, sizeof best - n, " %.4f ms", ev->best_ms);
    }
    double left = c->total_left_s - ev->elapsed_s;
    fprintf(stderr, "tune %s %s [%zu/%zu] %s: %s | best %s | %.0f s left\n",
            head, ev->phase == 1 ? "try" : "re-time", ev->index + 1,
            ev->count, cand, what, best, left > 0 ? left : 0.0);
}

typedef struct tune_row {
    const clconv_device_info *dev;
    clconv_problem p;
    clconv_tune_outcome out;
    clconv_tune_candidate def;
} tune_row;

static double gbs(const clconv_problem *p, double ms)
{
    return ms > 0 ? 2.0 * (double)clconv_problem_elements(p) * sizeof(float) /
                        (ms * 1e-3) / 1e9
                  : 0.0;
}

static void print_row(const tune_row *r)
{
    char size[64], best[96], def[96];
    cli_format_size(r->p.size, r->p.dims, size, sizeof size);
    format_candidate(&r->def, def, sizeof def);
    const clconv_tune_outcome *o = &r->out;
    printf("%u:%u %-24.24s %dD %-13s W=%-3d ", r->dev->platform_index,
           r->dev->device_index, r->dev->name, r->p.dims, size,
           r->p.mask_width);
    if (o->found) {
        format_candidate(&o->best, best, sizeof best);
        printf("best %-26s %9.4f ms %8.2f GB/s", best, o->best_ms,
               gbs(&r->p, o->best_ms));
        if (o->default_ms > 0)
            printf("  (default %s %.4f ms: %.2fx)", def, o->default_ms,
                   o->default_ms / o->best_ms);
    } else {
        printf("not tuned: no verified candidate");
    }
    printf("\n    tried %zu of %zu: %zu ok, %zu FAILED, %zu unsupported, %zu "
           "errors%s\n",
           o->tried, o->tried + o->not_tried, o->verified, o->failed,
           o->unsupported, o->errors, o->out_of_time ? "; budget ran out" : "");
}

static void print_json(const tune_row *rows, size_t n)
{
    printf("[\n");
    for (size_t i = 0; i < n; ++i) {
        const tune_row *r = &rows[i];
        const clconv_tune_outcome *o = &r->out;
        char size[64], dev[300];
        cli_format_size(r->p.size, r->p.dims, size, sizeof size);
        snprintf(dev, sizeof dev, "%u:%u %s", r->dev->platform_index,
                 r->dev->device_index, r->dev->name);
        printf("  {\"device\": ");
        cli_json_string(stdout, dev);
        printf(", \"driver\": ");
        cli_json_string(stdout, r->dev->driver);
        printf(", \"dims\": %d, \"size\": \"%s\", \"mask\": %d, "
               "\"size_class\": %d, \"found\": %s",
               r->p.dims, size, r->p.mask_width, clconv_size_class(&r->p),
               o->found ? "true" : "false");
        if (o->found)
            printf(", \"strategy\": \"%s\", \"tile\": %d, \"coarsen\": %d, "
                   "\"group_y\": %d, \"ms\": %.6f, \"gbs\": %.3f",
                   clconv_strategy_name(o->best.strategy), o->best.tile,
                   o->best.coarsen, o->best.group_y, o->best_ms,
                   gbs(&r->p, o->best_ms));
        printf(", \"default\": {\"strategy\": \"%s\", \"tile\": %d, \"ms\": ",
               clconv_strategy_name(r->def.strategy), r->def.tile);
        if (o->default_ms > 0)
            printf("%.6f}", o->default_ms);
        else
            printf("null}");
        printf(", \"tried\": %zu, \"verified\": %zu, \"failed\": %zu, "
               "\"unsupported\": %zu, \"errors\": %zu, \"not_tried\": %zu, "
               "\"out_of_time\": %s}%s\n",
               o->tried, o->verified, o->failed, o->unsupported, o->errors,
               o->not_tried, o->out_of_time ? "true" : "false",
               i + 1 < n ? "," : "");
    }
    printf("]\n");
}

int cli_tune_main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    tune_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    size_t np = 0;
    clconv_problem *problems = problems_of(&o, &np);
    if (!problems) {
        cli_error("out of memory");
        return CLI_EXIT_UNSUPPORTED;
    }
    for (size_t k = 0; k < np; ++k)
        if (clconv_problem_validate(&problems[k]) != CLCONV_OK) {
            cli_error("tune: %s", clconv_last_error());
            free(problems);
            return CLI_EXIT_USAGE;
        }

    const double t0 = now_s();
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        free(problems);
        return cli_exit_code(st);
    }
    int code = CLI_EXIT_OK, failed = 0, errors = 0;
    size_t nsel = 0, nrows = 0;
    size_t *sel = calloc(list.count, sizeof *sel);
    clconv_session **sessions = calloc(list.count, sizeof *sessions);
    clconv_tune_table *tables = calloc(list.count, sizeof *tables);
    tune_row *rows = calloc(np * list.count + 1, sizeof *rows);
    if (!sel || !sessions || !tables || !rows) {
        cli_error("out of memory");
        code = CLI_EXIT_UNSUPPORTED;
        goto out;
    }
    if (clconv_devices_select(&list, o.device, sel, &nsel) != CLCONV_OK) {
        cli_error("--device: %s", clconv_last_error());
        code = CLI_EXIT_USAGE;
        goto out;
    }
    for (size_t d = 0; d < nsel; ++d) {
        const clconv_device_info *dev = &list.devices[sel[d]];
        st = clconv_session_create(dev, &sessions[d]);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", dev->name, clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
        /* Once per device: a cache we cannot use is said, then replaced. */
        if (clconv_tune_load(dev, &tables[d]) != CLCONV_OK)
            cli_error("ignoring the tuning cache of %s: %s (it will be "
                      "rewritten)",
                      dev->name, clconv_last_error());
        else if (tables[d].stale)
            cli_error("%zu tuned entries of %s were dropped: their kernel "
                      "sources changed since",
                      tables[d].stale, dev->name);
    }
    fprintf(stderr, "clconv: seed %llu (repeat with --seed %llu), budget "
                    "%.0f s\n",
            (unsigned long long)o.seed, (unsigned long long)o.seed,
            o.budget_s);

    for (size_t k = 0; k < np; ++k) {
        clconv_dataset *data = NULL;
        st = clconv_dataset_create(&problems[k], o.seed, &data);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
        for (size_t d = 0; d < nsel; ++d) {
            const clconv_device_info *dev = &list.devices[sel[d]];
            double left = o.budget_s - (now_s() - t0);
            size_t pairs_left = (np - k) * nsel - d;
            progress_ctx ctx = {dev, &problems[k], &o, left, 0, 0};
            clconv_tune_options topt = {
                left > 0 ? left / (double)pairs_left : 0.0,
                o.warmup, o.reps, o.finalists, progress, &ctx};
            tune_row *r = &rows[nrows++];
            r->dev = dev;
            r->p = problems[k];
            clconv_tune_candidate first;
            if (clconv_tune_candidates(dev, &r->p, &first, 1))
                r->def = first;
            st = clconv_tune_problem(sessions[d], data, &topt, &r->out);
            if (st != CLCONV_OK) {
                cli_error("tune: %s", clconv_last_error());
                clconv_dataset_destroy(data);
                code = cli_exit_code(st);
                goto out;
            }
            failed |= ctx.failed;
            errors |= ctx.errors;
            if (!r->out.found)
                continue;
            clconv_tuning e = {r->p.dims, r->p.mask_width,
                               clconv_size_class(&r->p), r->out.best.strategy,
                               r->out.best.tile, r->out.best.coarsen,
                               r->out.best.group_y, r->out.best_ms,
                               {r->p.size[0], r->p.size[1], r->p.size[2]}, 0};
            char path[4200] = "";
            /* Save after every problem: an interrupted tune keeps what it
             * found. */
            if (clconv_kernel_hash(e.strategy, e.dims, &e.kernel_hash) !=
                    CLCONV_OK ||
                clconv_tune_put(&tables[d], &e) != CLCONV_OK ||
                clconv_tune_save(dev, &tables[d]) != CLCONV_OK ||
                clconv_tune_path(dev, path, sizeof path) != CLCONV_OK) {
                cli_error("cannot save the tuning of %s: %s", dev->name,
                          clconv_last_error());
                errors = 1;
            } else if (!o.quiet) {
                fprintf(stderr, "clconv: saved to %s\n", path);
            }
        }
        clconv_dataset_destroy(data);
    }
    if (o.json) {
        print_json(rows, nrows);
    } else {
        for (size_t i = 0; i < nrows; ++i)
            print_row(&rows[i]);
    }
    code = failed ? CLI_EXIT_VERIFY : errors ? CLI_EXIT_UNSUPPORTED : code;
out:
    for (size_t d = 0; sessions && d < nsel; ++d)
        clconv_session_destroy(sessions[d]);
    for (size_t d = 0; tables && d < list.count; ++d)
        clconv_tune_table_free(&tables[d]);
    free(rows);
    free(tables);
    free(sessions);
    free(sel);
    free(problems);
    clconv_devices_free(&list);
    return code;
}

/* ---- --strategy auto for the other commands ------------------------------ */

int cli_auto_config(const clconv_device_info *dev, clconv_problem *p,
                    int quiet)
{
    /* An unusable tuning cache is said once per device and process. */
    static const void *told[64];
    static size_t ntold;
    int seen = 0;
    for (size_t i = 0; i < ntold; ++i)
        seen |= told[i] == dev->opaque_device;
    if (!seen) {
        clconv_tune_table t = {0};
        if (clconv_tune_load(dev, &t) != CLCONV_OK)
            cli_error("ignoring the tuning cache of %s: %s (clconv tune "
                      "rewrites it)",
                      dev->name, clconv_last_error());
        else if (t.stale)
            cli_error("ignoring %zu tuned entries of %s: their kernel "
                      "sources changed since (run clconv tune again)",
                      t.stale, dev->name);
        clconv_tune_table_free(&t);
        if (ntold < sizeof told / sizeof told[0])
            told[ntold++] = dev->opaque_device;
    }
    int tuned = 0;
    if (clconv_auto_config(dev, p, &tuned) != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    if (!quiet) {
        char size[64], cand[96];
        const clconv_tune_candidate c = {p->strategy, p->tile, p->coarsen,
                                         p->group_y};
        cli_format_size(p->size, p->dims, size, sizeof size);
        format_candidate(&c, cand, sizeof cand);
        fprintf(stderr, "clconv: auto on %u:%u for %dD %s W=%d: %s (%s)\n",
                dev->platform_index, dev->device_index, p->dims, size,
                p->mask_width, cand,
                tuned ? "tuned" : "not tuned, default heuristic; see clconv "
                                  "tune");
    }
    return 0;
}
