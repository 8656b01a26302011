/* 3D strategy 1: the work-group covers a TILE_WIDTH^3 output tile; the
 * IN_TILE_X x IN_TILE_Y x IN_TILE_Z input tile (halos included) is loaded
 * into local memory in as many steps as it takes, with the border mode's
 * values outside the input; then every work-item computes. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, TILE_WIDTH)))
void conv3d_output_tile(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
                        const int nx, const int ny, const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE_Z][IN_TILE_Y][IN_TILE_X];
    const int lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int oz = get_group_id(2) * TILE_WIDTH;

    for (int t = (lz * TILE_WIDTH + ly) * TILE_WIDTH + lx;
         t < IN_TILE_X * IN_TILE_Y * IN_TILE_Z;
         t += TILE_WIDTH * TILE_WIDTH * TILE_WIDTH) {
        const int tx = t % IN_TILE_X, ty = (t / IN_TILE_X) % IN_TILE_Y,
                  tz = t / (IN_TILE_X * IN_TILE_Y);
        const int gx = ox - LEFT_X + tx, gy = oy - LEFT_Y + ty,
                  gz = oz - LEFT_Z + tz;
        tile[tz][ty][tx] = clc_load3(N, gx, gy, gz, nx, ny, nz COUNTERS_ARG);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly, z = oz + lz;
    if (x >= nx || y >= ny || z >= nz)
        return;
    float acc = 0.0f;
    for (int jz = 0; jz < MASK_Z; ++jz)
        for (int jy = 0; jy < MASK_Y; ++jy)
            for (int jx = 0; jx < MASK_X; ++jx)
                acc += READ_TILE(tile[lz + jz][ly + jy][lx + jx]) *
                       M[(jz * MASK_Y + jy) * MASK_X + jx];
    CLC_ST(P, (z * ny + y) * nx + x, acc);
}
