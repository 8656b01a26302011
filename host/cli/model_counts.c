/* `clconv model --dims`: one case, an interior tile, a block of the
 * grid or the whole problem, and with --device the instrumented kernels'
 * counted loads under the model's (through clconv_model.h's public API). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ---- counted loads: the instrumented kernels next to the model ---------- */

/* Run p's instrumented kernel once on session s and read its counts. */
static clconv_status count_one(clconv_session *s, const clconv_problem *p,
                               const float *in, const float *mask,
                               clconv_load_counts *got)
{
    clconv_plan *plan = NULL;
    clconv_status st = clconv_plan_create_counting(s, p, mask, &plan);
    if (st == CLCONV_OK)
        st = clconv_plan_set_input(plan, in);
    if (st == CLCONV_OK)
        st = clconv_plan_execute(plan, NULL);
    if (st == CLCONV_OK)
        st = clconv_plan_counters(plan, got);
    clconv_plan_destroy(plan);
    return st;
}

/* Run p's instrumented kernel on every device of the selector and print
 * its counted loads under the model's totals. 1 (verification failed) if
 * a count differs from the model. */
static int count_on_devices(const clconv_problem *p, const char *selector,
                            const clconv_model_counts *want)
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
    float *in = malloc(n * sizeof *in), *mask = malloc(nm * sizeof *mask);
    cli_devices devs;
    int rc = CLI_EXIT_UNSUPPORTED;
    if (!in || !mask)
        cli_error("model: out of memory for a problem of %zu elements", n);
    else
        rc = cli_devices_open(&devs, selector, 1);
    const int opened = rc == CLI_EXIT_OK;
    if (opened) {
        clconv_fill_random(in, n, 1);
        clconv_fill_random(mask, nm, 2);
    }
    for (size_t k = 0; opened && k < devs.n; ++k) {
        const clconv_device_info *d = cli_device(&devs, k);
        clconv_load_counts got = {0, 0};
        clconv_status st = count_one(devs.sessions[k], p, in, mask, &got);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            rc = cli_exit_code(st);
            break;
        }
        const int same =
            got.global_loads >= 0 && got.local_reads >= 0 &&
            (unsigned long long)got.global_loads == want->global_loads &&
            (unsigned long long)got.local_reads == want->local_reads;
        printf("  %-12s %8s %10s %12s %12lld %10s %10s %12lld  %s on %u:%u "
               "%.40s\n",
               "counted", "", "", "", got.global_loads, "", "",
               got.local_reads, same ? "equal" : "DIFFERENT",
               d->platform_index, d->device_index, d->name);
        if (!same)
            rc = CLI_EXIT_VERIFY;
    }
    if (opened)
        cli_devices_close(&devs);
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

static void text_counts_header(const char *first)
{
    printf("  %-12s %8s %10s %12s %12s %10s %10s %12s %9s\n", first, "tiles",
           "outputs", "accesses", "global", "(halo)", "ghosts", "local rd",
           "reduction");
}

static void text_counts(const char *first, const clconv_model_counts *c)
{
    printf("  %-12s %8llu %10llu %12llu %12llu %10llu %10llu %12llu %9.3f\n",
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

int model_interior(const clconv_problem *p, int warp, int json,
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
    printf("%-12s %5d %6lld %7lld %6lld %6lld %5lld %6lld %8lld %6lld %10llu "
           "%9llu %10llu %9.3f\n",
           clconv_strategy_name(p->strategy), p->tile, m.group_size,
           m.computing_items, m.warps, m.active_warps, m.idle_warps,
           m.divergent_warps, m.local_bytes, m.max_loads_per_item,
           m.counts.global_loads, m.counts.halo_loads, m.counts.accesses,
           m.counts.reduction);
    return CLI_EXIT_OK;
}

int model_sized(const clconv_problem *p, const model_options *o,
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

