/* 2D strategy 3: the work-group covers a TILE_WIDTH^2 output tile; only the
 * tile's own elements go to local memory; halo elements are read from
 * global memory (served by the cache). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, 1)))
void conv2d_cached_halo(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
                        const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[TILE_WIDTH][TILE_WIDTH];
    BATCH_MEMBER_LOCAL(2, (size_t)nx * ny);
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * TILE_WIDTH;
    const int x = ox + lx, y = oy + ly;

    if (x < nx && y < ny)
        tile[ly][lx] = LOAD_N(y * nx + x);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x >= nx || y >= ny)
        BATCH_DONE;
    float acc = 0.0f;
    for (int jy = 0; jy < MASK_Y; ++jy) {
        const int gy = y - LEFT_Y + jy;
        const int ey = CLC_AT(gy, ny); /* the border mode's row */
        const int ty = ey - oy;
        for (int jx = 0; jx < MASK_X; ++jx) {
            const int gx = x - LEFT_X + jx;
            const float m = M[jy * MASK_X + jx];
            if (!(CLC_IN(gy, ny) && CLC_IN(gx, nx))) {
                CLC_GHOST_TAP(acc, m); /* ghost cell */
                continue;
            }
            const int ex = CLC_AT(gx, nx);
            const int tx = ex - ox;
            if (tx >= 0 && tx < TILE_WIDTH && ty >= 0 && ty < TILE_WIDTH)
                acc += READ_TILE(tile[ty][tx]) * m;
            else
                acc += LOAD_N(ey * nx + ex) * m;
        }
    }
    CLC_ST(P, y * nx + x, acc);
    BATCH_END
}
