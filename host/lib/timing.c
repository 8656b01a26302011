/* Timing with profiling events: untimed warm-up, then median/min/max. */
#include <stdlib.h>
#include <time.h>

#include "internal.h"

double clconv_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void clconv_timing_of(double *ms, int n, clconv_timing *t)
{
    if (!t)
        return;
    if (!ms || n < 1) { /* no samples: no times */
        *t = (clconv_timing){.reps = 0};
        return;
    }
    qsort(ms, (size_t)n, sizeof *ms, cmp_double);
    t->reps = n;
    t->min_ms = ms[0];
    t->max_ms = ms[n - 1];
    t->median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

clconv_status clconv_plan_time(clconv_plan *plan, int warmup, int reps,
                               clconv_timing *t)
{
    if (!plan || !t)
        return clc_fail(CLCONV_EINVAL, "no plan or timing given (NULL)");
    if (reps < 1)
        return clc_fail(CLCONV_EINVAL, "reps must be >= 1 (got %d)", reps);
    const clconv_status timeable = clc_plan_timeable(plan);
    if (timeable != CLCONV_OK)
        return timeable;
    double *ms = malloc((size_t)reps * sizeof *ms);
    if (!ms)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clconv_status st = CLCONV_OK;
    for (int i = 0; i < warmup && st == CLCONV_OK; ++i)
        st = clconv_plan_execute(plan, NULL);
    for (int i = 0; i < reps && st == CLCONV_OK; ++i)
        st = clconv_plan_execute(plan, &ms[i]);
    if (st == CLCONV_OK)
        clconv_timing_of(ms, reps, t);
    free(ms);
    return st;
}
