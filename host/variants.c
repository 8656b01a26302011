/* The tiling strategies as a table: name, work-group shape, local memory. */
#include <string.h>

#include "internal.h"

static size_t width_tile(int tile, int mask) { (void)mask; return (size_t)tile; }
static size_t width_in_tile(int tile, int mask) { return (size_t)tile + (size_t)mask - 1; }
static size_t width_none(int tile, int mask) { (void)tile; (void)mask; return 0; }

/* Indexed by clconv_strategy. group_width is the work-group size per
 * dimension; local_width^dims floats of __local memory. */
static const clc_variant variants[CLCONV_STRATEGY_COUNT] = {
    {CLCONV_NAIVE, "naive",
     "one work-item per output, every operand from global memory",
     width_tile, width_none},
    {CLCONV_OUTPUT_TILE, "output_tile",
     "strategy 1: group = output tile, halo loaded into local memory in steps",
     width_tile, width_in_tile},
    {CLCONV_INPUT_TILE, "input_tile",
     "strategy 2: group = input tile, one load per work-item, inner ones compute",
     width_in_tile, width_in_tile},
    {CLCONV_CACHED_HALO, "cached_halo",
     "strategy 3: group = output tile, halo read from global memory (cache)",
     width_tile, width_tile},
};

const clc_variant *clc_variant_get(clconv_strategy s)
{
    if ((int)s < 0 || s >= CLCONV_STRATEGY_COUNT)
        return NULL;
    return &variants[s];
}

const char *clconv_strategy_name(clconv_strategy s)
{
    const clc_variant *v = clc_variant_get(s);
    return v ? v->name : "unknown";
}

clconv_status clconv_strategy_parse(const char *name, clconv_strategy *out)
{
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        if (strcmp(name, variants[s].name) == 0) {
            *out = (clconv_strategy)s;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown strategy '%s' (naive, output_tile, input_tile, "
                    "cached_halo, all)",
                    name);
}

void clc_geometry_of(const clconv_problem *p, clc_geometry *g)
{
    const clc_variant *v = clc_variant_get(p->strategy);
    const size_t group = v->group_width(p->tile, p->mask_width);
    const size_t lw = v->local_width(p->tile, p->mask_width);
    g->local_floats = lw ? 1 : 0;
    for (int d = 0; d < 3; ++d) {
        if (d >= p->dims) {
            g->local[d] = 1;
            g->global[d] = 1;
            continue;
        }
        /* One work-group per output tile of TILE_WIDTH per dimension. */
        size_t tiles = (p->size[d] + (size_t)p->tile - 1) / (size_t)p->tile;
        g->local[d] = group;
        g->global[d] = tiles * group;
        g->local_floats *= lw;
    }
}

int clconv_default_tile(clconv_strategy s, int dims, int mask_width)
{
    static const int base[4] = {0, 256, 16, 8};
    if (dims < 1 || dims > 3)
        return 1;
    int t = base[dims];
    if (s == CLCONV_INPUT_TILE) {
        /* Keep (t + W - 1)^dims within 1024 work-items. */
        while (t > 1) {
            size_t in = (size_t)t + (size_t)mask_width - 1, wg = 1;
            for (int d = 0; d < dims; ++d)
                wg *= in;
            if (wg <= 1024)
                break;
            t /= 2;
        }
    }
    return t;
}

void clconv_pick_default(const clconv_device_info *dev, clconv_problem *p)
{
    /* Measured on PoCL: the local-memory strategies pay a barrier that
     * splits the work-item loops, so the plain kernel is the CPU's best of
     * the four; GPUs gain from the shared tile. */
    p->strategy = dev && dev->kind == CLCONV_DEVICE_CPU ? CLCONV_NAIVE
                                                        : CLCONV_OUTPUT_TILE;
    p->tile = clconv_default_tile(p->strategy, p->dims, p->mask_width);
}
