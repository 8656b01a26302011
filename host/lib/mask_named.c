/* The named masks (box, gaussian, sobel, laplacian, sharpen, emboss): a
 * table of value functions, and the parser of their specs. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

typedef struct mask_params {
    int dims, size[3]; /* widths, x first */
    double sigma[3];   /* gaussian's, per axis */
    int axis;          /* of a derivative */
} mask_params;

/* The value at offsets off[0..dims-1] in -r..r, x first. */
typedef double (*mask_value_fn)(const int off[3], const mask_params *p);

static double box_value(const int off[3], const mask_params *p)
{
    (void)off;
    (void)p;
    return 1.0;
}

/* exp(-r^2 / (2 sigma^2)) without forming sigma^2, which underflows to 0
 * for a tiny sigma (0/0 at the centre: an all-NaN mask) and overflows to
 * inf for a huge one: the centre is 1 whatever sigma is, a tiny sigma
 * gives the identity and a huge one a box. */
static double gaussian_value(const int off[3], const mask_params *p)
{
    double t2 = 0;
    int centre = 1;
    for (int d = 0; d < p->dims; ++d) {
        const double t = off[d] / p->sigma[d]; /* may be inf: exp gives 0 */
        t2 += off[d] ? t * t : 0.0;
        centre &= off[d] == 0;
    }
    return centre ? 1.0 : exp(-0.5 * t2);
}

/* Sobel: central difference along the axis, 1 2 1 smoothing across. */
static double sobel_value(const int off[3], const mask_params *p)
{
    double v = off[p->axis];
    for (int d = 0; d < p->dims; ++d)
        if (d != p->axis)
            v *= 2 - abs(off[d]);
    return v;
}

static int manhattan(const int off[3], int dims)
{
    int s = 0;
    for (int d = 0; d < dims; ++d)
        s += abs(off[d]);
    return s;
}

/* The 2*dims+1 point Laplacian. */
static double laplacian_value(const int off[3], const mask_params *p)
{
    int m = manhattan(off, p->dims);
    return m == 0 ? -2.0 * p->dims : m == 1 ? 1.0 : 0.0;
}

/* Identity minus the Laplacian. */
static double sharpen_value(const int off[3], const mask_params *p)
{
    return (manhattan(off, p->dims) == 0 ? 1.0 : 0.0) -
           laplacian_value(off, p);
}

/* Identity plus the sum of the offsets: in 2D
 *   -2 -1 0 / -1 1 1 / 0 1 2. */
static double emboss_value(const int off[3], const mask_params *p)
{
    int s = 0;
    for (int d = 0; d < p->dims; ++d)
        s += off[d];
    return s + (manhattan(off, p->dims) == 0 ? 1.0 : 0.0);
}

static const struct named_mask {
    const char *name;
    int sized;      /* takes :W (box, gaussian) else is 3 wide */
    int normalize;  /* divide by the sum */
    int axis;       /* derivative axis (needs dims > axis); -1 if none */
    mask_value_fn value;
} named[] = {
    {"box", 1, 1, -1, box_value},
    {"gaussian", 1, 1, -1, gaussian_value},
    {"sobel-x", 0, 0, 0, sobel_value},
    {"sobel-y", 0, 0, 1, sobel_value},
    {"sobel-z", 0, 0, 2, sobel_value},
    {"laplacian", 0, 0, -1, laplacian_value},
    {"sharpen", 0, 0, -1, sharpen_value},
    {"emboss", 0, 0, -1, emboss_value},
};

/* A whole-string integer. */
static int parse_long(const char *s, size_t n, long *out)
{
    char tmp[32];
    if (n == 0 || n >= sizeof tmp || !isdigit((unsigned char)s[0]))
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    long v = strtol(tmp, &end, 10);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

/* Sigma is a double of its own (the mask holds exp of it, not it): any
 * positive finite value; one that underflows double is the smallest. */
static clconv_status parse_sigma(const char *spec, const char *s,
                                 double *sigma)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || isspace((unsigned char)*s) || isnan(v) ||
        strpbrk(s, "xX")) /* decimal only, as the mask's values */
        return clc_fail(CLCONV_EINVAL, "mask '%s': sigma '%s' is not a number",
                        spec, s);
    if (v < 0 || (v == 0 && errno != ERANGE))
        return clc_fail(CLCONV_EINVAL, "mask '%s': sigma must be positive",
                        spec);
    if (isinf(v))
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': sigma must be a positive finite number "
                        "(at most %g)",
                        spec, DBL_MAX);
    *sigma = v > 0 ? v : DBL_TRUE_MIN;
    return CLCONV_OK;
}

/* The widths of box:/gaussian:, "W" or one per axis in NumPy's order
 * ("5x3": 5 rows of 3), into p->size (x first) and gaussian's default
 * sigmas (W/6 per axis: +-3 sigma fills the mask). */
