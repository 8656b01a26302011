/* One problem over several devices (clconv_convolve_split): the output
 * rows of the slowest axis split in proportion to each device's speed,
 * each device streaming its part (with halos) in its own thread. Each part
 * is what that device computes for those rows alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CLC_SPLIT_MAX 64

static clconv_status check_shapes(clconv_session *const *sessions, size_t n,
                                  const clconv_problem *problems)
{
    if (n == 0 || n > CLC_SPLIT_MAX)
        return clc_fail(CLCONV_EINVAL, "%zu devices (1 to %d)", n,
                        CLC_SPLIT_MAX);
    if (!sessions || !problems)
        return clc_fail(CLCONV_EINVAL, "no sessions or problems (NULL)");
    for (size_t i = 0; i < n; ++i) {
        if (!sessions[i])
            return clc_fail(CLCONV_EINVAL, "no session for device %zu", i);
        clconv_status st = clconv_problem_validate(&problems[i]);
        if (st != CLCONV_OK)
            return st;
        if (problems[i].in_dtype != problems[0].in_dtype ||
            problems[i].out_dtype != problems[0].out_dtype)
            return clc_fail(CLCONV_EINVAL,
                            "the problems of a split differ in element "
                            "types (device %zu's are %s to %s, device 0's "
                            "%s to %s)",
                            i, clconv_elem_name(problems[i].in_dtype),
                            clconv_elem_name(problems[i].out_dtype),
                            clconv_elem_name(problems[0].in_dtype),
                            clconv_elem_name(problems[0].out_dtype));
        for (size_t k = 0; k < i; ++k)
            if (sessions[k] == sessions[i])
                return clc_fail(CLCONV_EINVAL,
                                "the same session twice in a split (devices "
                                "%zu and %zu): a session serves one thread",
                                k, i);
        const clconv_problem *a = &problems[0], *b = &problems[i];
        int same = a->dims == b->dims && a->border == b->border &&
                   a->flip == b->flip && a->cval == b->cval;
        for (int d = 0; d < a->dims; ++d)
            same = same && a->size[d] == b->size[d] &&
                   a->origin[d] == b->origin[d] &&
                   clconv_problem_mask_axis(a, d) ==
                       clconv_problem_mask_axis(b, d);
        if (!same)
            return clc_fail(CLCONV_EINVAL,
                            "the problems of a split differ in shape (device "
                            "%zu)", i);
    }
    return CLCONV_OK;
}

/* Rows of the slowest axis per device: proportional to the weights, in
 * order, every row once. */
static clconv_status split_rows(size_t rows, size_t n, const double *w,
                                size_t *bounds)
{
    double total = 0, top = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!(w[i] >= 0) || !isfinite(w[i]))
            return clc_fail(CLCONV_EINVAL, "weight %zu is %g", i, w[i]);
        top = w[i] > top ? w[i] : top;
    }
    /* Relative to the largest, so finite weights never sum to inf (whose
     * quotients were NaN, and their rows past the end). */
    for (size_t i = 0; top > 0 && i < n; ++i)
        total += w[i] / top;
    if (!(total > 0))
        return clc_fail(CLCONV_EINVAL, "the weights sum to %g", total);
    double acc = 0;
    bounds[0] = 0;
    for (size_t i = 0; i < n; ++i) {
        acc += w[i] / top;
        bounds[i + 1] = i + 1 == n ? rows : (size_t)llround(rows * acc / total);
        if (bounds[i + 1] < bounds[i])
            bounds[i + 1] = bounds[i];
    }
    return CLCONV_OK;
}

clconv_status clconv_measure_weights(clconv_session *const *sessions,
                                     size_t n, const clconv_problem *problems,
                                     const void *in, const float *mask,
                                     double *weights)
{
    if (!weights)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the weights (NULL)");
    clconv_status st = check_shapes(sessions, n, problems);
    if (st != CLCONV_OK)
        return st;
    /* A sample of the real rows: an eighth of them, at least 16 (all when
     * fewer): the fastest of three calls after an untimed one that builds
     * the program. */
    const clconv_problem *p = &problems[0];
    const int axis = p->dims - 1;
    size_t rows = p->size[axis], take = rows / 8 < 16 ? 16 : rows / 8;
    if (take > rows)
        take = rows;
    size_t elems = clconv_problem_elements(p) / rows * take;
    void *out = malloc(elems * clconv_elem_size(p->out_dtype));
    if (!out)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && st == CLCONV_OK; ++i) {
        clconv_problem q = problems[i];
        q.size[axis] = take;
        double t = 1e30;
        for (int rep = 0; rep < 4 && st == CLCONV_OK; ++rep) {
            double t0 = clconv_now_s();
            st = clconv_convolve_typed(sessions[i], &q, in, mask, out,
                                       NULL);
            if (rep > 0 && clconv_now_s() - t0 < t) /* the first one builds */
                t = clconv_now_s() - t0;
        }
        weights[i] = 1.0 / (t > 1e-6 ? t : 1e-6);
    }
    free(out);
    return st;
}

