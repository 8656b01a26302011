/* 2D vector, y-marching: each work-item computes VEC_WIDTH consecutive x
 * outputs for COARSEN consecutive rows y0.. . It marches once through the
 * input rows y0-LEFT_Y .. y0+COARSEN-1+RIGHT_Y; each row's MASK_X shifted
 * vectors (vec_taps in common.clh) feed all MASK_Y output rows that the
 * input row meets, kept as a queue of floatv accumulators (float16, float8
 * with -D VEC_WIDTH=8 on AVX2 CPUs: bench/PERF.md item 23): slot s holds
 * output row r-RIGHT_Y+s, which input row r meets with mask row
 * MASK_Y-1-s. After row r the slot-0 row is complete and stored. So each
 * vector load feeds MASK_Y FMAs instead of one (bench/PERF.md item 13).
 * Rows outside the input are skipped in constant mode (their ghost value
 * added when it is not 0) and folded in the other modes; x borders go
 * through vec_taps' window. */
#ifndef COARSEN
#error "build with -D COARSEN=<rows per work-item>"
#endif
#if VEC_MARCH != MASK_Y
#error "build with -D VEC_MARCH=<MASK_Y>: the queue marches along y"
#endif
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv2d_vector(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    BATCH_MEMBER(2, (size_t)nx * ny);
    const int x0 = get_global_id(0) * VEC_SPAN;
    const int y0 = get_global_id(1) * COARSEN;
    if (x0 >= nx || y0 >= ny)
        BATCH_DONE;
    const bool x_inside = x0 >= LEFT_X && x0 + VEC_SPAN + RIGHT_X <= nx;
    const int y_end = min(y0 + COARSEN, ny);
    int cols[VEC_COLS]; /* an x border's columns, folded once */
    if (!x_inside)
        vec_cols(x0, nx, cols);
    floatv q[VEC_QUEUE];
    vec_queue_clear(q);
    for (int r = y0 - LEFT_Y; r < y_end + RIGHT_Y; ++r) {
        if (CLC_IN(r, ny))
            vec_queue_add(q, N + CLC_AT(r, ny) * nx, M, MASK_X, x0, nx, cols,
                          x_inside);
        else
            VEC_QUEUE_ADD_GHOST(q, M, MASK_X);
        const int y = r - RIGHT_Y; /* slot 0's row, now complete */
        if (y >= y0)
            vec_queue_store(q, P + y * nx, x0, nx);
        vec_queue_shift(q);
    }
    BATCH_END
}
