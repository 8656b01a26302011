/* The coarse variant: several outputs per work-item from a register queue
 * marching along the slowest axis (3D: z-marching over ROWS adjacent y
 * rows); in 1D a padded local tile. Its row in the variant table: the
 * defaults and tuning grids come from the H100 sweeps (bench/PERF.md). */
#include "internal.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* 1D: 4 outputs up to 31 taps (H100, 2^26 W=17: 0.235 ms against 0.332
 * with 8; W=31: 0.277 against 0.300), 8 up to 64 (W=55: 0.310 against
 * 0.389 with 4, 0.586 with 16), 16 beyond (the window march of the
 * separable x pass, whose sweep chose 16 at W=101 and 1001: bench/PERF.md
 * items 37 and 40); 2D: 8 rows, 16 from mask 7
 * on, work-group 64x4 (64x2 from mask 7), but 4 rows in 32x8 where a
 * work-item computes 4 or more float32 columns (wide_columns); 3D: 8
 * planes for mask 3, 16 from mask 5 on (where 2 work-items along z share
 * a work-group's planes: planes_shared_default), work-group 32x4 (16x4x2
 * where a work-item computes 2 columns: GPUs at masks 3-5; 16x2x4 where
 * that mask is 4 or 5 planes deep: group_z_default), and 3
 * rows per work-item for mask 3 (0.452 ms against 0.533 with one) or 2
 * columns, 2 beyond (1.03 against 1.29; 3 rows spill),
 * unless $CLCONV_COARSE_ROWS says otherwise (item 11). 2D: the march form
 * of today (1: private mask, unrolled) unless $CLCONV_COARSE_MARCH says 2
 * (mask in place, rolled rows), until the GPU has measured the two
 * ("2D coarse: the march rolled, the mask read in place"). */
/* 2D columns per work-item for 1- and 2-byte inputs on devices other
 * than CPUs, whose byte loads and stores would otherwise each move one
 * element: up to 8 at mask 3, 4 at mask 4 and 5, 1 beyond, and at most 8
 * bytes of input and 16 of output per row (H100 at 8192^2: u8 -> u8 W=3
 * 0.068 ms with 8 columns or 4, 0.114 with one; u8 -> f32 W=3 0.128 ms
 * with 4, 0.184 with 8, 0.151 with one; u8 -> u8 W=5 0.111 with 4, 0.119
 * with 8, 0.175 with one; W=9 0.334 with 4 against 0.321; bench/PERF.md
 * item 31). 1 (one column, the float32 kernel of the H100/H200 sweeps: 4
 * columns were 7% slower at W=3) everywhere else. */
/* 4 or more columns of 4-byte elements per work-item: each queue slot
 * holds XV floats, so fewer rows per work-item (4) in taller work-groups
 * (32 x 8, 32 x 4 from mask 9: wide_group_y) keep the registers in
 * bounds (H100, 8192^2 W=9 with 4 columns: 16 rows 2 high 0.48 ms, 4
 * rows 8 high 0.238; bench/PERF.md item 33). */
static int wide_columns(const clconv_problem *p, int xv)
{
    return xv >= 4 && clconv_elem_size(p->in_dtype) >= 4;
}

/* The work-group height with 4-byte columns: 8 (32 x 8 work-items), 4
 * from mask 9 on (H200 at 8192^2, 4 columns of 4 rows, tile 32, three
 * interleaved rounds: W=9 0.2187-0.2198 ms at 4 high against
 * 0.2252-0.2278 at 8, 76% of the floor against 74%; W=7 0.1747-0.1756
 * against 0.1688-0.1712, so 7 stays 8; W=8 not measured;
 * bench/PERF.md item 69). */
static int wide_group_y(int w)
{
    return w >= 9 ? 4 : 8;
}

/* Float32 input at masks 7 to 9 takes 4 columns too (with 4 rows per
 * work-item, 8 work-items high; H100 at 8192^2 W=9: 0.238 ms against
 * 0.308 with one column; the halo then comes from the neighbouring
 * vectors, bench/PERF.md item 33). 3D on GPUs at masks 3 to 5 takes 2
 * columns (3 rows of them, 16 x 4 work-items; bench/PERF.md item 53:
 * 512^3 W=5 0.869 ms against 1.009 with one column of 2 rows, 32 x 4;
 * 512x512x256 W=5 0.468 against 0.531, 0.476 at 32 x 4, 0.575 with 2
 * rows; 512^3 W=3 0.485 against 0.495; 256^3 W=7 0.44-0.51 against
 * 0.40). Either way at most as many columns as divide the row length
 * (the largest power of two). */
