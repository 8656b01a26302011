/* clconv model: the counting of the reference notes, for any case.
 *
 * Every count of a tile is a product of one factor per dimension (an
 * output, input element or mask tap is inside N exactly when each of its
 * coordinates is), so a tile is described by its 1D factors, and the sum
 * over a grid of tiles is the product of the per-dimension sums. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "clconv_model.h"
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

/* Mask taps inside [a, e) of the outputs lo..hi-1 (inside [a, e) too):
 * sum_i |[i - r, i + r] ∩ [a, e)|. The taps cut on the left (k < a) and on
 * the right (k >= e) are disjoint, each at most r. */
static long long taps(long long lo, long long hi, long long a, long long e,
                      long long r)
{
    if (hi <= lo)
        return 0;
    const long long w = 2 * r + 1;
    const long long left = sum_pos(a + r, lo, hi);
    const long long d = e - 1 - r; /* right cut: max(0, i - d) */
    const long long right = sum_pos(-d, 1 - hi, 1 - lo);
    return (hi - lo) * w - left - right;
}

/* Counts are 64-bit unsigned; every sum and product is checked. */
typedef unsigned long long count_t;

static int add_to(count_t *acc, count_t x)
{
    if (*acc > ULLONG_MAX - x)
        return -1;
    *acc += x;
    return 0;
}

static int mul_to(count_t *acc, count_t x)
{
    if (x && *acc > ULLONG_MAX / x)
        return -1;
    *acc *= x;
    return 0;
}

/* The 1D factors of a tile, or their sum over tiles of one dimension. */
typedef struct dim_factors {
    count_t tiles;
    count_t outputs;  /* outputs inside N */
    count_t accesses; /* taps inside N of those outputs */
    count_t in_loads; /* input-tile elements inside N */
    count_t in_width; /* input-tile elements, inside N or not */
    count_t core;     /* taps inside the tile's own (core) elements */
} dim_factors;

/* sum += times * f, field by field; -1 on overflow. */
static int add_factors(dim_factors *sum, const dim_factors *f, count_t times)
{
    const count_t *src[6] = {&f->tiles,    &f->outputs,  &f->accesses,
                             &f->in_loads, &f->in_width, &f->core};
    count_t *dst[6] = {&sum->tiles,    &sum->outputs,  &sum->accesses,
                       &sum->in_loads, &sum->in_width, &sum->core};
    for (int k = 0; k < 6; ++k) {
        count_t v = *src[k];
        if (mul_to(&v, times) || add_to(dst[k], v))
            return -1;
    }
    return 0;
}

/* Tile b of a dimension of n elements. */
static void block_factors(long long n, long long t, long long w, long long b,
                          dim_factors *f)
{
    const long long r = w / 2;
    const long long out0 = b * t;
    const long long o = n - out0 < t ? n - out0 : t;
    const long long in_lo = out0 - r > 0 ? out0 - r : 0;
    const long long in_hi = out0 + t + r < n ? out0 + t + r : n;
    f->tiles = 1;
    f->outputs = (count_t)o;
    f->accesses = (count_t)taps(out0, out0 + o, 0, n, r);
    f->in_loads = in_hi > in_lo ? (count_t)(in_hi - in_lo) : 0;
    f->in_width = (count_t)(t + w - 1);
    f->core = (count_t)taps(out0, out0 + o, out0, out0 + o, r);
}

/* An interior tile: no ghost cell, the whole tile inside N. */
static void interior_factors(long long t, long long w, dim_factors *f)
{
    f->tiles = 1;
    f->outputs = (count_t)t;
    f->accesses = (count_t)(t * w);
    f->in_loads = (count_t)(t + w - 1);
    f->in_width = (count_t)(t + w - 1);
    f->core = (count_t)taps(0, t, 0, t, w / 2);
}

/* The tiles of one dimension in order, as runs of equal factors: every
 * tile whose halo is clipped (or that is partial) alone, and the interior
 * tiles, b*t >= r and b*t + t + r <= n, as one run. There are at most
 * about 2r/t + 3 clipped tiles, so a walk costs that, whatever n is. */
typedef struct dim_walk {
    long long n, t, w, tiles, lo, hi, b;
} dim_walk;

typedef struct dim_run {
    size_t first;
    count_t count;
    dim_factors f;
} dim_run;

static void walk_start(dim_walk *it, long long n, long long t, long long w)
{
    const long long r = w / 2;
    it->n = n;
    it->t = t;
    it->w = w;
    it->tiles = (n + t - 1) / t;
    it->lo = (r + t - 1) / t;                   /* first interior tile */
    it->hi = n >= t + r ? (n - t - r) / t : -1; /* last interior tile */
    it->b = 0;
}

