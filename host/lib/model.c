/* clconv model: the counting of the reference notes, for any case.
 *
 * Every count of a tile is a product of one factor per dimension (an
 * output, input element or mask tap is inside N exactly when each of its
 * coordinates is), so a tile is described by its 1D factors, and the sum
 * over a grid of tiles is the product of the per-dimension sums. */
#include <math.h>
#include <string.h>

#include "clconv_model.h"
#include "internal.h"

double clconv_model_interior_reduction(int dims, int tile, int mask_width)
{
    const double num = (double)tile * (double)mask_width;
    const double den = (double)tile + (double)mask_width - 1.0;
    return pow(num / den, (double)dims);
}

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

/* The 1D factors of a tile, or their sum over tiles of one dimension. */
typedef struct dim_factors {
    long long tiles;
    long long outputs;  /* outputs inside N */
    long long accesses; /* taps inside N of those outputs */
    long long in_loads; /* input-tile elements inside N */
    long long in_width; /* input-tile elements, inside N or not */
    long long core;     /* taps inside the tile's own (core) elements */
} dim_factors;

static void add_factors(dim_factors *sum, const dim_factors *f)
{
    sum->tiles += f->tiles;
    sum->outputs += f->outputs;
    sum->accesses += f->accesses;
    sum->in_loads += f->in_loads;
    sum->in_width += f->in_width;
    sum->core += f->core;
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
    f->outputs = o;
    f->accesses = taps(out0, out0 + o, 0, n, r);
    f->in_loads = in_hi > in_lo ? in_hi - in_lo : 0;
    f->in_width = t + w - 1;
    f->core = taps(out0, out0 + o, out0, out0 + o, r);
}

/* An interior tile: no ghost cell, the whole tile inside N. */
static void interior_factors(long long t, long long w, dim_factors *f)
{
    f->tiles = 1;
    f->outputs = t;
    f->accesses = t * w;
    f->in_loads = t + w - 1;
    f->in_width = t + w - 1;
    f->core = taps(0, t, 0, t, w / 2);
}

/* Combine per-dimension factors (of one tile or of sums) into counts. */
static void combine(const clconv_problem *p, const dim_factors f[3],
                    clconv_model_counts *c)
{
    long long tiles = 1, outputs = 1, acc = 1, loads = 1, width = 1, core = 1,
              mask = 1;
    for (int d = 0; d < p->dims; ++d) {
        tiles *= f[d].tiles;
        outputs *= f[d].outputs;
        acc *= f[d].accesses;
        loads *= f[d].in_loads;
        width *= f[d].in_width;
        core *= f[d].core;
        mask *= p->mask_width;
    }
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
        c->tile_loads = loads;
        c->global_loads = loads;
        c->ghost_cells = width - loads; /* width is summed over tiles */
        c->local_reads = outputs * mask;
        break;
    default: /* CLCONV_CACHED_HALO; check_case refused the others */
        c->tile_loads = outputs;
        c->halo_loads = acc - core;
        c->global_loads = outputs + acc - core;
        c->local_reads = core;
        break;
    }
    c->reduction = c->global_loads ? (double)acc / (double)c->global_loads : 0.0;
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

static clconv_status check_sized(const clconv_problem *p)
{
    clconv_status st = check_case(p);
    if (st != CLCONV_OK)
        return st;
    for (int d = 0; d < p->dims; ++d)
        if (p->size[d] < 1 || p->size[d] > (size_t)1 << 40)
            return clc_fail(CLCONV_EINVAL, "size[%d] must be 1..2^40 (got "
                            "%zu)", d, p->size[d]);
    return CLCONV_OK;
}

/* Active work-items with linear index < n: item (x, y, z) of a group of
 * g[] computes when x < a[0], y < a[1] and z < a[2]. */
static long long active_before(long long n, const long long g[3],
                               const long long a[3])
{
    const long long plane = g[0] * g[1];
    const long long zq = n / plane, rem = n % plane;
    const long long yq = rem / g[0], xq = rem % g[0];
    long long count = (zq < a[2] ? zq : a[2]) * a[1] * a[0];
    if (zq < a[2]) {
        count += (yq < a[1] ? yq : a[1]) * a[0];
        if (yq < a[1])
            count += xq < a[0] ? xq : a[0];
    }
    return count;
}