static int xv_default(const clconv_device_info *dev, const clconv_problem *p)
{
    const int w = clconv_problem_mask_max(p);
    const int in = (int)clconv_elem_size(p->in_dtype),
              out = (int)clconv_elem_size(p->out_dtype);
    if (!dev || dev->kind == CLCONV_DEVICE_CPU)
        return 1;
    int xv;
    if (p->dims == 3) {
        xv = dev->kind == CLCONV_DEVICE_GPU && w >= 3 && w <= 5 ? 2 : 1;
    } else if (in >= 4) {
        xv = in == 4 && w >= 7 && w <= 9 ? 4 : 1;
    } else {
        xv = w <= 3 ? 8 : w <= 5 ? 4 : 1;
        while (xv > 1 && (xv * in > 8 || xv * out > 16))
            xv /= 2;
    }
    /* Rows whose length is not a multiple of XV take the checked path in
     * every work-group (unaligned vectors): fewer columns instead. */
    while (xv > 1 && p->size[0] % (size_t)xv)
        xv /= 2;
    return xv;
}

/* 2D with XV >= 4 columns per work-item: a work-group 256 columns wide
 * (64 work-items at 4, 32 at 8: the H100's best for u8 at mask 3 in the
 * item 31 sweep), 32 work-items for 4-byte elements (128 columns, 8
 * high: item 33); otherwise the dims row's tile. */
static int coarse_preferred_tile(const clc_config *c)
{
    const int xv = c->knob[CLC_KNOB_XV];
    /* 1D with staged stores (masks beyond 64 taps on GPUs): 256 work-items,
     * as the separable x pass, whose halo is then 1000 inputs per 4096
     * outputs at W=1001 instead of per 2048 */
    if (c->p.dims == 1 && c->knob[CLC_KNOB_MARCH] == 3)
        return 256;
    /* 1D queue in 8 or more spans (GPUs from 55 taps): 64 work-items
     * (H200, 2^26 W=55, three interleaved rounds: 0.1821-0.1828 ms
     * against 0.1886-0.1913 at 128; bench/PERF.md item 69) */
    if (c->p.dims == 1 && c->knob[CLC_KNOB_MARCH] == 1 &&
        c->knob[CLC_KNOB_SPANS] >= 8)
        return 32;
    if (c->p.dims == 2 && xv >= 4)
        return wide_columns(&c->p, xv) ? 32 : 256 / xv;
    if (c->p.dims == 3 && xv == 2)
        return 16;
    return clc_variant_coarse.dims[c->p.dims - 1].tile;
}

/* 1D march: on GPUs the queue (1) up to 64 taps (the window ran alike
 * at W=9 and 55 on the H100 and 4.5% slower at W=5), beyond the window
 * with staged stores (3: its build takes seconds where the queue's
 * unrolled march takes minutes; 1D 2^26 W=1001 at 16 outputs per
 * work-item 4.04-4.05 ms, 4.08 without the staging); on CPUs the window
 * (2: 2.5x the queue at W=55 on PoCL). bench/PERF.md item 39. */
static int march1d_default(const clconv_device_info *dev, int w)
{
    if (dev && dev->kind == CLCONV_DEVICE_CPU)
        return 2;
    return w <= 64 ? 1 : 3;
}

/* 1D spans per work-group: 8 on GPUs for the queue from 55 taps (H100,
 * 2^26 W=55: 0.271 ms against 0.309 with one; 2 spans 0.336, 16 0.272,
 * 32 0.277), 1 elsewhere (W=31 with 8: 0.418 against 0.290; W=17 0.435
 * against 0.333; W=5 and 9 with 4: 0.228 and 0.284 against 0.196 and
 * 0.199); bench/PERF.md item 40. */
static int spans1d_default(const clconv_device_info *dev, int w, int march)
{
    if (dev && dev->kind == CLCONV_DEVICE_CPU)
        return 1;
    return march == 1 && w >= 55 ? 8 : 1;
}

