/* The model's counts along one dimension: the factors of one tile (every
 * count of a tile is a product of one factor per dimension: an output,
 * input element or mask tap is inside N exactly when each of its
 * coordinates is) and the walk over a dimension's tiles as runs of equal
 * factors. */
#include <limits.h>

#include "internal.h"
#include "model.h"

/* sum_{i=lo}^{hi-1} max(0, c - i) */
static long long sum_pos(long long c, long long lo, long long hi)
{
    const long long m = hi < c ? hi : c;
    if (m <= lo)
        return 0;
    const long long count = m - lo;
    return count * ((c - lo) + (c - m + 1)) / 2;
}


dim_mask clc_dim_mask_of(const clconv_problem *p, int d)
{
    dim_mask m;
    m.w = clconv_problem_mask_axis(p, d);
    m.left = clconv_problem_left(p, d);
    m.right = m.w - 1 - m.left;
    m.border = p->border;
    return m;
}

/* Mask taps inside [a, e) of the outputs lo..hi-1 (inside [a, e) too):
 * sum_i |[i - left, i + right] ∩ [a, e)|. The taps cut on the left (k < a)
 * and on the right (k >= e) are disjoint, at most left and right. */
static long long taps(long long lo, long long hi, long long a, long long e,
                      const dim_mask *m)
{
    if (hi <= lo)
        return 0;
    const long long left = sum_pos(a + m->left, lo, hi);
    const long long d = e - 1 - m->right; /* right cut: max(0, i - d) */
    const long long right = sum_pos(-d, 1 - hi, 1 - lo);
    return (hi - lo) * m->w - left - right;
}

/* Taps of the outputs lo..hi-1 whose folded element lies in [lo, hi): the
 * reads a cached_halo tile serves from local memory in the folded modes.
 * Counted one by one (check_sized bounds the mask). */
static long long folded_core(long long n, long long lo, long long hi,
                             const dim_mask *m)
{
    long long c = 0;
    for (long long i = lo; i < hi; ++i)
        for (long long j = 0; j < m->w; ++j) {
            const long k = clc_border_index((long)(i - m->left + j), (long)n,
                                            m->border);
            c += k >= lo && k < hi;
        }
    return c;
}


int clc_count_add(count_t *acc, count_t x)
{
    if (*acc > ULLONG_MAX - x)
        return -1;
    *acc += x;
    return 0;
}

int clc_count_mul(count_t *acc, count_t x)
{
    if (x && *acc > ULLONG_MAX / x)
        return -1;
    *acc *= x;
    return 0;
}


/* sum += times * f, field by field; -1 on overflow. */
int clc_dim_add_factors(dim_factors *sum, const dim_factors *f, count_t times)
{
    const count_t *src[6] = {&f->tiles,    &f->outputs,  &f->accesses,
                             &f->in_loads, &f->in_width, &f->core};
    count_t *dst[6] = {&sum->tiles,    &sum->outputs,  &sum->accesses,
                       &sum->in_loads, &sum->in_width, &sum->core};
    for (int k = 0; k < 6; ++k) {
        count_t v = *src[k];
        if (clc_count_mul(&v, times) || clc_count_add(dst[k], v))
            return -1;
    }
    return 0;
}

/* Tile b of a dimension of n elements. In the folded modes every tap and
 * every input-tile element is read (a folded element), none is a ghost. */
void clc_dim_block_factors(long long n, long long t, const dim_mask *m,
                          long long b, dim_factors *f)
{
    const long long out0 = b * t;
    const long long o = n - out0 < t ? n - out0 : t;
    const long long in_lo = out0 - m->left > 0 ? out0 - m->left : 0;
    const long long in_hi = out0 + t + m->right < n ? out0 + t + m->right : n;
    const int folded = m->border != CLCONV_BORDER_CONSTANT;
    f->tiles = 1;
    f->outputs = (count_t)o;
    f->in_width = (count_t)(t + m->w - 1);
    if (folded) {
        f->accesses = (count_t)(o * m->w);
        f->in_loads = f->in_width;
        f->core = (count_t)folded_core(n, out0, out0 + o, m);
    } else {
        f->accesses = (count_t)taps(out0, out0 + o, 0, n, m);
        f->in_loads = in_hi > in_lo ? (count_t)(in_hi - in_lo) : 0;
        f->core = (count_t)taps(out0, out0 + o, out0, out0 + o, m);
    }
}

/* An interior tile: no ghost cell, the whole tile inside N. */
void clc_dim_interior_factors(long long t, const dim_mask *m, dim_factors *f)
{
    f->tiles = 1;
    f->outputs = (count_t)t;
    f->accesses = (count_t)(t * m->w);
    f->in_loads = (count_t)(t + m->w - 1);
    f->in_width = (count_t)(t + m->w - 1);
    f->core = (count_t)taps(0, t, 0, t, m);
}


void clc_dim_walk_start(dim_walk *it, long long n, long long t,
                       const dim_mask *m)
{
    it->n = n;
    it->t = t;
    it->m = *m;
    it->tiles = (n + t - 1) / t;
    it->lo = (m->left + t - 1) / t; /* first interior tile */
    it->hi = n >= t + m->right ? (n - t - m->right) / t : -1; /* last */
    it->b = 0;
}

int clc_dim_walk_next(dim_walk *it, dim_run *run)
{
    if (it->b >= it->tiles)
        return 0;
    run->first = (size_t)it->b;
    if (it->b >= it->lo && it->b <= it->hi) {
        run->count = (count_t)(it->hi - it->b + 1);
        clc_dim_interior_factors(it->t, &it->m, &run->f);
        it->b = it->hi + 1;
    } else {
        run->count = 1;
        clc_dim_block_factors(it->n, it->t, &it->m, it->b, &run->f);
        ++it->b;
    }
    return 1;
}

