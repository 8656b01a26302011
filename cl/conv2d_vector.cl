/* 2D vector, y-marching: each work-item computes VEC_WIDTH consecutive x
 * outputs for COARSEN consecutive rows y0.. . It marches once through the
 * input rows y0-R .. y0+COARSEN-1+R; each row's MASK_WIDTH shifted vectors
 * (vec_taps in common.clh) feed all MASK_WIDTH output rows that the input
 * row meets, kept as a queue of float16 accumulators: slot s holds output
 * row r-R+s, which input row r meets with mask row W-1-s. After row r the
 * slot-0 row is complete and stored. So each vector load feeds MASK_WIDTH
 * FMAs instead of one (bench/PERF.md item 13). Rows outside the input are
 * skipped, x borders go through vec_taps' window. */
#ifndef COARSEN
#error "build with -D COARSEN=<rows per work-item>"
#endif
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv2d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_SPAN;
    const int y0 = get_global_id(1) * COARSEN;
    if (x0 >= nx || y0 >= ny)
        return;
    const bool x_inside = x0 >= RADIUS && x0 + VEC_SPAN + RADIUS <= nx;
    const int y_end = min(y0 + COARSEN, ny);
    float16 q[VEC_QUEUE];
    vec_queue_clear(q);
    for (int r = y0 - RADIUS; r < y_end + RADIUS; ++r) {
        if (r >= 0 && r < ny)
            vec_queue_add(q, N + r * nx, M, MASK_WIDTH, x0, nx, x_inside);
        const int y = r - RADIUS; /* slot 0's row, now complete */
        if (y >= y0)
            vec_queue_store(q, P + y * nx, x0, nx);
        vec_queue_shift(q);
    }
}
