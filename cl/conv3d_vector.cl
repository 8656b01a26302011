/* 3D vector: each work-item computes VEC_WIDTH consecutive outputs of one
 * x row with explicit vector loads and stores (see conv2d_vector.cl). */
#define VEC_WIDTH 16

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv3d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny,
                   const int nz COUNTERS_PARAM)
{
    const int x0 = get_global_id(0) * VEC_WIDTH;
    const int y = get_global_id(1), z = get_global_id(2);
    if (x0 >= nx)
        return;
    if (x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx && y >= RADIUS &&
        y + RADIUS < ny && z >= RADIUS && z + RADIUS < nz) {
        float16 acc = (float16)(0.0f);
        for (int jz = 0; jz < MASK_WIDTH; ++jz)
            for (int jy = 0; jy < MASK_WIDTH; ++jy) {
                const __global float *row =
                    N + ((z - RADIUS + jz) * ny + (y - RADIUS + jy)) * nx + x0 -
                    RADIUS;
                __constant float *m = M + (jz * MASK_WIDTH + jy) * MASK_WIDTH;
                for (int jx = 0; jx < MASK_WIDTH; ++jx)
                    acc += vload16(0, row + jx) * m[jx];
            }
        vstore16(acc, 0, P + (z * ny + y) * nx + x0);
        return;
    }
    for (int x = x0; x < x0 + VEC_WIDTH && x < nx; ++x)
        P[(z * ny + y) * nx + x] =
            conv3d_at(N, M, nx, ny, nz, x, y, z COUNTERS_ARG);
}
