/* 1D strategy 1: the work-group covers an output tile of TILE_WIDTH; the
 * input tile (TILE_WIDTH + MASK_X - 1 elements, halos included) is loaded
 * into local memory in as many steps as it takes, with the border mode's
 * values outside the input. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_output_tile(const __global IN_T *restrict N,
                        __global OUT_T *restrict P, __constant float *M,
                        const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[IN_TILE_X];
    BATCH_MEMBER_LOCAL(1, nx);
    const int lx = get_local_id(0);
    const int out0 = get_group_id(0) * TILE_WIDTH;
    const int in0 = out0 - LEFT_X;

    for (int t = lx; t < IN_TILE_X; t += TILE_WIDTH) {
        const int g = in0 + t;
        tile[t] = clc_load3(N, g, 0, 0, nx, 1, 1 COUNTERS_ARG);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int i = out0 + lx;
    if (i >= nx)
        BATCH_DONE;
    float acc = 0.0f;
    for (int j = 0; j < MASK_X; ++j)
        acc += READ_TILE(tile[lx + j]) * M[j];
    CLC_ST(P, i, acc);
    BATCH_END
}
