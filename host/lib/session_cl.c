/* Sessions on the application's own context, device and queue
 * (include/clconv_cl.h). */
#include <stdlib.h>

#include "clconv_cl.h"
#include "internal.h"

/* The device's entry in the discovered list (its P:D and limits); a device
 * the list lacks (a sub-device) is read directly, P:D left 0:0. */
static clconv_status info_of(cl_device_id device, clconv_device_info *info)
{
    clconv_device_list list;
    if (clconv_devices_discover(&list) == CLCONV_OK) {
        for (size_t i = 0; i < list.count; ++i)
            if (list.devices[i].opaque_device == (void *)device) {
                *info = list.devices[i];
                clconv_devices_free(&list);
                return CLCONV_OK;
            }
        clconv_devices_free(&list);
    }
    cl_platform_id platform = NULL;
    CLC_CHECK(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform,
                              &platform, NULL));
    *info = (clconv_device_info){0};
    return clc_device_info_read(platform, device, info);
}

/* Is device one of the context's devices? */
static clconv_status check_context_device(cl_context context,
                                          cl_device_id device)
{
    cl_uint n = 0;
    CLC_CHECK(clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof n, &n,
                               NULL));
    cl_device_id *ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    cl_int err = clGetContextInfo(context, CL_CONTEXT_DEVICES, n * sizeof *ids,
                                  ids, NULL);
    int found = 0;
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; ++i)
        found |= ids[i] == device;
    free(ids);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clGetContextInfo(CL_CONTEXT_DEVICES)", err,
                           __FILE__, __LINE__);
    return found ? CLCONV_OK
                 : clc_fail(CLCONV_EINVAL,
                            "the device is not one of the context's devices");
}

static clconv_status check_queue(cl_command_queue queue, cl_context context,
                                 cl_device_id device)
{
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    CLC_CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qc, &qc,
                                    NULL));
    CLC_CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qd, &qd,
                                    NULL));
    if (qc != context)
        return clc_fail(CLCONV_EINVAL,
                        "the queue belongs to another context");
    if (qd != device)
        return clc_fail(CLCONV_EINVAL, "the queue belongs to another device");
    return CLCONV_OK;
}

clconv_status clconv_session_create_from_cl(cl_context context,
                                            cl_device_id device,
                                            cl_command_queue queue,
                                            clconv_session **out)
{
    clconv_status st;
    cl_int err;
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the session (NULL)");
    *out = NULL;
    if (!context || !device)
        return clc_fail(CLCONV_EINVAL, "no context or device given");
    st = check_context_device(context, device);
    if (st == CLCONV_OK && queue)
        st = check_queue(queue, context, device);
    if (st != CLCONV_OK)
        return st;
    clconv_session *s = calloc(1, sizeof *s);
    if (!s)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    st = info_of(device, &s->dev);
    if (st != CLCONV_OK)
        goto out;
    s->device = device;
    st = clc_session_init(s);
    if (st != CLCONV_OK)
        goto out;
    CLC_CHECK_GOTO(clRetainContext(context));
    s->context = context;
    if (queue) {
        CLC_CHECK_GOTO(clRetainCommandQueue(queue));
        s->queue = queue;
    } else {
        /* Profiling, as clconv_session_create's: the application has no
         * other way to time this session's plans. */
        CLC_CREATE_GOTO(s->queue,
                        clCreateCommandQueue(context, device,
                                             CL_QUEUE_PROFILING_ENABLE, &err));
    }
    *out = s;
    s = NULL;
out:
    clconv_session_destroy(s);
    return st;
}

cl_context clconv_session_cl_context(const clconv_session *s)
{
    return s ? s->context : NULL;
}

cl_command_queue clconv_session_cl_queue(const clconv_session *s)
{
    return s ? s->queue : NULL;
}
