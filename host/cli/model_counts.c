/* `clconv model --dims`: one case, an interior tile, a block of the
 * grid or the whole problem, and with --device the instrumented kernels'
 * counted loads under the model's (through clconv_model.h's public API). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ---- counted loads: the instrumented kernels next to the model ---------- */

/* Run p's instrumented kernel once on session s and read its counts; in
 * holds elements of p->in_dtype (--dtype). */
static clconv_status count_one(clconv_session *s, const clconv_problem *p,
                               const void *in, const float *mask,
                               clconv_load_counts *got)
{
    clconv_plan *plan = NULL;
    clconv_status st = clconv_plan_create_counting(s, p, mask, &plan);
    if (st == CLCONV_OK)
        st = clconv_plan_set_input_typed(plan, in);
    if (st == CLCONV_OK)
        st = clconv_plan_execute(plan, NULL);
    if (st == CLCONV_OK)
        st = clconv_plan_counters(plan, got);
    clconv_plan_destroy(plan);
    return st;
}

/* Run p's instrumented kernel on every device of the selector and add
 * its counted loads to t, under the model's totals. 1 (verification
 * failed) if a count differs from the model. */
static int count_on_devices(const clconv_problem *p, const char *selector,
                            const clconv_model_counts *want, cli_rows *t)
{
    /* the kernels count with 32-bit atomics */
    if (want->global_loads > INT_MAX || want->local_reads > INT_MAX) {
        cli_error("model: %llu loads overflow the kernels' 32-bit counters; "
                  "count a smaller --size",
                  want->global_loads > want->local_reads ? want->global_loads
                                                         : want->local_reads);
        return CLI_EXIT_USAGE;
    }
    const size_t n = clconv_problem_elements(p);
    const size_t nm = clconv_problem_mask_elements(p);
    /* random floats, as the input's element type (--dtype) */
    float *in = malloc(n * sizeof *in), *mask = malloc(nm * sizeof *mask);
    void *typed = p->in_dtype == CLCONV_ELEM_F32
                      ? NULL
                      : malloc(n * clconv_elem_size(p->in_dtype));
    cli_devices devs;
    int rc = CLI_EXIT_UNSUPPORTED;
    if (!in || !mask || (p->in_dtype != CLCONV_ELEM_F32 && !typed))
        cli_error("model: out of memory for a problem of %zu elements", n);
    else
        rc = cli_devices_open(&devs, selector, 1);
    const int opened = rc == CLI_EXIT_OK;
    if (opened) {
        clconv_fill_random(in, n, 1);
        clconv_fill_random(mask, nm, 2);
        clconv_elems_from_float(p->in_dtype, in, n, typed);
    }
    for (size_t k = 0; opened && k < devs.n; ++k) {
        const clconv_device_info *d = cli_device(&devs, k);
        clconv_load_counts got = {0, 0};
        clconv_status st = count_one(devs.sessions[k], p, typed ? typed : in,
                                     mask, &got);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            rc = cli_exit_code(st);
            break;
        }
        const int same =
            got.global_loads >= 0 && got.local_reads >= 0 &&
            (unsigned long long)got.global_loads == want->global_loads &&
            (unsigned long long)got.local_reads == want->local_reads;
        char check[96];
        snprintf(check, sizeof check, "%s on %u:%u %.40s",
                 same ? "equal" : "DIFFERENT", d->platform_index,
                 d->device_index, d->name);
        cli_row_begin(t);
        cli_put_str(t, "first", "counted");
        cli_put_int(t, "global_loads", got.global_loads);
        cli_put_int(t, "local_reads", got.local_reads);
        cli_put_str(t, "check", check);
        if (!same)
            rc = CLI_EXIT_VERIFY;
    }
    if (opened)
        cli_devices_close(&devs);
    free(typed);
    free(in);
    free(mask);
    return rc;
}

/* ---- one case -------------------------------------------------------------- */

