/* The paths a plan can take besides a direct kernel (issue 17): the
 * separable passes and the FFT, behind the one interface plan.c calls. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clc_path {
    clc_sep *sep;
    clc_fft *fft;
    float *mask; /* the separable plan's mask (compiled into its passes) */
    size_t m;
};

clconv_status clc_path_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, clc_path **out)
{
    clconv_status st;
    *out = NULL;
    clc_path *path = calloc(1, sizeof *path);
    if (!path)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    path->m = clconv_problem_mask_elements(p);
    if (p->method == CLCONV_METHOD_SEPARABLE) {
        st = clc_sep_create(s, p, mask, &path->sep);
        if (st == CLCONV_OK && !(path->mask = malloc(path->m * sizeof *mask)))
            st = clc_fail(CLCONV_ENOMEM, "out of memory");
        if (st == CLCONV_OK)
            memcpy(path->mask, mask, path->m * sizeof *mask);
    } else if (p->method == CLCONV_METHOD_FFT) {
        st = clc_fft_create(s, p, &path->fft);
        if (st == CLCONV_OK && mask)
            st = clc_fft_set_mask(path->fft, mask);
    } else {
        st = clc_fail(CLCONV_EINVAL, "method %s is not a path",
                      clconv_method_name(p->method));
    }
    if (st != CLCONV_OK) {
        clc_path_destroy(path);
        return st;
    }
    *out = path;
    return CLCONV_OK;
}

void clc_path_destroy(clc_path *path)
{
    if (!path)
        return;
    clc_sep_destroy(path->sep);
    clc_fft_destroy(path->fft);
    free(path->mask);
    free(path);
}

clconv_status clc_path_set_mask(clc_path *path, const float *mask)
{
    if (path->fft)
        return clc_fft_set_mask(path->fft, mask);
    /* Bit-for-bit, as a baked plan compares. */
    if (memcmp(path->mask, mask, path->m * sizeof *mask) != 0)
        return clc_fail(CLCONV_EINVAL,
                        "this plan's 1D masks are compiled into its passes "
                        "(method separable): make a new plan for another "
                        "mask");
    return CLCONV_OK;
}

clconv_status clc_path_launch(clc_path *path, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *first, cl_event *last)
{
    if (path->sep)
        return clc_sep_launch(path->sep, in, out, nwait, wait, first, last);
    return clc_fft_launch(path->fft, in, out, nwait, wait, first, last);
}

clconv_method clconv_plan_method(const clconv_plan *plan)
{
    return clc_plan_problem(plan)->method;
}
