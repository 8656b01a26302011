/* 1D vector: each work-item computes VEC_WIDTH consecutive outputs with
 * explicit vector loads and stores (vec_row in common.clh), so the
 * arithmetic is SIMD within the work-item whether or not the compiler
 * vectorizes across work-items (PoCL on CPUs does not for these kernels:
 * bench/PERF.md). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_WIDTH;
    if (x0 >= nx)
        return;
    const bool x_inside = x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx;
    vec_store(vec_row(N, M, x0, nx, x_inside), P, x0, nx);
}
