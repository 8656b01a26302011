/* The slabs' pipeline of a host-to-host call: two slots of device
 * buffers, uploads on the session's xfer[0], kernels on its queue,
 * downloads on xfer[1], each slot reused once its last kernel has read its
 * input and its output has been read out; on GPUs through pinned staging
 * (staging.c). The slot buffers stay with the session for the next call
 * when they are small (at most 1 GiB and a sixteenth of the device each),
 * so repeated calls allocate nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_cl.h"
#include "internal.h"
#include "stream.h"

/* The streaming state: two slots of device buffers and their events. */
typedef struct pipe {
    cl_mem in[2], out[2];
    cl_event kern[2], down[2]; /* last kernel and download of each slot */
} pipe;

static void set_event(cl_event *slot, cl_event ev)
{
    if (*slot)
        clReleaseEvent(*slot);
    *slot = ev;
}

static clconv_status queues(clconv_session *s)
{
    cl_int err;
    for (int i = 0; i < 2; ++i)
        if (!s->xfer[i]) {
            s->xfer[i] = clCreateCommandQueue(s->context, s->device, 0, &err);
            if (err != CL_SUCCESS)
                return clc_cl_fail("clCreateCommandQueue", err, __FILE__,
                                   __LINE__);
        }
    return CLCONV_OK;
}

/* The input of output rows [r0, r1): rows [a, b) bound to *mem, uploaded
 * into the slot (ev: the upload) or wrapped in place (CPU devices). */
static clconv_status bind_input(clc_job *j, pipe *pp, int k, size_t a, size_t b,
                                cl_mem *mem, cl_event *ev)
{
    const size_t bytes = (b - a) * j->row * j->isz;
    const char *src = j->in + a * j->row * j->isz;
    cl_int err;
    *ev = NULL;
    if (j->host_ptr) {
        *mem = clCreateBuffer(j->s->context,
                              CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes,
                              (void *)src, &err);
        return err == CL_SUCCESS ? CLCONV_OK
                                 : clc_cl_fail("clCreateBuffer", err,
                                               __FILE__, __LINE__);
    }
    *mem = pp->in[k];
    CLC_CHECK(clRetainMemObject(*mem));
    /* The slot's buffer is free once its last kernel has read it. */
    if (j->staged)
        return clc_staged_write(j->s, pp->in[k], 0, src, bytes,
                                pp->kern[k] ? 1 : 0,
                                pp->kern[k] ? &pp->kern[k] : NULL, ev);
    err = clEnqueueWriteBuffer(j->s->xfer[0], pp->in[k], CL_FALSE, 0, bytes,
                               src, pp->kern[k] ? 1 : 0,
                               pp->kern[k] ? &pp->kern[k] : NULL, ev);
    return err == CL_SUCCESS ? CLCONV_OK
                             : clc_cl_fail("clEnqueueWriteBuffer", err,
                                           __FILE__, __LINE__);
}

/* The input of output rows [r0, r1) in a mode the slab cannot fold
 * (clc_job's gather_edges): rows r0 - lo .. r1 + hi, each the row the
 * whole axis' fold gives (clconv_border_index), copied on the host and
 * bound to *mem; no upload is left in flight when it returns (the rows
 * are freed), so there is no event. */
