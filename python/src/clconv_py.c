/* The Python binding's C side: a few flat-argument functions over the
 * public API, compiled into the package's own copy of libclconv. Python
 * (ctypes) never mirrors a C struct: every struct is filled here, against
 * the real headers, so a field added to clconv_problem or
 * clconv_device_info cannot be misread from Python. Prefix clconvpy_. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv.h"
#include "clconv_cl.h"
#include "clconv_tune.h"

/* Prototypes (-Wmissing-prototypes): this file is its own header. */
int clconvpy_devices(char *buf, size_t len, size_t *count);
int clconvpy_session_open(const char *selector, clconv_session **out);
void clconvpy_session_close(clconv_session *s);
int clconvpy_session_describe(const clconv_session *s, char *buf, size_t len);
int clconvpy_session_from_cl(void *context, void *device, void *queue,
                             clconv_session **out);
int clconvpy_correlate_ex(clconv_session *s, int dims, const size_t *size,
                          const int *mask_size, const int *origin,
                          unsigned axes, size_t batch, int border, double cval,
                          int in_dtype, const void *in, const float *mask,
                          float *out);
int clconvpy_enqueue(clconv_session *s, int dims, const size_t *size,
                     const int *mask_size, const int *origin, unsigned axes,
                     size_t batch, int border, double cval, const float *mask,
                     void *in_mem,
                     size_t in_offset, void *out_mem, size_t out_offset,
                     unsigned nwait, void *const *wait, void **done);
const char *clconvpy_last_error(void);

/* One device as a tab-separated line: P:D, name, type, OpenCL version,
 * compute units, max work-group size, local, constant, global memory
 * (bytes), vendor, platform, driver. */
static int describe(const clconv_device_info *d, char *buf, size_t len)
{
    int n = snprintf(buf, len,
                     "%u:%u\t%s\t%s\t%s\t%u\t%zu\t%llu\t%llu\t%llu\t%s\t%s\t%s\n",
                     d->platform_index, d->device_index, d->name,
                     clconv_device_kind_name(d->kind), d->version,
                     d->compute_units, d->max_work_group_size,
                     (unsigned long long)d->local_mem_bytes,
                     (unsigned long long)d->constant_mem_bytes,
                     (unsigned long long)d->global_mem_bytes, d->vendor,
                     d->platform, d->driver);
    return n < 0 || (size_t)n >= len ? -1 : n;
}

/* Every device, one line each, into buf (NUL-terminated); *count gets the
 * number of devices. CLCONV_ENOMEM when buf is too small. */
int clconvpy_devices(char *buf, size_t len, size_t *count)
{
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    *count = 0;
    if (st != CLCONV_OK)
        return st;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < list.count; ++i) {
        int n = describe(&list.devices[i], buf + used, len - used);
        if (n < 0) {
            st = CLCONV_ENOMEM;
            break;
        }
        used += (size_t)n;
    }
    *count = list.count;
    clconv_devices_free(&list);
    return st;
}

/* A session on the first device the selector picks (clconv's selectors:
 * "P:D", "cpu", "gpu", "all", a name substring; NULL or "": the first
 * GPU, else the first device). */
int clconvpy_session_open(const char *selector, clconv_session **out)
{
    *out = NULL;
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK)
        return st;
    size_t *picked = calloc(list.count ? list.count : 1, sizeof *picked);
    size_t npicked = 0;
    if (!picked) {
        clconv_devices_free(&list);
        return CLCONV_ENOMEM;
    }
    st = clconv_devices_select(&list, selector, picked, &npicked);
    if (st == CLCONV_OK && npicked > 0) {
        size_t choice = picked[0];
        if (!selector || !*selector)
            for (size_t i = 0; i < npicked; ++i)
                if (list.devices[picked[i]].kind == CLCONV_DEVICE_GPU) {
                    choice = picked[i];
                    break;
                }
        st = clconv_session_create(&list.devices[choice], out);
    }
    free(picked);
    clconv_devices_free(&list);
    return st;
}

void clconvpy_session_close(clconv_session *s)
{
    clconv_session_destroy(s);
}

int clconvpy_session_describe(const clconv_session *s, char *buf, size_t len)
{
    return describe(clconv_session_device(s), buf, len) < 0 ? CLCONV_ENOMEM
                                                            : CLCONV_OK;
}

int clconvpy_session_from_cl(void *context, void *device, void *queue,
                             clconv_session **out)
{
    return clconv_session_create_from_cl((cl_context)context,
                                         (cl_device_id)device,
                                         (cl_command_queue)queue, out);
}

