/* 2D vector, y-marching: each work-item computes VEC_WIDTH consecutive x
 * outputs for COARSEN consecutive rows y0.. . It marches once through the
 * input rows y0-LEFT_Y .. y0+COARSEN-1+RIGHT_Y; each row's MASK_X shifted
 * vectors (vec_taps in common.clh) feed all MASK_Y output rows that the
 * input row meets, kept as a queue of floatv accumulators (float16, float8
 * with -D VEC_WIDTH=8 on AVX2 CPUs: bench/PERF.md item 23): slot s holds
 * output row r-RIGHT_Y+s, which input row r meets with mask row
 * MASK_Y-1-s. After row r the slot-0 row is complete and stored. So each
 * vector load feeds MASK_Y FMAs instead of one (bench/PERF.md item 13);
 * in interior work-items of one block, the march's first and last
 * MASK_Y - 1 rows keep only the slots it stores (VEC_QUEUE_MARCH, item
 * 41).
 * Rows outside the input are skipped in constant mode (their ghost value
 * added when it is not 0) and folded in the other modes; x borders go
 * through vec_taps' window. */
#ifndef COARSEN
#error "build with -D COARSEN=<rows per work-item>"
#endif
#if VEC_MARCH != MASK_Y
#error "build with -D VEC_MARCH=<MASK_Y>: the queue marches along y"
#endif
/* Input row k of the march (y0 - LEFT_Y + k) into slots lo .. hi-1; from
 * k = MASK_Y - 1 on, slot 0's row y0 + k - (MASK_Y - 1) is complete and
 * stored. inside (a constant where it is called): every row and column
 * the work-item reads exists, so no test and no border window. */
CLC_INLINE void conv2d_vector_row(floatv *q, const __global IN_T *N,
                                  __global OUT_T *P, __constant float *M,
                                  const int nx, const int ny, const int x0,
                                  const int y0, const int *cols,
                                  const bool x_inside, const bool inside,
                                  const volatile int *zero, const int k,
                                  const int lo, const int hi)
{
    const int r = y0 - LEFT_Y + k;
    if (inside)
        vec_queue_add(q, N + r * nx, M + *zero, MASK_X, x0, nx, cols, true,
                      lo, hi);
    else if (CLC_IN(r, ny))
        vec_queue_add(q, N + CLC_AT(r, ny) * nx, M, MASK_X, x0, nx, cols,
                      x_inside, lo, hi);
    else
        VEC_QUEUE_ADD_GHOST(q, M, MASK_X, lo, hi);
    if (k >= MASK_Y - 1)
        vec_queue_store(q, P + (y0 + k - (MASK_Y - 1)) * nx, x0, nx);
    vec_queue_shift(q);
}

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
    const int n = min(y0 + COARSEN, ny) - y0;
    int cols[VEC_COLS]; /* an x border's columns, folded once */
    if (!x_inside)
        vec_cols(x0, nx, cols);
    floatv q[VEC_QUEUE];
    vec_queue_clear(q);
    /* The peeled rows read the mask at M + zero, a volatile 0: each row's
     * loads of a coefficient are then its own, so the compiler folds
     * them into the FMAs (AVX-512's broadcast operand) instead of
     * keeping the 81 coefficients of mask 9 in registers across the
     * unrolled rows (PoCL: 2024 spilled registers without it, 48 with). */
    volatile int zero = 0;
#define ROW(inside, k, lo, hi)                                                \
    conv2d_vector_row(q, N, P, M, nx, ny, x0, y0, cols, x_inside, (inside),  \
                      &zero, (k), (lo), (hi))
    VEC_QUEUE_MARCH(n, MASK_X,
                    x_inside && y0 >= LEFT_Y && y0 + n + RIGHT_Y <= ny, ROW);
#undef ROW
    BATCH_END
}
