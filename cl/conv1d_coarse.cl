/* 1D coarse: a work-group of TILE_WIDTH work-items computes
 * TILE_WIDTH * COARSEN outputs. It loads its input tile (halos included,
 * the border mode's values outside the input) into local memory with
 * coalesced loads, then each work-item computes its COARSEN consecutive
 * outputs from COARSEN + W - 1 local reads instead of W per output, in
 * one of two marches (MARCH):
 * 1: over the inputs once, adding each element into a queue of MASK_X
 *    accumulators (slot s holds output p+LEFT_X-(W-1)+s, which input p
 *    meets with mask tap W-1-s), the mask copied into registers;
 * 2: over the taps, a window of COARSEN inputs sliding one element per
 *    tap (common.clh's clc_window_march): COARSEN accumulators, the mask
 *    read in place, so masks too wide for the queue's unrolled march
 *    build in seconds (bench/PERF.md item 39);
 * 3: the window, the outputs stored through a padded local staging row
 *    so a work-group stores TILE_WIDTH consecutive outputs per
 *    instruction (as the separable x pass on GPUs).
 * The tile is padded as common.clh's CLC_PAD (one float per COARSEN), so
 * work-items reading COARSEN apart hit distinct banks and each reads its
 * run at constant offsets from one address. (March 1 padded one float
 * per 32 until session 32, each read's index computed: the H200 ran 2^26
 * W=55 0.183-0.184 ms against 0.170-0.171 with CLC_PAD; bench/PERF.md
 * item 71.)
 * SPANS > 1: a work-group computes SPANS consecutive spans of
 * TILE_WIDTH * COARSEN outputs, loading the next span's tile into
 * registers before it computes the current one, so those loads are in
 * flight during the FMAs (bench/PERF.md item 40). */
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif
#ifndef MARCH
#error "build with -D MARCH=<1: queue of MASK_X accumulators; 2: window of COARSEN inputs; 3: window, staged stores>"
#endif
#if MARCH < 1 || MARCH > 3
#error "MARCH must be 1, 2 or 3"
#endif

#ifndef SPANS
#define SPANS 1
#endif

#define SPAN (TILE_WIDTH * COARSEN)
#define TILE_LEN (SPAN + MASK_X - 1)
#define PAD(i) CLC_PAD(i)
#define PAD_RUN(b, k) CLC_RUN(CLC_PAD(b), k)
#define PAD_STEP(plx, lx, k) CLC_PAD_STEP(CLC_PAD, CLC_PAD_PERIOD, plx, lx, k)

/* Work-item lx's share of a tile from input index g0: elements g0 + lx +
 * k * TILE_WIDTH (common.clh's CLC_TILE_PER, CLC_TILE_HAS), into v. Where
 * the whole tile lies inside the input, plain loads at immediate offsets
 * from one address; otherwise the border mode's values. */
static inline void tile_share(const __global IN_T *N, const int g0,
                              const int nx, const int lx,
                              float v[CLC_TILE_PER] COUNTERS_PARAM)
{
    if (g0 >= 0 && g0 + TILE_LEN <= nx) {
#pragma unroll
        for (int k = 0; k < CLC_TILE_PER; ++k)
            if (CLC_TILE_HAS(lx, k))
                v[k] = LOAD_N(g0 + lx + k * TILE_WIDTH);
    } else {
#pragma unroll
        for (int k = 0; k < CLC_TILE_PER; ++k)
            if (CLC_TILE_HAS(lx, k))
                v[k] = clc_load3(N, g0 + lx + k * TILE_WIDTH, 0, 0, nx, 1, 1
                                 COUNTERS_ARG);
    }
}

/* A work-item's COARSEN consecutive outputs o from index i0: on float32
 * output, where they lie inside the output and P + i0 is 16-byte aligned,
 * as float4 stores (each of a warp's store instructions then fills half
 * of every 32-byte sector it touches, against an eighth with one float
 * per work-item at COARSEN 8: bench/PERF.md item 52); otherwise one by
 * one. */
