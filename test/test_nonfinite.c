/* NaN and Inf in the input: the reference propagates them as IEEE
 * arithmetic does, every device variant propagates them the same way, and
 * clconv_verify compares non-finite values by class (NaN with NaN, +Inf
 * with +Inf) instead of failing or passing them blindly. */
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

static void reference_spreads_a_nan_to_every_output_whose_window_holds_it(
    void **state)
{
    (void)state;
    float in[16], mask[3] = {0.25f, 0.5f, 0.25f};
    double out[16], mag[16];
    for (int i = 0; i < 16; ++i)
        in[i] = (float)i;
    in[5] = NAN;
    clconv_problem p = support_problem(1, 16, 1, 1, 3, 4, CLCONV_NAIVE);
    assert_int_equal(clconv_reference(&p, in, mask, out, mag), CLCONV_OK);
    for (int i = 0; i < 16; ++i) {
        int in_window = i >= 4 && i <= 6;
        assert_int_equal(isnan(out[i]) != 0, in_window);
        assert_int_equal(isnan(mag[i]) != 0, in_window);
    }
}

static void reference_gives_inf_and_nan_for_inf_times_a_zero_tap(void **state)
{
    (void)state;
    /* out[i] = N[i-1]*M[0] + N[i]*M[1] + N[i+1]*M[2] */
    float in[8] = {1, 1, 1, 1, 1, INFINITY, 1, 1}, mask[3] = {1, 0, 2};
    double out[8];
    clconv_problem p = support_problem(1, 8, 1, 1, 3, 4, CLCONV_NAIVE);
    assert_int_equal(clconv_reference(&p, in, mask, out, NULL), CLCONV_OK);
    assert_true(isinf(out[4]) && out[4] > 0); /* Inf * 2 */
    assert_true(isnan(out[5]));               /* Inf * 0 */
    assert_true(isinf(out[6]) && out[6] > 0); /* Inf * 1 */
    assert_true(out[3] == 3.0);               /* 1*1 + 1*0 + 1*2 */
}

static void reference_gives_nan_when_plus_and_minus_inf_meet(void **state)
{
    (void)state;
    float in[5] = {0, INFINITY, 0, -INFINITY, 0}, mask[3] = {1, 1, 1};
    double out[5];
    clconv_problem p = support_problem(1, 5, 1, 1, 3, 4, CLCONV_NAIVE);
    assert_int_equal(clconv_reference(&p, in, mask, out, NULL), CLCONV_OK);
    assert_true(isinf(out[0]) && out[0] > 0);
    assert_true(isnan(out[2]));
    assert_true(isinf(out[4]) && out[4] < 0);
}

/* Verify one element: expected e, got g. */
static int verify_one(double e, float g)
{
    clconv_problem p = support_problem(1, 1, 1, 1, 1, 4, CLCONV_NAIVE);
    double abs_sum = isfinite(e) ? fabs(e) : e;
    clconv_verdict v;
    clconv_verify(&p, &g, &e, &abs_sum, &v);
    return v.ok;
}

static void verify_accepts_nan_where_the_reference_is_nan(void **state)
{
    (void)state;
    assert_true(verify_one(NAN, NAN));
    assert_true(verify_one(NAN, -NAN));
}

static void verify_accepts_inf_of_the_same_sign_only(void **state)
{
    (void)state;
    assert_true(verify_one(INFINITY, INFINITY));
    assert_true(verify_one(-INFINITY, -INFINITY));
    assert_false(verify_one(INFINITY, -INFINITY));
    assert_false(verify_one(-INFINITY, INFINITY));
    assert_false(verify_one(INFINITY, NAN));
    assert_false(verify_one(NAN, INFINITY));
    assert_false(verify_one(INFINITY, 3.0e38f));
}

static void verify_rejects_nan_or_inf_where_the_reference_is_finite(
    void **state)
{
    (void)state;
    assert_true(verify_one(1.5, 1.5f));
    assert_false(verify_one(1.5, NAN));
    assert_false(verify_one(1.5, INFINITY));
    assert_false(verify_one(0.0, -INFINITY));
}

static void verify_rejects_a_finite_value_where_the_reference_is_nan(
    void **state)
{
    (void)state;
    assert_false(verify_one(NAN, 0.0f));
    assert_false(verify_one(NAN, 1.0f));
}

