/* The element types around the separable and FFT paths, whose passes read
 * and write float32 (host/lib/path.c): the input converted to float32
 * before the first pass, the last pass's float32 converted to the output
 * type (rounded to nearest, saturated: dtype.clh's CLC_ST). One element
 * per work-item; n elements. Built with dtype.clh alone. */
__kernel void to_float(const __global IN_T *restrict in,
                       __global float *restrict out, const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        out[i] = CLC_LD(in, i);
}

__kernel void from_float(const __global float *restrict in,
                         __global OUT_T *restrict out, const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        CLC_ST(out, i, in[i]);
}
