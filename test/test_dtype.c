/* Element types at their edges (issue 17 item 4): integer outputs round
 * ties to even and saturate at both ends of their range on every strategy
 * and device, in 1D and 2D (the coarse kernel's vector loads and stores
 * too), exactly as OpenCV's saturate_cast; f16 converted on the host
 * (a device without cl_khr_fp16, forced with $CLCONV_FP16=0) gives the
 * device path's bits; the typed host-to-host call in slabs equals one
 * launch; the float entry points refuse typed problems with the reason. */
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

static void dtype_names_parse_back_and_unknown_ones_are_refused(void **state)
{
    (void)state;
    for (int t = 0; t < CLCONV_ELEM_COUNT; ++t) {
        clconv_elem back = CLCONV_ELEM_COUNT;
        assert_int_equal(clconv_elem_parse(clconv_elem_name((clconv_elem)t),
                                           &back),
                         CLCONV_OK);
        assert_int_equal(back, t);
    }
    assert_int_equal(clconv_elem_size(CLCONV_ELEM_U8), 1);
    assert_int_equal(clconv_elem_size(CLCONV_ELEM_F16), 2);
    clconv_elem e;
    assert_int_equal(clconv_elem_parse("u32", &e), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "u8, u16, i16, f16, f32"));
    clconv_problem p = support_problem(1, 8, 1, 1, 3, 0, CLCONV_NAIVE);
    p.in_dtype = CLCONV_ELEM_U8;
    p.out_dtype = CLCONV_ELEM_I16; /* neither f32 nor the input's */
    assert_int_equal(clconv_problem_validate(&p), CLCONV_EINVAL);
}

/* What OpenCV's saturate_cast makes of x for an integer type. */
static double saturate(double x, double lo, double hi)
{
    const double r = nearbyint(x); /* ties to even */
    return r < lo ? lo : r > hi ? hi : r;
}

/* 2D edges: a grid of EDGE_NX x EDGE_NY, wide and tall enough for the
 * coarse kernel's interior work-groups at any columns per work-item (its
 * vector loads and stores), element (x, y) the value v[(x + 37 y) % n]. */
enum { EDGE_NX = 1024, EDGE_NY = 40 };

/* Data of type t (values v[i]; 1D, or 2D as above) and a mask whose
 * centre is m and every other tap 0 (3 or 3x3): every output is its input
 * times m, rounded and saturated, on every strategy (2D: coarse and
 * vector, whose loads and stores convert whole vectors). */
static void check_edges(clconv_session *s, int dims, clconv_elem t,
                        const double *v, size_t nv, double m, double lo,
                        double hi, size_t shift)
{
    float mask[9] = {0.0f};
    mask[dims == 1 ? 1 : 4] = (float)m;
    const size_t n = dims == 1 ? nv : (size_t)EDGE_NX * EDGE_NY;
    const size_t size = clconv_elem_size(t);
    /* shift: the arrays start that many elements past an allocation's
     * start (a CPU device uses them in place, so its kernels see them
     * unaligned for a vector) */
    unsigned char *in_a = calloc(n + shift, size),
                  *out_a = calloc(n + shift, size);
    unsigned char *in = in_a + shift * size, *out = out_a + shift * size;
    double *x = malloc(n * sizeof *x);
    assert_non_null(in_a);
    assert_non_null(out_a);
    assert_non_null(x);
    for (size_t i = 0; i < n; ++i) {
        x[i] = dims == 1 ? v[i] : v[(i % EDGE_NX + 37 * (i / EDGE_NX)) % nv];
        if (t == CLCONV_ELEM_U8)
            in[i] = (unsigned char)x[i];
        else if (t == CLCONV_ELEM_U16)
            ((uint16_t *)in)[i] = (uint16_t)x[i];
        else
            ((int16_t *)in)[i] = (int16_t)x[i];
    }
    for (int st = 0; st < CLCONV_STRATEGY_COUNT; ++st) {
        /* 2D: the kernels that convert whole vectors */
        if (dims == 2 && st != CLCONV_COARSE && st != CLCONV_VECTOR)
            continue;
        clconv_problem p =
            dims == 1 ? support_problem(1, n, 1, 1, 3, 0, st)
                      : support_problem(2, EDGE_NX, EDGE_NY, 1, 3, 0, st);
        p.tile = st == CLCONV_NAIVE ? 16 : 0; /* naive itself, not default */
        p.method = CLCONV_METHOD_DIRECT; /* the mask is separable */
        if (dims == 2 && st == CLCONV_COARSE) /* interior work-groups */
            p.coarsen = 2, p.group_y = 2;
        p.in_dtype = p.out_dtype = t;
        memset(out, 0xa5, n * size);
        assert_int_equal(clconv_convolve_typed(s, &p, in, mask, out, NULL),
                         CLCONV_OK);
        for (size_t i = 0; i < n; ++i) {
            const double got = t == CLCONV_ELEM_U8 ? out[i]
                               : t == CLCONV_ELEM_U16
                                   ? ((uint16_t *)out)[i]
                                   : ((int16_t *)out)[i];
            const double want = saturate(x[i] * m, lo, hi);
            if (got != want)
                fail_msg("%dD %s %s x %g: element %zu (%g) got %g, want %g",
                         dims, clconv_strategy_name(st), clconv_elem_name(t),
                         m, i, x[i], got, want);
        }
    }
    free(in_a);
    free(out_a);
    free(x);
}