static void json_counts(const clconv_model_counts *c)
{
    printf("\"tiles\": %llu, \"outputs\": %llu, \"accesses\": %llu, "
           "\"tile_loads\": %llu, \"halo_loads\": %llu, \"global_loads\": "
           "%llu, \"ghost_cells\": %llu, \"local_reads\": %llu, "
           "\"reduction\": %.6f",
           c->tiles, c->outputs, c->accesses, c->tile_loads, c->halo_loads,
           c->global_loads, c->ghost_cells, c->local_reads, c->reduction);
}

/* The model's counts as a row's fields (a text row's, after "first"). */
static void put_counts(cli_rows *t, const clconv_model_counts *c)
{
    cli_put_uint(t, "tiles", c->tiles);
    cli_put_uint(t, "outputs", c->outputs);
    cli_put_uint(t, "accesses", c->accesses);
    cli_put_uint(t, "tile_loads", c->tile_loads);
    cli_put_uint(t, "halo_loads", c->halo_loads);
    cli_put_uint(t, "global_loads", c->global_loads);
    cli_put_uint(t, "ghost_cells", c->ghost_cells);
    cli_put_uint(t, "local_reads", c->local_reads);
    cli_put_num(t, "reduction", "%.6f", c->reduction);
}

/* The counts of a block, of each kind of tile and their total, and the
 * counted loads under them: a line each. */
static const cli_column count_columns[] = {
    {"first", "", NULL, NULL},
    {"tiles", "tiles", NULL, NULL},
    {"outputs", "outputs", NULL, NULL},
    {"accesses", "accesses", NULL, NULL},
    {"global_loads", "global", NULL, NULL},
    {"halo_loads", "(halo)", NULL, NULL},
    {"ghost_cells", "ghosts", NULL, NULL},
    {"local_reads", "local rd", NULL, NULL},
    {"reduction", "reduction", "%.3f", NULL},
    {"check", "check", NULL, NULL},
};

static void put_count_row(cli_rows *t, const char *first,
                          const clconv_model_counts *c)
{
    cli_row_begin(t);
    cli_put_str(t, "first", first);
    put_counts(t, c);
}

/* The count rows of t under a title ("block", "first block"); the
 * column of the counted loads' check with --device. */
