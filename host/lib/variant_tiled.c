/* The notes' textbook strategies (naive, output_tile, input_tile,
 * cached_halo): one work-group per TILE_WIDTH^dims output tile, no knobs.
 * Their rows in the variant table. */
#include "internal.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* One work-group of `group` work-items per dimension for each output
 * tile, `lw`^dims local floats. */
static void tiled(const clconv_problem *p, clc_geometry *g, size_t group,
                  size_t lw)
{
    g->local_floats = lw ? 1 : 0;
    for (int d = 0; d < 3; ++d) {
        g->local[d] = d < p->dims ? group : 1;
        g->global[d] =
            d < p->dims ? ceil_div(p->size[d], (size_t)p->tile) * group : 1;
        if (d < p->dims)
            g->local_floats *= lw;
    }
}

static size_t in_tile(const clconv_problem *p)
{
    return (size_t)p->tile + (size_t)p->mask_width - 1;
}

static void geo_naive(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, (size_t)c->p.tile, 0);
}
static void geo_output_tile(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, (size_t)c->p.tile, in_tile(&c->p));
}
static void geo_input_tile(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, in_tile(&c->p), in_tile(&c->p));
}
static void geo_cached_halo(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, (size_t)c->p.tile, (size_t)c->p.tile);
}

static void no_defaults(const clconv_device_info *dev, const clc_overrides *ov,
                        clc_config *c)
{
    (void)dev;
    (void)ov;
    (void)c;
}

/* Preferred tiles 256, 16, 8 for 1D, 2D, 3D (a device that allows fewer
 * work-items gets the largest that fits); clconv tune tries the bench
 * tiles. */
#define TILED_DIMS                                                            \
    {{.tile = 256, .bench_tiles = 1},                                         \
     {.tile = 16, .bench_tiles = 1},                                          \
     {.tile = 8, .bench_tiles = 1}}

const clc_variant clc_variant_naive = {
    CLCONV_NAIVE, "naive",
    "one work-item per output, every operand from global memory",
    TILED_DIMS, 0, no_defaults, geo_naive};

const clc_variant clc_variant_output_tile = {
    CLCONV_OUTPUT_TILE, "output_tile",
    "strategy 1: group = output tile, halo loaded into local memory in steps",
    TILED_DIMS, 0, no_defaults, geo_output_tile};

const clc_variant clc_variant_input_tile = {
    CLCONV_INPUT_TILE, "input_tile",
    "strategy 2: group = input tile, one load per work-item, inner ones "
    "compute",
    TILED_DIMS, 0, no_defaults, geo_input_tile};

const clc_variant clc_variant_cached_halo = {
    CLCONV_CACHED_HALO, "cached_halo",
    "strategy 3: group = output tile, halo read from global memory (cache)",
    TILED_DIMS, 0, no_defaults, geo_cached_halo};
