/* One interior tile of clconv model: its bandwidth reduction, its
 * work-group's warps (which items compute), and the roofline of the notes'
 * last tables. The grid's counts are model.c's. */
#include <math.h>
#include <string.h>

#include "clconv_model.h"
#include "internal.h"
#include "model.h"

double clconv_model_interior_reduction(int dims, int tile, int mask_width)
{
    const double num = (double)tile * (double)mask_width;
    const double den = (double)tile + (double)mask_width - 1.0;
    return pow(num / den, (double)dims);
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

/* The most work-items of a group whose warps are walked one by one (an
 * input_tile group, where only some compute); larger ones, which no device
 * has, would take seconds to minutes. */
#define CLC_MODEL_MAX_WALK (1LL << 31)

/* Warps of warp_width consecutive work-items: active, idle, divergent. In
 * closed form when every work-item computes (a == g); else warp by warp. */
static clconv_status count_warps(const long long g[3], const long long a[3],
                                 long long group, int warp_width,
                                 clconv_model_interior *out)
{
    out->warp_width = warp_width;
    out->warps = (group + warp_width - 1) / warp_width;
    if (a[0] == g[0] && a[1] == g[1] && a[2] == g[2]) {
        out->active_warps = out->warps;
        out->active_items_per_warp_max = group < warp_width ? group : warp_width;
        return CLCONV_OK;
    }
    if (group > CLC_MODEL_MAX_WALK)
        return clc_fail(CLCONV_EINVAL,
                        "a work-group of %lld work-items is beyond the "
                        "model's warp analysis (at most %lld)",
                        group, CLC_MODEL_MAX_WALK);
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

clconv_status clconv_model_interior_of(const clconv_problem *p, int warp_width,
                                       clconv_model_interior *out)
{
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the model (NULL)");
    memset(out, 0, sizeof *out);
    clconv_status st = clc_model_interior_counts(p, &out->counts);
    if (st != CLCONV_OK)
        return st;
    if (warp_width < 1)
        return clc_fail(CLCONV_EINVAL, "warp width must be >= 1 (got %d)",
                        warp_width);

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
    return count_warps(g, a, group, warp_width, out);
}

void clconv_model_roof_of(double reduction, double peak_gflops,
                          double bandwidth_gbs, clconv_model_roof *out)
{
    if (!out)
        return;
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
