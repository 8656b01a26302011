/* 3D naive baseline: one work-item per output, every operand from global
 * memory. Work-group: TILE_WIDTH^3 work-items. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, TILE_WIDTH)))
void conv3d_naive(const __global float *restrict N, __global float *restrict P,
                  __constant float *M, const int nx, const int ny,
                  const int nz COUNTERS_PARAM)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz)
        return;
    float acc = 0.0f;
    for (int jz = 0; jz < MASK_WIDTH; ++jz) {
        const int gz = z - RADIUS + jz;
        if (gz < 0 || gz >= nz)
            continue;
        for (int jy = 0; jy < MASK_WIDTH; ++jy) {
            const int gy = y - RADIUS + jy;
            if (gy < 0 || gy >= ny)
                continue;
            for (int jx = 0; jx < MASK_WIDTH; ++jx) {
                const int gx = x - RADIUS + jx;
                if (gx >= 0 && gx < nx)
                    acc += LOAD_N((gz * ny + gy) * nx + gx) *
                           M[(jz * MASK_WIDTH + jy) * MASK_WIDTH + jx];
            }
        }
    }
    P[(z * ny + y) * nx + x] = acc;
}