static void verify_counts_every_misclassified_element(void **state)
{
    (void)state;
    const double e[4] = {NAN, INFINITY, 1.0, -INFINITY};
    const double s[4] = {NAN, INFINITY, 1.0, INFINITY};
    const float g[4] = {NAN, INFINITY, NAN, INFINITY};
    clconv_problem p = support_problem(1, 4, 1, 1, 1, 4, CLCONV_NAIVE);
    clconv_verdict v;
    clconv_verify(&p, g, e, s, &v);
    assert_false(v.ok);
    assert_int_equal(v.failures, 2);
    assert_true(isinf(v.max_err));
}

static void verify_accepts_inf_for_an_exact_result_beyond_float_range(
    void **state)
{
    (void)state;
    /* 3e38 * 2: the exact 6e38 is no float; the kernel's inf is right. */
    float in[1] = {2.0f}, mask[1] = {3.0e38f};
    double e, s;
    clconv_problem p = support_problem(1, 1, 1, 1, 1, 4, CLCONV_NAIVE);
    assert_int_equal(clconv_reference(&p, in, mask, &e, &s), CLCONV_OK);
    float g = INFINITY;
    clconv_verdict v;
    clconv_verify(&p, &g, &e, &s, &v);
    assert_true(v.ok);
    assert_int_equal(v.overflowed, 1);
    assert_int_equal(v.nonfinite, 0);
    g = -INFINITY;
    clconv_verify(&p, &g, &e, &s, &v);
    assert_false(v.ok);
    g = NAN;
    clconv_verify(&p, &g, &e, &s, &v);
    assert_false(v.ok);
    /* Within float range, inf stays a failure. */
    assert_false(verify_one(3.0e38, INFINITY));
    assert_false(verify_one(-3.0e38, -INFINITY));
}

static void verify_counts_the_nan_it_matched_so_no_pass_is_silent(
    void **state)
{
    (void)state;
    const double e[3] = {NAN, 1.0, INFINITY};
    const double s[3] = {NAN, 1.0, INFINITY};
    const float g[3] = {NAN, 1.0f, INFINITY};
    clconv_problem p = support_problem(1, 3, 1, 1, 1, 4, CLCONV_NAIVE);
    clconv_verdict v;
    clconv_verify(&p, g, e, s, &v);
    assert_true(v.ok);
    assert_int_equal(v.nonfinite, 2);
    /* Finite data has a finite double reference: no NaN can match. */
    float in[3] = {1, 2, 3}, mask[3] = {3.0e38f, 3.0e38f, -3.0e38f};
    double ref[3], mag[3];
    clconv_problem q = support_problem(1, 3, 1, 1, 3, 4, CLCONV_NAIVE);
    assert_int_equal(clconv_reference(&q, in, mask, ref, mag), CLCONV_OK);
    for (int i = 0; i < 3; ++i)
        assert_true(isfinite(ref[i]) && isfinite(mag[i]));
    const float nan3[3] = {NAN, NAN, NAN};
    clconv_verify(&q, nan3, ref, mag, &v);
    assert_false(v.ok);
    assert_int_equal(v.failures, 3);
}

/* ---- on the device: every variant, every dims -------------------------- */

/* Plant NaN, +Inf and -Inf at an edge, a tile boundary and inside, and
 * one pair of opposite infinities within a mask's reach. */
static void plant_nonfinite(float *in, const clconv_problem *p)
{
    const size_t nx = p->size[0], ny = p->size[1];
    const size_t n = clconv_problem_elements(p);
    const size_t at[5] = {0, (size_t)p->tile % n, n / 2, n - 1,
                          (n / 3 + 2) % n};
    in[at[0]] = NAN;
    in[at[1]] = INFINITY;
    in[at[2]] = -INFINITY;
    in[at[3]] = INFINITY;
    in[at[4]] = NAN;
    /* +Inf next to -Inf along y (or x in 1D): NaN where both reach. */
    size_t q = (ny > 2 ? nx : 1) + n / 4;
    if (q + 1 < n) {
        in[q] = INFINITY;
        in[q + 1] = -INFINITY;
    }
}

/* A problem's input and mask (random, from their seeds), its output and
 * reference arrays. */
typedef struct arrays {
    float *in, *mask, *got;
    double *ref, *mag;
} arrays;

