/* A plan: one problem on one device. Checks every limit before building or
 * launching, owns the kernel and buffers, launches with profiling. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clconv_plan {
    clconv_session *s;
    clconv_problem p; /* the problem with every default resolved */
    clc_config c;     /* its kernel's problem (a batch member) and knobs */
    clc_geometry g;
    int count_loads;
    cl_kernel kernel;
    cl_mem in, out, mask, counters;
    size_t n, m; /* elements of data and mask */
    float *baked; /* the mask compiled into the program, or NULL */
    clc_path *path; /* the separable or FFT path, or NULL (direct) */
    cl_event last;  /* the plan's last enqueued work, or NULL */
};

static clconv_status set_args(clconv_plan *pl)
{
    cl_kernel k = pl->kernel;
    cl_uint a = 0;
    a += 2; /* input and output: set by each launch (clc_plan_launch) */
    CLC_CHECK(clSetKernelArg(k, a++, sizeof(cl_mem), &pl->mask));
    for (int d = 0; d < pl->c.p.dims; ++d) {
        cl_int n = (cl_int)pl->c.p.size[d];
        CLC_CHECK(clSetKernelArg(k, a++, sizeof n, &n));
    }
    if (pl->count_loads)
        CLC_CHECK(clSetKernelArg(k, a++, sizeof(cl_mem), &pl->counters));
    return CLCONV_OK;
}

/* An element type as the session's device holds it: f16 converted on
 * the host to float32 where the device runs no f16 (clconv.h). */
static clconv_elem device_elem(const clconv_session *s, clconv_elem t)
{
    return t == CLCONV_ELEM_F16 && !s->fp16 ? CLCONV_ELEM_F32 : t;
}

/* Resolve the problem on the session's device (every default, the
 * measuring overrides), its geometry and the limits; keep a baked mask. */
static clconv_status plan_resolve(clconv_plan *pl, const clconv_problem *p,
                                  const float *mask)
{
    clconv_session *s = pl->s;
    /* Counted loads follow the model of the problem's own kernel. */
    if (pl->count_loads)
        clc_config_resolve(&s->dev, &s->overrides, p, &pl->c);
    else
        clc_config_resolve_batched(&s->dev, &s->overrides, p, &pl->c);
    pl->p = *p;
    for (int d = p->dims; d < 3; ++d)
        pl->p.size[d] = 1;
    clc_config_settings_to(&pl->c, &pl->p);
    pl->p.method = CLCONV_METHOD_DIRECT;
    pl->c.p.in_dtype = device_elem(s, p->in_dtype);
    pl->c.p.out_dtype = device_elem(s, p->out_dtype);
    clconv_status st = clconv_problem_validate(&pl->p);
    if (st != CLCONV_OK)
        return st;
    pl->n = clconv_problem_elements(&pl->p);
    pl->m = clconv_problem_mask_elements(&pl->p);
    clc_config_geometry(&pl->c, &pl->g);
    if (pl->p.mask_mode == CLCONV_MASK_BAKED) {
        if (!mask)
            return clc_fail(CLCONV_EINVAL,
                            "mask mode baked needs the mask when the plan is "
                            "made (clconv_plan_create_with_mask)");
        pl->baked = malloc(pl->m * sizeof *pl->baked);
        if (!pl->baked)
            return clc_fail(CLCONV_ENOMEM, "out of memory");
        clc_mask_oriented(&pl->c.p, mask, pl->m, pl->baked);
    }
    return clc_problem_fits(&s->dev, &pl->c, &pl->g);
}

