/* 3D coarse (z-marching, "2.5D"): a TILE_WIDTH x GROUP_Y x GROUP_Z
 * work-group covers an x-y patch and GROUP_Z COARSEN planes; each
 * work-item computes COARSEN consecutive planes of ROWS adjacent rows of
 * XV adjacent columns. With GROUP_Z 1 it marches through the input planes
 * z0-LEFT_Z .. z0+COARSEN-1+RIGHT_Z once, loading each plane's in-plane
 * neighbours (through the cache) and adding them into a queue of MASK_Z
 * accumulators per row: slot s holds output plane p-RIGHT_Z+s, which input
 * plane p meets with mask plane MASK_Z-1-s. After plane p the slot-0 plane
 * is complete and stored. No local memory, no barrier. With GROUP_Z > 1
 * the work-items along z share the group's input planes and add the
 * planes at their boundaries through local memory (below). Work-groups
 * inside along x and y skip the row and column checks; the others read
 * the border mode's folded indices, made once per column and row (those
 * inside along y, with XV > 1, fold only their columns: XEDGE below);
 * every work-group folds its planes, once per plane (clc_index), except,
 * in the constant mode, one inside along x and y whose planes are all
 * inside. */
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
/* GROUP_Z: work-items along z in a work-group, each marching its own
 * share of the group's input planes once (a rolled march). The MASK_Z - 1
 * output planes at a boundary between two of them get contributions from
 * both: the upper one leaves its partial sums in local memory as its march
 * begins, the lower one adds them to its own at the end (after a
 * barrier) and stores. Only the group's two ends compute queue slots for
 * planes outside it, so GROUP_Z work-items of COARSEN planes waste what
 * one march of GROUP_Z COARSEN planes would, in work-groups that finish
 * as soon as one of COARSEN (bench/PERF.md item 61). */
#ifndef GROUP_Z
#define GROUP_Z 1
#endif
#if GROUP_Z > 1 && (MASK_Z < 2 || COARSEN + (MASK_Z - 1) / GROUP_Z < MASK_Z - 1)
#error "GROUP_Z > 1 needs MASK_Z > 1 and at least MASK_Z - 1 planes a work-item"
#endif
#define GROUP_XY (TILE_WIDTH * GROUP_Y)
/* floats of one work-item's partial sums at one boundary */
#define PART_FLOATS ((MASK_Z - 1) * ROWS * XV)

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
/* XEDGE: work-groups inside along y but not along x take their own march
 * (columns folded once, rows unchecked: conv3d_coarse_plane) where a
 * work-item has XV > 1 columns (GPUs at masks 3-5); elsewhere they take
 * the checked one. */
#if XV > 1
#define XEDGE 1
#else
#define XEDGE 0
#endif
#ifdef CLCONV_COUNT_LOADS
#define XEDGE_LD(p, i) (atomic_inc(&clconv_counters[0]), CLC_LD((p), (i)))
#else
#define XEDGE_LD(p, i) CLC_LD((p), (i))
#endif

#ifdef MASK_IN_REGISTERS
#define MASK_T const float *
#else
#define MASK_T __constant float *
#endif

/* The XV outputs v of output row y in plane z, where they exist. */
static inline void conv3d_coarse_store(__global OUT_T *P, const int nx,
                                       const int ny, const int nz,
                                       const int x, const int y, const int z,
                                       const bool checked, const float *v)
{
#if XV == 1
    if (z < nz && (!checked || (y < ny && x < nx)))
        CLC_ST(P, (z * ny + y) * nx + x, v[0]);
#else
    if (z < nz && (!checked || y < ny))
        clc_store_columns(P, (z * ny + y) * nx, x, nx, checked, v);
#endif
}

/* One input plane k of the march (pb + k): its IN_ROWS rows added into
 * the queue q, then the plane slot 0 completed stored and the queue
 * shifted. Slot 0 after one of the march's first MASK_Z - 1 planes is
 * complete only from this work-item's planes: with GROUP_Z > 1 and a
 * work-item below (lead), its partial sum goes to local memory (lp), else
 * it is an output outside the work-group, dropped. With
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
                                       const int y0, const int pb,
                                       const int k, const bool fold,
                                       const bool checked, const bool xedge,
                                       const bool zin, const int *cols,
                                       const int *rows, __local float *lp,
                                       const bool lead,
                                       float q[ROWS][MASK_Z][XV] COUNTERS_PARAM)
{
    const int p = pb + k;
    /* Every work-group folds its planes (a plane's test is one compare
     * where the plane is inside): a work-group inside along x and y
     * marches unchecked whatever its planes, so longer marches add no
     * checked work-groups (bench/PERF.md item 61). Where all its planes
     * are inside (zin), none is folded: no ghost rows to select in the
     * constant mode, and the planes' addresses step by one plane
     * (bench/PERF.md item 64). */
    const int pat = zin || (uint)p < (uint)nz ? p : clc_index(p, nz);
