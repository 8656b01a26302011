/* `clconv bench`: measured ceilings, the standard problem set on every
 * device, a side-by-side table, JSON and CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "clconv_model.h"

#ifndef CLCONV_GIT_VERSION
#define CLCONV_GIT_VERSION ""
#endif

void cli_bench_usage(FILE *f)
{
    fprintf(f,
        "usage: clconv bench [--suite full|quick | --dims D --size X[xY[xZ]]\n"
        "                    --mask W] [--device SEL] [--strategy S|all]\n"
        "                    [--mask-mode M] [--tiles all|default|gpu]\n"
        "                    [--reps N] [--warmup N] [--mode M] [--cval V]\n"
        "                    [--origin O[,O..]] [--convolve] [--axes A[,B..]]\n"
        "                    [--batch N] [--mpi]\n"
        "                    [--seed S] [--json FILE] [--csv FILE] [--quiet]\n"
        "                    [--end-to-end] [--dtype T] [--out-dtype same|f32]\n"
        "Measure each device's copy bandwidth and FP32 FMA peak, then run\n"
        "every strategy with every tile that fits on each problem: verify it\n"
        "once against the double-precision reference, time --reps launches\n"
        "after --warmup, and report the best variant per problem and device\n"
        "with its %% of the roofline floor max(bytes/copy, flops/peak).\n"
        "  --suite NAME    full (1D 2^26, 2D 8192^2, 3D 512^3; the default when\n"
        "                  a GPU is selected) or quick (1D 2^22, 2D 1024^2,\n"
        "                  3D 128^3; the default on CPUs only); large and\n"
        "                  large-quick compare methods (below)\n"
        "  --dims D --size X[xY[xZ]] --mask W|WxH[xD]   one custom problem\n"
        "                  instead (WxH[xD]: one width per axis, x first)\n"
        "  --mode M        border mode of every row: constant (default),\n"
        "                  nearest, reflect, mirror, wrap (a mode column in\n"
        "                  JSON and CSV); --cval V the constant mode's value\n"
        "  --origin O      SciPy's origin, one value or one per axis, x first\n"
        "  --axes A[,B..]  the axes the mask spans (x first; others 1 wide)\n"
        "  --convolve      convolution (the mask flipped) instead of correlation\n"
        CLI_DTYPE_HELP
        "                  (the floor counts each type's bytes)\n"
        "  --batch N       N problems of --size (1D or 2D) in one launch, stacked\n"
        "                  along one more axis (rows show the stacked size)\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --strategy S    %s\n"
        "                  or all (default all)\n"
        "  --mask-mode M   argument, baked or auto (default: baked for coarse\n"
        "                  and vector on GPUs, argument otherwise)\n"
        "  --tiles T       all: 1D 64..512, 2D 8..32, 3D 4, 8 (default);\n"
        "                  default: each strategy's default tile only;\n"
        "                  gpu: all on GPUs, default elsewhere\n"
        "  --reps N        timed launches per variant, >= 10 (default 10)\n"
        "  --warmup N      untimed launches first (default 1)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json FILE     every row, devices, ceilings (bench/README.md),\n"
        "                  written to FILE atomically; -: on stdout instead\n"
        "                  of the table\n"
        "  --csv FILE      every row as CSV, the same way\n"
        "  --quiet         no progress on stderr\n"
        "  --end-to-end    whole host-to-host calls instead (clconv_convolve:\n"
        "                  host array in, host array out, wall time, median of\n"
        "                  --reps), beside the host<->device transfer floor;\n"
        "                  2D 1920x1080 and 8192x8192, masks 3, 5, 9, each\n"
        "                  device's default variant (or --strategy, --dims..)\n"
        "  --mpi           under mpirun: strong and weak scaling of 3D problems\n"
        "                  over the ranks (clconv bench --mpi --help)\n"
        "Exit: 0 ok, 1 a variant failed verification, 2 usage error,\n"
        "      3 OpenCL error (tiles that do not fit are skipped, not errors).\n",
        cli_strategy_list(0));
    cli_bench_large_usage(f);
}

/* --tiles all|default|gpu */
static int parse_tiles(const char *v, int *all_tiles)
{
    static const char *const names[3] = {"default", "all", "gpu"};
    for (int k = 0; k < 3; ++k)
        if (strcmp(v, names[k]) == 0) {
            *all_tiles = k;
            return 0;
        }
    cli_error("--tiles: '%s' is not all, default or gpu", v);
    return -1;
}