clconv_status clconv_model_interior_of(const clconv_problem *p, int warp_width,
                                       clconv_model_interior *out)
{
    clconv_status st = check_case(p);
    if (st != CLCONV_OK)
        return st;
    if (warp_width < 1)
        return clc_fail(CLCONV_EINVAL, "warp width must be >= 1 (got %d)",
                        warp_width);
    memset(out, 0, sizeof *out);
    dim_factors f[3];
    for (int d = 0; d < 3; ++d)
        interior_factors(p->tile, p->mask_width, &f[d]);
    combine(p, f, &out->counts);

    /* The launch geometry of the variant table, for a one-tile grid. */
    clconv_problem one = *p;
    for (int d = 0; d < 3; ++d)
        one.size[d] = d < p->dims ? (size_t)p->tile : 1;
    clc_geometry geo;
    clc_geometry_of(&one, &geo);
    long long g[3], a[3], group = 1, outputs = 1;
    for (int d = 0; d < 3; ++d) {
        g[d] = (long long)geo.local[d];
        /* input_tile: only the inner TILE_WIDTH work-items compute */
        a[d] = d < p->dims && p->strategy == CLCONV_INPUT_TILE ? p->tile : g[d];
        group *= g[d];
        if (d < p->dims)
            outputs *= p->tile;
    }
    out->group_size = group;
    out->computing_items = outputs;
    out->local_bytes = (long long)geo.local_floats * (long long)sizeof(float);
    out->max_loads_per_item =
        p->strategy == CLCONV_NAIVE
            ? 0
            : (out->counts.tile_loads + group - 1) / group;
    out->warp_width = warp_width;
    out->warps = (group + warp_width - 1) / warp_width;
    for (long long w = 0; w < out->warps; ++w) {
        const long long lo = w * warp_width;
        const long long hi = lo + warp_width < group ? lo + warp_width : group;
        const long long act = active_before(hi, g, a) - active_before(lo, g, a);
        if (act == 0) {
            ++out->idle_warps;
            continue;
        }
        ++out->active_warps;
        if (act < hi - lo)
            ++out->divergent_warps;
        if (act > out->active_items_per_warp_max)
            out->active_items_per_warp_max = act;
    }
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
    combine(p, f, out);
    return CLCONV_OK;
}

clconv_status clconv_model_problem(const clconv_problem *p,
                                   clconv_model_counts *out)
{
    clconv_status st = check_sized(p);
    if (st != CLCONV_OK)
        return st;
    size_t tiles[3];
    clconv_model_grid(p, tiles);
    dim_factors sum[3];
    memset(sum, 0, sizeof sum);
    for (int d = 0; d < p->dims; ++d)
        for (size_t b = 0; b < tiles[d]; ++b) {
            dim_factors f;
            block_factors((long long)p->size[d], p->tile, p->mask_width,
                          (long long)b, &f);
            add_factors(&sum[d], &f);
        }
    combine(p, sum, out);
    return CLCONV_OK;
}

/* Per dimension, the classes of tiles with equal factors, in order of
 * their first tile. At most cap classes. */
typedef struct dim_class {
    size_t first;
    long long count;
    dim_factors f;
} dim_class;

static size_t dim_classes(const clconv_problem *p, int d, dim_class *cls,
                          size_t cap)
{
    size_t tiles[3], n = 0;
    clconv_model_grid(p, tiles);
    for (size_t b = 0; b < tiles[d]; ++b) {
        dim_factors f;
        block_factors((long long)p->size[d], p->tile, p->mask_width,
                      (long long)b, &f);
        size_t k = 0;
        while (k < n && memcmp(&cls[k].f, &f, sizeof f) != 0)
            ++k;
        if (k == n) {
            if (n == cap)
                return cap + 1;
            cls[n].first = b;
            cls[n].count = 0;
            cls[n].f = f;
            ++n;
        }
        ++cls[k].count;
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
    dim_class cls[3][CLC_MODEL_MAX_CLASSES];
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
                const dim_class *c[3] = {&cls[0][ix], &cls[1][iy], &cls[2][iz]};
                dim_factors f[3];
                for (int d = 0; d < 3; ++d) {
                    f[d] = c[d]->f;
                    kinds[k].first[d] = c[d]->first;
                }
                combine(p, f, &kinds[k].counts);
                kinds[k].counts.tiles = c[0]->count * c[1]->count * c[2]->count;
            }
    return CLCONV_OK;
}

void clconv_model_roof_of(double reduction, double peak_gflops,
                          double bandwidth_gbs, clconv_model_roof *out)
{
    out->bytes_per_flop = CLCONV_MODEL_BYTES_PER_ACCESS /
                          CLCONV_MODEL_FLOPS_PER_ACCESS / reduction;
    out->bandwidth_gflops = bandwidth_gbs / out->bytes_per_flop;
    out->percent_of_peak = 100.0 * out->bandwidth_gflops / peak_gflops;
    out->reachable_percent =
        out->percent_of_peak < 100.0 ? out->percent_of_peak : 100.0;
}

double clconv_model_reuse_needed(double peak_gflops, double bandwidth_gbs)
{
    clconv_model_roof untiled;
    clconv_model_roof_of(1.0, peak_gflops, bandwidth_gbs, &untiled);
    return 100.0 / untiled.percent_of_peak;
}
