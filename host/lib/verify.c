/* Verification against the reference, and reproducible random data. */
#include <float.h>
#include <math.h>

#include "internal.h"

/* An absolute floor under the relative bound, for outputs whose terms are
 * all 0 (got must then be 0 too, up to this). */
#define CLC_ABS_FLOOR 1e-30

/* A verification given nothing to compare (p, got, expected or abs_sum
 * NULL) fails, never passes silently, with the reason in
 * clconv_last_error(); with v NULL there is no verdict to give. 1 when
 * refused. */
static int nothing_to_verify(const clconv_problem *p, const void *got,
                             const double *expected, const double *abs_sum,
                             clconv_verdict *v)
{
    if (v && p && got && expected && abs_sum)
        return 0;
    if (v)
        *v = (clconv_verdict){.ok = 0, .max_err = INFINITY};
    clc_fail(CLCONV_EINVAL, "verify: no problem, output, reference, bound "
                            "or verdict given (NULL)");
    return 1;
}

void clconv_verify(const clconv_problem *p, const float *got,
                   const double *expected, const double *abs_sum,
                   clconv_verdict *v)
{
    double scale, floor;
    clconv_verify_bound(p, CLCONV_METHOD_DIRECT, NULL, NULL, &scale, &floor);
    clconv_verify_with(p, got, expected, abs_sum, scale, floor, v);
}

static double max_abs(const float *x, size_t n, int sum)
{
    double r = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double a = fabs((double)x[i]);
        r = sum ? r + a : (a > r ? a : r);
    }
    return r;
}

void clconv_verify_bound(const clconv_problem *p, clconv_method m,
                         const float *in, const float *mask, double *scale,
                         double *floor)
{
    if (!scale || !floor)
        return;
    *scale = *floor = 0.0; /* no problem: no bound */
    if (!p)
        return;
    const double taps = (double)clconv_problem_mask_elements(p);
    *scale = 4.0 * taps;
    *floor = 0.0;
    if (m == CLCONV_METHOD_SEPARABLE) { /* a sum of W terms per axis */
        int widths = 0;
        for (int a = 0; a < p->dims; ++a)
            widths += clconv_problem_mask_axis(p, a);
        *scale = 4.0 * (widths + CLCONV_SEPARABLE_TOL);
    }
    if (m == CLCONV_METHOD_FFT && in && mask) {
        /* The transform's range is the padded array's: the data's, and
         * in constant mode cval's. */
        double range = max_abs(in, clconv_problem_elements(p), 0);
        if (p->border == CLCONV_BORDER_CONSTANT && fabs(p->cval) > range)
            range = fabs(p->cval);
        *floor = CLCONV_FFT_BOUND * log2(clc_fft_padded_elements(p)) *
                 (double)FLT_EPSILON * range * max_abs(mask, (size_t)taps, 1);
    }
}

/* Count element i (error err, err/bound ratio) into the verdict. */
static void tally(clconv_verdict *v, size_t i, double g, double e, double err,
                  double ratio, double *worst_ratio)
{
    if (ratio > 1.0)
        v->failures++;
    if (err > v->max_err)
        v->max_err = err;
    if (ratio > *worst_ratio) {
        *worst_ratio = ratio;
        v->worst_index = i;
        v->worst_got = g;
        v->worst_expected = e;
    }
}

void clconv_verify_with(const clconv_problem *p, const float *got,
                        const double *expected, const double *abs_sum,
                        double scale_eps, double floor, clconv_verdict *v)
{
    if (nothing_to_verify(p, got, expected, abs_sum, v))
        return;
    const size_t n = clconv_problem_elements(p);
    const double scale = scale_eps * (double)FLT_EPSILON;
    double worst_ratio = -1.0;
    v->ok = 1;
    v->failures = 0;
    v->worst_index = 0;
    v->worst_got = n ? got[0] : 0.0;
    v->worst_expected = n ? expected[0] : 0.0;
    v->max_err = 0.0;
    v->nonfinite = 0;
    v->overflowed = 0;
    for (size_t i = 0; i < n; ++i) {
        const double g = got[i], e = expected[i];
        double err, ratio;
        if (isnan(e) || isinf(e)) {
            /* Non-finite reference: the double reference of finite float
             * data is finite, so the input or mask holds NaN/Inf. The device
             * must produce the same class of value; counted, so that the
             * caller can say so. */
            int same = isnan(e) ? isnan(g) : (g == e);
            err = same ? 0.0 : INFINITY;
            ratio = same ? 0.0 : INFINITY;
            v->nonfinite++;
        } else if (isinf(g) && (g > 0) == (e > 0) &&
                   fabs(e) + scale * abs_sum[i] > FLT_MAX) {
            /* The exact result is (within the bound) beyond float32: inf
             * of its sign is the float answer, not an error. */
            err = 0.0;
            ratio = 0.0;
            v->overflowed++;
        } else if (isnan(g) || isinf(g)) {
            err = INFINITY;
            ratio = INFINITY;
        } else {
            const double bound = scale * abs_sum[i] + floor + CLC_ABS_FLOOR;
            err = fabs(g - e);
            ratio = err / bound;
        }
        tally(v, i, g, e, err, ratio, &worst_ratio);
    }
    v->ok = v->failures == 0;
}

