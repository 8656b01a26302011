/* `clconv model`: the tiling analysis of the notes for any case. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "clconv_model.h"
#include "cli.h"
#include "../lib/internal.h" /* clc_plan_create, clc_plan_counters */

#define MODEL_MAX_LIST 16
#define MODEL_MAX_KINDS 1024

typedef struct model_options {
    int dims, mask, tile, warp;
    int strategy; /* -1: all */
    size_t size[3];
    int have_size;
    size_t block[3];
    int have_block;
    int json, table;
    double peak[MODEL_MAX_LIST], bw[MODEL_MAX_LIST];
    int npeak, nbw;
    const char *device;
    int masks[MODEL_MAX_LIST];
    int nmasks;
} model_options;

static void usage(FILE *f)
{
    fputs(
        "usage: clconv model --dims D --mask W [--tile T] [--strategy S|all]\n"
        "                    [--warp N] [--size X[xY[xZ]] [--block i[,j[,k]]]]\n"
        "                    [--json]\n"
        "       clconv model --table\n"
        "       clconv model --peak-gflops G[,G..] --bandwidth B[,B..]\n"
        "                    [--masks W,W..]\n"
        "       clconv model --device SEL [--masks W,W..]\n"
        "The tiling analysis of the reference notes, computed (no device is\n"
        "used except with --device). Counting: 'accesses' are the reads of N\n"
        "an untiled kernel issues for the tile's outputs (ghost cells are not\n"
        "read); 'global' the loads of N the strategy issues (input tile, or\n"
        "core + halo for cached_halo); reduction = accesses / global.\n"
        "  --dims D         1, 2 or 3\n"
        "  --mask W         odd mask width\n"
        "  --tile T         TILE_WIDTH (default: the strategy's default)\n"
        "  --strategy S     naive, output_tile, input_tile, cached_halo, all\n"
        "  --warp N         warp width for the warp counts (default 32)\n"
        "  --size X[xY[xZ]] the whole problem: every kind of tile of the grid\n"
        "                   (first, interior, last...) and the totals\n"
        "  --block i,j,k    one tile of the grid, e.g. a boundary tile\n"
        "  --device SEL     with --size (no --block): also run each strategy's\n"
        "                   instrumented kernel (-D CLCONV_COUNT_LOADS) on\n"
        "                   SEL and print its counted global loads and local\n"
        "                   reads under the model's totals (exit 1 if they\n"
        "                   differ)\n"
        "  --json           one JSON array, one object per strategy\n"
        "  --table          the notes' reduction tables (1D TILE 16..256,\n"
        "                   2D TILE 8..64, masks 5 and 9)\n"
        "  --peak-gflops G  peak FP32 GFLOP/s, one per column (comma list)\n"
        "  --bandwidth B    memory bandwidth GB/s, one per column\n"
        "  --device SEL     (without --dims) measure both ceilings on each\n"
        "                   selected device\n"
        "                   (as clconv bench does) and use them as columns\n"
        "  --masks W,W..    masks of the percent-of-peak tables (default:\n"
        "                   1D 5,9,15,55; 2D 3,5,7,9, as in the notes)\n"
        "Percent of peak: 4 B of N per access, 2 FLOP per access, so an\n"
        "untiled kernel needs 2 B/FLOP and tiling divides that by the\n"
        "interior reduction (1D TILE 1024, 2D 32x32 tiles).\n",
        f);
}

/* "a,b,c" of positive numbers. */
static int parse_list(const char *flag, const char *s, double *out, int *n)
{
    *n = 0;
    const char *p = s;
    for (;;) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno == ERANGE || !(v > 0.0)) {
            cli_error("%s: '%s' is not a comma list of positive numbers", flag,
                      s);
            return -1;
        }
        if (*n == MODEL_MAX_LIST) {
            cli_error("%s: at most %d values", flag, MODEL_MAX_LIST);
            return -1;
        }
        out[(*n)++] = v;
        if (*end == '\0')
            return 0;
        if (*end != ',') {
            cli_error("%s: '%s' is not a comma list of positive numbers", flag,
                      s);
            return -1;
        }
        p = end + 1;
    }
}

