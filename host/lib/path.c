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
    /* Data of other types than float32: converted on the device before
     * the first pass (to: in -> fin) and after the last (from: fout ->
     * out), cl/convert.cl; NULL where the type is float32. */
    clconv_session *s;
    cl_int n;
    cl_kernel to, from;
    cl_mem fin, fout;
};

/* The conversion kernels and float32 buffers of p's types. */
static clconv_status convert_create(clc_path *path, const clconv_problem *p)
{
    const int in = p->in_dtype != CLCONV_ELEM_F32,
              out = p->out_dtype != CLCONV_ELEM_F32;
    if (!in && !out)
        return CLCONV_OK;
    clconv_status st = CLCONV_OK;
    cl_int err;
    char opts[160];
    clconv_problem q = {.in_dtype = p->in_dtype, .out_dtype = p->out_dtype};
    clc_config c = {.p = q, .cvt_bits = clc_cvt_bits(&path->s->dev)};
    opts[clc_elem_defines(&c, opts, sizeof opts)] = '\0';
    cl_program prog = NULL;
    st = clc_program_get(path->s, "convert", opts, CLC_SRC_TYPES, &prog);
    if (st != CLCONV_OK)
        return st;
    const size_t bytes = (size_t)path->n * sizeof(float);
    if (in) {
        CLC_CREATE_GOTO(path->to, clCreateKernel(prog, "to_float", &err));
        CLC_CREATE_GOTO(path->fin, clCreateBuffer(path->s->context,
                                                  CL_MEM_READ_WRITE, bytes,
                                                  NULL, &err));
    }
    if (out) {
        CLC_CREATE_GOTO(path->from, clCreateKernel(prog, "from_float", &err));
        CLC_CREATE_GOTO(path->fout, clCreateBuffer(path->s->context,
                                                   CL_MEM_READ_WRITE, bytes,
                                                   NULL, &err));
    }
out:
    return st;
}

/* One conversion kernel from src to dst after the wait list; ev its
 * event. */
static clconv_status convert_launch(clc_path *path, cl_kernel k, cl_mem src,
                                    cl_mem dst, cl_uint nwait,
                                    const cl_event *wait, cl_event *ev)
{
    const size_t n[3] = {(size_t)path->n, 1, 1};
    size_t local[3], global[3];
    clc_flat_launch(&path->s->dev, n, local, global);
    CLC_CHECK(clSetKernelArg(k, 0, sizeof src, &src));
    CLC_CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
    CLC_CHECK(clSetKernelArg(k, 2, sizeof path->n, &path->n));
    CLC_CHECK(clEnqueueNDRangeKernel(path->s->queue, k, 1, NULL, global,
                                     local, nwait, nwait ? wait : NULL, ev));
    return CLCONV_OK;
}

clconv_status clc_path_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, clc_path **out)
{
    *out = NULL;
    clconv_status st = clc_launch_check(p);
    if (st != CLCONV_OK)
        return st;
    clc_path *path = calloc(1, sizeof *path);
    if (!path)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    path->m = clconv_problem_mask_elements(p);
    path->s = s;
    path->n = (cl_int)clconv_problem_elements(p);
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
    if (st == CLCONV_OK)
        st = convert_create(path, p);
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
    if (path->to)
        clReleaseKernel(path->to);
    if (path->from)
        clReleaseKernel(path->from);
    if (path->fin)
        clReleaseMemObject(path->fin);
    if (path->fout)
        clReleaseMemObject(path->fout);
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

static clconv_status passes_launch(clc_path *path, cl_mem in, cl_mem out,
                                   cl_uint nwait, const cl_event *wait,
                                   cl_event *first, cl_event *last)
{
    if (path->sep)
        return clc_sep_launch(path->sep, in, out, nwait, wait, first, last);
    return clc_fft_launch(path->fft, in, out, nwait, wait, first, last);
}

clconv_status clc_path_launch(clc_path *path, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *first, cl_event *last)
{
    if (!path->to && !path->from)
        return passes_launch(path, in, out, nwait, wait, first, last);
    cl_event to = NULL, pfirst = NULL, plast = NULL;
    clconv_status st = CLCONV_OK;
    if (first)
        *first = NULL;
    if (path->to) {
        st = convert_launch(path, path->to, in, path->fin, nwait, wait, &to);
        nwait = 1;
        wait = &to;
    }
    if (st == CLCONV_OK)
        st = passes_launch(path, path->to ? path->fin : in,
                           path->from ? path->fout : out, nwait, wait,
                           &pfirst, &plast);
    if (st == CLCONV_OK && path->from)
        st = convert_launch(path, path->from, path->fout, out, 1, &plast,
                            last);
    else if (st == CLCONV_OK && last)
        clRetainEvent(*last = plast);
    if (st == CLCONV_OK && first)
        clRetainEvent(*first = to ? to : pfirst);
    if (to)
        clReleaseEvent(to);
    if (pfirst)
        clReleaseEvent(pfirst);
    if (plast)
        clReleaseEvent(plast);
    return st;
}

clconv_method clconv_plan_method(const clconv_plan *plan)
{
    return plan ? clc_plan_problem(plan)->method : CLCONV_METHOD_AUTO;
}
