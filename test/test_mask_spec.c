/* Mask specs: the named masks hold the textbook values, inline lists keep
 * their order (x fastest), and every malformed spec is refused with a line
 * that says what is wrong. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv_io.h"

typedef struct named_case {
    const char *spec;
    int dims, width;
    float values[27];
} named_case;

/* Rows are y (top to bottom), columns x: values[y * W + x]. */
static const named_case named_cases[] = {
    {"sobel-x", 2, 3, {-1, 0, 1, -2, 0, 2, -1, 0, 1}},
    {"sobel-y", 2, 3, {-1, -2, -1, 0, 0, 0, 1, 2, 1}},
    {"laplacian", 2, 3, {0, 1, 0, 1, -4, 1, 0, 1, 0}},
    {"sharpen", 2, 3, {0, -1, 0, -1, 5, -1, 0, -1, 0}},
    {"emboss", 2, 3, {-2, -1, 0, -1, 1, 1, 0, 1, 2}},
    {"laplacian", 1, 3, {1, -2, 1}},
    {"sobel-x", 1, 3, {-1, 0, 1}},
    {"sharpen", 3, 3, {0, 0, 0, 0, -1, 0, 0, 0, 0,
                       0, -1, 0, -1, 7, -1, 0, -1, 0,
                       0, 0, 0, 0, -1, 0, 0, 0, 0}},
    {"sobel-z", 3, 3, {-1, -2, -1, -2, -4, -2, -1, -2, -1,
                       0, 0, 0, 0, 0, 0, 0, 0, 0,
                       1, 2, 1, 2, 4, 2, 1, 2, 1}},
    {"box:3", 2, 3, {1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9, 1.f / 9,
                     1.f / 9, 1.f / 9, 1.f / 9}},
    {"1,2,1", 1, 3, {1, 2, 1}},
    {"1", 3, 1, {1}},
    {" 1 , 2,3;4 ,5, 6 ;7,8,-9e0 ", 2, 3, {1, 2, 3, 4, 5, 6, 7, 8, -9}},
    {"0,1,0; 1,-4,1; 0,1,0", 2, 3, {0, 1, 0, 1, -4, 1, 0, 1, 0}},
    {"1,2,3,4,5,6,7,8,9", 2, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}},
};

static void named_and_inline_masks_hold_their_textbook_values(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof named_cases / sizeof named_cases[0]; ++k) {
        const named_case *c = &named_cases[k];
        clconv_mask m;
        if (clconv_mask_spec_parse(c->spec, c->dims, &m) != CLCONV_OK)
            fail_msg("'%s' %dD: %s", c->spec, c->dims, clconv_last_error());
        assert_int_equal(m.dims, c->dims);
        assert_int_equal(m.width, c->width);
        size_t n = 1;
        for (int d = 0; d < c->dims; ++d)
            n *= (size_t)c->width;
        for (size_t i = 0; i < n; ++i)
            if (fabsf(m.values[i] - c->values[i]) > 1e-7f)
                fail_msg("'%s' %dD value %zu: got %g expected %g", c->spec,
                         c->dims, i, m.values[i], c->values[i]);
        clconv_mask_free(&m);
    }
}

static void gaussian_masks_are_normalised_symmetric_and_peaked(void **state)
{
    (void)state;
    const char *specs[] = {"gaussian:5", "gaussian:7:0.8", "gaussian:3:10"};
    for (int dims = 1; dims <= 3; ++dims)
        for (size_t k = 0; k < 3; ++k) {
            clconv_mask m;
            assert_int_equal(clconv_mask_spec_parse(specs[k], dims, &m),
                             CLCONV_OK);
            size_t n = 1;
            for (int d = 0; d < dims; ++d)
                n *= (size_t)m.width;
            double sum = 0;
            for (size_t i = 0; i < n; ++i) {
                sum += m.values[i];
                /* Symmetric through the centre. */
                assert_float_equal(m.values[i], m.values[n - 1 - i], 1e-7);
                assert_true(m.values[i] <= m.values[n / 2]);
            }
            assert_float_equal(sum, 1.0, 1e-5);
            /* sigma 0.8 vs 10: the wide one is nearly flat. */
            if (k == 2)
                assert_float_equal(m.values[0], m.values[n / 2],
                                   0.02 * m.values[n / 2]);
            clconv_mask_free(&m);
        }
    /* Along x, a 2D Gaussian is the 1D one times the centre row weight. */
    clconv_mask g1, g2;
    assert_int_equal(clconv_mask_spec_parse("gaussian:5:1.3", 1, &g1), CLCONV_OK);
    assert_int_equal(clconv_mask_spec_parse("gaussian:5:1.3", 2, &g2), CLCONV_OK);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x)
            assert_float_equal(g2.values[y * 5 + x], g1.values[x] * g1.values[y],
                               1e-7);
    clconv_mask_free(&g1);
    clconv_mask_free(&g2);
}

/* sigma^2 underflows (once an all-NaN mask) or overflows: the limits are
 * well-defined masks, the identity and the box, every value finite. */