/* One element of a rounded output type (clconv_verify_typed): the
 * device's float result lies within the bound of the reference e, and the
 * type rounds (and saturates) monotonically, so got must lie between the
 * rounded ends of that interval: 0.5 ulp of the type plus the float
 * bound, and a result saturated at both ends must equal the saturated
 * reference. A non-finite reference must give what the type makes of it
 * (convert_<T>_sat_rte: NaN 0, inf saturated). Returns err/bound, 0 when
 * inside, > 1 outside; *err is |got - the rounded reference|. */
static double typed_ratio(clconv_elem t, double g, double e, double bound,
                          double *err)
{
    const double r = clc_elem_round(t, e);
    *err = isnan(g) ? INFINITY : g == r ? 0.0 : fabs(g - r);
    if (isnan(e) || isinf(e))
        return (isnan(r) ? isnan(g) : g == r) ? 0.0 : INFINITY;
    const double lo = clc_elem_round(t, e - bound),
                 hi = clc_elem_round(t, e + bound);
    if (isnan(g))
        return INFINITY;
    return g >= lo && g <= hi ? 0.0 : 1.0 + *err;
}

void clconv_verify_typed(const clconv_problem *p, const void *got,
                         const double *expected, const double *abs_sum,
                         double scale_eps, double floor, clconv_verdict *v)
{
    if (nothing_to_verify(p, got, expected, abs_sum, v))
        return;
    if (p->out_dtype == CLCONV_ELEM_F32) {
        clconv_verify_with(p, got, expected, abs_sum, scale_eps, floor, v);
        return;
    }
    const size_t n = clconv_problem_elements(p);
    const double scale = scale_eps * (double)FLT_EPSILON;
    double worst_ratio = -1.0;
    *v = (clconv_verdict){.ok = 1};
    for (size_t i = 0; i < n; ++i) {
        const double g = clc_elem_get(p->out_dtype, got, i), e = expected[i];
        double err;
        const double ratio =
            typed_ratio(p->out_dtype, g, e,
                        scale * abs_sum[i] + floor + CLC_ABS_FLOOR, &err);
        v->nonfinite += isnan(e) || isinf(e);
        tally(v, i, g, e, err, ratio, &worst_ratio);
    }
    v->ok = v->failures == 0;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void clconv_fill_random(float *x, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; x && i < n; ++i) {
        /* 24 random bits -> [0, 1] -> [-1, 1], exact in float. */
        uint64_t bits = splitmix64(&state) >> 40;
        x[i] = (float)((double)bits / (double)((1u << 24) - 1) * 2.0 - 1.0);
    }
}

void clconv_fill_separable(const clconv_problem *p, float *mask,
                           uint64_t seed)
{
    if (!mask || !clc_mask_axes_fit(p))
        return;
    float f[3][CLC_MASK_MAX_WIDTH];
    const size_t w[3] = {(size_t)clconv_problem_mask_axis(p, 0),
                         (size_t)clconv_problem_mask_axis(p, 1),
                         (size_t)clconv_problem_mask_axis(p, 2)};
    for (int a = 0; a < p->dims; ++a)
        clconv_fill_random(f[a], w[a],
                           seed + 0x5e9a7ab1eULL * (uint64_t)(a + 1));
    const size_t m = clconv_problem_mask_elements(p);
    for (size_t i = 0; i < m; ++i) {
        double v = f[0][i % w[0]];
        if (p->dims > 1)
            v *= f[1][i / w[0] % w[1]];
        if (p->dims > 2)
            v *= f[2][i / (w[0] * w[1])];
        mask[i] = (float)v;
    }
}
