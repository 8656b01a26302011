/* `clconv run`: verify and time variants on devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --strategy auto: chosen per device by cli_auto_config(). */
enum { RUN_AUTO = CLI_STRATEGY_AUTO };

typedef struct run_options {
    int dims;          /* 0: the default problem set */
    size_t size[3];
    int have_size;
    int mask;          /* 0: the default of the dims */
    /* Lists (cross-product): tiles, and the coarse variant's knobs; an
     * empty list means the defaults. */
    int tile[8], ntile;
    int coarsen[8], ncoarsen;
    int group_y[8], ngroup_y;
    int mask_mode[3], nmask_mode;
    int strategy;      /* -1: all, RUN_AUTO: auto */
    const char *device;
    int reps, warmup;
    uint64_t seed;
    int json, table;
} run_options;

typedef struct run_row {
    const clconv_device_info *dev;
    clconv_problem p;
    clconv_result res;
} run_row;

/* The default problem of each dims: sizes that run in about a second on a
 * 2-core CPU and fit every variant on common devices. */
static const struct {
    int dims;
    size_t size[3];
    int mask, tile;
} defaults[3] = {
    {1, {1u << 20, 1, 1}, 9, 256},
    {2, {1024, 1024, 1}, 5, 16},
    {3, {128, 128, 128}, 3, 8},
};

static void usage(FILE *f)
{
    fputs(
        "usage: clconv run [--dims D --size X[xY[xZ]] --mask W --tile T]\n"
        "                  [--strategy S|all] [--coarsen C] [--group-y G]\n"
        "                  [--mask-mode M] [--device SEL] [--reps N]\n"
        "                  [--warmup N] [--seed S] [--json | --table]\n"
        "Build each variant from its .cl at run time, run it once on random\n"
        "data in [-1, 1] (seed printed), verify every element against the\n"
        "double-precision reference, then time --reps launches (median).\n"
        "Without --dims, runs the default 1D, 2D and 3D problems as a\n"
        "side-by-side table.\n"
        "  --dims D        1, 2 or 3\n"
        "  --size X[xY[xZ]] extents (one extent: a square/cube)\n"
        "  --mask W        odd mask width (default 9, 5, 3 for 1D, 2D, 3D)\n"
        "  --tile T        TILE_WIDTH (default: each strategy's own)\n"
        "  --strategy S    naive, output_tile, input_tile, cached_halo, coarse,\n"
        "                  vector or all (default); auto: the device's tuning from\n"
        "                  clconv tune, else the default heuristic\n"
        "  --device SEL    P:D, cpu, gpu, all or a name substring; comma list\n"
        "                  (default $CLCONV_DEVICE, else all)\n"
        "  --coarsen C     coarse: outputs per work-item (default 4-8, 8-16,\n"
        "                  8-16 for 1D, 2D, 3D); vector: float16 blocks\n"
        "                  (1D), rows (2D) or planes (3D) per work-item\n"
        "  --group-y G     coarse: work-group y extent in 2D/3D (default 4)\n"
        "  --mask-mode M   argument, baked or auto (default: baked for coarse\n"
        "                  and vector, argument for the others)\n"
        "  --reps N        timed launches after warm-up (default 10; 0: verify only)\n"
        "  --warmup N      untimed launches first (default 2)\n"
        "  --seed S        random seed (default $CLCONV_SEED, else the clock)\n"
        "  --json          print a JSON array instead of lines\n"
        "  --table         print a side-by-side table (devices as columns)\n"
        "Exit: 0 all verified, 1 a verification failed, 2 usage error,\n"
        "      3 unsupported on a device or OpenCL error.\n",
        f);
}