static inline void store_run(__global OUT_T *P, const int i0, const int nx,
                             const float *o)
{
#if CLCONV_OUT_DTYPE == CLCONV_DTYPE_F32 && COARSEN % 4 == 0
    if (i0 + COARSEN <= nx && ((ulong)(P + i0) & 15) == 0) {
#pragma unroll
        for (int c = 0; c < COARSEN; c += 4)
            *(__global float4 *)(P + i0 + c) =
                (float4)(o[c], o[c + 1], o[c + 2], o[c + 3]);
        return;
    }
#endif
    for (int c = 0; c < COARSEN; ++c)
        if (i0 + c < nx)
            CLC_ST(P, i0 + c, o[c]);
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_coarse(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx COUNTERS_PARAM)
{
    BIND_MASK(M);
    __local float tile[PAD(TILE_LEN) + 1];
#if MARCH == 3
    __local float res[PAD(SPAN) + 1];
#endif
    BATCH_MEMBER_LOCAL(1, nx);
    const int lx = get_local_id(0);
    const int first = get_group_id(0) * SPAN * SPANS;
    const int b = lx * COARSEN; /* first output, relative to out0 */
    const int plx = PAD(lx); /* lx's first tile element, padded */
    float next[CLC_TILE_PER];
    tile_share(N, first - LEFT_X, nx, lx, next COUNTERS_ARG);
#pragma unroll
    for (int k = 0; k < CLC_TILE_PER; ++k)
        if (CLC_TILE_HAS(lx, k))
            tile[PAD_STEP(plx, lx, k)] = next[k];
#if SPANS > 1
    for (int sp = 0; sp < SPANS; ++sp) {
        const int out0 = first + sp * SPAN;
        if (out0 >= nx) /* the same for the whole work-group */
            break;
        if (sp > 0) {
            barrier(CLK_LOCAL_MEM_FENCE); /* the previous span is read */
#pragma unroll
            for (int k = 0; k < CLC_TILE_PER; ++k)
                if (CLC_TILE_HAS(lx, k))
                    tile[PAD_STEP(plx, lx, k)] = next[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (sp + 1 < SPANS)
            tile_share(N, out0 + SPAN - LEFT_X, nx, lx, next COUNTERS_ARG);
#else
    {
        const int out0 = first;
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if MARCH == 2 || MARCH == 3
        float acc[COARSEN];
        clc_window_march(tile, b, M, acc COUNTERS_ARG);
#if MARCH == 3
        for (int c = 0; c < COARSEN; ++c)
            res[PAD_RUN(b, c)] = acc[c];
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < COARSEN; ++k) /* SPAN = COARSEN tile widths */
            if (out0 + lx + k * TILE_WIDTH < nx)
                CLC_ST(P, out0 + lx + k * TILE_WIDTH,
                       res[PAD_STEP(plx, lx, k)]);
#else
        store_run(P, out0 + b, nx, acc);
#endif
#else
        float m[MASK_X];
        for (int j = 0; j < MASK_X; ++j)
            m[j] = M[j];
        float q[MASK_X], o[COARSEN];
        for (int s = 0; s < MASK_X; ++s)
            q[s] = 0.0f;
#pragma unroll
        for (int k = 0; k < COARSEN + MASK_X - 1; ++k) {
            const float v = READ_TILE(tile[PAD_RUN(b, k)]);
            for (int s = 0; s < MASK_X; ++s)
                q[s] += v * m[MASK_X - 1 - s];
            if (k >= MASK_X - 1)
                o[k - (MASK_X - 1)] = q[0];
            for (int s = 0; s < MASK_X - 1; ++s)
                q[s] = q[s + 1];
            q[MASK_X - 1] = 0.0f;
        }
        store_run(P, out0 + b, nx, o);
#endif
    }
    BATCH_END
}
