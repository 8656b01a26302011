/* 2D vector: each work-item computes VEC_WIDTH consecutive outputs of one
 * row with explicit vector loads and stores (vload16/vstore16), so the
 * arithmetic is SIMD within the work-item whether or not the compiler
 * vectorizes across work-items (PoCL on CPUs does not for these kernels:
 * bench/PERF.md). Interior work-items take a path without bounds checks;
 * the others compute their outputs one by one with ghost cells as 0. */
#define VEC_WIDTH 16

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv2d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    const int x0 = get_global_id(0) * VEC_WIDTH;
    const int y = get_global_id(1);
    if (x0 >= nx)
        return;
    if (x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx && y >= RADIUS &&
        y + RADIUS < ny) {
        float16 acc = (float16)(0.0f);
        for (int jy = 0; jy < MASK_WIDTH; ++jy) {
            const __global float *row = N + (y - RADIUS + jy) * nx + x0 - RADIUS;
            for (int jx = 0; jx < MASK_WIDTH; ++jx)
                acc += vload16(0, row + jx) * M[jy * MASK_WIDTH + jx];
        }
        vstore16(acc, 0, P + y * nx + x0);
        return;
    }
    for (int x = x0; x < x0 + VEC_WIDTH && x < nx; ++x)
        P[y * nx + x] = conv2d_at(N, M, nx, ny, x, y COUNTERS_ARG);
}
