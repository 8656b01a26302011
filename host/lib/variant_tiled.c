/* The notes' textbook strategies (naive, output_tile, input_tile,
 * cached_halo): one work-group per TILE_WIDTH^dims output tile, no knobs.
 * Their rows in the variant table. */
#include "internal.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The input tile's extent along axis d: TILE_WIDTH plus the mask's halos
 * along d. */
static size_t in_tile(const clconv_problem *p, int d)
{
    return (size_t)p->tile + (size_t)clconv_problem_mask_axis(p, d) - 1;
}

/* What a work-group or local tile spans per axis. */
enum extent { NONE, TILE, IN_TILE };

static size_t extent_of(const clconv_problem *p, int d, enum extent e)
{
    return e == IN_TILE ? in_tile(p, d) : (size_t)p->tile;
}

/* One work-group (of `group` extents) for each TILE_WIDTH^dims output
 * tile, a local tile of `lw` extents. */
static void tiled(const clconv_problem *p, clc_geometry *g, enum extent group,
                  enum extent lw)
{
    g->local_floats = lw != NONE ? 1 : 0;
    for (int d = 0; d < 3; ++d) {
        const size_t n = extent_of(p, d, group);
        g->local[d] = d < p->dims ? n : 1;
        g->global[d] =
            d < p->dims ? ceil_div(p->size[d], (size_t)p->tile) * n : 1;
        if (d < p->dims && lw != NONE)
            g->local_floats *= extent_of(p, d, lw);
    }
}

static void geo_naive(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, TILE, NONE);
}
static void geo_output_tile(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, TILE, IN_TILE);
}
static void geo_input_tile(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, IN_TILE, IN_TILE);
}
static void geo_cached_halo(const clc_config *c, clc_geometry *g)
{
    tiled(&c->p, g, TILE, TILE);
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
    TILED_DIMS, 0, no_defaults, geo_naive, NULL, 0, NULL};

const clc_variant clc_variant_output_tile = {
    CLCONV_OUTPUT_TILE, "output_tile",
    "strategy 1: group = output tile, halo loaded into local memory in steps",
    TILED_DIMS, 0, no_defaults, geo_output_tile, NULL, 0, NULL};

const clc_variant clc_variant_input_tile = {
    CLCONV_INPUT_TILE, "input_tile",
    "strategy 2: group = input tile, one load per work-item, inner ones "
    "compute",
    TILED_DIMS, 0, no_defaults, geo_input_tile, NULL, 0, NULL};

const clc_variant clc_variant_cached_halo = {
    CLCONV_CACHED_HALO, "cached_halo",
    "strategy 3: group = output tile, halo read from global memory (cache)",
    TILED_DIMS, 0, no_defaults, geo_cached_halo, NULL, 0, NULL};
