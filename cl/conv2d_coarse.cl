/* 2D coarse: a TILE_WIDTH x GROUP_Y work-group; each work-item computes
 * COARSEN consecutive rows of one column. It marches down the input rows
 * y0-R .. y0+COARSEN-1+R once, loading each row's MASK_WIDTH neighbours
 * (through the cache: x is on consecutive work-items, so loads coalesce),
 * and adds them into a queue of MASK_WIDTH accumulators: slot s holds the
 * output row p-R+s, which input row p meets with mask row W-1-s. After row p
 * the slot-0 row is complete and stored. No local memory, no barrier.
 * Interior work-groups take a path without bounds checks. */
#ifndef COARSEN
#error "build with -D COARSEN=<outputs per work-item>"
#endif
#ifndef GROUP_Y
#error "build with -D GROUP_Y=<work-group y extent>"
#endif

#define MARCH_ROWS (COARSEN + MASK_WIDTH - 1)

static inline void conv2d_coarse_march(const __global float *restrict N,
                                       __global float *restrict P,
                                       const float *m, const int nx,
                                       const int ny, const int x, const int y0,
                                       const bool checked COUNTERS_PARAM)
{
    float q[MASK_WIDTH];
    for (int s = 0; s < MASK_WIDTH; ++s)
        q[s] = 0.0f;
#pragma unroll
    for (int k = 0; k < MARCH_ROWS; ++k) {
        const int p = y0 - RADIUS + k;
        const bool row_ok = !checked || (p >= 0 && p < ny);
        float v[MASK_WIDTH];
        for (int jx = 0; jx < MASK_WIDTH; ++jx) {
            const int gx = x - RADIUS + jx;
            v[jx] = (!checked || (row_ok && gx >= 0 && gx < nx))
                        ? LOAD_N(p * nx + gx)
                        : 0.0f;
        }
        for (int s = 0; s < MASK_WIDTH; ++s) {
            /* Slot s now holds output row y0 + k + s - (W-1): skip the
             * slots of rows outside this work-item's COARSEN (at the
             * march's two ends; the unrolled loop folds the test). */
            if (k + s < MASK_WIDTH - 1 || k + s >= MARCH_ROWS)
                continue;
            for (int jx = 0; jx < MASK_WIDTH; ++jx)
                q[s] += v[jx] * m[(MASK_WIDTH - 1 - s) * MASK_WIDTH + jx];
        }
        const int y = p - RADIUS; /* the row slot 0 completed */
        if (k >= MASK_WIDTH - 1 && (!checked || (y < ny && x < nx)))
            P[y * nx + x] = q[0];
        for (int s = 0; s < MASK_WIDTH - 1; ++s)
            q[s] = q[s + 1];
        q[MASK_WIDTH - 1] = 0.0f;
    }
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, GROUP_Y, 1)))
void conv2d_coarse(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny COUNTERS_PARAM)
{
    BIND_MASK(M);
    /* The mask in private registers: read once, reused COARSEN times. */
    float m[MASK_WIDTH * MASK_WIDTH];
    for (int k = 0; k < MASK_WIDTH * MASK_WIDTH; ++k)
        m[k] = M[k];
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * GROUP_Y * COARSEN;
    const int x = ox + get_local_id(0);
    const int y0 = oy + get_local_id(1) * COARSEN;
    const bool interior = ox >= RADIUS && ox + TILE_WIDTH + RADIUS <= nx &&
                          oy >= RADIUS &&
                          oy + GROUP_Y * COARSEN + RADIUS <= ny;
    if (interior)
        conv2d_coarse_march(N, P, m, nx, ny, x, y0, false COUNTERS_ARG);
    else
        conv2d_coarse_march(N, P, m, nx, ny, x, y0, true COUNTERS_ARG);
}
