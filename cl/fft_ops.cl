/* The FFT path's own steps around VkFFT's transforms (host/lib/fft.c).
 * The transform's real layout is VkFFT's in-place R2C one: rows of
 * ROWF = 2 * (Lx / 2 + 1) floats, Ly rows a plane, Lz planes.
 *   fft_pad:  input nx x ny x nz -> the padded array, zero beyond it
 *   fft_mul:  spectrum *= mask spectrum * scale (complex, pointwise)
 *   fft_crop: padded array -> output nx x ny x nz */

__kernel void fft_pad(const __global float *restrict in,
                      __global float *restrict buf, const int nx,
                      const int ny, const int nz, const int rowf,
                      const int ly)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    const int inside = x < nx && y < ny && z < nz;
    buf[(z * ly + y) * rowf + x] = inside ? in[(z * ny + y) * nx + x] : 0.0f;
}

__kernel void fft_mul(__global float2 *restrict spec,
                      const __global float2 *restrict mask, const float scale)
{
    const int i = get_global_id(0);
    const float2 a = spec[i], b = mask[i];
    spec[i] = (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x) * scale;
}

__kernel void fft_crop(const __global float *restrict buf,
                       __global float *restrict out, const int nx,
                       const int ny, const int rowf, const int ly)
{
    const int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    out[(z * ny + y) * nx + x] = buf[(z * ly + y) * rowf + x];
}
