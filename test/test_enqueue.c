/* clconv on the application's own OpenCL objects (include/clconv_cl.h): a
 * session on the caller's context and queue, plans enqueued on
 * caller-owned buffers (whole, at an aligned offset, pitched sub-regions)
 * after a wait list, giving the same bits as the host-pointer path; and
 * every bad argument refused with CLCONV_EINVAL before anything is
 * enqueued; every method right on an out-of-order queue. Runs on the first device $CLCONV_DEVICE selects. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_cl.h"
#include "support.h"

typedef struct fixture {
    clconv_device_list list;
    const clconv_device_info *dev;
    cl_context ctx;
    cl_command_queue queue;
    clconv_session *s; /* on ctx and queue */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    cl_int err;
    if (!f || support_first_device(&f->list, &f->dev) != 0)
        return -1;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    f->ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return -1;
    f->queue = clCreateCommandQueue(f->ctx, d, 0, &err);
    if (err != CL_SUCCESS)
        return -1;
    if (clconv_session_create_from_cl(f->ctx, d, f->queue, &f->s) != CLCONV_OK)
        return -1;
    printf("enqueue: on %s\n", f->dev->name);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clconv_session_destroy(f->s);
    clReleaseCommandQueue(f->queue);
    clReleaseContext(f->ctx);
    clconv_devices_free(&f->list);
    free(f);
    return 0;
}

/* A 3D problem small enough to check fast, odd sizes so no tile divides. */
static clconv_problem problem(const fixture *f, int dims)
{
    clconv_problem p = {.dims = dims, .size = {37, dims > 1 ? 11 : 1,
                                               dims > 2 ? 5 : 1},
                        .mask_width = 3};
    clconv_pick_default(f->dev, &p);
    return p;
}

/* The host-pointer result of p on fixed data: what enqueue must match. */
static void expected(fixture *f, const clconv_problem *p, float *in,
                     float *mask, float *want)
{
    size_t n = clconv_problem_elements(p);
    clconv_fill_random(in, n, 11);
    clconv_fill_random(mask, clconv_problem_mask_elements(p), 12);
    assert_int_equal(clconv_convolve(f->s, p, in, mask, want), CLCONV_OK);
}