static void extreme_sigmas_give_the_identity_or_the_box(void **state)
{
    (void)state;
    const char *tiny[] = {"gaussian:5:1e-200", "gaussian:5:1e-320",
                          "gaussian:5:1e-400", "gaussian:3:1e-30"};
    const char *huge[] = {"gaussian:5:1e308", "gaussian:3:1e200",
                          "gaussian:5:1.7e308"};
    for (int dims = 1; dims <= 3; ++dims)
        for (size_t k = 0; k < 7; ++k) {
            int is_tiny = k < 4;
            const char *spec = is_tiny ? tiny[k] : huge[k - 4];
            clconv_mask m;
            if (clconv_mask_spec_parse(spec, dims, &m) != CLCONV_OK)
                fail_msg("'%s' %dD: %s", spec, dims, clconv_last_error());
            size_t n = 1;
            for (int d = 0; d < dims; ++d)
                n *= (size_t)m.width;
            for (size_t i = 0; i < n; ++i) {
                float want = is_tiny ? (i == n / 2 ? 1.0f : 0.0f)
                                     : 1.0f / (float)n;
                if (!isfinite(m.values[i]) ||
                    fabsf(m.values[i] - want) > 1e-7f)
                    fail_msg("'%s' %dD value %zu: got %g expected %g", spec,
                             dims, i, m.values[i], want);
            }
            clconv_mask_free(&m);
        }
}

typedef struct bad_spec {
    const char *spec;
    int dims;
    const char *expect;
} bad_spec;

static const bad_spec bad_specs[] = {
    {"1,2,1", 2, "square mask"},
    {"1,2,3,4,5,6,7,8,9,10", 3, "cubic mask"},
    {"1,2;3,4,5;6,7,8", 2, "different lengths"},
    {"1,2,3,4,5,6,7,8,9;", 2, "not a finite number"},
    {"1,,2", 1, "not a finite number"},
    {"1,x,2", 1, "not a finite number"},
    {"nan,1,1", 1, "not a finite number"}, /* a list, not a name */
    {"inf;1", 2, "not a finite number"},
    {"1,nan,2", 1, "not a finite number"},
    {"1,1e999,2", 1, "not a finite number"},
    {"0x10", 1, "not a finite number"}, /* was a tap of 16 */
    {"1,0x1p1,1", 1, "not a finite number"},
    {"gaussian:5:0x1", 1, "not a number"},
    {"1,2,3;4,5,6;7,8,9;1,2,3;4,5,6;7,8,9;1,2,3;4,5,6;7,8", 3, "different lengths"},
    {"1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1", 3, "cubic"},
    {"1,2,3,4,5;6,7,8,9", 2, "different lengths"},
    {"sobel-y", 1, "along y"},
    {"sobel-z", 2, "along z"},
    {"blur", 2, "unknown mask"},
    {"box", 2, "needs a width"},
    {"gaussian:4", 2, "even: a gaussian is symmetric about a centre tap"},
    {"gaussian:5x4", 2, "even"},
    /* which axis, and what to give instead */
    {"gaussian:9x4:1.5", 2, "width 4 (axis 1) is even"},
    {"gaussian:3x4x5", 3, "(axis 1) is even"},
    {"gaussian:8x3", 2, "(axis 0) is even"},
    {"gaussian:9x4:1.5", 2, "; use 3 or 5"},
    {"box:0", 2, "integer in 1..1023"},
    {"box:-3", 2, "integer in 1..1023"},
    {"box:3x", 2, "integer in 1..1023"},
    {"box:3x0", 2, "integer in 1..1023"},
    {"box:3x3x3", 2, "3 widths for 2D"},
    {"box:3:1", 2, "only a width"},
    {"box:1025", 1, "integer in 1..1023"},
    {"box:301", 3, "too large"},
    {"gaussian:5:0", 2, "positive"},
    {"gaussian:5:-1", 2, "positive"},
    {"gaussian:5:inf", 2, "positive"},
    {"gaussian:5:1e999", 2, "positive finite"},
    {"gaussian:5:nan", 2, "not a number"},
    {"gaussian:5:", 2, "not a number"},
    {"gaussian:5:1x", 2, "not a number"},
    {"laplacian:5", 2, "no parameters"},
    /* a named mask with ',' or ';' is told how it is written (was "'box:5'
     * is not a finite number", parsed as a list) */
    {"box:5,3", 2, "NumPy's order: box:5x3"},
    {"gaussian:5;3", 2, "NumPy's order: gaussian:5x3"},
    {"gaussian:5:1,5", 2, "sigma '1,5' is not a number"},
    {"sobel-x,1", 2, "no parameters"},
    {"box,3", 2, "needs a width"},
    /* a path or - (was "'./k.txt' is not a finite number") */
    {"./k.txt", 2, "masks are read from .npy files"},
    {"/dev/stdin", 2, "not from other files"},
    {"-", 2, "not from standard input"},
    {"1/16,2/16,1/16", 1, "'1/16' is not a finite number"},
    {"", 2, "empty"},
};

