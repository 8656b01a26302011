/* Failure injection by the linker's --wrap (test/inject.h): each wrapper
 * counts the calls of its kind while armed and fails the n-th. */
#include <stdlib.h>
#include <string.h>

#include "clconv_cl.h"
#include "inject.h"

static inject_kind armed;
static long count, fail_at;
static const char *fired;

void inject_arm(inject_kind kind, long n)
{
    armed = kind;
    count = 0;
    fail_at = n;
    fired = NULL;
}

void inject_off(void)
{
    armed = INJECT_OFF;
}

const char *inject_fired(void)
{
    return fired;
}

static int fails(inject_kind kind, const char *name)
{
    if (armed != kind || ++count != fail_at)
        return 0;
    fired = name;
    return 1;
}

/* ---- host allocations ---- */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t n)
{
    return fails(INJECT_HOST, "malloc") ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size)
{
    return fails(INJECT_HOST, "calloc") ? NULL : __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n)
{
    return fails(INJECT_HOST, "realloc") ? NULL : __real_realloc(p, n);
}
char *__wrap_strdup(const char *s)
{
    return fails(INJECT_HOST, "strdup") ? NULL : __real_strdup(s);
}
char *__wrap_strndup(const char *s, size_t n)
{
    return fails(INJECT_HOST, "strndup") ? NULL : __real_strndup(s, n);
}

/* ---- OpenCL: calls that create (the error in *errcode_ret, NULL) and
 * calls that return their error ---- */
