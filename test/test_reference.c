/* The double-precision reference against hand-computed examples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "support.h"

/* The 7x7 image and 5x5 mask of the lecture notes (000_*.txt). */
static const float notes_image[49] = {
    1, 2, 3, 4, 5, 6, 7, /* */ 2, 3, 4, 5, 6, 7, 8, /* */
    3, 4, 5, 6, 7, 8, 9, /* */ 4, 5, 6, 7, 8, 5, 6, /* */
    5, 6, 7, 8, 5, 6, 7, /* */ 6, 7, 8, 9, 0, 1, 2, /* */
    7, 8, 9, 0, 1, 2, 3};
static const float notes_mask[25] = {1, 2, 3, 2, 1, /* */ 2, 3, 4, 3, 2, /* */
                                     3, 4, 5, 4, 3, /* */ 2, 3, 4, 3, 2, /* */
                                     1, 2, 3, 2, 1};

static void reference_gives_321_for_the_notes_2d_example(void **state)
{
    (void)state;
    clconv_problem p = support_problem(2, 7, 7, 1, 5, 1, CLCONV_NAIVE);
    double out[49];
    assert_int_equal(clconv_reference(&p, notes_image, notes_mask, out, NULL),
                     CLCONV_OK);
    /* The notes' products table for the output at (2, 2), whose 5x5 input
     * window is the image's top-left corner, sums to 321. */
    assert_true(out[2 * 7 + 2] == 321.0);
}

static void reference_treats_ghost_cells_as_zero_at_the_2d_corner(void **state)
{
    (void)state;
    clconv_problem p = support_problem(2, 7, 7, 1, 5, 1, CLCONV_NAIVE);
    double out[49], mag[49];
    assert_int_equal(clconv_reference(&p, notes_image, notes_mask, out, mag),
                     CLCONV_OK);
    /* (0, 0): rows 0-2, cols 0-2 of the image times the mask's bottom-right
     * 3x3: 1*5+2*4+3*3 + 2*4+3*3+4*2 + 3*3+4*2+5*1 = 69. */
    assert_true(out[0] == 69.0);
    /* (6, 6): rows 4-6, cols 4-6 (5 6 7 / 0 1 2 / 1 2 3) times the mask's
     * top-left 3x3 (1 2 3 / 2 3 4 / 3 4 5): 5+12+21 + 0+3+8 + 3+8+15 = 75. */
    assert_true(out[48] == 75.0);
    /* All terms are positive, so sum |N*M| equals the output. */
    assert_true(mag[0] == 69.0 && mag[48] == 75.0);
}

static void reference_matches_the_textbook_1d_example_with_a_ghost_cell(
    void **state)
{
    (void)state;
    const float n[7] = {1, 2, 3, 4, 5, 6, 7};
    const float m[5] = {3, 4, 5, 4, 3};
    clconv_problem p = support_problem(1, 7, 1, 1, 5, 1, CLCONV_NAIVE);
    double out[7];
    assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
    assert_true(out[2] == 57.0); /* 1*3 + 2*4 + 3*5 + 4*4 + 5*3 */
    assert_true(out[1] == 38.0); /* 0*3 + 1*4 + 2*5 + 3*4 + 4*3 */
    assert_true(out[0] == 22.0); /* 1*5 + 2*4 + 3*3 */
    assert_true(out[6] == 74.0); /* 5*3 + 6*4 + 7*5 */
}

static void reference_is_correlation_not_convolution(void **state)
{
    (void)state;
    /* An asymmetric mask tells the two apart: P[i] = N[i-1]*M[0] + ... */
    const float n[3] = {0, 1, 0};
    const float m[3] = {1, 2, 3};
    clconv_problem p = support_problem(1, 3, 1, 1, 3, 1, CLCONV_NAIVE);
    double out[3];
    assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
    assert_true(out[0] == 3.0 && out[1] == 2.0 && out[2] == 1.0);
}

static void reference_counts_3d_neighbours_with_a_ones_mask(void **state)
{
    (void)state;
    float n[27], m[27];
    for (int i = 0; i < 27; ++i)
        n[i] = m[i] = 1.0f;
    clconv_problem p = support_problem(3, 3, 3, 3, 3, 1, CLCONV_NAIVE);
    double out[27];
    assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
    assert_true(out[13] == 27.0); /* centre: the whole cube */
    assert_true(out[0] == 8.0);   /* corner: 2x2x2 inside */
    assert_true(out[1] == 12.0);  /* edge: 3x2x2 */
    assert_true(out[4] == 18.0);  /* face centre: 3x3x2 */
}

