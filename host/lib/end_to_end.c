/* What users experience: host array in, host array out (clconv bench
 * --end-to-end). The transfer ceilings between pageable host memory and the
 * device, and the wall time of whole clconv_convolve_ex calls. */
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "internal.h"

static double now_ms(void) { return 1e3 * clconv_now_s(); }

/* Blocking write then read of bytes between host and dev: medians of 7
 * after one untimed round, GB/s into *up and *down. */
static clconv_status time_round_trips(clconv_session *s, cl_mem dev,
                                      void *host, size_t bytes, double *up,
                                      double *down)
{
    double u[7], d[7];
    for (int i = -1; i < 7; ++i) {
        double t0 = now_ms();
        CLC_CHECK(clEnqueueWriteBuffer(s->queue, dev, CL_TRUE, 0, bytes, host,
                                       0, NULL, NULL));
        double t1 = now_ms();
        CLC_CHECK(clEnqueueReadBuffer(s->queue, dev, CL_TRUE, 0, bytes, host,
                                      0, NULL, NULL));
        double t2 = now_ms();
        if (i >= 0) {
            u[i] = t1 - t0;
            d[i] = t2 - t1;
        }
    }
    clconv_timing tu, td;
    clconv_timing_of(u, 7, &tu);
    clconv_timing_of(d, 7, &td);
    *up = (double)bytes / (tu.median_ms * 1e6);
    *down = (double)bytes / (td.median_ms * 1e6);
    return CLCONV_OK;
}

clconv_status clconv_measure_transfer(clconv_session *s, size_t bytes,
                                      clconv_transfer *t)
{
    if (!s || !t)
        return clc_fail(CLCONV_EINVAL,
                        "no session or nowhere to put the times (NULL)");
    clconv_status st = CLCONV_OK;
    cl_int err;
    memset(t, 0, sizeof *t);
    if (bytes > s->alloc_limit)
        bytes = (size_t)s->alloc_limit;
    bytes &= ~(size_t)63;
    if (bytes == 0)
        return clc_fail(CLCONV_EINVAL, "no bytes to transfer");
    /* Pageable memory, as a user's array is; touched before timing. */
    char *host = malloc(bytes);
    cl_mem dev = NULL, pinned = NULL;
    void *mapped = NULL;
    if (!host)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", bytes);
    memset(host, 1, bytes);
    CLC_CREATE_GOTO(dev, clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes,
                                        NULL, &err));
    st = time_round_trips(s, dev, host, bytes, &t->h2d_gbs, &t->d2h_gbs);
    if (st != CLCONV_OK)
        goto out;
    t->bytes = bytes;
    /* Memory the runtime allocates for the host (pinned where it can),
     * as clconv's staging is: the link's own ceiling. */
    CLC_CREATE_GOTO(pinned, clCreateBuffer(s->context, CL_MEM_ALLOC_HOST_PTR,
                                           bytes, NULL, &err));
    mapped = clEnqueueMapBuffer(s->queue, pinned, CL_TRUE, CL_MAP_WRITE, 0,
                                bytes, 0, NULL, NULL, &err);
    CLC_CHECK_CALL_GOTO("clEnqueueMapBuffer", err);
    memset(mapped, 1, bytes);
    st = time_round_trips(s, dev, mapped, bytes, &t->pinned_h2d_gbs,
                          &t->pinned_d2h_gbs);
out:
    if (mapped) {
        clEnqueueUnmapMemObject(s->queue, pinned, mapped, 0, NULL, NULL);
        clFinish(s->queue);
    }
    if (pinned)
        clReleaseMemObject(pinned);
    if (dev)
        clReleaseMemObject(dev);
    free(host);
    return st;
}

clconv_status clconv_time_end_to_end(clconv_session *s,
                                     const clconv_problem *p, const float *in,
                                     const float *mask, float *out,
                                     int warmup, int reps, clconv_timing *t,
                                     clconv_call_info *info)
{
    if (!t) /* the call itself refuses the session, problem and arrays */
        return clc_fail(CLCONV_EINVAL, "nowhere to put the timing (NULL)");
    if (reps < 1 || reps > 1000 || warmup < 0)
        return clc_fail(CLCONV_EINVAL, "reps %d (1-1000), warmup %d", reps,
                        warmup);
    double *ms = malloc((size_t)reps * sizeof *ms);
    if (!ms)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clconv_status st = CLCONV_OK;
    for (int i = -warmup; i < reps && st == CLCONV_OK; ++i) {
        double t0 = now_ms();
        st = clconv_convolve_ex(s, p, in, mask, out, info);
        if (i >= 0)
            ms[i] = now_ms() - t0;
    }
    if (st == CLCONV_OK)
        clconv_timing_of(ms, reps, t);
    free(ms);
    return st;
}
