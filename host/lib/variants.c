/* The tiling strategies as a table: name, work-group shape, local memory. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* The textbook strategies: one work-group of `group` work-items per
 * dimension for each TILE_WIDTH^dims output tile, `lw`^dims local floats. */
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

static void geo_naive(const clconv_problem *p, clc_geometry *g)
{
    tiled(p, g, (size_t)p->tile, 0);
}
static void geo_output_tile(const clconv_problem *p, clc_geometry *g)
{
    tiled(p, g, (size_t)p->tile, in_tile(p));
}
static void geo_input_tile(const clconv_problem *p, clc_geometry *g)
{
    tiled(p, g, in_tile(p), in_tile(p));
}
static void geo_cached_halo(const clconv_problem *p, clc_geometry *g)
{
    tiled(p, g, (size_t)p->tile, (size_t)p->tile);
}

/* vector's coarsen default, from the 16-core Xeon through PoCL at the
 * suite's sizes (bench/PERF.md item 15; the 2 local cores agree within
 * 15%): 1D float16 blocks per work-item, 1 up to mask 15 (memory-bound,
 * flat) and 8 beyond (W=55: 28.6 ms at 1, 15.2 at 8); 2D rows per
 * work-item, 4 up to mask 7 and 16 beyond (W=5 7.6 ms at 4, 9.4 at 16;
 * W=9 18.7 at 16, 47 at 32); 3D planes per work-item, 8 (W=3 25.6 ms,
 * W=5 65.9 against 95 at 16). */
static int clc_vector_coarsen_default(const clconv_problem *p)
{
    if (p->dims == 1)
        return p->mask_width <= 15 ? 1 : 8;
    if (p->dims == 2)
        return p->mask_width <= 7 ? 4 : 16;
    return 8;
}

int clconv_strategy_knobs(clconv_strategy s, int dims)
{
    if (s == CLCONV_COARSE)
        return CLCONV_KNOB_COARSEN | CLCONV_KNOB_GROUP_Y;
    if (s == CLCONV_VECTOR && dims >= 1 && dims <= 3)
        return CLCONV_KNOB_COARSEN;
    return 0;
}

int clc_coarsen_of(const clconv_problem *p)
{
    if (p->coarsen > 0)
        return p->coarsen;
    if (p->strategy == CLCONV_VECTOR)
        return clc_vector_coarsen_default(p);
    /* Defaults from the H100 sweeps (bench/PERF.md): 1D 4 outputs for small
     * masks, 8 for large; 2D 8 rows, 16 from mask 7 on; 3D (with the rows
     * of clc_rows_of) 8 planes for mask 3, 16 from mask 5 on. */
    if (p->dims == 1)
        return p->mask_width <= 15 ? 4 : 8;
    if (p->dims == 2)
        return p->mask_width >= 7 ? 16 : 8;
    return p->mask_width <= 3 ? 8 : 16;
}

int clc_group_y_of(const clconv_problem *p)
{
    if (p->dims == 1)
        return 1;
    if (p->group_y > 0)
        return p->group_y;
    /* H100 sweeps: 2D 64x4 (64x2 from mask 7), 3D 32x4. */
    if (p->dims == 2)
        return p->mask_width >= 7 ? 2 : 4;
    return 4;
}

/* A measuring override: the variable's value if it is one digit 1..max,
 * else 0 (unset or not such a digit: the default applies). */
static int env_digit(const char *name, int max)
{
    const char *env = getenv(name);
    if (env && *env >= '1' && *env <= '0' + max && env[1] == '\0')
        return *env - '0';
    return 0;
}

int clc_rows_of(const clconv_problem *p)
{
    if (p->dims != 3)
        return 1;
    /* $CLCONV_COARSE_ROWS (1..8) overrides, for measuring (bench/PERF.md
     * item 11). */
    const int env = env_digit("CLCONV_COARSE_ROWS", 8);
    if (env)
        return env;
    /* H100 sweep: mask 3 best with 3 rows (0.452 ms against 0.533 with
     * one), mask 5 with 2 (1.03 against 1.29; 3 rows spill). */
    return p->mask_width <= 3 ? 3 : 2;
}

int clc_vector_blocks_of(const clconv_problem *p)
{
    if (p->strategy != CLCONV_VECTOR || p->dims == 1)
        return 1; /* 1D: COARSEN is the number of blocks */
    /* $CLCONV_VECTOR_BLOCKS (1..4) overrides, for measuring (bench/PERF.md
     * item 16). */
    const int env = env_digit("CLCONV_VECTOR_BLOCKS", 4);
    if (env)
        return env;
    return p->mask_width <= 5 ? 2 : 1;
}

/* Padded length of the 1D coarse tile (one float of padding per 32, so
 * work-items reading COARSEN apart hit different banks). */
static size_t padded(size_t n) { return n + n / 32 + 1; }

static void geo_coarse(const clconv_problem *p, clc_geometry *g)
{
    const size_t t = (size_t)p->tile, c = (size_t)clc_coarsen_of(p);
    const size_t gy = (size_t)clc_group_y_of(p);
    g->local[0] = t;
    g->local[1] = g->local[2] = 1;
    g->global[1] = g->global[2] = 1;
    g->local_floats = 0;
    if (p->dims == 1) {
        /* A work-group computes t * c outputs from a local tile. */
        g->global[0] = ceil_div(p->size[0], t * c) * t;
        g->local_floats = padded(t * c + (size_t)p->mask_width - 1);
    } else if (p->dims == 2) {
        /* t x gy work-items, each c rows. */
        g->local[1] = gy;
        g->global[0] = ceil_div(p->size[0], t) * t;
        g->global[1] = ceil_div(p->size[1], gy * c) * gy;
    } else {
        /* t x gy work-items, each marching c planes of `rows` rows. */
        const size_t rows = (size_t)clc_rows_of(p);
        g->local[1] = gy;
        g->global[0] = ceil_div(p->size[0], t) * t;
        g->global[1] = ceil_div(p->size[1], gy * rows) * gy;
        g->global[2] = ceil_div(p->size[2], c);
    }
}