#if CLCONV_MODE == CLCONV_MODE_CONSTANT
    const bool plane_ok = zin || pat >= 0;
#else
    const bool plane_ok = true;
#endif
#if XEDGE
    /* A work-group inside along y but not x (xedge): one pointer a plane
     * for each of the window's XW folded columns, each row a constant
     * offset from it (an immediate where the extents are build
     * constants), instead of an address computed for every input (the
     * H200 at 512^3 W=5: 1068 instructions a plane against the
     * interior's 792; bench/PERF.md item 72). In the constant mode a
     * ghost column reads column 0 and is replaced after the load. */
    const __global IN_T *pc[XW];
    if (xedge && plane_ok) {
        const __global IN_T *pr = N + (pat * ny + y0 - LEFT_Y) * nx;
#pragma unroll
        for (int j = 0; j < XW; ++j)
            pc[j] = pr + max(cols[j], 0);
    }
#endif
#pragma unroll
    for (int r = 0; r < IN_ROWS; ++r) {
        const int gy = checked ? rows[r] : y0 - LEFT_Y + r;
        const bool row_ok = plane_ok && (!checked || gy >= 0);
        const int row = (pat * ny + gy) * nx;
        float v[XW];
#if XEDGE
        if (xedge && row_ok) {
#pragma unroll
            for (int j = 0; j < XW; ++j) {
                const float t = XEDGE_LD(pc[j], r * nx);
#if CLCONV_MODE == CLCONV_MODE_CONSTANT
                v[j] = cols[j] >= 0 ? t : CLC_GHOST;
#else
                v[j] = t;
#endif
            }
        } else
#endif
        if (checked || row_ok) {
#if XV == 1
            clc_row_taps(N, row, row_ok, x, cols, checked, v COUNTERS_ARG);
#else
            clc_row_window(N, row, row_ok, x, cols, checked,
                           v COUNTERS_ARG);
#endif
        } else {
#pragma unroll
            for (int j = 0; j < XW; ++j)
                v[j] = CLC_GHOST;
        }
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
                    /* The newest slot's first tap sets it (no zeroing
                     * after each shift: 2% of the H100's instructions
                     * at 512^3 W=5, bench/PERF.md item 61). */
#pragma unroll
                    for (int i = 0; i < XV; ++i)
                        if (s == MASK_Z - 1 && jy == 0 && jx == 0)
                            q[o][s][i] = v[i + jx] * c;
                        else
                            q[o][s][i] += v[i + jx] * c;
                }
            }
        }
    }
    const int z = p - RIGHT_Z; /* the plane slot 0 completed */
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
        if (k >= MASK_Z - 1)
            conv3d_coarse_store(P, nx, ny, nz, x, y0 + o, z,
                                checked || xedge, q[o][0]);
#if GROUP_Z > 1
        else if (lead) {
#pragma unroll
            for (int i = 0; i < XV; ++i)
                lp[((k * ROWS + o) * XV + i) * GROUP_XY] = q[o][0][i];
        }
#endif
#pragma unroll
        for (int s = 0; s < MASK_Z - 1; ++s) {
#pragma unroll
            for (int i = 0; i < XV; ++i)
                q[o][s][i] = q[o][s + 1][i];
        }
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

/* The march over input planes pb .. pb+planes-1. With GROUP_Z > 1, lp is
 * this work-item's partial sums at the boundary below it (written where
 * lead) and up those of the work-item above (added where trail). No
 * `restrict` here either: inlined at three places it made clang emit the
 * intrinsic Oclgrind cannot run (the kernel's parameters keep it). */
static inline void conv3d_coarse_march(const __global IN_T *N,
                                       __global OUT_T *P, MASK_T m,
                                       const int nx, const int ny,
                                       const int nz, const int x, const int y0,
                                       const int pb, const int planes,
                                       __local float *lp, const bool lead,
                                       const __local float *up,
                                       const bool trail, const bool checked,
                                       const bool xedge,
                                       const bool zin COUNTERS_PARAM)
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
    if (checked || xedge) {
#if XV == 1
        clc_tap_cols(x, nx, cols);
#else
        clc_window_cols(x, nx, cols);
#endif
    }
    if (checked)
        for (int r = 0; r < IN_ROWS; ++r)
            rows[r] = clc_index(y0 - LEFT_Y + r, ny);
#define PLANE(k, fold)                                                        \
    conv3d_coarse_plane(N, P, m, nx, ny, nz, x, y0, pb, (k), (fold),         \
                        checked, xedge, zin, cols, rows, lp, lead,            \
                        q COUNTERS_ARG)