/* A buffer of bytes filled with NaN (poison). */
static cl_mem nan_buffer(fixture *f, size_t bytes)
{
    cl_int err;
    cl_mem m = clCreateBuffer(f->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    const float nan = NAN;
    assert_int_equal(clEnqueueFillBuffer(f->queue, m, &nan, sizeof nan, 0,
                                         bytes, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clFinish(f->queue), CL_SUCCESS);
    return m;
}

/* Place a dense array in a buffer at offset with pitches (bytes). */
static void put(fixture *f, cl_mem m, const clconv_buffer *b,
                const clconv_problem *p, const float *a)
{
    size_t row = p->size[0] * sizeof(float);
    size_t host[3] = {0, 0, 0}, dev[3] = {b->offset, 0, 0};
    size_t region[3] = {row, p->size[1], p->size[2]};
    assert_int_equal(clEnqueueWriteBufferRect(
                         f->queue, m, CL_TRUE, dev, host, region,
                         b->row_pitch ? b->row_pitch : row,
                         b->slice_pitch ? b->slice_pitch : row * p->size[1],
                         row, row * p->size[1], a, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void get(fixture *f, cl_mem m, const clconv_buffer *b,
                const clconv_problem *p, float *a)
{
    size_t row = p->size[0] * sizeof(float);
    size_t host[3] = {0, 0, 0}, dev[3] = {b->offset, 0, 0};
    size_t region[3] = {row, p->size[1], p->size[2]};
    assert_int_equal(clEnqueueReadBufferRect(
                         f->queue, m, CL_TRUE, dev, host, region,
                         b->row_pitch ? b->row_pitch : row,
                         b->slice_pitch ? b->slice_pitch : row * p->size[1],
                         row, row * p->size[1], a, 0, NULL, NULL),
                     CL_SUCCESS);
}

/* Enqueue p on regions laid out as given (offset, row pitch, slice pitch
 * in elements of padding), behind a user event, and compare bit for bit
 * with the host-pointer path. */
static void check_layout(fixture *f, int dims, size_t off, size_t row_pad,
                         size_t slice_pad)
{
    clconv_problem p = problem(f, dims);
    size_t n = clconv_problem_elements(&p), fl = sizeof(float);
    float *in = malloc(n * fl), *want = malloc(n * fl), *got = malloc(n * fl);
    float mask[27];
    assert_non_null(in && want && got);
    expected(f, &p, in, mask, want);
    clconv_buffer b = {.offset = off * fl};
    if (row_pad || slice_pad) {
        b.row_pitch = (p.size[0] + row_pad) * fl;
        b.slice_pitch = b.row_pitch * p.size[1] + slice_pad * fl;
    }
    size_t bytes = b.offset + (b.slice_pitch ? b.slice_pitch : n * fl / p.size[2]) * p.size[2] + 64;
    cl_mem min = nan_buffer(f, bytes), mout = nan_buffer(f, bytes);
    clconv_buffer bi = b, bo = b;
    bi.mem = min;
    bo.mem = mout;
    put(f, min, &bi, &p, in);
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                     CLCONV_OK);
    cl_int err;
    cl_event gate = clCreateUserEvent(f->ctx, &err), done = NULL;
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 1, &gate, &done),
                     CLCONV_OK);
    assert_non_null(done);
    cl_int status = CL_COMPLETE;
    assert_int_equal(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                    sizeof status, &status, NULL),
                     CL_SUCCESS);
    assert_true(status != CL_COMPLETE); /* still waits for the gate */
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    get(f, mout, &bo, &p, got);
    assert_memory_equal(got, want, n * fl);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clconv_plan_destroy(plan);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    free(in);
    free(want);
    free(got);
}

static void dense_buffers_at_offset_zero_match_the_host_path(void **state)
{
    for (int dims = 1; dims <= 3; ++dims)
        check_layout(*state, dims, 0, 0, 0);
}

static void a_dense_region_at_an_aligned_offset_matches(void **state)
{
    fixture *f = *state;
    cl_uint bits = 0;
    clGetDeviceInfo((cl_device_id)f->dev->opaque_device,
                    CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
    size_t elems = bits / 8 / sizeof(float);
    for (int dims = 1; dims <= 3; ++dims) {
        check_layout(f, dims, elems ? elems : 1, 0, 0); /* sub-buffer */
        check_layout(f, dims, 3, 0, 0);                 /* unaligned: copy */
    }
}

static void pitched_sub_regions_match(void **state)
{
    check_layout(*state, 2, 5, 7, 0);
    check_layout(*state, 3, 1, 3, 2 * (37 + 3)); /* two spare rows a plane */
}

/* A call that must be refused: EINVAL, the reason, nothing enqueued (the
 * poisoned output stays NaN). */
static void refused(fixture *f, clconv_plan *plan, const clconv_buffer *in,
                    const clconv_buffer *out, cl_uint nwait,
                    const cl_event *wait, const char *reason)
{
    cl_event done = (cl_event)1;
    assert_int_equal(clconv_plan_enqueue(plan, in, out, nwait, wait, &done),
                     CLCONV_EINVAL);
    assert_null(done);
    if (!strstr(clconv_last_error(), reason))
        fail_msg("error '%s' does not say '%s'", clconv_last_error(), reason);
    assert_int_equal(clFinish(f->queue), CL_SUCCESS);
    if (out && out->mem) {
        float first = 0;
        assert_int_equal(clEnqueueReadBuffer(f->queue, out->mem, CL_TRUE, 0,
                                             sizeof first, &first, 0, NULL,
                                             NULL),
                         CL_SUCCESS);
        assert_true(isnan(first));
    }
}

static void bad_buffers_events_and_queues_are_refused(void **state)
{
    fixture *f = *state;
    clconv_problem p = problem(f, 2);
    size_t bytes = clconv_problem_elements(&p) * sizeof(float);
    float mask[9] = {0};
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                     CLCONV_OK);
    cl_mem in = nan_buffer(f, bytes), out = nan_buffer(f, bytes);
    cl_mem small = nan_buffer(f, bytes - 4);
    clconv_buffer bi = {.mem = in}, bo = {.mem = out};
    clconv_buffer bsmall = {.mem = small}, bpitch = {.mem = out, .row_pitch = 8};
    clconv_buffer boff = {.mem = out, .offset = 4};
    refused(f, plan, &bi, &bsmall, 0, NULL, "needs");
    refused(f, plan, &bi, &boff, 0, NULL, "needs");
    refused(f, plan, &bi, &bpitch, 0, NULL, "smaller than a row");
    clconv_buffer blong = {.mem = out, .row_pitch = bytes / p.size[1] + 4};
    refused(f, plan, &bi, &blong, 0, NULL, "needs"); /* rows run past */
    /* Pitches whose products wrap around size_t: they once passed the
     * check and PoCL copied from far outside the buffer. */
    clconv_buffer bwrap = {.mem = in, .row_pitch = (size_t)1 << 63};
    refused(f, plan, &bwrap, &bo, 0, NULL, "past any buffer");
    clconv_buffer bwrap2 = {.mem = in, .row_pitch = SIZE_MAX / 10 + 1,
                            .slice_pitch = 0};
    refused(f, plan, &bwrap2, &bo, 0, NULL, "past any buffer");
    refused(f, plan, &bi, &bi, 0, NULL, "overlap");
    refused(f, plan, NULL, &bo, 0, NULL, "no input");
    refused(f, plan, &bi, &bo, 1, NULL, "no list");

    /* 3D: a slice pitch that is not a whole number of rows. */
    clconv_problem p3 = problem(f, 3);
    float mask3[27] = {0};
    clconv_plan *plan3 = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p3, mask3, &plan3),
                     CLCONV_OK);
    size_t row3 = p3.size[0] * sizeof(float);
    cl_mem big = nan_buffer(f, 4 * clconv_problem_elements(&p3) * sizeof(float));
    clconv_buffer bi3 = {.mem = big}, bo3 = {
        .mem = big, .offset = 2 * clconv_problem_elements(&p3) * sizeof(float),
        .row_pitch = row3, .slice_pitch = row3 * p3.size[1] + 4};
    refused(f, plan3, &bi3, &bo3, 0, NULL, "not a multiple");
    clReleaseMemObject(big);
    clconv_plan_destroy(plan3);

    /* Objects of another context on the same device. */
    cl_int err;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    cl_context other = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event foreign = clCreateUserEvent(other, &err);
    assert_int_equal(err, CL_SUCCESS);
    refused(f, plan, &bi, &bo, 1, &foreign, "another context");
    cl_mem fmem = clCreateBuffer(other, CL_MEM_READ_WRITE, bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clconv_buffer bf = {.mem = fmem};
    refused(f, plan, &bf, &bo, 0, NULL, "another context");
    cl_command_queue fq = clCreateCommandQueue(other, d, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    clconv_session *s2 = (clconv_session *)1;
    assert_int_equal(clconv_session_create_from_cl(f->ctx, d, fq, &s2),
                     CLCONV_EINVAL);
    assert_null(s2);
    assert_non_null(strstr(clconv_last_error(), "another context"));

    /* An image is a cl_mem too, but no array of floats: it was set as the
     * kernel's pointer argument. */
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
    if (images) {
        const cl_image_format fmt = {CL_R, CL_FLOAT};
        const cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                                    .image_width = p.size[0],
                                    .image_height = p.size[1]};
        cl_mem img = clCreateImage(f->ctx, CL_MEM_READ_WRITE, &fmt, &desc,
                                   NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        clconv_buffer bimg = {.mem = img};
        refused(f, plan, &bimg, &bo, 0, NULL, "image");
        clReleaseMemObject(img);
    }

    clSetUserEventStatus(foreign, CL_COMPLETE);
    clReleaseEvent(foreign);
    clReleaseCommandQueue(fq);
    clReleaseMemObject(fmem);
    clReleaseContext(other);
    clReleaseMemObject(small);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clconv_plan_destroy(plan);
}

/* A write-only input and a read-only output (the flags say what kernels
 * may do; copies may do anything): the kernel never reads or writes them
 * against their flags, which OpenCL leaves undefined; they go through the
 * plan's own buffers, and the result is the host path's. */
static void kernel_access_flags_are_respected(void **state)
{
    fixture *f = *state;
    for (int dims = 1; dims <= 3; ++dims) {
        clconv_problem p = problem(f, dims);
        const size_t n = clconv_problem_elements(&p), bytes = n * sizeof(float);
        float *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
        float mask[27];
        assert_non_null(in && want && got);
        expected(f, &p, in, mask, want);
        cl_int err;
        cl_mem mi = clCreateBuffer(f->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem mo = clCreateBuffer(f->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clEnqueueWriteBuffer(f->queue, mi, CL_TRUE, 0, bytes,
                                              in, 0, NULL, NULL),
                         CL_SUCCESS);
        clconv_plan *plan = NULL;
        assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                         CLCONV_OK);
        clconv_buffer bi = {.mem = mi}, bo = {.mem = mo};
        cl_event done = NULL;
        assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done),
                         CLCONV_OK);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        assert_int_equal(clEnqueueReadBuffer(f->queue, mo, CL_TRUE, 0, bytes,
                                             got, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_memory_equal(got, want, bytes);
        clReleaseEvent(done);
        clconv_plan_destroy(plan);
        clReleaseMemObject(mi);
        clReleaseMemObject(mo);
        free(in);
        free(want);
        free(got);
    }
}

/* The session retains what it was given: the application may release its
 * own references first. */
static void the_session_keeps_its_own_references(void **state)
{
    fixture *f = *state;
    cl_int err;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clconv_session *s = NULL;
    assert_int_equal(clconv_session_create_from_cl(ctx, d, NULL, &s),
                     CLCONV_OK);
    clReleaseContext(ctx);
    assert_ptr_equal(clconv_session_cl_context(s), ctx);
    clconv_problem p = problem(f, 1);
    size_t n = clconv_problem_elements(&p);
    float in[37], out[37], mask[3] = {0, 1, 0};
    assert_true(n <= 37);
    clconv_fill_random(in, n, 3);
    assert_int_equal(clconv_convolve(s, &p, in, mask, out), CLCONV_OK);
    assert_memory_equal(in, out, n * sizeof(float)); /* identity mask */
    /* The queue clconv made (none was given) times its plans. */
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                     CLCONV_OK);
    double ms = -1;
    assert_int_equal(clconv_plan_set_input(plan, in), CLCONV_OK);
    if (clconv_plan_execute(plan, &ms) != CLCONV_OK)
        fail_msg("no timing on clconv's own queue: %s", clconv_last_error());
    assert_true(ms >= 0);
    clconv_plan_destroy(plan);
    clconv_session_destroy(s);
}

