/* Probe (bench/PERF.md item 68): does overlapping a work-item's
 * arithmetic with its next rows' loads bring 2D 8192^2 W=3 u8 -> u8 to
 * the memory traffic's own speed? Two kernels, interior work-items only
 * (the border rows and columns are left out of both; their outputs are
 * compared where both wrote):
 *   unr   the 2D coarse kernel's form: 8 columns (an aligned uchar8 and
 *         two halo bytes a row), R output rows, the march over R + 2
 *         input rows fully unrolled (the compiler issues the loads first);
 *         (hunr: the halo bytes taken from the aligned vectors on either
 *         side, as the library's XV_HALO_VECTORS does);
 *   ring  a long rolled march (R rows a work-item) over a ring of 4 input
 *         rows in registers: each row is loaded 4 rows before it is used,
 *         so every warp keeps loads in flight while it computes.
 * The mask is 9 build constants (a baked mask), accumulation in float32,
 * outputs rounded to even and saturated as the library's. Median of 20
 * launches by profiling events.
 * Build: cc -std=c11 -O2 scripts/probe_u8_pipe.c -lOpenCL -o build/probe_u8
 * Usage: build/probe_u8 [side (8192)] [platform substring (NVIDIA)] */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_timing.h"

static const char *src =
    "#define M(j) (j == 0 ? M0 : j == 1 ? M1 : j == 2 ? M2 : j == 3 ? M3 :\\\n"
    "  j == 4 ? M4 : j == 5 ? M5 : j == 6 ? M6 : j == 7 ? M7 : M8)\n"
    "typedef struct { uchar8 v; uchar l, h; } row_t;\n"
    "static inline row_t ld(const __global uchar *restrict a, int nx, int y, int x)\n"
    "{ const __global uchar *p = a + (size_t)y * nx + x; row_t r;\n"
    "  r.v = *(const __global uchar8 *)p;\n"
    "#if HALOV\n"
    "  r.l = (*(const __global uchar8 *)(p - 8)).s7;\n"
    "  r.h = (*(const __global uchar8 *)(p + 8)).s0;\n"
    "#else\n"
    "  r.l = p[-1]; r.h = p[8];\n"
    "#endif\n"
    "  return r; }\n"
    /* input row r into the queue: slot s meets mask row 2 - s */
    "static inline void step(row_t r, float q[3][8])\n"
    "{ float w[10]; float8 f = convert_float8(r.v);\n"
    "  w[0] = r.l; w[1] = f.s0; w[2] = f.s1; w[3] = f.s2; w[4] = f.s3;\n"
    "  w[5] = f.s4; w[6] = f.s5; w[7] = f.s6; w[8] = f.s7; w[9] = r.h;\n"
    "  _Pragma(\"unroll\") for (int s = 0; s < 3; ++s)\n"
    "  _Pragma(\"unroll\") for (int jx = 0; jx < 3; ++jx)\n"
    "  _Pragma(\"unroll\") for (int i = 0; i < 8; ++i)\n"
    "    q[s][i] += w[i + jx] * M((2 - s) * 3 + jx); }\n"
    "static inline void emit(__global uchar *restrict b, int nx, int y, int x, float q[3][8])\n"
    "{ float8 o = (float8)(q[0][0], q[0][1], q[0][2], q[0][3], q[0][4], q[0][5], q[0][6], q[0][7]);\n"
    "  *(__global uchar8 *)(b + (size_t)y * nx + x) = convert_uchar8_sat_rte(o);\n"
    "  _Pragma(\"unroll\") for (int s = 0; s < 2; ++s)\n"
    "  _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[s][i] = q[s + 1][i];\n"
    "  _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[2][i] = 0.0f; }\n"
    "__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))\n"
    "void unr(const __global uchar *restrict a, __global uchar *restrict b, int nx, int ny)\n"
    "{ const int x = get_global_id(0) * 8, y0 = get_global_id(1) * R;\n"
    "  if (x < 8 || x + 16 > nx || y0 < 1 || y0 + R + 1 > ny) return;\n"
    "  float q[3][8] = {{0}};\n"
    "  _Pragma(\"unroll\") for (int k = 0; k < R + 2; ++k) {\n"
    "    step(ld(a, nx, y0 - 1 + k, x), q);\n"
    "    if (k >= 2) emit(b, nx, y0 + k - 2, x, q);\n"
    "    else { _Pragma(\"unroll\") for (int s = 0; s < 2; ++s)\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[s][i] = q[s + 1][i];\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[2][i] = 0.0f; } } }\n"
    /* R + 2 a multiple of 4 */
    "__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))\n"
    "void ring(const __global uchar *restrict a, __global uchar *restrict b, int nx, int ny)\n"
    "{ const int x = get_global_id(0) * 8, y0 = get_global_id(1) * R;\n"
    "  if (x < 8 || x + 16 > nx || y0 < 1 || y0 + R + 1 > ny) return;\n"
    "  float q[3][8] = {{0}};\n"
    "  const int last = ny - 1;\n"
    "  row_t r0 = ld(a, nx, y0 - 1, x), r1 = ld(a, nx, y0, x),\n"
    "        r2 = ld(a, nx, y0 + 1, x), r3 = ld(a, nx, y0 + 2, x);\n"
    "  _Pragma(\"unroll 1\") for (int k = 0; k < R + 2; k += 4) {\n"
    "    const int n = y0 + 3 + k;\n"
    "    step(r0, q); r0 = ld(a, nx, min(n, last), x);\n"
    "    if (k >= 2) emit(b, nx, y0 + k - 2, x, q); else {\n"
    "      _Pragma(\"unroll\") for (int s = 0; s < 2; ++s)\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[s][i] = q[s + 1][i];\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[2][i] = 0.0f; }\n"
    "    step(r1, q); r1 = ld(a, nx, min(n + 1, last), x);\n"
    "    if (k >= 1) emit(b, nx, y0 + k - 1, x, q); else {\n"
    "      _Pragma(\"unroll\") for (int s = 0; s < 2; ++s)\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[s][i] = q[s + 1][i];\n"
    "      _Pragma(\"unroll\") for (int i = 0; i < 8; ++i) q[2][i] = 0.0f; }\n"
    "    step(r2, q); r2 = ld(a, nx, min(n + 2, last), x);\n"
    "    emit(b, nx, y0 + k, x, q);\n"
    "    step(r3, q); r3 = ld(a, nx, min(n + 3, last), x);\n"
    "    emit(b, nx, y0 + k + 1, x, q);\n"
    "  } }\n";

