/* One pass of a separable filter: the 1D mask SEP_MASK_VALUES (MASK_X
 * taps, odd or even, compiled in as constants like the "baked" mask mode)
 * correlated along axis AXIS (0 = x, 1 = y, 2 = z) of an nx x ny x nz
 * array, with common.clh's window and border mode along that axis:
 *   out[.., i, ..] = sum_j in[.., i - LEFT_X + j, ..] * m[j],
 * LEFT_X = MASK_X / 2 + ORIGIN_X, indices outside 0..len-1 folded
 * (CLC_AT) or, in constant mode, the ghost value CLC_GHOST (-D
 * CLCONV_CVAL: the host passes each pass its own, see
 * host/lib/separable.c). The host runs one pass per axis, x first, the
 * intermediates staying on the device.
 *
 * AXIS 0: a work-group of TILE_WIDTH work-items loads TILE_WIDTH * COARSEN
 * consecutive outputs' inputs of one row (halo included) into local memory
 * with coalesced loads. On GPUs (LANES 1) each work-item then computes
 * COARSEN consecutive outputs from a register window of COARSEN inputs
 * that slides one element per tap (common.clh's clc_window_march:
 * COARSEN + W - 1 local reads for COARSEN outputs, the taps unrolled so
 * the mask is immediates, or for wide masks in rolled blocks), and the
 * outputs go back through a local staging row so the stores are
 * coalesced (bench/PERF.md item 37). On CPUs (LANES 16) each work-item
 * computes COARSEN adjacent float16 blocks, SEP_XB of them at a time
 * from shared loads (item 54).
 * AXIS 1 and 2: one work-item per x column (LANES 1) or float16 of
 * columns (LANES 16), reads coalesced along x, each computing COARSEN
 * consecutive outputs along the axis, no local memory, no barrier. On
 * GPUs a register window of COARSEN inputs slides one row per tap
 * (COARSEN + W - 1 loads for COARSEN outputs), the taps unrolled; on
 * CPUs each tap's rows go to COARSEN independent accumulators (sep_march
 * below). A work-group is TILE_WIDTH columns by SEP_GROUP_A work-items
 * along the axis, each COARSEN outputs after the last one's, which read
 * W - 1 of the same rows (through the cache). Only the work-groups
 * (AXIS 0) or work-items whose inputs reach past the data fold indices;
 * the others load plainly. */
#ifndef AXIS
#error "build with -D AXIS=<0, 1 or 2>"
#endif
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif
#ifndef SEP_MASK_VALUES
#error "build with -D SEP_MASK_VALUES=<MASK_X floats>"
#endif
#ifndef LANES
#error "build with -D LANES=<1, or 16: float16 of x per work-item (CPUs)>"
#endif
#ifndef SEP_GROUP_A
#error "build with -D SEP_GROUP_A=<work-items along the axis (y, z passes)>"
#endif

__constant float sep_mask[MASK_X] = {SEP_MASK_VALUES};

/* The taps unrolled up to 4096 FMAs per work-item (the NVIDIA compiler
 * slows down on longer bodies; beyond, the compiler's own choice): on
 * GPUs (LANES 1) in every pass, so the window slides by renaming
 * registers and the mask is immediates; on CPUs (LANES 16) in the x pass,
 * which then ran 2.1x faster on PoCL (bench/PERF.md item 37), not in the
 * y and z passes, which ran 10% slower. */
#define SEP_UNROLLED (CLC_WINDOW_UNROLLED && (LANES == 1 || AXIS == 0))

/* CPUs' x pass (LANES 16): SEP_XB adjacent float16 output blocks computed
 * together, sharing their loads: 2 beyond 64 taps (16-core Xeon, 2D
 * 8192^2 Gaussian W=101: 70.2-70.7 ms against 77-97; at W=31 2 and 4
 * blocks were slower, 33-41 ms against 25-32; bench/PERF.md item 54),
 * else 1. -D SEP_XB=N (dividing COARSEN) sets it. */
#ifndef SEP_XB
#if MASK_X > 64 && COARSEN % 2 == 0
#define SEP_XB 2
#else
#define SEP_XB 1
#endif
#endif
#if COARSEN % SEP_XB != 0
#error "SEP_XB must divide COARSEN"
#endif

#if LANES == 16
/* LANES 16 (CPUs): each work-item computes float16 blocks of consecutive
 * x outputs with explicit vector loads and stores, as the vector strategy
 * does; row ends go through a private copy. */
static inline float16 load16(const __global float *in, int i, int x, int nx)
{
    if (x + 16 <= nx)
        return vload16(0, in + i);
    float a[16];
    for (int k = 0; k < 16; ++k)
        a[k] = x + k < nx ? in[i + k] : 0.0f;
    return vload16(0, a);
}