static void malformed_specs_are_refused_with_their_reason(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_specs / sizeof bad_specs[0]; ++k) {
        const bad_spec *c = &bad_specs[k];
        clconv_mask m;
        clconv_status st = clconv_mask_spec_parse(c->spec, c->dims, &m);
        if (st != CLCONV_EINVAL || !strstr(clconv_last_error(), c->expect))
            fail_msg("'%s' %dD: status %d, '%s', expected '%s'", c->spec,
                     c->dims, (int)st, clconv_last_error(), c->expect);
        assert_null(m.values);
    }
}

/* SciPy takes any mask shape: even widths, anisotropic masks, inline
 * rows of any length, named masks per axis in NumPy's order. */
static void masks_take_any_shape_in_numpy_order(void **state)
{
    (void)state;
    static const struct {
        const char *spec;
        int dims, size[3]; /* x first */
    } ok[] = {
        {"1,1", 1, {2, 1, 1}},          {"1,1,1,1", 2, {2, 2, 1}},
        {"1,2,3,4,5,6,7,8", 3, {2, 2, 2}}, {"1,2,3;4,5,6", 2, {3, 2, 1}},
        {"box:4", 2, {4, 4, 1}},        {"box:5x3", 2, {3, 5, 1}},
        {"box:5x3x2", 3, {2, 3, 5}},    {"gaussian:7x3", 2, {3, 7, 1}},
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; ++k) {
        clconv_mask m;
        if (clconv_mask_spec_parse(ok[k].spec, ok[k].dims, &m) != CLCONV_OK)
            fail_msg("'%s': %s", ok[k].spec, clconv_last_error());
        for (int d = 0; d < 3; ++d)
            assert_int_equal(m.size[d], ok[k].size[d]);
        clconv_mask_free(&m);
    }
    /* box:5x3 is np.ones((5, 3)) / 15. */
    clconv_mask b;
    assert_int_equal(clconv_mask_spec_parse("box:5x3", 2, &b), CLCONV_OK);
    for (int i = 0; i < 15; ++i)
        assert_float_equal(b.values[i], 1.0f / 15.0f, 1e-7);
    clconv_mask_free(&b);
}

static void array_masks_must_match_the_data(void **state)
{
    (void)state;
    struct {
        int dims;
        size_t shape[3];
        int data_dims;
        const char *expect; /* NULL: accepted */
    } cases[] = {
        {2, {3, 3, 1}, 2, NULL},
        {3, {5, 5, 5}, 3, NULL},
        {1, {3, 1, 1}, 2, "is 1D but the data is 2D"},
        {2, {3, 5, 1}, 2, NULL},
        {3, {3, 3, 4}, 3, NULL},
        {2, {4, 4, 1}, 2, NULL},
        {2, {3, 1025, 1}, 2, "at most 1023"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        clconv_array a;
        assert_int_equal(clconv_array_alloc(&a, cases[k].dims, cases[k].shape),
                         CLCONV_OK);
        size_t n = clconv_array_elements(&a);
        for (size_t i = 0; i < n; ++i)
            a.data[i] = (float)i;
        clconv_mask m;
        clconv_status st = clconv_mask_from_array(&a, cases[k].data_dims, &m);
        if (!cases[k].expect) {
            assert_int_equal(st, CLCONV_OK);
            for (int d = 0; d < cases[k].dims; ++d) /* x first */
                assert_int_equal(m.size[d],
                                 (int)cases[k].shape[cases[k].dims - 1 - d]);
            /* C order is x fastest already: copied as is. */
            assert_memory_equal(m.values, a.data, n * sizeof(float));
        } else if (st != CLCONV_EINVAL ||
                   !strstr(clconv_last_error(), cases[k].expect)) {
            fail_msg("case %zu: status %d, '%s'", k, (int)st,
                     clconv_last_error());
        }
        clconv_mask_free(&m);
        clconv_array_free(&a);
    }
}

/* An anisotropic named mask holds exactly its values (a 5x2 box is 10,
 * checked without reading a 25-value cube past them: ASan sees it). */
static void an_anisotropic_named_mask_holds_its_own_values(void **state)
{
    (void)state;
    clconv_mask m = {0, 0, NULL, {0, 0, 0}};
    assert_int_equal(clconv_mask_load("box:5x2", 2, &m), CLCONV_OK);
    assert_int_equal(m.size[0], 2);
    assert_int_equal(m.size[1], 5);
    for (int k = 0; k < 10; ++k)
        assert_float_equal(m.values[k], 0.1f, 1e-7f);
    clconv_mask_free(&m);
    assert_int_equal(clconv_mask_load("box:3x1x2", 3, &m), CLCONV_OK);
    assert_int_equal(m.size[0] * m.size[1] * m.size[2], 6);
    clconv_mask_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_and_inline_masks_hold_their_textbook_values),
        cmocka_unit_test(gaussian_masks_are_normalised_symmetric_and_peaked),
        cmocka_unit_test(extreme_sigmas_give_the_identity_or_the_box),
        cmocka_unit_test(malformed_specs_are_refused_with_their_reason),
        cmocka_unit_test(masks_take_any_shape_in_numpy_order),
        cmocka_unit_test(array_masks_must_match_the_data),
        cmocka_unit_test(an_anisotropic_named_mask_holds_its_own_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
