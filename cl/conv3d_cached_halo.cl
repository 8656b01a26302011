/* 3D strategy 3: the work-group covers a TILE_WIDTH^3 output tile; only the
 * tile's own elements go to local memory; halo elements are read from
 * global memory (served by the cache). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, TILE_WIDTH)))
void conv3d_cached_halo(const __global float *restrict N,
                        __global float *restrict P, __constant float *M,
                        const int nx, const int ny, const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[TILE_WIDTH][TILE_WIDTH][TILE_WIDTH];
    const int lx = get_local_id(0), ly = get_local_id(1), lz = get_local_id(2);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int oz = get_group_id(2) * TILE_WIDTH;
    const int x = ox + lx, y = oy + ly, z = oz + lz;

    if (x < nx && y < ny && z < nz)
        tile[lz][ly][lx] = LOAD_N((z * ny + y) * nx + x);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x >= nx || y >= ny || z >= nz)
        return;
    float acc = 0.0f;
    for (int jz = 0; jz < MASK_WIDTH; ++jz) {
        const int gz = z - RADIUS + jz;
        if (gz < 0 || gz >= nz)
            continue; /* ghost plane */
        const int tz = gz - oz;
        for (int jy = 0; jy < MASK_WIDTH; ++jy) {
            const int gy = y - RADIUS + jy;
            if (gy < 0 || gy >= ny)
                continue; /* ghost row */
            const int ty = gy - oy;
            for (int jx = 0; jx < MASK_WIDTH; ++jx) {
                const int gx = x - RADIUS + jx;
                if (gx < 0 || gx >= nx)
                    continue; /* ghost cell */
                const int tx = gx - ox;
                const float m = M[(jz * MASK_WIDTH + jy) * MASK_WIDTH + jx];
                if (tx >= 0 && tx < TILE_WIDTH && ty >= 0 && ty < TILE_WIDTH &&
                    tz >= 0 && tz < TILE_WIDTH)
                    acc += READ_TILE(tile[tz][ty][tx]) * m;
                else
                    acc += LOAD_N((gz * ny + gy) * nx + gx) * m;
            }
        }
    }
    P[(z * ny + y) * nx + x] = acc;
}
