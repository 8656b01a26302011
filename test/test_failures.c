/* Every failure the library can meet while an application uses it: each
 * host allocation (malloc, calloc, realloc, strdup, strndup) and each
 * OpenCL call of the library failed in turn, one per run of a scenario
 * (a session on the application's context, a plan's life, a host-to-host
 * call, an enqueue through pitched regions), by the linker's --wrap
 * (test/inject.c). Each failed run returns the documented status (a host
 * allocation CLCONV_ENOMEM; an OpenCL call CLCONV_EOPENCL, or EBUILD for
 * a build, whose message names the call that failed), or, where the
 * library recovers, the clean run's bits; and it leaves the application's
 * context as it found it (no buffer, queue, program or event of the
 * library left holding it). Host memory left behind is LeakSanitizer's to
 * find under make sanitize. Not covered: the FFT (VkFFT's own failure
 * paths leak its code buffer and print its build log) and
 * clEnqueueUnmapMemObject (a mapping that failed to end keeps its buffer;
 * nothing the library holds can release it). Runs on the first device
 * $CLCONV_DEVICE selects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "clconv_cl.h"
#include "inject.h"
#include "support.h"

enum { NX = 64, NY = 40, MASK = 5 };

typedef enum scenario {
    PLAN_DIRECT,    /* create with mask, set input, execute timed, output */
    PLAN_SEPARABLE, /* the same on the separable method */
    CONVOLVE_U8,    /* clconv_convolve_typed, uint8 in, float32 out, the
                       method auto (the separable passes, on PoCL) */
    ENQUEUE_PITCHED /* clconv_plan_enqueue on pitched regions, twice */
} scenario;

typedef struct fixture {
    clconv_device_list list;
    const clconv_device_info *dev;
    cl_context ctx;
    cl_command_queue queue;
    cl_mem a, b; /* the application's buffers: PITCH floats a row */
    cl_uint refs; /* the context's references before any session */
    float in[NX * NY], mask[MASK * MASK], out[NX * NY], want[NX * NY];
    unsigned char in8[NX * NY];
} fixture;

#define PITCH ((NX + 3) * sizeof(float))

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
    f->queue = clCreateCommandQueue(f->ctx, d, CL_QUEUE_PROFILING_ENABLE,
                                    &err);
    if (err != CL_SUCCESS)
        return -1;
    f->a = clCreateBuffer(f->ctx, CL_MEM_READ_WRITE, PITCH * NY + 4, NULL,
                          &err);
    f->b = clCreateBuffer(f->ctx, CL_MEM_READ_WRITE, PITCH * NY + 4, NULL,
                          &err);
    if (!f->a || !f->b)
        return -1;
    if (clGetContextInfo(f->ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof f->refs,
                         &f->refs, NULL) != CL_SUCCESS)
        return -1;
    clconv_fill_random(f->in, NX * NY, 1);
    for (size_t i = 0; i < NX * NY; ++i)
        f->in8[i] = (unsigned char)(i * 37);
    printf("failures: on %s\n", f->dev->name);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clReleaseMemObject(f->a);
    clReleaseMemObject(f->b);
    clReleaseCommandQueue(f->queue);
    clReleaseContext(f->ctx);
    clconv_devices_free(&f->list);
    free(f);
    return 0;
}

static clconv_problem problem(const fixture *f, scenario sc)
{
    clconv_problem p = {.dims = 2, .size = {NX, NY, 1}, .mask_width = MASK,
                        .border = CLCONV_BORDER_REFLECT,
                        .method = sc == PLAN_SEPARABLE
                                      ? CLCONV_METHOD_SEPARABLE
                                      : CLCONV_METHOD_DIRECT};
    if (sc == CONVOLVE_U8) {
        p.in_dtype = CLCONV_ELEM_U8;
        p.method = CLCONV_METHOD_AUTO;
    }
    clconv_pick_default(f->dev, &p);
    return p;
}

/* The application's input in buffer a, PITCH bytes a row from byte 4
 * (never counted: it runs before the scenario arms the failures). */
static void upload(fixture *f)
{
    const size_t at[3] = {4, 0, 0}, zero[3] = {0, 0, 0},
                 region[3] = {NX * sizeof(float), NY, 1};
    assert_int_equal(clEnqueueWriteBufferRect(f->queue, f->a, CL_TRUE, at,
                                              zero, region, PITCH, 0,
                                              NX * sizeof(float), 0, f->in, 0,
                                              NULL, NULL),
                     CL_SUCCESS);
}

static clconv_status enqueue_pitched(fixture *f, clconv_plan *plan)
{
    cl_event done = NULL;
    clconv_buffer bi = {f->a, 4, PITCH, 0}, bo = {f->b, 4, PITCH, 0};
    clconv_status st = clconv_plan_enqueue(plan, &bi, &bo, 0, NULL, &done);
    if (st == CLCONV_OK)
        st = clconv_plan_enqueue(plan, &bi, &bo, 1, &done, NULL);
    inject_off();
    if (done)
        clReleaseEvent(done);
    const size_t at[3] = {4, 0, 0}, zero[3] = {0, 0, 0},
                 region[3] = {NX * sizeof(float), NY, 1};
    if (st == CLCONV_OK)
        assert_int_equal(clEnqueueReadBufferRect(
                             f->queue, f->b, CL_TRUE, at, zero, region, PITCH,
                             0, NX * sizeof(float), 0, f->out, 0, NULL, NULL),
                         CL_SUCCESS);
    return st;
}

