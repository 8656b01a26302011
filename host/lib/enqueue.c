/* clconv_plan_enqueue: a plan on caller-owned buffers, ordered by events,
 * never blocking (include/clconv_cl.h). A dense region is used in place
 * (whole buffer, or a sub-buffer at an aligned offset); any other region
 * passes through the plan's own buffers by device-side rectangle copies. */
#include <stdint.h>

#include "clconv_cl.h"
#include "internal.h"

/* A region resolved against its buffer: pitches filled in, extent known,
 * and its place in the root buffer (to detect overlap). */
typedef struct region {
    const char *what; /* "input" or "output" */
    cl_mem mem;
    size_t offset, row, slice; /* bytes */
    size_t first, end;         /* bytes of the root buffer it spans */
    cl_mem root;
    int dense;
    int kernel_ok; /* its flags let a kernel access it as the region needs */
} region;

static clconv_status resolve(const clconv_buffer *b, const char *what,
                             const clconv_problem *p, size_t elem,
                             cl_context context, cl_mem_flags forbidden,
                             region *r)
{
    if (!b || !b->mem)
        return clc_fail(CLCONV_EINVAL, "no %s buffer given", what);
    const size_t nx = p->size[0], ny = p->size[1], nz = p->size[2];
    const size_t dense_row = nx * elem, dense_slice = dense_row * ny;
    *r = (region){.what = what, .mem = b->mem, .offset = b->offset,
                  .row = b->row_pitch ? b->row_pitch : dense_row};
    /* A plane at this row pitch: a pitch so large that it wraps around
     * size_t is past any buffer. */
    size_t plane = 0;
    if (__builtin_mul_overflow(r->row, ny, &plane))
        return clc_fail(CLCONV_EINVAL,
                        "the %s region's row pitch of %zu bytes times %zu "
                        "rows is past any buffer", what, r->row, ny);
    /* With no plane steps (nz 1) the slice pitch is not used. */
    r->slice = b->slice_pitch && nz > 1 ? b->slice_pitch : plane;
    if (r->row < dense_row)
        return clc_fail(CLCONV_EINVAL,
                        "%s row pitch of %zu bytes is smaller than a row "
                        "(%zu bytes)", what, r->row, dense_row);
    if (ny > 1 && r->slice < plane)
        return clc_fail(CLCONV_EINVAL,
                        "%s slice pitch of %zu bytes is smaller than a plane "
                        "(%zu rows of %zu bytes)", what, r->slice, ny, r->row);
    cl_context mc = NULL;
    size_t size = 0, base = 0;
    cl_mem parent = NULL;
    cl_mem_object_type type = 0;
    cl_mem_flags flags = 0;
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_TYPE, sizeof type, &type,
                                 NULL));
    if (type != CL_MEM_OBJECT_BUFFER)
        return clc_fail(CLCONV_EINVAL,
                        "the %s is an image, not a buffer (cl_mem type "
                        "0x%x)", what, (unsigned)type);
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_FLAGS, sizeof flags, &flags,
                                 NULL));
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_CONTEXT, sizeof mc, &mc, NULL));
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_SIZE, sizeof size, &size,
                                 NULL));
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_ASSOCIATED_MEMOBJECT,
                                 sizeof parent, &parent, NULL));
    CLC_CHECK(clGetMemObjectInfo(b->mem, CL_MEM_OFFSET, sizeof base, &base,
                                 NULL));
    if (mc != context)
        return clc_fail(CLCONV_EINVAL,
                        "the %s buffer belongs to another context than the "
                        "plan's session", what);
    /* The last byte: (nz-1) planes, (ny-1) rows and one row further; a
     * pitch so large that this wraps around size_t is past any buffer. */
    size_t planes = 0, rows = 0, extent = 0;
    if (__builtin_mul_overflow(nz - 1, r->slice, &planes) ||
        __builtin_mul_overflow(ny - 1, r->row, &rows) ||
        __builtin_add_overflow(planes, rows, &extent) ||
        __builtin_add_overflow(extent, dense_row, &extent))
        return clc_fail(CLCONV_EINVAL,
                        "the %s region's pitches (row %zu, slice %zu bytes) "
                        "reach past any buffer", what, r->row, r->slice);
    if (r->offset > size || extent > size - r->offset)
        return clc_fail(CLCONV_EINVAL,
                        "the %s region needs %zu bytes from offset %zu, the "
                        "buffer has %zu", what, extent, r->offset, size);
    r->root = parent ? parent : b->mem;
    r->first = base + r->offset;
    r->end = r->first + extent;
    r->dense = r->row == dense_row && (nz == 1 || r->slice == dense_slice);
    r->kernel_ok = !(flags & forbidden);
    if (!r->dense && r->slice % r->row != 0)
        return clc_fail(CLCONV_EINVAL,
                        "%s slice pitch of %zu bytes is not a multiple of its "
                        "row pitch of %zu bytes (OpenCL's rectangle copies "
                        "need one)", what, r->slice, r->row);
    return CLCONV_OK;
}

