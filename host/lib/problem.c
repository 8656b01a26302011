/* Validation and sizes of a problem, independent of any device. */
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include "internal.h"

size_t clconv_problem_elements(const clconv_problem *p)
{
    if (!p)
        return 0;
    size_t n = 1;
    for (int d = 0; d < p->dims && d < 3; ++d)
        n *= p->size[d];
    return n;
}

int clconv_problem_mask_axis(const clconv_problem *p, int axis)
{
    if (!p)
        return 0;
    if (axis < 0 || axis >= p->dims || axis >= 3)
        return 1;
    return p->mask_size[axis] > 0 ? p->mask_size[axis] : p->mask_width;
}

int clconv_problem_mask_max(const clconv_problem *p)
{
    if (!p)
        return 0;
    int w = 1;
    for (int d = 0; d < p->dims && d < 3; ++d)
        if (clconv_problem_mask_axis(p, d) > w)
            w = clconv_problem_mask_axis(p, d);
    return w;
}

size_t clconv_problem_mask_elements(const clconv_problem *p)
{
    if (!p)
        return 0;
    size_t n = 1;
    for (int d = 0; d < p->dims && d < 3; ++d)
        n *= (size_t)clconv_problem_mask_axis(p, d);
    return n;
}

int clconv_problem_left(const clconv_problem *p, int axis)
{
    const int w = clconv_problem_mask_axis(p, axis);
    if (!p || axis < 0 || axis >= p->dims || axis >= 3)
        return 0;
    /* scipy.ndimage.convolve: correlate with the flipped mask and the
     * origin -origin, minus one more for an even width. */
    const int o = p->flip ? -p->origin[axis] - (w % 2 == 0) : p->origin[axis];
    return w / 2 + o;
}

int clc_mask_is_cubic(const clconv_problem *p)
{
    for (int d = 1; d < p->dims; ++d)
        if (clconv_problem_mask_axis(p, d) != clconv_problem_mask_axis(p, 0))
            return 0;
    return 1;
}

int clc_mask_axes_fit(const clconv_problem *p)
{
    if (!p || p->dims < 1 || p->dims > 3)
        return 0;
    for (int d = 0; d < p->dims; ++d) {
        const int w = clconv_problem_mask_axis(p, d);
        if (w < 1 || w > CLC_MASK_MAX_WIDTH)
            return 0;
    }
    return 1;
}

static const char *const border_names[CLCONV_BORDER_COUNT] = {
    "constant", "nearest", "reflect", "mirror", "wrap"};

const char *clconv_border_name(clconv_border b)
{
    return (unsigned)b < CLCONV_BORDER_COUNT ? border_names[b] : "?";
}

/* scipy.ndimage's filters take grid-constant, grid-mirror and grid-wrap
 * as constant, reflect and wrap (the names differ for interpolation
 * only). */
static const struct {
    const char *name;
    clconv_border border;
} border_aliases[] = {{"grid-constant", CLCONV_BORDER_CONSTANT},
                      {"grid-mirror", CLCONV_BORDER_REFLECT},
                      {"grid-wrap", CLCONV_BORDER_WRAP}};

