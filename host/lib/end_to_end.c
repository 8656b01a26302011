/* What users experience: host array in, host array out (clconv bench
 * --end-to-end). The transfer ceilings between pageable host memory and the
 * device, and the wall time of whole clconv_convolve_ex calls. */
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "internal.h"

static double now_ms(void) { return 1e3 * clconv_now_s(); }


clconv_status clconv_measure_transfer(clconv_session *s, size_t bytes,
                                      clconv_transfer *t)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    double up[7], down[7];
    memset(t, 0, sizeof *t);
    if (bytes > s->alloc_limit)
        bytes = (size_t)s->alloc_limit;
    bytes &= ~(size_t)63;
    if (bytes == 0)
        return clc_fail(CLCONV_EINVAL, "no bytes to transfer");
    /* Pageable memory, as a user's array is; touched before timing. */
    char *host = malloc(bytes);
    cl_mem dev = NULL;
    if (!host)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", bytes);
    memset(host, 1, bytes);
    CLC_CREATE_GOTO(dev, clCreateBuffer(s->context, CL_MEM_READ_WRITE, bytes,
                                        NULL, &err));
    for (int i = -1; i < 7; ++i) { /* one untimed round first */
        double t0 = now_ms();
        CLC_CHECK_GOTO(clEnqueueWriteBuffer(s->queue, dev, CL_TRUE, 0, bytes,
                                            host, 0, NULL, NULL));
        double t1 = now_ms();
        CLC_CHECK_GOTO(clEnqueueReadBuffer(s->queue, dev, CL_TRUE, 0, bytes,
                                           host, 0, NULL, NULL));
        double t2 = now_ms();
        if (i >= 0) {
            up[i] = t1 - t0;
            down[i] = t2 - t1;
        }
    }
    clconv_timing tu, td;
    clconv_timing_of(up, 7, &tu);
    clconv_timing_of(down, 7, &td);
    t->bytes = bytes;
    t->h2d_gbs = (double)bytes / (tu.median_ms * 1e6);
    t->d2h_gbs = (double)bytes / (td.median_ms * 1e6);
out:
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