static void integer_outputs_round_ties_to_even_and_saturate(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    double u8[256], i16[301];
    for (int i = 0; i < 256; ++i)
        u8[i] = i;
    for (int i = 0; i < 301; ++i) /* both ends, the middle, odd values */
        i16[i] = i < 100   ? -32768 + i
                 : i < 200 ? -50 + (i - 100)
                           : 32767 - (i - 200);
    static const double scales[] = {0.5, 1.5, 2.0, -1.0, -0.5};
    /* 2D also at 4 and 16 columns per work-item of the coarse kernel
     * ($CLCONV_COARSE_XV, read when a session is made): its vector loads
     * and stores convert whole vectors. */
    static const char *const xv[] = {NULL, "4", "16"};
    for (size_t d = 0; d < f->n; ++d)
        for (int dims = 1; dims <= 2; ++dims)
            for (size_t j = 0; j < (dims == 1 ? 1 : 3); ++j) {
                clconv_session *s = f->sessions[d];
                if (xv[j]) {
                    setenv("CLCONV_COARSE_XV", xv[j], 1);
                    assert_int_equal(
                        clconv_session_create(support_device(f, d), &s),
                        CLCONV_OK);
                    unsetenv("CLCONV_COARSE_XV");
                }
                for (size_t k = 0; k < sizeof scales / sizeof *scales; ++k) {
                    /* 2D also one element off a vector's alignment */
                    const size_t shift = dims == 2 && k % 2;
                    check_edges(s, dims, CLCONV_ELEM_U8, u8, 256, scales[k],
                                0, 255, shift);
                    check_edges(s, dims, CLCONV_ELEM_I16, i16, 301,
                                scales[k], -32768, 32767, shift);
                    check_edges(s, dims, CLCONV_ELEM_U16, u8, 256,
                                scales[k] * 300.0, 0, 65535, shift);
                }
                if (xv[j])
                    clconv_session_destroy(s);
            }
}

/* clconv_elems_from_float (what clconv-mpi's --out-dtype same writes)
 * gives the bytes the kernels store: each narrow type's values times
 * scales that make ties, negative values and both saturations, computed
 * once to the type and once to float32 then converted on the host. */
