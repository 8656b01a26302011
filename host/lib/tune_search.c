/* The tuning search: the bounded candidate grid of a problem, and the
 * loop that verifies and times each candidate within a time budget. */
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "clconv_model.h"
#include "clconv_tune.h"
#include "internal.h"

/* The i-th index of 0..n-1 visited from the middle outwards: for n = 5,
 * 2 1 3 0 4; for n = 4, 2 1 3 0. */
static size_t middle_out(size_t i, size_t n)
{
    const size_t mid = n / 2, step = (i + 1) / 2;
    return i % 2 ? mid - step : mid + step;
}

/* Does the kernel folder hold this strategy's source for dims? */
static int available(clconv_strategy s, int dims)
{
    uint64_t h;
    return clconv_kernel_hash(s, dims, &h) == CLCONV_OK;
}

/* More than the default, the strategies' defaults, the bench tiles and
 * the largest coarse grid together. */
#define MAX_CANDIDATES 512

typedef struct cand_list {
    clconv_tune_candidate *out;
    size_t n, max;
} cand_list;

static void add(cand_list *l, int dims, clconv_strategy s, int tile,
                int coarsen, int group_y)
{
    const int knobs = clconv_strategy_knobs(s, dims);
    if (!(knobs & CLCONV_KNOB_COARSEN))
        coarsen = 0; /* only knobs the strategy reads tell candidates apart */
    if (!(knobs & CLCONV_KNOB_GROUP_Y))
        group_y = 0;
    const clconv_tune_candidate c = {s, tile, coarsen, group_y};
    for (size_t i = 0; i < l->n; ++i)
        if (memcmp(&l->out[i], &c, sizeof c) == 0)
            return;
    if (l->n < l->max)
        l->out[l->n++] = c;
}

/* A variant's tuning grid from its table row: every tile x group_y x
 * coarsen, middle-out along each knob so that a search the budget cuts
 * short has seen the likely values of every knob first. */
static void add_grid(cand_list *l, int dims, const clc_variant *v)
{
    const clc_variant_dims *r = &v->dims[dims - 1];
    static const int zero = 0;
    const clc_ints none = {&zero, 1}, kt = r->tiles;
    const clc_ints kc = r->knob[CLC_KNOB_COARSEN].grid.n
                            ? r->knob[CLC_KNOB_COARSEN].grid
                            : none;
    const clc_ints kg = r->knob[CLC_KNOB_GROUP_Y].grid.n
                            ? r->knob[CLC_KNOB_GROUP_Y].grid
                            : none;
    for (size_t c = 0; c < kc.n; ++c)
        for (size_t g = 0; g < kg.n; ++g)
            for (size_t t = 0; t < kt.n; ++t)
                add(l, dims, v->strategy, kt.v[middle_out(t, kt.n)],
                    kc.v[middle_out(c, kc.n)], kg.v[middle_out(g, kg.n)]);
}

/* The order a budget-limited search should try candidates in: predicted
 * global loads of N per output. The notes' model gives W^d / reduction
 * for the tiled strategies and W^d for naive; coarse and vector load each
 * input about once (register windows, cache). On CPUs the three local-
 * memory strategies pay the barrier that splits PoCL's work-group loops:
 * 4.5x measured (../shared/PERF-NOTES.md, "PoCL on the CPU"). */
static double predicted_cost(const clconv_device_info *dev, int dims, int w,
                             const clconv_tune_candidate *c)
{
    double taps = 1.0;
    for (int d = 0; d < dims; ++d)
        taps *= w;
    switch (c->strategy) {
    case CLCONV_NAIVE:
        return taps;
    case CLCONV_COARSE:
    case CLCONV_VECTOR:
        return 1.0;
    default: {
        double red = clconv_model_interior_reduction(dims, c->tile, w);
        double cost = red > 0 ? taps / red : taps;
        return dev && dev->kind == CLCONV_DEVICE_CPU ? 4.5 * cost : cost;
    }
    }
}

typedef struct ranked {
    clconv_tune_candidate c;
    double cost;
    size_t index; /* ties keep the grid's middle-out order */
} ranked;