/* Build (or fetch) the variant's program and create its kernel. */
static clconv_status plan_kernel(clconv_plan *pl)
{
    clconv_status st;
    cl_int err;
    char stem[64];
    cl_program prog = NULL;
    if (clc_kernel_stem(pl->c.p.strategy, pl->c.p.dims, stem, sizeof stem))
        return clc_fail(CLCONV_EINVAL, "no kernel for strategy %d in %dD",
                        (int)pl->c.p.strategy, pl->c.p.dims);
    char *options = clc_build_options(&pl->c, pl->count_loads, pl->baked);
    if (!options)
        return CLCONV_ENOMEM;
    st = clc_program_get(pl->s, stem, options, 1, &prog);
    if (st != CLCONV_OK)
        goto out;
    CLC_CREATE_GOTO(pl->kernel, clCreateKernel(prog, stem, &err));
    st = clc_kernel_limits_check(pl->s, pl->kernel, stem, &pl->g);
out:
    free(options);
    return st;
}

/* The mask buffer and the load counters; the data buffers are made on
 * first use (clc_plan_buffers): a plan only ever enqueued on the caller's
 * buffers never holds its own. */
static clconv_status plan_small_buffers(clconv_plan *pl)
{
    clconv_status st = CLCONV_OK;
    cl_int err;
    CLC_CREATE_GOTO(pl->mask,
                    clCreateBuffer(pl->s->context, CL_MEM_READ_ONLY,
                                   pl->m * sizeof(float), NULL, &err));
    if (pl->count_loads)
        CLC_CREATE_GOTO(pl->counters,
                        clCreateBuffer(pl->s->context, CL_MEM_READ_WRITE,
                                       2 * sizeof(cl_int), NULL, &err));
out:
    return st;
}

/* The separable or FFT path when the method (auto resolved) says so; an
 * automatic choice whose path fails falls back to the direct path. */
static clconv_status plan_path(clconv_plan *pl, const clconv_problem *p,
                               const float *mask)
{
    const clconv_method m = pl->count_loads
                                ? CLCONV_METHOD_DIRECT
                                : clc_method_choose(pl->s, p, mask);
    if (m == CLCONV_METHOD_DIRECT)
        return CLCONV_OK;
    pl->p = *p;
    for (int d = p->dims; d < 3; ++d)
        pl->p.size[d] = 1;
    pl->p.method = m;
    pl->n = clconv_problem_elements(&pl->p);
    pl->m = clconv_problem_mask_elements(&pl->p);
    /* The path's data on the device (its passes convert around them). */
    pl->c.p = pl->p;
    pl->c.p.in_dtype = device_elem(pl->s, p->in_dtype);
    pl->c.p.out_dtype = device_elem(pl->s, p->out_dtype);
    clconv_status st = clc_path_create(pl->s, &pl->c.p, mask, &pl->path);
    return st != CLCONV_OK && p->method == CLCONV_METHOD_AUTO ? CLCONV_OK
                                                              : st;
}

static clconv_status plan_create(clconv_session *s, const clconv_problem *p,
                                const float *mask, int count_loads,
                                clconv_plan **out)
{
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the plan (NULL)");
    *out = NULL;
    if (!s)
        return clc_fail(CLCONV_EINVAL, "no session given (NULL)");
    clconv_status st = clconv_problem_validate(p);
    if (st == CLCONV_OK)
        st = clc_launch_check(p);
    if (st != CLCONV_OK)
        return st;
    clconv_plan *pl = calloc(1, sizeof *pl);
    if (!pl)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    pl->s = s;
    pl->count_loads = count_loads;
    st = plan_path(pl, p, mask);
    if (st == CLCONV_OK && !pl->path)
        st = plan_resolve(pl, p, mask);
    if (st == CLCONV_OK && !pl->path)
        st = plan_kernel(pl);
    if (st == CLCONV_OK)
        st = plan_small_buffers(pl);
    if (st == CLCONV_OK && !pl->path)
        st = set_args(pl);
    if (st == CLCONV_OK && mask && !pl->path)
        st = clconv_plan_set_mask(pl, mask);
    if (st != CLCONV_OK) {
        clconv_plan_destroy(pl);
        return st;
    }
    *out = pl;
    return CLCONV_OK;
}

/* Under the session's lock: the program cache, the FFT's refusals and its
 * in-order queue are the session's. */
clconv_status clc_plan_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, int count_loads,
                              clconv_plan **out)
{
    clc_session_lock(s);
    clconv_status st = plan_create(s, p, mask, count_loads, out);
    clc_session_unlock(s);
    return st;
}

