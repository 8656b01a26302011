/* Measured ceilings of a device: float4 copy bandwidth and FP32 FMA peak,
 * from cl/bench_copy.cl and cl/bench_fma.cl, timed with profiling events. */
#include <stdio.h>
#include <stdlib.h>

#include "clconv_bench.h"
#include "internal.h"

/* Timed launches per ceiling (after the warm-up), and the median. */
enum { CEIL_WARMUP = 2, CEIL_REPS = 10 };

/* FMA kernel shape: independent chains per work-item (enough to cover the
 * FMA latency of a CPU core: 2 pipes x 4 cycles), FMAs per chain. Each
 * chain is a vector of the device's preferred float width: on PoCL that is
 * what makes the FMAs full-width (measured on a 2-core AVX-512 EPYC: 8
 * scalar chains vectorized 8-wide across work-items gave 57-113 GFLOP/s,
 * float16 chains 217 GFLOP/s); GPUs prefer 1 (scalar). */
/* 256 steps rather than 64: on the H100 the kernel's fixed part (seeds,
 * sum, sentinel test) cost 5% at 64 steps (61.7 vs 65.1 TFLOP/s;
 * bench/PERF.md item 10). */
enum { FMA_CHAINS = 8, FMA_STEPS = 256 };

/* $CLCONV_FMA_SHAPE="chains,steps" (the session's overrides, read when it
 * was created) replaces the shape, for measuring other shapes of the
 * ceiling kernel (bench/PERF.md item 10); anything else there is ignored
 * (and said: clconv_session_overrides_ignored). */
static void fma_shape(const clconv_session *s, int *chains, int *steps)
{
    const int *shape = s->overrides.fma_shape;
    *chains = shape[0] ? shape[0] : FMA_CHAINS;
    *steps = shape[0] ? shape[1] : FMA_STEPS;
}

/* Copy buffer size per buffer: far beyond any cache, capped by the device's
 * allocation limit and a quarter of its memory. */
#define COPY_BYTES_GPU (512ull << 20)
#define COPY_BYTES_OTHER (128ull << 20)

/* Each timed FMA launch should last at least this long, so the 1 us timer
 * resolution and the launch cost are noise. */
#define FMA_TARGET_MS 20.0

/* One launch of k over global/local work-items, waited for; *ms gets its
 * profiled duration. */
static clconv_status launch(clconv_session *s, cl_kernel k, size_t global,
                            size_t local, double *ms)
{
    clconv_status st = CLCONV_OK;
    cl_event ev = NULL;
    cl_ulong t0 = 0, t1 = 0;
    cl_int exec = 0;
    CLC_CHECK_GOTO(clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global,
                                          &local, 0, NULL, &ev));
    CLC_CHECK_GOTO(clWaitForEvents(1, &ev));
    CLC_CHECK_GOTO(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof exec, &exec, NULL));
    if (exec < 0) {
        st = clc_cl_fail("kernel execution", exec, __FILE__, __LINE__);
        goto out;
    }
    CLC_CHECK_GOTO(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                           sizeof t0, &t0, NULL));
    CLC_CHECK_GOTO(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                           sizeof t1, &t1, NULL));
    *ms = (double)(t1 - t0) * 1e-6;
out:
    if (ev)
        clReleaseEvent(ev);
    return st;
}

/* Warm-up, CEIL_REPS timed launches, median in *ms. */
static clconv_status median_ms(clconv_session *s, cl_kernel k, size_t global,
                               size_t local, double *ms)
{
    double t[CEIL_REPS];
    clconv_status st = CLCONV_OK;
    for (int i = 0; i < CEIL_WARMUP && st == CLCONV_OK; ++i)
        st = launch(s, k, global, local, &t[0]);
    for (int i = 0; i < CEIL_REPS && st == CLCONV_OK; ++i)
        st = launch(s, k, global, local, &t[i]);
    if (st != CLCONV_OK)
        return st;
    clconv_timing tm;
    clconv_timing_of(t, CEIL_REPS, &tm);
    *ms = tm.median_ms;
    return CLCONV_OK;
}

/* The work-group size for the ceiling kernels: 256, or the device's
 * maximum if smaller. */
static size_t group_size(const clconv_session *s)
{
    size_t local = 256;
    if (s->dev.max_work_group_size < local)
        local = s->dev.max_work_group_size;
    if (s->dev.max_work_item_sizes[0] < local)
        local = s->dev.max_work_item_sizes[0];
    return local ? local : 1;
}

static clconv_status measure_copy(clconv_session *s, unsigned long long want,
                                  double *gbs)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem in = NULL, out_buf = NULL;
    const size_t local = group_size(s);
    const size_t quantum = local * 4 * sizeof(float);
    unsigned long long bytes = want ? want
                               : s->dev.kind == CLCONV_DEVICE_GPU
                                   ? COPY_BYTES_GPU
                                   : COPY_BYTES_OTHER;
    if (bytes > s->dev.max_alloc_bytes)
        bytes = s->dev.max_alloc_bytes;
    if (bytes > s->dev.global_mem_bytes / 4)
        bytes = s->dev.global_mem_bytes / 4;
    bytes -= bytes % quantum;
    if (bytes == 0)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "copy ceiling: the device cannot allocate %zu bytes",
                        quantum);
    const size_t global = (size_t)(bytes / (4 * sizeof(float)));
    double ms = 0.0;

    st = clc_program_get(s, "bench_copy", "", 0, &prog);
    if (st != CLCONV_OK)
        return st;
    CLC_CREATE_GOTO(k, clCreateKernel(prog, "bench_copy", &err));
    CLC_CREATE_GOTO(in, clCreateBuffer(s->context, CL_MEM_READ_ONLY,
                                       (size_t)bytes, NULL, &err));
    CLC_CREATE_GOTO(out_buf, clCreateBuffer(s->context, CL_MEM_WRITE_ONLY,
                                            (size_t)bytes, NULL, &err));
    /* Touch the input so no driver can skip pages it never wrote. */
    const float one = 1.0f;
    CLC_CHECK_GOTO(clEnqueueFillBuffer(s->queue, in, &one, sizeof one, 0,
                                       (size_t)bytes, 0, NULL, NULL));
    CLC_CHECK_GOTO(clFinish(s->queue));
    CLC_CHECK_GOTO(clSetKernelArg(k, 0, sizeof in, &in));
    CLC_CHECK_GOTO(clSetKernelArg(k, 1, sizeof out_buf, &out_buf));
    st = median_ms(s, k, global, local, &ms);
    if (st != CLCONV_OK)
        goto out;
    if (ms <= 0.0) {
        st = clc_fail(CLCONV_EOPENCL, "copy ceiling: the profiler reported "
                                      "a zero duration");
        goto out;
    }
    *gbs = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
