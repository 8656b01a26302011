/* One problem over several devices (clconv_convolve_split): with every
 * device $CLCONV_DEVICE selects (at least two; PoCL gives two with
 * POCL_DEVICES="pthread pthread", as test/multi_device.sh runs it), splits
 * in any proportion, measured weights included, give bit for bit the
 * result of the first device alone when the devices run the same variant,
 * in every element type (and a typed part, clconv_convolve_part); shapes
 * that differ, weights that sum to nothing and a session given
 * twice are refused. Skipped with one device. */
#include <float.h>
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

#define MAXDEV 8

typedef struct fixture {
    clconv_device_list list;
    size_t n;
    clconv_session *s[MAXDEV];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    size_t sel[64];
    if (!f || clconv_devices_discover(&f->list) != CLCONV_OK ||
        f->list.count > 64 ||
        clconv_devices_select(&f->list, getenv("CLCONV_DEVICE"), sel, &f->n) !=
            CLCONV_OK)
        return -1;
    if (f->n > MAXDEV)
        f->n = MAXDEV;
    for (size_t i = 0; i < f->n; ++i)
        if (clconv_session_create(&f->list.devices[sel[i]], &f->s[i]) !=
            CLCONV_OK)
            return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < f->n; ++i)
        clconv_session_destroy(f->s[i]);
    clconv_devices_free(&f->list);
    free(f);
    return 0;
}

static void need_two(const fixture *f)
{
    if (f->n < 2) {
        printf("split: SKIP, one device (POCL_DEVICES=\"pthread pthread\" "
               "gives two)\n");
        skip();
    }
}

/* The same problem as each device runs it: device 0's default variant on
 * every device (unless p names a strategy), so the parts are comparable
 * bit for bit. */
static void problems_of(const fixture *f, clconv_problem p,
                        clconv_problem *each)
{
    if (p.strategy == CLCONV_NAIVE)
        clconv_pick_default(clconv_session_device(f->s[0]), &p);
    for (size_t i = 0; i < f->n; ++i)
        each[i] = p;
}

static void check_split(fixture *f, clconv_problem p, const double *w)
{
    clconv_problem each[MAXDEV];
    problems_of(f, p, each);
    size_t n = clconv_problem_elements(&each[0]);
    size_t m = clconv_problem_mask_elements(&each[0]);
    float *in = malloc(n * 4), *mask = malloc(m * 4);
    float *want = malloc(n * 4), *got = malloc(n * 4);
    assert_non_null(in && mask && want && got);
    clconv_fill_random(in, n, 5);
    clconv_fill_random(mask, m, 6);
    assert_int_equal(clconv_convolve(f->s[0], &each[0], in, mask, want),
                     CLCONV_OK);
    double measured[MAXDEV];
    if (!w) {
        assert_int_equal(clconv_measure_weights(f->s, f->n, each, in, mask,
                                                measured),
                         CLCONV_OK);
        w = measured;
    }
    for (size_t i = 0; i < n; ++i)
        got[i] = NAN;
    clconv_call_info info;
    if (clconv_convolve_split(f->s, f->n, each, w, in, mask, got, &info) !=
        CLCONV_OK)
        fail_msg("%dD W=%d %s split: %s", p.dims, p.mask_width,
                 clconv_border_name(p.border), clconv_last_error());
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&got[i], &want[i], 4) != 0)
            fail_msg("%dD W=%d %s over %zu devices: element %zu is %.9g, "
                     "one device gives %.9g", p.dims, p.mask_width,
                     clconv_border_name(p.border), info.devices, i, got[i],
                     want[i]);
    printf("split: %dD W=%d: %zu devices, %zu slabs, weights %.3g:%.3g\n",
           p.dims, p.mask_width, info.devices, info.slabs, w[0], w[1]);
    free(in);
    free(mask);
    free(want);
    free(got);
}