static int walk_next(dim_walk *it, dim_run *run)
{
    if (it->b >= it->tiles)
        return 0;
    run->first = (size_t)it->b;
    if (it->b >= it->lo && it->b <= it->hi) {
        run->count = (count_t)(it->hi - it->b + 1);
        interior_factors(it->t, it->w, &run->f);
        it->b = it->hi + 1;
    } else {
        run->count = 1;
        block_factors(it->n, it->t, it->w, it->b, &run->f);
        ++it->b;
    }
    return 1;
}

static clconv_status overflow(const clconv_problem *p)
{
    return clc_fail(CLCONV_EINVAL,
                    "the counts of a %dD problem of %zu x %zu x %zu elements "
                    "overflow 64 bits: give a smaller size",
                    p->dims, p->size[0], p->dims > 1 ? p->size[1] : 1,
                    p->dims > 2 ? p->size[2] : 1);
}

/* Combine per-dimension factors (of one tile or of sums) into counts;
 * CLCONV_EINVAL when a count overflows 64 bits. */
static clconv_status combine(const clconv_problem *p, const dim_factors f[3],
                             clconv_model_counts *c)
{
    count_t tiles = 1, outputs = 1, acc = 1, loads = 1, width = 1, core = 1,
            mask = 1, local = 0, global = 0;
    for (int d = 0; d < p->dims; ++d)
        if (mul_to(&tiles, f[d].tiles) || mul_to(&outputs, f[d].outputs) ||
            mul_to(&acc, f[d].accesses) || mul_to(&loads, f[d].in_loads) ||
            mul_to(&width, f[d].in_width) || mul_to(&core, f[d].core) ||
            mul_to(&mask, (count_t)p->mask_width))
            return overflow(p);
    memset(c, 0, sizeof *c);
    c->tiles = tiles;
    c->outputs = outputs;
    c->accesses = acc;
    switch (p->strategy) {
    case CLCONV_NAIVE:
        c->global_loads = acc;
        break;
    case CLCONV_OUTPUT_TILE:
    case CLCONV_INPUT_TILE:
        local = outputs;
        if (mul_to(&local, mask))
            return overflow(p);
        c->tile_loads = loads;
        c->global_loads = loads;
        c->ghost_cells = width - loads; /* width is summed over tiles */
        c->local_reads = local;
        break;
    default: /* CLCONV_CACHED_HALO; check_case refused the others */
        global = outputs;
        if (add_to(&global, acc - core))
            return overflow(p);
        c->tile_loads = outputs;
        c->halo_loads = acc - core;
        c->global_loads = global;
        c->local_reads = core;
        break;
    }
    c->reduction = c->global_loads ? (double)acc / (double)c->global_loads : 0.0;
    return CLCONV_OK;
}

int clconv_model_has_strategy(clconv_strategy s)
{
    switch (s) {
    case CLCONV_NAIVE:
    case CLCONV_OUTPUT_TILE:
    case CLCONV_INPUT_TILE:
    case CLCONV_CACHED_HALO:
        return 1;
    default:
        return 0;
    }
}

static clconv_status check_case(const clconv_problem *p)
{
    if (p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "dims must be 1, 2 or 3 (got %d)",
                        p->dims);
    if (p->mask_width < 1 || p->mask_width % 2 == 0)
        return clc_fail(CLCONV_EINVAL, "mask width must be odd and >= 1 "
                        "(got %d)", p->mask_width);
    if (p->tile < 1)
        return clc_fail(CLCONV_EINVAL, "tile must be >= 1 (got %d)", p->tile);
    if (!clconv_model_has_strategy(p->strategy))
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "the model covers naive, output_tile, input_tile and "
                        "cached_halo, not %s",
                        clconv_strategy_name(p->strategy));
    return CLCONV_OK;
}

/* Beyond this mask width a dimension has too many clipped tiles to walk
 * one by one in well under a second. */
#define CLC_MODEL_MAX_MASK (1 << 20)

static clconv_status check_sized(const clconv_problem *p)
{
    clconv_status st = check_case(p);
    if (st != CLCONV_OK)
        return st;
    if (p->mask_width > CLC_MODEL_MAX_MASK)
        return clc_fail(CLCONV_EINVAL, "the model counts masks up to %d wide "
                        "(got %d)", CLC_MODEL_MAX_MASK, p->mask_width);
    for (int d = 0; d < p->dims; ++d)
        if (p->size[d] < 1 || p->size[d] > (size_t)1 << 40)
            return clc_fail(CLCONV_EINVAL, "size[%d] must be 1..2^40 (got "
                            "%zu)", d, p->size[d]);
    return CLCONV_OK;
}

void clconv_model_grid(const clconv_problem *p, size_t tiles[3])
{
    for (int d = 0; d < 3; ++d)
        tiles[d] = d < p->dims && p->tile > 0
                       ? (p->size[d] + (size_t)p->tile - 1) / (size_t)p->tile
                       : 1;
}

