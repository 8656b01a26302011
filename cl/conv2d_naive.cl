/* 2D naive baseline: one work-item per output, every operand from global
 * memory. Work-group: TILE_WIDTH x TILE_WIDTH work-items. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, 1)))
void conv2d_naive(const __global IN_T *restrict N, __global OUT_T *restrict P,
                  __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    BATCH_MEMBER(2, (size_t)nx * ny);
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= nx || y >= ny)
        BATCH_DONE;
    CLC_ST(P, y * nx + x, conv2d_at(N, M, nx, ny, x, y COUNTERS_ARG));
    BATCH_END
}