static void reference_with_unequal_extents_indexes_x_fastest(void **state)
{
    (void)state;
    /* 4 wide, 2 high: a 1-wide mask scales each element in place. */
    const float n[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float m[1] = {2};
    clconv_problem p = support_problem(2, 4, 2, 1, 1, 1, CLCONV_NAIVE);
    double out[8];
    assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
    for (int i = 0; i < 8; ++i)
        assert_true(out[i] == 2.0 * n[i]);
}

/* scipy.ndimage.correlate1d([1, 2, 3, 4, 5], [1, 2, 3, 4], mode=...):
 * the even mask centred at W//2 = 2, so output i reads i-2 .. i+1. Values
 * computed with SciPy 1.10. */
static void reference_matches_scipy_for_every_mode_with_an_even_mask(
    void **state)
{
    (void)state;
    const float n[5] = {1, 2, 3, 4, 5};
    const float m[4] = {1, 2, 3, 4};
    static const double want[CLCONV_BORDER_COUNT][5] = {
        {14, 21, 30, 40, 30}, /* constant, cval 1 */
        {14, 21, 30, 40, 46}, /* nearest */
        {15, 21, 30, 40, 46}, /* reflect */
        {18, 22, 30, 40, 42}, /* mirror */
        {25, 25, 30, 40, 30}, /* wrap */
    };
    for (int b = 0; b < CLCONV_BORDER_COUNT; ++b) {
        clconv_problem p = support_problem(1, 5, 1, 1, 4, 1, CLCONV_NAIVE);
        p.border = (clconv_border)b;
        p.cval = 1.0;
        double out[5];
        assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
        for (int i = 0; i < 5; ++i)
            assert_true(out[i] == want[b][i]);
    }
}

/* A mask wider than the data: SciPy repeats the folds (correlate1d([1, 2],
 * ones(7), mode=...) sums 7 folded elements). */
static void reference_folds_a_mask_wider_than_the_data(void **state)
{
    (void)state;
    const float n[2] = {1, 2};
    const float m[7] = {1, 1, 1, 1, 1, 1, 1};
    static const double want[CLCONV_BORDER_COUNT][2] = {
        {3, 3}, {10, 11}, {11, 10}, {11, 10}, {11, 10}};
    for (int b = 0; b < CLCONV_BORDER_COUNT; ++b) {
        clconv_problem p = support_problem(1, 2, 1, 1, 7, 1, CLCONV_NAIVE);
        p.border = (clconv_border)b;
        double out[2];
        assert_int_equal(clconv_reference(&p, n, m, out, NULL), CLCONV_OK);
        assert_true(out[0] == want[b][0] && out[1] == want[b][1]);
    }
}

/* origin shifts the window: SciPy's correlate1d(x, [1, 0, 0], origin=1)
 * reads i-2 (positive origins move the mask to the left); convolve flips
 * the mask and mirrors the origin, an even one shifted once more. */
static void reference_shifts_by_origin_and_convolve_flips(void **state)
{
    (void)state;
    const float n[5] = {1, 2, 3, 4, 5};
    const float first[3] = {1, 0, 0};
    clconv_problem p = support_problem(1, 5, 1, 1, 3, 1, CLCONV_NAIVE);
    p.origin[0] = 1;
    double out[5];
    assert_int_equal(clconv_reference(&p, n, first, out, NULL), CLCONV_OK);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 1 && out[3] == 2 &&
                out[4] == 3);
    /* SciPy 1.10: convolve1d([1, 2, 3, 4, 5], [1, 2, 3, 4], mode='constant')
     * is 10 20 30 34 31. */
    const float m4[4] = {1, 2, 3, 4};
    clconv_problem c = support_problem(1, 5, 1, 1, 4, 1, CLCONV_NAIVE);
    c.flip = 1;
    assert_int_equal(clconv_reference(&c, n, m4, out, NULL), CLCONV_OK);
    assert_true(out[0] == 10 && out[1] == 20 && out[2] == 30 && out[3] == 34 &&
                out[4] == 31);
    /* Out of range: origin 2 for a mask 4 wide (max (4-1)/2 = 1). */
    c.origin[0] = 2;
    assert_int_equal(clconv_reference(&c, n, m4, out, NULL), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "origin"));
}