static clconv_status bind_gathered(clc_job *j, pipe *pp, int k, size_t r0,
                                   size_t r1, cl_mem *mem)
{
    const size_t n = r1 - r0 + j->lo + j->hi, rb = j->row * j->isz;
    char *rows = malloc(n * rb);
    if (!rows)
        return clc_fail(CLCONV_ENOMEM, "out of memory (%zu halo-gathered "
                        "rows of %zu bytes)", n, rb);
    for (size_t i = 0; i < n; ++i) {
        const long long at = clconv_border_index(
            (long long)r0 - (long long)j->lo + (long long)i,
            (long long)j->rows, j->p.border);
        memcpy(rows + i * rb, j->in + (size_t)at * rb, rb);
    }
    cl_int err;
    clconv_status st = CLCONV_OK;
    if (j->host_ptr) {
        *mem = clCreateBuffer(j->s->context,
                              CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * rb,
                              rows, &err);
        if (err != CL_SUCCESS) {
            *mem = NULL;
            st = clc_cl_fail("clCreateBuffer(CL_MEM_COPY_HOST_PTR)", err,
                             __FILE__, __LINE__);
        }
    } else if ((err = clEnqueueWriteBuffer(
                    j->s->xfer[0], pp->in[k], CL_TRUE, 0, n * rb, rows,
                    pp->kern[k] ? 1 : 0, pp->kern[k] ? &pp->kern[k] : NULL,
                    NULL)) != CL_SUCCESS) {
        st = clc_cl_fail("clEnqueueWriteBuffer", err, __FILE__, __LINE__);
    } else {
        *mem = pp->in[k];
        if ((err = clRetainMemObject(*mem)) != CL_SUCCESS) {
            *mem = NULL;
            st = clc_cl_fail("clRetainMemObject", err, __FILE__, __LINE__);
        }
    }
    free(rows);
    return st;
}

/* One slab: output rows [r0, r1) through slot k. */
static clconv_status slab(clc_job *j, pipe *pp, int k, size_t r0, size_t r1)
{
    const int gather =
        j->gather_edges && (r0 < j->lo || r1 + j->hi > j->rows);
    const size_t a = gather ? 0 : r0 > j->lo ? r0 - j->lo : 0;
    const size_t b = gather ? r1 - r0 + j->lo + j->hi
                     : r1 + j->hi < j->rows ? r1 + j->hi
                                            : j->rows;
    /* Rows of the slab's output before r0. */
    const size_t skip = gather ? j->lo : r0 - a;
    clconv_problem q = j->p;
    q.size[j->axis] = b - a;
    clconv_plan *plan;
    clconv_status st = clc_plan_cache_get(j->s, &q, j->mask, &plan);
    if (st != CLCONV_OK)
        return st;
    cl_mem in = NULL;
    cl_event waits[2], up = NULL, kern = NULL, down = NULL;
    cl_uint nw = 0;
    st = gather ? bind_gathered(j, pp, k, r0, r1, &in)
                : bind_input(j, pp, k, a, b, &in, &up);
    if (st != CLCONV_OK)
        goto out;
    if (up)
        waits[nw++] = up;
    if (pp->down[k]) /* the slot's output was read out */
        waits[nw++] = pp->down[k];
    clconv_buffer bi = {.mem = in}, bo = {.mem = pp->out[k]};
    st = clconv_plan_enqueue(plan, &bi, &bo, nw, nw ? waits : NULL, &kern);
    if (st != CLCONV_OK)
        goto out;
    const size_t row_bytes = j->row * j->osz;
    if (j->staged) {
        st = clc_staged_read(j->s, pp->out[k], skip * row_bytes,
                             j->out + r0 * row_bytes, (r1 - r0) * row_bytes,
                             1, &kern, &down);
        if (st != CLCONV_OK)
            goto out;
    } else {
        cl_int err = clEnqueueReadBuffer(
            j->s->xfer[1], pp->out[k], CL_FALSE, skip * row_bytes,
            (r1 - r0) * row_bytes, j->out + r0 * row_bytes, 1, &kern, &down);
        if (err != CL_SUCCESS) {
            st = clc_cl_fail("clEnqueueReadBuffer", err, __FILE__, __LINE__);
            goto out;
        }
    }
    set_event(&pp->kern[k], kern);
    set_event(&pp->down[k], down);
    kern = down = NULL;
    /* Flush so the device starts while the next slab is enqueued. */
    clFlush(j->s->xfer[0]);
    clFlush(j->s->queue);
    clFlush(j->s->xfer[1]);
out:
    if (up)
        clReleaseEvent(up);
    if (kern)
        clReleaseEvent(kern);
    if (down)
        clReleaseEvent(down);
    if (in)
        clReleaseMemObject(in);
    return st;
}

/* A buffer of at least bytes for slot i of the session's kept buffers
 * (0, 1 inputs; 2, 3 outputs): the kept one where large enough, else a new
 * one, kept in its place when small. *out holds a reference of its own. */