/* 3D: work-items along z sharing a work-group's planes (each marches its
 * share once, the partial sums at the boundaries through local memory:
 * cl/conv3d_coarse.cl, bench/PERF.md item 61). GPUs at masks 3-5 (2
 * columns of 3 rows) take 2 (16 x 4 x 2 work-items), and 4 (16 x 2 x 4)
 * where the mask is 4 or 5 planes deep (H200, three interleaved rounds:
 * 512^3 W=5 0.712-0.715 ms against 0.741-0.743, W=4 0.467-0.471 against
 * 0.487-0.489, 256^3 W=5 0.120-0.123 against 0.138-0.140; W=3 0.350-0.351
 * against 0.343-0.345 with 2; bench/PERF.md item 70), their planes per
 * work-item chosen below; elsewhere 1, unless $CLCONV_COARSE_GZ says
 * otherwise. The kernel needs a mask more than one plane deep and at
 * least MASK_Z - 1 planes a work-item: else 1. */
static int group_z_default(const clc_overrides *ov, const clc_config *c)
{
    if (ov && ov->coarse_gz)
        return ov->coarse_gz;
    if (c->knob[CLC_KNOB_XV] != 2)
        return 1;
    return clconv_problem_mask_axis(&c->p, 2) >= 4 ? 4 : 2;
}

static int group_z_fitted(const clc_config *c, int gz)
{
    const int mz = clconv_problem_mask_axis(&c->p, 2);
    return mz >= 2 && c->knob[CLC_KNOB_COARSEN] + (mz - 1) / gz >= mz - 1
               ? gz
               : 1;
}

/* Planes per work-item where gz share a work-group: a work-group's
 * planes as found for 2 along z (H100, 2 columns of 3 rows;
 * bench/PERF.md item 61), shared out among gz. For 2: 8 per plane of the
 * mask's depth beyond the first, 8 to 32 (the group's two ends then
 * waste at most a sixteenth of the FMAs: 512^3 W=5 0.789 ms at 32
 * against 0.813 at 16, 0.826 at 48 or 64; W=3 0.438 at 16 against 0.459
 * at 32), halved while the work-items would not fill the device once (a
 * compute unit holding 1024: 256^3 W=5 0.138 ms at 16 against 0.150 at
 * 32, 0.143 at 8). */
static int planes_shared_default(const clconv_device_info *dev,
                                 const clc_config *c, int rows, int gz)
{
    const clconv_problem *p = &c->p;
    const int mz = clconv_problem_mask_axis(p, 2);
    int planes = mz <= 2 ? 8 : mz >= 5 ? 32 : 8 * (mz - 1);
    const size_t plane_items =
        ceil_div(p->size[0], (size_t)c->knob[CLC_KNOB_XV]) *
        ceil_div(p->size[1], (size_t)rows);
    while (dev && planes > 8 &&
           plane_items * ceil_div(p->size[2], (size_t)planes) <
               (size_t)dev->compute_units * 1024)
        planes /= 2;
    return gz > 2 ? planes * 2 / gz : planes;
}

static void coarse_geometry(const clc_config *cf, clc_geometry *g);

/* 1D outputs per work-item: 4 up to 31 taps, 8 to 64, 16 beyond; 12 for
 * the queue in 8 or more spans (GPUs at 55-64 taps), whose runs the
 * padding reads at constant offsets (H200, 2^26 W=55 at tile 32: 0.1639
 * ms against 0.1784 with 8; bench/PERF.md item 71). */
static int coarsen1d_default(const int *k, int w)
{
    if (k[CLC_KNOB_MARCH] == 1 && k[CLC_KNOB_SPANS] >= 8)
        return 12;
    return w <= 31 ? 4 : w <= 64 ? 8 : 16;
}

