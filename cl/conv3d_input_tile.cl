/* 3D strategy 2: the work-group covers an IN_TILE^3 input tile; each
 * work-item loads one element (ghost cells as 0); only the inner
 * TILE_WIDTH^3 work-items compute. */
__kernel __attribute__((reqd_work_group_size(IN_TILE, IN_TILE, IN_TILE)))
void conv3d_input_tile(const __global float *restrict N,
                       __global float *restrict P, __constant float *M,
                       const int nx, const int ny, const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE][IN_TILE][IN_TILE];
    const int lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int oz = get_group_id(2) * TILE_WIDTH;
    const int gx = ox - RADIUS + lx, gy = oy - RADIUS + ly,
              gz = oz - RADIUS + lz;

    tile[lz][ly][lx] =
        (gx >= 0 && gx < nx && gy >= 0 && gy < ny && gz >= 0 && gz < nz)
            ? LOAD_N((gz * ny + gy) * nx + gx)
            : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = ox + lx, y = oy + ly, z = oz + lz;
    if (lx >= TILE_WIDTH || ly >= TILE_WIDTH || lz >= TILE_WIDTH || x >= nx ||
        y >= ny || z >= nz)
        return;
    float acc = 0.0f;
    for (int jz = 0; jz < MASK_WIDTH; ++jz)
        for (int jy = 0; jy < MASK_WIDTH; ++jy)
            for (int jx = 0; jx < MASK_WIDTH; ++jx)
                acc += READ_TILE(tile[lz + jz][ly + jy][lx + jx]) *
                       M[(jz * MASK_WIDTH + jy) * MASK_WIDTH + jx];
    P[(z * ny + y) * nx + x] = acc;
}
