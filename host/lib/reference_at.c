/* The double-precision reference at chosen outputs only: the check of
 * problems too large for the whole reference (bench --suite large). */
#include "internal.h"

clconv_status clconv_reference_at(const clconv_problem *p, const float *in,
                                  const float *mask, const size_t *index,
                                  size_t count, double *out, double *abs_sum)
{
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    const long w = p->mask_width, r = w / 2;
    long n[3] = {1, 1, 1}, wd[3] = {1, 1, 1};
    for (int d = 0; d < p->dims; ++d)
        n[d] = (long)p->size[d], wd[d] = w;
    for (size_t k = 0; k < count; ++k) {
        const long i = (long)index[k];
        const long c[3] = {i % n[0], i / n[0] % n[1], i / (n[0] * n[1])};
        double acc = 0.0, mag = 0.0;
        /* Every tap t of the mask, x fastest, and its input if inside. */
        for (long t = 0; t < wd[0] * wd[1] * wd[2]; ++t) {
            const long j[3] = {t % wd[0], t / wd[0] % wd[1],
                               t / (wd[0] * wd[1])};
            long g[3], inside = 1;
            for (int d = 0; d < 3; ++d) {
                g[d] = c[d] + j[d] - (wd[d] > 1 ? r : 0);
                inside &= g[d] >= 0 && g[d] < n[d];
            }
            if (!inside)
                continue;
            const double prod = (double)in[(g[2] * n[1] + g[1]) * n[0] + g[0]] *
                                (double)mask[t];
            acc += prod;
            mag += prod < 0 ? -prod : prod;
        }
        out[k] = acc;
        if (abs_sum)
            abs_sum[k] = mag;
    }
    return CLCONV_OK;
}
