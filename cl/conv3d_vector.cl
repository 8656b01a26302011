/* 3D vector: each work-item computes VEC_WIDTH consecutive outputs of one
 * x row with explicit vector loads and stores (see conv2d_vector.cl). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv3d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny,
                   const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_WIDTH;
    const int y = get_global_id(1), z = get_global_id(2);
    if (x0 >= nx)
        return;
    const bool x_inside = x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx;
    float16 acc = (float16)(0.0f);
    if (x_inside && y >= RADIUS && y + RADIUS < ny && z >= RADIUS &&
        z + RADIUS < nz) {
        for (int jz = 0; jz < MASK_WIDTH; ++jz)
            for (int jy = 0; jy < MASK_WIDTH; ++jy)
                acc += vec_row(
                    N + ((z - RADIUS + jz) * ny + (y - RADIUS + jy)) * nx,
                    M + (jz * MASK_WIDTH + jy) * MASK_WIDTH, x0, nx, true);
    } else {
        for (int jz = 0; jz < MASK_WIDTH; ++jz) {
            const int gz = z - RADIUS + jz;
            if (gz < 0 || gz >= nz)
                continue;
            for (int jy = 0; jy < MASK_WIDTH; ++jy) {
                const int gy = y - RADIUS + jy;
                if (gy >= 0 && gy < ny)
                    acc += vec_row(N + (gz * ny + gy) * nx,
                                   M + (jz * MASK_WIDTH + jy) * MASK_WIDTH, x0,
                                   nx, x_inside);
            }
        }
    }
    vec_store(acc, P + (z * ny + y) * nx, x0, nx);
}
