/* The variant table: every consumer (plans, build options, tuning, help
 * texts, limits) reads a variant's row instead of knowing it. A new
 * variant is one enum line in clconv.h, one clc_variant row (in its
 * family's variant_*.c file, declared with the others in internal.h and
 * listed in variants[] below) and its cl/conv{1,2,3}d_<name>.cl files. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Indexed by clconv_strategy. */
static const clc_variant *const variants[CLCONV_STRATEGY_COUNT] = {
    [CLCONV_NAIVE] = &clc_variant_naive,
    [CLCONV_OUTPUT_TILE] = &clc_variant_output_tile,
    [CLCONV_INPUT_TILE] = &clc_variant_input_tile,
    [CLCONV_CACHED_HALO] = &clc_variant_cached_halo,
    [CLCONV_COARSE] = &clc_variant_coarse,
    [CLCONV_VECTOR] = &clc_variant_vector,
};

const clc_variant *clc_variant_get(clconv_strategy s)
{
    if ((int)s < 0 || s >= CLCONV_STRATEGY_COUNT)
        return NULL;
    return variants[s];
}

int clc_kernel_stem(clconv_strategy s, int dims, char *buf, size_t len)
{
    const clc_variant *v = clc_variant_get(s);
    if (!v || dims < 1 || dims > 3)
        return -1;
    int n = snprintf(buf, len, "conv%dd_%s", dims, v->name);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

const char *clconv_strategy_name(clconv_strategy s)
{
    const clc_variant *v = clc_variant_get(s);
    return v ? v->name : "unknown";
}

const char *clconv_strategy_summary(clconv_strategy s)
{
    const clc_variant *v = clc_variant_get(s);
    return v ? v->summary : "";
}

size_t clconv_strategy_list(char *buf, size_t len)
{
    size_t n = 0;
    if (!buf) /* only the length, as snprintf(NULL, 0, ...) */
        len = 0;
    if (len)
        buf[0] = '\0';
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        int k = snprintf(buf + n, len > n ? len - n : 0, "%s%s",
                         s ? ", " : "", variants[s]->name);
        n += k > 0 ? (size_t)k : 0;
    }
    return n;
}

clconv_status clconv_strategy_parse(const char *name, clconv_strategy *out)
{
    if (!name || !out)
        return clc_fail(CLCONV_EINVAL,
                        "no strategy name or result given (NULL)");
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        if (strcmp(name, variants[s]->name) == 0) {
            *out = (clconv_strategy)s;
            return CLCONV_OK;
        }
    char list[256];
    clconv_strategy_list(list, sizeof list);
    return clc_fail(CLCONV_EINVAL, "unknown strategy '%s' (%s)", name, list);
}

/* The variant's row for dims, or NULL. */
static const clc_variant_dims *dims_row(clconv_strategy s, int dims)
{
    const clc_variant *v = clc_variant_get(s);
    return v && dims >= 1 && dims <= 3 ? &v->dims[dims - 1] : NULL;
}

int clconv_strategy_knobs(clconv_strategy s, int dims)
{
    const clc_variant_dims *r = dims_row(s, dims);
    int bits = 0;
    for (int k = 0; r && k < CLC_KNOB_PUBLIC; ++k)
        if (r->knob[k].define)
            bits |= 1 << k;
    return bits;
}

clconv_status clconv_knob_range(clconv_strategy s, int dims, int knob,
                                int *min, int *max)
{
    if (!min || !max)
        return clc_fail(CLCONV_EINVAL, "no min or max given (NULL)");
    const clc_variant_dims *r = dims_row(s, dims);
    for (int k = 0; r && k < CLC_KNOB_PUBLIC; ++k)
        if (knob == 1 << k && r->knob[k].define) {
            *min = r->knob[k].min;
            *max = r->knob[k].max;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL, "%s does not read that knob in %dD",
                    clconv_strategy_name(s), dims);
}

void clconv_knob_bounds(int knob, int *min, int *max)
{
    if (!min || !max)
        return;
    *min = 0;
    *max = 0;
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        for (int d = 1; d <= 3; ++d) {
            int lo, hi;
            if (!(clconv_strategy_knobs((clconv_strategy)s, d) & knob) ||
                clconv_knob_range((clconv_strategy)s, d, knob, &lo, &hi))
                continue;
            if (!*max || lo < *min)
                *min = lo;
            if (hi > *max)
                *max = hi;
        }
}

/* Limits assumed without a device: 1024 work-items in every direction,
 * local memory unlimited (the defaults clconv_default_tile documents). */
static const clconv_device_info *limits_of(const clconv_device_info *dev,
                                           clconv_device_info *generic)
{
    if (dev)
        return dev;
    memset(generic, 0, sizeof *generic);
    generic->max_work_group_size = 1024;
    for (int d = 0; d < 3; ++d)
        generic->max_work_item_sizes[d] = 1024;
    generic->local_mem_bytes = UINT64_MAX;
    return generic;
}

/* The largest tile, from the variant's preferred one down by halving,
 * whose work-group and local memory fit dev (1 if none does). */
