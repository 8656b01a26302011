/* 1D strategy 3: the work-group covers an output tile; only the tile's own
 * elements go to local memory, halo elements are read from global memory
 * (served by the cache). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_cached_halo(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
                        const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[TILE_WIDTH];
    BATCH_MEMBER_LOCAL(1, nx);
    const int lx = get_local_id(0);
    const int out0 = get_group_id(0) * TILE_WIDTH;
    const int i = out0 + lx;

    if (i < nx)
        tile[lx] = LOAD_N(i);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (i >= nx)
        BATCH_DONE;
    float acc = 0.0f;
    for (int j = 0; j < MASK_X; ++j) {
        const int g = i - LEFT_X + j;
        if (!CLC_IN(g, nx)) {
            CLC_GHOST_TAP(acc, M[j]); /* ghost cell */
            continue;
        }
        const int k = CLC_AT(g, nx); /* the border mode's element */
        const int t = k - out0;
        if (t >= 0 && t < TILE_WIDTH)
            acc += READ_TILE(tile[t]) * M[j];
        else
            acc += LOAD_N(k) * M[j];
    }
    CLC_ST(P, i, acc);
    BATCH_END
}
