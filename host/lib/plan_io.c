/* A plan's data in and out of the host, in the problem's element types:
 * uploads, downloads (f16 converted on the host where the device runs it
 * as float32) and the poisoned output of verified runs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

static size_t n_of(const clconv_plan *pl)
{
    return clconv_problem_elements(clc_plan_problem(pl));
}

static clconv_status float_only(const clconv_plan *pl, const char *fn)
{
    const clconv_problem *p = clc_plan_problem(pl);
    if (p->in_dtype == CLCONV_ELEM_F32 && p->out_dtype == CLCONV_ELEM_F32)
        return CLCONV_OK;
    return clc_fail(CLCONV_EINVAL,
                    "%s takes float32 data, the plan's are %s to %s: use "
                    "%s_typed",
                    fn, clconv_elem_name(p->in_dtype),
                    clconv_elem_name(p->out_dtype), fn);
}

/* A plan and a host array given, the plan's enqueued work done. */
static clconv_status ready(clconv_plan *pl, const void *data, const char *fn)
{
    if (!pl || !data)
        return clc_fail(CLCONV_EINVAL, "%s: no plan or array given (NULL)",
                        fn);
    return clc_plan_drain(pl);
}

clconv_status clconv_plan_set_input(clconv_plan *pl, const float *in)
{
    clconv_status st = ready(pl, in, "clconv_plan_set_input");
    if (st != CLCONV_OK)
        return st;
    st = float_only(pl, "clconv_plan_set_input");
    return st != CLCONV_OK ? st : clconv_plan_set_input_typed(pl, in);
}

clconv_status clconv_plan_set_input_typed(clconv_plan *pl, const void *in)
{
    cl_mem bin, bout;
    clconv_status st = ready(pl, in, "clconv_plan_set_input_typed");
    if (st == CLCONV_OK)
        st = clc_plan_buffers(pl, &bin, &bout);
    if (st != CLCONV_OK)
        return st;
    float *conv = NULL;
    if (clc_plan_device_elem(pl, 0) != clc_plan_problem(pl)->in_dtype) {
        conv = malloc(n_of(pl) * sizeof *conv); /* f16 converted here */
        if (!conv)
            return clc_fail(CLCONV_ENOMEM, "out of memory");
        clc_elem_to_float(clc_plan_problem(pl)->in_dtype, in, n_of(pl), conv);
        in = conv;
    }
    cl_int err = clEnqueueWriteBuffer(
        clc_plan_session(pl)->queue, bin, CL_TRUE, 0,
        n_of(pl) * clc_plan_elem_size(pl, 0), in, 0, NULL, NULL);
    free(conv);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clEnqueueWriteBuffer", err, __FILE__, __LINE__);
    return CLCONV_OK;
}

clconv_status clconv_plan_poison_output(clconv_plan *pl)
{
    if (!pl)
        return clc_fail(CLCONV_EINVAL, "no plan given (NULL)");
    /* NaN for the float types; for the integer ones, which have no value
     * a kernel could not write, 0xa5 bytes (165, 42405, -23131): rarely a
     * rounded or saturated result. */
    const float nan = NAN;
    const uint16_t half_nan = 0x7e00;
    const uint8_t a5 = 0xa5;
    const size_t size = clc_plan_elem_size(pl, 1);
    const void *pattern = &a5;
    size_t psize = 1;
    if (clc_plan_device_elem(pl, 1) == CLCONV_ELEM_F32) {
        pattern = &nan;
        psize = sizeof nan;
    } else if (clc_plan_device_elem(pl, 1) == CLCONV_ELEM_F16) {
        pattern = &half_nan;
        psize = sizeof half_nan;
    }
    cl_mem bin, bout;
    clconv_status st = ready(pl, &a5, "clconv_plan_poison_output");
    if (st == CLCONV_OK)
        st = clc_plan_buffers(pl, &bin, &bout);
    if (st != CLCONV_OK)
        return st;
    cl_command_queue q = clc_plan_session(pl)->queue;
    CLC_CHECK(clEnqueueFillBuffer(q, bout, pattern, psize, 0, n_of(pl) * size,
                                  0, NULL, NULL));
    CLC_CHECK(clFinish(q));
    return CLCONV_OK;
}

clconv_status clconv_plan_get_output(clconv_plan *pl, float *out)
{
    clconv_status st = ready(pl, out, "clconv_plan_get_output");
    if (st != CLCONV_OK)
        return st;
    st = float_only(pl, "clconv_plan_get_output");
    return st != CLCONV_OK ? st : clconv_plan_get_output_typed(pl, out);
}

clconv_status clconv_plan_get_output_typed(clconv_plan *pl, void *out)
{
    cl_mem bin, bout;
    clconv_status st = ready(pl, out, "clconv_plan_get_output_typed");
    if (st == CLCONV_OK)
        st = clc_plan_buffers(pl, &bin, &bout);
    if (st != CLCONV_OK)
        return st;
    const clconv_elem want = clc_plan_problem(pl)->out_dtype;
    const size_t n = n_of(pl);
    const int convert = clc_plan_device_elem(pl, 1) != want;
    float *dev = convert ? malloc(n * sizeof *dev) : NULL;
    if (convert && !dev)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    cl_int err = clEnqueueReadBuffer(clc_plan_session(pl)->queue, bout,
                                     CL_TRUE, 0,
                                     n * clc_plan_elem_size(pl, 1),
                                     convert ? (void *)dev : out, 0, NULL,
                                     NULL);
    if (err == CL_SUCCESS && convert) /* f16 converted here */
        clconv_elems_from_float(want, dev, n, out);
    free(dev);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clEnqueueReadBuffer", err, __FILE__, __LINE__);
    return CLCONV_OK;
}