static int parse_block(const char *s, int dims, size_t block[3])
{
    int n = 0;
    const char *p = s;
    while (n < 3) {
        char *end = NULL;
        errno = 0;
        if (*p < '0' || *p > '9')
            break;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno == ERANGE)
            break;
        block[n++] = (size_t)x;
        p = end;
        if (*p == '\0') {
            if (n != dims) {
                cli_error("--block: '%s' has %d indices, --dims %d needs %d",
                          s, n, dims, dims);
                return -1;
            }
            for (int d = n; d < 3; ++d)
                block[d] = 0;
            return 0;
        }
        if (*p != ',')
            break;
        ++p;
    }
    cli_error("--block: '%s' is not i[,j[,k]] with non-negative integers", s);
    return -1;
}

static int parse(int argc, char **argv, model_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->warp = 32;
    const char *size = NULL, *block = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        if ((r = cli_parse_problem_option(argc, argv, &i, &o->dims,
                                              &size, &o->mask))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--masks", &v))) {
            double m[MODEL_MAX_LIST];
            if (r < 0 || parse_list("--masks", v, m, &o->nmasks))
                return -1;
            for (int k = 0; k < o->nmasks; ++k) {
                o->masks[k] = (int)m[k];
                if ((double)o->masks[k] != m[k] || o->masks[k] % 2 == 0) {
                    cli_error("--masks: widths must be odd integers ('%s')", v);
                    return -1;
                }
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--tile", &v))) {
            if (r < 0 || cli_parse_int("--tile", v, 1, 65536, &x))
                return -1;
            o->tile = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--warp", &v))) {
            if (r < 0 || cli_parse_int("--warp", v, 1, 1024, &x))
                return -1;
            o->warp = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--strategy", &v))) {
            if (r < 0 || cli_parse_strategy(v, 0, &o->strategy))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--block", &v))) {
            if (r < 0)
                return -1;
            block = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--peak-gflops", &v))) {
            if (r < 0 || parse_list("--peak-gflops", v, o->peak, &o->npeak))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--bandwidth", &v))) {
            if (r < 0 || parse_list("--bandwidth", v, o->bw, &o->nbw))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--device", &v))) {
            if (r < 0)
                return -1;
            o->device = v;
        } else if (cli_opt_flag(argv, i, "--json")) {
            o->json = 1;
        } else if (cli_opt_flag(argv, i, "--table")) {
            o->table = 1;
        } else {
            cli_error("model: unknown option '%s' (see clconv model --help)",
                      argv[i]);
            return -1;
        }
    }
    /* --device with --dims counts loads; without, it measures ceilings */
    const int peak_mode = o->npeak || o->nbw || (o->device && !o->dims);
    if (o->npeak != o->nbw) {
        cli_error("model: --peak-gflops has %d values, --bandwidth %d: give "
                  "one of each per column",
                  o->npeak, o->nbw);
        return -1;
    }
    if (o->device && o->npeak) {
        cli_error("model: --device measures the ceilings; it excludes "
                  "--peak-gflops and --bandwidth");
        return -1;
    }
    if ((o->table || peak_mode) && (o->dims || size || block || o->json)) {
        cli_error("model: --table and the percent-of-peak tables take no "
                  "--dims, --size, --block or --json");
        return -1;
    }
    if (!o->table && !peak_mode) {
        if (!o->dims || !o->mask) {
            cli_error("model: give --dims and --mask (or --table, or "
                      "--peak-gflops with --bandwidth; see --help)");
            return -1;
        }
        if (o->nmasks) {
            cli_error("model: --masks is for the percent-of-peak tables; use "
                      "--mask");
            return -1;
        }
    }
    if (o->device && o->dims && !size) {
        cli_error("model: --device with --dims needs --size (the problem "
                  "whose loads the kernels count)");
        return -1;
    }
    if (o->device && o->dims && (block || o->json)) {
        cli_error("model: counting on --device prints the whole problem's "
                  "totals: no --block or --json");
        return -1;
    }
    if (block && !size) {
        cli_error("model: --block needs --size (the grid it is a tile of)");
        return -1;
    }
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    if (block && parse_block(block, o->dims, o->block))
        return -1;
    o->have_size = size != NULL;
    o->have_block = block != NULL;
    return 0;
}

/* ---- --table ------------------------------------------------------------ */

