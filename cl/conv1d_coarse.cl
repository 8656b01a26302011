/* 1D coarse: a work-group of TILE_WIDTH work-items computes
 * TILE_WIDTH * COARSEN outputs. It loads its input tile (halos included,
 * the border mode's values outside the input) into local memory with coalesced loads, then each
 * work-item marches over its COARSEN consecutive outputs' inputs once,
 * adding each element into a queue of MASK_X accumulators (slot s holds
 * output p+LEFT_X-(W-1)+s, which input p meets with mask tap W-1-s):
 * COARSEN+W-1 local
 * reads for COARSEN outputs instead of W per output. The tile is padded by
 * one float per 32 so work-items reading COARSEN apart hit distinct banks. */
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif

#define SPAN (TILE_WIDTH * COARSEN)
#define TILE_LEN (SPAN + MASK_X - 1)
#define PAD(i) ((i) + (i) / 32)

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_coarse(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[PAD(TILE_LEN) + 1];
    BATCH_MEMBER_LOCAL(1, nx);
    float m[MASK_X];
    for (int j = 0; j < MASK_X; ++j)
        m[j] = M[j];
    const int lx = get_local_id(0);
    const int out0 = get_group_id(0) * SPAN;
    const int in0 = out0 - LEFT_X;
    for (int t = lx; t < TILE_LEN; t += TILE_WIDTH) {
        const int g = in0 + t;
        tile[PAD(t)] = clc_load3(N, g, 0, 0, nx, 1, 1 COUNTERS_ARG);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int b = lx * COARSEN; /* first output, relative to out0 */
    float q[MASK_X];
    for (int s = 0; s < MASK_X; ++s)
        q[s] = 0.0f;
#pragma unroll
    for (int k = 0; k < COARSEN + MASK_X - 1; ++k) {
        const float v = READ_TILE(tile[PAD(b + k)]);
        for (int s = 0; s < MASK_X; ++s)
            q[s] += v * m[MASK_X - 1 - s];
        const int i = out0 + b + k - (MASK_X - 1);
        if (k >= MASK_X - 1 && i < nx)
            CLC_ST(P, i, q[0]);
        for (int s = 0; s < MASK_X - 1; ++s)
            q[s] = q[s + 1];
        q[MASK_X - 1] = 0.0f;
    }
    BATCH_END
}
