/* CPUs' separable x and y passes in one kernel (issue 17 item 1): the 1D
 * masks SEP_MASK_VALUES (MASK_X taps, along x) and SEP_Y_MASK_VALUES
 * (MASK_Y taps, along y) correlated over each xy plane of an nx x ny x nz
 * array, the x-filtered rows never leaving the core's cache:
 *   out[z, i, x] = sum_j my[j] * t[z, i - LEFT_Y + j, x],
 *   t[z, r, x]  = sum_k mx[k] * in[z, r, x - LEFT_X + k],
 * indices outside the data folded by the border mode (common.clh's CLC_AT)
 * or, in constant mode, the ghost values: CLC_GHOST (-D CLCONV_CVAL) for
 * an input beyond a row's ends, SEP_Y_GHOST (CLCONV_CVAL times the sum of
 * the x mask) for a filtered row beyond the plane (host/lib/separable.c).
 *
 * Two passes (cl/sep_pass.cl) write the x-filtered plane to memory and read
 * it back: 16 bytes per element where this reads 4 and writes 4
 * (bench/PERF.md item 56). Here a work-item owns SEP_XB float16 blocks of
 * x (SEP_XB * 16 columns) of SEP_CHUNK consecutive rows and walks down
 * them: each step filters SEP_ROWS new input rows along x (sep_xrows)
 * into a private window of SEP_ROWS + MASK_Y - 1 filtered rows, computes
 * SEP_ROWS output rows from it (as many independent chains of FMAs),
 * stores them, and slides the window. The x pass of a chunk's first
 * MASK_Y - 1 rows is done twice (by it and by the chunk above): (MASK_Y -
 * 1) / SEP_CHUNK more x-work. No local memory and no barrier:
 * work-items share nothing but the cache. */
#ifndef SEP_MASK_VALUES
#error "build with -D SEP_MASK_VALUES=<MASK_X floats>"
#endif
#ifndef SEP_Y_MASK_VALUES
#error "build with -D SEP_Y_MASK_VALUES=<MASK_Y floats>"
#endif
#ifndef SEP_Y_GHOST
#error "build with -D SEP_Y_GHOST=<a filtered row beyond the plane (constant mode)>"
#endif
#ifndef SEP_ROWS
#error "build with -D SEP_ROWS=<output rows computed together>"
#endif
#ifndef SEP_CHUNK
#error "build with -D SEP_CHUNK=<rows per work-item, a multiple of SEP_ROWS>"
#endif
#ifndef SEP_XB
#error "build with -D SEP_XB=<float16 blocks of x per work-item>"
#endif
#if SEP_CHUNK % SEP_ROWS != 0
#error "SEP_CHUNK must be a multiple of SEP_ROWS"
#endif

__constant float sep_mx[MASK_X] = {SEP_MASK_VALUES};
__constant float sep_my[MASK_Y] = {SEP_Y_MASK_VALUES};

/* Columns a work-item's x pass reads per row: its outputs and the halo. */
#define SEP_SEG (SEP_XB * 16 + MASK_X - 1)

/* The x pass of SEP_ROWS rows from rp[r], row r's first input of the
 * work-item, into t[r]. Two orders (-D SEP_XPAR):
 * 1: for each block, the rows' SEP_ROWS independent chains of FMAs, all
 *    rows' loads in flight together, where MASK_X x SEP_ROWS <= 512 (the
 *    taps unrolled; more took PoCL minutes to build);
 * 0: row by row, the blocks' SEP_XB chains, the taps unrolled (beyond:
 *    2D 4096^2 W=101 on 2 cores 48 ms against 62 in the first order).
 * bench/PERF.md item 56. */
#ifndef SEP_XPAR
#define SEP_XPAR (MASK_X * SEP_ROWS <= 512)
#endif
/* The x pass with loop O outer (NO of them) and loop I inner (NI
 * accumulators, independent chains of FMAs); r the row, b the block. */
#define SEP_XLOOPS(rp, t, O, NO, I, NI)                                      \
    do {                                                                     \
        for (int O = 0; O < (NO); ++O) {                                     \
            float16 acc[NI];                                                 \
            _Pragma("unroll") for (int I = 0; I < (NI); ++I)                 \
                acc[I] = 0.0f;                                               \
            _Pragma("unroll") for (int j = 0; j < MASK_X; ++j)               \
            {                                                                \
                const float m = sep_mx[j];                                   \
                _Pragma("unroll") for (int I = 0; I < (NI); ++I)             \
                    acc[I] += vload16(0, (rp)[r] + 16 * b + j) * m;          \
            }                                                                \
            _Pragma("unroll") for (int I = 0; I < (NI); ++I)                 \
                (t)[r][b] = acc[I];                                          \
        }                                                                    \
    } while (0)