static clconv_status check_events(cl_uint nwait, const cl_event *wait,
                                  cl_context context)
{
    if (nwait && !wait)
        return clc_fail(CLCONV_EINVAL, "%u events to wait for, but no list",
                        nwait);
    for (cl_uint i = 0; i < nwait; ++i) {
        cl_context ec = NULL;
        if (!wait[i])
            return clc_fail(CLCONV_EINVAL, "wait-list event %u is NULL", i);
        CLC_CHECK(clGetEventInfo(wait[i], CL_EVENT_CONTEXT, sizeof ec, &ec,
                                 NULL));
        if (ec != context)
            return clc_fail(CLCONV_EINVAL,
                            "wait-list event %u belongs to another context", i);
        /* Work after a failed event never runs as asked (PoCL never runs
         * it at all, and its event never completes). */
        cl_int exec = CL_COMPLETE;
        CLC_CHECK(clGetEventInfo(wait[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                 sizeof exec, &exec, NULL));
        if (exec < 0)
            return clc_fail(CLCONV_EINVAL,
                            "wait-list event %u has failed (execution status "
                            "%d): nothing is enqueued after it", i, (int)exec);
    }
    return CLCONV_OK;
}

/* A buffer the kernel can use in place for a dense region: the buffer
 * itself at offset 0, a sub-buffer at an offset aligned for the device, or
 * NULL (copy instead). *owned says whether the caller releases it. */
static clconv_status in_place(clconv_session *s, const region *r,
                              cl_mem *mem, int *owned)
{
    *mem = NULL;
    *owned = 0;
    /* A kernel may not write a read-only buffer nor read a write-only
     * one (undefined in OpenCL): such a region is copied, as copies may. */
    if (!r->dense || !r->kernel_ok)
        return CLCONV_OK;
    if (r->offset == 0) {
        *mem = r->mem;
        return CLCONV_OK;
    }
    cl_uint align_bits = 0;
    CLC_CHECK(clGetDeviceInfo(s->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                              sizeof align_bits, &align_bits, NULL));
    size_t align = align_bits / 8;
    if (align == 0 || r->first % align != 0)
        return CLCONV_OK;
    /* Of the root buffer: OpenCL makes no sub-buffer of a sub-buffer. */
    cl_buffer_region sub = {r->first, r->end - r->first};
    cl_int err;
    *mem = clCreateSubBuffer(r->root, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub,
                             &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateSubBuffer", err, __FILE__, __LINE__);
    *owned = 1;
    return CLCONV_OK;
}

/* Copy a region to or from one of the plan's dense buffers. */
static clconv_status copy_rect(clconv_session *s, const clconv_problem *p,
                               size_t elem, const region *r, cl_mem dense,
                               int to_dense, cl_uint nwait,
                               const cl_event *wait, cl_event *ev)
{
    const size_t row = p->size[0] * elem;
    /* Addressed in the root buffer (r->first): PoCL 3.1 crashes copying
     * a rectangle of a sub-buffer. */
    const size_t zero[3] = {0, 0, 0}, user[3] = {r->first, 0, 0};
    const size_t extent[3] = {row, p->size[1], p->size[2]};
    cl_int err = clEnqueueCopyBufferRect(
        s->queue, to_dense ? r->root : dense, to_dense ? dense : r->root,
        to_dense ? user : zero, to_dense ? zero : user, extent,
        to_dense ? r->row : row, to_dense ? r->slice : row * p->size[1],
        to_dense ? row : r->row, to_dense ? row * p->size[1] : r->slice,
        nwait, nwait ? wait : NULL, ev);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clEnqueueCopyBufferRect", err, __FILE__, __LINE__);
    return CLCONV_OK;
}

static clconv_status check_all(clconv_plan *pl, const clconv_buffer *in,
                               const clconv_buffer *out, cl_uint nwait,
                               const cl_event *wait, region *ri, region *ro)
{
    clconv_session *s = clc_plan_session(pl);
    const clconv_problem *p = clc_plan_problem(pl);
    if (clc_plan_host_converts(pl))
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "f16 is converted on the host on this device (no "
                        "cl_khr_fp16): its buffers cannot be used in place; "
                        "clconv_convolve_typed takes host arrays");
    clconv_status st = resolve(in, "input", p, clc_plan_elem_size(pl, 0),
                               s->context, CL_MEM_WRITE_ONLY, ri);
    if (st == CLCONV_OK)
        st = resolve(out, "output", p, clc_plan_elem_size(pl, 1), s->context,
                     CL_MEM_READ_ONLY, ro);
    if (st == CLCONV_OK)
        st = check_events(nwait, wait, s->context);
    if (st == CLCONV_OK && ri->root == ro->root && ri->first < ro->end &&
        ro->first < ri->end)
        st = clc_fail(CLCONV_EINVAL,
                      "input and output regions overlap (in place is not "
                      "supported)");
    return st;
}

clconv_status clconv_plan_enqueue(clconv_plan *pl, const clconv_buffer *in,
                                  const clconv_buffer *out, cl_uint nwait,
                                  const cl_event *wait, cl_event *done)
{
    region ri, ro;
    cl_mem kin = NULL, kout = NULL, own_in = NULL, own_out = NULL;
    int free_in = 0, free_out = 0;
    cl_event ev[3] = {NULL, NULL, NULL}, *after = NULL;
    if (done)
        *done = NULL;
    if (!pl)
        return clc_fail(CLCONV_EINVAL, "no plan given");
    clconv_session *s = clc_plan_session(pl);
    const clconv_problem *p = clc_plan_problem(pl);
    clconv_status st = check_all(pl, in, out, nwait, wait, &ri, &ro);
    if (st == CLCONV_OK)
        st = in_place(s, &ri, &kin, &free_in);
    if (st == CLCONV_OK)
        st = in_place(s, &ro, &kout, &free_out);
    if (st == CLCONV_OK)
        st = clc_plan_after(pl, &nwait, &wait, &after);
    if (st != CLCONV_OK)
        goto out;
    if (!kin || !kout) {
        st = clc_plan_buffers(pl, &own_in, &own_out);
        if (st != CLCONV_OK)
            goto out;
    }
    /* Each step waits for the one before: the chain holds on in-order and
     * out-of-order queues alike. */
    if (!kin) {
        st = copy_rect(s, p, clc_plan_elem_size(pl, 0), &ri, own_in, 1, nwait,
                       wait, &ev[0]);
        if (st != CLCONV_OK)
            goto out;
        nwait = 1;
        wait = &ev[0];
    }
    st = clc_plan_launch(pl, kin ? kin : own_in, kout ? kout : own_out, nwait,
                         wait, &ev[1]);
    if (st == CLCONV_OK && !kout)
        st = copy_rect(s, p, clc_plan_elem_size(pl, 1), &ro, own_out, 0, 1,
                       &ev[1], &ev[2]);
    if (st == CLCONV_OK)
        clc_plan_last(pl, kout ? ev[1] : ev[2]);
    if (st == CLCONV_OK && done) {
        *done = kout ? ev[1] : ev[2];
        ev[kout ? 1 : 2] = NULL;
    }
out:
    free(after);
    for (int i = 0; i < 3; ++i)
        if (ev[i])
            clReleaseEvent(ev[i]);
    /* Released now, deleted by OpenCL once the commands using them end. */
    if (free_in)
        clReleaseMemObject(kin);
    if (free_out)
        clReleaseMemObject(kout);
    return st;
}
