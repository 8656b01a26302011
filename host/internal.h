/* Internal declarations shared by libclconv's files (prefix clc_). Not part
 * of the public API. */
#ifndef CLCONV_INTERNAL_H
#define CLCONV_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdarg.h>

#include "clconv.h"

/* ---- error.c ---- */
#if defined(__GNUC__)
#define CLC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLC_PRINTF(a, b)
#endif

/* Set this thread's last error and return st. */
clconv_status clc_fail(clconv_status st, const char *fmt, ...) CLC_PRINTF(2, 3);

/* ---- clerr.c ---- */
/* Record a failed OpenCL call: "clFoo failed: CL_BAR (file:line)". */
clconv_status clc_cl_fail(const char *call, cl_int err, const char *file,
                          int line);

/* Check an OpenCL call in a function that returns clconv_status and owns
 * no objects. */
#define CLC_CHECK(call)                                                       \
    do {                                                                      \
        cl_int clc_err_ = (call);                                             \
        if (clc_err_ != CL_SUCCESS)                                           \
            return clc_cl_fail(#call, clc_err_, __FILE__, __LINE__);          \
    } while (0)

/* Check an OpenCL call in a function that releases its objects at `out:`;
 * sets the variable `st`. */
#define CLC_CHECK_GOTO(call)                                                  \
    do {                                                                      \
        cl_int clc_err_ = (call);                                             \
        if (clc_err_ != CL_SUCCESS) {                                         \
            st = clc_cl_fail(#call, clc_err_, __FILE__, __LINE__);            \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* ---- variants.c: geometry of each strategy, as a table ---- */
typedef struct clc_geometry {
    size_t local[3];     /* work-group size per dimension */
    size_t global[3];    /* global size per dimension */
    size_t local_floats; /* __local floats the kernel declares */
} clc_geometry;

typedef struct clc_variant {
    clconv_strategy strategy;
    const char *name;    /* "output_tile" */
    const char *summary; /* one line for --help and reports */
    /* Work-group width per dimension as a function of tile and mask. */
    size_t (*group_width)(int tile, int mask);
    /* Local-memory floats per dimension (raised to dims), 0 if none. */
    size_t (*local_width)(int tile, int mask);
} clc_variant;

const clc_variant *clc_variant_get(clconv_strategy s);
/* Fill geometry for a problem. */
void clc_geometry_of(const clconv_problem *p, clc_geometry *g);

/* ---- program.c ---- */
typedef struct clc_program_cache clc_program_cache;
clc_program_cache *clc_program_cache_new(void);
void clc_program_cache_free(clc_program_cache *cache);
/* The build options of a problem, in a fixed order. */
void clc_build_options(const clconv_problem *p, int count_loads, char *buf,
                       size_t len);
/* Build (or fetch from the session's cache) the program of cl/<stem>.cl
 * ("conv2d_output_tile") with the given options; the program stays owned by
 * the cache. Convolution kernels get cl/common.clh prepended (with_common);
 * other kernels (bench ceilings) are built from their own file alone. */
clconv_status clc_program_get(clconv_session *s, const char *stem,
                              const char *options, int with_common,
                              cl_program *out);

/* ---- session.c ---- */
struct clconv_session {
    clconv_device_info dev;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    clc_program_cache *programs;
};



/* ---- plan.c: instrumented plans (clconv model's counted loads) ---- */
/* Like clconv_plan_create; with count_loads the kernel is built with
 * -D CLCONV_COUNT_LOADS and counts its global loads of N and local reads. */
clconv_status clc_plan_create(clconv_session *s, const clconv_problem *p,
                              int count_loads, clconv_plan **out);
/* The counters of the last execute: [0] global loads of N, [1] local reads. */
clconv_status clc_plan_counters(clconv_plan *plan, long long counts[2]);
#endif