#define VEC float16
#define LOAD(i, x) load16(in, (i), (x), nx)
#define STORE(i, x, v) clc_store16(out + (i), (x), nx, (v))
#else
#define VEC float
#define LOAD(i, x) ((x) < nx ? in[(i)] : 0.0f)
#define STORE(i, x, v)                                                       \
    do {                                                                     \
        if ((x) < nx)                                                        \
            out[(i)] = (v);                                                  \
    } while (0)
#endif

#if AXIS == 0
#define SPAN (TILE_WIDTH * COARSEN * LANES)
#define TILE_LEN (SPAN + MASK_X - 1)
#if LANES == 1
#define PAD(i) CLC_PAD(i)
#define PAD_STEP(plx, lx, k) CLC_PAD_STEP(CLC_PAD, CLC_PAD_PERIOD, plx, lx, k)
#else
#define PAD(i) (i)
#endif

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void sep_pass(const __global float *restrict in, __global float *restrict out,
              const int nx, const int ny, const int nz)
{
    __local float tile[PAD(TILE_LEN) + 1];
    const int lx = get_local_id(0);
    const int row = (get_global_id(2) * ny + get_global_id(1)) * nx;
    const int x0 = get_group_id(0) * SPAN;
    /* Only work-groups whose span reaches past a row end fold indices;
     * the others' loads and local stores are immediate offsets from one
     * address each (the walk unrolled, CLC_PAD_STEP). */
    if (x0 - LEFT_X >= 0 && x0 - LEFT_X + TILE_LEN <= nx) {
#if LANES == 1
        const __global float *src = in + row + x0 - LEFT_X + lx;
        const int plx = PAD(lx);
#pragma unroll
        for (int k = 0; k < CLC_TILE_PER; ++k)
            if (CLC_TILE_HAS(lx, k))
                tile[PAD_STEP(plx, lx, k)] = src[k * TILE_WIDTH];
#else
        for (int t = lx; t < TILE_LEN; t += TILE_WIDTH)
            tile[t] = in[row + x0 - LEFT_X + t];
#endif
    } else
        for (int t = lx; t < TILE_LEN; t += TILE_WIDTH) {
            const int g = x0 - LEFT_X + t;
            tile[PAD(t)] =
                CLC_IN(g, nx) ? in[row + CLC_AT(g, nx)] : CLC_GHOST;
        }
    barrier(CLK_LOCAL_MEM_FENCE);
#if LANES == 16
    /* SEP_XB adjacent float16 blocks at a time share their loads: input
     * vector o + j serves block b's tap j - 16 b, so W + 16 (XB - 1)
     * loads feed XB W FMAs (one load per FMA with XB 1). */
    for (int c0 = 0; c0 < COARSEN; c0 += SEP_XB) {
        const int o = (lx * COARSEN + c0) * LANES;
        VEC acc[SEP_XB];
        for (int b = 0; b < SEP_XB; ++b)
            acc[b] = 0.0f;
#if SEP_UNROLLED
#pragma unroll
#endif
        for (int j = 0; j < MASK_X + 16 * (SEP_XB - 1); ++j) {
            const VEC v = vload16(0, tile + o + j);
#pragma unroll
            for (int b = 0; b < SEP_XB; ++b)
                if (j - 16 * b >= 0 && j - 16 * b < MASK_X)
                    acc[b] += v * sep_mask[j - 16 * b];
        }
        for (int b = 0; b < SEP_XB; ++b)
            STORE(row + x0 + o + 16 * b, x0 + o + 16 * b, acc[b]);
    }
#else
    __local float res[PAD(SPAN) + 1];
    const int b = lx * COARSEN; /* first output, relative to x0 */
    float acc[COARSEN];
    clc_window_march(tile, b, sep_mask, acc);
    for (int c = 0; c < COARSEN; ++c)
        res[CLC_RUN(PAD(b), c)] = acc[c];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The span's COARSEN stores per work-item, as the tile's loads. */
    __global float *dst = out + row + x0 + lx;
    const int plx = PAD(lx);
    if (x0 + SPAN <= nx) {
#pragma unroll
        for (int k = 0; k < COARSEN; ++k)
            dst[k * TILE_WIDTH] = res[PAD_STEP(plx, lx, k)];
    } else {
        for (int k = 0; k < COARSEN; ++k)
            if (x0 + lx + k * TILE_WIDTH < nx)
                dst[k * TILE_WIDTH] = res[PAD_STEP(plx, lx, k)];
    }
#endif
}
#else
/* Row r of the window (edge: it may lie outside 0..len-1, then the border
 * mode's value; otherwise a plain load). */
