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
        if (clc_count_mul(&tiles, f[d].tiles) || clc_count_mul(&outputs, f[d].outputs) ||
            clc_count_mul(&acc, f[d].accesses) || clc_count_mul(&loads, f[d].in_loads) ||
            clc_count_mul(&width, f[d].in_width) || clc_count_mul(&core, f[d].core) ||
            clc_count_mul(&mask, (count_t)clconv_problem_mask_axis(p, d)))
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
        if (clc_count_mul(&local, mask))
            return overflow(p);
        c->tile_loads = loads;
        c->global_loads = loads;
        c->ghost_cells = width - loads; /* width is summed over tiles */
        c->local_reads = local;
        break;
    default: /* CLCONV_CACHED_HALO; check_case refused the others */
        global = outputs;
        if (clc_count_add(&global, acc - core))
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
    if (!p)
        return clc_fail(CLCONV_EINVAL, "no problem given (NULL)");
    if (p->dims < 1 || p->dims > 3)
        return clc_fail(CLCONV_EINVAL, "dims must be 1, 2 or 3 (got %d)",
                        p->dims);
    for (int d = 0; d < p->dims; ++d) {
        const int w = clconv_problem_mask_axis(p, d);
        if (w < 1)
            return clc_fail(CLCONV_EINVAL, "mask width must be >= 1 (got %d "
                            "along axis %d)", w, d);
        if (p->origin[d] < -(w / 2) || p->origin[d] > (w - 1) / 2)
            return clc_fail(CLCONV_EINVAL, "origin %d along axis %d is out "
                            "of range for a mask %d wide", p->origin[d], d, w);
    }
    if ((unsigned)p->border >= CLCONV_BORDER_COUNT)
        return clc_fail(CLCONV_EINVAL, "unknown border mode %d",
                        (int)p->border);
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
/* In the folded modes the clipped tiles' local reads are counted tap by
 * tap: about (W + 3 T) * W per dimension. */
#define CLC_MODEL_MAX_FOLDED 4096

static clconv_status check_sized(const clconv_problem *p)
{
    clconv_status st = check_case(p);
    if (st != CLCONV_OK)
        return st;
    const int most = p->border == CLCONV_BORDER_CONSTANT
                         ? CLC_MODEL_MAX_MASK
                         : CLC_MODEL_MAX_FOLDED;
    for (int d = 0; d < p->dims; ++d)
        if (clconv_problem_mask_axis(p, d) > most)
            return clc_fail(CLCONV_EINVAL, "the model counts masks up to %d "
                            "wide in mode %s (got %d)", most,
                            clconv_border_name(p->border),
                            clconv_problem_mask_axis(p, d));
    for (int d = 0; d < p->dims; ++d)
        if (p->size[d] < 1 || p->size[d] > (size_t)1 << 40)
            return clc_fail(CLCONV_EINVAL, "size[%d] must be 1..2^40 (got "
                            "%zu)", d, p->size[d]);
    return CLCONV_OK;
}

void clconv_model_grid(const clconv_problem *p, size_t tiles[3])
{
    for (int d = 0; tiles && d < 3; ++d) /* no problem: one tile */
        tiles[d] = p && d < p->dims && p->tile > 0
                       ? (p->size[d] + (size_t)p->tile - 1) / (size_t)p->tile
                       : 1;
}

clconv_status clconv_model_block(const clconv_problem *p, const size_t block[3],
                                 clconv_model_counts *out)
{
    if (!block || !out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the counts (NULL)");
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
        const dim_mask m = clc_dim_mask_of(p, d);
        clc_dim_block_factors((long long)p->size[d], p->tile, &m, (long long)block[d],
                      &f[d]);
    }
    return combine(p, f, out);
}

clconv_status clconv_model_problem(const clconv_problem *p,
                                   clconv_model_counts *out)
{
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the counts (NULL)");
    clconv_status st = check_sized(p);
    if (st != CLCONV_OK)
        return st;
    dim_factors sum[3];
    memset(sum, 0, sizeof sum);
    for (int d = 0; d < p->dims; ++d) {
        dim_walk it;
        dim_run run;
        const dim_mask m = clc_dim_mask_of(p, d);
        clc_dim_walk_start(&it, (long long)p->size[d], p->tile, &m);
        while (clc_dim_walk_next(&it, &run))
            if (clc_dim_add_factors(&sum[d], &run.f, run.count))
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
    const dim_mask m = clc_dim_mask_of(p, d);
    clc_dim_walk_start(&it, (long long)p->size[d], p->tile, &m);
    while (clc_dim_walk_next(&it, &run)) {
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
    if (!nkinds || (cap && !kinds))
        return clc_fail(CLCONV_EINVAL, "nowhere to put the counts (NULL)");
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
                if (clc_count_mul(&tiles, c[1]->count) || clc_count_mul(&tiles, c[2]->count))
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
    for (int d = 0; d < 3; ++d) {
        const dim_mask m = clc_dim_mask_of(p, d);
        clc_dim_interior_factors(p->tile, &m, &f[d]);
    }
    return combine(p, f, out);
}