/* "a,b,c": up to 8 integers in [min, max]. */
static int parse_list(const char *flag, const char *v, long min, long max,
                      int *out, int *n)
{
    char buf[128];
    *n = 0;
    if (strlen(v) >= sizeof buf) {
        cli_error("%s: list too long", flag);
        return -1;
    }
    strcpy(buf, v);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        long x;
        if (*n == 8) {
            cli_error("%s: at most 8 values", flag);
            return -1;
        }
        if (cli_parse_int(flag, tok, min, max, &x))
            return -1;
        out[(*n)++] = (int)x;
    }
    if (*n == 0) {
        cli_error("%s: empty list", flag);
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, run_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->reps = 10;
    o->warmup = 2;
    o->seed = cli_default_seed();
    o->device = getenv("CLCONV_DEVICE");
    const char *size = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        int r;
        if ((r = cli_parse_problem_option(argc, argv, &i, &o->dims,
                                              &size, &o->mask))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--tile", &v))) {
            if (r < 0 || parse_list("--tile", v, 1, 65536, o->tile, &o->ntile))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--coarsen", &v))) {
            if (r < 0 ||
                parse_list("--coarsen", v, 1, 64, o->coarsen, &o->ncoarsen))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--group-y", &v))) {
            if (r < 0 ||
                parse_list("--group-y", v, 1, 1024, o->group_y, &o->ngroup_y))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--mask-mode", &v))) {
            if (r < 0 || cli_parse_mask_modes(v, o->mask_mode, &o->nmask_mode))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--strategy", &v))) {
            if (r < 0 || cli_parse_strategy(v, 1, &o->strategy))
                return -1;
        } else if ((r = cli_parse_run_option(argc, argv, &i, 0, &o->device,
                                             &o->reps, &o->warmup,
                                             &o->seed))) {
            if (r < 0)
                return -1;
        } else if (cli_opt_flag(argv, i, "--json")) {
            o->json = 1;
        } else if (cli_opt_flag(argv, i, "--table")) {
            o->table = 1;
        } else {
            cli_error("run: unknown option '%s' (see clconv run --help)",
                      argv[i]);
            return -1;
        }
    }
    if (o->json && o->table) {
        cli_error("run: --json and --table are exclusive");
        return -1;
    }
    if (o->strategy == RUN_AUTO && (o->ntile || o->ncoarsen || o->ngroup_y)) {
        cli_error("run: --strategy auto chooses --tile, --coarsen and "
                  "--group-y itself");
        return -1;
    }
    if (!o->dims && (size || o->mask || o->ntile)) {
        cli_error("run: --size, --mask and --tile need --dims");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    o->have_size = size != NULL;
    if (!o->dims)
        o->table = !o->json;
    return 0;
}

/* The problems to run, each with strategy naive (set per run later). */
static int problems_of(const run_options *o, clconv_problem *ps)
{
    int n = 0;
    for (int k = 0; k < 3; ++k) {
        if (o->dims && defaults[k].dims != o->dims)
            continue;
        clconv_problem *p = &ps[n++];
        memset(p, 0, sizeof *p);
        p->dims = defaults[k].dims;
        memcpy(p->size, o->have_size ? o->size : defaults[k].size,
               sizeof p->size);
        p->mask_width = o->mask ? o->mask : defaults[k].mask;
        p->tile = defaults[k].tile;
        p->strategy = CLCONV_NAIVE;
    }
    return n;
}

/* Append a zeroed row, growing the array; NULL when out of memory. */
static run_row *push_row(run_row **rows, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        run_row *grown = realloc(*rows, c * sizeof *grown);
        if (!grown)
            return NULL;
        *rows = grown;
        *cap = c;
    }
    run_row *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    return r;
}

static double gbs_of(const run_row *r)
{
    if (r->res.status != CLCONV_OK || !r->res.verdict.ok ||
        r->res.timing.reps == 0 || r->res.timing.median_ms <= 0)
        return 0.0;
    double bytes = 2.0 * (double)clconv_problem_elements(&r->p) * sizeof(float);
    return bytes / (r->res.timing.median_ms * 1e-3) / 1e9;
}

static const char *status_word(const run_row *r)
{
    if (r->res.status == CLCONV_EUNSUPPORTED)
        return "unsupported";
    if (r->res.status != CLCONV_OK)
        return "error";
    return r->res.verdict.ok ? "ok" : "FAIL";
}