static int by_cost(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Everything after the default pick (first) by predicted cost. */
static void order_by_model(const clconv_device_info *dev,
                           const clconv_problem *p, clconv_tune_candidate *c,
                           size_t n)
{
    ranked *r = n > 1 ? malloc((n - 1) * sizeof *r) : NULL;
    if (!r)
        return; /* keep the grid's order */
    for (size_t i = 1; i < n; ++i)
        r[i - 1] = (ranked){c[i], predicted_cost(dev, p->dims, p->mask_width,
                                                 &c[i]),
                            i};
    qsort(r, n - 1, sizeof *r, by_cost);
    for (size_t i = 1; i < n; ++i)
        c[i] = r[i - 1].c;
    free(r);
}

size_t clconv_tune_candidates(const clconv_device_info *dev,
                              const clconv_problem *p,
                              clconv_tune_candidate *out, size_t max)
{
    clconv_tune_candidate all[MAX_CANDIDATES];
    cand_list l = {all, 0, MAX_CANDIDATES};
    if (!p || p->dims < 1 || p->dims > 3)
        return 0;
    int have[CLCONV_STRATEGY_COUNT];
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        have[s] = available((clconv_strategy)s, p->dims);

    /* The default pick first, then every strategy's default tile. */
    clconv_problem d = *p;
    clconv_pick_default(dev, &d);
    if (have[d.strategy])
        add(&l, p->dims, d.strategy, d.tile, 0, 0);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        d.strategy = (clconv_strategy)s;
        if (have[s])
            add(&l, p->dims, d.strategy, clconv_default_tile_for(dev, &d), 0,
                0);
    }
    /* The bench tiles at default knobs, then the variants' own grids. */
    const int *tiles = NULL;
    const size_t ntiles = clconv_bench_tiles(p->dims, &tiles);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        if (have[s] && clc_variant_get(s)->dims[p->dims - 1].bench_tiles)
            for (size_t t = 0; t < ntiles; ++t)
                add(&l, p->dims, (clconv_strategy)s, tiles[t], 0, 0);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        if (have[s])
            add_grid(&l, p->dims, clc_variant_get((clconv_strategy)s));
    order_by_model(dev, p, all, l.n);
    if (out && max)
        memcpy(out, all, (l.n < max ? l.n : max) * sizeof *out);
    return l.n;
}

/* Screening result of one candidate (ms 0: not verified and timed). */
typedef struct scored {
    size_t index;
    double ms;
} scored;

static int by_ms(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    return (x->ms > y->ms) - (x->ms < y->ms);
}

static void report(const clconv_tune_options *opt, clconv_tune_event *ev,
                   const clconv_tune_outcome *out, double t0)
{
    if (!opt->progress)
        return;
    ev->elapsed_s = clconv_now_s() - t0;
    ev->budget_s = opt->budget_s;
    ev->best = out->found ? &out->best : NULL;
    ev->best_ms = out->best_ms;
    opt->progress(opt->user, ev);
}

/* One candidate on the dataset's problem, verified and timed. */
static void run_candidate(clconv_session *s, const clconv_dataset *data,
                          const clconv_tune_candidate *c, int warmup, int reps,
                          clconv_result *res)
{
    clconv_problem p = data->shape;
    p.strategy = c->strategy;
    p.tile = c->tile;
    p.coarsen = c->coarsen;
    p.group_y = c->group_y;
    clconv_run_verified(s, &p, data, warmup, reps, res);
}

/* One search: its inputs, its candidates and their scores. */
typedef struct search {
    clconv_session *s;
    const clconv_dataset *data;
    const clconv_tune_options *opt;
    clconv_tune_outcome *out;
    const clconv_tune_candidate *cands;
    size_t count;
    scored *score;
    size_t nscored;
    double t0;
} search;

/* Phase 1: every candidate once, verified, then timed; a seventh of the
 * budget stays for phase 2. */
