/* 1D naive baseline: one work-item per output, every operand from global
 * memory. Work-group: TILE_WIDTH work-items. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_naive(const __global IN_T *restrict N, __global OUT_T *restrict P,
                  __constant float *M, const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    BATCH_MEMBER(1, nx);
    const int i = get_global_id(0);
    if (i >= nx)
        BATCH_DONE;
    CLC_ST(P, i, conv1d_at(N, M, nx, i COUNTERS_ARG));
    BATCH_END
}
