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

/* bytes of src into mem at offset on xfer[0], after the nw events of wait,
 * through pinned staging where the job is staged (ev: the upload). */
static clconv_status upload(clc_job *j, cl_mem mem, size_t offset,
                            const char *src, size_t bytes, cl_uint nw,
                            const cl_event *wait, cl_event *ev)
{
    if (j->staged)
        return clc_staged_write(j->s, mem, offset, src, bytes, nw, wait, ev);
    cl_int err = clEnqueueWriteBuffer(j->s->xfer[0], mem, CL_FALSE, offset,
                                      bytes, src, nw, wait, ev);
    return err == CL_SUCCESS ? CLCONV_OK
                             : clc_cl_fail("clEnqueueWriteBuffer", err,
                                           __FILE__, __LINE__);
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
    return upload(j, pp->in[k], 0, src, bytes, pp->kern[k] ? 1 : 0,
                  pp->kern[k] ? &pp->kern[k] : NULL, ev);
}

/* Input rows [a, b) after `zeros` rows of zeros (rows before the job's
 * first that a slab's launch starts at only to place its work-groups as
 * the whole's: clc_job's split; no output kept reads them), uploaded
 * into the slot, or into a buffer of their own on CPU devices (the
 * caller's rows cannot be preceded in place). */
static clconv_status bind_after_zeros(clc_job *j, pipe *pp, int k,
                                      size_t zeros, size_t a, size_t b,
                                      cl_mem *mem, cl_event *ev)
{
    const size_t rb = j->row * j->isz, lead = zeros * rb;
    const size_t bytes = (b - a) * rb;
    const char *src = j->in + a * rb;
    const cl_uchar zero = 0;
    const cl_uint nw = !j->host_ptr && pp->kern[k] ? 1 : 0;
    const cl_event *wait = nw ? &pp->kern[k] : NULL;
    cl_int err;
    *ev = NULL;
    if (j->host_ptr) {
        *mem = clCreateBuffer(j->s->context, CL_MEM_READ_ONLY, lead + bytes,
                              NULL, &err);
        if (err != CL_SUCCESS) {
            *mem = NULL;
            return clc_cl_fail("clCreateBuffer(slab input)", err, __FILE__,
                               __LINE__);
        }
    } else {
        *mem = pp->in[k];
        CLC_CHECK(clRetainMemObject(*mem));
    }
    CLC_CHECK(clEnqueueFillBuffer(j->s->xfer[0], *mem, &zero, 1, 0, lead, nw,
                                  wait, NULL));
    return upload(j, *mem, lead, src, bytes, nw, wait, ev);
}

/* The input of output rows [r0, r1) in a mode the slab cannot fold
 * (clc_job's gather_edges): n rows from row `first` (r0 - lo, or earlier
 * to place the launch: clc_job's split), each the row the whole axis'
 * fold gives (clconv_border_index), copied on the host and bound to *mem;
 * no upload is left in flight when it returns (the rows are freed), so
 * there is no event. */
