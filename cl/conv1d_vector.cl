/* 1D vector: each work-item computes COARSEN blocks of VEC_WIDTH
 * consecutive outputs with explicit vector loads and stores (vec_row in
 * common.clh), so the arithmetic is SIMD within the work-item whether or
 * not the compiler vectorizes across work-items (PoCL on CPUs does not for
 * these kernels: bench/PERF.md). In the interior each mask coefficient is
 * read once per tap for all COARSEN blocks (bench/PERF.md item 14). */
#ifndef COARSEN
#error "build with -D COARSEN=<float16 blocks per work-item>"
#endif

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_vector(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    BATCH_MEMBER(1, nx);
    const int x0 = get_global_id(0) * (VEC_WIDTH * COARSEN);
    if (x0 >= nx)
        BATCH_DONE;
    if (x0 >= LEFT_X && x0 + VEC_WIDTH * COARSEN + RIGHT_X <= nx) {
        floatv acc[COARSEN];
#pragma unroll
        for (int b = 0; b < COARSEN; ++b)
            acc[b] = (floatv)(0.0f);
        const __global IN_T *in = N + x0 - LEFT_X;
        for (int j = 0; j < MASK_X; ++j) {
            const float m = M[j];
#pragma unroll
            for (int b = 0; b < COARSEN; ++b)
                acc[b] += CLC_LDV(in + b * VEC_WIDTH + j) * m;
        }
#pragma unroll
        for (int b = 0; b < COARSEN; ++b)
            CLC_STV(acc[b], P + x0 + b * VEC_WIDTH);
        BATCH_DONE;
    }
    for (int b = 0; b < COARSEN; ++b) {
        const int xb = x0 + b * VEC_WIDTH;
        if (xb >= nx)
            break;
        const bool inside = xb >= LEFT_X && xb + VEC_WIDTH + RIGHT_X <= nx;
        vec_store(vec_row(N, M, xb, nx, inside), P, xb, nx);
    }
    BATCH_END
}