/* The problem of one call: scipy.ndimage's filter of `batch` arrays of
 * `dims` axes (size, x first) stacked along one more, slowest axis, with
 * a mask over the axes in the bit set `axes` (bit 0 x; 0: every axis),
 * its widths and origins per mask axis (x first), a border mode
 * (clconv_border) and its cval, the element types in and out. The library
 * puts the mask on those axes and stacks the batch (clconv_problem_on_axes,
 * clconv_problem_stack); then the tuned variant for this device and the
 * problem's class (its shape and element types) when `clconv tune`
 * recorded one, else the library's default. */
static clconv_status make_problem(clconv_session *s, int dims,
                                  const size_t *size, const int *mask_size,
                                  const int *origin, unsigned axes,
                                  size_t batch, int border, double cval,
                                  clconv_elem in_dtype, clconv_elem out_dtype,
                                  clconv_problem *p)
{
    memset(p, 0, sizeof *p);
    if (dims < 1 || dims > 3)
        return clconv_problem_validate(p); /* its message for dims */
    p->dims = dims;
    int k = 0;
    for (unsigned a = 0; a < (unsigned)dims; ++a)
        k += axes == 0 || (axes >> a & 1u);
    for (int a = 0; a < 3; ++a) {
        p->size[a] = a < dims ? size[a] : 1;
        p->mask_size[a] = a < k ? mask_size[a] : 1;
        p->origin[a] = a < k ? origin[a] : 0;
    }
    p->mask_width = clconv_problem_mask_max(p);
    p->border = (clconv_border)border;
    p->cval = cval;
    /* before the tuning is looked up: the types are part of its class */
    p->in_dtype = in_dtype;
    p->out_dtype = out_dtype;
    clconv_status st = CLCONV_OK;
    if (axes != 0)
        st = clconv_problem_on_axes(p, axes);
    if (st == CLCONV_OK)
        st = clconv_problem_stack(p, batch);
    if (st != CLCONV_OK)
        return st;
    int tuned = 0;
    return clconv_auto_config(clconv_session_device(s), p, &tuned);
}

/* Correlation of a dense row-major array with scipy.ndimage's filter
 * (make_problem's arguments), the
 * input of element type in_dtype (clconv_elem: uint8, uint16, int16 and
 * float16 arrays go to the device as they are), the output float32. */
int clconvpy_correlate_ex(clconv_session *s, int dims, const size_t *size,
                          const int *mask_size, const int *origin,
                          unsigned axes, size_t batch, int border, double cval,
                          int in_dtype, const void *in, const float *mask,
                          float *out)
{
    clconv_problem p;
    clconv_status st = make_problem(s, dims, size, mask_size, origin, axes,
                                    batch, border, cval,
                                    (clconv_elem)in_dtype, CLCONV_ELEM_F32,
                                    &p);
    if (st != CLCONV_OK)
        return st;
    return clconv_convolve_typed(s, &p, in, mask, out, NULL);
}

/* clconvpy_correlate_ex on dense device buffers of the session's context, enqueued
 * after the wait list; *done gets the completion event (released by the
 * caller). The plan is made for this call and released after enqueueing
 * (OpenCL keeps what the kernel needs alive; built programs are cached in
 * the session). */
int clconvpy_enqueue(clconv_session *s, int dims, const size_t *size,
                     const int *mask_size, const int *origin, unsigned axes,
                     size_t batch, int border, double cval, const float *mask,
                     void *in_mem,
                     size_t in_offset, void *out_mem, size_t out_offset,
                     unsigned nwait, void *const *wait, void **done)
{
    clconv_problem p;
    clconv_status st = make_problem(s, dims, size, mask_size, origin, axes,
                                    batch, border, cval, CLCONV_ELEM_F32,
                                    CLCONV_ELEM_F32, &p);
    if (st != CLCONV_OK)
        return st;
    clconv_plan *plan = NULL;
    st = clconv_plan_create_with_mask(s, &p, mask, &plan);
    if (st != CLCONV_OK)
        return st;
    clconv_buffer in = {(cl_mem)in_mem, in_offset, 0, 0};
    clconv_buffer out = {(cl_mem)out_mem, out_offset, 0, 0};
    cl_event ev = NULL;
    st = clconv_plan_enqueue(plan, &in, &out, nwait, (const cl_event *)wait,
                             &ev);
    if (st == CLCONV_OK) {
        /* The plan's own buffers (mask, staging) must outlive the kernel. */
        cl_int err = clWaitForEvents(1, &ev);
        if (err != CL_SUCCESS)
            st = CLCONV_EOPENCL;
    }
    clconv_plan_destroy(plan);
    *done = ev;
    return st;
}

const char *clconvpy_last_error(void)
{
    return clconv_last_error();
}