#if SEP_XPAR
#define SEP_XROWS(rp, t) SEP_XLOOPS(rp, t, b, SEP_XB, r, SEP_ROWS)
#else
#define SEP_XROWS(rp, t) SEP_XLOOPS(rp, t, r, SEP_ROWS, b, SEP_XB)
#endif

/* Filtered rows r0 .. r0 + SEP_ROWS - 1 (any indices: folded, or in
 * constant mode the ghost row beyond the plane) into t[0..SEP_ROWS-1].
 * An interior work-item reads the rows in place; one whose inputs reach
 * past a row end (edge) first copies them, folded, into seg. */
CLC_INLINE void sep_xrows(const __global float *plane, const int r0,
                          const int x, const int nx, const int ny,
                          const bool edge, float16 (*t)[SEP_XB])
{
    if (!edge) {
        const __global float *rp[SEP_ROWS];
#pragma unroll
        for (int r = 0; r < SEP_ROWS; ++r) {
            const int i = r0 + r;
            rp[r] = plane + (size_t)(CLC_IN(i, ny) ? CLC_AT(i, ny) : 0) *
                                (size_t)nx +
                    x - LEFT_X;
        }
        SEP_XROWS(rp, t);
    } else {
        float seg[SEP_ROWS][SEP_SEG];
        const float *rp[SEP_ROWS];
        for (int r = 0; r < SEP_ROWS; ++r) {
            const int i = r0 + r;
            const __global float *row =
                plane + (size_t)(CLC_IN(i, ny) ? CLC_AT(i, ny) : 0) * (size_t)nx;
            for (int k = 0; k < SEP_SEG; ++k) {
                const int c = x - LEFT_X + k;
                seg[r][k] = CLC_IN(c, nx) ? row[CLC_AT(c, nx)] : CLC_GHOST;
            }
            rp[r] = seg[r];
        }
        SEP_XROWS(rp, t);
    }
#if CLCONV_MODE == CLCONV_MODE_CONSTANT
    for (int r = 0; r < SEP_ROWS; ++r)
        if (!CLC_IN(r0 + r, ny))
            for (int b = 0; b < SEP_XB; ++b)
                t[r][b] = (float16)(SEP_Y_GHOST);
#endif
}

#define SEP_WIN (SEP_ROWS + MASK_Y - 1)

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void sep_xy(const __global float *restrict in, __global float *restrict out,
            const int nx, const int ny, const int nz)
{
    const int x = get_global_id(0) * SEP_XB * 16;
    const int a0 = get_global_id(1) * SEP_CHUNK;
    if (x >= nx || a0 >= ny) /* the last work-group, rounded up */
        return;
    const size_t plane = get_global_id(2) * (size_t)nx * (size_t)ny;
    const __global float *src = in + plane;
    __global float *dst = out + plane;
    const int a1 = min(a0 + SEP_CHUNK, ny);
    const bool edge = x - LEFT_X < 0 || x - LEFT_X + SEP_SEG > nx;
    /* win[r][b]: filtered row a - LEFT_Y + r of the step at output row a. */
    float16 win[SEP_WIN][SEP_XB];
    /* the first MASK_Y - 1 rows, in steps of SEP_ROWS (the last step's
     * extra rows, recomputed below, fit in the window) */
    for (int r = 0; r < MASK_Y - 1; r += SEP_ROWS)
        sep_xrows(src, a0 - LEFT_Y + r, x, nx, ny, edge, win + r);
    for (int a = a0; a < a1; a += SEP_ROWS) {
        sep_xrows(src, a - LEFT_Y + MASK_Y - 1, x, nx, ny, edge,
                  win + MASK_Y - 1);
#pragma unroll
        for (int b = 0; b < SEP_XB; ++b) {
            float16 acc[SEP_ROWS];
#pragma unroll
            for (int c = 0; c < SEP_ROWS; ++c)
                acc[c] = 0.0f;
            for (int j = 0; j < MASK_Y; ++j) {
                const float m = sep_my[j];
#pragma unroll
                for (int c = 0; c < SEP_ROWS; ++c)
                    acc[c] += win[c + j][b] * m;
            }
#pragma unroll
            for (int c = 0; c < SEP_ROWS; ++c)
                if (a + c < a1)
                    clc_store16(dst + (size_t)(a + c) * (size_t)nx + x +
                                    16 * b,
                                x + 16 * b, nx, acc[c]);
        }
        for (int r = 0; r < MASK_Y - 1; ++r)
#pragma unroll
            for (int b = 0; b < SEP_XB; ++b)
                win[r][b] = win[r + SEP_ROWS][b];
    }
}
