/* Pinned staging between the caller's (pageable) arrays and a device that
 * copies (GPUs): a ring of host chunks the runtime allocates
 * (CL_MEM_ALLOC_HOST_PTR, mapped once per session), which the driver can
 * move at the link's full rate. An upload copies a piece of the caller's
 * array into the next chunk (on the host's cores) and enqueues the write
 * from it; a download enqueues the read into a chunk and copies it out to
 * the caller when the chunk is next needed or at the drain. The host's
 * copies of one piece run while the device moves the pieces before it.
 * The ring is made on first use; $CLCONV_PINNED=0 turns staging off (the
 * pageable path), $CLCONV_PINNED_CHUNK_BYTES sets the chunk size (16 MiB;
 * small chunks for tests). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_cl.h"
#include "internal.h"

enum { STAGE_PIECE_MIN = 1 << 20 };

clconv_status clc_staging_init(clconv_session *s)
{
    size_t *out = &s->staging.want_bytes;
    *out = (size_t)16 << 20;
    const char *env = getenv("CLCONV_PINNED_CHUNK_BYTES");
    if (!env || !*env)
        return CLCONV_OK;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    if (errno || *end || !isdigit((unsigned char)env[0]) || v < 64 || v > ((size_t)1 << 30))
        return clc_fail(CLCONV_EINVAL,
                        "CLCONV_PINNED_CHUNK_BYTES=%s is not a byte count "
                        "from 64 to 2^30",
                        env);
    *out = (size_t)v;
    return CLCONV_OK;
}

static clconv_status open_ring(clconv_session *s)
{
    clc_staging *g = &s->staging;
    if (g->chunk_bytes)
        return CLCONV_OK;
    const size_t bytes = g->want_bytes;
    for (int i = 0; i < CLC_STAGE_CHUNKS; ++i) {
        cl_int err;
        clc_stage_chunk *c = &g->c[i];
        c->mem = clCreateBuffer(s->context, CL_MEM_ALLOC_HOST_PTR, bytes,
                                NULL, &err);
        if (err != CL_SUCCESS)
            return clc_cl_fail("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", err,
                               __FILE__, __LINE__);
        /* Mapped for the session's life: the pointer is the pinned memory
         * the transfers name. */
        c->ptr = clEnqueueMapBuffer(s->queue, c->mem, CL_TRUE,
                                    CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                    NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return clc_cl_fail("clEnqueueMapBuffer(staging)", err, __FILE__,
                               __LINE__);
    }
    g->chunk_bytes = bytes;
    return CLCONV_OK;
}

/* Nothing is waited for, nor flushed: the calls that staged have drained
 * their transfers, the unmaps run in the queue's order (whenever the
 * queue is next flushed: releasing the session's own queue flushes it),
 * and OpenCL deletes a buffer once the commands using it end. A session
 * on an application's queue must not wait for the application's own work
 * there (which may wait for an event only the application sets; Oclgrind
 * runs a flushed queue's commands at once, so a flush would wait too). */
void clc_staging_free(clconv_session *s)
{
    clc_staging *g = &s->staging;
    for (int i = 0; i < CLC_STAGE_CHUNKS; ++i) {
        clc_stage_chunk *c = &g->c[i];
        if (c->ev)
            clReleaseEvent(c->ev);
        if (c->ptr)
            clEnqueueUnmapMemObject(s->queue, c->mem, c->ptr, 0, NULL, NULL);
    }
    for (int i = 0; i < CLC_STAGE_CHUNKS; ++i)
        if (g->c[i].mem)
            clReleaseMemObject(g->c[i].mem);
    const size_t want = g->want_bytes;
    memset(g, 0, sizeof *g);
    g->want_bytes = want;
}

/* dst <- src on the host's cores: pieces of a megabyte or more. */
static void copy_parallel(char *dst, const char *src, size_t bytes)
{
    const size_t piece = (size_t)1 << 20;
    const long n = (long)((bytes + piece - 1) / piece);
    if (n < 2) {
        memcpy(dst, src, bytes);
        return;
    }
#if defined(_OPENMP)
#pragma omp parallel for schedule(static) num_threads(n < 8 ? (int)n : 8)
#endif
    for (long i = 0; i < n; ++i) {
        const size_t off = (size_t)i * piece;
        memcpy(dst + off, src + off, bytes - off < piece ? bytes - off : piece);
    }
}

/* The next chunk of the ring, free: its last transfer waited for, and a
 * download it held copied out to the caller. */
