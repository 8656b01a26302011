/* The FFT path's own steps around VkFFT's transforms (host/lib/fft.c),
 * built after common.clh with the border mode's defines (CLCONV_MODE,
 * CLCONV_CVAL) of the problem. The transform's real layout is VkFFT's
 * in-place R2C one: rows of ROWF = 2 * (Lx / 2 + 1) floats, Ly rows a
 * plane, Lz planes.
 *   fft_pad:  input n.x x n.y x n.z -> the cyclic padded array of len.x x
 *             len.y x len.z: along each axis slot s holds input index s,
 *             or s - len in the last left slots, through the border mode
 *             (clc_load3: the direct kernels' folds and ghost value), so
 *             every output's window -left .. n - 1 + W - 1 - left lies in
 *             the array when len >= n + W - 1
 *   fft_mul:  spectrum *= mask spectrum * scale (complex, pointwise, count
 *             bins)
 *   fft_crop: padded array -> output n.x x n.y x n.z
 * Launches may reach past the array along x (host/lib/limits.c's
 * clc_flat_launch): those work-items do nothing. */

static inline int fft_index(const int s, const int len, const int left)
{
    return s < len - left ? s : s - len;
}

__kernel void fft_pad(const __global float *restrict in,
                      __global float *restrict buf, const int4 n,
                      const int4 len, const int4 left, const int rowf)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= len.x)
        return;
    buf[(z * len.y + y) * rowf + x] =
        clc_load3(in, fft_index(x, len.x, left.x), fft_index(y, len.y, left.y),
                  fft_index(z, len.z, left.z), n.x, n.y, n.z);
}

__kernel void fft_mul(__global float2 *restrict spec,
                      const __global float2 *restrict mask, const float scale,
                      const int count)
{
    const int i = get_global_id(0);
    if (i >= count)
        return;
    const float2 a = spec[i], b = mask[i];
    spec[i] = (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x) * scale;
}

__kernel void fft_crop(const __global float *restrict buf,
                       __global float *restrict out, const int4 n,
                       const int rowf, const int ly)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= n.x)
        return;
    out[(z * n.y + y) * n.x + x] = buf[(z * ly + y) * rowf + x];
}
