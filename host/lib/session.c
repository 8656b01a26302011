/* A session: context, profiling queue and program cache of one device. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

clconv_status clconv_session_create(const clconv_device_info *dev,
                                    clconv_session **out)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    *out = NULL;
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

clconv_status clc_session_init(clconv_session *s)
{
    s->programs = clc_program_cache_new();
    s->plans = clc_plan_cache_new();
    if (!s->programs || !s->plans)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
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
    const char *zc = getenv("CLCONV_ZERO_COPY");
    s->zero_copy = s->dev.kind == CLCONV_DEVICE_CPU;
    if (zc && *zc) {
        if ((zc[0] != '0' && zc[0] != '1') || zc[1])
            return clc_fail(CLCONV_EINVAL, "CLCONV_ZERO_COPY=%s is not 0 or 1",
                            zc);
        s->zero_copy = zc[0] == '1';
    }
    return CLCONV_OK;
}

void clconv_session_destroy(clconv_session *s)
{
    if (!s)
        return;
    clc_plan_cache_free(s->plans); /* plans before their programs */
    for (int i = 0; i < 2; ++i)
        if (s->xfer[i])
            clReleaseCommandQueue(s->xfer[i]);
    clc_program_cache_free(s->programs);
    if (s->queue)
        clReleaseCommandQueue(s->queue);
    if (s->context)
        clReleaseContext(s->context);
    free(s);
}

const clconv_device_info *clconv_session_device(const clconv_session *s)
{
    return &s->dev;
}
