/* 2D coarse: a TILE_WIDTH x GROUP_Y work-group; each work-item computes
 * COARSEN consecutive rows of one column. It marches down the input rows
 * y0-LEFT_Y .. y0+COARSEN-1+RIGHT_Y once, loading each row's MASK_X
 * neighbours (through the cache: x is on consecutive work-items, so loads
 * coalesce), and adds them into a queue of MASK_Y accumulators: slot s
 * holds the output row p-RIGHT_Y+s, which input row p meets with mask row
 * MASK_Y-1-s. After row p the slot-0 row is complete and stored. No local
 * memory, no barrier. Interior work-groups take a path without bounds
 * checks; border ones read the border mode's folded indices, made once
 * per column and row (common.clh's clc_index), and with XV > 1 still
 * load and store each work-item's own columns as vectors where they lie
 * inside the row.
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
/* A border work-group's row window where the work-item's own XV columns
 * lie inside the row and the arrays are aligned for vectors (vec): the
 * XV columns as one aligned vector, only the halo columns folded (cols)
 * one by one. Border work-groups along x are 2 of every nx / (TILE_WIDTH
 * XV) (6% at 8192 u8 columns): with every column loaded and stored one
 * by one they cost the H200 several times an interior one (narrow
 * inputs: bench/PERF.md item 68). No `restrict` on N: inlined into the
 * march it made clang emit an intrinsic Oclgrind cannot run
 * (llvm.experimental.noalias.scope.decl; conv3d_coarse.cl says the
 * same). */
#if CLCONV_IN_DTYPE != CLCONV_DTYPE_F32
#define EDGE_VECTORS 1
#else
/* float32 rows (4 columns at masks 7-9 on GPUs) ran level at mask 9 and
 * 1% slower at 7 with it (bench/PERF.md item 68) */
#define EDGE_VECTORS 0
#endif
static inline void conv2d_coarse_edge_window(const __global IN_T *N,
                                             const int row, const bool row_ok,
                                             const int x, const int *cols,
                                             float *w COUNTERS_PARAM)
{
    if (!row_ok) {
        for (int j = 0; j < XW; ++j)
            w[j] = CLC_GHOST;
        return;
    }
    for (int j = 0; j < LEFT_X; ++j)
        w[j] = cols[j] >= 0 ? LOAD_N(row + cols[j]) : CLC_GHOST;
    for (int j = LEFT_X + XV; j < XW; ++j)
        w[j] = cols[j] >= 0 ? LOAD_N(row + cols[j]) : CLC_GHOST;
    COUNT_XV();
    CLC_XPASTE3(vstore, XV, )(CLC_LDXV(N + row + x), 0, w + LEFT_X);
}

/* XV columns x.. per work-item: the march of conv2d_coarse_march over a
 * window of XW input columns per row (common.clh's clc_row_window) and XV
 * accumulators per queue slot. A border work-group (checked) whose
 * arrays are aligned for vectors (vec) loads and stores each work-item's
 * own columns as vectors where they all lie inside the row
 * (conv2d_coarse_edge_window). */
static inline void conv2d_coarse_march_xv(const __global IN_T *restrict N,
                                          __global OUT_T *restrict P,
                                          MASK_T m, const int nx,
                                          const int ny, const int x,
                                          const int y0,
                                          const bool checked,
                                          const bool vec COUNTERS_PARAM)
{
    /* the own columns as vectors in a border work-group */
    const bool edge = EDGE_VECTORS && checked && vec && x + XV <= nx;
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
        if (edge)
            conv2d_coarse_edge_window(N, at * nx, at >= 0, x, cols,
                                      w COUNTERS_ARG);
        else
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
                clc_store_columns(P, y * nx, x, nx, checked && !edge, q[0]);
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
        conv2d_coarse_march_xv(N, P, m, nx, ny, x, y0, false,
                               true COUNTERS_ARG);
    else
        conv2d_coarse_march_xv(N, P, m, nx, ny, x, y0, true,
                               CLC_XV_ALIGNED(N, P, nx) COUNTERS_ARG);
#endif
    BATCH_END
}