static void print_reduction_tables(void)
{
    static const int tiles1[] = {16, 32, 64, 128, 256};
    static const int tiles2[] = {8, 16, 32, 64};
    static const int masks[] = {5, 9};
    printf("Bandwidth reduction for 1D: (TILE_WIDTH * MASK_WIDTH) / "
           "(TILE_WIDTH + MASK_WIDTH - 1)\n%-26s", "TILE_WIDTH");
    for (size_t t = 0; t < sizeof tiles1 / sizeof *tiles1; ++t)
        printf("%8d", tiles1[t]);
    for (size_t m = 0; m < 2; ++m) {
        printf("\nReduction MASK_WIDTH = %-3d", masks[m]);
        for (size_t t = 0; t < sizeof tiles1 / sizeof *tiles1; ++t)
            printf("%8.2f",
                   clconv_model_interior_reduction(1, tiles1[t], masks[m]));
    }
    printf("\n\nBandwidth reduction for 2D: (TILE_WIDTH * MASK_WIDTH)^2 / "
           "(TILE_WIDTH + MASK_WIDTH - 1)^2\n%-26s", "TILE_WIDTH");
    for (size_t t = 0; t < sizeof tiles2 / sizeof *tiles2; ++t)
        printf("%8d", tiles2[t]);
    for (size_t m = 0; m < 2; ++m) {
        printf("\nReduction MASK_WIDTH = %-3d", masks[m]);
        for (size_t t = 0; t < sizeof tiles2 / sizeof *tiles2; ++t)
            printf("%8.2f",
                   clconv_model_interior_reduction(2, tiles2[t], masks[m]));
    }
    printf("\n");
}

/* ---- percent of peak ------------------------------------------------------ */

typedef struct ceiling_column {
    char name[64];
    double peak, bw;
} ceiling_column;

static void print_peak_table(int dims, int tile, const int *masks, int nmasks,
                             const ceiling_column *cols, int ncols)
{
    char shape[32];
    if (dims == 1)
        snprintf(shape, sizeof shape, "TILE_WIDTH %d", tile);
    else
        snprintf(shape, sizeof shape, "%dx%d tiles", tile, tile);
    printf("\n%% of peak compute for %dD tiled convolution, %s\n"
           "(interior reduction R, bytes per FLOP 2 / R; capped at 100%%, "
           "'bw' is what\nthe bandwidth alone would allow)\n%-10s %8s",
           dims, shape, "MASK_WIDTH", "R");
    for (int c = 0; c < ncols; ++c)
        printf("  %22.22s", cols[c].name);
    printf("\n");
    for (int m = 0; m < nmasks; ++m) {
        const double red = clconv_model_interior_reduction(dims, tile, masks[m]);
        printf("%-10d %8.2f", masks[m], red);
        for (int c = 0; c < ncols; ++c) {
            clconv_model_roof r;
            clconv_model_roof_of(red, cols[c].peak, cols[c].bw, &r);
            char cell[64];
            if (r.percent_of_peak >= 100.0)
                snprintf(cell, sizeof cell, "100%% (bw %.0f%%)",
                         r.percent_of_peak);
            else
                snprintf(cell, sizeof cell, "%.1f%%", r.percent_of_peak);
            printf("  %22s", cell);
        }
        printf("\n");
    }
}

