/* The separable path (issue 17 item 1): a mask that is the outer product
 * of one 1D mask per axis runs as dims passes of cl/sep_pass.cl, x first,
 * then y, then z, each with its 1D mask compiled in as constants. The
 * intermediates stay on the device in the path's own buffers. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clc_sep {
    clconv_session *s;
    clconv_problem p;
    cl_kernel pass[3];
    size_t local[3][3], global[3][3];
    cl_mem tmp[2]; /* intermediates, made on first launch */
};

/* The rank-1 test: factors through the largest-magnitude element. */
int clconv_mask_separable(const clconv_problem *p, const float *mask,
                          float *factors)
{
    const int w = p->mask_width, d = p->dims;
    const size_t m = clconv_problem_mask_elements(p);
    float local_f[3 * 1023];
    float *f = factors ? factors : local_f;
    if (d == 1) {
        memcpy(f, mask, (size_t)w * sizeof *f);
        return 1;
    }
    size_t piv = 0;
    for (size_t i = 1; i < m; ++i)
        if (fabsf(mask[i]) > fabsf(mask[piv]))
            piv = i;
    const double pv = mask[piv];
    if (pv == 0.0 || !isfinite(pv)) { /* all zero: 0 * 0 * 0 */
        memset(f, 0, (size_t)d * (size_t)w * sizeof *f);
        return pv == 0.0;
    }
    size_t pc[3] = {piv % (size_t)w, piv / (size_t)w % (size_t)w,
                    piv / ((size_t)w * (size_t)w)};
    const size_t stride[3] = {1, (size_t)w, (size_t)w * (size_t)w};
    for (int a = 0; a < d; ++a)
        for (int j = 0; j < w; ++j) {
            size_t idx = piv - pc[a] * stride[a] + (size_t)j * stride[a];
            f[a * w + j] = a == 0 ? mask[idx] : (float)(mask[idx] / pv);
        }
    const double tol = CLCONV_SEPARABLE_TOL * (double)FLT_EPSILON;
    for (size_t i = 0; i < m; ++i) {
        double prod = 1.0;
        size_t r = i;
        for (int a = 0; a < d; ++a, r /= (size_t)w)
            prod *= f[a * w + (int)(r % (size_t)w)];
        if (!(fabs(mask[i] - prod) <= tol * fabs(mask[i]) + tol * FLT_MIN))
            return 0;
    }
    return 1;
}

/* Work-items along x of a pass: 256 (x pass) or 128 on GPUs, 64 on
 * CPUs, shrunk to the row (a power of two at least nx / coarsen) and the
 * device's limit. */
