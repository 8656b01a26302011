/* Masks from a spec: named masks (a table), inline lists and .npy files. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clconv_io.h"
#include "internal.h"

/* Bounds that keep a mask sane and its allocation small. */
#define MASK_MAX_WIDTH 1023
#define MASK_MAX_ELEMENTS (1u << 24)

typedef struct mask_params {
    int dims, width;
    double sigma;
    int axis; /* of a derivative */
} mask_params;

/* The value at offsets off[0..dims-1] in -r..r, x first. */
typedef double (*mask_value_fn)(const int off[3], const mask_params *p);

static double box_value(const int off[3], const mask_params *p)
{
    (void)off;
    (void)p;
    return 1.0;
}

static double gaussian_value(const int off[3], const mask_params *p)
{
    double r2 = 0;
    for (int d = 0; d < p->dims; ++d)
        r2 += (double)off[d] * off[d];
    return exp(-r2 / (2.0 * p->sigma * p->sigma));
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

static clconv_status mask_alloc(clconv_mask *m, int dims, int width)
{
    size_t n = 1;
    for (int d = 0; d < dims; ++d)
        n *= (size_t)width;
    if (width > MASK_MAX_WIDTH || n > MASK_MAX_ELEMENTS)
        return clc_fail(CLCONV_EINVAL,
                        "a mask of %d^%d values is too large (width at most "
                        "%d, at most %u values)",
                        width, dims, MASK_MAX_WIDTH, MASK_MAX_ELEMENTS);
    m->values = malloc(n * sizeof *m->values);
    if (!m->values)
        return clc_fail(CLCONV_ENOMEM, "out of memory for the mask");
    m->dims = dims;
    m->width = width;
    return CLCONV_OK;
}

void clconv_mask_free(clconv_mask *m)
{
    if (!m)
        return;
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* A whole-string integer or number. */
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

static int parse_double(const char *s, size_t n, double *out)
{
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (isspace((unsigned char)tmp[0]))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    /* Masks are float: a value beyond FLT_MAX would become inf. */
    if (*end || errno == ERANGE || !isfinite(v) || fabs(v) > FLT_MAX)
        return -1;
    *out = v;
    return 0;
}

static clconv_status parse_named(const char *spec, int dims, clconv_mask *out)
{
    size_t nlen = strcspn(spec, ":");
    const struct named_mask *nm = NULL;
    for (size_t k = 0; k < sizeof named / sizeof named[0]; ++k)
        if (strlen(named[k].name) == nlen &&
            strncmp(named[k].name, spec, nlen) == 0)
            nm = &named[k];
    if (!nm)
        return clc_fail(CLCONV_EINVAL,
                        "unknown mask '%s' (named masks: box:W, "
                        "gaussian:W[:sigma], sobel-x, sobel-y, sobel-z, "
                        "laplacian, sharpen, emboss; or a list like 1,2,1, or "
                        "a .npy file)",
                        spec);
    mask_params p = {dims, 3, 0.0, nm->axis};
    const char *rest = spec + nlen;
    if (nm->sized) {
        if (*rest != ':')
            return clc_fail(CLCONV_EINVAL, "mask '%s' needs a width: %s:W",
                            spec, nm->name);
        ++rest;
        size_t wlen = strcspn(rest, ":");
        long w;
        if (parse_long(rest, wlen, &w) || w < 1 || w > MASK_MAX_WIDTH)
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': width must be an odd integer in "
                            "1..%d",
                            spec, MASK_MAX_WIDTH);
        if (w % 2 == 0)
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': width %ld is even; masks have an odd "
                            "width (a centre)",
                            spec, w);
        p.width = (int)w;
        p.sigma = p.width / 6.0; /* +-3 sigma fills the mask */
        rest += wlen;
        if (*rest == ':') {
            ++rest;
            if (nm->value != gaussian_value)
                return clc_fail(CLCONV_EINVAL,
                                "mask '%s': %s takes only a width", spec,
                                nm->name);
            if (parse_double(rest, strlen(rest), &p.sigma) || p.sigma <= 0)
                return clc_fail(CLCONV_EINVAL,
                                "mask '%s': sigma must be a positive number",
                                spec);
            rest += strlen(rest);
        }
    } else if (*rest) {
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': %s is 3 wide and takes no parameters",
                        spec, nm->name);
    }
    if (nm->axis >= dims)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s' differentiates along %c, which %dD data "
                        "does not have",
                        spec, "xyz"[nm->axis], dims);
    clconv_status st = mask_alloc(out, dims, p.width);
    if (st != CLCONV_OK)
        return st;
    const int w = p.width, r = w / 2;
    const int wy = dims > 1 ? w : 1, wz = dims > 2 ? w : 1;
    double sum = 0;
    size_t i = 0;
    for (int z = 0; z < wz; ++z)
        for (int y = 0; y < wy; ++y)
            for (int x = 0; x < w; ++x) {
                int off[3] = {x - r, dims > 1 ? y - r : 0, dims > 2 ? z - r : 0};
                double v = nm->value(off, &p);
                out->values[i++] = (float)v;
                sum += v;
            }
    if (nm->normalize)
        for (size_t k = 0; k < i; ++k)
            out->values[k] = (float)(out->values[k] / sum);
    return CLCONV_OK;
}

