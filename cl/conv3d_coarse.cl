/* 3D coarse (z-marching, "2.5D"): a TILE_WIDTH x GROUP_Y work-group covers
 * an x-y patch; each work-item computes COARSEN consecutive planes of one
 * (x, y) column. It marches through the input planes z0-R .. z0+COARSEN-1+R
 * once, loading each plane's MASK_WIDTH^2 in-plane neighbours (through the
 * cache) and adding them into a queue of MASK_WIDTH accumulators: slot s
 * holds output plane p-R+s, which input plane p meets with mask plane
 * W-1-s. After plane p the slot-0 plane is complete and stored. No local
 * memory, no barrier. Interior work-groups skip the bounds checks. */
#ifndef COARSEN
#error "build with -D COARSEN=<planes per work-item>"
#endif
#ifndef GROUP_Y
#error "build with -D GROUP_Y=<work-group y extent>"
#endif

#define MARCH_PLANES (COARSEN + MASK_WIDTH - 1)
#define MASK3 (MASK_WIDTH * MASK_WIDTH * MASK_WIDTH)
/* Masks up to 5^3 live in registers (read once, reused for every plane);
 * larger ones are read from __constant. */
#if MASK3 <= 125
#define MASK_IN_REGISTERS 1
#endif

#ifdef MASK_IN_REGISTERS
#define MASK_T const float *
#else
#define MASK_T __constant float *
#endif

static inline void conv3d_coarse_march(const __global float *restrict N,
                                       __global float *restrict P, MASK_T m,
                                       const int nx, const int ny,
                                       const int nz, const int x, const int y,
                                       const int z0,
                                       const bool checked COUNTERS_PARAM)
{
    float q[MASK_WIDTH];
    for (int s = 0; s < MASK_WIDTH; ++s)
        q[s] = 0.0f;
#if MARCH_PLANES * MASK3 <= 2048
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int k = 0; k < MARCH_PLANES; ++k) {
        const int p = z0 - RADIUS + k;
        const bool plane_ok = !checked || (p >= 0 && p < nz);
        float v[MASK_WIDTH][MASK_WIDTH];
        for (int jy = 0; jy < MASK_WIDTH; ++jy) {
            const int gy = y - RADIUS + jy;
            const bool row_ok = !checked || (plane_ok && gy >= 0 && gy < ny);
            for (int jx = 0; jx < MASK_WIDTH; ++jx) {
                const int gx = x - RADIUS + jx;
                v[jy][jx] = (!checked || (row_ok && gx >= 0 && gx < nx))
                                ? LOAD_N((p * ny + gy) * nx + gx)
                                : 0.0f;
            }
        }
        for (int s = 0; s < MASK_WIDTH; ++s)
            for (int jy = 0; jy < MASK_WIDTH; ++jy)
                for (int jx = 0; jx < MASK_WIDTH; ++jx)
                    q[s] += v[jy][jx] *
                            m[((MASK_WIDTH - 1 - s) * MASK_WIDTH + jy) *
                                  MASK_WIDTH +
                              jx];
        const int z = p - RADIUS; /* the plane slot 0 completed */
        if (k >= MASK_WIDTH - 1 &&
            (!checked || (z < nz && y < ny && x < nx)))
            P[(z * ny + y) * nx + x] = q[0];
        for (int s = 0; s < MASK_WIDTH - 1; ++s)
            q[s] = q[s + 1];
        q[MASK_WIDTH - 1] = 0.0f;
    }
}

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, GROUP_Y, 1)))
void conv3d_coarse(const __global float *restrict N, __global float *restrict P,
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
    const int ox = get_group_id(0) * TILE_WIDTH;
    const int oy = get_group_id(1) * GROUP_Y;
    const int z0 = get_group_id(2) * COARSEN;
    const int x = ox + get_local_id(0), y = oy + get_local_id(1);
    const bool interior =
        ox >= RADIUS && ox + TILE_WIDTH + RADIUS <= nx && oy >= RADIUS &&
        oy + GROUP_Y + RADIUS <= ny && z0 >= RADIUS &&
        z0 + COARSEN + RADIUS <= nz;
    if (interior)
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y, z0, false COUNTERS_ARG);
    else
        conv3d_coarse_march(N, P, m, nx, ny, nz, x, y, z0, true COUNTERS_ARG);
}