#define SEP_ROW(r, edge)                                                     \
    ((!(edge) || CLC_IN((r), len))                                           \
         ? LOAD(base + ((edge) ? CLC_AT((r), len) : (r)) * stride, x)        \
         : CLC_GHOST)

/* COARSEN outputs a0.. along the axis; called with edge a constant, so
 * the interior copy has no fold at all.
 * CPUs (LANES 16): each tap adds its row to all COARSEN accumulators,
 * COARSEN independent chains of FMAs that hide the FMA's latency, the
 * rows read again from the cache for each output; an interior work-item
 * whose block lies inside the row walks a pointer down the rows
 * (bench/PERF.md item 46).
 * GPUs (LANES 1): a register window of COARSEN inputs slides one row per
 * tap, COARSEN + W - 1 loads for COARSEN outputs. */
CLC_INLINE void sep_march(const __global float *in, __global float *out,
                          const int nx, const int len, const int stride,
                          const int base, const int x, const int a0,
                          const bool edge)
{
    VEC acc[COARSEN];
    for (int c = 0; c < COARSEN; ++c)
        acc[c] = 0.0f;
#if LANES == 16
    if (!edge && x + 16 <= nx) {
        const __global float *p = in + base + (a0 - LEFT_X) * stride;
        for (int j = 0; j < MASK_X; ++j, p += stride) {
            const float m = sep_mask[j];
#pragma unroll
            for (int c = 0; c < COARSEN; ++c)
                acc[c] += vload16(0, p + c * stride) * m;
        }
    } else {
        for (int j = 0; j < MASK_X; ++j) {
            const float m = sep_mask[j];
#pragma unroll
            for (int c = 0; c < COARSEN; ++c)
                acc[c] += SEP_ROW(a0 - LEFT_X + c + j, edge) * m;
        }
    }
#else
    VEC win[COARSEN];
    if (!edge) {
        /* A pointer walks down the rows: one add per row, where an index
         * times the stride cost the H100 4.5 instructions per load
         * (bench/PERF.md item 51). A work-item past the row's end reads
         * the last column (its outputs are not stored), so no load is
         * predicated and no register zeroed for it (item 52). */
        const __global float *p =
            in + base + (min(x, nx - 1) - x) + (a0 - LEFT_X) * stride;
        for (int c = 0; c < COARSEN; ++c, p += stride)
            win[c] = *p;
#if SEP_UNROLLED
#pragma unroll
#endif
        for (int j = 0; j < MASK_X; ++j, p += stride) {
            const float m = sep_mask[j];
            for (int c = 0; c < COARSEN; ++c)
                acc[c] += win[c] * m;
            for (int c = 0; c < COARSEN - 1; ++c)
                win[c] = win[c + 1];
            if (j < MASK_X - 1)
                win[COARSEN - 1] = *p;
        }
    } else {
        for (int c = 0; c < COARSEN; ++c)
            win[c] = SEP_ROW(a0 - LEFT_X + c, true);
#if SEP_UNROLLED
#pragma unroll
#endif
        for (int j = 0; j < MASK_X; ++j) {
            const float m = sep_mask[j];
            for (int c = 0; c < COARSEN; ++c)
                acc[c] += win[c] * m;
            for (int c = 0; c < COARSEN - 1; ++c)
                win[c] = win[c + 1];
            win[COARSEN - 1] = SEP_ROW(a0 - LEFT_X + j + COARSEN, true);
        }
    }
#endif
    for (int c = 0; c < COARSEN; ++c)
        if (a0 + c < len)
            STORE(base + (a0 + c) * stride, x, acc[c]);
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, SEP_GROUP_A, 1)))
void sep_pass(const __global float *restrict in, __global float *restrict out,
              const int nx, const int ny, const int nz)
{
    /* No early return for x beyond the row: a uniform body lets CPU
     * compilers vectorise; only loads and stores are guarded. */
    const int x = get_global_id(0) * LANES;
#if AXIS == 1
    const int len = ny, stride = nx;
    const int base = get_global_id(2) * nx * ny + x;
#else
    const int len = nz, stride = nx * ny;
    const int base = get_global_id(2) * nx + x;
#endif
    const int a0 = get_global_id(1) * COARSEN;
#if SEP_GROUP_A > 1
    if (a0 >= len) /* the axis's last work-group, rounded up */
        return;
#endif
    /* The window reads rows a0 - LEFT_X .. a0 - LEFT_X + MASK_X + COARSEN
     * - 1 (one past the last tap). */
    if (a0 - LEFT_X >= 0 && a0 - LEFT_X + MASK_X + COARSEN <= len)
        sep_march(in, out, nx, len, stride, base, x, a0, false);
    else
        sep_march(in, out, nx, len, stride, base, x, a0, true);
}
#endif