static void print_line(const run_row *r)
{
    char size[64];
    cli_format_size(r->p.size, r->p.dims, size, sizeof size);
    printf("%u:%u %-28.28s %-12s %dD %-14s W=%-3d T=%-4d ",
           r->dev->platform_index, r->dev->device_index, r->dev->name,
           clconv_strategy_name(r->p.strategy), r->p.dims, size,
           r->p.mask_width, r->p.tile);
    const int knobs = clconv_strategy_knobs(r->p.strategy, r->p.dims);
    if (knobs & CLCONV_KNOB_GROUP_Y)
        printf("C=%-2d G=%-2d ", r->p.coarsen, r->p.group_y);
    else if (knobs & CLCONV_KNOB_COARSEN)
        printf("C=%-2d      ", r->p.coarsen);
    printf("%-5s ", r->p.mask_mode == CLCONV_MASK_BAKED ? "baked" : "arg");
    const clconv_verdict *v = &r->res.verdict;
    if (r->res.status == CLCONV_EUNSUPPORTED) {
        printf("unsupported: %s\n", r->res.reason);
    } else if (r->res.status != CLCONV_OK) {
        printf("error: %s\n", r->res.reason);
    } else if (!v->ok) {
        printf("FAIL max_err %.3g, worst at index %zu: got %.9g expected "
               "%.9g (%zu elements out of bound)\n",
               v->max_err, v->worst_index, v->worst_got, v->worst_expected,
               v->failures);
    } else if (r->res.timing.reps) {
        printf("ok   max_err %.2e %9.4f ms %8.2f GB/s\n", v->max_err,
               r->res.timing.median_ms, gbs_of(r));
    } else {
        printf("ok   max_err %.2e (not timed)\n", v->max_err);
    }
    fflush(stdout);
}

static void print_json(const run_row *rows, size_t n)
{
    printf("[\n");
    for (size_t i = 0; i < n; ++i) {
        const run_row *r = &rows[i];
        char size[64], dev[300];
        cli_format_size(r->p.size, r->p.dims, size, sizeof size);
        snprintf(dev, sizeof dev, "%u:%u %s", r->dev->platform_index,
                 r->dev->device_index, r->dev->name);
        printf("  {\"device\": ");
        cli_json_string(stdout, dev);
        printf(", \"strategy\": \"%s\", \"dims\": %d, \"size\": \"%s\", "
               "\"mask\": %d, \"tile\": %d, \"status\": \"%s\"",
               clconv_strategy_name(r->p.strategy), r->p.dims, size,
               r->p.mask_width, r->p.tile, status_word(r));
        printf(", \"mask_mode\": \"%s\"", clconv_mask_mode_name(r->p.mask_mode));
        const int knobs = clconv_strategy_knobs(r->p.strategy, r->p.dims);
        if (knobs & CLCONV_KNOB_COARSEN)
            printf(", \"coarsen\": %d", r->p.coarsen);
        if (knobs & CLCONV_KNOB_GROUP_Y)
            printf(", \"group_y\": %d", r->p.group_y);
        int ran = r->res.status == CLCONV_OK;
        int timed = ran && r->res.verdict.ok && r->res.timing.reps;
        if (ran && r->res.verdict.max_err < 1e300)
            printf(", \"max_err\": %.6g", r->res.verdict.max_err);
        else
            printf(", \"max_err\": null");
        if (timed)
            printf(", \"ms\": %.6f, \"gbs\": %.3f", r->res.timing.median_ms,
                   gbs_of(r));
        else
            printf(", \"ms\": null, \"gbs\": null");
        if (r->res.status != CLCONV_OK) {
            printf(", \"reason\": ");
            cli_json_string(stdout, r->res.reason);
        }
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    printf("]\n");
}

/* Side by side: one block per problem, one row per strategy, one column
 * per device; reasons for unsupported/errors as numbered notes. */
static void print_table(const run_row *rows, size_t n, const size_t *sel,
                        size_t nsel, const clconv_device_list *list)
{
    int note = 0;
    char notes[4096] = "";
    for (size_t i = 0; i < n;) {
        const clconv_problem *p = &rows[i].p;
        char size[64];
        cli_format_size(p->size, p->dims, size, sizeof size);
        printf("\n%dD %s, mask %d (variant/tile: median ms, GB/s)\n", p->dims,
               size, p->mask_width);
        printf("%-16s", "variant/tile");
        for (size_t d = 0; d < nsel; ++d) {
            char head[40];
            const clconv_device_info *dev = &list->devices[sel[d]];
            snprintf(head, sizeof head, "%u:%u %.26s", dev->platform_index,
                     dev->device_index, dev->name);
            printf(" | %-26.26s", head);
        }
        printf("\n");
        size_t j = i;
        while (j < n && memcmp(&rows[j].p.size, &p->size, sizeof p->size) == 0 &&
               rows[j].p.dims == p->dims && rows[j].p.mask_width == p->mask_width)
            ++j;
        for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
            int any = 0;
            for (size_t k = i; k < j; ++k)
                any |= (int)rows[k].p.strategy == s;
            if (!any)
                continue;
            int tile = 0;
            for (size_t k = i; k < j && !tile; ++k)
                if ((int)rows[k].p.strategy == s)
                    tile = rows[k].p.tile;
            char label[32];
            snprintf(label, sizeof label, "%s/%d",
                     clconv_strategy_name((clconv_strategy)s), tile);
            printf("%-16s", label);
            for (size_t d = 0; d < nsel; ++d) {
                const run_row *r = NULL;
                for (size_t k = i; k < j; ++k)
                    if ((int)rows[k].p.strategy == s &&
                        rows[k].dev == &list->devices[sel[d]])
                        r = &rows[k];
                char cell[64];
                if (!r) {
                    snprintf(cell, sizeof cell, "-");
                } else if (r->res.status == CLCONV_OK && r->res.verdict.ok) {
                    if (r->res.timing.reps)
                        snprintf(cell, sizeof cell, "ok %9.3f ms %7.1f GB/s",
                                 r->res.timing.median_ms, gbs_of(r));
                    else
                        snprintf(cell, sizeof cell, "ok (not timed)");
                } else {
                    ++note;
                    snprintf(cell, sizeof cell, "%s [%d]", status_word(r), note);
                    size_t used = strlen(notes);
                    snprintf(notes + used, sizeof notes - used,
                             "[%d] %s %dD %s: %s\n", note,
                             clconv_strategy_name(r->p.strategy), r->p.dims,
                             r->dev->name,
                             r->res.status == CLCONV_OK ? "verification failed"
                                                        : r->res.reason);
                }
                printf(" | %-26s", cell);
            }
            printf("\n");
        }
        i = j;
    }
    if (*notes)
        printf("\n%s", notes);
}

