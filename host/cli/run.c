/* `clconv run`: verify and time variants on devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

void cli_run_usage(FILE *f)
{
    fprintf(f,
        "usage: clconv run [--dims D --size X[xY[xZ]] --mask W|WxH[xD]]\n"
        "                  [--tile T[,T..]] [--axes A[,B..]] [--batch N]\n"
        "                  [--mode M[,M..]] [--cval V] [--origin O[,O..]]\n"
        "                  [--convolve]\n"
        "                  [--strategy S|all|auto] [--coarsen C[,C..]]\n"
        "                  [--group-y G[,G..]] [--mask-mode M[,M..]]\n"
        "                  [--device SEL] [--reps N]\n"
        "                  [--warmup N] [--seed S] [--json [F]] [--csv [F]]\n"
        "                  [--table] [--split] [--method M]\n"
        "                  [--dtype u8|u16|i16|f16|f32] [--out-dtype same|f32]\n"
        "Build each variant from its .cl at run time, run it once on random\n"
        "data in [-1, 1] (seed printed), verify every element against the\n"
        "double-precision reference, then time --reps launches (median).\n"
        "Without --dims, runs the default 1D, 2D and 3D problems as a\n"
        "side-by-side table.\n"
        "  --dims D        1, 2 or 3\n"
        "  --size X[xY[xZ]] extents (one extent: a square/cube)\n"
        "  --mask W        mask width, odd or even (default 9, 5, 3 for 1D, 2D,\n"
        "                  3D); WxH[xD]: one width per axis, x first\n"
        "  --mode M        border mode: constant (default), nearest, reflect,\n"
        "                  mirror, wrap (scipy.ndimage's, grid-* too); a comma\n"
        "                  list runs each mode on the same problem\n"
        "  --cval V        the constant mode's value outside (default 0)\n"
        "  --origin O      SciPy's origin, one value or one per axis, x first\n"
        "  --convolve      convolution (the mask flipped) instead of correlation\n"
        CLI_DTYPE_HELP
        "  --axes A[,B..]  the axes the mask spans (x first; others 1 wide)\n"
        "  --batch N       N problems of --size (1D or 2D) in one launch\n"
        "  --tile T        TILE_WIDTH (default: each strategy's own); a comma\n"
        "                  list, as --coarsen, --group-y and --mask-mode,\n"
        "                  runs each value (rows of every combination)\n"
        "  --strategy S    %s\n"
        "                  or all (default); auto: the device's tuning from\n"
        "                  clconv tune, else the default heuristic\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --coarsen C     coarse: outputs per work-item (default 4-16, 8-16,\n"
        "                  8-32 for 1D, 2D, 3D); vector: float16 blocks\n"
        "                  (1D), rows (2D) or planes (3D) per work-item\n"
        "  --group-y G     coarse: work-group y extent in 2D/3D (default 4)\n"
        "  --mask-mode M   argument, baked or auto (default: baked for coarse\n"
        "                  and vector on GPUs, argument otherwise)\n"
        CLI_METHOD_HELP
        "                  (default direct: a row per strategy; otherwise one\n"
        "                  row per device; separable makes the random mask an\n"
        "                  outer product of random 1D masks)\n",
        cli_strategy_list(0));
    fputs(
        "  --reps N        timed launches after warm-up (default 10; 0: verify only)\n"
        "  --warmup N      untimed launches first (default 2)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json [FILE]   every row as a JSON array: on stdout instead of the\n"
        "                  lines (no FILE, or -), or written to FILE atomically\n"
        "  --csv [FILE]    every row as CSV with a header, the same way\n"
        "  --table         print a side-by-side table (devices as columns)\n"
        "  --split         one problem shared by all selected devices (slabs of\n"
        "                  rows weighted by each device's measured speed, each\n"
        "                  device's default variant or --strategy); timed as\n"
        "                  whole host-to-host calls. Without it, every device\n"
        "                  runs the whole problem, side by side. A problem\n"
        "                  beyond a device's largest allocation is streamed\n"
        "                  through it in slabs (rows say how many)\n"
        "Exit: 0 all verified, 1 a verification failed, 2 usage error,\n"
        "      3 unsupported on a device or OpenCL error.\n",
        f);
}

/* A knob's list, in the range the variant table gives it. */
static int parse_knob_list(const char *flag, int knob, const char *v,
                           int *out, int *n)
{
    int min, max;
    clconv_knob_bounds(knob, &min, &max);
    return cli_parse_int_list(flag, v, min, max, out, 8, n);
}

