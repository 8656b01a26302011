/* 3D vector, z-marching: each work-item computes VEC_WIDTH consecutive x
 * outputs of one row y for COARSEN consecutive planes z0.. . It marches
 * once through the input planes z0-R .. z0+COARSEN-1+R; each input row's
 * MASK_WIDTH shifted vectors (vec_taps in common.clh) feed all MASK_WIDTH
 * output planes that the input plane meets, kept as a queue of float16
 * accumulators: slot s holds output plane p-R+s, which input plane p meets
 * with mask plane W-1-s. After plane p the slot-0 plane is complete and
 * stored. So each vector load feeds MASK_WIDTH FMAs instead of one
 * (bench/PERF.md item 13). Rows and planes outside the input are skipped,
 * x borders go through vec_taps' window. */
#ifndef COARSEN
#error "build with -D COARSEN=<planes per work-item>"
#endif

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv3d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx, const int ny,
                   const int nz COUNTERS_PARAM)
{
    BIND_MASK(M);
    const int x0 = get_global_id(0) * VEC_SPAN;
    const int y = get_global_id(1), z0 = get_global_id(2) * COARSEN;
    if (x0 >= nx || z0 >= nz)
        return;
    const bool x_inside = x0 >= RADIUS && x0 + VEC_SPAN + RADIUS <= nx;
    const bool y_inside = y >= RADIUS && y + RADIUS < ny;
    const int z_end = min(z0 + COARSEN, nz);
    float16 q[VEC_QUEUE];
    vec_queue_clear(q);
    for (int p = z0 - RADIUS; p < z_end + RADIUS; ++p) {
        if (p >= 0 && p < nz) {
#pragma unroll
            for (int jy = 0; jy < MASK_WIDTH; ++jy) {
                const int gy = y - RADIUS + jy;
                if (y_inside || (gy >= 0 && gy < ny))
                    vec_queue_add(q, N + (p * ny + gy) * nx,
                                  M + jy * MASK_WIDTH, MASK_WIDTH * MASK_WIDTH,
                                  x0, nx, x_inside);
            }
        }
        const int z = p - RADIUS; /* slot 0's plane, now complete */
        if (z >= z0)
            vec_queue_store(q, P + (z * ny + y) * nx, x0, nx);
        vec_queue_shift(q);
    }
}
