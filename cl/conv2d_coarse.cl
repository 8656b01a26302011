/* 2D coarse: a TILE_WIDTH x GROUP_Y work-group; each work-item computes
 * COARSEN consecutive rows of one column. It marches down the input rows
 * y0-LEFT_Y .. y0+COARSEN-1+RIGHT_Y once, loading each row's MASK_X
 * neighbours (through the cache: x is on consecutive work-items, so loads
 * coalesce), and adds them into a queue of MASK_Y accumulators: slot s
 * holds the output row p-RIGHT_Y+s, which input row p meets with mask row
 * MASK_Y-1-s. After row p the slot-0 row is complete and stored. No local
 * memory, no barrier. Interior work-groups take a path without bounds
 * checks; border ones read the border mode's folded indices, made once
 * per column and row (common.clh's clc_index).
 * MARCH picks the form of the march (bench/PERF.md "2D coarse: the march
 * rolled, the mask read in place"):
 *   1  the mask copied into a private array and the whole march unrolled
 *      (every queue slot and coefficient index a constant);
 *   2  the mask read in place (a baked mask is program-scope constants, so
 *      the unrolled indices fold to immediates) and the march rolled over
 *      the input rows, each row's slots and taps unrolled: code and
 *      registers no longer grow with COARSEN x MASK_X x MASK_Y, for the
 *      large masks whose private copy and unrolled march do not fit.
 * XV is the number of consecutive columns per work-item (1 by default): with
 * XV = 2, 4, 8 or 16 each input row is read as one aligned XV-element vector
 * plus the mask's halo columns, and the XV outputs are stored as one
 * vector, so narrow elements (u8: one byte each) move in 4- or 8-byte
 * transactions instead of single bytes (bench/PERF.md item 31). A
 * work-group covers TILE_WIDTH * XV columns; rows whose length is not a
 * multiple of XV (unaligned vectors) take the checked path. */
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif
#ifndef GROUP_Y
#error "build with -D GROUP_Y=<work-group y extent>"
#endif

#ifndef MARCH
#error "build with -D MARCH=<1: private mask, unrolled march; 2: mask in place, rolled rows>"
#endif
#if MARCH != 1 && MARCH != 2
#error "MARCH must be 1 or 2"
#endif

#ifndef XV
#error "build with -D XV=<consecutive columns per work-item: 1, 2, 4, 8 or 16>"
#endif

#define MARCH_ROWS (COARSEN + MASK_Y - 1)

#if MARCH == 1
#define MASK_T const float *
#else
#define MASK_T __constant float *
#endif

static inline void conv2d_coarse_march(const __global IN_T *restrict N,
                                       __global OUT_T *restrict P,
                                       MASK_T m, const int nx,
                                       const int ny, const int x, const int y0,
                                       const bool checked COUNTERS_PARAM)
{
    float q[MASK_Y];
    for (int s = 0; s < MASK_Y; ++s)
        q[s] = 0.0f;
    int cols[MASK_X];
    if (checked)
        clc_tap_cols(x, nx, cols);
#if MARCH == 1
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int k = 0; k < MARCH_ROWS; ++k) {
        const int p = y0 - LEFT_Y + k;
        const int at = checked ? clc_index(p, ny) : p;
        const bool row_ok = !checked || at >= 0;
        float v[MASK_X];
        clc_row_taps(N, at * nx, row_ok, x, cols, checked, v COUNTERS_ARG);
#if MARCH == 2
#pragma unroll
#endif
        for (int s = 0; s < MASK_Y; ++s) {
            /* Slot s now holds output row y0 + k + s - (W-1): skip the
             * slots of rows outside this work-item's COARSEN (at the
             * march's two ends; the unrolled march folds the test, the
             * rolled one takes a branch uniform over the work-group). */
            if (k + s < MASK_Y - 1 || k + s >= MARCH_ROWS)
                continue;
#if MARCH == 2
#pragma unroll
#endif
            for (int jx = 0; jx < MASK_X; ++jx)
                q[s] += v[jx] * m[(MASK_Y - 1 - s) * MASK_X + jx];
        }
        const int y = p - RIGHT_Y; /* the row slot 0 completed */
        if (k >= MASK_Y - 1 && (!checked || (y < ny && x < nx)))
            CLC_ST(P, y * nx + x, q[0]);
#if MARCH == 2
#pragma unroll
#endif
        for (int s = 0; s < MASK_Y - 1; ++s)
            q[s] = q[s + 1];
        q[MASK_Y - 1] = 0.0f;
    }
}

