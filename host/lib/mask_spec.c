/* Masks from a spec: inline lists and .npy files (named masks: see
 * mask_named.c), and the checks every mask passes. */
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

clconv_status clc_mask_alloc(clconv_mask *m, int dims, const int size[3])
{
    size_t n = 1;
    int width = 1;
    for (int d = 0; d < dims; ++d) {
        if (size[d] > CLC_MASK_MAX_WIDTH || n > CLC_MASK_MAX_ELEMENTS)
            return clc_fail(CLCONV_EINVAL,
                            "a mask %d wide is too large (width at most %d, "
                            "at most %u values)",
                            size[d], CLC_MASK_MAX_WIDTH,
                            CLC_MASK_MAX_ELEMENTS);
        n *= (size_t)size[d];
        width = size[d] > width ? size[d] : width;
    }
    if (n > CLC_MASK_MAX_ELEMENTS)
        return clc_fail(CLCONV_EINVAL,
                        "a mask of %zu values is too large (at most %u)", n,
                        CLC_MASK_MAX_ELEMENTS);
    m->values = malloc(n * sizeof *m->values);
    if (!m->values)
        return clc_fail(CLCONV_ENOMEM, "out of memory for the mask");
    m->dims = dims;
    m->width = width;
    for (int d = 0; d < 3; ++d)
        m->size[d] = d < dims ? size[d] : 1;
    return CLCONV_OK;
}

void clconv_mask_free(clconv_mask *m)
{
    if (!m)
        return;
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* A whole-string number. */
static int parse_double(const char *s, size_t n, double *out)
{
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    /* decimal only, as --cval and NumPy's float(): strtod also reads
     * hexadecimal ("0x10" was a tap of 16) */
    if (isspace((unsigned char)tmp[0]) || strpbrk(tmp, "xX"))
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

/* Every value finite and, for a kind that divides by its sum (raw_sum:
 * the sum before that), a sum that is finite and non-zero: a mask that
 * holds anything else is refused with its reason rather than filling the
 * output with NaN. */
clconv_status clc_mask_check(const char *spec, const clconv_mask *m,
                             int normalized, double raw_sum)
{
    if (normalized && (raw_sum == 0 || !isfinite(raw_sum)))
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': its values sum to %g, so it cannot be "
                        "normalised",
                        spec, raw_sum);
    size_t n = 1; /* per-axis widths: a 5x2 box holds 10 values, not 25 */
    for (int d = 0; d < m->dims; ++d)
        n *= (size_t)m->size[d];
    for (size_t k = 0; k < n; ++k)
        if (!isfinite(m->values[k]))
            return clc_fail(CLCONV_EINVAL,
                            "mask '%s': value %zu is %g, not a finite number",
                            spec, k, (double)m->values[k]);
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
    return clc_fail(CLCONV_EINVAL,
                    "mask '%s' has %zu values; %dD data needs a %s mask of "
                    "W^%d values (%s%s)",
                    spec, n, dims, dims == 2 ? "square" : "cubic", dims,
                    dims == 2 ? "9 for 3x3, 25 for 5x5" : "27 for 3x3x3",
                    dims == 2 ? "; or rows separated by ';'" : "");
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
    const int w = width_of(n, dims);
    int size[3] = {w, w, w};
    if (have_rows && dims == 2) { /* R rows of C values: R x C, any */
        size[0] = (int)row_len;
        size[1] = (int)rows;
    } else if (!w) {
        return wrong_count(spec, n, dims);
    } else if (have_rows && row_len != (size_t)w) {
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': rows of %zu values, but the mask is %d "
                        "wide",
                        spec, row_len, w);
    }
    clconv_status st = clc_mask_alloc(out, dims, size);
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
    st = clc_mask_check(spec, out, 0, 0);
    if (st != CLCONV_OK)
        clconv_mask_free(out);
    return st;
}

/* A mask reader given no place for the mask. */
static clconv_status nowhere(void)
{
    return clc_fail(CLCONV_EINVAL, "nowhere to put the mask (NULL)");
}

clconv_status clconv_mask_spec_parse(const char *spec, int dims,
                                     clconv_mask *out)
{
    if (!out)
        return nowhere();
    memset(out, 0, sizeof *out);
    if (dims < 1 || dims > 3)
        return clc_fail(CLCONV_EINVAL, "masks have 1 to 3 dimensions (got %d)",
                        dims);
    if (!spec || !*spec)
        return clc_fail(CLCONV_EINVAL, "empty mask spec");
    /* Named masks have no ',' or ';' ("nan,1,1" is a list, its first
     * value not finite); one that has ("box:5,3") is told how widths are
     * written, not that 'box:5' is not a number. */
    if (isalpha((unsigned char)spec[0]) &&
        (!strpbrk(spec, ",;") || clc_mask_names_one(spec)))
        return clc_mask_parse_named(spec, dims, out);
    /* A path that is not a .npy (./k.txt, /dev/stdin) or "-": said so,
     * not "'./k.txt' is not a finite number" (1/16,2/16,1/16 is a list). */
    if (strcmp(spec, "-") == 0 ||
        (strchr("/.~", spec[0]) && strchr(spec, '/') && !strpbrk(spec, ",;")))
        return clc_fail(CLCONV_EINVAL,
                        "mask '%s': masks are read from .npy files (a name "
                        "ending in .npy), not %s",
                        spec,
                        strcmp(spec, "-") == 0 ? "from standard input"
                                               : "from other files");
    return parse_inline(spec, dims, out);
}

clconv_status clconv_mask_from_array(const clconv_array *a, int dims,
                                     clconv_mask *out)
{
    if (!out)
        return nowhere();
    memset(out, 0, sizeof *out);
    if (!a || (!a->data && clconv_array_elements(a)))
        return clc_fail(CLCONV_EINVAL, "no mask array given (NULL)");
    if (a->dims != dims)
        return clc_fail(CLCONV_EINVAL,
                        "the mask is %dD but the data is %dD; give a %dD mask",
                        a->dims, dims, dims);
    int size[3] = {1, 1, 1};
    for (int d = 0; d < dims; ++d) {
        const size_t e = a->shape[dims - 1 - d]; /* NumPy's last axis is x */
        if (e == 0)
            return clc_fail(CLCONV_EINVAL, "the mask has an axis of width 0");
        if (e > CLC_MASK_MAX_WIDTH)
            return clc_fail(CLCONV_EINVAL, "the mask is %zu wide (at most %d)",
                            e, CLC_MASK_MAX_WIDTH);
        size[d] = (int)e;
    }
    clconv_status st = clc_mask_alloc(out, dims, size);
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
    if (!out)
        return nowhere();
    memset(out, 0, sizeof *out);
    if (!clconv_mask_spec_is_file(spec))
        return clconv_mask_spec_parse(spec, dims, out);
    unsigned char *buf = NULL;
    size_t len = 0;
    /* A FIFO or device is read only as far as its .npy header declares
     * (refused after the header when that is more than a mask holds). */
    clconv_status st = clconv_input_read(
        spec, (size_t)CLC_MASK_MAX_ELEMENTS * 8 + 65536, &buf, &len);
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