out:
    if (out_buf)
        clReleaseMemObject(out_buf);
    if (in)
        clReleaseMemObject(in);
    if (k)
        clReleaseKernel(k);
    return st;
}

static clconv_status measure_fma(clconv_session *s, double *gflops)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem out_buf = NULL;
    char options[128];
    const size_t local = group_size(s);
    /* Start with a few waves of work-groups per compute unit; grow until
     * one launch lasts FMA_TARGET_MS. */
    size_t groups = (size_t)(s->dev.compute_units ? s->dev.compute_units : 1) * 8;
    const size_t max_groups = ((size_t)1 << 28) / local;
    const float a = 0.999f, b = 0.001f, sentinel = -1.0f;
    double ms = 0.0;

    cl_uint vec = 1;
    CLC_CHECK(clGetDeviceInfo(s->device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
                              sizeof vec, &vec, NULL));
    if (vec != 2 && vec != 4 && vec != 8 && vec != 16)
        vec = 1;
    int chains, steps;
    fma_shape(s, &chains, &steps);
    const double flop_per_item = 2.0 * chains * steps * vec;
    snprintf(options, sizeof options,
             "-D FMA_CHAINS=%d -D FMA_STEPS=%d -D FMA_VEC=%u",
             chains, steps, vec);
    st = clc_program_get(s, "bench_fma", options, 0, &prog);
    if (st != CLCONV_OK)
        return st;
    CLC_CREATE_GOTO(k, clCreateKernel(prog, "bench_fma", &err));
    CLC_CREATE_GOTO(out_buf, clCreateBuffer(s->context, CL_MEM_WRITE_ONLY,
                                            max_groups * local * sizeof(float),
                                            NULL, &err));
    CLC_CHECK_GOTO(clSetKernelArg(k, 0, sizeof out_buf, &out_buf));
    CLC_CHECK_GOTO(clSetKernelArg(k, 1, sizeof a, &a));
    CLC_CHECK_GOTO(clSetKernelArg(k, 2, sizeof b, &b));
    CLC_CHECK_GOTO(clSetKernelArg(k, 3, sizeof sentinel, &sentinel));
    /* Calibrate: the first launch also absorbs the build of the work-group
     * function (PoCL compiles per local size). */
    if ((st = launch(s, k, groups * local, local, &ms)) != CLCONV_OK)
        goto out;
    for (int i = 0; i < 24 && groups < max_groups; ++i) {
        if ((st = launch(s, k, groups * local, local, &ms)) != CLCONV_OK)
            goto out;
        if (ms >= FMA_TARGET_MS)
            break;
        double scale = ms > 0.0 ? 1.2 * FMA_TARGET_MS / ms : 16.0;
        if (scale > 16.0)
            scale = 16.0;
        if (scale < 2.0)
            scale = 2.0;
        groups = (size_t)((double)groups * scale);
        if (groups > max_groups)
            groups = max_groups;
    }
    st = median_ms(s, k, groups * local, local, &ms);
    if (st != CLCONV_OK)
        goto out;
    if (ms <= 0.0) {
        st = clc_fail(CLCONV_EOPENCL, "FMA ceiling: the profiler reported a "
                                      "zero duration");
        goto out;
    }
    *gflops = flop_per_item * (double)(groups * local) / (ms * 1e-3) / 1e9;
out:
    if (out_buf)
        clReleaseMemObject(out_buf);
    if (k)
        clReleaseKernel(k);
    return st;
}

clconv_status clconv_measure_ceilings(clconv_session *s, clconv_ceilings *c)
{
    if (!s || !c)
        return clc_fail(CLCONV_EINVAL,
                        "no session or nowhere to put the ceilings (NULL)");
    clconv_ceilings m = {0.0, 0.0};
    clconv_status st = measure_copy(s, 0, &m.copy_gbs);
    if (st == CLCONV_OK)
        st = measure_fma(s, &m.fp32_gflops);
    if (st == CLCONV_OK) {
        *c = m;
        /* The automatic method's cost model uses them from now on. */
        s->copy_gbs = m.copy_gbs;
        s->fp32_gflops = m.fp32_gflops;
    }
    return st;
}

clconv_status clconv_measure_copy(clconv_session *s, size_t bytes,
                                  double *gbs)
{
    if (!s || !gbs)
        return clc_fail(CLCONV_EINVAL,
                        "no session or nowhere to put the GB/s (NULL)");
    *gbs = 0.0;
    return measure_copy(s, bytes ? bytes : 1, gbs);
}
