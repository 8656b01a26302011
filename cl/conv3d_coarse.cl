/* 3D coarse (z-marching, "2.5D"): a TILE_WIDTH x GROUP_Y work-group covers
 * an x-y patch; each work-item computes COARSEN consecutive planes of ROWS
 * adjacent rows of XV adjacent columns. It marches through the input planes
 * z0-LEFT_Z .. z0+COARSEN-1+RIGHT_Z once, loading each plane's in-plane
 * neighbours (through the cache) and adding them into a queue of MASK_Z
 * accumulators per row: slot s holds output plane p-RIGHT_Z+s, which input
 * plane p meets with mask plane MASK_Z-1-s. After plane p the slot-0 plane
 * is complete and stored. No local memory, no barrier. Interior
 * work-groups skip the bounds checks; border ones read the border mode's
 * folded indices, made once per column, row and plane (clc_index). */
#ifndef COARSEN
#error "build with -D COARSEN=<planes per work-item>"
#endif
#ifndef GROUP_Y
#error "build with -D GROUP_Y=<work-group y extent>"
#endif
#ifndef ROWS
#error "build with -D ROWS=<adjacent y rows per work-item>"
#endif
/* XV: consecutive columns per work-item, each input row read as an
 * XV-wide window (common.clh's clc_row_window: aligned vectors in
 * interior work-groups of rows a multiple of XV long) and the outputs
 * stored as one vector, as in 2D coarse (bench/PERF.md items 31, 33, 35,
 * 53). */
#ifndef XV
#error "build with -D XV=<consecutive columns per work-item: 1, 2, 4, 8 or 16>"
#endif

#define MARCH_PLANES (COARSEN + MASK_Z - 1)
#define MASK3 (MASK_X * MASK_Y * MASK_Z)
/* Input rows a work-item loads per plane: its ROWS output rows share
 * MASK_Y - 1 of them, so loads per output fall from MASK_Y MASK_X to
 * (ROWS + MASK_Y - 1) MASK_X / ROWS. */
#define IN_ROWS (ROWS + MASK_Y - 1)
/* Masks up to 5^3 live in registers (read once, reused for every plane);
 * larger ones are read from __constant. A baked mask (common.clh) is
 * constants either way. */
#if MASK3 <= 125
#define MASK_IN_REGISTERS 1
#endif

#ifdef MASK_IN_REGISTERS
#define MASK_T const float *
#else
#define MASK_T __constant float *
#endif

/* One input plane k of the march: its IN_ROWS rows added into the queue
 * q, then the plane slot 0 completed stored and the queue shifted. With
 * fold, slots that hold planes outside this work-item's COARSEN are
 * skipped: at the march's two ends, where k is a constant (unrolled), the
 * test folds away (as a run-time test in the rolled loop it cost the
 * H100 21%: 1.25 against 1.03 ms at mask 5). No `restrict` on N and P
 * here (inlined at several places it makes clang emit an intrinsic that
 * Oclgrind's LLVM cannot run; common.clh's clc_load3); the kernel's own
 * parameters keep it. */
static inline void conv3d_coarse_plane(const __global IN_T *N,
                                       __global OUT_T *P, MASK_T m,
                                       const int nx, const int ny,
                                       const int nz, const int x,
                                       const int y0, const int z0,
                                       const int k, const bool fold,
                                       const bool checked, const int *cols,
                                       const int *rows,
                                       float q[ROWS][MASK_Z][XV] COUNTERS_PARAM)
{
    const int p = z0 - LEFT_Z + k;
    const int pat = checked ? clc_index(p, nz) : p;
    const bool plane_ok = !checked || pat >= 0;
#pragma unroll
    for (int r = 0; r < IN_ROWS; ++r) {
        const int gy = checked ? rows[r] : y0 - LEFT_Y + r;
        const bool row_ok = !checked || (plane_ok && gy >= 0);
        const int row = (pat * ny + gy) * nx;
        float v[XW];
#if XV == 1
        clc_row_taps(N, row, row_ok, x, cols, checked, v COUNTERS_ARG);
#else
        clc_row_window(N, row, row_ok, x, cols, checked, v COUNTERS_ARG);
#endif
        /* Input row r meets mask row jy = r - o of output row o. */
#pragma unroll
        for (int o = 0; o < ROWS; ++o) {
            const int jy = r - o;
            if (jy < 0 || jy >= MASK_Y)
                continue;
#pragma unroll
            for (int s = 0; s < MASK_Z; ++s) {
                /* Slot s holds output plane z0 + k + s - (W-1). */
                if (fold && (k + s < MASK_Z - 1 || k + s >= MARCH_PLANES))
                    continue;
#pragma unroll
                for (int jx = 0; jx < MASK_X; ++jx) {
                    const float c =
                        m[((MASK_Z - 1 - s) * MASK_Y + jy) * MASK_X + jx];
#pragma unroll
                    for (int i = 0; i < XV; ++i)
                        q[o][s][i] += v[i + jx] * c;
                }
            }
        }
    }
    const int z = p - RIGHT_Z; /* the plane slot 0 completed */
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
        const int y = y0 + o;
#if XV == 1
        if (k >= MASK_Z - 1 && (!checked || (z < nz && y < ny && x < nx)))
            CLC_ST(P, (z * ny + y) * nx + x, q[o][0][0]);
#else
        if (k >= MASK_Z - 1 && (!checked || (z < nz && y < ny)))
            clc_store_columns(P, (z * ny + y) * nx, x, nx, checked, q[o][0]);
#endif
#pragma unroll
        for (int s = 0; s < MASK_Z - 1; ++s) {
#pragma unroll
            for (int i = 0; i < XV; ++i)
                q[o][s][i] = q[o][s + 1][i];
        }
#pragma unroll
        for (int i = 0; i < XV; ++i)
            q[o][MASK_Z - 1][i] = 0.0f;
    }
}