static void phase1(search *sr)
{
    const clconv_tune_options *opt = sr->opt;
    clconv_tune_outcome *out = sr->out;
    const double phase1_s =
        opt->finalists > 1 ? opt->budget_s * 6.0 / 7.0 : opt->budget_s;
    clconv_result res;
    for (size_t i = 0; i < sr->count; ++i) {
        if (clconv_now_s() - sr->t0 >= phase1_s) {
            out->out_of_time = 1;
            out->not_tried = sr->count - i;
            break;
        }
        run_candidate(sr->s, sr->data, &sr->cands[i], opt->warmup, opt->reps,
                      &res);
        ++out->tried;
        if (res.status == CLCONV_EUNSUPPORTED) {
            ++out->unsupported;
        } else if (res.status != CLCONV_OK) {
            ++out->errors;
        } else if (!res.verdict.ok) {
            ++out->failed; /* never chosen */
        } else {
            ++out->verified;
            const double ms = res.timing.median_ms;
            if (i == 0)
                out->default_ms = ms;
            sr->score[sr->nscored].index = i;
            sr->score[sr->nscored].ms = ms;
            ++sr->nscored;
            if (!out->found || ms < out->best_ms) {
                out->found = 1;
                out->best = sr->cands[i];
                out->best_ms = ms;
            }
        }
        clconv_tune_event ev = {&sr->cands[i], &res, i, sr->count, 1, 0, 0,
                                NULL, 0};
        report(opt, &ev, out, sr->t0);
    }
}

/* Phase 2: re-time the finalists with 3x the repetitions, so that the
 * choice does not rest on one noisy median. */
static void phase2(search *sr)
{
    const clconv_tune_options *opt = sr->opt;
    clconv_tune_outcome *out = sr->out;
    scored *score = sr->score;
    qsort(score, sr->nscored, sizeof *score, by_ms);
    size_t nfinal = (size_t)(opt->finalists > 0 ? opt->finalists : 0);
    if (nfinal > sr->nscored)
        nfinal = sr->nscored;
    /* The default pick runs among the finalists too, so that the speedup
     * over it compares medians of the same phase. */
    for (size_t f = nfinal; f < sr->nscored && nfinal > 1; ++f)
        if (score[f].index == 0) {
            score[nfinal++] = score[f];
            break;
        }
    if (nfinal <= 1)
        return;
    int refound = 0, failed2 = 0;
    clconv_result res;
    for (size_t f = 0; f < nfinal; ++f) {
        if (clconv_now_s() - sr->t0 >= opt->budget_s) {
            out->out_of_time = 1;
            break;
        }
        const clconv_tune_candidate *c = &sr->cands[score[f].index];
        run_candidate(sr->s, sr->data, c, opt->warmup, 3 * opt->reps, &res);
        const int ok = res.status == CLCONV_OK && res.verdict.ok;
        if (res.status == CLCONV_OK && !res.verdict.ok) {
            ++out->failed; /* passed once, failed now: never chosen */
            failed2 = 1;
        }
        if (ok && score[f].index == 0)
            out->default_ms = res.timing.median_ms;
        if (ok && (!refound || res.timing.median_ms < out->best_ms)) {
            refound = 1;
            out->best = *c;
            out->best_ms = res.timing.median_ms;
        }
        clconv_tune_event ev = {c, &res, f, nfinal, 2, 0, 0, NULL, 0};
        report(opt, &ev, out, sr->t0);
    }
    /* A finalist that failed verification now may have been the phase-1
     * best: without a finalist verified again, choose none. */
    if (failed2 && !refound)
        out->found = 0;
}

clconv_status clconv_tune_problem(clconv_session *s,
                                  const clconv_dataset *data,
                                  const clconv_tune_options *opt,
                                  clconv_tune_outcome *out)
{
    if (!s || !data || !opt || !out)
        return clc_fail(CLCONV_EINVAL, "no session, dataset, options or "
                                       "outcome given (NULL)");
    memset(out, 0, sizeof *out);
    if (opt->reps < 1 || opt->warmup < 0 || opt->budget_s < 0)
        return clc_fail(CLCONV_EINVAL, "tune: reps must be >= 1, warmup "
                                       "and budget >= 0");
    const double t0 = clconv_now_s();
    const clconv_device_info *dev = clconv_session_device(s);
    size_t count = clconv_tune_candidates(dev, &data->shape, NULL, 0);
    clconv_tune_candidate *cands = calloc(count ? count : 1, sizeof *cands);
    scored *score = calloc(count ? count : 1, sizeof *score);
    if (!cands || !score) {
        free(cands);
        free(score);
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    clconv_tune_candidates(dev, &data->shape, cands, count);
    search sr = {s, data, opt, out, cands, count, score, 0, t0};
    phase1(&sr);
    phase2(&sr);
    free(score);
    free(cands);
    return CLCONV_OK;
}