static void any_proportion_equals_one_device(void **state)
{
    fixture *f = *state;
    need_two(f);
    const double even[MAXDEV] = {1, 1, 1, 1, 1, 1, 1, 1};
    const double skew[MAXDEV] = {3, 1, 1, 1, 1, 1, 1, 1};
    const double first_only[MAXDEV] = {1, 0, 0, 0, 0, 0, 0, 0};
    /* Finite weights whose sum overflows (their rows were NaN). */
    const double huge[MAXDEV] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX,
                                 DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
    const clconv_problem ps[] = {
        {.dims = 1, .size = {5000, 1, 1}, .mask_width = 9},
        {.dims = 2, .size = {131, 77, 1}, .mask_width = 5},
        {.dims = 3, .size = {29, 23, 19}, .mask_width = 3},
        {.dims = 2, .size = {40, 3, 1}, .mask_width = 7}, /* rows < halo */
    };
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; ++k) {
        check_split(f, ps[k], even);
        check_split(f, ps[k], skew);
        check_split(f, ps[k], first_only);
        check_split(f, ps[k], huge);
        check_split(f, ps[k], NULL);
        /* The modes that read beyond a part's rows at the axis' ends (wrap
         * was refused as not fitting before the parts gathered them). */
        for (int b = CLCONV_BORDER_REFLECT; b < CLCONV_BORDER_COUNT; ++b) {
            clconv_problem q = ps[k];
            q.border = (clconv_border)b;
            check_split(f, q, even);
            check_split(f, q, skew);
        }
    }
}

/* The 3D coarse kernel with 4 work-items along z sharing a work-group's
 * planes ($CLCONV_COARSE_GZ=4, 2 columns: GPUs' default at masks 3-5),
 * whose outputs at the work-items' boundaries add two partial sums at
 * planes counted from the launch's first: each device's launch starts
 * where one of the whole's work-groups does, so the split gives one
 * device's bits in any proportion (by up to 3e-7 apart before). */
static void planes_shared_split_equals_one_device(void **state)
{
    fixture *f = *state;
    need_two(f);
    clconv_session *kept[MAXDEV];
    memcpy(kept, f->s, sizeof kept);
    setenv("CLCONV_COARSE_GZ", "4", 1);
    setenv("CLCONV_COARSE_XV", "2", 1);
    for (size_t i = 0; i < f->n; ++i)
        assert_int_equal(clconv_session_create(clconv_session_device(kept[i]),
                                               &f->s[i]),
                         CLCONV_OK);
    unsetenv("CLCONV_COARSE_GZ");
    unsetenv("CLCONV_COARSE_XV");
    const double even[MAXDEV] = {1, 1, 1, 1, 1, 1, 1, 1};
    const double skew[MAXDEV] = {3, 1, 1, 1, 1, 1, 1, 1};
    for (int b = 0; b < CLCONV_BORDER_COUNT; ++b) {
        clconv_problem p = {.dims = 3, .size = {64, 40, 70}, .mask_width = 5,
                            .strategy = CLCONV_COARSE,
                            .border = (clconv_border)b, .cval = 0.25};
        check_split(f, p, b % 2 ? skew : even);
    }
    for (size_t i = 0; i < f->n; ++i)
        clconv_session_destroy(f->s[i]);
    memcpy(f->s, kept, sizeof kept);
}

/* Elements of type t from random floats: the integer types' range
 * spanned, f16 through the library's own rounding. */
static void *typed_input(clconv_elem t, size_t n)
{
    float *f = malloc(n * sizeof *f);
    void *x = malloc(n * clconv_elem_size(t));
    assert_non_null(f && x);
    clconv_fill_random(f, n, 7);
    const float span = t == CLCONV_ELEM_U8    ? 300.0f
                       : t == CLCONV_ELEM_F16 ? 40.0f
                                              : 70000.0f;
    for (size_t i = 0; i < n; ++i)
        f[i] *= span;
    clconv_elems_from_float(t, f, n, x);
    free(f);
    return x;
}

/* The narrow types over several devices (a split took float32 only), and
 * a part of a typed problem (clconv_convolve_part): bit for bit one
 * device's whole call, each type out as itself (rounded and saturated)
 * or as float32; f16 through float32 on a device without cl_khr_fp16. */