clconv_status clconv_convolve_split(clconv_session *const *sessions, size_t n,
                                    const clconv_problem *problems,
                                    const double *weights, const void *in,
                                    const float *mask, void *out,
                                    clconv_call_info *info)
{
    return clconv_convolve_split_part(sessions, n, problems, NULL, weights,
                                      in, mask, out, info);
}

/* f16 data where some device lacks it: every device in float32, the data
 * converted on the host (as clconv_convolve_typed converts them). */
static clconv_status split_via_f32(clconv_session *const *sessions, size_t n,
                                   const clconv_problem *problems,
                                   const clconv_part *part,
                                   const double *weights, const void *in,
                                   const float *mask, void *out,
                                   clconv_call_info *info)
{
    clc_f32_view v;
    clconv_status st = clc_f32_view_open(&problems[0], in, out, &v);
    if (st != CLCONV_OK)
        return st;
    clconv_problem q[CLC_SPLIT_MAX];
    for (size_t i = 0; i < n; ++i) {
        q[i] = problems[i];
        q[i].in_dtype = v.q.in_dtype;
        q[i].out_dtype = v.q.out_dtype;
    }
    st = clconv_convolve_split_part(sessions, n, q, part, weights, v.in, mask,
                                    v.out, info);
    clc_f32_view_close(&v, &problems[0], out, 0,
                       clconv_problem_elements(&problems[0]), st);
    return st;
}

clconv_status clconv_convolve_split_part(clconv_session *const *sessions,
                                         size_t n,
                                         const clconv_problem *problems,
                                         const clconv_part *part,
                                         const double *weights,
                                         const void *in, const float *mask,
                                         void *out, clconv_call_info *info)
{
    size_t bounds[CLC_SPLIT_MAX + 1], slabs[CLC_SPLIT_MAX] = {0};
    clconv_status res[CLC_SPLIT_MAX];
    char why[CLC_SPLIT_MAX][256];
    if (info)
        *info = (clconv_call_info){0};
    clconv_status st = check_shapes(sessions, n, problems);
    if (st == CLCONV_OK)
        st = clc_part_check(&problems[0], part);
    if (st != CLCONV_OK)
        return st;
    if (!in || !mask || !out || !weights)
        return clc_fail(CLCONV_EINVAL, "no input, mask, output or weights");
    const int axis = problems[0].dims - 1;
    st = split_rows(problems[0].size[axis], n, weights, bounds);
    if (st != CLCONV_OK)
        return st;
    const clconv_problem *p = &problems[0];
    for (size_t i = 0; i < n; ++i)
        if (clc_f16_on_host(sessions[i], p))
            return split_via_f32(sessions, n, problems, part, weights, in,
                                 mask, out, info);
    /* An output over the input: the parts read the input as it was. */
    const size_t elems = clconv_problem_elements(p);
    void *copy = NULL;
    in = clc_unaliased(in, elems * clconv_elem_size(p->in_dtype), out,
                       elems * clconv_elem_size(p->out_dtype), &copy);
    if (!in)
        return clc_fail(CLCONV_ENOMEM, "out of memory (a copy of the input, "
                        "which the output overlaps)");
#pragma omp parallel for num_threads((int)n) schedule(static, 1)
    for (size_t i = 0; i < n; ++i) {
        res[i] = CLCONV_OK;
        if (bounds[i] < bounds[i + 1])
            res[i] = clc_stream_rows(sessions[i], &problems[i], part, in,
                                     mask, out,
                                     bounds[i], bounds[i + 1], 1, &slabs[i]);
        snprintf(why[i], sizeof why[i], "%s", clconv_last_error());
    }
    for (size_t i = 0; i < n; ++i) {
        if (info && bounds[i] < bounds[i + 1]) {
            info->slabs += slabs[i];
            info->devices++;
        }
        if (res[i] != CLCONV_OK && st == CLCONV_OK)
            st = clc_fail(res[i], "%s: %s", sessions[i]->dev.name, why[i]);
    }
    free(copy);
    return st;
}
