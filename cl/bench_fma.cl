/* FP32 ceiling: FMA_CHAINS independent chains of FMA_STEPS fused
 * multiply-adds per work-item, each on a vector of FMA_VEC floats (the
 * device's preferred float vector width: 1 on GPUs), 2 FLOP per lane.
 * The values start from the work-item id and the runtime arguments a and
 * b, and the result is only stored when a lane equals the runtime
 * sentinel, so the compiler can neither fold the chains nor drop a lane.
 * The loops have constant trip counts and are fully unrolled: no loop is
 * left inside the work-item, so PoCL can vectorize across work-items. */
#ifndef FMA_CHAINS
#error "build with -D FMA_CHAINS=<independent chains per work-item>"
#endif
#ifndef FMA_STEPS
#error "build with -D FMA_STEPS=<FMAs per chain>"
#endif
#ifndef FMA_VEC
#error "build with -D FMA_VEC=<floats per chain: 1, 2, 4, 8 or 16>"
#endif

#define CLC_CAT_(a, b) a##b
#define CLC_CAT(a, b) CLC_CAT_(a, b)
#if FMA_VEC == 1
typedef float vfloat;
#define HITS(s, v) ((s) == (v))
#else
typedef CLC_CAT(float, FMA_VEC) vfloat;
#define HITS(s, v) any((s) == (vfloat)(v))
#endif

__kernel void bench_fma(__global float *out, const float a, const float b,
                        const float sentinel)
{
    const vfloat seed = (vfloat)((float)get_global_id(0) * 1.0e-7f);
    vfloat x[FMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c)
        x[c] = seed + (vfloat)((float)c * b);
#pragma unroll
    for (int i = 0; i < FMA_STEPS; ++i) {
#pragma unroll
        for (int c = 0; c < FMA_CHAINS; ++c)
            x[c] = fma(x[c], (vfloat)a, (vfloat)b);
    }
    vfloat s = (vfloat)0.0f;
#pragma unroll
    for (int c = 0; c < FMA_CHAINS; ++c)
        s += x[c];
    if (HITS(s, sentinel))
        out[get_global_id(0)] = a;
}