/* One option of argv[*i]: 0 if it was bench's, -1 (error printed) else. */
static int parse_one(int argc, char **argv, int *i, bench_options *o,
                     const char **size)
{
    const char *v = NULL;
    int r;
    if ((r = cli_parse_suite(argc, argv, i, &o->suite)) ||
        (r = cli_parse_filter_option(argc, argv, i,
                                     CLI_FILTER_MASK_AXES | CLI_FILTER_BATCH |
                                         CLI_FILTER_DTYPE,
                                     &o->filter)) ||
        (r = cli_parse_problem_option(argc, argv, i, &o->dims, size,
                                      &o->mask)) ||
        (r = cli_parse_run_option(argc, argv, i, 10, &o->device, &o->reps,
                                  &o->warmup, &o->seed)) ||
        (r = cli_parse_output_option(argc, argv, i, 1, &o->out)))
        return r < 0 ? -1 : 0;
    if ((r = cli_opt_value(argc, argv, i, "--mask-mode", &v))) {
        int modes[3], n = 0;
        if (r < 0 || cli_parse_mask_modes(v, modes, &n))
            return -1;
        if (n != 1) {
            cli_error("bench: --mask-mode takes one mode");
            return -1;
        }
        o->mask_mode = (clconv_mask_mode)modes[0];
        o->kernel_knobs = 1;
        return 0;
    }
    if ((r = cli_opt_value(argc, argv, i, "--strategy", &v)))
        return r < 0 ? -1 : cli_parse_strategy(v, CLI_TAKES_ALL, &o->strategy);
    if ((r = cli_opt_value(argc, argv, i, "--tiles", &v))) {
        o->kernel_knobs = 1;
        return r < 0 ? -1 : parse_tiles(v, &o->all_tiles);
    }
    if (cli_opt_set(argv, *i, "--quiet", &o->quiet) ||
        cli_opt_set(argv, *i, "--end-to-end", &o->end_to_end))
        return 0;
    cli_unknown_option("bench", argv[*i]);
    return -1;
}