#if XV > 1
/* XV columns x.. per work-item: the march of conv2d_coarse_march over a
 * window of XW input columns per row (common.clh's clc_row_window) and XV
 * accumulators per queue slot. */
static inline void conv2d_coarse_march_xv(const __global IN_T *restrict N,
                                          __global OUT_T *restrict P,
                                          MASK_T m, const int nx,
                                          const int ny, const int x,
                                          const int y0,
                                          const bool checked COUNTERS_PARAM)
{
    float q[MASK_Y][XV];
    for (int s = 0; s < MASK_Y; ++s)
        for (int i = 0; i < XV; ++i)
            q[s][i] = 0.0f;
    int cols[XW];
    if (checked)
        clc_window_cols(x, nx, cols);
#if MARCH == 1
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int k = 0; k < MARCH_ROWS; ++k) {
        const int p = y0 - LEFT_Y + k;
        float w[XW];
        const int at = checked ? clc_index(p, ny) : p;
        clc_row_window(N, at * nx, !checked || at >= 0, x, cols, checked,
                       w COUNTERS_ARG);
#if MARCH == 2
#pragma unroll
#endif
        for (int s = 0; s < MASK_Y; ++s) {
            if (k + s < MASK_Y - 1 || k + s >= MARCH_ROWS)
                continue;
#if MARCH == 2
#pragma unroll
#endif
            for (int jx = 0; jx < MASK_X; ++jx) {
                const float c = m[(MASK_Y - 1 - s) * MASK_X + jx];
                for (int i = 0; i < XV; ++i)
                    q[s][i] += w[i + jx] * c;
            }
        }
        const int y = p - RIGHT_Y; /* the row slot 0 completed */
        if (k >= MASK_Y - 1) {
            if (!checked || y < ny)
                clc_store_columns(P, y * nx, x, nx, checked, q[0]);
        }
#if MARCH == 2
#pragma unroll
#endif
        for (int s = 0; s < MASK_Y - 1; ++s)
            for (int i = 0; i < XV; ++i)
                q[s][i] = q[s + 1][i];
        for (int i = 0; i < XV; ++i)
            q[MASK_Y - 1][i] = 0.0f;
    }
}
#endif

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, GROUP_Y, 1)))
void conv2d_coarse(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    BATCH_MEMBER(2, (size_t)nx * ny);
#if MARCH == 1
    /* The mask in private registers: read once, reused COARSEN times. */
    float m[MASK_X * MASK_Y];
    for (int k = 0; k < MASK_X * MASK_Y; ++k)
        m[k] = M[k];
#else
    __constant float *m = M;
#endif
    const int ox = get_group_id(0) * TILE_WIDTH * XV;
    const int oy = get_group_id(1) * GROUP_Y * COARSEN;
    const int x = ox + get_local_id(0) * XV;
    const int y0 = oy + get_local_id(1) * COARSEN;
    const bool interior = ox >= XV_HALO_L &&
                          ox + TILE_WIDTH * XV + XV_HALO_R <= nx &&
                          oy >= LEFT_Y &&
                          oy + GROUP_Y * COARSEN + RIGHT_Y <= ny &&
                          CLC_XV_ALIGNED(N, P, nx);
#if XV == 1
    if (interior)
        conv2d_coarse_march(N, P, m, nx, ny, x, y0, false COUNTERS_ARG);
    else
        conv2d_coarse_march(N, P, m, nx, ny, x, y0, true COUNTERS_ARG);
#else
    if (interior)
        conv2d_coarse_march_xv(N, P, m, nx, ny, x, y0, false COUNTERS_ARG);
    else
        conv2d_coarse_march_xv(N, P, m, nx, ny, x, y0, true COUNTERS_ARG);
#endif
    BATCH_END
}