/* The context's reference count once it settles at want (OpenCL may
 * release what finished commands held a little later), or what it is
 * after two seconds. */
static cl_uint context_refs_settled(cl_context ctx, cl_uint want)
{
    cl_uint n = 0;
    const double t0 = clconv_now_s();
    do {
        assert_int_equal(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT,
                                          sizeof n, &n, NULL),
                         CL_SUCCESS);
    } while (n != want && clconv_now_s() - t0 < 2.0);
    return n;
}

/* A plan of every method, made and destroyed with its session, leaves the
 * application's context as it was: nothing of it holds a reference (a
 * separable or FFT plan made its mask buffer twice and leaked one). */
static void plans_of_every_method_release_what_they_made(void **state)
{
    fixture *f = *state;
    cl_int err;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    for (int m = CLCONV_METHOD_DIRECT; m < CLCONV_METHOD_COUNT; ++m) {
        cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        clconv_session *s = NULL;
        assert_int_equal(clconv_session_create_from_cl(ctx, d, NULL, &s),
                         CLCONV_OK);
        clconv_problem p = problem(f, 2);
        p.method = (clconv_method)m;
        float mask[9];
        clconv_fill_separable(&p, mask, 5);
        clconv_plan *plan = NULL;
        assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                         CLCONV_OK);
        assert_int_equal(clconv_plan_method(plan), m);
        clconv_plan_destroy(plan);
        clconv_session_destroy(s);
        if (context_refs_settled(ctx, 1) != 1)
            fail_msg("method %s: the context keeps references after its "
                     "plan and session are gone",
                     clconv_method_name((clconv_method)m));
        clReleaseContext(ctx);
    }
}