static int peak_tables(const model_options *o)
{
    ceiling_column cols[MODEL_MAX_LIST];
    int ncols = 0;
    int rc = CLI_EXIT_OK;
    if (o->device) {
        clconv_device_list list;
        clconv_status st = clconv_devices_discover(&list);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return cli_exit_code(st);
        }
        size_t sel[64], nsel = 0;
        size_t *selp = list.count <= 64 ? sel : NULL;
        if (!selp) {
            clconv_devices_free(&list);
            cli_error("model: more than 64 devices");
            return CLI_EXIT_UNSUPPORTED;
        }
        st = clconv_devices_select(&list, o->device, sel, &nsel);
        for (size_t k = 0; st == CLCONV_OK && k < nsel &&
                           ncols < MODEL_MAX_LIST; ++k) {
            const clconv_device_info *d = &list.devices[sel[k]];
            clconv_session *s = NULL;
            clconv_ceilings c;
            st = clconv_session_create(d, &s);
            if (st == CLCONV_OK)
                st = clconv_measure_ceilings(s, &c);
            clconv_session_destroy(s);
            if (st != CLCONV_OK)
                break;
            snprintf(cols[ncols].name, sizeof cols[ncols].name, "%u:%u %.40s",
                     d->platform_index, d->device_index, d->name);
            cols[ncols].peak = c.fp32_gflops;
            cols[ncols].bw = c.copy_gbs;
            ++ncols;
        }
        clconv_devices_free(&list);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return cli_exit_code(st);
        }
    } else {
        for (int c = 0; c < o->npeak; ++c) {
            snprintf(cols[c].name, sizeof cols[c].name, "%g GFLOP/s %g GB/s",
                     o->peak[c], o->bw[c]);
            cols[c].peak = o->peak[c];
            cols[c].bw = o->bw[c];
        }
        ncols = o->npeak;
    }
    printf("%-34s", "ceilings");
    for (int c = 0; c < ncols; ++c)
        printf("  %22.22s", cols[c].name);
    printf("\n%-34s", "peak GFLOP/s, bandwidth GB/s");
    for (int c = 0; c < ncols; ++c) {
        char cell[64];
        snprintf(cell, sizeof cell, "%.0f, %.0f", cols[c].peak, cols[c].bw);
        printf("  %22s", cell);
    }
    printf("\n%-34s", "untiled (2 B/FLOP): GFLOP/s");
    for (int c = 0; c < ncols; ++c) {
        clconv_model_roof r;
        clconv_model_roof_of(1.0, cols[c].peak, cols[c].bw, &r);
        char cell[64];
        snprintf(cell, sizeof cell, "%.0f = %.2f%%", r.bandwidth_gflops,
                 r.percent_of_peak);
        printf("  %22s", cell);
    }
    printf("\n%-34s", "reuse needed for full compute");
    for (int c = 0; c < ncols; ++c) {
        char cell[64];
        snprintf(cell, sizeof cell, "%.1fx",
                 clconv_model_reuse_needed(cols[c].peak, cols[c].bw));
        printf("  %22s", cell);
    }
    printf("\n");
    static const int masks1[] = {5, 9, 15, 55}, masks2[] = {3, 5, 7, 9};
    print_peak_table(1, 1024, o->nmasks ? o->masks : masks1,
                     o->nmasks ? o->nmasks : 4, cols, ncols);
    print_peak_table(2, 32, o->nmasks ? o->masks : masks2,
                     o->nmasks ? o->nmasks : 4, cols, ncols);
    return rc;
}

/* ---- counted loads: the instrumented kernels next to the model ---------- */

/* Run p's instrumented kernel on every device of o->device and print its
 * counted loads under the model's totals. 1 (verification failed) if a
 * count differs from the model. */
static int count_on_devices(const clconv_problem *p, const char *selector,
                            const clconv_model_counts *want)
{
    /* the kernels count with 32-bit atomics */
    if (want->global_loads > INT_MAX || want->local_reads > INT_MAX) {
        cli_error("model: %lld loads overflow the kernels' 32-bit counters; "
                  "count a smaller --size",
                  want->global_loads > want->local_reads ? want->global_loads
                                                         : want->local_reads);
        return CLI_EXIT_USAGE;
    }
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    size_t *sel = calloc(list.count ? list.count : 1, sizeof *sel), nsel = 0;
    const size_t n = clconv_problem_elements(p);
    const size_t nm = clconv_problem_mask_elements(p);
    float *in = malloc(n * sizeof *in), *mask = malloc(nm * sizeof *mask);
    int rc = CLI_EXIT_OK;
    if (!sel || !in || !mask) {
        cli_error("model: out of memory for a problem of %zu elements", n);
        rc = CLI_EXIT_UNSUPPORTED;
        goto out;
    }
    st = clconv_devices_select(&list, selector, sel, &nsel);
    clconv_fill_random(in, n, 1);
    clconv_fill_random(mask, nm, 2);
    for (size_t k = 0; st == CLCONV_OK && k < nsel; ++k) {
        const clconv_device_info *d = &list.devices[sel[k]];
        clconv_session *s = NULL;
        clconv_plan *plan = NULL;
        long long got[2] = {0, 0};
        st = clconv_session_create(d, &s);
        if (st == CLCONV_OK)
            st = clc_plan_create(s, p, mask, 1, &plan);
        if (st == CLCONV_OK)
            st = clconv_plan_set_input(plan, in);
        if (st == CLCONV_OK)
            st = clconv_plan_execute(plan, NULL);
        if (st == CLCONV_OK)
            st = clc_plan_counters(plan, got);
        clconv_plan_destroy(plan);
        clconv_session_destroy(s);
        if (st != CLCONV_OK)
            break;
        const int same = got[0] == want->global_loads &&
                         got[1] == want->local_reads;
        printf("  %-12s %8s %10s %12s %12lld %10s %10s %12lld  %s on %u:%u "
               "%.40s\n",
               "counted", "", "", "", got[0], "", "", got[1],
               same ? "equal" : "DIFFERENT", d->platform_index,
               d->device_index, d->name);
        if (!same)
            rc = CLI_EXIT_VERIFY;
    }
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        rc = cli_exit_code(st);
    }