static void host_conversion_gives_the_kernels_bytes(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    static const clconv_elem types[] = {CLCONV_ELEM_U8, CLCONV_ELEM_U16,
                                        CLCONV_ELEM_I16, CLCONV_ELEM_F16};
    static const float scales[] = {0.5f, 1.5f, -0.5f, 2.5f, 300.0f, -7.25f};
    enum { N = 600 };
    unsigned char in[N * 2], narrow[N * 2], host[N * 2];
    float wide[N];
    for (size_t d = 0; d < f->n; ++d)
        for (size_t ti = 0; ti < sizeof types / sizeof *types; ++ti) {
            const clconv_elem t = types[ti];
            for (int i = 0; i < N; ++i) {
                const int v = t == CLCONV_ELEM_I16 ? i * 109 - 32768 : i * 109;
                if (t == CLCONV_ELEM_U8)
                    in[i] = (unsigned char)(i % 256);
                else if (t == CLCONV_ELEM_F16) /* halves of 0.5 .. 2^15 */
                    ((uint16_t *)in)[i] = (uint16_t)(0x3800 + i * 14);
                else
                    ((uint16_t *)in)[i] = (uint16_t)v;
            }
            for (size_t k = 0; k < sizeof scales / sizeof *scales; ++k) {
                float mask[3] = {0.0f, scales[k], 0.0f};
                clconv_problem p = support_problem(1, N, 1, 1, 3, 0,
                                                   CLCONV_COARSE);
                p.method = CLCONV_METHOD_DIRECT;
                p.in_dtype = p.out_dtype = t;
                memset(narrow, 0xa5, sizeof narrow);
                assert_int_equal(clconv_convolve_typed(f->sessions[d], &p, in,
                                                       mask, narrow, NULL),
                                 CLCONV_OK);
                p.out_dtype = CLCONV_ELEM_F32;
                assert_int_equal(clconv_convolve_typed(f->sessions[d], &p, in,
                                                       mask, wide, NULL),
                                 CLCONV_OK);
                clconv_elems_from_float(t, wide, N, host);
                const size_t es = clconv_elem_size(t);
                for (int i = 0; i < N; ++i)
                    if (memcmp(host + es * i, narrow + es * i, es) != 0)
                        fail_msg("%s: %s x %g element %d: float %.9g, host "
                                 "0x%x, kernel 0x%x",
                                 support_device(f, d)->name,
                                 clconv_elem_name(t), scales[k], i, wide[i],
                                 es == 1 ? host[i] : ((uint16_t *)host)[i],
                                 es == 1 ? narrow[i]
                                         : ((uint16_t *)narrow)[i]);
            }
        }
}

/* A session on dev with $CLCONV_FP16 set to v (read at creation). */
static clconv_session *session_fp16(const clconv_device_info *dev,
                                    const char *v)
{
    clconv_session *s = NULL;
    setenv("CLCONV_FP16", v, 1);
    clconv_status st = clconv_session_create(dev, &s);
    unsetenv("CLCONV_FP16");
    assert_int_equal(st, CLCONV_OK);
    return s;
}

static void f16_converted_on_the_host_gives_the_device_paths_bits(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    const size_t n = 61 * 37;
    uint16_t *in = malloc(n * 2), *a = malloc(n * 2), *b = malloc(n * 2);
    float mask[25];
    assert_true(in && a && b);
    clconv_fill_random(mask, 25, 5);
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    clconv_fill_random(x, n, 6);
    for (size_t i = 0; i < n; ++i) /* finite halves of every binade */
        in[i] = (uint16_t)((uint32_t)((x[i] + 1.0f) * 15000.0f) & 0x7bff) |
                (x[i] < 0 ? 0x8000 : 0);
    for (size_t d = 0; d < f->n; ++d) {
        clconv_session *host = session_fp16(support_device(f, d), "0");
        clconv_session *dev = session_fp16(support_device(f, d), "1");
        for (int st = 0; st < CLCONV_STRATEGY_COUNT; ++st) {
            clconv_problem p = support_problem(2, 61, 37, 1, 5, 0, st);
            p.tile = st == CLCONV_NAIVE ? 8 : 0;
            p.border = CLCONV_BORDER_REFLECT;
            p.in_dtype = p.out_dtype = CLCONV_ELEM_F16;
            assert_int_equal(clconv_convolve_typed(host, &p, in, mask, a, NULL),
                             CLCONV_OK);
            assert_int_equal(clconv_convolve_typed(dev, &p, in, mask, b, NULL),
                             CLCONV_OK);
            if (memcmp(a, b, n * 2) != 0)
                fail_msg("%s: host-converted f16 differs from the device's",
                         clconv_strategy_name(st));
        }
        clconv_session_destroy(host);
        clconv_session_destroy(dev);
    }
    free(x);
    free(in);
    free(a);
    free(b);
}