/* One option of argv[*i]: 0 if it was run's, -1 (error printed) else. */
static int parse_one(int argc, char **argv, int *i, run_options *o,
                     const char **size)
{
    const char *v = NULL;
    int r;
    if ((r = cli_parse_filter_option(argc, argv, i,
                                     CLI_FILTER_MASK_AXES |
                                         CLI_FILTER_MODE_LIST |
                                         CLI_FILTER_BATCH | CLI_FILTER_DTYPE,
                                     &o->filter)) ||
        (r = cli_parse_problem_option(argc, argv, i, &o->dims, size,
                                      &o->mask)))
        return r < 0 ? -1 : 0;
    if ((r = cli_opt_value(argc, argv, i, "--tile", &v)))
        return r < 0 ? -1
                     : cli_parse_int_list("--tile", v, 1, 65536, o->tile, 8,
                                          &o->ntile);
    if ((r = cli_opt_value(argc, argv, i, "--coarsen", &v)))
        return r < 0 ? -1
                     : parse_knob_list("--coarsen", CLCONV_KNOB_COARSEN, v,
                                       o->coarsen, &o->ncoarsen);
    if ((r = cli_opt_value(argc, argv, i, "--group-y", &v)))
        return r < 0 ? -1
                     : parse_knob_list("--group-y", CLCONV_KNOB_GROUP_Y, v,
                                       o->group_y, &o->ngroup_y);
    if ((r = cli_opt_value(argc, argv, i, "--mask-mode", &v)))
        return r < 0 ? -1
                     : cli_parse_mask_modes(v, o->mask_mode, &o->nmask_mode);
    if ((r = cli_opt_value(argc, argv, i, "--method", &v)))
        return r < 0 ? -1 : cli_parse_method(v, &o->method);
    if ((r = cli_opt_value(argc, argv, i, "--strategy", &v)))
        return r < 0 ? -1 : cli_parse_strategy(v, CLI_TAKES_ALL | CLI_TAKES_AUTO,
                                                   &o->strategy);
    if ((r = cli_parse_run_option(argc, argv, i, 0, &o->device, &o->reps,
                                  &o->warmup, &o->seed)))
        return r < 0 ? -1 : 0;
    if ((r = cli_parse_output_option(argc, argv, i, 0, &o->out)))
        return r < 0 ? -1 : 0;
    if (cli_opt_set(argv, *i, "--table", &o->table) ||
        cli_opt_set(argv, *i, "--split", &o->split))
        return 0;
    cli_unknown_option("run", argv[*i]);
    return -1;
}

static int parse(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = CLI_STRATEGY_ALL;
    o->method = CLCONV_METHOD_DIRECT;
    o->reps = 10;
    o->warmup = 2;
    if (cli_run_defaults(&o->device, &o->seed))
        return -1;
    const char *size = NULL;
    for (int i = 1; i < argc; ++i)
        if (parse_one(argc, argv, &i, o, &size))
            return -1;
    if (cli_outputs_check(&o->out))
        return -1;
    if (o->table && !cli_outputs_text(&o->out)) {
        cli_error("run: --table and --json or --csv on stdout are exclusive");
        return -1;
    }
    if (o->strategy == CLI_STRATEGY_AUTO &&
        (o->ntile || o->ncoarsen || o->ngroup_y)) {
        cli_error("run: --strategy auto chooses --tile, --coarsen and "
                  "--group-y itself");
        return -1;
    }
    /* The FFT and the separable passes pick their own work-groups: a
     * knob list there printed identical rows labelled with knobs that
     * did nothing. */
    if ((o->method == CLCONV_METHOD_FFT ||
         o->method == CLCONV_METHOD_SEPARABLE) &&
        (o->ntile || o->ncoarsen || o->ngroup_y)) {
        cli_error("run: --tile, --coarsen and --group-y set the direct "
                  "kernel's knobs; --method %s runs none",
                  clconv_method_name(o->method));
        return -1;
    }
    if (o->split && (o->ntile || o->ncoarsen || o->ngroup_y ||
                     o->nmask_mode || o->table)) {
        cli_error("run: --split runs one problem on all selected devices "
                  "with each device's default variant (or --strategy S|auto); "
                  "--tile, --coarsen, --group-y, --mask-mode and --table are "
                  "for side-by-side runs");
        return -1;
    }
    if (!o->dims && (size || o->mask || o->ntile || o->filter.nmask_size ||
                     o->filter.norigin)) {
        cli_error("run: --size, --mask, --origin and --tile need --dims");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    o->have_size = size != NULL;
    if (!o->dims)
        o->table = cli_outputs_text(&o->out);
    o->lines = cli_outputs_text(&o->out) && !o->table;
    return 0;
}

/* At most one problem per dims and --mode. */
#define RUN_MAX_PROBLEMS (3 * CLCONV_BORDER_COUNT)

/* The problems to run (one per dims and --mode), each with strategy
 * naive (set per run later); -1 (error printed) on a bad filter. */
static int problems_of(const run_options *o, clconv_problem *ps)
{
    int n = 0;
    const int nmodes = o->filter.nmodes ? o->filter.nmodes : 1;
    for (int dims = 1; dims <= 3; ++dims) {
        if (o->dims && dims != o->dims)
            continue;
        for (int m = 0; m < nmodes; ++m) {
            clconv_problem *p = &ps[n++];
            cli_default_problem(dims, p);
            if (o->have_size)
                memcpy(p->size, o->size, sizeof p->size);
            if (o->mask)
                p->mask_width = o->mask;
            if (cli_filter_apply(&o->filter, 0, p))
                return -1;
            if (o->filter.nmodes)
                p->border = (clconv_border)o->filter.modes[m];
            p->method = o->method;
        }
    }
    return n;
}

/* Append a zeroed row, growing the array; NULL when out of memory. */
static run_row *push_row(run_rows *t)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 64;
        run_row *grown = realloc(t->rows, c * sizeof *grown);
        if (!grown)
            return NULL;
        t->rows = grown;
        t->cap = c;
    }
    run_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* The rows one strategy gets on one problem: the cross product of the
 * --tile, --coarsen, --group-y (each where the strategy reads it) and
 * --mask-mode lists. */