/* p's output from `got` against the double reference within its
 * method's bound. */
static void within_bound(const clconv_problem *p, const float *in,
                         const float *mask, const float *got,
                         const char *what, int rep)
{
    size_t n = clconv_problem_elements(p);
    double *ref = malloc(n * sizeof *ref), *mag = malloc(n * sizeof *mag);
    assert_non_null(ref && mag);
    assert_int_equal(clconv_reference(p, in, mask, ref, mag), CLCONV_OK);
    double scale, floor;
    clconv_verify_bound(p, p->method, in, mask, &scale, &floor);
    clconv_verdict v;
    clconv_verify_with(p, got, ref, mag, scale, floor, &v);
    if (!v.ok)
        print_error("%s, method %d, round %d: %zu outputs out of bound, "
                    "worst [%zu] got %g want %g\n", what, (int)p->method,
                    rep, v.failures, v.worst_index, (double)got[v.worst_index],
                    ref[v.worst_index]);
    assert_true(v.ok);
    free(ref);
    free(mag);
}

/* Skip the running test on a device without out-of-order queues. */
static void need_out_of_order(const fixture *f)
{
    cl_command_queue_properties can = 0;
    assert_int_equal(clGetDeviceInfo((cl_device_id)f->dev->opaque_device,
                                     CL_DEVICE_QUEUE_PROPERTIES, sizeof can,
                                     &can, NULL),
                     CL_SUCCESS);
    if (!(can & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        SUPPORT_SKIP("%s has no out-of-order queues", f->dev->name);
}

/* A session on a new out-of-order queue of the fixture's context (*q,
 * released by the caller after the session). */
static clconv_session *out_of_order_session(fixture *f, cl_command_queue *q)
{
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    cl_int err;
    *q = clCreateCommandQueue(f->ctx, d, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                              &err);
    assert_int_equal(err, CL_SUCCESS);
    clconv_session *s = NULL;
    assert_int_equal(clconv_session_create_from_cl(f->ctx, d, *q, &s),
                     CLCONV_OK);
    return s;
}

/* A session on an application's out-of-order queue: every method's
 * result, host to host and enqueued on dense and pitched buffers, is
 * right. The FFT's steps and VkFFT's kernels follow each other only by a
 * queue's order: on such a queue they ran at once and gave wrong values
 * (or the FFT's check of its sizes failed); they now run on an in-order
 * queue of the session's, the caller's events chained to it. Several
 * rounds, each on a new session, as the race did not lose every time. */
static void every_method_is_right_on_an_out_of_order_queue(void **state)
{
    fixture *f = *state;
    need_out_of_order(f);
    static const clconv_method methods[] = {
        CLCONV_METHOD_DIRECT, CLCONV_METHOD_SEPARABLE, CLCONV_METHOD_FFT};
    clconv_problem p = {.dims = 2, .size = {96, 64, 1}, .mask_width = 5,
                        .border = CLCONV_BORDER_REFLECT};
    const size_t n = clconv_problem_elements(&p), fl = sizeof(float);
    float *in = malloc(n * fl), *got = malloc(n * fl), mask[25];
    assert_non_null(in && got);
    clconv_fill_random(in, n, 21);
    for (int rep = 0; rep < 3; ++rep) {
        cl_command_queue q;
        clconv_session *s = out_of_order_session(f, &q);
        for (size_t k = 0; k < 3; ++k) {
            p.method = methods[k];
            clconv_pick_default(f->dev, &p);
            if (p.method == CLCONV_METHOD_SEPARABLE)
                clconv_fill_separable(&p, mask, 22 + (uint64_t)rep);
            else
                clconv_fill_random(mask, 25, 22 + (uint64_t)rep);
            memset(got, 0xff, n * fl); /* NaN */
            assert_int_equal(clconv_convolve(s, &p, in, mask, got),
                             CLCONV_OK);
            within_bound(&p, in, mask, got, "host to host", rep);
            clconv_plan *plan = NULL;
            assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                             CLCONV_OK);
            for (int pitched = 0; pitched <= 1; ++pitched) {
                clconv_buffer b = {.offset = pitched ? 3 * fl : 0};
                if (pitched) {
                    b.row_pitch = (p.size[0] + 5) * fl;
                    b.slice_pitch = b.row_pitch * p.size[1];
                }
                size_t bytes = b.offset + (pitched ? b.slice_pitch : n * fl);
                cl_mem min = nan_buffer(f, bytes), mout = nan_buffer(f, bytes);
                clconv_buffer bi = b, bo = b;
                bi.mem = min;
                bo.mem = mout;
                put(f, min, &bi, &p, in);
                cl_event done = NULL;
                assert_int_equal(
                    clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done),
                    CLCONV_OK);
                assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
                get(f, mout, &bo, &p, got);
                within_bound(&p, in, mask, got,
                             pitched ? "enqueued, pitched" : "enqueued, dense",
                             rep);
                clReleaseEvent(done);
                clReleaseMemObject(min);
                clReleaseMemObject(mout);
            }
            clconv_plan_destroy(plan);
        }
        clconv_session_destroy(s);
        clReleaseCommandQueue(q);
    }
    free(in);
    free(got);
}