clconv_status clconv_plan_create(clconv_session *s, const clconv_problem *p,
                                 clconv_plan **out)
{
    return clc_plan_create(s, p, NULL, 0, out);
}

clconv_status clconv_plan_create_with_mask(clconv_session *s,
                                           const clconv_problem *p,
                                           const float *mask,
                                           clconv_plan **out)
{
    if (!mask) {
        if (out)
            *out = NULL;
        return clc_fail(CLCONV_EINVAL, "no mask given");
    }
    return clc_plan_create(s, p, mask, 0, out);
}

/* Has the plan's last work ended: complete, or failed (an event of its
 * wait list failed, so its commands never ran)? Then nothing waits for it
 * again: a command waiting for a failed event fails, or on PoCL never
 * runs, so one failed wait list broke every later call of the plan. */
static int last_ended(const clconv_plan *pl)
{
    cl_int exec = CL_QUEUED;
    return clGetEventInfo(pl->last, CL_EVENT_COMMAND_EXECUTION_STATUS,
                          sizeof exec, &exec, NULL) == CL_SUCCESS &&
           exec <= CL_COMPLETE;
}

clconv_status clc_plan_after(clconv_plan *pl, cl_uint *nwait,
                             const cl_event **wait, cl_event **all)
{
    *all = NULL;
    if (pl->last && last_ended(pl))
        clc_plan_last(pl, NULL);
    if (!pl->last)
        return CLCONV_OK;
    *all = malloc((*nwait + 1) * sizeof **all);
    if (!*all)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    for (cl_uint i = 0; i < *nwait; ++i)
        (*all)[i] = (*wait)[i];
    (*all)[(*nwait)++] = pl->last;
    *wait = *all;
    return CLCONV_OK;
}

void clc_plan_last(clconv_plan *pl, cl_event ev)
{
    if (ev)
        clRetainEvent(ev);
    if (pl->last)
        clReleaseEvent(pl->last);
    pl->last = ev;
}

clconv_status clc_plan_drain(clconv_plan *pl)
{
    if (!pl->last)
        return CLCONV_OK;
    /* Work that failed has ended too: its event told the caller. */
    const cl_int err = clWaitForEvents(1, &pl->last);
    if (err != CL_SUCCESS && !last_ended(pl))
        return clc_cl_fail("clWaitForEvents", err, __FILE__, __LINE__);
    clc_plan_last(pl, NULL);
    return CLCONV_OK;
}

void clconv_plan_destroy(clconv_plan *pl)
{
    if (!pl)
        return;
    if (pl->last)
        clReleaseEvent(pl->last);
    if (pl->counters)
        clReleaseMemObject(pl->counters);
    if (pl->mask)
        clReleaseMemObject(pl->mask);
    if (pl->out)
        clReleaseMemObject(pl->out);
    if (pl->in)
        clReleaseMemObject(pl->in);
    if (pl->kernel)
        clReleaseKernel(pl->kernel);
    clc_path_destroy(pl->path);
    free(pl->baked);
    free(pl);
}

clconv_elem clc_plan_device_elem(const clconv_plan *pl, int out)
{
    return out ? pl->c.p.out_dtype : pl->c.p.in_dtype;
}

size_t clc_plan_elem_size(const clconv_plan *pl, int out)
{
    return clconv_elem_size(clc_plan_device_elem(pl, out));
}

int clc_plan_host_converts(const clconv_plan *pl)
{
    return pl->c.p.in_dtype != pl->p.in_dtype ||
           pl->c.p.out_dtype != pl->p.out_dtype;
}

void clc_mask_oriented(const clconv_problem *p, const float *mask, size_t m,
                       float *out)
{
    /* A convolution flips the mask on every axis: the row-major order
     * reversed. */
    for (size_t k = 0; k < m; ++k)
        out[k] = p->flip ? mask[m - 1 - k] : mask[k];
}