#if GROUP_Z > 1
    /* A work-item whose outputs all lie past the last plane has nothing
     * to add (it still meets the barrier). */
    if (pb - RIGHT_Z < nz) {
#pragma unroll 1
        for (int k = 0; k < planes; ++k)
            PLANE(k, false);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* After the last plane slot j holds output plane pb+planes-RIGHT_Z+j;
     * the first MASK_Z - 1 are shared with the work-item above (which
     * wrote its part unless they all lie past the last plane). */
    if (trail && pb + planes - RIGHT_Z < nz) {
#pragma unroll
        for (int j = 0; j < MASK_Z - 1; ++j) {
#pragma unroll
            for (int o = 0; o < ROWS; ++o) {
                float v[XV];
#pragma unroll
                for (int i = 0; i < XV; ++i)
                    v[i] = q[o][j][i] +
                           up[((j * ROWS + o) * XV + i) * GROUP_XY];
                conv3d_coarse_store(P, nx, ny, nz, x, y0 + o,
                                    pb + planes - RIGHT_Z + j,
                                    checked || xedge, v);
            }
        }
    }
#elif defined(MARCH_UNROLLED)
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

/* CLC_NX, CLC_NY, CLC_NZ: the volume's extents as build constants (the
 * host passes them, equal to the arguments, where the mask is baked and
 * 5 or more wide), so the offsets of a plane's rows fold into its loads:
 * H100 at 512^3 W=5 0.789 -> 0.764 ms (bench/PERF.md item 63). */
__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, GROUP_Y, GROUP_Z)))
void conv3d_coarse(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx_arg, const int ny_arg,
                   const int nz_arg COUNTERS_PARAM)
{
#ifdef CLC_NZ
    const int nx = CLC_NX, ny = CLC_NY, nz = CLC_NZ;
    (void)nx_arg, (void)ny_arg, (void)nz_arg;
#else
    const int nx = nx_arg, ny = ny_arg, nz = nz_arg;
#endif
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
    const int x = ox + get_local_id(0) * XV,
              y0 = oy + get_local_id(1) * ROWS;
#if GROUP_Z > 1
    /* The group's GROUP_Z COARSEN + MASK_Z - 1 input planes, shared out:
     * COARSEN each and the MASK_Z - 1 more one by one from the bottom. */
    __local float part[(GROUP_Z - 1) * PART_FLOATS * GROUP_XY];
    const int iz = get_local_id(2);
    const int lxy = get_local_id(1) * TILE_WIDTH + get_local_id(0);
    const int each = COARSEN + (MASK_Z - 1) / GROUP_Z,
              more = (MASK_Z - 1) % GROUP_Z;
    const int planes = each + (iz < more);
    const int pb = get_group_id(2) * GROUP_Z * COARSEN - LEFT_Z + iz * each +
                   min(iz, more);
    /* boundary b (between work-items b and b+1) at part + b PART_FLOATS
     * GROUP_XY */
    __local float *lp =
        part + (iz > 0 ? iz - 1 : 0) * PART_FLOATS * GROUP_XY + lxy;
    const __local float *up = part + iz * PART_FLOATS * GROUP_XY + lxy;
    const bool lead = iz > 0, trail = iz < GROUP_Z - 1;
#else
    const int planes = MARCH_PLANES;
    const int pb = get_group_id(2) * COARSEN - LEFT_Z;
    __local float *lp = 0;
    const __local float *up = 0;
    const bool lead = false, trail = false;
#endif
    const bool yin = oy >= LEFT_Y && oy + GROUP_Y * ROWS + RIGHT_Y <= ny;
    const bool interior =
        ox >= XV_HALO_L && ox + TILE_WIDTH * XV + XV_HALO_R <= nx &&
        CLC_XV_ALIGNED(N, P, nx) && yin;
#if CLCONV_MODE == CLCONV_MODE_CONSTANT
    /* the work-group's input planes all inside the volume (a third copy
     * of the march, in the constant mode only: the other modes have no
     * ghost rows to select) */
    const int gz0 = get_group_id(2) * GROUP_Z * COARSEN - LEFT_Z;
    if (interior && gz0 >= 0 && gz0 + GROUP_Z * COARSEN + MASK_Z - 1 <= nz)
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, pb, planes, lp, lead,
                            up, trail, false, false, true COUNTERS_ARG);
    else
#endif
    if (interior)
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, pb, planes, lp, lead,
                            up, trail, false, false, false COUNTERS_ARG);
#if XEDGE
    else if (yin)
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, pb, planes, lp, lead,
                            up, trail, false, true, false COUNTERS_ARG);
#endif
    else
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y0, pb, planes, lp, lead,
                            up, trail, true, false, false COUNTERS_ARG);
}