/* The reference at chosen outputs (bench --suite large's check) is the
 * whole reference's value there, bit for bit, in every mode, with a
 * cval, per-axis even and odd widths wider than the data, origins and
 * convolution. */
static void reference_at_chosen_outputs_equals_the_whole_reference(
    void **state)
{
    (void)state;
    clconv_problem p = support_problem(3, 5, 4, 3, 1, 1, CLCONV_NAIVE);
    p.mask_size[0] = 7, p.mask_size[1] = 2, p.mask_size[2] = 3;
    p.origin[0] = 3, p.origin[1] = -1;
    p.flip = 1;
    float in[60], mask[42];
    clconv_fill_random(in, 60, 1);
    clconv_fill_random(mask, 42, 2);
    size_t idx[60];
    for (size_t k = 0; k < 60; ++k)
        idx[k] = (k * 37) % 60;
    for (int mode = 0; mode <= CLCONV_BORDER_COUNT; ++mode) {
        p.border = mode < CLCONV_BORDER_COUNT ? (clconv_border)mode
                                              : CLCONV_BORDER_CONSTANT;
        p.cval = mode < CLCONV_BORDER_COUNT ? 0.0 : -0.75;
        double whole[60], wmag[60], at[60], amag[60];
        assert_int_equal(clconv_reference(&p, in, mask, whole, wmag),
                         CLCONV_OK);
        assert_int_equal(clconv_reference_at(&p, in, mask, idx, 60, at, amag),
                         CLCONV_OK);
        for (size_t k = 0; k < 60; ++k) {
            assert_true(at[k] == whole[idx[k]]);
            assert_true(amag[k] == wmag[idx[k]]);
        }
    }
}

static void verify_rejects_nan_and_accepts_rounding_within_the_bound(
    void **state)
{
    (void)state;
    clconv_problem p = support_problem(1, 3, 1, 1, 3, 1, CLCONV_NAIVE);
    const double expected[3] = {1.0, 2.0, 3.0};
    const double mag[3] = {1.0, 2.0, 3.0};
    float got[3] = {1.0f, 2.0f + 2.0f * 1.1920929e-07f, NAN};
    clconv_verdict v;
    clconv_verify(&p, got, expected, mag, &v);
    assert_false(v.ok);
    assert_int_equal(v.failures, 1);
    assert_int_equal(v.worst_index, 2);
    got[2] = 3.0f;
    clconv_verify(&p, got, expected, mag, &v);
    assert_true(v.ok);
    /* An error beyond 4 * W * eps * sum|N*M| fails. */
    got[0] = 1.0f + 16.0f * 1.1920929e-07f;
    clconv_verify(&p, got, expected, mag, &v);
    assert_false(v.ok);
}

static void random_fill_is_reproducible_and_within_minus_one_to_one(
    void **state)
{
    (void)state;
    float a[1000], b[1000];
    clconv_fill_random(a, 1000, 42);
    clconv_fill_random(b, 1000, 42);
    assert_memory_equal(a, b, sizeof a);
    int negative = 0;
    for (int i = 0; i < 1000; ++i) {
        assert_true(a[i] >= -1.0f && a[i] <= 1.0f);
        negative += a[i] < 0;
    }
    assert_true(negative > 400 && negative < 600);
    clconv_fill_random(b, 1000, 43);
    assert_true(memcmp(a, b, sizeof a) != 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_gives_321_for_the_notes_2d_example),
        cmocka_unit_test(reference_treats_ghost_cells_as_zero_at_the_2d_corner),
        cmocka_unit_test(
            reference_matches_the_textbook_1d_example_with_a_ghost_cell),
        cmocka_unit_test(reference_is_correlation_not_convolution),
        cmocka_unit_test(
            reference_at_chosen_outputs_equals_the_whole_reference),
        cmocka_unit_test(reference_counts_3d_neighbours_with_a_ones_mask),
        cmocka_unit_test(reference_with_unequal_extents_indexes_x_fastest),
        cmocka_unit_test(
            reference_matches_scipy_for_every_mode_with_an_even_mask),
        cmocka_unit_test(reference_folds_a_mask_wider_than_the_data),
        cmocka_unit_test(reference_shifts_by_origin_and_convolve_flips),
        cmocka_unit_test(
            verify_rejects_nan_and_accepts_rounding_within_the_bound),
        cmocka_unit_test(
            random_fill_is_reproducible_and_within_minus_one_to_one),
    };
    return cmocka_run_group_tests_name("reference", tests, NULL, NULL);
}