/* The W with W^dims == n, or 0 if n is no such power. */
static int width_of(size_t n, int dims)
{
    for (size_t w = 1;; ++w) {
        size_t p = 1;
        for (int d = 0; d < dims; ++d)
            p *= w;
        if (p == n)
            return (int)w;
        if (p > n)
            return 0;
    }
}

static clconv_status wrong_count(const char *spec, size_t n, int dims)
{
    if (dims == 1)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s' has %zu values; a 1D mask needs an odd "
                        "number",
                        spec, n);
    return clc_fail(CLCONV_EINVAL,
                    "mask '%s' has %zu values; %dD data needs a %s mask of "
                    "W^%d values with W odd (%s)",
                    spec, n, dims, dims == 2 ? "square" : "cubic", dims,
                    dims == 2 ? "9 for 3x3, 25 for 5x5" : "27 for 3x3x3");
}

static clconv_status parse_inline(const char *spec, int dims, clconv_mask *out)
{
    /* Count the values and check the rows first. */
    size_t n = 0, row = 0, row_len = 0, rows = 0;
    int have_rows = strchr(spec, ';') != NULL;
    const char *s = spec;
    for (;;) {
        size_t len = strcspn(s, ",;");
        while (len > 0 && isspace((unsigned char)*s)) {
            ++s;
            --len;
        }
        size_t tl = len;
        while (tl > 0 && isspace((unsigned char)s[tl - 1]))
            --tl;
        double v;
        if (parse_double(s, tl, &v))
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': '%.*s' is not a finite number", spec,
                            (int)(tl < 40 ? tl : 40), s);
        ++n;
        ++row;
        s += len;
        if (*s == ';' || *s == '\0') {
            if (rows == 0)
                row_len = row;
            else if (row != row_len)
                return clc_fail(CLCONV_EINVAL,
                                "mask '%s': rows have different lengths (%zu "
                                "and %zu)",
                                spec, row_len, row);
            ++rows;
            row = 0;
        }
        if (*s == '\0')
            break;
        ++s;
    }
    int w = width_of(n, dims);
    if (!w)
        return wrong_count(spec, n, dims);
    if (w % 2 == 0)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s' is %d wide (%zu values); the width must be "
                        "odd (a centre)",
                        spec, w, n);
    if (have_rows && row_len != (size_t)w)
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': rows of %zu values, but the mask is %d "
                        "wide",
                        spec, row_len, w);
    clconv_status st = mask_alloc(out, dims, w);
    if (st != CLCONV_OK)
        return st;
    s = spec;
    for (size_t k = 0; k < n; ++k) {
        size_t len = strcspn(s, ",;");
        size_t lead = 0;
        while (lead < len && isspace((unsigned char)s[lead]))
            ++lead;
        size_t tl = len - lead;
        while (tl > 0 && isspace((unsigned char)s[lead + tl - 1]))
            --tl;
        double v = 0;
        parse_double(s + lead, tl, &v); /* checked above */
        out->values[k] = (float)v;
        s += len + (s[len] ? 1 : 0);
    }
    return CLCONV_OK;
}