static arrays arrays_alloc(const clconv_problem *p, unsigned in_seed,
                           unsigned mask_seed)
{
    const size_t n = clconv_problem_elements(p);
    const size_t m = clconv_problem_mask_elements(p);
    arrays a = {malloc(n * sizeof(float)), malloc(m * sizeof(float)),
                malloc(n * sizeof(float)), malloc(n * sizeof(double)),
                malloc(n * sizeof(double))};
    assert_non_null(a.in && a.mask && a.got && a.ref && a.mag);
    clconv_fill_random(a.in, n, in_seed);
    clconv_fill_random(a.mask, m, mask_seed);
    return a;
}

static void arrays_free(arrays *a)
{
    free(a->in);
    free(a->mask);
    free(a->got);
    free(a->ref);
    free(a->mag);
}

static void device_variants_propagate_nan_and_inf_like_the_reference(
    void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    static const struct {
        int dims;
        size_t size[3];
        int mask;
    } shapes[] = {
        {1, {37, 1, 1}, 5},
        {2, {13, 11, 1}, 3},
        {3, {7, 6, 5}, 3},
    };
    int checked = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        clconv_problem p = support_problem(shapes[k].dims, shapes[k].size[0],
                                   shapes[k].size[1], shapes[k].size[2],
                                   shapes[k].mask, 4, CLCONV_NAIVE);
        const size_t n = clconv_problem_elements(&p);
        const size_t m = clconv_problem_mask_elements(&p);
        arrays a = arrays_alloc(&p, 11 + (unsigned)k, 23 + (unsigned)k);
        float *in = a.in, *mask = a.mask, *got = a.got;
        double *ref = a.ref, *mag = a.mag;
        mask[m / 2] = 0.0f; /* Inf times the centre tap is NaN */
        for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
            p.strategy = (clconv_strategy)s;
            p.tile = clconv_default_tile(p.strategy, p.dims, p.mask_width);
            if (p.tile > 4)
                p.tile = 4; /* partial tiles on every side */
            plant_nonfinite(in, &p);
            assert_int_equal(clconv_reference(&p, in, mask, ref, mag),
                             CLCONV_OK);
            size_t nan_ref = 0, inf_ref = 0;
            for (size_t i = 0; i < n; ++i) {
                nan_ref += isnan(ref[i]) != 0;
                inf_ref += isinf(ref[i]) != 0;
            }
            assert_true(nan_ref > 0 && inf_ref > 0);
            clconv_plan *plan = NULL;
            clconv_status st = clconv_plan_create_with_mask(f->sessions[0], &p, mask, &plan);
            if (st == CLCONV_EUNSUPPORTED) {
                print_message("%dD %s: unsupported: %s\n", p.dims,
                              clconv_strategy_name(p.strategy),
                              clconv_last_error());
                continue;
            }
            if (st != CLCONV_OK)
                fail_msg("%dD %s: %s", p.dims, clconv_strategy_name(p.strategy),
                         clconv_last_error());
            assert_int_equal(clconv_plan_set_input(plan, in), CLCONV_OK);
            assert_int_equal(clconv_plan_set_mask(plan, mask), CLCONV_OK);
            assert_int_equal(clconv_plan_poison_output(plan), CLCONV_OK);
            assert_int_equal(clconv_plan_execute(plan, NULL), CLCONV_OK);
            assert_int_equal(clconv_plan_get_output(plan, got), CLCONV_OK);
            clconv_plan_destroy(plan);
            clconv_verdict v;
            clconv_verify(&p, got, ref, mag, &v);
            if (!v.ok)
                fail_msg("%dD %s: %zu elements differ, e.g. index %zu: got "
                         "%g, reference %g",
                         p.dims, clconv_strategy_name(p.strategy), v.failures,
                         v.worst_index, v.worst_got, v.worst_expected);
            ++checked;
        }
        arrays_free(&a);
    }
    assert_true(checked > 0);
}

/* A Fourier transform spreads a NaN or Inf of its input to every output:
 * on such input the host-to-host call's auto never takes the FFT (the
 * result matches the reference, NaN only where its window holds the NaN),
 * an asked-for FFT is unsupported saying why (float32 and float16 input),
 * and finite input keeps the FFT where auto chose it. */