static clconv_status parse_widths(const char *spec, const char *s,
                                  const struct named_mask *nm, mask_params *p)
{
    long w[3];
    int n = 0;
    const size_t len = strcspn(s, ":");
    for (size_t k = 0; k <= len;) {
        const size_t wl = strcspn(s + k, "x:");
        const size_t part = k + wl > len ? len - k : wl;
        if (n == 3 || parse_long(s + k, part, &w[n]) || w[n] < 1 ||
            w[n] > CLC_MASK_MAX_WIDTH)
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': the width must be an integer in 1..%d "
                            "(or one per axis, NumPy's order: %s:5x3)",
                            spec, CLC_MASK_MAX_WIDTH, nm->name);
        ++n;
        k += part + 1;
    }
    if (n != 1 && n != p->dims)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': %d widths for %dD data (one, or one per "
                        "axis)",
                        spec, n, p->dims);
    for (int d = 0; d < p->dims; ++d) {
        const long wd = n == 1 ? w[0] : w[p->dims - 1 - d];
        /* Symmetric about a centre tap that an even width has not: it
         * would be shifted half a sample (SciPy's gaussian_filter makes
         * 2*radius+1 taps, OpenCV's GaussianBlur takes odd sizes only). */
        if (nm->value == gaussian_value && wd % 2 == 0) {
            char axis[32] = "";
            if (n > 1)
                snprintf(axis, sizeof axis, " (axis %d)", p->dims - 1 - d);
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': width %ld%s is even: a gaussian is "
                            "symmetric about a centre tap, which an even "
                            "width has not (SciPy and OpenCV make odd widths "
                            "only); use %ld or %ld",
                            spec, wd, axis, wd - 1, wd + 1);
        }
        p->size[d] = (int)wd;
        p->sigma[d] = (double)wd / 6.0;
    }
    return CLCONV_OK;
}

/* The :W[:sigma] of box and gaussian into p. */
static clconv_status parse_width(const char *spec, const struct named_mask *nm,
                                 const char *rest, mask_params *p)
{
    if (*rest != ':')
        return clc_fail(CLCONV_EINVAL, "mask '%s' needs a width: %s:W", spec,
                        nm->name);
    ++rest;
    clconv_status st = parse_widths(spec, rest, nm, p);
    if (st != CLCONV_OK)
        return st;
    rest += strcspn(rest, ":");
    if (*rest != ':')
        return CLCONV_OK;
    if (nm->value != gaussian_value)
        return clc_fail(CLCONV_EINVAL, "mask '%s': %s takes only a width",
                        spec, nm->name);
    double sigma = 0;
    st = parse_sigma(spec, rest + 1, &sigma);
    if (st == CLCONV_OK)
        p->sigma[0] = p->sigma[1] = p->sigma[2] = sigma;
    return st;
}

/* The named mask spec begins with (its name up to ':', ',' or ';'), or
 * NULL. */
static const struct named_mask *named_of(const char *spec)
{
    const size_t nlen = strcspn(spec, ":,;");
    for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k)
        if (strlen(named[k].name) == nlen &&
            strncmp(named[k].name, spec, nlen) == 0)
            return &named[k];
    return NULL;
}

int clc_mask_names_one(const char *spec) { return named_of(spec) != NULL; }

clconv_status clc_mask_parse_named(const char *spec, int dims,
                                   clconv_mask *out)
{
    const size_t nlen = strcspn(spec, ":,;");
    const struct named_mask *nm = named_of(spec);
    if (!nm)
        return clc_fail(CLCONV_EINVAL,
                        "unknown mask '%s' (named masks: box:W, "
                        "gaussian:W[:sigma], sobel-x, sobel-y, sobel-z, "
                        "laplacian, sharpen, emboss; or a list like 1,2,1, or "
                        "a .npy file)",
                        spec);
    mask_params p = {dims, {3, 3, 3}, {0, 0, 0}, nm->axis};
    const char *rest = spec + nlen;
    clconv_status st = CLCONV_OK;
    if (nm->sized)
        st = parse_width(spec, nm, rest, &p);
    else if (*rest)
        st = clc_fail(CLCONV_EINVAL,
                      "mask '%s': %s is 3 wide and takes no parameters", spec,
                      nm->name);
    if (st != CLCONV_OK)
        return st;
    if (nm->axis >= dims)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s' differentiates along %c, which %dD data "
                        "does not have",
                        spec, "xyz"[nm->axis], dims);
    if ((st = clc_mask_alloc(out, dims, p.size)) != CLCONV_OK)
        return st;
    const int wx = out->size[0], wy = out->size[1], wz = out->size[2];
    double sum = 0;
    size_t i = 0;
    for (int z = 0; z < wz; ++z)
        for (int y = 0; y < wy; ++y)
            for (int x = 0; x < wx; ++x) {
                /* Offsets from SciPy's centre W//2. */
                int off[3] = {x - wx / 2, y - wy / 2, z - wz / 2};
                double v = nm->value(off, &p);
                out->values[i++] = (float)v;
                sum += v;
            }
    if (nm->normalize && sum != 0 && isfinite(sum))
        for (size_t k = 0; k < i; ++k)
            out->values[k] = (float)(out->values[k] / sum);
    st = clc_mask_check(spec, out, nm->normalize, sum);
    if (st != CLCONV_OK)
        clconv_mask_free(out);
    return st;
}
