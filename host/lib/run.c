/* Datasets and verified runs: the unit of work of the CLI, tests, bench. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void clconv_dataset_destroy(clconv_dataset *d)
{
    if (!d)
        return;
    free(d->in);
    free(d->in_typed);
    free(d->mask);
    free(d->ref);
    free(d->abs_sum);
    free(d);
}

/* A typed dataset (clconv.h): the random floats in [-1, 1] mapped onto
 * the type's range, rounded into in_typed, and in their exact values. */
static clconv_status typed_input(clconv_dataset *d, size_t n, size_t m)
{
    const clconv_elem t = d->shape.in_dtype;
    if (t == CLCONV_ELEM_F32)
        return CLCONV_OK;
    d->in_typed = malloc(n * clconv_elem_size(t));
    if (!d->in_typed)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    const double lo = t == CLCONV_ELEM_U8    ? 0.0
                      : t == CLCONV_ELEM_U16 ? 0.0
                      : t == CLCONV_ELEM_I16 ? -32768.0
                                             : -2.0;
    const double hi = t == CLCONV_ELEM_U8    ? 255.0
                      : t == CLCONV_ELEM_U16 ? 65535.0
                      : t == CLCONV_ELEM_I16 ? 32767.0
                                             : 2.0;
    for (size_t i = 0; i < n; ++i)
        clc_elem_set(t, d->in_typed, i,
                     lo + (d->in[i] + 1.0) / 2.0 * (hi - lo));
    clc_elem_to_float(t, d->in_typed, n, d->in);
    if (!clc_elem_is_int(t))
        return CLCONV_OK;
    double sum = 0.0;
    for (size_t k = 0; k < m; ++k)
        sum += d->mask[k] += 0.5f; /* in [-0.5, 1.5]: mean 0.5 */
    for (size_t k = 0; k < m; ++k)
        d->mask[k] = sum > 0.0 ? (float)(d->mask[k] / sum) : 1.0f / (float)m;
    return CLCONV_OK;
}

clconv_status clconv_dataset_create(const clconv_problem *shape, uint64_t seed,
                                    clconv_dataset **out)
{
    return clconv_dataset_create_seeds(shape, seed,
                                       seed ^ 0x6d61736b6d61736bULL, out);
}

clconv_status clconv_dataset_create_seeds(const clconv_problem *shape,
                                          uint64_t seed, uint64_t mask_seed,
                                          clconv_dataset **out)
{
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the dataset (NULL)");
    *out = NULL;
    clconv_status st = clconv_problem_validate(shape);
    if (st != CLCONV_OK)
        return st;
    clconv_dataset *d = calloc(1, sizeof *d);
    if (!d)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    d->shape = *shape;
    for (int k = shape->dims; k < 3; ++k)
        d->shape.size[k] = 1;
    d->seed = seed;
    const size_t n = clconv_problem_elements(&d->shape);
    const size_t m = clconv_problem_mask_elements(&d->shape);
    /* Input and output floats, reference and bound doubles: refuse what
     * the machine cannot hold rather than be killed filling it. */
    const double need = (double)n * (2 * sizeof(float) + 2 * sizeof(double)) +
                        (double)m * sizeof(float);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0 && need > (double)pages * (double)page) {
        clconv_dataset_destroy(d);
        return clc_fail(CLCONV_ENOMEM,
                        "a dataset of %zu elements needs %.1f GiB of host "
                        "memory, this machine has %.1f GiB",
                        n, need / 1073741824.0,
                        (double)pages * (double)page / 1073741824.0);
    }
    d->in = malloc(n * sizeof *d->in);
    d->mask = malloc(m * sizeof *d->mask);
    d->ref = malloc(n * sizeof *d->ref);
    d->abs_sum = malloc(n * sizeof *d->abs_sum);
    if (!d->in || !d->mask || !d->ref || !d->abs_sum) {
        clconv_dataset_destroy(d);
        return clc_fail(CLCONV_ENOMEM,
                        "out of memory for a dataset of %zu elements", n);
    }
    clconv_fill_random(d->in, n, seed);
    clconv_fill_random(d->mask, m, mask_seed);
    st = typed_input(d, n, m);
    if (st == CLCONV_OK)
        st = clconv_reference(&d->shape, d->in, d->mask, d->ref, d->abs_sum);
    if (st != CLCONV_OK) {
        clconv_dataset_destroy(d);
        return st;
    }
    *out = d;
    return CLCONV_OK;
}

