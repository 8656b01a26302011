/* 2D strategy 1: the work-group covers a TILE_WIDTH^2 output tile; the
 * IN_TILE^2 input tile (halos included) is loaded into local memory in as
 * many steps as it takes, ghost cells as 0; then every work-item computes. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, 1)))
void conv2d_output_tile(const __global float *restrict N,
                        __global float *restrict P, __constant float *M,
                        const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE][IN_TILE];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;

    for (int t = ly * TILE_WIDTH + lx; t < IN_TILE * IN_TILE;
         t += TILE_WIDTH * TILE_WIDTH) {
        const int tx = t % IN_TILE, ty = t / IN_TILE;
        const int gx = ox - RADIUS + tx, gy = oy - RADIUS + ty;
        tile[ty][tx] = (gx >= 0 && gx < nx && gy >= 0 && gy < ny)
                           ? LOAD_N(gy * nx + gx)
                           : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly;
    if (x >= nx || y >= ny)
        return;
    float acc = 0.0f;
    for (int jy = 0; jy < MASK_WIDTH; ++jy)
        for (int jx = 0; jx < MASK_WIDTH; ++jx)
            acc += READ_TILE(tile[ly + jy][lx + jx]) * M[jy * MASK_WIDTH + jx];
    P[y * nx + x] = acc;
}