/* Dense and pitched regions of sub-buffers, at offsets within them: the
 * in-place path once made a sub-buffer of the sub-buffer (which OpenCL
 * forbids: CL_INVALID_MEM_OBJECT), and the copies now address the root
 * buffer (PoCL 3.1 crashed copying a rectangle of a sub-buffer). */
static void regions_of_sub_buffers_match(void **state)
{
    fixture *f = *state;
    clconv_problem p = problem(f, 2);
    const size_t n = clconv_problem_elements(&p), fl = sizeof(float);
    float *in = malloc(n * fl), *want = malloc(n * fl), *got = malloc(n * fl);
    float mask[9];
    assert_non_null(in && want && got);
    expected(f, &p, in, mask, want);
    cl_uint align_bits = 0;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    assert_int_equal(clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                                     sizeof align_bits, &align_bits, NULL),
                     CL_SUCCESS);
    const size_t align = align_bits / 8 ? align_bits / 8 : 128;
    const size_t row = p.size[0] * fl;
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                     CLCONV_OK);
    /* Region offsets within the sub-buffer: aligned (in place), unaligned
     * (copied), and pitched (copied). */
    const size_t offsets[] = {align, 12, align};
    const size_t pitches[] = {0, 0, row + 3 * fl};
    for (int k = 0; k < 3; ++k) {
        const size_t span = offsets[k] + (pitches[k] ? pitches[k] : row) *
                                             p.size[1];
        cl_mem root_in = nan_buffer(f, 2 * align + span);
        cl_mem root_out = nan_buffer(f, 2 * align + span);
        cl_buffer_region sr = {align, span};
        cl_int err;
        cl_mem sub_in = clCreateSubBuffer(root_in, 0,
                                          CL_BUFFER_CREATE_TYPE_REGION, &sr,
                                          &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem sub_out = clCreateSubBuffer(root_out, 0,
                                           CL_BUFFER_CREATE_TYPE_REGION, &sr,
                                           &err);
        assert_int_equal(err, CL_SUCCESS);
        clconv_buffer bi = {.mem = sub_in, .offset = offsets[k],
                            .row_pitch = pitches[k],
                            .slice_pitch = pitches[k] * p.size[1]};
        clconv_buffer bo = bi;
        bo.mem = sub_out;
        /* Written and read through the roots (at the sub-buffers' start). */
        clconv_buffer ri = bi, ro = bo;
        ri.mem = root_in;
        ri.offset += align;
        ro.mem = root_out;
        ro.offset += align;
        put(f, root_in, &ri, &p, in);
        cl_event done = NULL;
        if (clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done) != CLCONV_OK)
            fail_msg("sub-buffer region at %zu, row pitch %zu: %s",
                     offsets[k], pitches[k], clconv_last_error());
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        get(f, root_out, &ro, &p, got);
        assert_memory_equal(got, want, n * fl);
        clReleaseMemObject(sub_in);
        clReleaseMemObject(sub_out);
        clReleaseMemObject(root_in);
        clReleaseMemObject(root_out);
    }
    clconv_plan_destroy(plan);
    free(in);
    free(want);
    free(got);
}

