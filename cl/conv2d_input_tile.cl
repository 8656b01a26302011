/* 2D strategy 2: the work-group covers an IN_TILE_X x IN_TILE_Y input
 * tile; each work-item loads one element (the border mode's value outside
 * the input); only the inner
 * TILE_WIDTH^2 work-items compute. */
__kernel __attribute__((reqd_work_group_size(IN_TILE_X, IN_TILE_Y, 1)))
void conv2d_input_tile(const __global IN_T *restrict N,
                       __global OUT_T *restrict P, __constant float *M,
                       const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE_Y][IN_TILE_X];
    BATCH_MEMBER_LOCAL(2, (size_t)nx * ny);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int gx = ox - LEFT_X + lx, gy = oy - LEFT_Y + ly;

    tile[ly][lx] = clc_load3(N, gx, gy, 0, nx, ny, 1 COUNTERS_ARG);
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly;
    if (lx >= TILE_WIDTH || ly >= TILE_WIDTH || x >= nx || y >= ny)
        BATCH_DONE;
    float acc = 0.0f;
    for (int jy = 0; jy < MASK_Y; ++jy)
        for (int jx = 0; jx < MASK_X; ++jx)
            acc += READ_TILE(tile[ly + jy][lx + jx]) * M[jy * MASK_X + jx];
    CLC_ST(P, y * nx + x, acc);
    BATCH_END
}
