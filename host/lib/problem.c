/* Validation and sizes of a problem, independent of any device. */
#include <limits.h>

#include "internal.h"

size_t clconv_problem_elements(const clconv_problem *p)
{
    size_t n = 1;
    for (int d = 0; d < p->dims && d < 3; ++d)
        n *= p->size[d];
    return n;
}

size_t clconv_problem_mask_elements(const clconv_problem *p)
{
    size_t n = 1;
    for (int d = 0; d < p->dims && d < 3; ++d)
        n *= (size_t)p->mask_width;
    return n;
}

clconv_status clconv_problem_validate(const clconv_problem *p)
{
    static const char axis[] = "xyz";
    if (p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "dims must be 1, 2 or 3 (got %d)",
                        p->dims);
    if (p->mask_width < 1 || p->mask_width % 2 == 0)
        return clc_fail(CLCONV_EINVAL,
                        "mask width must be odd and >= 1 (got %d)",
                        p->mask_width);
    if (p->mask_width > 1023)
        return clc_fail(CLCONV_EINVAL, "mask width %d is absurd (max 1023)",
                        p->mask_width);
    if (p->tile < 0 || p->tile > 65536)
        return clc_fail(CLCONV_EINVAL,
                        "tile must be in 1..65536, or 0 for the default "
                        "(got %d)",
                        p->tile);
    if (!clc_variant_get(p->strategy))
        return clc_fail(CLCONV_EINVAL, "unknown strategy %d", (int)p->strategy);
    if ((unsigned)p->mask_mode > (unsigned)CLCONV_MASK_BAKED)
        return clc_fail(CLCONV_EINVAL, "unknown mask mode %d",
                        (int)p->mask_mode);
    if (clconv_strategy_knobs(p->strategy, p->dims) &&
        (p->coarsen < 0 || p->coarsen > 64 || p->group_y < 0 ||
         p->group_y > 1024))
        return clc_fail(CLCONV_EINVAL,
                        "coarsen must be in 0..64 and group_y in 0..1024");
    /* Kernels index with int: every element count must fit. */
    size_t n = 1;
    for (int d = 0; d < p->dims; ++d) {
        if (p->size[d] == 0)
            return clc_fail(CLCONV_EINVAL, "size along %c must be >= 1",
                            axis[d]);
        if (p->size[d] > (size_t)INT_MAX || n > (size_t)INT_MAX / p->size[d])
            return clc_fail(CLCONV_EINVAL,
                            "size too large: more than %d elements", INT_MAX);
        n *= p->size[d];
    }
    size_t m = 1;
    for (int d = 0; d < p->dims; ++d) {
        if (m > (size_t)INT_MAX / (size_t)p->mask_width)
            return clc_fail(CLCONV_EINVAL, "mask of %d^%d elements is absurd",
                            p->mask_width, p->dims);
        m *= (size_t)p->mask_width;
    }
    return CLCONV_OK;
}