/* One plan enqueued several times back to back on an out-of-order queue,
 * each on its own pitched buffers (through the plan's own buffers) and
 * behind one user event: every output is its own input's result. The
 * enqueues once shared the plan's buffers at once (3 of 4 outputs held
 * another input's result); each now waits for the one before. */
static void a_plan_enqueued_back_to_back_on_an_out_of_order_queue(void **state)
{
    fixture *f = *state;
    need_out_of_order(f);
    cl_command_queue q;
    clconv_session *s = out_of_order_session(f, &q);
    cl_int err;
    static const clconv_method methods[] = {CLCONV_METHOD_DIRECT,
                                            CLCONV_METHOD_SEPARABLE};
    clconv_problem p = {.dims = 2, .size = {40, 24, 1}, .mask_width = 3,
                        .border = CLCONV_BORDER_WRAP};
    enum { K = 4 };
    const size_t n = clconv_problem_elements(&p), fl = sizeof(float);
    for (int mi = 0; mi < 2; ++mi) {
        p.method = methods[mi];
        clconv_pick_default(f->dev, &p);
        float mask[9], *in[K], *got = malloc(n * fl);
        assert_non_null(got);
        clconv_fill_separable(&p, mask, 77);
        clconv_plan *plan = NULL;
        assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                         CLCONV_OK);
        cl_event gate = clCreateUserEvent(f->ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem min[K], mout[K];
        cl_event done[K];
        clconv_buffer b = {.row_pitch = (p.size[0] + 2) * fl};
        b.slice_pitch = b.row_pitch * p.size[1];
        const size_t bytes = b.row_pitch * p.size[1];
        for (int k = 0; k < K; ++k) {
            in[k] = malloc(n * fl);
            assert_non_null(in[k]);
            clconv_fill_random(in[k], n, 300 + (uint64_t)k);
            min[k] = nan_buffer(f, bytes);
            mout[k] = nan_buffer(f, bytes);
            clconv_buffer bi = b;
            bi.mem = min[k];
            put(f, min[k], &bi, &p, in[k]);
        }
        for (int k = 0; k < K; ++k) {
            clconv_buffer bi = b, bo = b;
            bi.mem = min[k];
            bo.mem = mout[k];
            assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 1, &gate,
                                                 &done[k]),
                             CLCONV_OK);
        }
        assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        assert_int_equal(clWaitForEvents(K, done), CL_SUCCESS);
        for (int k = 0; k < K; ++k) {
            clconv_buffer bo = b;
            bo.mem = mout[k];
            get(f, mout[k], &bo, &p, got);
            within_bound(&p, in[k], mask, got, "back to back", k);
            clReleaseEvent(done[k]);
            clReleaseMemObject(min[k]);
            clReleaseMemObject(mout[k]);
            free(in[k]);
        }
        clReleaseEvent(gate);
        clconv_plan_destroy(plan);
        free(got);
    }
    clconv_session_destroy(s);
    clReleaseCommandQueue(q);
}

/* Destroying a session on the application's queue while the application's
 * own work there waits for its user event returns at once (it waited for
 * the whole queue, forever); so does destroying a session whose plan's
 * enqueue waits on such an event. The application completes its event
 * after. Pinned staging is forced, so the session has chunks to free. */