static int print_counts(const cli_rows *t, const char *title, int counted)
{
    cli_column cols[sizeof count_columns / sizeof *count_columns];
    const size_t n = sizeof cols / sizeof *cols - (counted ? 0 : 1);
    memcpy(cols, count_columns, sizeof cols);
    cols[0].title = title;
    return cli_rows_text(t, cols, n, stdout);
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

void model_interior(cli_rows *t, const clconv_problem *p, int warp)
{
    clconv_model_interior m;
    if (clconv_model_interior_of(p, warp, &m) != CLCONV_OK)
        return; /* model.c checked every case first */
    cli_row_begin(t);
    cli_put_str(t, "strategy", clconv_strategy_name(p->strategy));
    cli_put_int(t, "dims", p->dims);
    cli_put_int(t, "mask", p->mask_width);
    cli_put_int(t, "tile", p->tile);
    cli_put_str(t, "scope", "interior");
    put_counts(t, &m.counts);
    cli_put_int(t, "group_size", m.group_size);
    cli_put_int(t, "computing_items", m.computing_items);
    cli_put_int(t, "local_bytes", m.local_bytes);
    cli_put_int(t, "max_loads_per_item", m.max_loads_per_item);
    cli_put_int(t, "warp", m.warp_width);
    cli_put_int(t, "warps", m.warps);
    cli_put_int(t, "active_warps", m.active_warps);
    cli_put_int(t, "idle_warps", m.idle_warps);
    cli_put_int(t, "divergent_warps", m.divergent_warps);
}

const cli_column model_interior_columns[] = {
    {"strategy", "strategy", NULL, NULL},
    {"tile", "tile", NULL, NULL},
    {"group_size", "group", NULL, NULL},
    {"computing_items", "compute", NULL, NULL},
    {"warps", "warps", NULL, NULL},
    {"active_warps", "active", NULL, NULL},
    {"idle_warps", "idle", NULL, NULL},
    {"divergent_warps", "diverg", NULL, NULL},
    {"local_bytes", "local B", NULL, NULL},
    {"max_loads_per_item", "ld/wi", NULL, NULL},
    {"global_loads", "global", NULL, NULL},
    {"halo_loads", "(halo)", NULL, NULL},
    {"accesses", "accesses", NULL, NULL},
    {"reduction", "reduction", "%.3f", NULL},
};
const size_t model_interior_ncolumns =
    sizeof model_interior_columns / sizeof *model_interior_columns;

/* --block: the counts of one tile of the grid. */
static int model_block(const clconv_problem *p, const model_options *o,
                       int first)
{
    clconv_model_counts c;
    clconv_status st = clconv_model_block(p, o->block, &c);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
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
    char blk[64];
    format_block(o->block, p->dims, blk, sizeof blk);
    printf("%s%s, tile %d:\n", first ? "" : "\n",
           clconv_strategy_name(p->strategy), p->tile);
    cli_rows *t = cli_rows_new();
    if (t)
        put_count_row(t, blk, &c);
    int rc = t ? print_counts(t, "block", 0) : -1;
    cli_rows_free(t);
    return rc ? CLI_EXIT_UNSUPPORTED : CLI_EXIT_OK;
}

static void json_problem(const clconv_problem *p, const clconv_model_counts *c,
                         const clconv_model_kind *kinds, size_t nk, int first)
{
    printf("%s  {\"strategy\": \"%s\", \"dims\": %d, \"mask\": %d, "
           "\"tile\": %d, \"size\": [%zu, %zu, %zu], \"scope\": "
           "\"problem\", ",
           first ? "" : ",\n", clconv_strategy_name(p->strategy), p->dims,
           p->mask_width, p->tile, p->size[0], p->size[1], p->size[2]);
    json_counts(c);
    printf(", \"kinds\": [");
    for (size_t k = 0; k < nk; ++k) {
        printf("%s{\"first_block\": [%zu, %zu, %zu], ", k ? ", " : "",
               kinds[k].first[0], kinds[k].first[1], kinds[k].first[2]);
        json_counts(&kinds[k].counts);
        printf("}");
    }
    printf("]}");
}

int model_sized(const clconv_problem *p, const model_options *o, int first)
{
    if (o->have_block)
        return model_block(p, o, first);
    clconv_model_counts c;
    clconv_status st = clconv_model_problem(p, &c);
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
    const size_t listed = kst == CLCONV_OK ? nk : 0;
    if (o->json) {
        json_problem(p, &c, kinds, listed, first);
        return CLI_EXIT_OK;
    }
    size_t grid[3];
    clconv_model_grid(p, grid);
    char g[64], blk[64];
    cli_format_size(grid, p->dims, g, sizeof g);
    printf("%s%s, tile %d: grid %s, %zu kind%s of tile (counts per tile; "
           "'tiles': how many)\n",
           first ? "" : "\n", clconv_strategy_name(p->strategy), p->tile, g,
           nk, nk == 1 ? "" : "s");
    if (kst != CLCONV_OK)
        printf("(%s: kinds not listed)\n", clconv_last_error());
    cli_rows *t = cli_rows_new();
    for (size_t k = 0; t && k < listed; ++k) {
        format_block(kinds[k].first, p->dims, blk, sizeof blk);
        put_count_row(t, blk, &kinds[k].counts);
    }
    if (t)
        put_count_row(t, "total", &c);
    int rc = t && o->device ? count_on_devices(p, o->device, &c, t)
                            : CLI_EXIT_OK;
    if (!t || print_counts(t, "first block", o->device != NULL))
        rc = CLI_EXIT_UNSUPPORTED;
    cli_rows_free(t);
    return rc;
}
