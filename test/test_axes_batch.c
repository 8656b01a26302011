/* Filters over part of the data (clconv_problem_on_axes,
 * clconv_problem_stack): a batch computed in one launch equals each of its
 * problems computed alone, and a mask over some axes equals that mask
 * applied to every line or plane along the others, each checked against
 * the double reference of the smaller problem, for every strategy and a
 * spread of border modes. Runs on every device $CLCONV_DEVICE selects. */
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
#include "support.h"

static const clconv_border modes[] = {
    CLCONV_BORDER_CONSTANT, CLCONV_BORDER_REFLECT, CLCONV_BORDER_WRAP};
#define NMODES (sizeof modes / sizeof *modes)

/* `small` checked against its reference, read from got (element i of
 * small at got[at(i)]) where at maps small's index to the big output. */
typedef size_t (*index_map)(const void *ctx, size_t i);

static void check_part(const clconv_problem *small, const float *in,
                       const float *mask, const float *got, index_map at,
                       const void *ctx, const char *what)
{
    const size_t n = clconv_problem_elements(small);
    double *ref = malloc(n * sizeof *ref), *mag = malloc(n * sizeof *mag);
    float *part = malloc(n * sizeof *part);
    assert_non_null(ref && mag && part);
    assert_int_equal(clconv_reference(small, in, mask, ref, mag), CLCONV_OK);
    for (size_t i = 0; i < n; ++i)
        part[i] = got[at(ctx, i)];
    clconv_verdict v;
    clconv_verify(small, part, ref, mag, &v);
    if (!v.ok)
        fail_msg("%s: element %zu is %.9g, the problem alone gives %.9g", what,
                 v.worst_index, v.worst_got, v.worst_expected);
    free(ref);
    free(mag);
    free(part);
}

static size_t offset_map(const void *ctx, size_t i)
{
    return *(const size_t *)ctx + i;
}

/* Run p on device k with a poisoned output; the output, or NULL when the
 * device cannot run it (said, counted as a skip by the caller). */
static float *run(support_devices *f, size_t k, clconv_problem *p,
                  const float *in, const float *mask)
{
    const size_t n = clconv_problem_elements(p);
    float *out = malloc(n * sizeof *out);
    assert_non_null(out);
    for (size_t i = 0; i < n; ++i)
        out[i] = NAN;
    clconv_status st = clconv_convolve(f->sessions[k], p, in, mask, out);
    if (st == CLCONV_EUNSUPPORTED) {
        printf("  unsupported on %s: %s\n", support_device(f, k)->name,
               clconv_last_error());
        free(out);
        return NULL;
    }
    if (st != CLCONV_OK)
        fail_msg("%s", clconv_last_error());
    return out;
}

static void a_batch_is_each_problem_alone(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    const size_t batch = 3, sizes[2][2] = {{37, 1}, {13, 9}};
    for (size_t k = 0; k < f->n; ++k)
        for (int dims = 1; dims <= 2; ++dims)
            for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
                /* Every strategy and every mode, not every pair (each is a
                 * kernel build). */
                const size_t m = (size_t)(s + dims) % NMODES;
                clconv_problem one = support_problem(dims, sizes[dims - 1][0],
                                                     sizes[dims - 1][1], 1, 5,
                                                     0, (clconv_strategy)s);
                one.mask_size[0] = 5;
                one.mask_size[1] = dims > 1 ? 2 : 0; /* even, 5x2 */
                one.origin[0] = -2;
                one.border = modes[m];
                one.cval = 0.5;
                one.method = CLCONV_METHOD_DIRECT;
                clconv_problem all = one;
                assert_int_equal(clconv_problem_stack(&all, batch), CLCONV_OK);
                assert_int_equal(all.dims, dims + 1);
                const size_t n = clconv_problem_elements(&one);
                float *in = malloc(batch * n * sizeof *in), mask[10];
                assert_non_null(in);
                clconv_fill_random(in, batch * n, 7 + (uint64_t)s);
                clconv_fill_random(mask, 10, 9 + (uint64_t)m);
                float *out = run(f, k, &all, in, mask);
                for (size_t b = 0; out && b < batch; ++b) {
                    char what[96];
                    snprintf(what, sizeof what, "%dD %s %s, member %zu", dims,
                             clconv_strategy_name(one.strategy),
                             clconv_border_name(one.border), b);
                    const size_t at = b * n;
                    check_part(&one, in + at, mask, out, offset_map, &at, what);
                }
                free(out);
                free(in);
            }
}