/* One run of the scenario, from the session on: its status, the result in
 * f->out, everything of the library's released. */
static clconv_status run(fixture *f, scenario sc, inject_kind kind, long n)
{
    clconv_problem p = problem(f, sc);
    clconv_session *s = NULL;
    clconv_plan *plan = NULL;
    clconv_timing t;
    double ms;
    if (sc == ENQUEUE_PITCHED)
        upload(f);
    memset(f->out, 0, sizeof f->out);
    inject_arm(kind, n);
    clconv_status st = clconv_session_create_from_cl(
        f->ctx, (cl_device_id)f->dev->opaque_device, f->queue, &s);
    if (st == CLCONV_OK && sc == CONVOLVE_U8)
        st = clconv_convolve_typed(s, &p, f->in8, f->mask, f->out, NULL);
    else if (st == CLCONV_OK)
        st = clconv_plan_create_with_mask(s, &p, f->mask, &plan);
    if (st == CLCONV_OK && sc == ENQUEUE_PITCHED)
        st = enqueue_pitched(f, plan);
    else if (st == CLCONV_OK && sc != CONVOLVE_U8 &&
             (st = clconv_plan_set_input(plan, f->in)) == CLCONV_OK &&
             (st = clconv_plan_execute(plan, &ms)) == CLCONV_OK &&
             (st = clconv_plan_get_output(plan, f->out)) == CLCONV_OK)
        st = clconv_plan_time(plan, 1, 2, &t);
    inject_off();
    clFinish(f->queue);
    clconv_plan_destroy(plan);
    clconv_session_destroy(s);
    return st;
}

static cl_uint context_references(const fixture *f)
{
    cl_uint n = 0;
    assert_int_equal(clGetContextInfo(f->ctx, CL_CONTEXT_REFERENCE_COUNT,
                                      sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

/* The context's references once they are back to want, or after 2 s:
 * the runtime drops a finished command's references from its own
 * threads, a moment after clFinish returns (on a loaded machine, one run
 * in ten saw one more). */
static cl_uint context_references_settled(const fixture *f, cl_uint want)
{
    cl_uint n = context_references(f);
    for (int i = 0; i < 200 && n != want; ++i) {
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
        n = context_references(f);
    }
    return n;
}

/* Fail the 1st, 2nd, ... call of the kind until a run makes fewer calls
 * than that, checking each failed run. */
static void every_failure_of(fixture *f, scenario sc, inject_kind kind)
{
    clconv_problem p = problem(f, sc);
    clconv_fill_separable(&p, f->mask, 3);
    /* Every run must give back what it took: the fixture's own
     * references, counted before any session (after a run Oclgrind holds
     * its objects' references to the context a while longer: 12 after the
     * clean run, 4 once they are gone). */
    const cl_uint refs = f->refs;
    assert_int_equal(run(f, sc, INJECT_OFF, 0), CLCONV_OK);
    memcpy(f->want, f->out, sizeof f->want);
    long n = 1, failed = 0;
    for (;; ++n) {
        clconv_status st = run(f, sc, kind, n);
        const char *call = inject_fired(), *msg = clconv_last_error();
        if (!call) {
            assert_int_equal(st, CLCONV_OK);
            break;
        }
        int ok;
        if (st == CLCONV_OK) /* recovered: the clean run's bits */
            ok = memcmp(f->out, f->want, sizeof f->want) == 0;
        else if (kind == INJECT_HOST)
            ok = st == CLCONV_ENOMEM;
        else
            ok = (st == CLCONV_EOPENCL || st == CLCONV_EBUILD) &&
                 strstr(msg, call) != NULL;
        if (!ok) {
            print_error("scenario %d: %s number %ld failed: status %s, '%s'\n",
                        (int)sc, call, n, clconv_status_name(st), msg);
            ++failed;
        }
        const cl_uint now = context_references_settled(f, refs);
        if (now != refs) {
            print_error("scenario %d: after %s number %ld failed, the "
                        "context has %u references (%u before)\n",
                        (int)sc, call, n, now, refs);
            ++failed;
        }
    }
    printf("failures: scenario %d, %s: %ld calls failed one by one\n",
           (int)sc, kind == INJECT_HOST ? "host" : "OpenCL", n - 1);
    assert_int_equal(failed, 0);
}

static void a_failed_host_allocation_is_enomem_in_every_scenario(void **state)
{
    for (scenario sc = PLAN_DIRECT; sc <= ENQUEUE_PITCHED; ++sc)
        every_failure_of(*state, sc, INJECT_HOST);
}

static void a_failed_opencl_call_is_named_and_releases_everything(
    void **state)
{
    for (scenario sc = PLAN_DIRECT; sc <= ENQUEUE_PITCHED; ++sc)
        every_failure_of(*state, sc, INJECT_OPENCL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failed_host_allocation_is_enomem_in_every_scenario),
        cmocka_unit_test(
            a_failed_opencl_call_is_named_and_releases_everything),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