#define INJECT_CREATE(type, name, code, params, args)                         \
    type __real_##name params;                                                \
    type __wrap_##name params;                                                \
    type __wrap_##name params                                                 \
    {                                                                         \
        if (fails(INJECT_OPENCL, #name)) {                                    \
            if (errcode_ret)                                                  \
                *errcode_ret = code;                                          \
            return NULL;                                                      \
        }                                                                     \
        return __real_##name args;                                            \
    }
#define INJECT_CALL(name, code, params, args)                                 \
    cl_int __real_##name params;                                              \
    cl_int __wrap_##name params;                                              \
    cl_int __wrap_##name params                                               \
    {                                                                         \
        return fails(INJECT_OPENCL, #name) ? code : __real_##name args;       \
    }

INJECT_CREATE(cl_mem, clCreateBuffer, CL_MEM_OBJECT_ALLOCATION_FAILURE,
              (cl_context c, cl_mem_flags f, size_t n, void *h,
               cl_int *errcode_ret), (c, f, n, h, errcode_ret))
INJECT_CREATE(cl_mem, clCreateSubBuffer, CL_OUT_OF_RESOURCES,
              (cl_mem b, cl_mem_flags f, cl_buffer_create_type t,
               const void *i, cl_int *errcode_ret), (b, f, t, i, errcode_ret))
INJECT_CREATE(cl_kernel, clCreateKernel, CL_OUT_OF_HOST_MEMORY,
              (cl_program p, const char *n, cl_int *errcode_ret),
              (p, n, errcode_ret))
INJECT_CREATE(cl_command_queue, clCreateCommandQueue, CL_OUT_OF_HOST_MEMORY,
              (cl_context c, cl_device_id d, cl_command_queue_properties q,
               cl_int *errcode_ret), (c, d, q, errcode_ret))
INJECT_CREATE(cl_program, clCreateProgramWithSource, CL_OUT_OF_HOST_MEMORY,
              (cl_context c, cl_uint n, const char **s, const size_t *l,
               cl_int *errcode_ret), (c, n, s, l, errcode_ret))
INJECT_CREATE(cl_program, clCreateProgramWithBinary, CL_OUT_OF_HOST_MEMORY,
              (cl_context c, cl_uint n, const cl_device_id *d,
               const size_t *l, const unsigned char **b, cl_int *bs,
               cl_int *errcode_ret), (c, n, d, l, b, bs, errcode_ret))
INJECT_CREATE(void *, clEnqueueMapBuffer, CL_MAP_FAILURE,
              (cl_command_queue q, cl_mem b, cl_bool bl, cl_map_flags f,
               size_t o, size_t n, cl_uint nw, const cl_event *w,
               cl_event *e, cl_int *errcode_ret),
              (q, b, bl, f, o, n, nw, w, e, errcode_ret))
INJECT_CALL(clSetKernelArg, CL_OUT_OF_HOST_MEMORY,
            (cl_kernel k, cl_uint i, size_t n, const void *v), (k, i, n, v))
INJECT_CALL(clEnqueueWriteBuffer, CL_OUT_OF_RESOURCES,
            (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t n,
             const void *p, cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, bl, o, n, p, nw, w, e))
INJECT_CALL(clEnqueueReadBuffer, CL_OUT_OF_RESOURCES,
            (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t n,
             void *p, cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, bl, o, n, p, nw, w, e))
/* Not CL_OUT_OF_RESOURCES: plan.c reads that as the driver refusing the
 * work-group (CLCONV_EUNSUPPORTED), by design. */
INJECT_CALL(clEnqueueNDRangeKernel, CL_OUT_OF_HOST_MEMORY,
            (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o,
             const size_t *g, const size_t *l, cl_uint nw, const cl_event *w,
             cl_event *e), (q, k, d, o, g, l, nw, w, e))
INJECT_CALL(clEnqueueFillBuffer, CL_OUT_OF_RESOURCES,
            (cl_command_queue q, cl_mem b, const void *pat, size_t ps,
             size_t o, size_t n, cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, pat, ps, o, n, nw, w, e))
INJECT_CALL(clEnqueueCopyBufferRect, CL_OUT_OF_RESOURCES,
            (cl_command_queue q, cl_mem s, cl_mem d, const size_t *so,
             const size_t *dor, const size_t *r, size_t srp, size_t ssp,
             size_t drp, size_t dsp, cl_uint nw, const cl_event *w,
             cl_event *e), (q, s, d, so, dor, r, srp, ssp, drp, dsp, nw, w, e))
INJECT_CALL(clEnqueueMarkerWithWaitList, CL_OUT_OF_RESOURCES,
            (cl_command_queue q, cl_uint nw, const cl_event *w, cl_event *e),
            (q, nw, w, e))
INJECT_CALL(clFinish, CL_OUT_OF_RESOURCES, (cl_command_queue q), (q))
INJECT_CALL(clFlush, CL_OUT_OF_RESOURCES, (cl_command_queue q), (q))
INJECT_CALL(clWaitForEvents, CL_OUT_OF_RESOURCES,
            (cl_uint n, const cl_event *e), (n, e))
INJECT_CALL(clBuildProgram, CL_OUT_OF_HOST_MEMORY,
            (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
             void(CL_CALLBACK *cb)(cl_program, void *), void *u),
            (p, n, d, o, cb, u))
INJECT_CALL(clGetDeviceInfo, CL_OUT_OF_HOST_MEMORY,
            (cl_device_id d, cl_device_info i, size_t n, void *v, size_t *r),
            (d, i, n, v, r))
INJECT_CALL(clGetMemObjectInfo, CL_OUT_OF_HOST_MEMORY,
            (cl_mem m, cl_mem_info i, size_t n, void *v, size_t *r),
            (m, i, n, v, r))
INJECT_CALL(clGetEventInfo, CL_OUT_OF_HOST_MEMORY,
            (cl_event e, cl_event_info i, size_t n, void *v, size_t *r),
            (e, i, n, v, r))
INJECT_CALL(clGetEventProfilingInfo, CL_OUT_OF_RESOURCES,
            (cl_event e, cl_profiling_info i, size_t n, void *v, size_t *r),
            (e, i, n, v, r))
INJECT_CALL(clGetKernelWorkGroupInfo, CL_OUT_OF_HOST_MEMORY,
            (cl_kernel k, cl_device_id d, cl_kernel_work_group_info i,
             size_t n, void *v, size_t *r), (k, d, i, n, v, r))
INJECT_CALL(clGetProgramInfo, CL_OUT_OF_HOST_MEMORY,
            (cl_program p, cl_program_info i, size_t n, void *v, size_t *r),
            (p, i, n, v, r))