static void coarse_defaults(const clconv_device_info *dev,
                            const clc_overrides *ov, clc_config *c)
{
    const int w = clconv_problem_mask_max(&c->p), dims = c->p.dims;
    int *k = c->knob;
    const int rows_chosen = k[CLC_KNOB_GROUP_Y] != 0;
    if (dims == 2) {
        /* Beyond 21x21 taps the mask is read in place (march 2): a
         * private copy of 523x523 floats overflowed PoCL's work-item
         * stack (a crash), and on the H100 at 2048^2 the private copy
         * collapsed from 25x25 on (bench/PERF.md item 47, 16 rows a
         * work-item: 25x25 4.46 ms against 0.204 in place, 31x31 6.42
         * against 0.337; 21x21 0.156 against 0.142). PoCL on 2 cores at
         * 512^2: 25x25 40.8 against 35.9 ms, 31x31 69.5 against 49.5. */
        k[CLC_KNOB_MARCH] =
            ov && ov->coarse_march && ov->coarse_march <= 2
                ? ov->coarse_march
            : clconv_problem_mask_elements(&c->p) > 441 ? 2
                                                        : 1;
    }
    if (dims == 1) {
        k[CLC_KNOB_MARCH] = ov && ov->coarse_march ? ov->coarse_march
                                                   : march1d_default(dev, w);
        k[CLC_KNOB_SPANS] = ov && ov->coarse_spans ? ov->coarse_spans
                            : spans1d_default(dev, w, k[CLC_KNOB_MARCH]);
    }
    if (dims >= 2)
        k[CLC_KNOB_XV] = ov && ov->coarse_xv ? ov->coarse_xv
                                             : xv_default(dev, &c->p);
    const int wide = dims == 2 && wide_columns(&c->p, k[CLC_KNOB_XV]);
    if (!k[CLC_KNOB_COARSEN] && dims < 3)
        k[CLC_KNOB_COARSEN] = dims == 1   ? coarsen1d_default(k, w)
                              : wide      ? 4
                                          : (w >= 7 ? 16 : 8);
    if (dims == 1)
        k[CLC_KNOB_GROUP_Y] = 1; /* the 1D kernel has one row */
    else if (!k[CLC_KNOB_GROUP_Y] && dims == 2)
        k[CLC_KNOB_GROUP_Y] = wide ? wide_group_y(w) : w >= 7 ? 2 : 4;
    if (dims == 3) {
        k[CLC_KNOB_ROWS] = ov && ov->coarse_rows       ? ov->coarse_rows
                           : w <= 3 || k[CLC_KNOB_XV] == 2 ? 3
                                                           : 2;
        const int gz = group_z_default(ov, c);
        /* 4 along z in 2-high work-groups: the 128 work-items of 2 */
        if (!k[CLC_KNOB_GROUP_Y])
            k[CLC_KNOB_GROUP_Y] = gz >= 4 ? 2 : 4;
        if (!k[CLC_KNOB_COARSEN])
            k[CLC_KNOB_COARSEN] =
                gz > 1 ? planes_shared_default(dev, c, k[CLC_KNOB_ROWS], gz)
                       : (w <= 3 ? 8 : 16);
        k[CLC_KNOB_GROUP_Z] = group_z_fitted(c, gz);
        /* A tile the caller chose that fits the device with one
         * work-item along z but not with gz takes one (the knob is the
         * variant's, not the caller's); a default tile is fitted to gz. */
        if (dev && c->p.tile > 0 && k[CLC_KNOB_GROUP_Z] > 1) {
            clc_geometry g;
            coarse_geometry(c, &g);
            if (!clc_geometry_check(dev, 3, &g, NULL, 0))
                k[CLC_KNOB_GROUP_Z] = 1;
        }
    }
    /* The default rows of a work-group halved until one column of them
     * fits the device (at 1 to 3 work-items, POCL_MAX_WORK_GROUP_SIZE, 2D
     * and 3D coarse's 4 rows were unsupported at every tile). */
    clc_config one = *c;
    one.p.tile = 1;
    clc_geometry g;
    while (dev && dims >= 2 && !rows_chosen && one.knob[CLC_KNOB_GROUP_Y] > 1 &&
           (coarse_geometry(&one, &g), !clc_geometry_check(dev, dims, &g,
                                                           NULL, 0)))
        one.knob[CLC_KNOB_GROUP_Y] /= 2;
    k[CLC_KNOB_GROUP_Y] = one.knob[CLC_KNOB_GROUP_Y];
}

