/* A session: context, profiling queue and program cache of one device,
 * the OpenCL C version its programs are built for, and the measuring
 * overrides read from the environment once, when it is created. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stream.h"

/* A measuring override: the variable's value if it is one digit 1..max,
 * else 0 (unset or not such a digit: the default applies). */
static int env_digit(const char *name, int max)
{
    const char *env = getenv(name);
    if (env && *env >= '1' && *env <= '0' + max && env[1] == '\0')
        return *env - '0';
    return 0;
}

/* env_digit's value, or one of the values a and b (0: none) written in
 * decimal: the overrides whose values go beyond one digit. */
static int env_digit_or(const char *name, int max, int a, int b)
{
    const char *env = getenv(name);
    char text[16];
    for (int i = 0; env && i < 2; ++i) {
        const int v = i ? b : a;
        snprintf(text, sizeof text, "%d", v);
        if (v && !strcmp(env, text))
            return v;
    }
    return env_digit(name, max);
}

/* $name as "X,Y", each 1..max and, where pow2, a power of two, into out;
 * anything else (unset, out of range, trailing text) leaves both 0. */
static void env_pair(const char *name, int max, int pow2, int out[2])
{
    const char *v = getenv(name);
    int a = 0, b = 0, used = 0;
    out[0] = out[1] = 0;
    if (!v || sscanf(v, "%d,%d%n", &a, &b, &used) != 2 || v[used] != '\0' ||
        a < 1 || a > max || b < 1 || b > max)
        return;
    if (pow2 && ((a & (a - 1)) || (b & (b - 1))))
        return;
    out[0] = a, out[1] = b;
}

/* $name as "XB,ROWS,CHUNK" (the fused separable pass's float16 blocks
 * per work-item, 1..8, rows computed together, 1..32, and rows per
 * work-item, a multiple of ROWS up to 4096) into out; anything else
 * leaves all three 0. */
static void env_triple(const char *name, int out[3])
{
    const char *v = getenv(name);
    int a = 0, b = 0, c = 0, used = 0;
    out[0] = out[1] = out[2] = 0;
    if (!v || sscanf(v, "%d,%d,%d%n", &a, &b, &c, &used) != 3 ||
        v[used] != '\0' || a < 1 || a > 8 || b < 1 || b > 32 || c < b ||
        c > 4096 || c % b)
        return;
    out[0] = a, out[1] = b, out[2] = c;
}

/* $CLCONV_COARSE_ROWS (bench/PERF.md item 11), $CLCONV_VECTOR_BLOCKS
 * (item 16), $CLCONV_VECTOR_WIDTH (8 or 16, item 23),
 * $CLCONV_VECTOR_PEEL (0 or 1, item 41), $CLCONV_VECTOR_PREFETCH (3D
 * planes ahead prefetched, 0-4, item 65) and
 * $CLCONV_COARSE_MARCH (2D: 1 or 2, "2D coarse: the march rolled, the
 * mask read in place"; 1D: 1, 2 or 3, item 39), $CLCONV_COARSE_SPANS
 * (1D spans per work-group, 1..8, 16 or 32, item 40) and
 * $CLCONV_COARSE_XV (1, 2, 4, 8 or 16 columns per work-item, item 31),
 * $CLCONV_COARSE_GZ (3D: 1..8 work-items along z a work-group, item 61)
 * replace the variants' choices, $CLCONV_SEP_LANES
 * (1 or 16) the separable passes' form, $CLCONV_SEP_COARSEN (X,Y) their
 * outputs per work-item (item 37), $CLCONV_SEP_TILE (X,Y) their
 * work-items across x (item 45) and $CLCONV_SEP_GROUP_A (1..32, powers
 * of two) the y and z passes' work-items along their axis (item 49), and
 * $CLCONV_BATCH_LOOP=1 runs a batch as a loop in the kernel ("Batches: a
 * loop in the kernel"), for measuring. */