/* Refuse, before allocating the host dataset, a problem whose buffer no
 * selected device can allocate (the plan would refuse it on each). */
static int fits_some_device(const clconv_problem *p,
                            const clconv_device_list *list, const size_t *sel,
                            size_t nsel)
{
    const uint64_t bytes = (uint64_t)clconv_problem_elements(p) * sizeof(float);
    uint64_t most = 0;
    for (size_t d = 0; d < nsel; ++d) {
        const uint64_t a = list->devices[sel[d]].max_alloc_bytes;
        if (bytes <= a)
            return 1;
        most = a > most ? a : most;
    }
    cli_error("run: a buffer of %llu bytes exceeds the maximum allocation of "
              "every selected device (largest: %llu bytes)",
              (unsigned long long)bytes, (unsigned long long)most);
    return 0;
}

/* The rows one strategy gets on one problem: the cross product of the
 * --tile, --coarsen, --group-y (each where the strategy reads it) and
 * --mask-mode lists. */
static int variant_count(const run_options *o, int s, int dims)
{
    const int knobs = clconv_strategy_knobs((clconv_strategy)s, dims);
    const int coarsen = knobs & CLCONV_KNOB_COARSEN;
    const int group_y = knobs & CLCONV_KNOB_GROUP_Y;
    if (o->strategy == RUN_AUTO)
        return o->nmask_mode ? o->nmask_mode : 1;
    return (o->ntile ? o->ntile : 1) *
           (coarsen && o->ncoarsen ? o->ncoarsen : 1) *
           (group_y && o->ngroup_y ? o->ngroup_y : 1) *
           (o->nmask_mode ? o->nmask_mode : 1);
}

/* Row vi of variant_count(o, s): the problem with its knobs set (0 for
 * the defaults). */
static void variant_of(const run_options *o, const clconv_problem *base, int s,
                       int vi, clconv_problem *p)
{
    const int knobs = clconv_strategy_knobs((clconv_strategy)s, base->dims);
    *p = *base;
    p->strategy = (clconv_strategy)s;
    if (o->nmask_mode) {
        p->mask_mode = (clconv_mask_mode)o->mask_mode[vi % o->nmask_mode];
        vi /= o->nmask_mode;
    }
    if ((knobs & CLCONV_KNOB_GROUP_Y) && o->ngroup_y) {
        p->group_y = o->group_y[vi % o->ngroup_y];
        vi /= o->ngroup_y;
    }
    if ((knobs & CLCONV_KNOB_COARSEN) && o->ncoarsen) {
        p->coarsen = o->coarsen[vi % o->ncoarsen];
        vi /= o->ncoarsen;
    }
    p->tile = o->ntile ? o->tile[vi % o->ntile]
                       : clconv_default_tile(p->strategy, p->dims,
                                             p->mask_width);
}

