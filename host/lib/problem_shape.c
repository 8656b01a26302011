/* Filters over part of the data's axes: a mask that spans only some axes
 * (scipy.ndimage's axes=) and a batch of equal problems in one launch.
 * Both become a problem of the data's full rank whose mask is 1 wide
 * along the other axes: every line or plane along them is filtered on
 * its own, by the same kernels, in one launch. */
#include "internal.h"

clconv_status clconv_problem_on_axes(clconv_problem *p, unsigned axes)
{
    if (!p || p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "axes: the problem needs 1 to 3 dims");
    const unsigned all = (1u << p->dims) - 1;
    if (axes == 0 || (axes & ~all))
        return clc_fail(CLCONV_EINVAL,
                        "axes 0x%x: a non-empty set of the %dD problem's axes "
                        "(bit 0 x, bit 1 y, bit 2 z)", axes, p->dims);
    int width[3], origin[3], k = 0;
    for (int j = 0; j < p->dims; ++j) {
        width[j] = p->mask_size[j] > 0 ? p->mask_size[j] : p->mask_width;
        origin[j] = p->origin[j];
    }
    for (int a = 0; a < 3; ++a) {
        p->mask_size[a] = a < p->dims ? 1 : 0;
        p->origin[a] = 0;
    }
    /* The mask's j-th axis (x first) is the j-th listed data axis. */
    for (int a = 0; a < p->dims; ++a)
        if (axes & (1u << a)) {
            p->mask_size[a] = width[k];
            p->origin[a] = origin[k];
            ++k;
        }
    p->mask_width = clconv_problem_mask_max(p);
    return CLCONV_OK;
}

clconv_status clconv_problem_stack(clconv_problem *p, size_t batch)
{
    if (!p || p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "batch: the problem needs 1 to 3 dims");
    if (batch == 0)
        return clc_fail(CLCONV_EINVAL, "batch: at least 1 problem");
    if (batch == 1)
        return CLCONV_OK;
    const int d = p->dims;
    if (d == 3)
        return clc_fail(CLCONV_EINVAL,
                        "batch: 3D problems cannot be stacked (at most 3 "
                        "dimensions: batch 1D or 2D problems)");
    for (int a = 0; a < d; ++a)
        p->mask_size[a] = clconv_problem_mask_axis(p, a);
    p->dims = d + 1;
    p->size[d] = batch;
    p->mask_size[d] = 1;
    p->origin[d] = 0;
    return CLCONV_OK;
}

size_t clc_batch_member(const clconv_problem *p, clconv_problem *member)
{
    *member = *p;
    size_t batch = 1;
    while (member->dims > 1 &&
           clconv_problem_mask_axis(member, member->dims - 1) == 1) {
        const int a = member->dims - 1;
        for (int k = 0; k < a; ++k)
            member->mask_size[k] = clconv_problem_mask_axis(member, k);
        batch *= member->size[a];
        member->size[a] = 1;
        member->mask_size[a] = 0;
        member->origin[a] = 0;
        member->dims = a;
    }
    member->mask_width = clconv_problem_mask_max(member);
    return batch;
}