/* Runs kernel kn with R rows on a tx x ty work-group into out (zeroed
 * first); prints its median time. */
static void run(const probe_device *d, const char *kn, int rows, int tx,
                int ty, cl_mem a, cl_mem out, int side, const char *mask)
{
    char opts[512];
    const int halov = kn[0] == 'h';
    if (halov)
        kn += 1;
    snprintf(opts, sizeof opts, "-D R=%d -D TX=%d -D TY=%d -D HALOV=%d %s",
             rows, tx, ty, halov, mask);
    cl_int err;
    cl_program prog = probe_build(d, src, opts);
    cl_kernel k = clCreateKernel(prog, kn, &err);
    CHECK(err);
    const cl_uchar zero = 0;
    CHECK(clEnqueueFillBuffer(d->q, out, &zero, 1, 0, (size_t)side * side, 0,
                              NULL, NULL));
    CHECK(clSetKernelArg(k, 0, sizeof a, &a));
    CHECK(clSetKernelArg(k, 1, sizeof out, &out));
    CHECK(clSetKernelArg(k, 2, sizeof side, &side));
    CHECK(clSetKernelArg(k, 3, sizeof side, &side));
    size_t l[2] = {(size_t)tx, (size_t)ty};
    size_t g[2] = {(size_t)side / 8, ((size_t)side + rows - 1) / rows};
    g[0] = (g[0] + l[0] - 1) / l[0] * l[0];
    g[1] = (g[1] + l[1] - 1) / l[1] * l[1];
    const double ms = time_kernel(d->q, k, 2, g, l);
    printf("%s: %-4s %2d rows, %2dx%d%s: %.4f ms\n", d->name, kn, rows, tx, ty,
           halov ? ", halo from the neighbouring vectors" : "", ms);
    clReleaseKernel(k);
    clReleaseProgram(prog);
}

/* Largest difference between two outputs in the rows both wrote (the
 * ring's first and last strips are left out). */
static int compare(cl_command_queue q, cl_mem x, cl_mem y, int side, int rows)
{
    const size_t n = (size_t)side * side;
    unsigned char *hx = malloc(n), *hy = malloc(n);
    CHECK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, n, hx, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, y, CL_TRUE, 0, n, hy, 0, NULL, NULL));
    int worst = 0;
    for (int yy = rows + 8; yy < side - 2 * rows - 16; ++yy)
        for (int xx = 8; xx < side - 16; ++xx) {
            const int d = abs((int)hx[(size_t)yy * side + xx] -
                              (int)hy[(size_t)yy * side + xx]);
            if (d > worst)
                worst = d;
        }
    /* an output of zero everywhere would compare equal too */
    long sum = 0;
    for (size_t i = 0; i < n; ++i)
        sum += hy[i];
    printf("  (mean output %.1f)\n", (double)sum / (double)n);
    free(hx);
    free(hy);
    return worst;
}

int main(int argc, char **argv)
{
    const int side = argc > 1 ? atoi(argv[1]) : 8192;
    /* a random-looking mask summing to about 1 */
    const char *mask = "-D M0=0.0625f -D M1=0.125f -D M2=0.0711f "
                       "-D M3=0.131f -D M4=0.24f -D M5=0.117f -D M6=0.059f "
                       "-D M7=0.13f -D M8=0.0611f";
    probe_device d;
    if (!probe_open(argc > 2 ? argv[2] : "NVIDIA", &d))
        return 1;
    cl_int err;
    const size_t n = (size_t)side * side;
    unsigned char *h = malloc(n);
    srand(29);
    for (size_t i = 0; i < n; ++i)
        h[i] = (unsigned char)(rand() >> 7);
    cl_mem a = clCreateBuffer(d.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              n, h, &err);
    CHECK(err);
    free(h);
    cl_mem o1 = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    cl_mem o2 = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, n, NULL, &err);
    CHECK(err);
    for (int round = 0; round < 2; ++round) {
        run(&d, "unr", 8, 32, 4, a, o1, side, mask);
        run(&d, "hunr", 8, 32, 4, a, o2, side, mask);
        if (round == 0)
            printf("  unr with the halo from the vectors against unr: "
                   "largest difference %d\n",
                   compare(d.q, o1, o2, side, 8));
        static const int ring_rows[] = {14, 30, 62};
        static const int shapes[][2] = {{32, 4}, {32, 2}, {64, 2}};
        for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
                run(&d, "ring", ring_rows[r], shapes[s][0], shapes[s][1], a,
                    o2, side, mask);
                if (round == 0 && s == 0)
                    printf("  ring %d rows against unr 8: largest "
                           "difference %d\n",
                           ring_rows[r],
                           compare(d.q, o1, o2, side, ring_rows[r]));
            }
    }
    clReleaseMemObject(a);
    clReleaseMemObject(o1);
    clReleaseMemObject(o2);
    probe_close(&d);
    return 0;
}
