/* 2D vector: each work-item computes VEC_WIDTH consecutive outputs of one
 * row with explicit vector loads and stores (vec_row in common.clh), so
 * the arithmetic is SIMD within the work-item whether or not the compiler
 * vectorizes across work-items (PoCL on CPUs does not for these kernels:
 * bench/PERF.md). Interior work-items take a path without any check;
 * border ones skip the rows outside the input and window the x borders. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv2d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_WIDTH;
    const int y = get_global_id(1);
    if (x0 >= nx)
        return;
    const bool x_inside = x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx;
    float16 acc = (float16)(0.0f);
    if (x_inside && y >= RADIUS && y + RADIUS < ny) {
        for (int jy = 0; jy < MASK_WIDTH; ++jy)
            acc += vec_row(N + (y - RADIUS + jy) * nx, M + jy * MASK_WIDTH, x0,
                           nx, true);
    } else {
        for (int jy = 0; jy < MASK_WIDTH; ++jy) {
            const int gy = y - RADIUS + jy;
            if (gy >= 0 && gy < ny)
                acc += vec_row(N + gy * nx, M + jy * MASK_WIDTH, x0, nx,
                               x_inside);
        }
    }
    vec_store(acc, P + y * nx, x0, nx);
}