static void the_fft_is_never_chosen_for_nonfinite_input(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    clconv_session *s = f->sessions[0];
    clconv_problem p = support_problem(2, 200, 160, 1, 41, 16, CLCONV_NAIVE);
    p.tile = 0; /* the device's default variant */
    const size_t n = clconv_problem_elements(&p);
    arrays a = arrays_alloc(&p, 5, 6); /* the mask not separable */
    float *in = a.in, *mask = a.mask, *got = a.got;
    double *ref = a.ref, *mag = a.mag;
    clconv_method finite = CLCONV_METHOD_AUTO, with_nan = CLCONV_METHOD_AUTO;
    assert_int_equal(clconv_method_choose_for_input(s, &p, mask, in, n,
                                                    &finite),
                     CLCONV_OK);
    assert_int_equal(finite, clconv_method_choose(s, &p, mask));
    in[77 * 200 + 50] = NAN;
    in[10 * 200 + 190] = INFINITY;
    assert_int_equal(clconv_method_choose_for_input(s, &p, mask, in, n,
                                                    &with_nan),
                     CLCONV_OK);
    assert_int_not_equal(with_nan, CLCONV_METHOD_FFT);
    print_message("auto: %s on finite input, %s with NaN and Inf\n",
                  clconv_method_name(finite), clconv_method_name(with_nan));
    /* computed (a smaller problem: Oclgrind runs this too) */
    clconv_problem q = support_problem(2, 48, 40, 1, 9, 16, CLCONV_NAIVE);
    q.tile = 0;
    const size_t nq = clconv_problem_elements(&q);
    for (size_t i = 0; i < nq; ++i)
        in[i] = (float)((i * 7919) % 100) / 50.0f - 1.0f;
    in[17 * 48 + 20] = NAN;
    in[3 * 48 + 46] = -INFINITY;
    assert_int_equal(clconv_convolve(s, &q, in, mask, got), CLCONV_OK);
    assert_int_equal(clconv_reference(&q, in, mask, ref, mag), CLCONV_OK);
    size_t nan_ref = 0;
    for (size_t i = 0; i < nq; ++i)
        nan_ref += !isfinite(ref[i]);
    assert_true(nan_ref > 0 && nan_ref < nq / 4);
    clconv_verdict v;
    double scale, floor;
    clconv_method mq = CLCONV_METHOD_AUTO;
    assert_int_equal(clconv_method_choose_for_input(s, &q, mask, in, nq, &mq),
                     CLCONV_OK);
    clconv_verify_bound(&q, mq, in, mask, &scale, &floor);
    clconv_verify_typed(&q, got, ref, mag, scale, floor, &v);
    if (!v.ok)
        fail_msg("%zu elements differ, e.g. index %zu: got %g, reference %g",
                 v.failures, v.worst_index, v.worst_got, v.worst_expected);
    /* asked for: unsupported, saying why */
    q.method = p.method = CLCONV_METHOD_FFT;
    assert_int_equal(clconv_convolve(s, &q, in, mask, got),
                     CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "NaN or Inf"));
    uint16_t *half = calloc(n, sizeof *half);
    assert_non_null(half);
    half[n / 2] = 0x7e00; /* a float16 NaN */
    p.in_dtype = CLCONV_ELEM_F16;
    clconv_method mh = CLCONV_METHOD_AUTO;
    assert_int_equal(clconv_method_choose_for_input(s, &p, mask, half, n, &mh),
                     CLCONV_EUNSUPPORTED);
    half[n / 2] = 0x3c00; /* 1.0: finite again */
    assert_int_equal(clconv_method_choose_for_input(s, &p, mask, half, n, &mh),
                     CLCONV_OK);
    assert_int_equal(mh, CLCONV_METHOD_FFT);
    free(half);
    arrays_free(&a);
}

/* Finite input large enough that the FFT's float32 sums overflow (the
 * forward transform's bins reach the padded elements times the data's
 * range, their products with the mask's spectrum that times sum|M|): the
 * transform gave NaN at every output, where the direct result is finite
 * (2D 96x96 of +-1e36 with a random 31x31 mask: every output NaN under
 * auto, SciPy's within 1e-6). As with NaN input, auto takes another
 * method (its result within the bound of the reference) and an asked-for
 * FFT is unsupported saying why; data of ordinary range keep the FFT. */