static int fitted_tile(const clconv_device_info *dev, const clc_variant *v,
                       const clc_config *c)
{
    clconv_device_info generic;
    const clconv_device_info *lim = limits_of(dev, &generic);
    clc_config t = *c;
    int tile = v->preferred_tile ? v->preferred_tile(c)
                                 : v->dims[c->p.dims - 1].tile;
    for (; tile > 1; tile /= 2) {
        clc_geometry g;
        t.p.tile = tile;
        v->geometry(&t, &g);
        if (clc_geometry_check(lim, t.p.dims, &g, NULL, 0))
            break;
    }
    return tile;
}

void clc_config_resolve(const clconv_device_info *dev,
                        const clc_overrides *ov, const clconv_problem *p,
                        clc_config *c)
{
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->batch = 1;
    c->cvt_bits = clc_cvt_bits(dev);
    c->p.mask_mode = clc_mask_mode_for(dev, p);
    const clc_variant *v = clc_variant_get(p->strategy);
    if (!v || p->dims < 1 || p->dims > 3)
        return;
    const clc_variant_dims *r = &v->dims[p->dims - 1];
    const int given[CLC_KNOB_PUBLIC] = {p->coarsen, p->group_y};
    for (int k = 0; k < CLC_KNOB_PUBLIC; ++k)
        if (r->knob[k].define)
            c->knob[k] = given[k];
    v->defaults(dev, ov, c);
    if (r->knob[CLC_KNOB_COARSEN].define)
        c->p.coarsen = c->knob[CLC_KNOB_COARSEN];
    if (r->knob[CLC_KNOB_GROUP_Y].define)
        c->p.group_y = c->knob[CLC_KNOB_GROUP_Y];
    if (c->p.tile == 0)
        c->p.tile = fitted_tile(dev, v, c);
}

void clc_config_resolve_batched(const clconv_device_info *dev,
                                const clc_overrides *ov,
                                const clconv_problem *p, clc_config *c)
{
    clconv_problem member;
    const size_t batch = clc_batch_member(p, &member);
    clc_config_resolve(dev, ov, &member, c);
    c->batch = batch;
    c->batch_loop = ov && ov->batch_loop && batch > 1 && c->p.dims < 3;
}

/* The launch geometry; a batch adds one dimension, a work-group 1 deep
 * (1 long too when the kernel loops over the members). */
void clc_config_geometry(const clc_config *c, clc_geometry *g)
{
    clc_variant_get(c->p.strategy)->geometry(c, g);
    if (c->batch > 1 && c->p.dims < 3) {
        g->global[c->p.dims] = c->batch_loop ? 1 : c->batch;
        g->local[c->p.dims] = 1;
    }
}

size_t clc_config_split_rows(const clc_config *c)
{
    const clc_variant *v = clc_variant_get(c->p.strategy);
    return v && v->split_rows ? v->split_rows(c) : 1;
}

void clc_geometry_of(const clconv_problem *p, clc_geometry *g)
{
    clc_config c;
    clc_config_resolve(NULL, NULL, p, &c);
    clc_config_geometry(&c, g);
}

size_t clc_config_defines(const clc_config *c, char *buf, size_t len)
{
    const clc_variant_dims *r = dims_row(c->p.strategy, c->p.dims);
    /* The filter's defines (MASK_WIDTH and TILE_WIDTH first, as ever),
     * then the variant's knobs. */
    size_t n = clc_filter_defines(&c->p, buf, len);
    for (int k = 0; r && k < CLC_KNOB_COUNT; ++k) {
        if (!r->knob[k].define || n >= len)
            continue;
        int m = snprintf(buf + n, len - n, " -D %s=%d", r->knob[k].define,
                         c->knob[k]);
        n += m > 0 ? (size_t)m : 0;
    }
    if (n < len)
        n += clc_elem_defines(c, buf + n, len - n);
    if (c->batch_loop && n < len) {
        int m = snprintf(buf + n, len - n, " -D CLCONV_BATCH_LOOP=%zu",
                         c->batch);
        n += m > 0 ? (size_t)m : 0;
    }
    return n < len ? n : len - 1;
}

int clc_pocl_cpu(const clconv_device_info *dev)
{
    return dev && dev->kind == CLCONV_DEVICE_CPU &&
           strstr(dev->platform, "Portable Computing Language") != NULL;
}

int clc_cvt_bits(const clconv_device_info *dev)
{
    return clc_pocl_cpu(dev);
}

size_t clc_elem_defines(const clc_config *c, char *buf, size_t len)
{
    /* Only where not float32 (cl/dtype.clh). */
    const clconv_elem t[2] = {c->p.in_dtype, c->p.out_dtype};
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < 2 && n < len; ++k) {
        if (t[k] == CLCONV_ELEM_F32)
            continue;
        char up[8] = "";
        for (int i = 0; clconv_elem_name(t[k])[i] && i < 7; ++i)
            up[i] = (char)toupper((unsigned char)clconv_elem_name(t[k])[i]);
        int m = snprintf(buf + n, len - n,
                         " -D CLCONV_%s_DTYPE=CLCONV_DTYPE_%s",
                         k ? "OUT" : "IN", up);
        n += m > 0 ? (size_t)m : 0;
    }
    const int integer = (t[0] != CLCONV_ELEM_F32 && t[0] != CLCONV_ELEM_F16) ||
                        (t[1] != CLCONV_ELEM_F32 && t[1] != CLCONV_ELEM_F16);
    if (c->cvt_bits && integer && n < len) {
        int m = snprintf(buf + n, len - n, " -D CLCONV_CVT_BITS=1");
        n += m > 0 ? (size_t)m : 0;
    }
    return n < len ? n : len - 1;
}