clconv_status clconv_plan_set_mask(clconv_plan *pl, const float *mask)
{
    if (!pl || !mask)
        return clc_fail(CLCONV_EINVAL, "no plan or mask given (NULL)");
    /* Work enqueued before reads the mask it was enqueued with. */
    clconv_status drained = clc_plan_drain(pl);
    if (drained != CLCONV_OK)
        return drained;
    float *oriented = malloc(pl->m * sizeof *oriented);
    if (!oriented)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clc_mask_oriented(&pl->p, mask, pl->m, oriented);
    clconv_status st = CLCONV_OK;
    cl_int err;
    /* Bit-for-bit, so a NaN coefficient equals itself. */
    if (pl->path)
        st = clc_path_set_mask(pl->path, mask);
    else if (pl->baked &&
             memcmp(pl->baked, oriented, pl->m * sizeof *mask) != 0)
        st = clc_fail(CLCONV_EINVAL,
                      "this plan's mask is compiled into its program "
                      "(mask mode baked): make a new plan for another mask");
    else if ((err = clEnqueueWriteBuffer(pl->s->queue, pl->mask, CL_TRUE, 0,
                                         pl->m * sizeof(float), oriented, 0,
                                         NULL, NULL)) != CL_SUCCESS)
        st = clc_cl_fail("clEnqueueWriteBuffer(mask)", err, __FILE__,
                         __LINE__);
    free(oriented);
    return st;
}

/* Enqueue the plan's work; first (may be NULL) gets the event of its
 * first kernel, ev of its last (one kernel on the direct path). */
static clconv_status launch_events(clconv_plan *pl, cl_mem in, cl_mem out,
                                   cl_uint nwait, const cl_event *wait,
                                   cl_event *first, cl_event *ev)
{
    if (pl->path)
        return clc_path_launch(pl->path, in, out, nwait, wait, first, ev);
    clconv_status st = clc_plan_launch(pl, in, out, nwait, wait, ev);
    if (st == CLCONV_OK && first && ev && *ev)
        clRetainEvent(*first = *ev);
    return st;
}

/* The kernel's dimensions, and one more for a batch. */
static cl_uint launch_dims(const clc_config *c)
{
    return (cl_uint)(c->p.dims + (c->batch > 1));
}

clconv_status clc_plan_launch(clconv_plan *pl, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *ev)
{
    if (pl->path)
        return launch_events(pl, in, out, nwait, wait, NULL, ev);
    CLC_CHECK(clSetKernelArg(pl->kernel, 0, sizeof(cl_mem), &in));
    CLC_CHECK(clSetKernelArg(pl->kernel, 1, sizeof(cl_mem), &out));
    /* An empty list must be NULL: NVIDIA refuses a pointer with 0 events
     * (CL_INVALID_EVENT_WAIT_LIST), as the specification allows. */
    cl_int err = clEnqueueNDRangeKernel(pl->s->queue, pl->kernel,
                                        launch_dims(&pl->c), NULL, pl->g.global,
                                        pl->g.local, nwait, nwait ? wait : NULL,
                                        ev);
    if (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES)
        /* The driver refused the launch geometry: the variant does not fit
         * this device, whatever the queries said. */
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "the driver refused a work-group of %zux%zux%zu: %s",
                        pl->g.local[0], pl->g.local[1], pl->g.local[2],
                        clconv_cl_error_name(err));
    if (err != CL_SUCCESS)
        return clc_cl_fail("clEnqueueNDRangeKernel", err, __FILE__, __LINE__);
    return CLCONV_OK;
}

const clconv_problem *clc_plan_problem(const clconv_plan *pl)
{
    return &pl->p;
}

clconv_session *clc_plan_session(const clconv_plan *pl)
{
    return pl->s;
}

