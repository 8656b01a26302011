/* 3D vector, z-marching: each work-item computes VEC_WIDTH consecutive x
 * outputs of one row y for COARSEN consecutive planes z0.. . It marches
 * once through the input planes z0-LEFT_Z .. z0+COARSEN-1+RIGHT_Z; each
 * input row's MASK_X shifted vectors (vec_taps in common.clh) feed all
 * MASK_Z output planes that the input plane meets, kept as a queue of
 * floatv accumulators (common.clh's VEC_WIDTH): slot s holds output
 * plane p-RIGHT_Z+s, which input plane p meets with mask plane
 * MASK_Z-1-s. After plane p the slot-0 plane is complete and stored. So
 * each vector load feeds MASK_Z FMAs instead of one (bench/PERF.md item 13); in interior work-items of one block, the
 * march's first and last MASK_Z - 1 planes keep only the slots it stores
 * (VEC_QUEUE_MARCH, item 41). Rows and planes outside the input are
 * skipped in constant mode (their ghost value added when it is not 0) and
 * folded in the other modes; x borders go through vec_taps' window. */
#ifndef COARSEN
#error "build with -D COARSEN=<planes per work-item>"
#endif
/* VEC_PREFETCH (-D from the host, 0 by default): each interior
 * work-item prefetches the rows of the plane that many ahead of the one
 * it computes, through clang's __builtin_prefetch (PoCL's CPUs: their
 * prefetchers do not follow a march's rows, a plane apart; bench/PERF.md
 * item 65). */
#ifndef VEC_PREFETCH
#define VEC_PREFETCH 0
#endif
#if VEC_MARCH != MASK_Z
#error "build with -D VEC_MARCH=<MASK_Z>: the queue marches along z"
#endif

/* Input plane k of the march (z0 - LEFT_Z + k), its MASK_Y rows into slots
 * lo .. hi-1; from k = MASK_Z - 1 on, slot 0's plane z0 + k - (MASK_Z - 1)
 * is complete and stored. inside (a constant where it is called): every
 * plane, row and column the work-item reads exists, and the mask is read
 * at M + *zero (a volatile 0: conv2d_vector.cl says why); xy_inside: every
 * row and column does (the planes ahead are prefetched then). */
CLC_INLINE void conv3d_vector_plane(floatv *q, const __global IN_T *N,
                                    __global OUT_T *P, __constant float *M,
                                    const int nx, const int ny, const int nz,
                                    const int x0, const int y, const int z0,
                                    const int *cols, const int *rows,
                                    const bool x_inside, const bool xy_inside,
                                    const bool inside,
                                    const volatile int *zero, const int k,
                                    const int lo, const int hi)
{
    const int p = z0 - LEFT_Z + k;
    const int plane = (inside ? p : CLC_AT(p, nz)) * ny;
#if defined(__clang__) && VEC_PREFETCH > 0
    if (xy_inside && p + VEC_PREFETCH >= 0 && p + VEC_PREFETCH < nz) {
        const __global IN_T *f =
            N + ((p + VEC_PREFETCH) * ny + y - LEFT_Y) * nx + x0 - LEFT_X;
#pragma unroll
        for (int jy = 0; jy < MASK_Y; ++jy)
#pragma unroll
            for (int c = 0; c < VEC_SPAN + MASK_X - 1;
                 c += 64 / (int)sizeof(IN_T)) /* a cache line */
                __builtin_prefetch(f + jy * nx + c);
    }
#endif
    __constant float *m = inside ? M + *zero : M;
#pragma unroll
    for (int jy = 0; jy < MASK_Y; ++jy) {
        if (inside)
            vec_queue_add(q, N + (plane + y - LEFT_Y + jy) * nx,
                          m + jy * MASK_X, MASK_X * MASK_Y, x0, nx, cols,
                          true, lo, hi);
        else if (CLC_IN(p, nz) && rows[jy] >= 0)
            vec_queue_add(q, N + (plane + rows[jy]) * nx, M + jy * MASK_X,
                          MASK_X * MASK_Y, x0, nx, cols, x_inside, lo, hi);
        else
            VEC_QUEUE_ADD_GHOST(q, M + jy * MASK_X, MASK_X * MASK_Y, lo, hi);
    }
    if (k >= MASK_Z - 1)
        vec_queue_store(q, P + ((z0 + k - (MASK_Z - 1)) * ny + y) * nx, x0,
                        nx);
    vec_queue_shift(q);
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv3d_vector(const __global IN_T *restrict N, __global OUT_T *restrict P,
                   __constant float *M, const int nx, const int ny,
                   const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_SPAN;
    const int y = get_global_id(1), z0 = get_global_id(2) * COARSEN;
    if (x0 >= nx || z0 >= nz)
        return;
    const bool x_inside = x0 >= LEFT_X && x0 + VEC_SPAN + RIGHT_X <= nx;
    const bool y_inside = y >= LEFT_Y && y + RIGHT_Y < ny;
    const bool xy_inside = x_inside && y_inside;
    const int n = min(z0 + COARSEN, nz) - z0;
    /* An x border's columns and a y border's rows, folded once per
     * work-item (clc_index: -1 for a ghost), not per plane. */
    int cols[VEC_COLS], rows[MASK_Y];
    if (!x_inside)
        vec_cols(x0, nx, cols);
#pragma unroll
    for (int jy = 0; jy < MASK_Y; ++jy)
        rows[jy] = y_inside ? y - LEFT_Y + jy : clc_index(y - LEFT_Y + jy, ny);
    floatv q[VEC_QUEUE];
    vec_queue_clear(q);
    volatile int zero = 0; /* see conv2d_vector.cl */
#define PLANE(inside, k, lo, hi)                                              \
    conv3d_vector_plane(q, N, P, M, nx, ny, nz, x0, y, z0, cols, rows,        \
                        x_inside, xy_inside, (inside), &zero, (k), (lo),      \
                        (hi))
    VEC_QUEUE_MARCH(n, MASK_X * MASK_Y,
                    xy_inside && z0 >= LEFT_Z && z0 + n + RIGHT_Z <= nz,
                    PLANE);
#undef PLANE
}
