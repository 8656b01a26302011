/* 2D strategy 1: the work-group covers a TILE_WIDTH^2 output tile; the
 * IN_TILE_X x IN_TILE_Y input tile (halos included) is loaded into local
 * memory in as many steps as it takes, with the border mode's values
 * outside the input; then every work-item computes. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, 1)))
void conv2d_output_tile(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
                        const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE_Y][IN_TILE_X];
    BATCH_MEMBER_LOCAL(2, (size_t)nx * ny);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;

    for (int t = ly * TILE_WIDTH + lx; t < IN_TILE_X * IN_TILE_Y;
         t += TILE_WIDTH * TILE_WIDTH) {
        const int tx = t % IN_TILE_X, ty = t / IN_TILE_X;
        const int gx = ox - LEFT_X + tx, gy = oy - LEFT_Y + ty;
        tile[ty][tx] = clc_load3(N, gx, gy, 0, nx, ny, 1 COUNTERS_ARG);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly;
    if (x >= nx || y >= ny)
        BATCH_DONE;
    float acc = 0.0f;
    for (int jy = 0; jy < MASK_Y; ++jy)
        for (int jx = 0; jx < MASK_X; ++jx)
            acc += READ_TILE(tile[ly + jy][lx + jx]) * M[jy * MASK_X + jx];
    CLC_ST(P, y * nx + x, acc);
    BATCH_END
}