static int variant_count(const run_options *o, int s, int dims)
{
    const int knobs = clconv_strategy_knobs((clconv_strategy)s, dims);
    const int coarsen = knobs & CLCONV_KNOB_COARSEN;
    const int group_y = knobs & CLCONV_KNOB_GROUP_Y;
    if (o->strategy == CLI_STRATEGY_AUTO)
        return o->nmask_mode ? o->nmask_mode : 1;
    return (o->ntile ? o->ntile : 1) *
           (coarsen && o->ncoarsen ? o->ncoarsen : 1) *
           (group_y && o->ngroup_y ? o->ngroup_y : 1) *
           (o->nmask_mode ? o->nmask_mode : 1);
}

/* Row vi of variant_count(o, s): the problem with its knobs set (0 for
 * the defaults). With --strategy auto, base is the auto choice and only
 * the mask mode varies. */
static void variant_of(const run_options *o, const clconv_problem *base, int s,
                       int vi, clconv_problem *p)
{
    const int knobs = clconv_strategy_knobs((clconv_strategy)s, base->dims);
    *p = *base;
    if (o->nmask_mode) {
        p->mask_mode = (clconv_mask_mode)o->mask_mode[vi % o->nmask_mode];
        vi /= o->nmask_mode;
    }
    if (o->strategy == CLI_STRATEGY_AUTO)
        return;
    p->strategy = (clconv_strategy)s;
    if ((knobs & CLCONV_KNOB_GROUP_Y) && o->ngroup_y) {
        p->group_y = o->group_y[vi % o->ngroup_y];
        vi /= o->ngroup_y;
    }
    if ((knobs & CLCONV_KNOB_COARSEN) && o->ncoarsen) {
        p->coarsen = o->coarsen[vi % o->ncoarsen];
        vi /= o->ncoarsen;
    }
    /* No --tile: 0, the largest default tile that fits the row's device
     * (chosen by clconv_problem_apply_defaults). */
    p->tile = o->ntile ? o->tile[vi % o->ntile] : 0;
}

/* Every row of one problem on one device: the exit code so far, or minus
 * the exit code to stop with (error printed). */
static int run_on_device(const run_options *o, const clconv_problem *base,
                         const cli_devices *devs, size_t d,
                         const clconv_dataset *data, run_rows *rows, int code)
{
    const clconv_device_info *dev = cli_device(devs, d);
    clconv_problem autop = *base;
    /* A method other than direct: one row, the device's default variant
     * for the direct part of auto. */
    const int one = o->method != CLCONV_METHOD_DIRECT;
    if (one && o->strategy != CLI_STRATEGY_AUTO)
        clconv_pick_default(dev, &autop);
    if (one && o->strategy >= 0)
        autop.strategy = (clconv_strategy)o->strategy;
    if (o->strategy == CLI_STRATEGY_AUTO &&
        cli_auto_config(dev, &autop, !cli_outputs_text(&o->out)))
        return -CLI_EXIT_USAGE;
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        if (o->strategy >= 0 && s != o->strategy && !one)
            continue;
        if ((o->strategy == CLI_STRATEGY_AUTO || one) &&
            s != (int)autop.strategy)
            continue;
        const int nv = variant_count(o, s, base->dims);
        for (int vi = 0; vi < nv; ++vi) {
            run_row *r = push_row(rows);
            if (!r) {
                cli_error("out of memory");
                return -CLI_EXIT_UNSUPPORTED;
            }
            r->dev = dev;
            r->batch = o->filter.batch;
            variant_of(o, &autop, s, vi, &r->p);
            clconv_problem_apply_defaults(dev, &r->p);
            /* Beyond what the device allocates at once: streamed in slabs
             * through the host-to-host path. */
            if (clconv_session_needs_slabs(devs->sessions[d], &r->p)) {
                run_host_path(o, &devs->sessions[d], &dev, 1, &r->p, data, r);
                r->res.method = r->p.method; /* as asked: slabs resolve it */
            } else {
                clconv_run_verified(devs->sessions[d], &r->p, data, o->warmup,
                                    o->reps, &r->res);
            }
            /* The row keeps one line; the build log (file, options,
             * compiler output) goes to stderr. */
            if (r->res.status == CLCONV_EBUILD)
                fprintf(stderr, "clconv: %s\n", clconv_last_error());
            if (o->lines)
                run_print_line(r);
            code = cli_merge_code(code, cli_result_code(&r->res));
        }
    }
    return code;
}