/* Fully unrolled up to 2048 FMAs: beyond, the H100 ran slower unrolled
 * (mask 5, 16 planes, 2 rows: 1.37 ms against 1.03 ms; bench/PERF.md).
 * Beyond, the march is rolled; its first and last MASK_Z - 1 planes (the
 * only ones with slots outside COARSEN) are peeled off and unrolled where
 * they are small enough (up to 4096 FMAs), so the rolled middle computes
 * no slot it then throws away (at mask 5 and 16 planes, 20% of the
 * FMAs; bench/PERF.md item 34). Otherwise the whole march is rolled and
 * computes every slot. */
#if COARSEN * MASK3 * ROWS * XV <= 2048
#define MARCH_UNROLLED 1
#elif 2 * (MASK_Z - 1) * MASK3 * ROWS * XV <= 4096
#define MARCH_PEELED 1
#endif
#define PEEL_END (COARSEN > MASK_Z - 1 ? COARSEN : MASK_Z - 1)

static inline void conv3d_coarse_march(const __global IN_T *restrict N,
                                       __global OUT_T *restrict P, MASK_T m,
                                       const int nx, const int ny,
                                       const int nz, const int x, const int y0,
                                       const int z0,
                                       const bool checked COUNTERS_PARAM)
{
    /* q[o][s][i]: output row y0+o, column x+i; slot s holds output plane
     * p-R+s. */
    float q[ROWS][MASK_Z][XV];
    for (int o = 0; o < ROWS; ++o)
        for (int s = 0; s < MASK_Z; ++s)
            for (int i = 0; i < XV; ++i)
                q[o][s][i] = 0.0f;
    /* Border work-groups: the folded columns and rows, once. */
    int cols[XW], rows[IN_ROWS];
    if (checked) {
#if XV == 1
        clc_tap_cols(x, nx, cols);
#else
        clc_window_cols(x, nx, cols);
#endif
        for (int r = 0; r < IN_ROWS; ++r)
            rows[r] = clc_index(y0 - LEFT_Y + r, ny);
    }
#define PLANE(k, fold)                                                        \
    conv3d_coarse_plane(N, P, m, nx, ny, nz, x, y0, z0, (k), (fold),         \
                        checked, cols, rows, q COUNTERS_ARG)
#if defined(MARCH_UNROLLED)
#pragma unroll
    for (int k = 0; k < MARCH_PLANES; ++k)
        PLANE(k, true);
#elif defined(MARCH_PEELED)
    /* Planes [0, W-1) and [max(COARSEN, W-1), COARSEN+W-1) have slots
     * outside COARSEN; [W-1, COARSEN) has none. */
#pragma unroll
    for (int k = 0; k < MASK_Z - 1; ++k)
        PLANE(k, true);
#pragma unroll 1
    for (int k = MASK_Z - 1; k < COARSEN; ++k)
        PLANE(k, false);
#pragma unroll
    for (int k = PEEL_END; k < MARCH_PLANES; ++k)
        PLANE(k, true);
#else
#pragma unroll 1
    for (int k = 0; k < MARCH_PLANES; ++k)
        PLANE(k, false);
#endif
#undef PLANE
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, GROUP_Y, 1)))
void conv3d_coarse(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx, const int ny,
                   const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
#ifdef MASK_IN_REGISTERS
    float m[MASK3];
    for (int k = 0; k < MASK3; ++k)
        m[k] = M[k];
#else
    __constant float *m = M;
#endif
    const int ox = get_group_id(0) * TILE_WIDTH * XV;
    const int oy = get_group_id(1) * GROUP_Y * ROWS;
    const int z0 = get_group_id(2) * COARSEN;
    const int x = ox + get_local_id(0) * XV,
              y0 = oy + get_local_id(1) * ROWS;
    const bool interior =
        ox >= XV_HALO_L && ox + TILE_WIDTH * XV + XV_HALO_R <= nx &&
        CLC_XV_ALIGNED(N, P, nx) && oy >= LEFT_Y &&
        oy + GROUP_Y * ROWS + RIGHT_Y <= ny && z0 >= LEFT_Z &&
        z0 + COARSEN + RIGHT_Z <= nz;
    if (interior)
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, z0, false COUNTERS_ARG);
    else
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, z0, true COUNTERS_ARG);
}