void clc_overrides_read(clc_overrides *o)
{
    o->coarse_rows = env_digit("CLCONV_COARSE_ROWS", 8);
    o->vector_blocks = env_digit("CLCONV_VECTOR_BLOCKS", 4);
    o->vector_width = env_digit_or("CLCONV_VECTOR_WIDTH", 0, 8, 16);
    const char *peel = getenv("CLCONV_VECTOR_PEEL");
    o->vector_peel = !peel                 ? 0
                     : !strcmp(peel, "0") ? 1
                     : !strcmp(peel, "1") ? 2
                                           : 0;
    const char *pf = getenv("CLCONV_VECTOR_PREFETCH");
    o->vector_prefetch =
        pf && pf[0] >= '0' && pf[0] <= '4' && !pf[1] ? pf[0] - '0' + 1 : 0;
    o->batch_loop = env_digit("CLCONV_BATCH_LOOP", 1);
    o->coarse_march = env_digit("CLCONV_COARSE_MARCH", 3);
    o->coarse_spans = env_digit_or("CLCONV_COARSE_SPANS", 8, 16, 32);
    o->coarse_xv = env_digit_or("CLCONV_COARSE_XV", 8, 16, 0);
    o->coarse_gz = env_digit("CLCONV_COARSE_GZ", 8);
    if (o->coarse_xv & (o->coarse_xv - 1))
        o->coarse_xv = 0; /* 3, 5, 6, 7: not a width the kernel takes */
    env_pair("CLCONV_SEP_COARSEN", 64, 0, o->sep_coarsen);
    env_pair("CLCONV_SEP_TILE", 1024, 1, o->sep_tile);
    o->sep_group_a = env_digit_or("CLCONV_SEP_GROUP_A", 8, 16, 32);
    if (o->sep_group_a & (o->sep_group_a - 1))
        o->sep_group_a = 0; /* 3, 5, 6, 7 */
    const char *fuse = getenv("CLCONV_SEP_FUSE");
    o->sep_fuse = !fuse                 ? 0
                  : !strcmp(fuse, "0") ? 1
                  : !strcmp(fuse, "1") ? 2
                                        : 0;
    env_triple("CLCONV_SEP_FUSE_GEOM", o->sep_fuse_geom);
    const char *lanes = getenv("CLCONV_SEP_LANES");
    o->sep_lanes = !lanes                  ? 0
                   : !strcmp(lanes, "1")  ? 1
                   : !strcmp(lanes, "16") ? 16
                                           : 0;
    /* the FMA ceiling kernel's chains (1..64) and steps (1..4096) */
    env_pair("CLCONV_FMA_SHAPE", 4096, 0, o->fma_shape);
    if (o->fma_shape[0] > 64)
        o->fma_shape[0] = o->fma_shape[1] = 0;
}

/* Every measuring override: its variable, its field in clc_overrides,
 * how many ints it holds, and what its field adds to the value shown (1
 * where 0 means unset and the variable's 0 is stored as 1). The order is
 * the reported text's. */
static const struct override_var {
    const char *name;
    size_t field;
    int count, bias;
} override_vars[] = {
    {"CLCONV_COARSE_ROWS", offsetof(clc_overrides, coarse_rows), 1, 0},
    {"CLCONV_VECTOR_BLOCKS", offsetof(clc_overrides, vector_blocks), 1, 0},
    {"CLCONV_VECTOR_WIDTH", offsetof(clc_overrides, vector_width), 1, 0},
    {"CLCONV_VECTOR_PEEL", offsetof(clc_overrides, vector_peel), 1, 1},
    {"CLCONV_VECTOR_PREFETCH", offsetof(clc_overrides, vector_prefetch), 1, 1},
    {"CLCONV_BATCH_LOOP", offsetof(clc_overrides, batch_loop), 1, 0},
    {"CLCONV_COARSE_MARCH", offsetof(clc_overrides, coarse_march), 1, 0},
    {"CLCONV_COARSE_SPANS", offsetof(clc_overrides, coarse_spans), 1, 0},
    {"CLCONV_COARSE_XV", offsetof(clc_overrides, coarse_xv), 1, 0},
    {"CLCONV_COARSE_GZ", offsetof(clc_overrides, coarse_gz), 1, 0},
    {"CLCONV_SEP_LANES", offsetof(clc_overrides, sep_lanes), 1, 0},
    {"CLCONV_SEP_COARSEN", offsetof(clc_overrides, sep_coarsen), 2, 0},
    {"CLCONV_SEP_TILE", offsetof(clc_overrides, sep_tile), 2, 0},
    {"CLCONV_SEP_GROUP_A", offsetof(clc_overrides, sep_group_a), 1, 0},
    {"CLCONV_SEP_FUSE", offsetof(clc_overrides, sep_fuse), 1, 1},
    {"CLCONV_SEP_FUSE_GEOM", offsetof(clc_overrides, sep_fuse_geom), 3, 0},
    {"CLCONV_FMA_SHAPE", offsetof(clc_overrides, fma_shape), 2, 0},
};
#define OVERRIDE_VARS (sizeof override_vars / sizeof override_vars[0])

