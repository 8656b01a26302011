/* `clconv tune`: search the best verified configuration per device and
 * problem class within a time budget, and store it in the tuning cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "tune.h"

void cli_tune_usage(FILE *f)
{
    fputs(
        "usage: clconv tune [--device SEL] [--dims D [--size X[xY[xZ]]]\n"
        "                   [--mask W] | --suite quick|full] [--budget S]\n"
        "                   [--reps N] [--warmup N] [--seed S]\n"
        "                   [--json [FILE]] [--csv [FILE]] [--quiet]\n"
        "                   [--dtype u8|u16|i16|f16|f32] [--out-dtype same|f32]\n"
        "For each device and problem, try strategy x tile x coarsening x\n"
        "work-group shape (the default pick first), verify every candidate\n"
        "against the double-precision reference, time the verified ones,\n"
        "re-time the 3 best, and store the fastest per problem class (dims,\n"
        "the mask's width along each axis, element types, border mode,\n"
        "power-of-two size class) in the device's tuning cache under\n"
        "$XDG_CACHE_HOME/clconv/ (else ~/.cache/clconv/). `clconv run\n"
        "--strategy auto`, apply and the Python package then use it for\n"
        "problems of that class. Progress and time left on stderr.\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --dims D        one problem (default size and mask as clconv run)\n"
        "  --size, --mask  its extents and mask width (odd or even)\n"
        "  --suite NAME    quick or full: the bench suite (default quick)\n"
        "  --budget S      seconds for the whole command (default 300); split\n"
        "                  evenly over the device x problem pairs left, time\n"
        "                  one pair leaves unused goes to the next\n"
        "  --reps N        timed launches per candidate (default 5)\n"
        "  --warmup N      untimed launches first (default 1)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json [FILE]   the results as a JSON array: on stdout instead of the\n"
        "                  lines (no FILE, or -), or written to FILE atomically\n"
        "  --csv [FILE]    the results as CSV with a header, the same way\n"
        "  --quiet         no line per candidate on stderr\n"
        "  --mode M, --cval V, --origin O[,O..], --convolve, --mask WxH[xD],\n"
        "  --axes A[,B..]  the filter, as for clconv run (the mode and the\n"
        "                  mask's shape are part of the class; cval, origin\n"
        "                  and convolution are not)\n"
        CLI_DTYPE_HELP
        "Exit: 0 ok, 1 a candidate failed verification (never chosen),\n"
        "      2 usage error, 3 a candidate hit an OpenCL or build error, or\n"
        "      the tuning cache could not be written.\n",
        f);
}

/* One option of argv[*i]: 0 if it was tune's, -1 (error printed) else. */
static int parse_one(int argc, char **argv, int *i, tune_options *o,
                     const char **size)
{
    const char *v = NULL;
    long x;
    int r;
    /* the large suites compare methods (bench); tune tunes the direct
     * kernels' knobs */
    if ((r = cli_parse_suite(argc, argv, i, &o->suite))) {
        if (r > 0 && strcmp(o->suite, "quick") != 0 &&
            strcmp(o->suite, "full") != 0) {
            cli_error("tune: --suite %s is one of bench's; tune takes quick "
                      "or full",
                      o->suite);
            return -1;
        }
        return r < 0 ? -1 : 0;
    }
    if ((r = cli_parse_filter_option(argc, argv, i,
                                     CLI_FILTER_MASK_AXES | CLI_FILTER_DTYPE,
                                     &o->filter)) ||
        (r = cli_parse_problem_option(argc, argv, i, &o->dims, size,
                                      &o->mask)) ||
        (r = cli_parse_run_option(argc, argv, i, 1, &o->device, &o->reps,
                                  &o->warmup, &o->seed)) ||
        (r = cli_parse_output_option(argc, argv, i, 0, &o->out)))
        return r < 0 ? -1 : 0;
    if ((r = cli_opt_value(argc, argv, i, "--budget", &v))) {
        if (r < 0 || cli_parse_int("--budget", v, 0, 7 * 24 * 3600, &x))
            return -1;
        o->budget_s = (double)x;
        return 0;
    }
    if (cli_opt_set(argv, *i, "--quiet", &o->quiet))
        return 0;
    cli_unknown_option("tune", argv[*i]);
    return -1;
}