static size_t pass_group(const clconv_device_info *dev, size_t nx, int axis,
                         int coarsen, int lanes)
{
    size_t g = dev->kind == CLCONV_DEVICE_GPU ? (axis == 0 ? 256 : 128) : 64;
    const size_t per = (size_t)lanes * (axis == 0 ? (size_t)coarsen : 1);
    const size_t need = (nx + per - 1) / per;
    while (g > 1 && g / 2 >= need)
        g /= 2;
    while (g > dev->max_work_group_size || g > dev->max_work_item_sizes[0])
        g /= 2;
    return g;
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

static clconv_status make_pass(clc_sep *sp, int axis, const float *f)
{
    const clconv_problem *p = &sp->p;
    /* CPUs: float16 blocks along x (LANES 16) and fewer rows per
     * work-item (a window of float16 registers). */
    const int cpu = sp->s->dev.kind != CLCONV_DEVICE_GPU;
    const int lanes = cpu ? 16 : 1;
    const int coarsen = axis == 0 ? 4 : cpu ? 4 : 16;
    const size_t g = pass_group(&sp->s->dev, p->size[0], axis, coarsen, lanes);
    const size_t len = 160 + (size_t)p->mask_width * 24;
    char *opts = malloc(len);
    if (!opts)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    int n = snprintf(opts, len,
                     "-D AXIS=%d -D MASK_WIDTH=%d "
                     "-D TILE_WIDTH=%zu -D COARSEN=%d -D LANES=%d "
                     "-D SEP_MASK_VALUES=",
                     axis, p->mask_width, g, coarsen, lanes);
    clc_format_floats(opts + n, len - (size_t)n, f, (size_t)p->mask_width);
    cl_program prog = NULL;
    clconv_status st = clc_program_get(sp->s, "sep_pass", opts, 0, &prog);
    free(opts);
    if (st != CLCONV_OK)
        return st;
    cl_int err;
    sp->pass[axis] = clCreateKernel(prog, "sep_pass", &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateKernel(sep_pass)", err, __FILE__,
                           __LINE__);
    size_t *lo = sp->local[axis], *gl = sp->global[axis];
    lo[0] = g, lo[1] = lo[2] = 1;
    const size_t lx = (p->size[0] + (size_t)lanes - 1) / (size_t)lanes;
    if (axis == 0) {
        gl[0] = round_up(lx, g * (size_t)coarsen) / (size_t)coarsen;
        gl[1] = p->size[1], gl[2] = p->size[2];
    } else {
        gl[0] = round_up(lx, g);
        gl[1] = (p->size[axis] + (size_t)coarsen - 1) / (size_t)coarsen;
        gl[2] = axis == 1 ? p->size[2] : p->size[1];
    }
    for (cl_uint a = 2; a < 5; ++a) {
        cl_int v = (cl_int)p->size[a - 2];
        CLC_CHECK(clSetKernelArg(sp->pass[axis], a, sizeof v, &v));
    }
    return CLCONV_OK;
}

clconv_status clc_sep_create(clconv_session *s, const clconv_problem *p,
                             const float *mask, clc_sep **out)
{
    float f[3 * 1023];
    *out = NULL;
    if (!mask)
        return clc_fail(CLCONV_EINVAL, "the separable method needs the mask "
                                       "when the plan is made "
                                       "(clconv_plan_create_with_mask)");
    if (!clconv_mask_separable(p, mask, f))
        return clc_fail(CLCONV_EINVAL,
                        "method separable: the %dD mask of width %d is not "
                        "an outer product of 1D masks (rank-1 test, "
                        "tolerance %d * FLT_EPSILON per element)",
                        p->dims, p->mask_width, CLCONV_SEPARABLE_TOL);
    clc_sep *sp = calloc(1, sizeof *sp);
    if (!sp)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    sp->s = s;
    sp->p = *p;
    clconv_status st = CLCONV_OK;
    for (int a = 0; a < p->dims && st == CLCONV_OK; ++a)
        st = make_pass(sp, a, f + a * p->mask_width);
    if (st != CLCONV_OK) {
        clc_sep_destroy(sp);
        return st;
    }
    *out = sp;
    return CLCONV_OK;
}

void clc_sep_destroy(clc_sep *sp)
{
    if (!sp)
        return;
    for (int a = 0; a < 3; ++a)
        if (sp->pass[a])
            clReleaseKernel(sp->pass[a]);
    for (int k = 0; k < 2; ++k)
        if (sp->tmp[k])
            clReleaseMemObject(sp->tmp[k]);
    free(sp);
}

static clconv_status temps(clc_sep *sp)
{
    const size_t bytes = clconv_problem_elements(&sp->p) * sizeof(float);
    cl_int err;
    for (int k = 0; k < sp->p.dims - 1; ++k)
        if (!sp->tmp[k]) {
            sp->tmp[k] = clCreateBuffer(sp->s->context, CL_MEM_READ_WRITE,
                                        bytes, NULL, &err);
            if (err != CL_SUCCESS)
                return clc_cl_fail("clCreateBuffer(separable intermediate)",
                                   err, __FILE__, __LINE__);
        }
    return CLCONV_OK;
}

clconv_status clc_sep_launch(clc_sep *sp, cl_mem in, cl_mem out,
                             cl_uint nwait, const cl_event *wait,
                             cl_event *first, cl_event *last)
{
    clconv_status st = temps(sp);
    if (st != CLCONV_OK)
        return st;
    const int d = sp->p.dims;
    cl_event prev = NULL;
    for (int a = 0; a < d && st == CLCONV_OK; ++a) {
        cl_mem src = a == 0 ? in : sp->tmp[a - 1];
        cl_mem dst = a == d - 1 ? out : sp->tmp[a];
        cl_event ev = NULL;
        cl_int err = clSetKernelArg(sp->pass[a], 0, sizeof src, &src);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(sp->pass[a], 1, sizeof dst, &dst);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(
                sp->s->queue, sp->pass[a], 3, NULL, sp->global[a],
                sp->local[a], a ? 1 : nwait, a ? &prev : wait, &ev);
        if (err != CL_SUCCESS)
            st = clc_cl_fail("clEnqueueNDRangeKernel(sep_pass)", err,
                             __FILE__, __LINE__);
        if (a == 0 && first && ev)
            clRetainEvent(*first = ev);
        if (prev)
            clReleaseEvent(prev);
        prev = ev;
    }
    if (st == CLCONV_OK && last)
        *last = prev;
    else if (prev)
        clReleaseEvent(prev);
    return st;
}