static void typed_split_and_parts_equal_one_device(void **state)
{
    fixture *f = *state;
    need_two(f);
    const clconv_elem types[] = {CLCONV_ELEM_U8, CLCONV_ELEM_U16,
                                 CLCONV_ELEM_I16, CLCONV_ELEM_F16};
    const double skew[MAXDEV] = {3, 1, 1, 1, 1, 1, 1, 1};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) {
        for (int same = 0; same < 2; ++same) {
            clconv_problem p = {.dims = 2, .size = {93, 61, 1},
                                .mask_width = 5, .in_dtype = types[k],
                                .out_dtype = same ? types[k]
                                                  : CLCONV_ELEM_F32,
                                .border = k % 2 ? CLCONV_BORDER_WRAP
                                                : CLCONV_BORDER_REFLECT};
            clconv_problem each[MAXDEV];
            problems_of(f, p, each);
            const size_t n = clconv_problem_elements(&p), osz =
                clconv_elem_size(p.out_dtype);
            void *in = typed_input(p.in_dtype, n);
            float mask[25];
            clconv_fill_random(mask, 25, 8);
            unsigned char *want = malloc(n * osz), *got = malloc(n * osz);
            assert_non_null(want && got);
            assert_int_equal(clconv_convolve_typed(f->s[0], &each[0], in, mask,
                                                   want, NULL),
                             CLCONV_OK);
            memset(got, 0xa5, n * osz);
            if (clconv_convolve_split(f->s, f->n, each, skew, in, mask, got,
                                      NULL) != CLCONV_OK)
                fail_msg("%s to %s split: %s", clconv_elem_name(p.in_dtype),
                         clconv_elem_name(p.out_dtype), clconv_last_error());
            assert_memory_equal(got, want, n * osz);
            /* Rows 20-45 of the whole, from a part holding rows 10-55. */
            const size_t row = p.size[0];
            const size_t isz = clconv_elem_size(p.in_dtype);
            clconv_problem part_p = each[0];
            part_p.size[1] = 45;
            const clconv_part part = {10, p.size[1]};
            memset(got, 0xa5, n * osz);
            if (clconv_convolve_part(f->s[0], &part_p, &part,
                                     (const unsigned char *)in + 10 * row * isz,
                                     mask, got, 10, 35, NULL) != CLCONV_OK)
                fail_msg("%s to %s part: %s", clconv_elem_name(p.in_dtype),
                         clconv_elem_name(p.out_dtype), clconv_last_error());
            assert_memory_equal(got + 10 * row * osz, want + 20 * row * osz,
                                25 * row * osz);
            printf("split: %s to %s over %zu devices and a part: one "
                   "device's bits\n", clconv_elem_name(p.in_dtype),
                   clconv_elem_name(p.out_dtype), f->n);
            free(in);
            free(want);
            free(got);
        }
    }
}

static void bad_splits_are_refused(void **state)
{
    fixture *f = *state;
    need_two(f);
    clconv_problem each[MAXDEV];
    problems_of(f, (clconv_problem){.dims = 2, .size = {16, 16, 1},
                                    .mask_width = 3}, each);
    float in[256] = {0}, mask[9] = {0}, out[256];
    const double zero[MAXDEV] = {0}, one[MAXDEV] = {1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(clconv_convolve_split(f->s, f->n, each, zero, in, mask,
                                           out, NULL),
                     CLCONV_EINVAL);
    each[1].size[1] = 15;
    assert_int_equal(clconv_convolve_split(f->s, f->n, each, one, in, mask,
                                           out, NULL),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "differ in shape"));
    each[1].size[1] = 16;
    clconv_session *twice[2] = {f->s[0], f->s[0]};
    assert_int_equal(clconv_convolve_split(twice, 2, each, one, in, mask, out,
                                           NULL),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "same session"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(any_proportion_equals_one_device),
        cmocka_unit_test(planes_shared_split_equals_one_device),
        cmocka_unit_test(typed_split_and_parts_equal_one_device),
        cmocka_unit_test(bad_splits_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