out:
    free(in);
    free(mask);
    free(sel);
    clconv_devices_free(&list);
    return rc;
}

/* ---- one case -------------------------------------------------------------- */

static void json_counts(const clconv_model_counts *c)
{
    printf("\"tiles\": %lld, \"outputs\": %lld, \"accesses\": %lld, "
           "\"tile_loads\": %lld, \"halo_loads\": %lld, \"global_loads\": "
           "%lld, \"ghost_cells\": %lld, \"local_reads\": %lld, "
           "\"reduction\": %.6f",
           c->tiles, c->outputs, c->accesses, c->tile_loads, c->halo_loads,
           c->global_loads, c->ghost_cells, c->local_reads, c->reduction);
}

static void text_counts_header(const char *first)
{
    printf("  %-12s %8s %10s %12s %12s %10s %10s %12s %9s\n", first, "tiles",
           "outputs", "accesses", "global", "(halo)", "ghosts", "local rd",
           "reduction");
}

static void text_counts(const char *first, const clconv_model_counts *c)
{
    printf("  %-12s %8lld %10lld %12lld %12lld %10lld %10lld %12lld %9.3f\n",
           first, c->tiles, c->outputs, c->accesses, c->global_loads,
           c->halo_loads, c->ghost_cells, c->local_reads, c->reduction);
}

static void format_block(const size_t b[3], int dims, char *buf, size_t len)
{
    if (dims == 1)
        snprintf(buf, len, "(%zu)", b[0]);
    else if (dims == 2)
        snprintf(buf, len, "(%zu,%zu)", b[0], b[1]);
    else
        snprintf(buf, len, "(%zu,%zu,%zu)", b[0], b[1], b[2]);
}

static int model_interior(const clconv_problem *p, int warp, int json,
                          int first)
{
    clconv_model_interior m;
    clconv_status st = clconv_model_interior_of(p, warp, &m);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    if (json) {
        printf("%s  {\"strategy\": \"%s\", \"dims\": %d, \"mask\": %d, "
               "\"tile\": %d, \"scope\": \"interior\", ",
               first ? "" : ",\n", clconv_strategy_name(p->strategy), p->dims,
               p->mask_width, p->tile);
        json_counts(&m.counts);
        printf(", \"group_size\": %lld, \"computing_items\": %lld, "
               "\"local_bytes\": %lld, \"max_loads_per_item\": %lld, "
               "\"warp\": %d, \"warps\": %lld, \"active_warps\": %lld, "
               "\"idle_warps\": %lld, \"divergent_warps\": %lld}",
               m.group_size, m.computing_items, m.local_bytes,
               m.max_loads_per_item, m.warp_width, m.warps, m.active_warps,
               m.idle_warps, m.divergent_warps);
        return CLI_EXIT_OK;
    }
    if (first)
        printf("%-12s %5s %6s %7s %6s %6s %5s %6s %8s %6s %10s %9s %10s "
               "%9s\n",
               "strategy", "tile", "group", "compute", "warps", "active",
               "idle", "diverg", "local B", "ld/wi", "global", "(halo)",
               "accesses", "reduction");
    printf("%-12s %5d %6lld %7lld %6lld %6lld %5lld %6lld %8lld %6lld %10lld "
           "%9lld %10lld %9.3f\n",
           clconv_strategy_name(p->strategy), p->tile, m.group_size,
           m.computing_items, m.warps, m.active_warps, m.idle_warps,
           m.divergent_warps, m.local_bytes, m.max_loads_per_item,
           m.counts.global_loads, m.counts.halo_loads, m.counts.accesses,
           m.counts.reduction);
    return CLI_EXIT_OK;
}