/* The overrides in force, as "NAME=value ..." (a pair or triple with
 * commas). */
static void overrides_text(const clc_overrides *o, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < OVERRIDE_VARS; ++i) {
        const struct override_var *v = &override_vars[i];
        const int *x = (const int *)((const char *)o + v->field);
        if (!x[0])
            continue;
        int k = snprintf(buf + n, len - n, "%s%s=%d", n ? " " : "", v->name,
                         x[0] - v->bias);
        for (int j = 1; j < v->count && k >= 0 && (size_t)k < len - n; ++j)
            k += snprintf(buf + n + (size_t)k, len - n - (size_t)k, ",%d",
                          x[j]);
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
}

/* The overrides whose variable is set but not to a value the knob takes
 * (they are not in `taken`, overrides_text's), as "NAME=value ...". */
static void overrides_ignored(const char *taken, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < OVERRIDE_VARS; ++i) {
        const char *name = override_vars[i].name, *v = getenv(name);
        char key[64];
        snprintf(key, sizeof key, "%s=", name);
        if (!v || !*v || strstr(taken, key))
            continue;
        int k = snprintf(buf + n, len - n, "%s%s%.40s", n ? " " : "", key, v);
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
}

/* The -cl-std a program for this device is built with: CL1.2 wherever the
 * device compiles OpenCL C 1.2 (every 1.2, 2.x and 3.0 device must; the
 * kernels are written in 1.2), CL1.1 on a 1.1 device, none on a 1.0 one
 * or one whose version cannot be read. */
static void cl_std_of(cl_device_id dev, char *buf, size_t len)
{
    char version[128] = "";
    int major = 0, minor = 0;
    buf[0] = '\0';
    if (clGetDeviceInfo(dev, CL_DEVICE_OPENCL_C_VERSION, sizeof version - 1,
                        version, NULL) != CL_SUCCESS ||
        sscanf(version, "OpenCL C %d.%d", &major, &minor) != 2)
        return;
    if (major > 1 || (major == 1 && minor >= 2))
        snprintf(buf, len, "-cl-std=CL1.2");
    else if (major == 1 && minor == 1)
        snprintf(buf, len, "-cl-std=CL1.1");
}

clconv_status clconv_session_create(const clconv_device_info *dev,
                                    clconv_session **out)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the session (NULL)");
    *out = NULL;
    if (!dev)
        return clc_fail(CLCONV_EINVAL, "no device given (NULL)");
    clconv_session *s = calloc(1, sizeof *s);
    if (!s)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    s->dev = *dev;
    s->device = (cl_device_id)dev->opaque_device;
    st = clc_session_init(s);
    if (st != CLCONV_OK)
        goto out;
    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)dev->opaque_platform, 0};
    CLC_CREATE_GOTO(s->context,
                    clCreateContext(props, 1, &s->device, NULL, NULL, &err));
    CLC_CREATE_GOTO(s->queue,
                    clCreateCommandQueue(s->context, s->device,
                                         CL_QUEUE_PROFILING_ENABLE, &err));
    *out = s;
    s = NULL;
out:
    clconv_session_destroy(s);
    return st;
}

/* A 0|1 variable: *out as it says, unchanged when unset or empty;
 * anything else is CLCONV_EINVAL. */
static clconv_status env_bool(const char *name, int *out)
{
    const char *env = getenv(name);
    if (!env || !*env)
        return CLCONV_OK;
    if ((env[0] != '0' && env[0] != '1') || env[1])
        return clc_fail(CLCONV_EINVAL, "%s=%s is not 0 or 1", name, env);
    *out = env[0] == '1';
    return CLCONV_OK;
}

/* f16 on the device: cl_khr_fp16 among the device's extensions, unless
 * $CLCONV_FP16 says 0 (host conversion, for measuring and tests) or 1
 * (the kernels use only vload_half/vstore_half, core OpenCL C). */
static clconv_status fp16_of(clconv_session *s)
{
    char ext[8192] = "";
    cl_int err = clGetDeviceInfo(s->device, CL_DEVICE_EXTENSIONS,
                                 sizeof ext - 1, ext, NULL);
    s->fp16 = err == CL_SUCCESS && strstr(ext, "cl_khr_fp16") != NULL;
    return env_bool("CLCONV_FP16", &s->fp16);
}

void clc_session_lock(clconv_session *s)
{
    if (s && s->lock_made)
        pthread_mutex_lock(&s->lock);
}

void clc_session_unlock(clconv_session *s)
{
    if (s && s->lock_made)
        pthread_mutex_unlock(&s->lock);
}