/* 3D data nx x ny x nz, a mask over x and z: plane y of it. */
typedef struct plane {
    size_t nx, ny, y;
} plane;

static size_t plane_map(const void *ctx, size_t i)
{
    const plane *pl = ctx;
    const size_t x = i % pl->nx, z = i / pl->nx;
    return (z * pl->ny + pl->y) * pl->nx + x;
}

static void a_mask_on_two_axes_is_each_plane_alone(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    const size_t nx = 11, ny = 4, nz = 8, n = nx * ny * nz;
    float *in = malloc(n * sizeof *in), *slice = malloc(nx * nz * 4);
    float mask[15];
    assert_non_null(in && slice);
    clconv_fill_random(in, n, 11);
    clconv_fill_random(mask, 15, 12);
    for (size_t k = 0; k < f->n; ++k)
        for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
            const size_t m = (size_t)s % NMODES;
            /* The 2D mask: 3 along its x, 5 along its y, which land on
             * the data's x and z. */
            clconv_problem two =
                support_problem(2, nx, nz, 1, 5, 0, (clconv_strategy)s);
            two.mask_size[0] = 3;
            two.mask_size[1] = 5;
            two.origin[0] = 1;
            two.origin[1] = -2;
            two.border = modes[m];
            two.cval = -1.0;
            two.method = CLCONV_METHOD_DIRECT;
            clconv_problem all = two;
            all.dims = 3;
            all.size[1] = ny;
            all.size[2] = nz;
            assert_int_equal(clconv_problem_on_axes(&all, 0x5u), CLCONV_OK);
            assert_int_equal(all.mask_size[1], 1);
            assert_int_equal(all.mask_size[2], 5);
            assert_int_equal(all.origin[2], -2);
            float *out = run(f, k, &all, in, mask);
            for (size_t y = 0; out && y < ny; ++y) {
                plane pl = {nx, ny, y};
                for (size_t i = 0; i < nx * nz; ++i)
                    slice[i] = in[plane_map(&pl, i)];
                char what[96];
                snprintf(what, sizeof what, "%s %s, plane y=%zu",
                         clconv_strategy_name(two.strategy),
                         clconv_border_name(two.border), y);
                check_part(&two, slice, mask, out, plane_map, &pl, what);
            }
            free(out);
        }
    free(in);
    free(slice);
}

static void bad_axes_and_batches_are_refused(void **state)
{
    (void)state;
    clconv_problem p = support_problem(2, 8, 8, 1, 3, 0, CLCONV_NAIVE);
    assert_int_equal(clconv_problem_on_axes(&p, 0), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "non-empty set"));
    assert_int_equal(clconv_problem_on_axes(&p, 0x4u), CLCONV_EINVAL);
    assert_int_equal(clconv_problem_stack(&p, 0), CLCONV_EINVAL);
    clconv_problem one = p;
    assert_int_equal(clconv_problem_stack(&p, 1), CLCONV_OK);
    assert_memory_equal(&p, &one, sizeof p);
    p.dims = 3;
    p.size[2] = 4;
    assert_int_equal(clconv_problem_stack(&p, 2), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "3D problems"));
    /* A 1D mask on every axis of its own 1D data changes nothing. */
    clconv_problem q = support_problem(1, 9, 1, 1, 5, 0, CLCONV_NAIVE);
    assert_int_equal(clconv_problem_on_axes(&q, 0x1u), CLCONV_OK);
    assert_int_equal(clconv_problem_mask_axis(&q, 0), 5);
    assert_int_equal(clconv_problem_validate(&q), CLCONV_OK);
}

/* The same batches with the members looped over inside the kernel
 * ($CLCONV_BATCH_LOOP=1, a measuring override read when a session opens:
 * bench/PERF.md item 27): sessions opened with it set. */
static int setup_batch_loop(void **state)
{
    setenv("CLCONV_BATCH_LOOP", "1", 1);
    const int r = support_devices_setup_or_skip(state);
    unsetenv("CLCONV_BATCH_LOOP");
    return r;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_batch_is_each_problem_alone),
        cmocka_unit_test(a_mask_on_two_axes_is_each_plane_alone),
        cmocka_unit_test(bad_axes_and_batches_are_refused),
    };
    const struct CMUnitTest looped[] = {
        cmocka_unit_test(a_batch_is_each_problem_alone),
    };
    const int failed = cmocka_run_group_tests(tests, support_devices_setup_or_skip,
                                              support_devices_teardown);
    return failed + cmocka_run_group_tests_name("batches looped in the kernel",
                                                looped, setup_batch_loop,
                                                support_devices_teardown);
}
