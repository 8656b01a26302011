/* One pass of a separable filter: the 1D mask SEP_MASK_VALUES (MASK_WIDTH
 * taps, compiled in as constants like the "baked" mask mode) correlated
 * along axis AXIS (0 = x, 1 = y, 2 = z) of an nx x ny x nz array, ghost
 * cells 0, centred on MASK_WIDTH / 2:
 *   out[.., i, ..] = sum_j in[.., i - R + j, ..] * m[j].
 * The host (host/lib/separable.c) runs one pass per axis, x first, the
 * intermediates staying on the device.
 *
 * AXIS 0: a work-group of TILE_WIDTH work-items loads TILE_WIDTH * COARSEN
 * consecutive outputs' inputs of one row (halo included) into local memory
 * with coalesced loads; each work-item then computes COARSEN outputs
 * TILE_WIDTH apart, so neighbouring work-items read neighbouring words.
 * AXIS 1 and 2: one work-item per x column (reads coalesced along x), each
 * marching COARSEN consecutive outputs along the axis with a register
 * window of COARSEN inputs that slides one row per tap: COARSEN + W - 1
 * loads for COARSEN outputs, no local memory, no barrier. */
#ifndef AXIS
#error "build with -D AXIS=<0, 1 or 2>"
#endif
#ifndef MASK_WIDTH
#error "build with -D MASK_WIDTH=<odd width>"
#endif
#ifndef TILE_WIDTH
#error "build with -D TILE_WIDTH=<work-items along x>"
#endif
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif
#ifndef SEP_MASK_VALUES
#error "build with -D SEP_MASK_VALUES=<MASK_WIDTH floats>"
#endif

#define RADIUS (MASK_WIDTH / 2)

__constant float sep_mask[MASK_WIDTH] = {SEP_MASK_VALUES};

#if AXIS == 0
#define SPAN (TILE_WIDTH * COARSEN)
#define TILE_LEN (SPAN + MASK_WIDTH - 1)

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void sep_pass(const __global float *restrict in, __global float *restrict out,
              const int nx, const int ny, const int nz)
{
    __local float tile[TILE_LEN];
    const int lx = get_local_id(0);
    const int row = (get_global_id(2) * ny + get_global_id(1)) * nx;
    const int x0 = get_group_id(0) * SPAN;
    for (int t = lx; t < TILE_LEN; t += TILE_WIDTH) {
        const int g = x0 - RADIUS + t;
        tile[t] = (g >= 0 && g < nx) ? in[row + g] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int c = 0; c < COARSEN; ++c) {
        const int o = c * TILE_WIDTH + lx;
        float acc = 0.0f;
        for (int j = 0; j < MASK_WIDTH; ++j)
            acc += tile[o + j] * sep_mask[j];
        if (x0 + o < nx)
            out[row + x0 + o] = acc;
    }
}
#else
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void sep_pass(const __global float *restrict in, __global float *restrict out,
              const int nx, const int ny, const int nz)
{
    const int x = get_global_id(0);
    if (x >= nx)
        return;
#if AXIS == 1
    const int len = ny, stride = nx;
    const int base = get_global_id(2) * nx * ny + x;
#else
    const int len = nz, stride = nx * ny;
    const int base = get_global_id(2) * nx + x;
#endif
    const int a0 = get_global_id(1) * COARSEN;
    float win[COARSEN], acc[COARSEN];
    for (int c = 0; c < COARSEN; ++c) {
        const int r = a0 - RADIUS + c;
        win[c] = (r >= 0 && r < len) ? in[base + r * stride] : 0.0f;
        acc[c] = 0.0f;
    }
    for (int j = 0; j < MASK_WIDTH; ++j) {
        const float m = sep_mask[j];
        for (int c = 0; c < COARSEN; ++c)
            acc[c] += win[c] * m;
        for (int c = 0; c < COARSEN - 1; ++c)
            win[c] = win[c + 1];
        const int r = a0 - RADIUS + j + COARSEN;
        win[COARSEN - 1] = (r >= 0 && r < len) ? in[base + r * stride] : 0.0f;
    }
    for (int c = 0; c < COARSEN && a0 + c < len; ++c)
        out[base + (a0 + c) * stride] = acc[c];
}
#endif
