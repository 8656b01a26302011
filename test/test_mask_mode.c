/* Mask modes: a mask passed as a __constant argument and a mask baked into
 * the program must give the same verified results for every strategy and
 * dims, on every device $CLCONV_DEVICE selects (all when unset); a baked
 * plan refuses another mask and needs the mask when it is made; a baked
 * mask with Inf and NaN coefficients compiles and propagates them like the
 * reference. The test matrix covers each device's default mode at every
 * size; this covers the other mode of every strategy once (a baked
 * program costs one JIT per mask, so the matrix cannot bake every case). */
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

static uint64_t seed;

static clconv_problem problem(int dims, int mask, clconv_strategy s)
{
    /* Extents that are no multiple of any tile or of the vector width. */
    static const size_t sizes[4][3] = {
        {0, 0, 0}, {301, 1, 1}, {37, 23, 1}, {19, 13, 11}};
    clconv_problem p = support_problem(dims, sizes[dims][0], sizes[dims][1],
                                       sizes[dims][2], mask, 0, s);
    p.tile = clconv_default_tile(s, dims, mask);
    if (s == CLCONV_INPUT_TILE || s == CLCONV_OUTPUT_TILE ||
        s == CLCONV_CACHED_HALO || s == CLCONV_NAIVE)
        p.tile = dims == 1 ? 32 : 4;
    return p;
}

static void both_modes_match_the_reference(void **state)
{
    support_devices *f = *state;
    static const int masks[4] = {0, 9, 5, 3};
    long failures = 0, ran = 0;
    uint64_t case_seed = seed;
    for (size_t d = 0; d < f->n; ++d)
        for (int dims = 1; dims <= 3; ++dims)
            for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
                clconv_problem p = problem(dims, masks[dims],
                                           (clconv_strategy)s);
                clconv_dataset *data = NULL;
                assert_int_equal(support_dataset(&p, ++case_seed, &data),
                                 CLCONV_OK);
                for (int m = CLCONV_MASK_ARGUMENT; m <= CLCONV_MASK_BAKED;
                     ++m) {
                    p.mask_mode = (clconv_mask_mode)m;
                    clconv_result res;
                    clconv_run_verified(f->sessions[d], &p, data, 0, 0, &res);
                    if (res.status == CLCONV_EUNSUPPORTED) {
                        print_message("  unsupported: %dD %s %s: %s\n", dims,
                                      clconv_strategy_name(p.strategy),
                                      clconv_mask_mode_name(p.mask_mode),
                                      res.reason);
                        continue;
                    }
                    ++ran;
                    if (res.status != CLCONV_OK || !res.verdict.ok) {
                        ++failures;
                        print_error("FAIL %s: %dD %s mask %d %s seed %llu: %s\n",
                                    support_device(f, d)->name, dims,
                                    clconv_strategy_name(p.strategy),
                                    p.mask_width,
                                    clconv_mask_mode_name(p.mask_mode),
                                    (unsigned long long)case_seed,
                                    res.status != CLCONV_OK
                                        ? res.reason
                                        : "elements out of bound");
                    }
                }
                clconv_dataset_destroy(data);
            }
    print_message("  %ld runs, %ld failed\n", ran, failures);
    assert_true(ran > 0);
    assert_int_equal(failures, 0);
}

static void a_baked_plan_refuses_another_mask(void **state)
{
    support_devices *f = *state;
    clconv_problem p = problem(2, 3, CLCONV_COARSE);
    p.mask_mode = CLCONV_MASK_BAKED;
    float mask[9], other[9];
    clconv_fill_random(mask, 9, support_mask_seed());
    memcpy(other, mask, sizeof other);
    other[4] += 1.0f;
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create(f->sessions[0], &p, &plan),
                     CLCONV_EINVAL);
    assert_null(plan);
    assert_non_null(strstr(clconv_last_error(), "baked"));
    assert_int_equal(
        clconv_plan_create_with_mask(f->sessions[0], &p, mask, &plan),
        CLCONV_OK);
    assert_int_equal(clconv_plan_set_mask(plan, mask), CLCONV_OK);
    assert_int_equal(clconv_plan_set_mask(plan, other), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "new plan"));
    clconv_plan_destroy(plan);
    /* The argument mode takes any mask. */
    p.mask_mode = CLCONV_MASK_ARGUMENT;
    assert_int_equal(
        clconv_plan_create_with_mask(f->sessions[0], &p, mask, &plan),
        CLCONV_OK);
    assert_int_equal(clconv_plan_set_mask(plan, other), CLCONV_OK);
    clconv_plan_destroy(plan);
}

static void a_baked_nonfinite_mask_propagates_like_the_reference(void **state)
{
    support_devices *f = *state;
    clconv_problem p = problem(2, 3, CLCONV_NAIVE);
    p.mask_mode = CLCONV_MASK_BAKED;
    const size_t n = clconv_problem_elements(&p);
    float *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got);
    double *ref = malloc(n * sizeof *ref), *mag = malloc(n * sizeof *mag);
    assert_non_null(in && got && ref && mag);
    clconv_fill_random(in, n, seed);
    float mask[9];
    clconv_fill_random(mask, 9, support_mask_seed() + 1);
    mask[0] = INFINITY;
    mask[8] = -INFINITY;
    mask[4] = NAN;
    assert_int_equal(clconv_reference(&p, in, mask, ref, mag), CLCONV_OK);
    assert_int_equal(clconv_convolve(f->sessions[0], &p, in, mask, got),
                     CLCONV_OK);
    clconv_verdict v;
    clconv_verify(&p, got, ref, mag, &v);
    assert_true(v.ok);
    free(in);
    free(got);
    free(ref);
    free(mag);
}

int main(void)
{
    seed = support_seeds("mask modes");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_modes_match_the_reference),
        cmocka_unit_test(a_baked_plan_refuses_another_mask),
        cmocka_unit_test(a_baked_nonfinite_mask_propagates_like_the_reference),
    };
    return cmocka_run_group_tests(tests, support_devices_setup,
                                  support_devices_teardown);
}