static int parse(int argc, char **argv, tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->budget_s = 300;
    o->reps = 5;
    o->warmup = 1;
    o->finalists = 3;
    if (cli_run_defaults(&o->device, &o->seed))
        return -1;
    const char *size = NULL;
    for (int i = 1; i < argc; ++i)
        if (parse_one(argc, argv, &i, o, &size))
            return -1;
    if (cli_outputs_check(&o->out))
        return -1;
    if (o->suite && o->dims) {
        cli_error("tune: --suite and --dims are exclusive");
        return -1;
    }
    if (!o->dims && (size || o->mask || o->filter.nmask_size ||
                     o->filter.norigin)) {
        cli_error("tune: --size, --mask and --origin need --dims");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    o->have_size = size != NULL;
    return 0;
}

/* The problems to tune (malloc'd) in *out, their count in *n: one with
 * --dims (`clconv run`'s default problem of the dims), else the suite's.
 * CLI_EXIT_OK, or the exit code with the error printed: a filter that
 * does not fit a problem (an origin, --axes, a mask's widths) is a usage
 * error, not "out of memory". */
static int problems_of(const tune_options *o, clconv_problem **out,
                       size_t *n)
{
    const clconv_bench_problem *bp = NULL;
    size_t nb = o->dims ? 1
                        : clconv_bench_suite(o->suite ? o->suite : "quick", &bp);
    clconv_problem *ps = calloc(nb ? nb : 1, sizeof *ps);
    *out = NULL;
    *n = 0;
    if (!ps) {
        cli_error("out of memory");
        return CLI_EXIT_UNSUPPORTED;
    }
    for (size_t k = 0; k < nb; ++k) {
        if (o->dims) {
            cli_default_problem(o->dims, &ps[k]);
            if (o->have_size)
                memcpy(ps[k].size, o->size, sizeof ps[k].size);
            if (o->mask)
                ps[k].mask_width = o->mask;
        } else {
            clconv_bench_shape(&bp[k], &ps[k]);
        }
        ps[k].tile = 1;
        if (cli_filter_apply(&o->filter, 0, &ps[k])) {
            free(ps);
            return CLI_EXIT_USAGE;
        }
    }
    *out = ps;
    *n = nb;
    return CLI_EXIT_OK;
}


/* Say what is wrong with each selected device's tuning cache (a file
 * that cannot be used is replaced, bad entries are dropped). */
static void load_tables(const cli_devices *devs, clconv_tune_table *tables)
{
    for (size_t d = 0; d < devs->n; ++d) {
        const clconv_device_info *dev = cli_device(devs, d);
        if (clconv_tune_load(dev, &tables[d]) != CLCONV_OK)
            cli_error("ignoring the tuning cache of %s: %s (it will be "
                      "rewritten)",
                      dev->name, clconv_last_error());
        else if (tables[d].stale)
            cli_error("%zu tuned entries of %s were dropped: their kernel "
                      "sources changed since",
                      tables[d].stale, dev->name);
        if (tables[d].invalid)
            cli_error("skipped %zu tuned entries of %s the planner refuses "
                      "(first: %s)",
                      tables[d].invalid, dev->name, tables[d].invalid_reason);
        /* From here on the table holds what this process tunes: saving
         * merges it into the file as other processes left it. */
        clconv_tune_table_free(&tables[d]);
    }
}

/* Store row r's best in the device's table and save it at once (an
 * interrupted tune keeps what it found). 0, or -1 (error printed). */
static int save_best(const tune_row *r, clconv_tune_table *table, int quiet)
{
    clconv_tuning e = {0};
    clconv_tune_class(&r->p, &e);
    e.strategy = r->out.best.strategy;
    e.tile = r->out.best.tile;
    e.coarsen = r->out.best.coarsen;
    e.group_y = r->out.best.group_y;
    e.ms = r->out.best_ms;
    memcpy(e.size, r->p.size, sizeof e.size);
    char path[4200] = "";
    if (clconv_kernel_hash(e.strategy, e.dims, &e.kernel_hash) != CLCONV_OK ||
        clconv_tune_put(table, &e) != CLCONV_OK ||
        clconv_tune_save(r->dev, table) != CLCONV_OK ||
        clconv_tune_path(r->dev, path, sizeof path) != CLCONV_OK) {
        cli_error("cannot save the tuning of %s: %s", r->dev->name,
                  clconv_last_error());
        return -1;
    }
    if (!quiet)
        fprintf(stderr, "clconv: saved to %s\n", path);
    return 0;
}

/* The state of a whole tune: what each pair needs and what it adds. */
typedef struct tune_run {
    const tune_options *o;
    const cli_devices *devs;
    clconv_tune_table *tables;
    tune_row *rows;
    size_t nrows, nproblems;
    double t0;
    int failed, errors;
} tune_run;

/* Tune problem k (of data) on device d within its share of the budget
 * left; the row is appended. CLCONV_OK, or the error (printed). */
static clconv_status tune_pair(tune_run *t, const clconv_problem *p, size_t k,
                               size_t d, const clconv_dataset *data)
{
    const clconv_device_info *dev = cli_device(t->devs, d);
    double left = t->o->budget_s - (clconv_now_s() - t->t0);
    size_t pairs_left = (t->nproblems - k) * t->devs->n - d;
    progress_ctx ctx = {dev, p, t->o, left, 0, 0};
    clconv_tune_options topt = {left > 0 ? left / (double)pairs_left : 0.0,
                                t->o->warmup, t->o->reps, t->o->finalists,
                                tune_progress, &ctx};
    tune_row *r = &t->rows[t->nrows++];
    r->dev = dev;
    r->p = *p;
    clconv_tune_candidate first;
    if (clconv_tune_candidates(dev, &r->p, &first, 1))
        r->def = first;
    clconv_status st =
        clconv_tune_problem(t->devs->sessions[d], data, &topt, &r->out);
    if (st != CLCONV_OK) {
        cli_error("tune: %s", clconv_last_error());
        return st;
    }
    t->failed |= ctx.failed;
    t->errors |= ctx.errors;
    if (r->out.found && save_best(r, &t->tables[d], t->o->quiet))
        t->errors = 1;
    return CLCONV_OK;
}

/* Every problem on every device: CLI_EXIT_OK, or the exit code to stop
 * with (error printed). */
static int tune_all(tune_run *t, const clconv_problem *problems)
{
    for (size_t k = 0; k < t->nproblems; ++k) {
        clconv_dataset *data = NULL;
        clconv_status st = clconv_dataset_create(&problems[k], t->o->seed,
                                                 &data);
        if (st != CLCONV_OK)
            cli_error("%s", clconv_last_error());
        for (size_t d = 0; st == CLCONV_OK && d < t->devs->n; ++d)
            st = tune_pair(t, &problems[k], k, d, data);
        clconv_dataset_destroy(data);
        if (st != CLCONV_OK)
            return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

int cli_tune_main(int argc, char **argv)
{
    tune_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    if (cli_outputs_writable(&o.out) != CLI_EXIT_OK)
        return CLI_EXIT_UNSUPPORTED;
    size_t np = 0;
    clconv_problem *problems = NULL;
    int code = problems_of(&o, &problems, &np);
    if (code != CLI_EXIT_OK)
        return code;
    tune_run t = {&o, NULL, NULL, NULL, 0, np, clconv_now_s(), 0, 0};
    cli_devices devs;
    code = cli_validate_problems("tune", problems, np)
                   ? CLI_EXIT_USAGE
                   : cli_devices_open(&devs, o.device, 1);
    if (code != CLI_EXIT_OK) {
        free(problems);
        return code;
    }
    t.devs = &devs;
    t.tables = calloc(devs.n + 1, sizeof *t.tables);
    t.rows = calloc(np * devs.n + 1, sizeof *t.rows);
    if (!t.tables || !t.rows) {
        cli_error("out of memory");
        code = CLI_EXIT_UNSUPPORTED;
        goto out;
    }
    load_tables(&devs, t.tables);
    fprintf(stderr, "clconv: seed %llu (repeat with --seed %llu), budget "
                    "%.0f s\n",
            (unsigned long long)o.seed, (unsigned long long)o.seed,
            o.budget_s);
    code = tune_all(&t, problems);
    if (code != CLI_EXIT_OK)
        goto out;
    if (tune_print_rows(t.rows, t.nrows, &o.out))
        t.errors = 1;
    code = t.failed ? CLI_EXIT_VERIFY : t.errors ? CLI_EXIT_UNSUPPORTED : code;
out:
    for (size_t d = 0; t.tables && d < devs.n; ++d)
        clconv_tune_table_free(&t.tables[d]);
    free(t.rows);
    free(t.tables);
    free(problems);
    cli_devices_close(&devs);
    return code;
}
