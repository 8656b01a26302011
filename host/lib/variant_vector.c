/* The vector variant: 16 consecutive x outputs per float16 block with
 * vload16/vstore16 (SIMD inside the work-item, for CPUs whose OpenCL does
 * not vectorize across work-items); 1D: COARSEN blocks per work-item;
 * 2D/3D: VEC_BLOCKS blocks side by side, marching a queue of accumulators
 * over COARSEN rows or planes. Its row in the variant table. */
#include <string.h>

#include "internal.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* x outputs per block: VEC_WIDTH in cl/common.clh, 16 (float16) unless
 * the knob says 8 (2D/3D only; 1D keeps 16). */
#define VECTOR_WIDTH 16

/* A CPU device of PoCL, where the vector defaults were measured. */

/* VEC_WIDTH in 2D, and in 3D up to mask 5: 8 on PoCL CPU devices whose
 * native float vector is 8 wide (AVX2: a float16 is two of its 16
 * registers, and the 2D queue spilled to the stack, bench/PERF.md item
 * 23; the 3D queue of 5 planes of two float16 blocks too, item 66), else
 * 16. 3D beyond mask 5 (one block) and other CPU implementations keep 16
 * until measured. */
static int width_default(const clconv_device_info *dev)
{
    cl_uint native = 0;
    if (!clc_pocl_cpu(dev) || !dev->opaque_device ||
        clGetDeviceInfo((cl_device_id)dev->opaque_device,
                        CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof native,
                        &native, NULL) != CL_SUCCESS)
        return VECTOR_WIDTH;
    return native == 8 ? 8 : VECTOR_WIDTH;
}

/* VEC_BLOCKS per implementation, first match wins: the widest mask that
 * gets two blocks side by side (one block beyond). PoCL on the 16-core
 * Xeon: two blocks up to mask 5 (bench/PERF.md item 16). Intel's CPU
 * runtime: 2D mask 5 is 5x slower with two blocks than with one, so other
 * CPU implementations get one until measured. GPUs keep PoCL's rule. */
static const struct {
    int cpu;              /* 1: CPU devices only, 0: any device */
    const char *platform; /* substring of the platform name, NULL: any */
    int two_blocks_up_to;
} blocks_rule[] = {
    {1, "Portable Computing Language", 5},
    {1, NULL, 0},
    {0, NULL, 5},
};

static int blocks_default(const clconv_device_info *dev, int mask_width)
{
    for (size_t i = 0; i < sizeof blocks_rule / sizeof *blocks_rule; ++i) {
        const int kind_ok =
            !blocks_rule[i].cpu || (dev && dev->kind == CLCONV_DEVICE_CPU);
        const int name_ok = !blocks_rule[i].platform ||
                            (dev && strstr(dev->platform, blocks_rule[i].platform));
        if (kind_ok && name_ok)
            return mask_width <= blocks_rule[i].two_blocks_up_to ? 2 : 1;
    }
    return 1;
}

/* COARSEN from the 16-core Xeon through PoCL at the suite's sizes
 * (bench/PERF.md item 15; the 2 local cores agree within 15%): 1D float16
 * blocks per work-item, 1 up to mask 15 (memory-bound, flat) and 8 beyond
 * (W=55: 28.6 ms at 1, 15.2 at 8); 2D rows per work-item, 4 up to mask 5
 * and 16 beyond (W=5 7.6 ms at 4, 9.4 at 16; W=9 18.7 at 16, 47 at 32;
 * W=7, one block, its march's ends peeled, item 41, on 2 local cores
 * 2.3-2.9 ms at 16 against 4.5 at 4; the 16-core Xeon 8.7 against 13.4,
 * 8192^2); 3D planes per work-item, 8 (W=3 25.6 ms, W=5 65.9 against 95
 * at 16; W=7 at 256^3 17.1-18.5 ms against 21.8-23.3 at 16, though 2
 * local cores ran 128^3 faster at 16). VEC_BLOCKS:
 * $CLCONV_VECTOR_BLOCKS, else blocks_rule. */