static void the_fft_is_not_chosen_where_its_sums_would_overflow(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    clconv_session *s = f->sessions[0];
    clconv_problem p = support_problem(2, 200, 160, 1, 41, 16, CLCONV_NAIVE);
    p.tile = 0;
    const size_t n = clconv_problem_elements(&p);
    arrays a = arrays_alloc(&p, 7, 8);
    clconv_method plain = CLCONV_METHOD_AUTO, big = CLCONV_METHOD_AUTO;
    assert_int_equal(clconv_method_choose_for_input(s, &p, a.mask, a.in, n,
                                                    &plain),
                     CLCONV_OK);
    for (size_t i = 0; i < n; ++i)
        a.in[i] *= 1e20f; /* far from overflowing: the same choice */
    assert_int_equal(clconv_method_choose_for_input(s, &p, a.mask, a.in, n,
                                                    &big),
                     CLCONV_OK);
    assert_int_equal(big, plain);
    for (size_t i = 0; i < n; ++i)
        a.in[i] *= 1e16f; /* up to 1e36 */
    assert_int_equal(clconv_method_choose_for_input(s, &p, a.mask, a.in, n,
                                                    &big),
                     CLCONV_OK);
    assert_int_not_equal(big, CLCONV_METHOD_FFT);
    print_message("auto: %s on data in [-1, 1], %s on data up to 1e36\n",
                  clconv_method_name(plain), clconv_method_name(big));
    /* computed on the host-to-host path: no NaN, within the bound */
    assert_int_equal(clconv_convolve(s, &p, a.in, a.mask, a.got), CLCONV_OK);
    assert_int_equal(clconv_reference(&p, a.in, a.mask, a.ref, a.mag),
                     CLCONV_OK);
    clconv_verdict v;
    double scale, floor;
    clconv_verify_bound(&p, big, a.in, a.mask, &scale, &floor);
    clconv_verify_typed(&p, a.got, a.ref, a.mag, scale, floor, &v);
    if (!v.ok)
        fail_msg("%zu elements differ, e.g. index %zu: got %g, reference %g",
                 v.failures, v.worst_index, v.worst_got, v.worst_expected);
    /* asked for: unsupported, saying why; a large cval counts too */
    p.method = CLCONV_METHOD_FFT;
    assert_int_equal(clconv_convolve(s, &p, a.in, a.mask, a.got),
                     CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "overflow"));
    clconv_fill_random(a.in, n, 7);
    clconv_method m = CLCONV_METHOD_AUTO;
    assert_int_equal(clconv_method_choose_for_input(s, &p, a.mask, a.in, n, &m),
                     CLCONV_OK);
    assert_int_equal(m, CLCONV_METHOD_FFT);
    p.cval = 3e38;
    assert_int_equal(clconv_method_choose_for_input(s, &p, a.mask, a.in, n, &m),
                     CLCONV_EUNSUPPORTED);
    arrays_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            reference_spreads_a_nan_to_every_output_whose_window_holds_it),
        cmocka_unit_test(reference_gives_inf_and_nan_for_inf_times_a_zero_tap),
        cmocka_unit_test(reference_gives_nan_when_plus_and_minus_inf_meet),
        cmocka_unit_test(verify_accepts_nan_where_the_reference_is_nan),
        cmocka_unit_test(verify_accepts_inf_of_the_same_sign_only),
        cmocka_unit_test(
            verify_rejects_nan_or_inf_where_the_reference_is_finite),
        cmocka_unit_test(
            verify_rejects_a_finite_value_where_the_reference_is_nan),
        cmocka_unit_test(verify_counts_every_misclassified_element),
        cmocka_unit_test(
            verify_accepts_inf_for_an_exact_result_beyond_float_range),
        cmocka_unit_test(
            verify_counts_the_nan_it_matched_so_no_pass_is_silent),
        cmocka_unit_test_setup_teardown(
            device_variants_propagate_nan_and_inf_like_the_reference,
            support_devices_setup_or_skip, support_devices_teardown),
        cmocka_unit_test_setup_teardown(
            the_fft_is_never_chosen_for_nonfinite_input,
            support_devices_setup_or_skip, support_devices_teardown),
        cmocka_unit_test_setup_teardown(
            the_fft_is_not_chosen_where_its_sums_would_overflow,
            support_devices_setup_or_skip, support_devices_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
