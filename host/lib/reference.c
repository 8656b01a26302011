/* The double-precision CPU reference (correlation, ghost cells 0). */
#include <stdlib.h>

#include "internal.h"

/* The range of mask taps j in [lo, hi) whose input index i - r + j lies in
 * [0, n). */
static void tap_range(long i, long r, long w, long n, long *lo, long *hi)
{
    long a = r - i, b = n - i + r;
    *lo = a > 0 ? a : 0;
    *hi = b < w ? b : w;
}

clconv_status clconv_reference(const clconv_problem *p, const float *in,
                               const float *mask, double *out,
                               double *abs_sum)
{
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    const long w = p->mask_width, r = w / 2;
    const long nx = (long)p->size[0];
    const long ny = p->dims > 1 ? (long)p->size[1] : 1;
    const long nz = p->dims > 2 ? (long)p->size[2] : 1;
    const long wy = p->dims > 1 ? w : 1, wz = p->dims > 2 ? w : 1;
    const long ry = p->dims > 1 ? r : 0, rz = p->dims > 2 ? r : 0;

#if defined(_OPENMP)
#pragma omp parallel for collapse(2) schedule(static)
#endif
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y) {
            long z0, z1, y0, y1;
            tap_range(z, rz, wz, nz, &z0, &z1);
            tap_range(y, ry, wy, ny, &y0, &y1);
            for (long x = 0; x < nx; ++x) {
                long x0, x1;
                tap_range(x, r, w, nx, &x0, &x1);
                double acc = 0.0, mag = 0.0;
                for (long jz = z0; jz < z1; ++jz)
                    for (long jy = y0; jy < y1; ++jy) {
                        const float *row =
                            in + ((z - rz + jz) * ny + (y - ry + jy)) * nx +
                            (x - r);
                        const float *m = mask + (jz * wy + jy) * w;
                        for (long jx = x0; jx < x1; ++jx) {
                            double prod = (double)row[jx] * (double)m[jx];
                            acc += prod;
                            mag += prod < 0 ? -prod : prod;
                        }
                    }
                const long o = (z * ny + y) * nx + x;
                out[o] = acc;
                if (abs_sum)
                    abs_sum[o] = mag;
            }
        }
    return CLCONV_OK;
}
