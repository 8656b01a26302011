/* Copy ceiling: one float4 per work-item, device memory to device memory.
 * The host counts bytes read + bytes written. */
__kernel void bench_copy(__global const float4 *restrict in,
                         __global float4 *restrict out)
{
    const size_t i = get_global_id(0);
    out[i] = in[i];
}
