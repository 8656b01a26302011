/* The probes' shared parts (scripts/probe_copy.c, probe_u8_pipe.c):
 * CHECK reports a failed OpenCL call by name and exits; time_kernel is
 * the median of 20 launches after 3, by profiling events, in ms;
 * probe_open makes a context and a profiling queue on the first device
 * of the first platform whose name holds want; probe_build builds src
 * with options or exits with the build log. */
#ifndef PROBE_TIMING_H
#define PROBE_TIMING_H
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(e)                                                          \
    do {                                                                  \
        cl_int rc_ = (e);                                                 \
        if (rc_ != CL_SUCCESS) {                                          \
            fprintf(stderr, "%s failed: %d (line %d)\n", #e, rc_, __LINE__); \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

static int probe_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double time_kernel(cl_command_queue q, cl_kernel k, int dims,
                          const size_t *g, const size_t *l)
{
    double ms[20];
    for (int i = 0; i < 23; ++i) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(q, k, (cl_uint)dims, NULL, g, l, 0, NULL,
                                     &ev));
        CHECK(clWaitForEvents(1, &ev));
        cl_ulong t0, t1;
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                      sizeof t0, &t0, NULL));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                      sizeof t1, &t1, NULL));
        clReleaseEvent(ev);
        if (i >= 3)
            ms[i - 3] = (double)(t1 - t0) * 1e-6;
    }
    qsort(ms, 20, sizeof *ms, probe_cmp);
    return 0.5 * (ms[9] + ms[10]);
}
typedef struct probe_device {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    char name[256];
} probe_device;

/* 0 where no platform's name holds want. */
static int probe_open(const char *want, probe_device *d)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    for (cl_uint p = 0; p < np && p < 8; ++p) {
        char pname[256];
        CHECK(clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname,
                                pname, NULL));
        if (!strstr(pname, want))
            continue;
        cl_int err;
        CHECK(clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 1, &d->dev, NULL));
        CHECK(clGetDeviceInfo(d->dev, CL_DEVICE_NAME, sizeof d->name, d->name,
                              NULL));
        d->ctx = clCreateContext(NULL, 1, &d->dev, NULL, NULL, &err);
        CHECK(err);
        d->q = clCreateCommandQueue(d->ctx, d->dev, CL_QUEUE_PROFILING_ENABLE,
                                    &err);
        CHECK(err);
        return 1;
    }
    fprintf(stderr, "no OpenCL platform named like '%s'\n", want);
    return 0;
}

static cl_program probe_build(const probe_device *d, const char *src,
                              const char *options)
{
    cl_int err;
    cl_program prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    CHECK(err);
    if (clBuildProgram(prog, 1, &d->dev, options, NULL, NULL) != CL_SUCCESS) {
        char log[16384] = "";
        clGetProgramBuildInfo(prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log,
                              log, NULL);
        fprintf(stderr, "build failed [%s]:\n%s\n", options, log);
        exit(1);
    }
    return prog;
}

static void probe_close(probe_device *d)
{
    clReleaseCommandQueue(d->q);
    clReleaseContext(d->ctx);
}
#endif