static clconv_status slot_buffer(clconv_session *s, int i, cl_mem_flags flags,
                                 size_t bytes, cl_mem *out)
{
    clc_slab_buffers *kb = &s->slab_buffers;
    if (kb->mem[i] && kb->bytes[i] >= bytes) {
        *out = kb->mem[i];
        CLC_CHECK(clRetainMemObject(*out));
        return CLCONV_OK;
    }
    cl_int err;
    *out = clCreateBuffer(s->context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *out = NULL;
        return clc_cl_fail(i < 2 ? "clCreateBuffer(slab input)"
                                 : "clCreateBuffer(slab output)",
                           err, __FILE__, __LINE__);
    }
    uint64_t keep = s->dev.global_mem_bytes / 16;
    if (keep > ((uint64_t)1 << 30))
        keep = (uint64_t)1 << 30;
    if (bytes <= keep && clRetainMemObject(*out) == CL_SUCCESS) {
        if (kb->mem[i])
            clReleaseMemObject(kb->mem[i]);
        kb->mem[i] = *out;
        kb->bytes[i] = bytes;
    }
    return CLCONV_OK;
}

void clc_slab_buffers_free(clconv_session *s)
{
    clc_slab_buffers *kb = &s->slab_buffers;
    for (int i = 0; i < 4; ++i)
        if (kb->mem[i])
            clReleaseMemObject(kb->mem[i]);
    memset(kb, 0, sizeof *kb);
}

/* slots (1 or 2) sets of device buffers for slabs of rows output rows. */
static clconv_status pipe_open(clc_job *j, pipe *pp, size_t rows, int slots)
{
    const size_t elems = (rows + j->lo + j->hi) * j->row;
    memset(pp, 0, sizeof *pp);
    for (int k = 0; k < slots; ++k) {
        clconv_status st = CLCONV_OK;
        if (!j->host_ptr)
            st = slot_buffer(j->s, k, CL_MEM_READ_ONLY, elems * j->isz,
                             &pp->in[k]);
        if (st == CLCONV_OK)
            st = slot_buffer(j->s, 2 + k, CL_MEM_READ_WRITE, elems * j->osz,
                             &pp->out[k]);
        if (st != CLCONV_OK)
            return st;
    }
    return CLCONV_OK;
}

/* Wait for everything in flight (also after an error: nothing may touch
 * the caller's memory once we return), copy the staged downloads out
 * (unless ok is 0), then free the slots. */
static clconv_status pipe_close(clc_job *j, pipe *pp, int ok)
{
    cl_int e0 = clFinish(j->s->xfer[0]);
    cl_int e1 = clc_session_finish(j->s);
    cl_int e2 = clFinish(j->s->xfer[1]);
    clconv_status drained =
        j->staged ? clc_staging_drain(j->s, ok && !e0 && !e1 && !e2)
                  : CLCONV_OK;
    for (int k = 0; k < 2; ++k) {
        set_event(&pp->kern[k], NULL);
        set_event(&pp->down[k], NULL);
        if (pp->in[k])
            clReleaseMemObject(pp->in[k]);
        if (pp->out[k])
            clReleaseMemObject(pp->out[k]);
    }
    cl_int e = e0 ? e0 : e1 ? e1 : e2;
    if (e != CL_SUCCESS)
        return clc_cl_fail("clFinish", e, __FILE__, __LINE__);
    return drained;
}

clconv_status clc_pipe_rows(clc_job *j, size_t begin, size_t end, size_t rows,
                            size_t *nslabs)
{
    clconv_status st = queues(j->s);
    if (st != CLCONV_OK)
        return st;
    pipe pp;
    st = pipe_open(j, &pp, rows, rows < end - begin ? 2 : 1);
    size_t i = 0;
    for (size_t r0 = begin; st == CLCONV_OK && r0 < end; r0 += rows, ++i) {
        size_t r1 = r0 + rows < end ? r0 + rows : end;
        st = slab(j, &pp, (int)(i % 2), r0, r1);
    }
    clconv_status closed = pipe_close(j, &pp, st == CLCONV_OK);
    if (nslabs)
        *nslabs = i;
    return st != CLCONV_OK ? st : closed;
}
