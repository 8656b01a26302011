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
 * it back: 16 bytes per element where this reads 4 and writes 4, which
 * is what bounds the CPUs' passes at small masks (bench/PERF.md item 56).
 * Here a work-item owns SEP_XB float16 blocks of x (SEP_XB * 16 columns)
 * of SEP_CHUNK consecutive rows and walks down them: each step filters
 * SEP_ROWS new input rows along x into a private window of SEP_ROWS +
 * MASK_Y - 1 filtered rows, computes SEP_ROWS output rows from it (as
 * many independent chains of FMAs), stores them, and slides the window.
 * The x pass of a chunk's first MASK_Y - 1 rows is done twice (by it and
 * by the chunk above): (MASK_Y - 1) / SEP_CHUNK more x-work. No local
 * memory and no barrier: work-items share nothing but the cache. */
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

/* The x pass of one input row (row: its first element; 0 <= its index <
 * ny) for the work-item's SEP_XB blocks from column x into t[0..]. An
 * interior work-item reads the row in place; one whose inputs reach past
 * a row end (edge) first copies them, folded, into seg. */
CLC_INLINE void sep_xrow(const __global float *row, const int x,
                         const int nx, const bool edge, float16 *t)
{
    float seg[SEP_SEG];
    const float *p;
    const __global float *g = row + x - LEFT_X;
    float16 acc[SEP_XB];
#pragma unroll
    for (int b = 0; b < SEP_XB; ++b)
        acc[b] = 0.0f;
    if (edge) {
        for (int k = 0; k < SEP_SEG; ++k) {
            const int i = x - LEFT_X + k;
            seg[k] = CLC_IN(i, nx) ? row[CLC_AT(i, nx)] : CLC_GHOST;
        }
        p = seg;
#pragma unroll
        for (int j = 0; j < MASK_X; ++j)
#pragma unroll
            for (int b = 0; b < SEP_XB; ++b)
                acc[b] += vload16(0, p + 16 * b + j) * sep_mx[j];
    } else {
#pragma unroll
        for (int j = 0; j < MASK_X; ++j)
#pragma unroll
            for (int b = 0; b < SEP_XB; ++b)
                acc[b] += vload16(0, g + 16 * b + j) * sep_mx[j];
    }
#pragma unroll
    for (int b = 0; b < SEP_XB; ++b)
        t[b] = acc[b];
}

/* Filtered row r (any index: folded, or the ghost row beyond the plane in
 * constant mode) into t[0..SEP_XB-1]. */
CLC_INLINE void sep_trow(const __global float *plane, const int r,
                         const int x, const int nx, const int ny,
                         const bool edge, float16 *t)
{
    if (CLC_IN(r, ny))
        sep_xrow(plane + (size_t)CLC_AT(r, ny) * (size_t)nx, x, nx, edge, t);
    else
        for (int b = 0; b < SEP_XB; ++b)
            t[b] = (float16)(SEP_Y_GHOST);
}

static inline void sep_store16(__global float *out, const int x,
                               const int nx, const float16 v)
{
    if (x + 16 <= nx) {
        vstore16(v, 0, out);
        return;
    }
    float a[16];
    vstore16(v, 0, a);
    for (int k = 0; k < 16 && x + k < nx; ++k)
        out[k] = a[k];
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
    for (int r = 0; r < MASK_Y - 1; ++r)
        sep_trow(src, a0 - LEFT_Y + r, x, nx, ny, edge, win[r]);
    for (int a = a0; a < a1; a += SEP_ROWS) {
        for (int r = MASK_Y - 1; r < SEP_WIN; ++r)
            sep_trow(src, a - LEFT_Y + r, x, nx, ny, edge, win[r]);
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
                    sep_store16(dst + (size_t)(a + c) * (size_t)nx + x +
                                    16 * b,
                                x + 16 * b, nx, acc[c]);
        }
        for (int r = 0; r < MASK_Y - 1; ++r)
#pragma unroll
            for (int b = 0; b < SEP_XB; ++b)
                win[r][b] = win[r + SEP_ROWS][b];
    }
}