static void coarse_geometry(const clc_config *cf, clc_geometry *g)
{
    const clconv_problem *p = &cf->p;
    const size_t t = (size_t)p->tile, c = (size_t)cf->knob[CLC_KNOB_COARSEN];
    const size_t gy = (size_t)cf->knob[CLC_KNOB_GROUP_Y];
    /* columns per work-item (2D, 3D; 1D has none) */
    const size_t xv = (size_t)(cf->knob[CLC_KNOB_XV] > 0
                                   ? cf->knob[CLC_KNOB_XV] : 1);
    g->local[0] = t;
    g->local[1] = g->local[2] = 1;
    g->global[1] = g->global[2] = 1;
    g->local_floats = 0;
    if (p->dims == 1) {
        /* A work-group computes spans of t * c outputs from a local
         * tile. */
        const size_t spans = (size_t)(cf->knob[CLC_KNOB_SPANS] > 0
                                          ? cf->knob[CLC_KNOB_SPANS] : 1);
        g->global[0] = ceil_div(p->size[0], t * c * spans) * t;
        /* padded as cl/conv1d_coarse.cl's PAD: one float per COARSEN
         * (clc_pad_len) */
        const size_t n = t * c + (size_t)clconv_problem_mask_axis(p, 0) - 1;
        g->local_floats = clc_pad_len(n, c);
        if (cf->knob[CLC_KNOB_MARCH] == 3) /* the staging row */
            g->local_floats += clc_pad_len(t * c, c);
    } else if (p->dims == 2) {
        /* t x gy work-items, each c rows of xv columns. */
        g->local[1] = gy;
        g->global[0] = ceil_div(p->size[0], t * xv) * t;
        g->global[1] = ceil_div(p->size[1], gy * c) * gy;
    } else {
        /* t x gy work-items, each marching c planes of `rows` rows of xv
         * columns. */
        const size_t rows = (size_t)cf->knob[CLC_KNOB_ROWS];
        const size_t gz = (size_t)(cf->knob[CLC_KNOB_GROUP_Z] > 0
                                       ? cf->knob[CLC_KNOB_GROUP_Z] : 1);
        g->local[1] = gy;
        g->local[2] = gz;
        g->global[0] = ceil_div(p->size[0], t * xv) * t;
        g->global[1] = ceil_div(p->size[1], gy * rows) * gy;
        g->global[2] = ceil_div(p->size[2], c * gz) * gz;
        /* the partial sums at the gz - 1 boundaries between them */
        g->local_floats = (gz - 1) *
                          (size_t)(clconv_problem_mask_axis(p, 2) - 1) * rows *
                          xv * t * gy;
    }
}

/* 3D with work-items along z: each marches COARSEN of its work-group's
 * planes, and the outputs at the boundaries between them add two partial
 * sums (cl/conv3d_coarse.cl), at multiples of GROUP_Z COARSEN planes from
 * the launch's first plane plus fixed offsets. */
static size_t coarse_split_rows(const clc_config *c)
{
    const int gz = c->knob[CLC_KNOB_GROUP_Z];
    return c->p.dims == 3 && gz > 1
               ? (size_t)gz * (size_t)c->knob[CLC_KNOB_COARSEN]
               : 1;
}

#define COARSEN(...) {"COARSEN", 1, 64, CLC_INTS(__VA_ARGS__)}
#define GROUP_Y(...) {"GROUP_Y", 1, 1024, CLC_INTS(__VA_ARGS__)}

/* Per dims: preferred x extent, then the tuning grid: x extents (tile), y
 * extents (group_y; 1D has one row) and outputs per work-item. */
const clc_variant clc_variant_coarse = {
    CLCONV_COARSE, "coarse",
    "several outputs per work-item from a register queue along the slowest "
    "axis (3D: z-marching)",
    {
        {.tile = 128,
         .tiles = CLC_INTS(64, 128, 256, 512),
         .knob = {COARSEN(1, 2, 4, 8), {"GROUP_Y", 1, 1, CLC_INTS(0)},
                  [CLC_KNOB_MARCH] = {"MARCH", 1, 3, {0, 0}},
                  [CLC_KNOB_SPANS] = {"SPANS", 1, 64, {0, 0}}}},
        {.tile = 64,
         .tiles = CLC_INTS(16, 32, 64, 128),
         .knob = {COARSEN(1, 2, 4, 8, 16), GROUP_Y(1, 2, 4, 8),
                  [CLC_KNOB_MARCH] = {"MARCH", 1, 2, {0, 0}},
                  [CLC_KNOB_XV] = {"XV", 1, 16, {0, 0}}}},
        {.tile = 32,
         .tiles = CLC_INTS(16, 32, 64),
         .knob = {COARSEN(4, 8, 16, 32), GROUP_Y(2, 4, 8),
                  [CLC_KNOB_ROWS] = {"ROWS", 1, 8, {0, 0}},
                  [CLC_KNOB_XV] = {"XV", 1, 16, {0, 0}},
                  [CLC_KNOB_GROUP_Z] = {"GROUP_Z", 1, 8, {0, 0}}}},
    },
    1, coarse_defaults, coarse_geometry, coarse_preferred_tile,
    /* extents baked from mask 5 (H100, bench rows: 512^3 W=5 65.5 -> 67.5%
     * of the FMA floor, W=7 54.5 -> 57.5%; W=3 and 4 lost 1%) */
    5, coarse_split_rows};