clconv_status clconv_mask_spec_parse(const char *spec, int dims,
                                     clconv_mask *out)
{
    memset(out, 0, sizeof *out);
    if (dims < 1 || dims > 3)
        return clc_fail(CLCONV_EINVAL, "masks have 1 to 3 dimensions (got %d)",
                        dims);
    if (!spec || !*spec)
        return clc_fail(CLCONV_EINVAL, "empty mask spec");
    if (isalpha((unsigned char)spec[0]))
        return parse_named(spec, dims, out);
    return parse_inline(spec, dims, out);
}

clconv_status clconv_mask_from_array(const clconv_array *a, int dims,
                                     clconv_mask *out)
{
    memset(out, 0, sizeof *out);
    if (a->dims != dims)
        return clc_fail(CLCONV_EINVAL,
                        "the mask is %dD but the data is %dD; give a %dD mask",
                        a->dims, dims, dims);
    for (int d = 1; d < dims; ++d)
        if (a->shape[d] != a->shape[0])
            return clc_fail(CLCONV_EINVAL,
                            "the mask's shape is not %s (extents %zu and %zu)",
                            dims == 2 ? "square" : "cubic", a->shape[0],
                            a->shape[d]);
    if (a->shape[0] % 2 == 0)
        return clc_fail(CLCONV_EINVAL,
                        "the mask is %zu wide; the width must be odd (a "
                        "centre)",
                        a->shape[0]);
    if (a->shape[0] > MASK_MAX_WIDTH)
        return clc_fail(CLCONV_EINVAL, "the mask is %zu wide (at most %d)",
                        a->shape[0], MASK_MAX_WIDTH);
    clconv_status st = mask_alloc(out, dims, (int)a->shape[0]);
    if (st != CLCONV_OK)
        return st;
    /* NumPy's C order is already x fastest along the last axis. */
    memcpy(out->values, a->data, clconv_array_elements(a) * sizeof(float));
    for (size_t k = 0; k < clconv_array_elements(a); ++k)
        if (!isfinite(out->values[k])) {
            clconv_mask_free(out);
            return clc_fail(CLCONV_EINVAL,
                            "the mask holds a value that is not finite (at "
                            "element %zu)",
                            k);
        }
    return CLCONV_OK;
}

int clconv_mask_spec_is_file(const char *spec)
{
    size_t n = spec ? strlen(spec) : 0;
    return n >= 4 && strcasecmp(spec + n - 4, ".npy") == 0;
}

clconv_status clconv_mask_load(const char *spec, int dims, clconv_mask *out)
{
    memset(out, 0, sizeof *out);
    if (!clconv_mask_spec_is_file(spec))
        return clconv_mask_spec_parse(spec, dims, out);
    unsigned char *buf = NULL;
    size_t len = 0;
    clconv_status st = clconv_file_read(
        spec, (size_t)MASK_MAX_ELEMENTS * 8 + 65536, &buf, &len);
    char msg[1024];
    if (st != CLCONV_OK) {
        snprintf(msg, sizeof msg, "%s", clconv_last_error());
        return clc_fail(st, "--mask: %s", msg);
    }
    clconv_array a;
    st = clconv_npy_parse(buf, len, &a, NULL);
    free(buf);
    if (st == CLCONV_OK) {
        st = clconv_mask_from_array(&a, dims, out);
        clconv_array_free(&a);
    }
    if (st != CLCONV_OK) {
        snprintf(msg, sizeof msg, "%s", clconv_last_error());
        return clc_fail(st, "--mask %s: %s", spec, msg);
    }
    return CLCONV_OK;
}