clconv_status clc_plan_buffers(clconv_plan *pl, cl_mem *in, cl_mem *out)
{
    cl_int err;
    const size_t bytes = pl->n * clc_plan_elem_size(pl, 0);
    if (!pl->in) {
        pl->in = clCreateBuffer(pl->s->context, CL_MEM_READ_ONLY, bytes, NULL,
                                &err);
        if (err != CL_SUCCESS)
            return clc_cl_fail("clCreateBuffer(input)", err, __FILE__,
                               __LINE__);
    }
    if (!pl->out) {
        pl->out = clCreateBuffer(pl->s->context, CL_MEM_WRITE_ONLY,
                                 pl->n * clc_plan_elem_size(pl, 1), NULL,
                                 &err);
        if (err != CL_SUCCESS)
            return clc_cl_fail("clCreateBuffer(output)", err, __FILE__,
                               __LINE__);
    }
    *in = pl->in;
    *out = pl->out;
    return CLCONV_OK;
}

clconv_status clc_plan_timeable(const clconv_plan *pl)
{
    cl_command_queue_properties props = 0;
    CLC_CHECK(clGetCommandQueueInfo(pl->s->queue, CL_QUEUE_PROPERTIES,
                                    sizeof props, &props, NULL));
    if (!(props & CL_QUEUE_PROFILING_ENABLE))
        return clc_fail(CLCONV_EINVAL,
                        "timing needs a queue created with "
                        "CL_QUEUE_PROFILING_ENABLE: the one this session was "
                        "given has none (nothing run)");
    return CLCONV_OK;
}

clconv_status clconv_plan_execute(clconv_plan *pl, double *ms)
{
    if (!pl)
        return clc_fail(CLCONV_EINVAL, "no plan given (NULL)");
    clconv_status st = ms ? clc_plan_timeable(pl) : CLCONV_OK;
    if (st == CLCONV_OK)
        st = clc_plan_drain(pl);
    if (st != CLCONV_OK)
        return st;
    cl_event ev = NULL, first = NULL;
    if (pl->count_loads) {
        const cl_int zero = 0;
        CLC_CHECK(clEnqueueFillBuffer(pl->s->queue, pl->counters, &zero,
                                      sizeof zero, 0, 2 * sizeof(cl_int), 0,
                                      NULL, NULL));
    }
    cl_mem bin, bout;
    st = clc_plan_buffers(pl, &bin, &bout);
    if (st != CLCONV_OK)
        return st;
    st = launch_events(pl, bin, bout, 0, NULL, &first, &ev);
    if (st != CLCONV_OK)
        goto out;
    CLC_CHECK_GOTO(clWaitForEvents(1, &ev));
    cl_int exec = 0;
    CLC_CHECK_GOTO(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof exec, &exec, NULL));
    if (exec < 0) {
        st = clc_cl_fail("kernel execution", exec, __FILE__, __LINE__);
        goto out;
    }
    if (ms) {
        cl_ulong t0 = 0, t1 = 0;
        CLC_CHECK_GOTO(clGetEventProfilingInfo(first,
                                               CL_PROFILING_COMMAND_START,
                                               sizeof t0, &t0, NULL));
        CLC_CHECK_GOTO(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                               sizeof t1, &t1, NULL));
        *ms = (double)(t1 - t0) * 1e-6;
    }
out:
    if (first)
        clReleaseEvent(first);
    if (ev)
        clReleaseEvent(ev);
    return st;
}

void clconv_plan_geometry(const clconv_plan *pl, size_t local[3],
                          size_t global[3])
{
    static const size_t none[3] = {0, 0, 0}; /* no plan: no launch */
    if (local)
        memcpy(local, pl ? pl->g.local : none, sizeof none);
    if (global)
        memcpy(global, pl ? pl->g.global : none, sizeof none);
}

clconv_status clc_plan_counters(clconv_plan *pl, long long counts[2])
{
    if (!pl->count_loads)
        return clc_fail(CLCONV_EINVAL, "plan was not built to count loads");
    cl_int c[2] = {0, 0};
    CLC_CHECK(clEnqueueReadBuffer(pl->s->queue, pl->counters, CL_TRUE, 0,
                                  sizeof c, c, 0, NULL, NULL));
    counts[0] = c[0];
    counts[1] = c[1];
    return CLCONV_OK;
}