/* Verify and time one row; its exit code (0 ok, 1 wrong, 3 unsupported or
 * an OpenCL error). */
static int run_row_once(clconv_session *s, const clconv_dataset *data,
                        const run_options *o, run_row *r)
{
    clconv_run_verified(s, &r->p, data, o->warmup, o->reps, &r->res);
    /* The row keeps one line; the build log (file, options, compiler
     * output) goes to stderr. */
    if (r->res.status == CLCONV_EBUILD)
        fprintf(stderr, "clconv: %s\n", clconv_last_error());
    if (!o->json && !o->table)
        print_line(r);
    return r->res.status != CLCONV_OK ? cli_exit_code(r->res.status)
           : r->res.verdict.ok        ? CLI_EXIT_OK
                                      : CLI_EXIT_VERIFY;
}

int cli_run_main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    run_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    clconv_problem problems[3];
    int np = problems_of(&o, problems);
    for (int k = 0; k < np; ++k)
        if (clconv_problem_validate(&problems[k]) != CLCONV_OK) {
            cli_error("run: %s", clconv_last_error());
            return CLI_EXIT_USAGE;
        }

    /* No kernel sources: one line, before any device work. */
    const char *kernel_dir = NULL;
    clconv_status st = clconv_kernel_dir(&kernel_dir);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }

    clconv_device_list list;
    st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    int code = CLI_EXIT_OK;
    size_t *sel = calloc(list.count, sizeof *sel);
    clconv_session **sessions = calloc(list.count, sizeof *sessions);
    run_row *rows = NULL;
    size_t nsel = 0, nrows = 0, cap = 0;
    if (!sel || !sessions) {
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
        st = clconv_session_create(&list.devices[sel[d]], &sessions[d]);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", list.devices[sel[d]].name, clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
    }
    fprintf(stderr, "clconv: seed %llu (repeat with --seed %llu)\n",
            (unsigned long long)o.seed, (unsigned long long)o.seed);

    for (int k = 0; k < np; ++k) {
        clconv_dataset *data = NULL;
        if (!fits_some_device(&problems[k], &list, sel, nsel)) {
            code = CLI_EXIT_UNSUPPORTED;
            goto out;
        }
        st = clconv_dataset_create(&problems[k], o.seed, &data);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            code = cli_exit_code(st);
            goto out;
        }
        for (size_t d = 0; d < nsel; ++d) {
            clconv_problem autop = problems[k];
            if (o.strategy == RUN_AUTO &&
                cli_auto_config(&list.devices[sel[d]], &autop, o.json)) {
                clconv_dataset_destroy(data);
                code = CLI_EXIT_USAGE;
                goto out;
            }
            for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
                if (o.strategy >= 0 && s != o.strategy)
                    continue;
                if (o.strategy == RUN_AUTO && s != (int)autop.strategy)
                    continue;
                const int nv = variant_count(&o, s, problems[k].dims);
                for (int vi = 0; vi < nv; ++vi) {
                    run_row *r = push_row(&rows, &nrows, &cap);
                    if (!r) {
                        cli_error("out of memory");
                        code = CLI_EXIT_UNSUPPORTED;
                        clconv_dataset_destroy(data);
                        goto out;
                    }
                    r->dev = &list.devices[sel[d]];
                    if (o.strategy == RUN_AUTO) {
                        r->p = autop;
                        if (o.nmask_mode)
                            r->p.mask_mode =
                                (clconv_mask_mode)o.mask_mode[vi % o.nmask_mode];
                    } else {
                        variant_of(&o, &problems[k], s, vi, &r->p);
                    }
                    clconv_problem_apply_defaults(r->dev, &r->p);
                    int c = run_row_once(sessions[d], data, &o, r);
                    /* A wrong result outranks an unsupported one. */
                    if (c == CLI_EXIT_VERIFY || (c && code == CLI_EXIT_OK))
                        code = c;
                }
            }
        }
        clconv_dataset_destroy(data);
    }
    if (o.json)
        print_json(rows, nrows);
    else if (o.table)
        print_table(rows, nrows, sel, nsel, &list);
out:
    for (size_t d = 0; sessions && d < nsel; ++d)
        clconv_session_destroy(sessions[d]);
    free(rows);
    free(sessions);
    free(sel);
    clconv_devices_free(&list);
    return code;
}