static int parse(int argc, char **argv, bench_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->all_tiles = 1;
    o->reps = 10;
    o->warmup = 1;
    if (cli_run_defaults(&o->device, &o->seed))
        return -1;
    const char *size = NULL;
    for (int i = 1; i < argc; ++i)
        if (parse_one(argc, argv, &i, o, &size))
            return -1;
    if (cli_outputs_check(&o->out))
        return -1;
    for (int a = 0; a < o->filter.nmask_size; ++a) /* the largest width */
        if (o->filter.mask_size[a] > o->mask)
            o->mask = o->filter.mask_size[a];
    if ((o->filter.nmask_size || o->filter.norigin || o->filter.batch > 1) &&
        !o->dims) {
        cli_error("bench: --mask WxH[xD], --origin and --batch need --dims");
        return -1;
    }
    if (o->filter.dtype != CLCONV_ELEM_F32 && o->end_to_end) {
        cli_error("bench: --end-to-end times float32 calls; --dtype is for "
                  "the kernel rows");
        return -1;
    }
    if (o->kernel_knobs && o->end_to_end) {
        cli_error("bench: --end-to-end times clconv_convolve with the "
                  "library's own tile and mask mode; --tiles and --mask-mode "
                  "are for the kernel rows");
        return -1;
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

/* Verify and time one variant of problem p on device d; the row is added
 * to the report. Its exit code, or -1 (out of memory, printed). */
static int run_variant(const bench_options *o, clconv_bench_report *r,
                       size_t p, size_t d, clconv_session *s,
                       const clconv_dataset *data, clconv_strategy strat,
                       int tile, const clconv_ceilings *ceil)
{
    const clconv_bench_problem *b = &r->problems[p];
    const clconv_bench_device *dev = &r->devices[d];
    clconv_bench_row w;
    memset(&w, 0, sizeof w);
    w.device = d;
    w.problem = p;
    clconv_bench_shape(b, &w.p);
    cli_filter_apply(&o->filter, 0, &w.p); /* checked with the problems */
    w.p.tile = tile;
    w.p.strategy = strat;
    w.p.mask_mode = o->mask_mode;
    clconv_problem_apply_defaults(&dev->info, &w.p);
    clconv_run_verified(s, &w.p, data, o->warmup, o->reps, &w.res);
    if (w.res.status == CLCONV_OK && w.res.verdict.ok)
        clconv_bench_metrics_of(&w.p, w.res.timing.median_ms, ceil, &w.m);
    if (strat != CLCONV_NAIVE)
        w.model_reduction =
            clconv_model_interior_reduction(b->dims, w.p.tile, b->mask_width);
    if (w.res.status == CLCONV_OK && !w.res.verdict.ok)
        cli_error("%s: %s/%d on %s FAILED verification (%zu elements out of "
                  "bound)",
                  "bench", clconv_strategy_name(strat), w.p.tile,
                  dev->info.name, w.res.verdict.failures);
    if (clconv_bench_add_row(r, &w) != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    /* Tiles that do not fit are skipped, not errors. */
    return w.res.status == CLCONV_EUNSUPPORTED ? CLI_EXIT_OK
                                               : cli_result_code(&w.res);
}

/* Run every strategy and tile of problem p on device d; returns the exit
 * code this contributes, or -1 to stop. */
static int run_problem_on_device(const bench_options *o,
                                 clconv_bench_report *r, size_t p, size_t d,
                                 clconv_session *s, const clconv_dataset *data)
{
    const clconv_bench_problem *b = &r->problems[p];
    int code = CLI_EXIT_OK;
    /* The floor's copy ceiling: the device's, or a copy of this problem's
     * own size where that is faster (a problem in the CPU's caches). */
    clconv_ceilings ceil = r->devices[d].ceilings;
    double at_size = 0.0;
    clconv_problem shape;
    clconv_bench_shape(b, &shape);
    cli_filter_apply(&o->filter, 0, &shape); /* checked with the problems */
    if (ceil.copy_gbs > 0 &&
        clconv_measure_copy(s, clconv_problem_elements(&shape) *
                                   clconv_elem_size(shape.in_dtype),
                            &at_size) == CLCONV_OK &&
        at_size > ceil.copy_gbs)
        ceil.copy_gbs = at_size;
    for (int si = 0; si < CLCONV_STRATEGY_COUNT; ++si) {
        if (o->strategy >= 0 && si != o->strategy)
            continue;
        const clconv_strategy strat = (clconv_strategy)si;
        int tiles[16];
        size_t nt = bench_tiles_of(o, &r->devices[d].info, strat, &shape,
                                   tiles, 16);
        for (size_t t = 0; t < nt; ++t) {
            int c = run_variant(o, r, p, d, s, data, strat, tiles[t], &ceil);
            if (c < 0)
                return -1;
            code = cli_merge_code(code, c);
        }
    }
    return code;
}

/* Progress after problem p on device d: its best and the time left. */
static void progress(const clconv_bench_report *r, size_t p, size_t d,
                     size_t nsel, double elapsed, double done, double total)
{
    char label[96];
    bench_problem_label(r, p, label, sizeof label);
    long b = clconv_bench_best(r, p, d);
    fprintf(stderr, "clconv: [%zu/%zu] %s on %.30s: ", p * nsel + d + 1,
            r->nproblems * nsel, label, r->devices[d].info.name);
    if (b >= 0)
        fprintf(stderr, "best %s/%d %.4f ms",
                clconv_strategy_name(r->rows[b].p.strategy), r->rows[b].p.tile,
                r->rows[b].res.timing.median_ms);
    else if (r->nrows > 0)
        fprintf(stderr, "no variant ran (last: %s)",
                r->rows[r->nrows - 1].res.reason);
    else
        fprintf(stderr, "no variant ran");
    fprintf(stderr, "; %.0f s elapsed, about %.0f s left\n", elapsed,
            done > 0 ? elapsed * (total - done) / done : 0.0);
}

/* Each selected device into the report, with its measured ceilings (a
 * device whose ceilings fail still runs its rows, without a roofline). */
static void measure_devices(const bench_options *o, const cli_devices *devs,
                            clconv_bench_report *r)
{
    for (size_t d = 0; d < devs->n; ++d) {
        clconv_bench_device *bd = &r->devices[r->ndevices++];
        bd->info = *cli_device(devs, d);
        clconv_status st = clconv_measure_ceilings(devs->sessions[d],
                                                   &bd->ceilings);
        if (st != CLCONV_OK) {
            snprintf(bd->ceilings_error, sizeof bd->ceilings_error, "%.*s",
                     (int)strcspn(clconv_last_error(), "\n"),
                     clconv_last_error());
            cli_error("%s: ceilings not measured: %s", bd->info.name,
                      bd->ceilings_error);
        }
        if (!o->quiet)
            fprintf(stderr, "clconv: %s: copy %.1f GB/s, FP32 %.1f GFLOP/s\n",
                    bd->info.name, bd->ceilings.copy_gbs,
                    bd->ceilings.fp32_gflops);
    }
}

/* Every problem on every device: the exit code, or minus the exit code to
 * stop with (error printed). */
static int bench_all(const bench_options *o, const cli_devices *devs,
                     clconv_bench_report *r)
{
    const double t_start = clconv_now_s();
    double total = 0.0, done = 0.0;
    int code = CLI_EXIT_OK;
    for (size_t p = 0; p < r->nproblems; ++p)
        total += bench_work_of(&r->problems[p]) * (double)devs->n;
    for (size_t p = 0; p < r->nproblems; ++p) {
        clconv_problem shape;
        clconv_bench_shape(&r->problems[p], &shape);
        cli_filter_apply(&o->filter, 0, &shape);
        clconv_dataset *data = NULL;
        clconv_status st = clconv_dataset_create(&shape, o->seed, &data);
        if (st != CLCONV_OK) {
            char label[96];
            bench_problem_label(r, p, label, sizeof label);
            cli_error("%s: %s", label, clconv_last_error());
            return -cli_exit_code(st);
        }
        for (size_t d = 0; d < devs->n && code >= 0; ++d) {
            int c = run_problem_on_device(o, r, p, d, devs->sessions[d], data);
            code = c < 0 ? -CLI_EXIT_UNSUPPORTED : cli_merge_code(code, c);
            done += bench_work_of(&r->problems[p]);
            if (!o->quiet && code >= 0)
                progress(r, p, d, devs->n, clconv_now_s() - t_start, done, total);
        }
        clconv_dataset_destroy(data);
        if (code < 0)
            return code;
    }
    return code;
}

static int render_json(const void *r, FILE *f)
{
    return clconv_bench_write_json(r, f) == CLCONV_OK ? 0 : -1;
}

static int render_csv(const void *r, FILE *f)
{
    return clconv_bench_write_csv(r, f) == CLCONV_OK ? 0 : -1;
}

static void report_init(const bench_options *o, clconv_bench_report *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->version, sizeof r->version, "%s",
             CLCONV_GIT_VERSION[0] ? CLCONV_GIT_VERSION : CLCONV_VERSION_STRING);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->seed = o->seed;
    r->warmup = o->warmup;
    r->reps = o->reps;
}

int cli_bench_main(int argc, char **argv)
{
    /* The large-mask suites compare methods, not strategies and tiles. */
    if (cli_bench_large_wanted(argc, argv))
        return cli_bench_large_main(argc, argv);
    bench_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    if (cli_outputs_writable(&o.out) != CLI_EXIT_OK)
        return CLI_EXIT_UNSUPPORTED;
    clconv_bench_report r;
    report_init(&o, &r);
    cli_devices devs;
    int code = cli_devices_open(&devs, o.device, 1);
    if (code != CLI_EXIT_OK)
        return code;
    if (o.end_to_end) {
        code = bench_end_to_end(&o, &devs);
        goto out;
    }
    r.devices = calloc(devs.n + 1, sizeof *r.devices);
    if (!r.devices)
        cli_error("out of memory");
    code = r.devices ? bench_choose_problems(&o, &devs, &r)
                     : CLI_EXIT_UNSUPPORTED;
    if (code != CLI_EXIT_OK)
        goto out;
    if (!o.quiet)
        fprintf(stderr, "clconv: bench suite %s on %zu device(s), seed %llu "
                        "(repeat with --seed %llu)\n",
                r.suite, devs.n, (unsigned long long)o.seed,
                (unsigned long long)o.seed);
    measure_devices(&o, &devs, &r);
    code = bench_all(&o, &devs, &r);
    if (code < 0) {
        code = -code;
        goto out;
    }
    if (cli_outputs_text(&o.out) && bench_print_table(&r))
        code = CLI_EXIT_UNSUPPORTED;
    if (o.out.json && cli_write_output(o.out.json, render_json, &r))
        code = CLI_EXIT_UNSUPPORTED;
    if (o.out.csv && cli_write_output(o.out.csv, render_csv, &r))
        code = CLI_EXIT_UNSUPPORTED;
out:
    clconv_bench_report_free(&r);
    cli_devices_close(&devs);
    return code;
}
