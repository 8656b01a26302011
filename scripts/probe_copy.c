/* Probe: how fast can a GPU move the bytes of the u8 -> u8 target
 * (8192^2 uchar in, 8192^2 out) at all? Copies of the same bytes in
 * float4, uchar16, uchar8 and uchar4 per work-item, and a skeleton of the
 * 2D coarse kernel's memory traffic (each work-item reads R+2 rows of an
 * 8-byte vector and its two halo bytes, writes R rows of 8 bytes, one
 * add per output instead of the mask's taps), each timed by profiling
 * events, median of 20 launches after 3. Evidence for bench/PERF.md
 * (issue 17's u8 target on the H200).
 * Build: cc -std=c11 -O2 scripts/probe_copy.c -lOpenCL -o build/probe_copy
 * Usage: build/probe_copy [side (8192)] [platform substring] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_timing.h"

static const char *src =
    "__kernel void f4(__global const float4 *restrict a, __global float4 *restrict b)\n"
    "{ size_t i = get_global_id(0); b[i] = a[i]; }\n"
    "__kernel void u16(__global const uchar16 *restrict a, __global uchar16 *restrict b)\n"
    "{ size_t i = get_global_id(0); b[i] = a[i]; }\n"
    "__kernel void u8(__global const uchar8 *restrict a, __global uchar8 *restrict b)\n"
    "{ size_t i = get_global_id(0); b[i] = a[i]; }\n"
    "__kernel void u4(__global const uchar4 *restrict a, __global uchar4 *restrict b)\n"
    "{ size_t i = get_global_id(0); b[i] = a[i]; }\n"
    /* rows R per work-item, 8 columns; nx a multiple of 8 */
    "__kernel void skel(__global const uchar *restrict a, __global uchar *restrict b,\n"
    "                   const int nx, const int ny)\n"
    "{\n"
    "  const int x = get_global_id(0) * 8, y0 = get_global_id(1) * R;\n"
    "  if (x < 8 || x + 16 > nx || y0 < 1 || y0 + R + 1 > ny) return;\n"
    "  float q[R + 2][8];\n"
    "  for (int r = 0; r < R + 2; ++r) {\n"
    "    const __global uchar *row = a + (size_t)(y0 - 1 + r) * nx + x;\n"
    "    uchar8 v = *(const __global uchar8 *)row;\n"
    "    float8 f = convert_float8(v);\n"
    "    float l = row[-1], h = row[8];\n"
    "    q[r][0] = f.s0 + l; q[r][1] = f.s1; q[r][2] = f.s2; q[r][3] = f.s3;\n"
    "    q[r][4] = f.s4; q[r][5] = f.s5; q[r][6] = f.s6; q[r][7] = f.s7 + h;\n"
    "  }\n"
    "  for (int r = 0; r < R; ++r) {\n"
    "    float8 o = (float8)(q[r][0], q[r][1], q[r][2], q[r][3], q[r][4],\n"
    "                        q[r][5], q[r][6], q[r][7]) + (float8)(q[r + 2][0]);\n"
    "    *(__global uchar8 *)(b + (size_t)(y0 + r) * nx + x) =\n"
    "        convert_uchar8_sat_rte(o);\n"
    "  }\n"
    "}\n";

int main(int argc, char **argv)
{
    const size_t side = argc > 1 ? (size_t)atol(argv[1]) : 8192;
    probe_device d;
    if (!probe_open(argc > 2 ? argv[2] : "NVIDIA", &d))
        return 1;
    cl_int err;
    const size_t bytes = side * side;
    cl_mem a = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    cl_mem b = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    const cl_uchar one = 1;
    CHECK(clEnqueueFillBuffer(d.q, a, &one, 1, 0, bytes, 0, NULL, NULL));
    CHECK(clEnqueueFillBuffer(d.q, b, &one, 1, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(d.q));
    for (int rows = 0; rows <= 16; rows = rows ? rows * 2 : 4) {
        char opts[64];
        snprintf(opts, sizeof opts, "-D R=%d", rows ? rows : 8);
        cl_program prog = probe_build(&d, src, opts);
        if (rows == 0) {
            const char *kn[] = {"f4", "u16", "u8", "u4"};
            const size_t width[] = {16, 16, 8, 4};
            for (int i = 0; i < 4; ++i) {
                cl_kernel k = clCreateKernel(prog, kn[i], &err);
                CHECK(err);
                CHECK(clSetKernelArg(k, 0, sizeof a, &a));
                CHECK(clSetKernelArg(k, 1, sizeof b, &b));
                const size_t g = bytes / width[i], l = 256;
                const double ms = time_kernel(d.q, k, 1, &g, &l);
                printf("%s: copy %-4s %zu MiB each way: %.4f ms, %.0f GB/s\n",
                       d.name, kn[i], bytes >> 20, ms, 2e-6 * bytes / ms);
                clReleaseKernel(k);
            }
        }
        cl_kernel k = clCreateKernel(prog, "skel", &err);
        CHECK(err);
        const int nx = (int)side, ny = (int)side;
        const int r = rows ? rows : 8;
        CHECK(clSetKernelArg(k, 0, sizeof a, &a));
        CHECK(clSetKernelArg(k, 1, sizeof b, &b));
        CHECK(clSetKernelArg(k, 2, sizeof nx, &nx));
        CHECK(clSetKernelArg(k, 3, sizeof ny, &ny));
        const size_t l[2] = {32, 4};
        size_t g[2] = {side / 8, (side + r - 1) / r};
        g[0] = (g[0] + 31) / 32 * 32;
        g[1] = (g[1] + 3) / 4 * 4;
        const double ms = time_kernel(d.q, k, 2, g, l);
        printf("%s: skeleton of 2D coarse u8 (8 columns, %d rows, 32x4): "
               "%.4f ms, %.0f GB/s\n",
               d.name, r, ms, 2e-6 * bytes / ms);
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    probe_close(&d);
    return 0;
}
