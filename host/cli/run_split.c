/* `clconv run` through the host-to-host path: a problem beyond a device's
 * allocation (streamed in slabs), and --split (one problem shared by the
 * selected devices, weighted by their measured speed). Each row is
 * verified once against the double reference, then timed as wall time of
 * whole calls, host arrays in and out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static clconv_status call(clconv_session *const *sessions, size_t n,
                          const clconv_problem *problems, const double *w,
                          const clconv_dataset *data, float *out,
                          clconv_call_info *info)
{
    const void *in = data->in_typed ? data->in_typed : (void *)data->in;
    if (n == 1)
        return clconv_convolve_typed(sessions[0], &problems[0], in,
                                     data->mask, out, info);
    return clconv_convolve_split(sessions, n, problems, w, in, data->mask,
                                 out, info);
}

/* warmup + reps timed calls: median, min, max wall ms. */
static clconv_status time_calls(const run_options *o,
                                clconv_session *const *sessions, size_t n,
                                const clconv_problem *problems,
                                const double *w, const clconv_dataset *data,
                                float *out, run_row *r)
{
    double *ms = calloc((size_t)o->reps + 1, sizeof *ms);
    clconv_status st = ms ? CLCONV_OK : CLCONV_ENOMEM;
    for (int i = -o->warmup; i < o->reps && st == CLCONV_OK; ++i) {
        double t0 = clconv_now_s();
        st = call(sessions, n, problems, w, data, out, &r->info);
        if (i >= 0)
            ms[i] = 1e3 * (clconv_now_s() - t0);
    }
    if (st == CLCONV_OK && o->reps > 0)
        clconv_timing_of(ms, o->reps, &r->res.timing);
    free(ms);
    return st;
}

static void label_devices(const clconv_device_info *const *devs, size_t n,
                          char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; ++i) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%u:%u %s", i ? "; " : "",
                 devs[i]->platform_index, devs[i]->device_index,
                 devs[i]->name);
    }
}

int run_host_path(const run_options *o, clconv_session *const *sessions,
                  const clconv_device_info *const *devs, size_t n,
                  const clconv_problem *problems, const clconv_dataset *data,
                  run_row *r)
{
    const size_t elems = clconv_problem_elements(&problems[0]);
    double w[64];
    float *out = malloc(elems * sizeof *out);
    r->host_path = 1;
    label_devices(devs, n, r->devices, sizeof r->devices);
    clconv_status st = out ? CLCONV_OK : CLCONV_ENOMEM;
    if (st == CLCONV_OK && n > 1)
        st = clconv_measure_weights(sessions, n, problems,
                                    data->in_typed ? data->in_typed
                                                   : (const void *)data->in,
                                    data->mask, w);
    if (st == CLCONV_OK && n > 1) {
        fprintf(stderr, "clconv: split weights");
        for (size_t i = 0; i < n; ++i)
            fprintf(stderr, " %s %.3g", devs[i]->name, w[i]);
        fprintf(stderr, " (1/s of a sample)\n");
    }
    if (st == CLCONV_OK) {
        /* Poison: a skipped element cannot pass (NaN; 0xa5 bytes for the
         * integer types, as clconv_plan_poison_output). */
        for (size_t i = 0; i < elems; ++i)
            out[i] = NAN;
        if (problems[0].out_dtype != CLCONV_ELEM_F32)
            memset(out, 0xa5, elems * sizeof *out);
        st = call(sessions, n, problems, w, data, out, &r->info);
    }
    if (st == CLCONV_OK) {
        /* The bound of the method each device ran (auto resolved as the
         * calls resolve it), the loosest where they differ: the rows took
         * the direct method's bound even for the FFT. */
        clconv_method m[64];
        for (size_t i = 0; i < n; ++i)
            m[i] = problems[i].method == CLCONV_METHOD_AUTO
                       ? clconv_method_choose(sessions[i], &problems[i],
                                              data->mask)
                       : problems[i].method;
        double scale, floor;
        cli_verify_bound_of(&problems[0], m, n, data->in, data->mask, &scale,
                            &floor);
        clconv_verify_typed(&problems[0], out, data->ref, data->abs_sum,
                            scale, floor, &r->res.verdict);
        if (r->res.verdict.ok)
            st = time_calls(o, sessions, n, problems, w, data, out, r);
    }
    r->res.status = st;
    if (st != CLCONV_OK)
        snprintf(r->res.reason, sizeof r->res.reason, "%.*s",
                 (int)strcspn(clconv_last_error(), "\n"), clconv_last_error());
    free(out);
    return cli_result_code(&r->res);
}
