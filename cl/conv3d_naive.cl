/* 3D naive baseline: one work-item per output, every operand from global
 * memory. Work-group: TILE_WIDTH^3 work-items. */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, TILE_WIDTH, TILE_WIDTH)))
void conv3d_naive(const __global IN_T *restrict N, __global OUT_T *restrict P,
                  __constant float *M, const int nx, const int ny,
                  const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz)
        return;
    CLC_ST(P, (z * ny + y) * nx + x,
           conv3d_at(N, M, nx, ny, nz, x, y, z COUNTERS_ARG));
}
