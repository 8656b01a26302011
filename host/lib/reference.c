/* The double-precision CPU reference: scipy.ndimage.correlate (or, with
 * flip, convolve) with every border mode, per-axis widths and origins. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

long clc_border_index(long i, long n, clconv_border b)
{
    if (i >= 0 && i < n)
        return i;
    long p, k;
    switch (b) {
    case CLCONV_BORDER_NEAREST:
        return i < 0 ? 0 : n - 1;
    case CLCONV_BORDER_WRAP:
        k = i % n;
        return k < 0 ? k + n : k;
    case CLCONV_BORDER_REFLECT: /* period 2n: d c b a | a b c d | d c b a */
        p = 2 * n;
        k = i % p;
        k = k < 0 ? k + p : k;
        return k < n ? k : p - 1 - k;
    case CLCONV_BORDER_MIRROR: /* period 2n-2: d c b | a b c d | c b a */
        if (n == 1)
            return 0;
        p = 2 * n - 2;
        k = i % p;
        k = k < 0 ? k + p : k;
        return k < n ? k : p - k;
    default:
        return -1; /* constant: the ghost value */
    }
}

long long clconv_border_index(long long i, long long n, clconv_border b)
{
    if (n <= 0 || (unsigned)b >= CLCONV_BORDER_COUNT)
        return -1;
    return clc_border_index((long)i, (long)n, b);
}

/* Per axis, the input index that output i's tap j reads is t[i + j]
 * (-1: the constant mode's ghost value): n + w - 1 entries. */
static long *axis_table(const clconv_problem *p, int axis)
{
    const long n = axis < p->dims ? (long)p->size[axis] : 1;
    const long w = clconv_problem_mask_axis(p, axis);
    const long left = clconv_problem_left(p, axis);
    long *t = malloc((size_t)(n + w - 1) * sizeof *t);
    if (t)
        for (long k = 0; k < n + w - 1; ++k)
            t[k] = clc_border_index(k - left, n, p->border);
    return t;
}

typedef struct ref_ctx {
    const float *in, *mask; /* mask: flipped already for a convolution */
    long n[3], w[3];
    const long *t[3];
    double cval; /* the ghost value (constant mode) */
} ref_ctx;

static void ref_one(const ref_ctx *c, long x, long y, long z, double *acc,
                    double *mag)
{
    double a = 0.0, g = 0.0;
    for (long jz = 0; jz < c->w[2]; ++jz) {
        const long iz = c->t[2][z + jz];
        for (long jy = 0; jy < c->w[1]; ++jy) {
            const long iy = c->t[1][y + jy];
            const float *m = c->mask + (jz * c->w[1] + jy) * c->w[0];
            const float *row =
                iz < 0 || iy < 0 ? NULL
                                 : c->in + (iz * c->n[1] + iy) * c->n[0];
            for (long jx = 0; jx < c->w[0]; ++jx) {
                const long ix = c->t[0][x + jx];
                double prod;
                if (!row || ix < 0) {
                    /* A ghost: 0 is skipped (so an infinite coefficient
                     * meets no 0 there), as the kernels do. */
                    if (c->cval == 0.0)
                        continue;
                    prod = c->cval * (double)m[jx];
                } else {
                    prod = (double)row[ix] * (double)m[jx];
                }
                a += prod;
                g += prod < 0 ? -prod : prod;
            }
        }
    }
    *acc = a;
    *mag = g;
}

/* The context of p (validated first): tables per axis, the mask (flipped into *flipped
 * for a convolution), the ghost value. */
static clconv_status ctx_open(const clconv_problem *p, const float *in,
                              const float *mask, ref_ctx *c, float **flipped)
{
    memset(c, 0, sizeof *c);
    *flipped = NULL;
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    if (!in || !mask)
        return clc_fail(CLCONV_EINVAL, "no input or mask given (NULL)");
    const size_t m = clconv_problem_mask_elements(p);
    *flipped = p->flip ? malloc(m * sizeof **flipped) : NULL;
    if (*flipped) /* every axis reversed: the row-major order reversed */
        for (size_t k = 0; k < m; ++k)
            (*flipped)[k] = mask[m - 1 - k];
    c->in = in;
    c->mask = p->flip ? *flipped : mask;
    c->cval = p->border == CLCONV_BORDER_CONSTANT ? (double)(float)p->cval
                                                  : 0;
    for (int d = 0; d < 3; ++d) {
        c->n[d] = d < p->dims ? (long)p->size[d] : 1;
        c->w[d] = clconv_problem_mask_axis(p, d);
        c->t[d] = axis_table(p, d);
    }
    if ((p->flip && !*flipped) || !c->t[0] || !c->t[1] || !c->t[2])
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    return CLCONV_OK;
}

static void ctx_close(ref_ctx *c, float *flipped)
{
    for (int d = 0; d < 3; ++d)
        free((void *)c->t[d]);
    free(flipped);
}

clconv_status clconv_reference(const clconv_problem *p, const float *in,
                               const float *mask, double *out,
                               double *abs_sum)
{
    ref_ctx c;
    float *flipped;
    clconv_status st = ctx_open(p, in, mask, &c, &flipped);
    if (st == CLCONV_OK && !out)
        st = clc_fail(CLCONV_EINVAL, "no output given (NULL)");
    const long nx = c.n[0], ny = c.n[1], nz = st == CLCONV_OK ? c.n[2] : 0;
#if defined(_OPENMP)
#pragma omp parallel for collapse(2) schedule(static)
#endif
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y)
            for (long x = 0; x < nx; ++x) {
                const long o = (z * ny + y) * nx + x;
                double acc, mag;
                ref_one(&c, x, y, z, &acc, &mag);
                out[o] = acc;
                if (abs_sum)
                    abs_sum[o] = mag;
            }
    ctx_close(&c, flipped);
    return st;
}

/* The same at chosen outputs only: the check of problems too large for
 * the whole reference (bench --suite large), in every mode and shape. */
clconv_status clconv_reference_at(const clconv_problem *p, const float *in,
                                  const float *mask, const size_t *index,
                                  size_t count, double *out, double *abs_sum)
{
    ref_ctx c;
    float *flipped;
    clconv_status st = ctx_open(p, in, mask, &c, &flipped);
    if (st == CLCONV_OK && count && (!index || !out))
        st = clc_fail(CLCONV_EINVAL, "no indices or outputs given (NULL)");
    const size_t n = st == CLCONV_OK ? clconv_problem_elements(p) : 0;
    for (size_t k = 0; st == CLCONV_OK && k < count; ++k)
        if (index[k] >= n)
            st = clc_fail(CLCONV_EINVAL,
                          "index %zu is past the problem's %zu elements",
                          index[k], n);
    for (size_t k = 0; st == CLCONV_OK && k < count; ++k) {
        const long i = (long)index[k];
        double mag;
        ref_one(&c, i % c.n[0], i / c.n[0] % c.n[1], i / (c.n[0] * c.n[1]),
                &out[k], &mag);
        if (abs_sum)
            abs_sum[k] = mag;
    }
    ctx_close(&c, flipped);
    return st;
}