static clconv_status take_chunk(clconv_session *s, clc_stage_chunk **out)
{
    clc_staging *g = &s->staging;
    clc_stage_chunk *c = &g->c[g->next];
    g->next = (g->next + 1) % CLC_STAGE_CHUNKS;
    if (c->ev) {
        /* What it waits for was enqueued before: flushed, it completes. */
        clFlush(s->xfer[0]);
        clFlush(s->queue);
        clFlush(s->xfer[1]);
        cl_int err = clWaitForEvents(1, &c->ev);
        cl_int done = CL_COMPLETE;
        if (err == CL_SUCCESS)
            err = clGetEventInfo(c->ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                 sizeof done, &done, NULL);
        clReleaseEvent(c->ev);
        c->ev = NULL;
        if (err != CL_SUCCESS || done < 0) {
            c->copy_to = NULL;
            return clc_cl_fail("clWaitForEvents(staging)",
                               err != CL_SUCCESS ? err : done, __FILE__,
                               __LINE__);
        }
    }
    if (c->copy_to) {
        copy_parallel(c->copy_to, c->ptr, c->copy_bytes);
        c->copy_to = NULL;
    }
    *out = c;
    return CLCONV_OK;
}

/* Pieces of a transfer of bytes: a quarter of it (so even one slab's
 * copies overlap its transfers), at least a megabyte, at most a chunk. */
static size_t piece_of(const clc_staging *g, size_t bytes)
{
    size_t piece = bytes / 4;
    if (piece < STAGE_PIECE_MIN)
        piece = STAGE_PIECE_MIN;
    return piece < g->chunk_bytes ? piece : g->chunk_bytes;
}

static void keep_last(cl_event ev, cl_event *last)
{
    if (*last)
        clReleaseEvent(*last);
    clRetainEvent(ev);
    *last = ev;
}

/* One transfer through the ring: up (host src to dev) or down (dev to
 * host dst, copied out later). */
static clconv_status staged(clconv_session *s, int up, cl_mem dev,
                            size_t offset, char *host, size_t bytes,
                            cl_uint nwait, const cl_event *wait,
                            cl_event *done)
{
    *done = NULL;
    clconv_status st = open_ring(s);
    if (st != CLCONV_OK)
        return st;
    const size_t piece = piece_of(&s->staging, bytes);
    cl_command_queue q = s->xfer[up ? 0 : 1];
    for (size_t off = 0; off < bytes; off += piece) {
        const size_t n = bytes - off < piece ? bytes - off : piece;
        clc_stage_chunk *c;
        st = take_chunk(s, &c);
        if (st != CLCONV_OK)
            break;
        cl_int err;
        if (up) {
            copy_parallel(c->ptr, host + off, n);
            err = clEnqueueWriteBuffer(q, dev, CL_FALSE, offset + off, n,
                                       c->ptr, nwait, nwait ? wait : NULL,
                                       &c->ev);
        } else {
            err = clEnqueueReadBuffer(q, dev, CL_FALSE, offset + off, n,
                                      c->ptr, nwait, nwait ? wait : NULL,
                                      &c->ev);
        }
        if (err != CL_SUCCESS) {
            c->ev = NULL;
            st = clc_cl_fail(up ? "clEnqueueWriteBuffer(staged)"
                                : "clEnqueueReadBuffer(staged)",
                             err, __FILE__, __LINE__);
            break;
        }
        if (!up) {
            c->copy_to = host + off;
            c->copy_bytes = n;
        }
        keep_last(c->ev, done);
        clFlush(q);
    }
    return st;
}

clconv_status clc_staged_write(clconv_session *s, cl_mem dst, size_t offset,
                               const void *src, size_t bytes, cl_uint nwait,
                               const cl_event *wait, cl_event *done)
{
    return staged(s, 1, dst, offset, (char *)src, bytes, nwait, wait, done);
}

clconv_status clc_staged_read(clconv_session *s, cl_mem src, size_t offset,
                              void *dst, size_t bytes, cl_uint nwait,
                              const cl_event *wait, cl_event *done)
{
    return staged(s, 0, src, offset, dst, bytes, nwait, wait, done);
}

clconv_status clc_staging_drain(clconv_session *s, int copy_out)
{
    clc_staging *g = &s->staging;
    clconv_status st = CLCONV_OK;
    if (!g->chunk_bytes)
        return st;
    /* In ring order, oldest first: each chunk once. */
    for (int i = 0; i < CLC_STAGE_CHUNKS; ++i) {
        clc_stage_chunk *c;
        if (!copy_out)
            g->c[g->next].copy_to = NULL;
        clconv_status t = take_chunk(s, &c);
        if (st == CLCONV_OK)
            st = t;
        if (t != CLCONV_OK)
            copy_out = 0; /* the caller gets the error: stop writing */
    }
    return st;
}
