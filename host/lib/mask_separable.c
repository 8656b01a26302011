/* Is a mask separable? The rank-1 test of clconv_mask_separable
 * (include/clconv.h): one 1D factor per axis through the mask's
 * largest-magnitude element, every element checked against the product
 * of its factors within CLCONV_SEPARABLE_TOL * FLT_EPSILON. The factors
 * feed the separable path's passes (separable.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"

/* The rank-1 test: factors through the largest-magnitude element. */
int clconv_mask_separable(const clconv_problem *p, const float *mask,
                          float *factors)
{
    if (!mask || !clc_mask_axes_fit(p))
        return 0;
    const int d = p->dims;
    const size_t m = clconv_problem_mask_elements(p);
    float local_f[3 * CLC_MASK_MAX_WIDTH];
    float *f = factors ? factors : local_f;
    size_t stride[3], w[3], off[3];
    for (int a = 0; a < 3; ++a) {
        w[a] = (size_t)clconv_problem_mask_axis(p, a);
        stride[a] = a ? stride[a - 1] * w[a - 1] : 1;
        off[a] = a ? off[a - 1] + w[a - 1] : 0;
    }
    if (d == 1) {
        memcpy(f, mask, w[0] * sizeof *f);
        return 1;
    }
    size_t piv = 0;
    for (size_t i = 1; i < m; ++i)
        if (fabsf(mask[i]) > fabsf(mask[piv]))
            piv = i;
    const double pv = mask[piv];
    if (pv == 0.0 || !isfinite(pv)) { /* all zero: 0 * 0 * 0 */
        memset(f, 0, (off[d - 1] + w[d - 1]) * sizeof *f);
        return pv == 0.0;
    }
    for (int a = 0; a < d; ++a) {
        const size_t pc = piv / stride[a] % w[a];
        float *fa = f + off[a];
        for (size_t j = 0; j < w[a]; ++j) {
            const size_t idx = piv - pc * stride[a] + j * stride[a];
            fa[j] = a == 0 ? mask[idx] : (float)(mask[idx] / pv);
        }
    }
    const double tol = CLCONV_SEPARABLE_TOL * (double)FLT_EPSILON;
    for (size_t i = 0; i < m; ++i) {
        double prod = 1.0;
        for (int a = 0; a < d; ++a)
            prod *= f[off[a] + i / stride[a] % w[a]];
        if (!(fabs(mask[i] - prod) <= tol * fabs(mask[i]) + tol * FLT_MIN))
            return 0;
    }
    return 1;
}