clconv_status clconv_dataset_update(clconv_dataset *d)
{
    if (!d)
        return clc_fail(CLCONV_EINVAL, "no dataset given (NULL)");
    if (d->in_typed) /* the caller changed in_typed */
        clc_elem_to_float(d->shape.in_dtype, d->in_typed,
                          clconv_problem_elements(&d->shape), d->in);
    return clconv_reference(&d->shape, d->in, d->mask, d->ref, d->abs_sum);
}

/* The same data, mask and filter (the reference depends on all of it). */
static int same_shape(const clconv_problem *a, const clconv_problem *b)
{
    if (a->dims != b->dims || a->border != b->border || a->flip != b->flip ||
        a->in_dtype != b->in_dtype ||
        (a->border == CLCONV_BORDER_CONSTANT && a->cval != b->cval))
        return 0;
    for (int k = 0; k < a->dims; ++k)
        if (a->size[k] != b->size[k] || a->origin[k] != b->origin[k] ||
            clconv_problem_mask_axis(a, k) != clconv_problem_mask_axis(b, k))
            return 0;
    return 1;
}

static clconv_status finish(clconv_result *res, clconv_status st)
{
    res->status = st;
    if (st != CLCONV_OK) {
        /* Keep the first line: the summary of what happened. */
        const char *msg = clconv_last_error();
        size_t n = strcspn(msg, "\n");
        if (n >= sizeof res->reason)
            n = sizeof res->reason - 1;
        memcpy(res->reason, msg, n);
        res->reason[n] = '\0';
    }
    return st;
}

clconv_status clconv_run_verified(clconv_session *s, const clconv_problem *p,
                                  const clconv_dataset *data, int warmup,
                                  int reps, clconv_result *res)
{
    if (!res)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the result (NULL)");
    memset(res, 0, sizeof *res);
    if (!s || !p || !data)
        return finish(res, clc_fail(CLCONV_EINVAL,
                                    "no session, problem or dataset (NULL)"));
    if (!same_shape(p, &data->shape))
        return finish(res, clc_fail(CLCONV_EINVAL,
                                    "dataset does not match the problem"));
    clconv_plan *plan = NULL;
    void *got = NULL;
    clconv_status st = clconv_plan_create_with_mask(s, p, data->mask, &plan);
    if (st != CLCONV_OK)
        goto out;
    got = malloc(clconv_problem_elements(p) * clconv_elem_size(p->out_dtype));
    if (!got) {
        st = clc_fail(CLCONV_ENOMEM, "out of memory");
        goto out;
    }
    if ((st = clconv_plan_set_input_typed(
             plan, data->in_typed ? data->in_typed : data->in)) !=
            CLCONV_OK ||
        (st = clconv_plan_poison_output(plan)) != CLCONV_OK ||
        (st = clconv_plan_execute(plan, NULL)) != CLCONV_OK ||
        (st = clconv_plan_get_output_typed(plan, got)) != CLCONV_OK)
        goto out;
    double scale, floor;
    res->method = clconv_plan_method(plan);
    clconv_verify_bound(p, res->method, data->in, data->mask,
                        &scale, &floor);
    clconv_verify_typed(p, got, data->ref, data->abs_sum, scale, floor,
                        &res->verdict);
    if (res->verdict.ok && reps > 0)
        st = clconv_plan_time(plan, warmup, reps, &res->timing);
out:
    free(got);
    clconv_plan_destroy(plan);
    return finish(res, st);
}