static void destroying_a_session_waits_for_no_application_work(void **state)
{
    fixture *f = *state;
    cl_device_id d = (cl_device_id)f->dev->opaque_device;
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(f->ctx, d, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    setenv("CLCONV_PINNED", "1", 1);
    setenv("CLCONV_ZERO_COPY", "0", 1);
    clconv_session *s = NULL;
    clconv_status st = clconv_session_create_from_cl(f->ctx, d, q, &s);
    unsetenv("CLCONV_PINNED");
    unsetenv("CLCONV_ZERO_COPY");
    assert_int_equal(st, CLCONV_OK);
    clconv_problem p = problem(f, 2);
    const size_t n = clconv_problem_elements(&p), fl = sizeof(float);
    float *in = malloc(n * fl), *want = malloc(n * fl), mask[9];
    assert_non_null(in && want);
    clconv_fill_random(in, n, 11);
    clconv_fill_random(mask, 9, 12);
    assert_int_equal(clconv_convolve(s, &p, in, mask, want), CLCONV_OK);
    /* The plan first: its mask's upload is a blocking call on q. */
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                     CLCONV_OK);
    cl_event gate = clCreateUserEvent(f->ctx, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem m = nan_buffer(f, n * fl), mo = nan_buffer(f, n * fl);
    assert_int_equal(clEnqueueWriteBuffer(q, m, CL_FALSE, 0, n * fl, in, 1,
                                          &gate, NULL),
                     CL_SUCCESS);
    clconv_buffer bi = {.mem = m}, bo = {.mem = mo};
    cl_event done = NULL;
    assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 1, &gate, &done),
                     CLCONV_OK);
    clconv_plan_destroy(plan);
    const double t0 = clconv_now_s();
    clconv_session_destroy(s);
    const double waited = clconv_now_s() - t0;
    assert_true(waited < 10.0);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    float *got = malloc(n * fl);
    assert_non_null(got);
    assert_int_equal(clEnqueueReadBuffer(q, mo, CL_TRUE, 0, n * fl, got, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(got, want, n * fl);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(m);
    clReleaseMemObject(mo);
    clReleaseCommandQueue(q);
    free(in);
    free(want);
    free(got);
}

/* An enqueue behind an event that fails (the application's upload or
 * user event) fails itself; the plan stays usable: its blocking calls
 * and its next enqueue run (each waited for the failed work for ever
 * after: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST from every blocking
 * call, and on PoCL the next enqueue never ran). A wait list holding an
 * event that has already failed is refused, nothing enqueued. */
static void a_failed_wait_event_leaves_the_plan_usable(void **state)
{
    fixture *f = *state;
    clconv_problem p = problem(f, 2);
    const size_t n = clconv_problem_elements(&p), bytes = n * sizeof(float);
    float *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    float mask[9];
    assert_non_null(in && want && got);
    expected(f, &p, in, mask, want);
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                     CLCONV_OK);
    cl_mem min = nan_buffer(f, bytes), mout = nan_buffer(f, bytes);
    clconv_buffer bi = {.mem = min}, bo = {.mem = mout};
    put(f, min, &bi, &p, in);
    cl_int err;
    cl_event gate = clCreateUserEvent(f->ctx, &err), done = NULL;
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 1, &gate, &done),
                     CLCONV_OK);
    assert_int_equal(clSetUserEventStatus(gate, -1), CL_SUCCESS);
    clWaitForEvents(1, &done); /* its status is the device's to say */
    clReleaseEvent(done);
    if (clconv_plan_set_input(plan, in) != CLCONV_OK)
        fail_msg("set_input after a failed enqueue: %s", clconv_last_error());
    assert_int_equal(clconv_plan_execute(plan, NULL), CLCONV_OK);
    assert_int_equal(clconv_plan_get_output(plan, got), CLCONV_OK);
    assert_memory_equal(got, want, bytes);
    /* The failed one's output is still NaN: this enqueue's is its own. */
    assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done),
                     CLCONV_OK);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    memset(got, 0, bytes);
    get(f, mout, &bo, &p, got);
    assert_memory_equal(got, want, bytes);
    /* An event that failed before the call. */
    cl_mem fresh = nan_buffer(f, bytes);
    clconv_buffer bf = {.mem = fresh};
    refused(f, plan, &bi, &bf, 1, &gate, "has failed");
    clReleaseMemObject(fresh);
    clReleaseEvent(gate);
    clconv_plan_destroy(plan);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    free(in);
    free(want);
    free(got);
}

/* The FFT enqueued without an event on an application's out-of-order
 * queue: its steps run on an in-order queue of the session's, and a
 * marker on the application's queue ends them, so a marker the
 * application enqueues after waits for the FFT (and for its gate), and
 * clFinish of its queue returns with the result written. The FFT's
 * commands were all on the other queue: the application's marker
 * completed at once and clFinish returned before any output was
 * written (every output NaN on a 1024x1024 problem). */
