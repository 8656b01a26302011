/* Element types (issue 17): names, sizes, and the host's conversions, the
 * same roundings the kernels make (cl/dtype.clh): to nearest with ties to
 * even, saturated for the integer types, to nearest for f16 (beyond its
 * range: inf). The verification and the f16 host fallback use them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const struct {
    const char *name;
    size_t size;
    double lo, hi; /* the integer types' range */
} dtypes[CLCONV_ELEM_COUNT] = {
    [CLCONV_ELEM_F32] = {"f32", 4, 0, 0},
    [CLCONV_ELEM_U8] = {"u8", 1, 0, 255},
    [CLCONV_ELEM_U16] = {"u16", 2, 0, 65535},
    [CLCONV_ELEM_I16] = {"i16", 2, -32768, 32767},
    [CLCONV_ELEM_F16] = {"f16", 2, 0, 0},
};

const char *clconv_elem_name(clconv_elem t)
{
    return (unsigned)t < CLCONV_ELEM_COUNT ? dtypes[t].name : "?";
}

size_t clconv_elem_size(clconv_elem t)
{
    return (unsigned)t < CLCONV_ELEM_COUNT ? dtypes[t].size : 0;
}

clconv_status clconv_elem_parse(const char *name, clconv_elem *out)
{
    if (!name || !out)
        return clc_fail(CLCONV_EINVAL, "no dtype name or result given (NULL)");
    for (int t = 0; t < CLCONV_ELEM_COUNT; ++t)
        if (strcmp(name, dtypes[t].name) == 0) {
            *out = (clconv_elem)t;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown dtype '%s' (u8, u16, i16, f16, f32)", name);
}

int clc_elem_is_int(clconv_elem t)
{
    return t == CLCONV_ELEM_U8 || t == CLCONV_ELEM_U16 ||
           t == CLCONV_ELEM_I16;
}

/* x rounded to the nearest binary16 value (ties to even), as a double:
 * 11 significant bits down to 2^-14, a quantum of 2^-24 below; from
 * 65520 on (half-way past 65504) inf. */
static double round_half(double x)
{
    if (isnan(x) || isinf(x))
        return x;
    if (fabs(x) >= 65520.0)
        return x > 0 ? INFINITY : -INFINITY;
    int e;
    frexp(x, &e); /* |x| = m 2^e, 0.5 <= m < 1 */
    const double quantum = ldexp(1.0, (e - 1 >= -14 ? e - 1 : -14) - 10);
    return rint(x / quantum) * quantum;
}

double clc_elem_round(clconv_elem t, double x)
{
    if (t == CLCONV_ELEM_F32)
        return (double)(float)x;
    if (t == CLCONV_ELEM_F16)
        return round_half(x);
    if (isnan(x)) /* convert_<T>_sat_rte makes NaN 0 */
        return 0.0;
    const double r = rint(x);
    return r < dtypes[t].lo ? dtypes[t].lo : r > dtypes[t].hi ? dtypes[t].hi
                                                              : r;
}

double clc_half_to_double(uint16_t h)
{
    const int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

uint16_t clc_half_from_double(double x)
{
    const double h = round_half(x);
    const uint16_t sign = signbit(h) ? 0x8000 : 0;
    const double a = fabs(h);
    if (isnan(h))
        return 0x7e00;
    if (isinf(h))
        return sign | 0x7c00;
    if (a < ldexp(1.0, -14)) /* subnormal (or 0): quanta of 2^-24 */
        return sign | (uint16_t)(a * 16777216.0);
    int e;
    const double m = frexp(a, &e); /* a = m 2^e, 0.5 <= m < 1 */
    return sign | (uint16_t)((e + 14) << 10) |
           (uint16_t)((m * 2.0 - 1.0) * 1024.0);
}

double clc_elem_get(clconv_elem t, const void *data, size_t i)
{
    switch (t) {
    case CLCONV_ELEM_U8:
        return ((const uint8_t *)data)[i];
    case CLCONV_ELEM_U16:
        return ((const uint16_t *)data)[i];
    case CLCONV_ELEM_I16:
        return ((const int16_t *)data)[i];
    case CLCONV_ELEM_F16:
        return clc_half_to_double(((const uint16_t *)data)[i]);
    default:
        return ((const float *)data)[i];
    }
}

void clc_elem_set(clconv_elem t, void *data, size_t i, double x)
{
    const double r = clc_elem_round(t, x);
    switch (t) {
    case CLCONV_ELEM_U8:
        ((uint8_t *)data)[i] = (uint8_t)r;
        break;
    case CLCONV_ELEM_U16:
        ((uint16_t *)data)[i] = (uint16_t)r;
        break;
    case CLCONV_ELEM_I16:
        ((int16_t *)data)[i] = (int16_t)r;
        break;
    case CLCONV_ELEM_F16:
        ((uint16_t *)data)[i] = clc_half_from_double(x);
        break;
    default:
        ((float *)data)[i] = (float)x;
    }
}

void clc_elem_to_float(clconv_elem t, const void *src, size_t n,
                        float *dst)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = (float)clc_elem_get(t, src, i);
}

void clconv_elems_from_float(clconv_elem t, const float *src, size_t n,
                             void *dst)
{
    for (size_t i = 0; src && dst && i < n; ++i)
        clc_elem_set(t, dst, i, src[i]);
}

/* f16 on a device without it: float32 on the device, the input converted
 * on the host before the call and the output after it. */
int clc_f16_on_host(const clconv_session *s, const clconv_problem *p)
{
    return !s->fp16 && (p->in_dtype == CLCONV_ELEM_F16 ||
                        p->out_dtype == CLCONV_ELEM_F16);
}

clconv_status clc_f32_view_open(const clconv_problem *p, const void *in,
                                void *out, clc_f32_view *v)
{
    const size_t n = clconv_problem_elements(p);
    v->q = *p;
    if (v->q.in_dtype == CLCONV_ELEM_F16)
        v->q.in_dtype = CLCONV_ELEM_F32;
    if (v->q.out_dtype == CLCONV_ELEM_F16)
        v->q.out_dtype = CLCONV_ELEM_F32;
    v->fin = v->q.in_dtype != p->in_dtype ? malloc(n ? n * sizeof(float) : 1)
                                          : NULL;
    v->fout = v->q.out_dtype != p->out_dtype
                  ? malloc(n ? n * sizeof(float) : 1)
                  : NULL;
    if ((v->q.in_dtype != p->in_dtype && !v->fin) ||
        (v->q.out_dtype != p->out_dtype && !v->fout)) {
        free(v->fin);
        free(v->fout);
        v->fin = v->fout = NULL;
        return clc_fail(CLCONV_ENOMEM, "out of memory (float32 copies of "
                        "f16 data, which the device does not have)");
    }
    if (v->fin)
        clc_elem_to_float(p->in_dtype, in, n, v->fin);
    v->in = v->fin ? (const void *)v->fin : in;
    v->out = v->fout ? (void *)v->fout : out;
    return CLCONV_OK;
}

void clc_f32_view_close(clc_f32_view *v, const clconv_problem *p, void *out,
                        size_t first, size_t count, clconv_status st)
{
    if (st == CLCONV_OK && v->fout)
        clconv_elems_from_float(p->out_dtype, v->fout + first, count,
                                (unsigned char *)out +
                                    first * clconv_elem_size(p->out_dtype));
    free(v->fin);
    free(v->fout);
    v->fin = v->fout = NULL;
}

clconv_status clc_convolve_via_f32(clconv_session *s, const clconv_problem *p,
                                   const void *in, const float *mask,
                                   void *out, clconv_call_info *info)
{
    clc_f32_view v;
    clconv_status st = clc_f32_view_open(p, in, out, &v);
    if (st != CLCONV_OK)
        return st;
    st = clconv_convolve_typed(s, &v.q, v.in, mask, v.out, info);
    clc_f32_view_close(&v, p, out, 0, clconv_problem_elements(p), st);
    return st;
}