/* x outputs per work-item of the vector variant: VEC_WIDTH in
 * cl/common.clh (float16), times COARSEN blocks in 1D and VEC_BLOCKS in
 * 2D/3D. */
#define CLC_VECTOR_WIDTH 16

static void geo_vector(const clconv_problem *p, clc_geometry *g)
{
    const size_t t = (size_t)p->tile;
    const size_t c = (size_t)clc_coarsen_of(p);
    const size_t per_item =
        CLC_VECTOR_WIDTH * (p->dims == 1 ? c : (size_t)clc_vector_blocks_of(p));
    g->local[0] = t;
    g->local[1] = g->local[2] = 1;
    g->global[0] = ceil_div(ceil_div(p->size[0], per_item), t) * t;
    g->global[1] = p->dims == 2   ? ceil_div(p->size[1], c)
                   : p->dims == 3 ? p->size[1]
                                  : 1;
    g->global[2] = p->dims == 3 ? ceil_div(p->size[2], c) : 1;
    g->local_floats = 0;
}

/* Indexed by clconv_strategy. */
static const clc_variant variants[CLCONV_STRATEGY_COUNT] = {
    {CLCONV_NAIVE, "naive",
     "one work-item per output, every operand from global memory", geo_naive},
    {CLCONV_OUTPUT_TILE, "output_tile",
     "strategy 1: group = output tile, halo loaded into local memory in steps",
     geo_output_tile},
    {CLCONV_INPUT_TILE, "input_tile",
     "strategy 2: group = input tile, one load per work-item, inner ones compute",
     geo_input_tile},
    {CLCONV_CACHED_HALO, "cached_halo",
     "strategy 3: group = output tile, halo read from global memory (cache)",
     geo_cached_halo},
    {CLCONV_COARSE, "coarse",
     "several outputs per work-item from a register queue along the slowest "
     "axis (3D: z-marching)",
     geo_coarse},
    {CLCONV_VECTOR, "vector",
     "float16 blocks of x outputs with vload16/vstore16 (SIMD within the "
     "work-item); 2D/3D march a queue of accumulators along y/z",
     geo_vector},
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
                    "cached_halo, coarse, vector, all)",
                    name);
}

void clc_geometry_of(const clconv_problem *p, clc_geometry *g)
{
    clc_variant_get(p->strategy)->geometry(p, g);
}

int clconv_default_tile(clconv_strategy s, int dims, int mask_width)
{
    static const int base[4] = {0, 256, 16, 8};
    if (dims < 1 || dims > 3)
        return 1;
    static const int coarse[4] = {0, 128, 64, 32};
    int t = s == CLCONV_COARSE   ? coarse[dims]
            : s == CLCONV_VECTOR ? 16
                                 : base[dims];
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
    /* Measured: coarse is the H100's best on all eight standard problems
     * (bench/results/2026-11-22-h100); vector is PoCL's best on all eight
     * quick problems, 2.7-12.5x ahead of the others on 2 cores
     * (bench/results/2026-11-22-local-2core). clconv tune refines both. */
    p->strategy = dev && dev->kind == CLCONV_DEVICE_CPU ? CLCONV_VECTOR
                                                        : CLCONV_COARSE;
    p->tile = clconv_default_tile(p->strategy, p->dims, p->mask_width);
    p->coarsen = 0;
    p->group_y = 0;
}

static const char *const mask_mode_names[] = {"auto", "argument", "baked"};

const char *clconv_mask_mode_name(clconv_mask_mode m)
{
    return (unsigned)m < 3 ? mask_mode_names[m] : "?";
}

clconv_status clconv_mask_mode_parse(const char *name, clconv_mask_mode *out)
{
    for (int m = 0; m < 3; ++m)
        if (strcmp(name, mask_mode_names[m]) == 0) {
            *out = (clconv_mask_mode)m;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown mask mode '%s' (auto, argument, baked)", name);
}

clconv_mask_mode clc_mask_mode_for(const clconv_device_info *dev,
                                   const clconv_problem *p)
{
    if (p->mask_mode != CLCONV_MASK_AUTO || !dev)
        return p->mask_mode;
    /* On GPUs the fast variants take the mask as constants (immediates on
     * NVIDIA: bench/PERF.md item 9); the notes' strategies keep the notes'
     * __constant argument. On CPUs (PoCL) baking did not pay and costs a
     * JIT of about 2 s per mask. */
    return dev->kind != CLCONV_DEVICE_CPU &&
                   (p->strategy == CLCONV_COARSE || p->strategy == CLCONV_VECTOR)
               ? CLCONV_MASK_BAKED
               : CLCONV_MASK_ARGUMENT;
}

void clconv_problem_apply_defaults(const clconv_device_info *dev,
                                   clconv_problem *p)
{
    p->mask_mode = clc_mask_mode_for(dev, p);
    if (p->dims < 1 || p->dims > 3)
        return;
    const int knobs = clconv_strategy_knobs(p->strategy, p->dims);
    if (knobs & CLCONV_KNOB_COARSEN)
        p->coarsen = clc_coarsen_of(p);
    if (knobs & CLCONV_KNOB_GROUP_Y)
        p->group_y = clc_group_y_of(p);
}
