/* 1D vector: each work-item computes VEC_WIDTH consecutive outputs with
 * explicit vector loads and stores (see conv2d_vector.cl). */
#define VEC_WIDTH 16

__kernel __attribute__((reqd_work_group_size(TILE_WIDTH, 1, 1)))
void conv1d_vector(const __global float *restrict N, __global float *restrict P,
                   __constant float *M, const int nx COUNTERS_PARAM)
{
    const int x0 = get_global_id(0) * VEC_WIDTH;
    if (x0 >= nx)
        return;
    if (x0 >= RADIUS && x0 + VEC_WIDTH + RADIUS <= nx) {
        const __global float *in = N + x0 - RADIUS;
        float16 acc = (float16)(0.0f);
        for (int j = 0; j < MASK_WIDTH; ++j)
            acc += vload16(0, in + j) * M[j];
        vstore16(acc, 0, P + x0);
        return;
    }
    for (int x = x0; x < x0 + VEC_WIDTH && x < nx; ++x)
        P[x] = conv1d_at(N, M, nx, x COUNTERS_ARG);
}
