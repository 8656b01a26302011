/* A session: context, profiling queue and program cache of one device. */
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
    s->programs = clc_program_cache_new();
    if (!s->programs) {
        st = clc_fail(CLCONV_ENOMEM, "out of memory");
        goto out;
    }
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

void clconv_session_destroy(clconv_session *s)
{
    if (!s)
        return;
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
