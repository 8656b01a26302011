/* 2D naive baseline: one work-item per output, every operand from global
 * memory. Work-group: TILE_WIDTH x TILE_WIDTH work-items. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, 1)))
void conv2d_naive(const __global float *restrict N, __global float *restrict P,
                  __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= nx || y >= ny)
        return;
    float acc = 0.0f;
    for (int jy = 0; jy < MASK_WIDTH; ++jy) {
        const int gy = y - RADIUS + jy;
        if (gy < 0 || gy >= ny)
            continue;
        for (int jx = 0; jx < MASK_WIDTH; ++jx) {
            const int gx = x - RADIUS + jx;
            if (gx >= 0 && gx < nx)
                acc += LOAD_N(gy * nx + gx) * M[jy * MASK_WIDTH + jx];
        }
    }
    P[y * nx + x] = acc;
}