clconv_status clconv_border_parse(const char *name, clconv_border *out)
{
    if (!name || !out)
        return clc_fail(CLCONV_EINVAL, "no mode name or result given (NULL)");
    for (int b = 0; b < CLCONV_BORDER_COUNT; ++b)
        if (strcmp(name, border_names[b]) == 0) {
            *out = (clconv_border)b;
            return CLCONV_OK;
        }
    for (size_t i = 0; i < sizeof border_aliases / sizeof *border_aliases; ++i)
        if (strcmp(name, border_aliases[i].name) == 0) {
            *out = border_aliases[i].border;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown border mode '%s' (constant, nearest, reflect, "
                    "mirror, wrap; or SciPy's grid-constant, grid-mirror, "
                    "grid-wrap)",
                    name);
}

/* The mask's widths and origins, the border mode and cval. */
static clconv_status validate_filter(const clconv_problem *p)
{
    static const char axis[] = "xyz";
    if (p->mask_width < 0 || p->mask_width > 1023)
        return clc_fail(CLCONV_EINVAL, "mask width must be in 1..1023 (got %d)",
                        p->mask_width);
    for (int d = 0; d < 3; ++d) {
        const int given = p->mask_size[d];
        if (given < 0 || given > 1023)
            return clc_fail(CLCONV_EINVAL,
                            "mask width along %c must be in 1..1023 (got %d)",
                            axis[d], given);
        if (d >= p->dims && given > 1)
            return clc_fail(CLCONV_EINVAL,
                            "the mask has more axes than the %dD data "
                            "(width %d along %c)",
                            p->dims, given, axis[d]);
        if (d >= p->dims && p->origin[d] != 0)
            return clc_fail(CLCONV_EINVAL,
                            "origin along %c, an axis the %dD data does not "
                            "have",
                            axis[d], p->dims);
        if (d >= p->dims)
            continue;
        const int w = clconv_problem_mask_axis(p, d);
        if (w < 1)
            return clc_fail(CLCONV_EINVAL,
                            "mask width must be >= 1 (got %d along %c)", w,
                            axis[d]);
        if (p->origin[d] < -(w / 2) || p->origin[d] > (w - 1) / 2)
            return clc_fail(CLCONV_EINVAL,
                            "origin %d along %c is out of range for a mask "
                            "%d wide (%d..%d)",
                            p->origin[d], axis[d], w, -(w / 2), (w - 1) / 2);
    }
    if ((unsigned)p->border >= CLCONV_BORDER_COUNT)
        return clc_fail(CLCONV_EINVAL, "unknown border mode %d",
                        (int)p->border);
    if (!isfinite(p->cval) || fabs(p->cval) > 3.4e38)
        return clc_fail(CLCONV_EINVAL, "cval must be a finite float");
    if (p->flip != 0 && p->flip != 1)
        return clc_fail(CLCONV_EINVAL, "flip must be 0 or 1 (got %d)",
                        p->flip);
    return CLCONV_OK;
}

clconv_status clconv_problem_validate(const clconv_problem *p)
{
    static const char axis[] = "xyz";
    if (!p)
        return clc_fail(CLCONV_EINVAL, "no problem given (NULL)");
    if (p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "dims must be 1, 2 or 3 (got %d)",
                        p->dims);
    clconv_status st = validate_filter(p);
    if (st != CLCONV_OK)
        return st;
    if (p->tile < 0 || p->tile > 65536)
        return clc_fail(CLCONV_EINVAL,
                        "tile must be in 1..65536, or 0 for the default "
                        "(got %d)",
                        p->tile);
    if (!clc_variant_get(p->strategy))
        return clc_fail(CLCONV_EINVAL, "unknown strategy %d", (int)p->strategy);
    if ((unsigned)p->method >= (unsigned)CLCONV_METHOD_COUNT)
        return clc_fail(CLCONV_EINVAL, "unknown method %d", (int)p->method);
    if ((unsigned)p->in_dtype >= (unsigned)CLCONV_ELEM_COUNT ||
        (unsigned)p->out_dtype >= (unsigned)CLCONV_ELEM_COUNT)
        return clc_fail(CLCONV_EINVAL, "unknown dtype %d",
                        (unsigned)p->in_dtype >= CLCONV_ELEM_COUNT
                            ? (int)p->in_dtype
                            : (int)p->out_dtype);
    if (p->out_dtype != CLCONV_ELEM_F32 && p->out_dtype != p->in_dtype)
        return clc_fail(CLCONV_EINVAL,
                        "the output is f32 or the input's type (%s), not %s",
                        clconv_elem_name(p->in_dtype),
                        clconv_elem_name(p->out_dtype));
    if ((unsigned)p->mask_mode > (unsigned)CLCONV_MASK_BAKED)
        return clc_fail(CLCONV_EINVAL, "unknown mask mode %d",
                        (int)p->mask_mode);
    /* negative knobs are wrong for every strategy; the upper bounds
     * matter where a strategy reads them */
    if (p->coarsen < 0 || p->group_y < 0 ||
        (clconv_strategy_knobs(p->strategy, p->dims) &&
         (p->coarsen > 64 || p->group_y > 1024)))
        return clc_fail(CLCONV_EINVAL,
                        "coarsen must be in 0..64 and group_y in 0..1024");
    /* Kernels index with int: every extent must fit (and twice an extent,
     * the period of the reflect and mirror folds), and so must the
     * elements of one launch (clc_launch_check, where a plan is made:
     * host arrays in and out stream a larger problem in slabs that fit).
     * The whole problem's elements must fit a size_t of bytes. */
    size_t n = 1;
    for (int d = 0; d < p->dims; ++d) {
        if (p->size[d] == 0)
            return clc_fail(CLCONV_EINVAL, "size along %c must be >= 1",
                            axis[d]);
        if (p->size[d] > (size_t)INT_MAX ||
            n > (SIZE_MAX / sizeof(double)) / p->size[d])
            return clc_fail(CLCONV_EINVAL,
                            "size too large: an extent beyond %d or more "
                            "elements than memory can address", INT_MAX);
        if (p->size[d] > (size_t)INT_MAX / 2 &&
            (p->border == CLCONV_BORDER_REFLECT ||
             p->border == CLCONV_BORDER_MIRROR))
            return clc_fail(CLCONV_EINVAL,
                            "size along %c too large for mode %s: at most %d",
                            axis[d], clconv_border_name(p->border),
                            INT_MAX / 2);
        n *= p->size[d];
    }
    size_t m = 1;
    for (int d = 0; d < p->dims; ++d) {
        const size_t w = (size_t)clconv_problem_mask_axis(p, d);
        if (m > (size_t)INT_MAX / w)
            return clc_fail(CLCONV_EINVAL, "a mask of more than %d elements "
                            "is absurd", INT_MAX);
        m *= w;
    }
    return CLCONV_OK;
}

/* One launch (a plan, a separable or FFT path) indexes its elements with
 * int. */
clconv_status clc_launch_check(const clconv_problem *p)
{
    const size_t n = clconv_problem_elements(p);
    if (n > (size_t)INT_MAX)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "%zu elements in one launch: kernels index with int "
                        "(at most %d); host arrays in and out "
                        "(clconv_convolve, run, apply) stream such a problem "
                        "in slabs that fit",
                        n, INT_MAX);
    return CLCONV_OK;
}