/* u8 to u8 in slabs of 15 rows; u8 to f32 under a limit the input fits
 * and its float32 output, four times larger, does not (it ran in one
 * piece: a buffer past the session's limit, and EUNSUPPORTED where the
 * output passed the device's own maximum allocation). */
static void typed_calls_in_slabs_equal_one_launch(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    const size_t nx = 53, ny = 97, n = nx * ny;
    uint8_t *in = malloc(n);
    float mask[9], *x = malloc(n * sizeof *x);
    float *one = malloc(n * sizeof *one), *slabs = malloc(n * sizeof *slabs);
    assert_true(in && one && slabs && x);
    clconv_fill_random(x, n, 11);
    for (size_t i = 0; i < n; ++i)
        in[i] = (uint8_t)((x[i] + 1.0f) * 127.5f);
    clconv_fill_random(mask, 9, 12);
    for (int k = 0; k < 9; ++k)
        mask[k] = 0.1f + 0.05f * mask[k];
    static const clconv_elem outs[] = {CLCONV_ELEM_U8, CLCONV_ELEM_F32};
    static const char *limits[] = {"800", "8000"};
    for (size_t d = 0; d < f->n; ++d)
        for (int k = 0; k < 2; ++k) {
            clconv_problem p =
                support_problem(2, nx, ny, 1, 3, 0, CLCONV_NAIVE);
            p.in_dtype = CLCONV_ELEM_U8;
            p.out_dtype = outs[k];
            const size_t bytes = n * clconv_elem_size(p.out_dtype);
            clconv_call_info info;
            assert_int_equal(clconv_convolve_typed(f->sessions[d], &p, in,
                                                   mask, one, &info),
                             CLCONV_OK);
            setenv("CLCONV_MAX_ALLOC_BYTES", limits[k], 1);
            clconv_session *small = NULL;
            assert_int_equal(
                clconv_session_create(support_device(f, d), &small),
                CLCONV_OK);
            unsetenv("CLCONV_MAX_ALLOC_BYTES");
            assert_int_equal(clconv_convolve_typed(small, &p, in, mask, slabs,
                                                   &info),
                             CLCONV_OK);
            if (info.slabs < 2)
                fail_msg("u8 to %s under a limit of %s bytes (output %zu "
                         "bytes) ran in %zu piece(s)",
                         clconv_elem_name(p.out_dtype), limits[k], bytes,
                         info.slabs);
            assert_memory_equal(one, slabs, bytes);
            clconv_session_destroy(small);
        }
    free(in);
    free(one);
    free(slabs);
    free(x);
}

static void float_entry_points_refuse_typed_problems(void **state)
{
    support_devices *f = *state;
    SUPPORT_SKIP_WITHOUT_DEVICES(f);
    clconv_problem p = support_problem(1, 16, 1, 1, 3, 0, CLCONV_NAIVE);
    p.in_dtype = CLCONV_ELEM_U16;
    float in[16] = {0}, out[16], mask[3] = {1, 1, 1};
    assert_int_equal(clconv_convolve(f->sessions[0], &p, in, mask, out),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "clconv_convolve_typed"));
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(f->sessions[0], &p, mask,
                                                  &plan),
                     CLCONV_OK);
    assert_int_equal(clconv_plan_set_input(plan, in), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "_typed"));
    clconv_plan_destroy(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dtype_names_parse_back_and_unknown_ones_are_refused),
        cmocka_unit_test(integer_outputs_round_ties_to_even_and_saturate),
        cmocka_unit_test(host_conversion_gives_the_kernels_bytes),
        cmocka_unit_test(f16_converted_on_the_host_gives_the_device_paths_bits),
        cmocka_unit_test(typed_calls_in_slabs_equal_one_launch),
        cmocka_unit_test(float_entry_points_refuse_typed_problems),
    };
    return cmocka_run_group_tests(tests, support_devices_setup_or_skip,
                                  support_devices_teardown);
}