static int model_sized(const clconv_problem *p, const model_options *o,
                       int first)
{
    char blk[64];
    clconv_model_counts c;
    clconv_status st;
    if (o->have_block) {
        st = clconv_model_block(p, o->block, &c);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return cli_exit_code(st);
        }
        format_block(o->block, p->dims, blk, sizeof blk);
        if (o->json) {
            printf("%s  {\"strategy\": \"%s\", \"dims\": %d, \"mask\": %d, "
                   "\"tile\": %d, \"size\": [%zu, %zu, %zu], \"scope\": "
                   "\"block\", \"block\": [%zu, %zu, %zu], ",
                   first ? "" : ",\n", clconv_strategy_name(p->strategy),
                   p->dims, p->mask_width, p->tile, p->size[0], p->size[1],
                   p->size[2], o->block[0], o->block[1], o->block[2]);
            json_counts(&c);
            printf("}");
            return CLI_EXIT_OK;
        }
        if (first)
            text_counts_header("block");
        printf("%s, tile %d:\n", clconv_strategy_name(p->strategy), p->tile);
        text_counts(blk, &c);
        return CLI_EXIT_OK;
    }
    st = clconv_model_problem(p, &c);
    static clconv_model_kind kinds[MODEL_MAX_KINDS];
    size_t nk = 0;
    clconv_status kst = st == CLCONV_OK
                            ? clconv_model_tile_kinds(p, kinds,
                                                      MODEL_MAX_KINDS, &nk)
                            : st;
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    if (o->json) {
        printf("%s  {\"strategy\": \"%s\", \"dims\": %d, \"mask\": %d, "
               "\"tile\": %d, \"size\": [%zu, %zu, %zu], \"scope\": "
               "\"problem\", ",
               first ? "" : ",\n", clconv_strategy_name(p->strategy), p->dims,
               p->mask_width, p->tile, p->size[0], p->size[1], p->size[2]);
        json_counts(&c);
        printf(", \"kinds\": [");
        for (size_t k = 0; kst == CLCONV_OK && k < nk; ++k) {
            printf("%s{\"first_block\": [%zu, %zu, %zu], ", k ? ", " : "",
                   kinds[k].first[0], kinds[k].first[1], kinds[k].first[2]);
            json_counts(&kinds[k].counts);
            printf("}");
        }
        printf("]}");
        return CLI_EXIT_OK;
    }
    size_t grid[3];
    clconv_model_grid(p, grid);
    char g[64];
    cli_format_size(grid, p->dims, g, sizeof g);
    if (first)
        text_counts_header("first block");
    printf("%s, tile %d: grid %s, %zu kind%s of tile (counts per tile; "
           "'tiles': how many)\n",
           clconv_strategy_name(p->strategy), p->tile, g, nk,
           nk == 1 ? "" : "s");
    if (kst != CLCONV_OK)
        printf("  (%s: kinds not listed)\n", clconv_last_error());
    for (size_t k = 0; kst == CLCONV_OK && k < nk; ++k) {
        format_block(kinds[k].first, p->dims, blk, sizeof blk);
        text_counts(blk, &kinds[k].counts);
    }
    text_counts("total", &c);
    return o->device ? count_on_devices(p, o->device, &c) : CLI_EXIT_OK;
}

int cli_model_main(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    model_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    const int peak = o.npeak || (o.device && !o.dims);
    if (o.table || peak) {
        if (o.table)
            print_reduction_tables();
        if (o.table && peak)
            printf("\n");
        return peak ? peak_tables(&o) : CLI_EXIT_OK;
    }
    if (o.strategy >= 0 && !clconv_model_has_strategy((clconv_strategy)o.strategy)) {
        cli_error("model: the model covers naive, output_tile, input_tile "
                  "and cached_halo, not %s",
                  clconv_strategy_name((clconv_strategy)o.strategy));
        return CLI_EXIT_USAGE;
    }
    const int s0 = o.strategy < 0 ? 0 : o.strategy;
    const int s1 = o.strategy < 0 ? CLCONV_STRATEGY_COUNT : o.strategy + 1;
    int rc = CLI_EXIT_OK;
    if (o.json)
        printf("[\n");
    else
        printf("%dD, mask %d, %s\n", o.dims, o.mask,
               o.have_block ? "one tile of the grid"
               : o.have_size ? "every tile of the grid"
                             : "an interior tile (no ghost cells)");
    int first = 1;
    for (int s = s0; s < s1 && rc == CLI_EXIT_OK; ++s) {
        if (!clconv_model_has_strategy((clconv_strategy)s))
            continue;
        clconv_problem p;
        memset(&p, 0, sizeof p);
        p.dims = o.dims;
        memcpy(p.size, o.size, sizeof p.size);
        p.mask_width = o.mask;
        p.strategy = (clconv_strategy)s;
        p.tile = o.tile ? o.tile
                        : clconv_default_tile(p.strategy, o.dims, o.mask);
        rc = o.have_size ? model_sized(&p, &o, first)
                         : model_interior(&p, o.warp, o.json, first);
        first = 0;
    }
    if (o.json)
        printf("\n]\n");
    return rc;
}