clconv_status clconv_model_block(const clconv_problem *p, const size_t block[3],
                                 clconv_model_counts *out)
{
    clconv_status st = check_sized(p);
    if (st != CLCONV_OK)
        return st;
    size_t tiles[3];
    clconv_model_grid(p, tiles);
    dim_factors f[3];
    for (int d = 0; d < 3; ++d) {
        if (d >= p->dims)
            continue;
        if (block[d] >= tiles[d])
            return clc_fail(CLCONV_EINVAL, "block index %zu is outside the "
                            "grid: dimension %d has %zu tiles (0..%zu)",
                            block[d], d, tiles[d], tiles[d] - 1);
        block_factors((long long)p->size[d], p->tile, p->mask_width,
                      (long long)block[d], &f[d]);
    }
    return combine(p, f, out);
}

clconv_status clconv_model_problem(const clconv_problem *p,
                                   clconv_model_counts *out)
{
    clconv_status st = check_sized(p);
    if (st != CLCONV_OK)
        return st;
    dim_factors sum[3];
    memset(sum, 0, sizeof sum);
    for (int d = 0; d < p->dims; ++d) {
        dim_walk it;
        dim_run run;
        walk_start(&it, (long long)p->size[d], p->tile, p->mask_width);
        while (walk_next(&it, &run))
            if (add_factors(&sum[d], &run.f, run.count))
                return overflow(p);
    }
    return combine(p, sum, out);
}

/* Per dimension, the classes of tiles with equal factors, in order of
 * their first tile. At most cap classes (cap + 1: more). */
static size_t dim_classes(const clconv_problem *p, int d, dim_run *cls,
                          size_t cap)
{
    size_t n = 0;
    dim_walk it;
    dim_run run;
    walk_start(&it, (long long)p->size[d], p->tile, p->mask_width);
    while (walk_next(&it, &run)) {
        size_t k = 0;
        while (k < n && memcmp(&cls[k].f, &run.f, sizeof run.f) != 0)
            ++k;
        if (k == n) {
            if (n == cap)
                return cap + 1;
            cls[n] = run;
            cls[n].count = 0;
            ++n;
        }
        cls[k].count += run.count;
    }
    return n;
}

#define CLC_MODEL_MAX_CLASSES 64

clconv_status clconv_model_tile_kinds(const clconv_problem *p,
                                      clconv_model_kind *kinds, size_t cap,
                                      size_t *nkinds)
{
    clconv_status st = check_sized(p);
    if (st != CLCONV_OK)
        return st;
    dim_run cls[3][CLC_MODEL_MAX_CLASSES];
    size_t n[3] = {1, 1, 1};
    for (int d = 0; d < 3; ++d) {
        if (d >= p->dims) {
            memset(&cls[d][0], 0, sizeof cls[d][0]);
            cls[d][0].count = 1;
            continue;
        }
        n[d] = dim_classes(p, d, cls[d], CLC_MODEL_MAX_CLASSES);
        if (n[d] > CLC_MODEL_MAX_CLASSES) {
            *nkinds = 0;
            return clc_fail(CLCONV_EUNSUPPORTED,
                            "more than %d kinds of tiles along dimension %d "
                            "(mask much wider than the tile)",
                            CLC_MODEL_MAX_CLASSES, d);
        }
    }
    *nkinds = n[0] * n[1] * n[2];
    if (*nkinds > cap)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "%zu kinds of tiles, room for %zu", *nkinds, cap);
    size_t k = 0;
    for (size_t iz = 0; iz < n[2]; ++iz)
        for (size_t iy = 0; iy < n[1]; ++iy)
            for (size_t ix = 0; ix < n[0]; ++ix, ++k) {
                const dim_run *c[3] = {&cls[0][ix], &cls[1][iy], &cls[2][iz]};
                dim_factors f[3];
                for (int d = 0; d < 3; ++d) {
                    f[d] = c[d]->f;
                    kinds[k].first[d] = c[d]->first;
                }
                if ((st = combine(p, f, &kinds[k].counts)) != CLCONV_OK)
                    return st;
                count_t tiles = c[0]->count;
                if (mul_to(&tiles, c[1]->count) || mul_to(&tiles, c[2]->count))
                    return overflow(p);
                kinds[k].counts.tiles = tiles;
            }
    return CLCONV_OK;
}

clconv_status clc_model_interior_counts(const clconv_problem *p,
                                        clconv_model_counts *out)
{
    clconv_status st = check_case(p);
    if (st != CLCONV_OK)
        return st;
    dim_factors f[3];
    for (int d = 0; d < 3; ++d)
        interior_factors(p->tile, p->mask_width, &f[d]);
    return combine(p, f, out);
}