/* --split: problem base shared by every selected device, each running its
 * default variant (or --strategy); one row. */
static int run_split(const run_options *o, const clconv_problem *base,
                     const cli_devices *devs, const clconv_dataset *data,
                     run_rows *rows, int code)
{
    clconv_problem ps[64];
    const clconv_device_info *infos[64];
    size_t n = devs->n < 64 ? devs->n : 64;
    for (size_t d = 0; d < n; ++d) {
        infos[d] = cli_device(devs, d);
        ps[d] = *base;
        if (o->strategy == CLI_STRATEGY_AUTO) {
            if (cli_auto_config(infos[d], &ps[d], !cli_outputs_text(&o->out)))
                return -CLI_EXIT_USAGE;
        } else {
            clconv_pick_default(infos[d], &ps[d]);
            if (o->strategy >= 0) {
                ps[d].strategy = (clconv_strategy)o->strategy;
                ps[d].tile = 0;
            }
        }
        clconv_problem_apply_defaults(infos[d], &ps[d]);
    }
    run_row *r = push_row(rows);
    if (!r) {
        cli_error("out of memory");
        return -CLI_EXIT_UNSUPPORTED;
    }
    r->dev = infos[0];
    r->batch = o->filter.batch;
    r->p = ps[0];
    int c = run_host_path(o, devs->sessions, infos, n, ps, data, r);
    /* The method asked for, as the slabs' rows say it (the row said the
     * strategy and "auto" for --method fft or separable). */
    r->res.method = r->p.method;
    if (o->lines)
        run_print_line(r);
    return cli_merge_code(code, c);
}

/* Every problem on every device: the exit code, or minus the exit code
 * to stop with (error printed, no output). */
static int run_all(const run_options *o, const cli_devices *devs,
                   run_rows *rows)
{
    clconv_problem problems[RUN_MAX_PROBLEMS];
    const int np = problems_of(o, problems);
    int code = CLI_EXIT_OK;
    for (int k = 0; k < np && code >= 0; ++k) {
        clconv_dataset *data = NULL;
        clconv_status st = cli_dataset_for(&problems[k], o->seed, &data);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return -cli_exit_code(st);
        }
        if (o->split)
            code = run_split(o, &problems[k], devs, data, rows, code);
        for (size_t d = 0; d < devs->n && code >= 0 && !o->split; ++d)
            code = run_on_device(o, &problems[k], devs, d, data, rows, code);
        clconv_dataset_destroy(data);
    }
    return code;
}

static int validate_problems(const run_options *o)
{
    clconv_problem problems[RUN_MAX_PROBLEMS];
    const int np = problems_of(o, problems);
    if (np < 0)
        return -1;
    return cli_validate_problems("run", problems, (size_t)np);
}

int cli_run_main(int argc, char **argv)
{
    run_options o;
    if (parse(argc, argv, &o) || validate_problems(&o))
        return CLI_EXIT_USAGE;
    if (cli_outputs_writable(&o.out) != CLI_EXIT_OK)
        return CLI_EXIT_UNSUPPORTED;
    cli_devices devs;
    int code = cli_devices_open(&devs, o.device, 1);
    if (code != CLI_EXIT_OK)
        return code;
    fprintf(stderr, "clconv: seed %llu (repeat with --seed %llu)\n",
            (unsigned long long)o.seed, (unsigned long long)o.seed);
    run_rows rows = {NULL, 0, 0};
    code = run_all(&o, &devs, &rows);
    if (code < 0) {
        code = -code;
    } else {
        if (o.table && run_print_table(&rows, &devs))
            code = CLI_EXIT_UNSUPPORTED;
        if (run_emit(&rows, &o.out))
            code = CLI_EXIT_UNSUPPORTED;
    }
    free(rows.rows);
    cli_devices_close(&devs);
    return code;
}