/* A recursive mutex: the host-to-host calls plan under it. */
static clconv_status lock_init(clconv_session *s)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a) != 0)
        return clc_fail(CLCONV_ENOMEM, "pthread_mutexattr_init failed");
    int err = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    if (err == 0)
        err = pthread_mutex_init(&s->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (err != 0)
        return clc_fail(CLCONV_ENOMEM, "pthread_mutex_init failed: %s",
                        strerror(err));
    s->lock_made = 1;
    return CLCONV_OK;
}

clconv_status clc_session_init(clconv_session *s)
{
    clconv_status st = lock_init(s);
    if (st != CLCONV_OK)
        return st;
    s->programs = clc_program_cache_new();
    s->plans = clc_plan_cache_new();
    if (!s->programs || !s->plans)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clc_overrides_read(&s->overrides);
    overrides_text(&s->overrides, s->overrides_text, sizeof s->overrides_text);
    overrides_ignored(s->overrides_text, s->overrides_ignored,
                      sizeof s->overrides_ignored);
    cl_std_of(s->device, s->cl_std, sizeof s->cl_std);
    s->alloc_limit = s->dev.max_alloc_bytes;
    const char *env = getenv("CLCONV_MAX_ALLOC_BYTES");
    if (env && *env) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(env, &end, 10);
        if (errno || *end || v < 4 || env[0] == '-')
            return clc_fail(CLCONV_EINVAL,
                            "CLCONV_MAX_ALLOC_BYTES=%s is not a byte count "
                            "of at least 4",
                            env);
        if (v < s->alloc_limit)
            s->alloc_limit = v;
    }
    st = fp16_of(s);
    if (st != CLCONV_OK)
        return st;
    s->zero_copy = s->dev.kind == CLCONV_DEVICE_CPU;
    st = env_bool("CLCONV_ZERO_COPY", &s->zero_copy);
    if (st != CLCONV_OK)
        return st;
    s->pinned = s->dev.kind != CLCONV_DEVICE_CPU;
    st = env_bool("CLCONV_PINNED", &s->pinned);
    return st == CLCONV_OK ? clc_staging_init(s) : st;
}

void clconv_session_destroy(clconv_session *s)
{
    if (!s)
        return;
    clc_plan_cache_free(s->plans); /* plans before their programs */
    clc_staging_free(s);
    clc_slab_buffers_free(s);
    for (int i = 0; i < 2; ++i)
        if (s->xfer[i])
            clReleaseCommandQueue(s->xfer[i]);
    clc_program_cache_free(s->programs);
    if (s->ordered)
        clReleaseCommandQueue(s->ordered);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    if (s->context)
        clReleaseContext(s->context);
    if (s->lock_made)
        pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The session's accessors answer NULL (0) for no session: &s->dev of a
 * NULL s would be a wild pointer, not NULL. */
const clconv_device_info *clconv_session_device(const clconv_session *s)
{
    return s ? &s->dev : NULL;
}

const char *clconv_session_overrides(const clconv_session *s)
{
    return s ? s->overrides_text : NULL;
}

const char *clconv_session_overrides_ignored(const clconv_session *s)
{
    return s ? s->overrides_ignored : NULL;
}

const char *clconv_session_cl_std(const clconv_session *s)
{
    return s ? s->cl_std : NULL;
}

uint64_t clconv_session_max_alloc(const clconv_session *s)
{
    return s ? s->alloc_limit : 0;
}

cl_command_queue clc_session_ordered_queue(clconv_session *s)
{
    if (s->ordered)
        return s->ordered;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(s->queue, CL_QUEUE_PROPERTIES,
                                       sizeof props, &props, NULL);
    if (err != CL_SUCCESS) {
        clc_cl_fail("clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)", err,
                    __FILE__, __LINE__);
        return NULL;
    }
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return s->queue;
    s->ordered = clCreateCommandQueue(s->context, s->device,
                                      props & CL_QUEUE_PROFILING_ENABLE,
                                      &err);
    if (err != CL_SUCCESS) {
        s->ordered = NULL;
        clc_cl_fail("clCreateCommandQueue(in order)", err, __FILE__,
                    __LINE__);
        return NULL;
    }
    return s->ordered;
}

cl_int clc_session_finish(clconv_session *s)
{
    cl_int e = s->ordered ? clFinish(s->ordered) : CL_SUCCESS;
    cl_int f = s->queue ? clFinish(s->queue) : CL_SUCCESS;
    return e != CL_SUCCESS ? e : f;
}
