/* 3D strategy 2: the work-group covers an IN_TILE_X x IN_TILE_Y x
 * IN_TILE_Z input tile; each work-item loads one element (the border
 * mode's value outside the input); only the inner
 * TILE_WIDTH^3 work-items compute. */
__kernel __attribute__((reqd_work_group_size(IN_TILE_X, IN_TILE_Y, IN_TILE_Z)))
void conv3d_input_tile(const __global IN_T *restrict N,
                       __global OUT_T *restrict P, __constant float *M,
                       const int nx, const int ny, const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE_Z][IN_TILE_Y][IN_TILE_X];
    const int lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int oz = get_group_id(2) * TILE_WIDTH;
    const int gx = ox - LEFT_X + lx, gy = oy - LEFT_Y + ly,
              gz = oz - LEFT_Z + lz;

    tile[lz][ly][lx] = clc_load3(N, gx, gy, gz, nx, ny, nz COUNTERS_ARG);
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly, z = oz + lz;
    if (lx >= TILE_WIDTH || ly >= TILE_WIDTH || lz >= TILE_WIDTH || x >= nx ||
        y >= ny || z >= nz)
        return;
    float acc = 0.0f;
    for (int jz = 0; jz < MASK_Z; ++jz)
        for (int jy = 0; jy < MASK_Y; ++jy)
            for (int jx = 0; jx < MASK_X; ++jx)
                acc += READ_TILE(tile[lz + jz][ly + jy][lx + jx]) *
                       M[(jz * MASK_Y + jy) * MASK_X + jx];
    CLC_ST(P, (z * ny + y) * nx + x, acc);
}