static void vector_defaults(const clconv_device_info *dev,
                            const clc_overrides *ov, clc_config *c)
{
    const int w = clconv_problem_mask_max(&c->p), dims = c->p.dims;
    int *k = c->knob;
    if (!k[CLC_KNOB_COARSEN])
        k[CLC_KNOB_COARSEN] = dims == 1   ? (w <= 15 ? 1 : 8)
                              : dims == 2 ? (w <= 5 ? 4 : 16)
                                          : 8;
    if (dims >= 2) {
        k[CLC_KNOB_VEC_BLOCKS] = ov && ov->vector_blocks
                                     ? ov->vector_blocks
                                     : blocks_default(dev, w);
        k[CLC_KNOB_VEC_WIDTH] = ov && ov->vector_width ? ov->vector_width
                                : dims == 2 || w <= 5   ? width_default(dev)
                                                        : VECTOR_WIDTH;
        /* VEC_PEEL: the march's ends unrolled with only the slots they
         * store (bench/PERF.md item 41), on PoCL's CPUs, where it was
         * measured: the 16-core Xeon ran 2D 8192^2 W=9 in 10.1-13.8 ms,
         * median 11.9, against 10.6-15.7, median 13.6 (bench rows, 6
         * rounds), W=11 15.9-17.9 against 17.3-28.6 (4 rounds); W=7
         * was mixed.
         * Elsewhere not, until measured: the unrolled ends make the
         * program larger (PoCL builds 2D W=9 in 3.1 s against 0.9,
         * Intel's runtime its vector test groups in 127 s against 38,
         * NVIDIA's 3D vector group did not finish in 400 s). */
        k[CLC_KNOB_VEC_PEEL] = ov && ov->vector_peel ? ov->vector_peel - 1
                                                     : clc_pocl_cpu(dev);
    }
    /* VEC_PREFETCH (3D): the rows of the plane one ahead prefetched
     * (clang's __builtin_prefetch) on PoCL's CPUs, where it was measured:
     * the 16-core Xeon ran 512x512x64 W=5 in 6.26/6.30 ms against
     * 6.88/7.72 on 16 cores and 69.4/73.9 against 79.1/77.7 on one;
     * 2 and 4 planes ahead mixed (bench/PERF.md item 65). Elsewhere
     * not: Oclgrind cannot run the intrinsic, other compilers may lack
     * the builtin. */
    if (dims == 3)
        k[CLC_KNOB_VEC_PREFETCH] = ov && ov->vector_prefetch
                                       ? ov->vector_prefetch - 1
                                       : clc_pocl_cpu(dev);
}

static void vector_geometry(const clc_config *cf, clc_geometry *g)
{
    const clconv_problem *p = &cf->p;
    const size_t t = (size_t)p->tile;
    const size_t c = (size_t)cf->knob[CLC_KNOB_COARSEN];
    const size_t per_item =
        p->dims == 1 ? VECTOR_WIDTH * c
                     : (size_t)cf->knob[CLC_KNOB_VEC_WIDTH] *
                           (size_t)cf->knob[CLC_KNOB_VEC_BLOCKS];
    g->local[0] = t;
    g->local[1] = g->local[2] = 1;
    g->global[0] = ceil_div(ceil_div(p->size[0], per_item), t) * t;
    g->global[1] = p->dims == 2   ? ceil_div(p->size[1], c)
                   : p->dims == 3 ? p->size[1]
                                  : 1;
    g->global[2] = p->dims == 3 ? ceil_div(p->size[2], c) : 1;
    g->local_floats = 0;
}

#define COARSEN(...) {"COARSEN", 1, 64, CLC_INTS(__VA_ARGS__)}
#define VEC_BLOCKS {"VEC_BLOCKS", 1, 4, {0, 0}}
#define VEC_WIDTH {"VEC_WIDTH", 8, 16, {0, 0}}
#define VEC_PEEL {"VEC_PEEL", 0, 1, {0, 0}}
#define VEC_PREFETCH {"VEC_PREFETCH", 0, 4, {0, 0}}

/* Per dims: preferred work-group size, the tuning grid of work-group
 * sizes and of blocks (1D), rows (2D) or planes (3D) per work-item. */
const clc_variant clc_variant_vector = {
    CLCONV_VECTOR, "vector",
    "float16 blocks of x outputs with vload16/vstore16 (SIMD within the "
    "work-item); 2D/3D march a queue of accumulators along y/z",
    {
        {.tile = 16,
         .bench_tiles = 1,
         .tiles = CLC_INTS(8, 16, 32),
         .knob = {COARSEN(1, 2, 4, 8)}},
        {.tile = 16,
         .bench_tiles = 1,
         .tiles = CLC_INTS(8, 16, 32),
         .knob = {COARSEN(4, 8, 16, 32),
                  [CLC_KNOB_VEC_BLOCKS] = VEC_BLOCKS,
                  [CLC_KNOB_VEC_WIDTH] = VEC_WIDTH,
                  [CLC_KNOB_VEC_PEEL] = VEC_PEEL}},
        {.tile = 16,
         .bench_tiles = 1,
         .tiles = CLC_INTS(8, 16, 32),
         .knob = {COARSEN(4, 8, 16, 32),
                  [CLC_KNOB_VEC_BLOCKS] = VEC_BLOCKS,
                  [CLC_KNOB_VEC_WIDTH] = VEC_WIDTH,
                  [CLC_KNOB_VEC_PEEL] = VEC_PEEL,
                  [CLC_KNOB_VEC_PREFETCH] = VEC_PREFETCH}},
    },
    1, vector_defaults, vector_geometry, NULL, 0, NULL};
