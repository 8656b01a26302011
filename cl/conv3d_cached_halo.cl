/* 3D strategy 3: the work-group covers a TILE_WIDTH^3 output tile; only the
 * tile's own elements go to local memory; halo elements are read from
 * global memory (served by the cache). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, TILE_WIDTH)))
void conv3d_cached_halo(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
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
    for (int jz = 0; jz < MASK_Z; ++jz) {
        const int gz = z - LEFT_Z + jz;
        const int ez = CLC_AT(gz, nz); /* the border mode's plane */
        const int tz = ez - oz;
        for (int jy = 0; jy < MASK_Y; ++jy) {
            const int gy = y - LEFT_Y + jy;
            const int ey = CLC_AT(gy, ny);
            const int ty = ey - oy;
            for (int jx = 0; jx < MASK_X; ++jx) {
                const int gx = x - LEFT_X + jx;
                const float m = M[(jz * MASK_Y + jy) * MASK_X + jx];
                if (!(CLC_IN(gz, nz) && CLC_IN(gy, ny) && CLC_IN(gx, nx))) {
                    CLC_GHOST_TAP(acc, m); /* ghost cell */
                    continue;
                }
                const int ex = CLC_AT(gx, nx);
                const int tx = ex - ox;
                if (tx >= 0 && tx < TILE_WIDTH && ty >= 0 && ty < TILE_WIDTH &&
                    tz >= 0 && tz < TILE_WIDTH)
                    acc += READ_TILE(tile[tz][ty][tx]) * m;
                else
                    acc += LOAD_N((ez * ny + ey) * nx + ex) * m;
            }
        }
    }
    CLC_ST(P, (z * ny + y) * nx + x, acc);
}