static clconv_status bind_gathered(clc_job *j, pipe *pp, int k,
                                   long long first, size_t n, cl_mem *mem)
{
    const size_t rb = j->row * j->isz;
    char *rows = malloc(n * rb);
    if (!rows)
        return clc_fail(CLCONV_ENOMEM, "out of memory (%zu halo-gathered "
                        "rows of %zu bytes)", n, rb);
    for (size_t i = 0; i < n; ++i) {
        const long long at = clconv_border_index(
            first + (long long)i, (long long)j->rows, j->p.border);
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

/* a mod m, from 0 to m - 1 for a of either sign. */
static size_t floor_mod(long long a, size_t m)
{
    const long long r = a % (long long)m;
    return (size_t)(r < 0 ? r + (long long)m : r);
}

/* The input of output rows [r0, r1): rows [a, b) (gather: the fold's
 * rows from r0 - lo, b - a of them), after `lead` rows that place the
 * launch a multiple of split rows into the whole (clc_job): `early` of
 * them rows of the input, the rest zeros before the job's first. No lead
 * where the slab folds the job's first row itself (a part of a whole
 * whose first row is not such a multiple). */
typedef struct span {
    int gather;
    size_t a, b, lead, early;
    long long first; /* the job's row the outputs' reach starts at */
} span;

static void span_of(const clc_job *j, size_t r0, size_t r1, span *sp)
{
    /* At an end, a slab too short for the fold it needs gathers its rows
     * (the last of a balanced division, the first cut to place the
     * launches: they folded inside themselves and read other rows). */
    sp->gather = (r0 < j->lo || r1 + j->hi > j->rows) &&
                 (j->gather_edges ||
                  (j->ends_in_parts && !clc_slabs_fold(j, r1 - r0)));
    sp->a = sp->gather ? 0 : r0 > j->lo ? r0 - j->lo : 0;
    sp->b = sp->gather ? r1 - r0 + j->lo + j->hi
            : r1 + j->hi < j->rows ? r1 + j->hi
                                   : j->rows;
    sp->first = sp->gather ? (long long)r0 - (long long)j->lo
                           : (long long)sp->a;
    sp->lead = floor_mod(j->origin + sp->first, j->split);
    if (!sp->gather && sp->a == 0 && r0 < j->lo)
        sp->lead = 0;
    sp->early = sp->gather ? sp->lead : sp->lead < sp->a ? sp->lead : sp->a;
}

/* One slab: output rows [r0, r1) through slot k. */
static clconv_status slab(clc_job *j, pipe *pp, int k, size_t r0, size_t r1)
{
    span sp;
    span_of(j, r0, r1, &sp);
    const int gather = sp.gather;
    const size_t a = sp.a, b = sp.b, lead = sp.lead, early = sp.early;
    const long long first = sp.first;
    /* Rows of the slab's output before r0. */
    const size_t skip = lead + (gather ? j->lo : r0 - a);
    clconv_problem q = j->p;
    q.size[j->axis] = lead + b - a;
    clconv_plan *plan;
    clconv_status st = clc_plan_cache_get(j->s, &q, j->mask, &plan);
    if (st != CLCONV_OK)
        return st;
    cl_mem in = NULL;
    cl_event waits[2], up = NULL, kern = NULL, down = NULL;
    cl_uint nw = 0;
    st = gather ? bind_gathered(j, pp, k, first - (long long)lead,
                                lead + b - a, &in)
         : early < lead
             ? bind_after_zeros(j, pp, k, lead - early, a - early, b, &in, &up)
             : bind_input(j, pp, k, a - early, b, &in, &up);
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
    const size_t elems = (rows + j->lo + j->hi + j->split - 1) * j->row;
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

/* Do the rows that read the fold at the job's first row take a slab of
 * their own (clc_pipe_rows)? Where the job is a part that does not
 * start a multiple of split rows into the whole. */
static int cut_at_lo(const clc_job *j)
{
    return !j->gather_edges && floor_mod(j->origin, j->split) != 0;
}

clconv_status clc_pipe_rows(clc_job *j, size_t begin, size_t end, size_t rows,
                            size_t *nslabs)
{
    clconv_status st = queues(j->s);
    if (st != CLCONV_OK)
        return st;
    pipe pp;
    st = pipe_open(j, &pp, rows,
                   rows < end - begin ||
                           (begin < j->lo && end > j->lo && cut_at_lo(j))
                       ? 2
                       : 1);
    size_t i = 0;
    for (size_t r0 = begin, r1; st == CLCONV_OK && r0 < end; r0 = r1, ++i) {
        r1 = r0 + rows < end ? r0 + rows : end;
        /* The next slab's reach to start a multiple of split rows into
         * the whole, so that it reads no rows before it (clc_job): this
         * one ends at the nearer such row, later where the slot holds
         * it, else earlier where it can. */
        const size_t back = floor_mod(
            j->origin + (long long)r1 - (long long)j->lo, j->split);
        const size_t ahead = back ? j->split - back : 0;
        int later = r1 < end && ahead && ahead <= back && r1 + ahead <= end;
        if (later) { /* the slot holds the longer slab */
            span sp;
            span_of(j, r0, r1 + ahead, &sp);
            later = sp.lead + sp.b - sp.a <=
                    rows + j->lo + j->hi + j->split - 1;
        }
        if (later)
            r1 += ahead;
        else if (r1 < end && r1 - r0 > back)
            r1 -= back;
        /* Rows that read the fold at the job's first row, of a part that
         * does not start a multiple of split rows into the whole: a slab
         * of their own, its launch where the part starts (slab()), so
         * that the rows after them start where the whole's would. */
        if (r0 < j->lo && r1 > j->lo && cut_at_lo(j))
            r1 = j->lo;
        st = slab(j, &pp, (int)(i % 2), r0, r1);
    }
    clconv_status closed = pipe_close(j, &pp, st == CLCONV_OK);
    if (nslabs)
        *nslabs = i;
    return st != CLCONV_OK ? st : closed;
}