/* p resolved with the measuring overrides a session made now would read
 * (the environment's), so that a default tile fits the kernel it runs. */
static void resolve_as_a_session_would(const clconv_device_info *dev,
                                       const clconv_problem *p, clc_config *c)
{
    clc_overrides ov;
    clc_overrides_read(&ov);
    clc_config_resolve_batched(dev, &ov, p, c);
}

int clconv_default_tile(clconv_strategy s, int dims, int mask_width)
{
    clconv_problem p = {.dims = dims, .mask_width = mask_width, .strategy = s};
    return clconv_default_tile_for(NULL, &p);
}

int clconv_default_tile_for(const clconv_device_info *dev,
                            const clconv_problem *p)
{
    if (!p || !clc_variant_get(p->strategy) || p->dims < 1 || p->dims > 3)
        return 1;
    clconv_problem q = *p;
    q.tile = 0;
    clc_config c;
    resolve_as_a_session_would(dev, &q, &c);
    return c.p.tile;
}

clconv_status clconv_problem_fits(const clconv_device_info *dev,
                                  const clconv_problem *p)
{
    clconv_status st = clconv_problem_validate(p);
    if (st == CLCONV_OK)
        st = clc_launch_check(p);
    if (st != CLCONV_OK)
        return st;
    if (!dev)
        return clc_fail(CLCONV_EINVAL, "no device given (NULL)");
    clc_config c;
    clc_geometry g;
    clc_config_resolve_batched(dev, NULL, p, &c);
    clc_config_geometry(&c, &g);
    return clc_problem_fits(dev, &c, &g);
}

clconv_status clconv_problem_defines(const clconv_device_info *dev,
                                     const clconv_problem *p, char *buf,
                                     size_t len)
{
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK || !len)
        return st;
    if (!buf)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the defines (NULL)");
    clc_config c;
    clc_config_resolve_batched(dev, NULL, p, &c);
    clc_config_defines(&c, buf, len);
    return CLCONV_OK;
}

void clconv_pick_default(const clconv_device_info *dev, clconv_problem *p)
{
    /* Measured: coarse is the H100's best on all eight standard problems
     * (bench/results/2026-11-22-h100); vector is PoCL's best on all eight
     * quick problems, 2.7-12.5x ahead of the others on 2 cores
     * (bench/results/2026-11-22-local-2core). clconv tune refines both. */
    if (!p)
        return;
    p->strategy = dev && dev->kind == CLCONV_DEVICE_CPU ? CLCONV_VECTOR
                                                        : CLCONV_COARSE;
    p->coarsen = 0;
    p->group_y = 0;
    p->tile = clconv_default_tile_for(dev, p);
}

static const char *const mask_mode_names[] = {"auto", "argument", "baked"};

const char *clconv_mask_mode_name(clconv_mask_mode m)
{
    return (unsigned)m < 3 ? mask_mode_names[m] : "?";
}

clconv_status clconv_mask_mode_parse(const char *name, clconv_mask_mode *out)
{
    if (!name || !out)
        return clc_fail(CLCONV_EINVAL,
                        "no mask mode name or result given (NULL)");
    for (int m = 0; m < 3; ++m)
        if (strcmp(name, mask_mode_names[m]) == 0) {
            *out = (clconv_mask_mode)m;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown mask mode '%s' (auto, argument, baked)", name);
}

clconv_mask_mode clc_mask_mode_for(const clconv_device_info *dev,
                                   const clconv_problem *p)
{
    const clc_variant *v = clc_variant_get(p->strategy);
    if (p->mask_mode != CLCONV_MASK_AUTO || !dev || !v)
        return p->mask_mode;
    /* On GPUs the fast variants take the mask as constants (immediates on
     * NVIDIA: bench/PERF.md item 9); the notes' strategies keep the notes'
     * __constant argument. On CPUs (PoCL) baking did not pay and costs a
     * JIT of about 2 s per mask. */
    return v->baked_off_cpu && dev->kind != CLCONV_DEVICE_CPU
               ? CLCONV_MASK_BAKED
               : CLCONV_MASK_ARGUMENT;
}

void clconv_problem_apply_defaults(const clconv_device_info *dev,
                                   clconv_problem *p)
{
    if (!p)
        return;
    clc_config c;
    resolve_as_a_session_would(dev, p, &c);
    clc_config_settings_to(&c, p);
}

void clc_config_settings_to(const clc_config *c, clconv_problem *p)
{
    p->tile = c->p.tile;
    p->coarsen = c->p.coarsen;
    p->group_y = c->p.group_y;
    p->mask_mode = c->p.mask_mode;
}
