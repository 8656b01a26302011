/* Internal declarations shared by libclconv's files (prefix clc_). Not part
 * of the public API. */
#ifndef CLCONV_INTERNAL_H
#define CLCONV_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdarg.h>
#include <stdint.h>

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

/* Create an object with a call whose last argument is &err, in a function
 * that releases at `out:`; on failure the error names the call. */
#define CLC_CREATE_GOTO(lhs, call)                                            \
    do {                                                                      \
        (lhs) = (call);                                                       \
        if (err != CL_SUCCESS) {                                              \
            st = clc_cl_fail(#call, err, __FILE__, __LINE__);                 \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* Check a code the named call returned, once the caller has looked at it
 * (a code that is not an error there, a refusal reported otherwise). */
#define CLC_CHECK_CALL_GOTO(name, code)                                       \
    do {                                                                      \
        if ((code) != CL_SUCCESS) {                                           \
            st = clc_cl_fail(name, (code), __FILE__, __LINE__);               \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* ---- device.c ---- */
/* Read a device's name, limits and kind into d (indices left as they
 * are). */
clconv_status clc_device_info_read(cl_platform_id pid, cl_device_id did,
                                   clconv_device_info *d);

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
    /* Launch geometry and local memory of a problem. */
    void (*geometry)(const clconv_problem *p, clc_geometry *g);
} clc_variant;

const clc_variant *clc_variant_get(clconv_strategy s);
/* Fill geometry for a problem. */
void clc_geometry_of(const clconv_problem *p, clc_geometry *g);
/* The coarse variant's knobs with defaults applied. */
int clc_coarsen_of(const clconv_problem *p);
int clc_group_y_of(const clconv_problem *p);
/* Adjacent y rows per work-item of the 3D coarse kernel (1 elsewhere). */
int clc_rows_of(const clconv_problem *p);
/* vector 2D/3D: float16 blocks side by side in x per work-item. */
int clc_vector_blocks_of(const clconv_problem *p);
/* The problem's mask mode on a device: auto resolved (stays auto when dev
 * is NULL). */
clconv_mask_mode clc_mask_mode_for(const clconv_device_info *dev,
                                   const clconv_problem *p);

/* ---- program.c ---- */
typedef struct clc_program_cache clc_program_cache;
clc_program_cache *clc_program_cache_new(void);
void clc_program_cache_free(clc_program_cache *cache);
/* The build options of a problem, in a fixed order (malloc'd; NULL and the
 * last error set when out of memory). mask (W^dims floats) is compiled in
 * as -D CLCONV_MASK_VALUES when the problem's mask is baked. */
char *clc_build_options(const clconv_problem *p, int count_loads,
                        const float *mask);
/* Build (or fetch from the session's cache) the program of cl/<stem>.cl
 * ("conv2d_output_tile") with the given options; the program stays owned by
 * the cache. Convolution kernels get cl/common.clh prepended (with_common);
 * other kernels (bench ceilings) are built from their own file alone. */
clconv_status clc_program_get(clconv_session *s, const char *stem,
                              const char *options, int with_common,
                              cl_program *out);

/* ---- program_cache.c: the on-disk caches (folder, hash, atomic files) and
 * the program binary cache. Best effort: a miss or a doubtful entry never
 * fails a build, it only costs the JIT. ---- */
#define CLC_FNV1A64_INIT 0xcbf29ce484222325ULL
/* FNV-1a, 64 bits: continue hash h over n bytes. */
uint64_t clc_fnv1a64(uint64_t h, const void *data, size_t n);
/* $XDG_CACHE_HOME/clconv[/sub] (else $HOME/.cache/clconv[/sub]); with
 * create, made with its parents. CLCONV_EIO if there is no home or the
 * folder cannot be made. */
clconv_status clc_cache_dir(const char *sub, int create, char *buf,
                            size_t len);
/* Write a whole file atomically: a temporary file in the same folder,
 * then rename(2). */
clconv_status clc_write_atomic(const char *path, const void *data, size_t n);
/* Read a whole file (malloc'd, NUL after the last byte). */
clconv_status clc_read_all(const char *path, char **data, size_t *n);
/* The options a build really uses: options, then $CLCONV_BUILD_OPTIONS
 * (malloc'd; NULL when out of memory). */
char *clc_effective_options(const char *options);
/* The program binary cache is on unless $CLCONV_NO_CACHE is set (and not
 * "0"). */
int clc_program_disk_cache_enabled(void);
/* A program of these sources and options built from the cached binary, or
 * *out = NULL (a miss; a doubtful entry is deleted). */
void clc_program_disk_load(clconv_session *s, const char *const *parts,
                           size_t nparts, const char *options,
                           cl_program *out);
/* Save the binary of a program built from source (best effort). */
void clc_program_disk_store(clconv_session *s, const char *const *parts,
                            size_t nparts, const char *options,
                            cl_program prog);
/* What the binary cache did in this thread (tests, reports). */
typedef struct clc_program_disk_stats {
    unsigned long hits;     /* built from a cached binary */
    unsigned long misses;   /* no entry */
    unsigned long rejected; /* an entry existed but was not trusted */
    unsigned long stored;   /* entries written */
    char last_reject[4400]; /* why the last rejected entry was rejected */
} clc_program_disk_stats;
void clc_program_disk_stats_get(clc_program_disk_stats *out);

/* ---- plan_cache.c: the session's plans for host-to-host calls ---- */
typedef struct clc_plan_cache clc_plan_cache;
clc_plan_cache *clc_plan_cache_new(void);
void clc_plan_cache_free(clc_plan_cache *c);
/* A plan of p holding mask, from the cache or made (owned by the cache:
 * valid until the session ends or CLC_PLAN_CACHE_SIZE other shapes
 * pass). */
clconv_status clc_plan_cache_get(clconv_session *s, const clconv_problem *p,
                                 const float *mask, clconv_plan **out);

/* ---- stream.c ---- */
/* Output rows [begin, end) of the slowest axis of p (whole arrays in and
 * out) in at least nslabs_min slabs (more where the device's allocation
 * limit needs), streamed with overlapped transfers; *nslabs gets how many
 * ran. */
clconv_status clc_stream_rows(clconv_session *s, const clconv_problem *p,
                              const float *in, const float *mask, float *out,
                              size_t begin, size_t end, size_t nslabs_min,
                              size_t *nslabs);

/* ---- session.c ---- */
struct clconv_session {
    clconv_device_info dev;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;      /* kernels (and everything by default) */
    cl_command_queue xfer[2];    /* uploads, downloads of streamed slabs
                                    (made on first use) */
    clc_program_cache *programs;
    clc_plan_cache *plans;
    /* The largest buffer clconv allocates: the device's maximum, or
     * $CLCONV_MAX_ALLOC_BYTES (read when the session is made) if smaller,
     * which forces small slabs for tests. */
    uint64_t alloc_limit;
    /* Host-to-host calls bind the caller's memory in place
     * (CL_MEM_USE_HOST_PTR): on CPU devices, unless $CLCONV_ZERO_COPY=0. */
    int zero_copy;
};
/* The parts of a session both constructors share: caches and the
 * allocation limit (st is the error of a bad $CLCONV_MAX_ALLOC_BYTES). */
clconv_status clc_session_init(clconv_session *s);



/* ---- plan.c: instrumented plans (clconv model's counted loads) ---- */
/* Like clconv_plan_create; with count_loads the kernel is built with
 * -D CLCONV_COUNT_LOADS and counts its global loads of N and local reads. */
clconv_status clc_plan_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, int count_loads,
                              clconv_plan **out);
/* Enqueue the plan's kernel on in and out after the wait list, without
 * waiting (ev may be NULL). A launch the driver refuses is
 * CLCONV_EUNSUPPORTED. */
clconv_status clc_plan_launch(clconv_plan *pl, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *ev);
const clconv_problem *clc_plan_problem(const clconv_plan *pl);
clconv_session *clc_plan_session(const clconv_plan *pl);
/* The plan's own device buffers (input, output), made on first use. */
clconv_status clc_plan_buffers(clconv_plan *pl, cl_mem *in, cl_mem *out);
/* The counters of the last execute: [0] global loads of N, [1] local reads. */
clconv_status clc_plan_counters(clconv_plan *plan, long long counts[2]);
#endif