static void the_fft_on_an_out_of_order_queue_ends_on_it(void **state)
{
    fixture *f = *state;
    need_out_of_order(f);
    /* The FFT flushes its own queue (the marker waits on it), and
     * Oclgrind runs a queue's commands inside clFlush: there the gate,
     * opened after the enqueue, would be waited for for ever. */
    if (strstr(f->dev->name, "Oclgrind"))
        SUPPORT_SKIP("%s runs commands inside clFlush: a gate opened after "
                     "the enqueue never opens", f->dev->name);
    cl_command_queue q;
    clconv_session *s = out_of_order_session(f, &q);
    clconv_problem p = {.dims = 2, .size = {96, 64, 1}, .mask_width = 5,
                        .border = CLCONV_BORDER_REFLECT,
                        .method = CLCONV_METHOD_FFT};
    const size_t n = clconv_problem_elements(&p), bytes = n * sizeof(float);
    float *in = malloc(bytes), *got = malloc(bytes), mask[25];
    assert_non_null(in && got);
    clconv_fill_random(in, n, 31);
    clconv_fill_random(mask, 25, 32);
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(s, &p, mask, &plan),
                     CLCONV_OK);
    cl_mem min = nan_buffer(f, bytes), mout = nan_buffer(f, bytes);
    clconv_buffer bi = {.mem = min}, bo = {.mem = mout};
    put(f, min, &bi, &p, in);
    cl_int err;
    cl_event gate = clCreateUserEvent(f->ctx, &err), mark = NULL;
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clconv_plan_enqueue(plan, &bi, &bo, 1, &gate, NULL),
                     CLCONV_OK);
    /* With no wait list a marker waits for all that q holds. */
    assert_int_equal(clEnqueueMarkerWithWaitList(q, 0, NULL, &mark),
                     CL_SUCCESS);
    assert_int_equal(clFlush(q), CL_SUCCESS);
    cl_int status = CL_QUEUED;
    for (const double t0 = clconv_now_s();
         status != CL_COMPLETE && clconv_now_s() - t0 < 0.5;)
        assert_int_equal(clGetEventInfo(mark,
                                        CL_EVENT_COMMAND_EXECUTION_STATUS,
                                        sizeof status, &status, NULL),
                         CL_SUCCESS);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    if (status == CL_COMPLETE)
        fail_msg("a marker on the application's queue did not wait for the "
                 "FFT enqueued before it (still waiting for its gate)");
    assert_int_equal(clFinish(q), CL_SUCCESS);
    get(f, mout, &bo, &p, got);
    within_bound(&p, in, mask, got, "after clFinish", 0);
    clReleaseEvent(mark);
    clReleaseEvent(gate);
    clconv_plan_destroy(plan);
    clconv_session_destroy(s);
    clReleaseCommandQueue(q);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    free(in);
    free(got);
}

/* Timing on the application's queue made without profiling (the
 * fixture's): CLCONV_EINVAL naming CL_QUEUE_PROFILING_ENABLE before
 * anything runs (it ran the kernel, then said
 * "clGetEventProfilingInfo failed: CL_PROFILING_INFO_NOT_AVAILABLE", and
 * clconv_plan_time ran its warm-ups first); untimed launches run. */
static void timing_without_profiling_says_why(void **state)
{
    fixture *f = *state;
    clconv_problem p = problem(f, 1);
    float mask[3] = {1, 2, 1};
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->s, &p, mask, &plan),
                     CLCONV_OK);
    double ms = -1;
    clconv_timing t;
    assert_int_equal(clconv_plan_execute(plan, &ms), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "CL_QUEUE_PROFILING_ENABLE"));
    assert_true(ms == -1);
    assert_int_equal(clconv_plan_time(plan, 1, 2, &t), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "CL_QUEUE_PROFILING_ENABLE"));
    assert_int_equal(clconv_plan_execute(plan, NULL), CLCONV_OK);
    clconv_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dense_buffers_at_offset_zero_match_the_host_path),
        cmocka_unit_test(a_dense_region_at_an_aligned_offset_matches),
        cmocka_unit_test(pitched_sub_regions_match),
        cmocka_unit_test(bad_buffers_events_and_queues_are_refused),
        cmocka_unit_test(kernel_access_flags_are_respected),
        cmocka_unit_test(the_session_keeps_its_own_references),
        cmocka_unit_test(plans_of_every_method_release_what_they_made),
        cmocka_unit_test(every_method_is_right_on_an_out_of_order_queue),
        cmocka_unit_test(regions_of_sub_buffers_match),
        cmocka_unit_test(a_plan_enqueued_back_to_back_on_an_out_of_order_queue),
        cmocka_unit_test(destroying_a_session_waits_for_no_application_work),
        cmocka_unit_test(a_failed_wait_event_leaves_the_plan_usable),
        cmocka_unit_test(the_fft_on_an_out_of_order_queue_ends_on_it),
        cmocka_unit_test(timing_without_profiling_says_why),
    };
    /* $CLCONV_ENQUEUE_FILTER: only the tests whose name matches (cmocka's
     * wildcards) */
    const char *filter = getenv("CLCONV_ENQUEUE_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, setup, teardown);
}
