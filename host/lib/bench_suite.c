/* The standard problem set, the tiles tried, metrics of a timed row, and
 * the rows of a report. */
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "clconv_model.h"
#include "internal.h"

/* The full suite: sizes that fill a large GPU and run in well under a
 * second per launch. */
static const clconv_bench_problem suite_full[] = {
    {1, {(size_t)1 << 26, 1, 1}, 5},
    {1, {(size_t)1 << 26, 1, 1}, 9},
    {1, {(size_t)1 << 26, 1, 1}, 55},
    {2, {8192, 8192, 1}, 3},
    {2, {8192, 8192, 1}, 5},
    {2, {8192, 8192, 1}, 9},
    {3, {512, 512, 512}, 3},
    {3, {512, 512, 512}, 5},
};

/* The same problems scaled down so that every variant, tile and the
 * reference run in under 3 minutes on a 2-core CPU. */
static const clconv_bench_problem suite_quick[] = {
    {1, {(size_t)1 << 22, 1, 1}, 5},
    {1, {(size_t)1 << 22, 1, 1}, 9},
    {1, {(size_t)1 << 22, 1, 1}, 55},
    {2, {1024, 1024, 1}, 3},
    {2, {1024, 1024, 1}, 5},
    {2, {1024, 1024, 1}, 9},
    {3, {128, 128, 128}, 3},
    {3, {128, 128, 128}, 5},
};

/* Large masks (issue 17): separable Gaussians and random (not separable)
 * masks, for the separable and FFT paths and the automatic choice. */
static const clconv_bench_problem suite_large[] = {
    {2, {8192, 8192, 1}, 31},    {2, {8192, 8192, 1}, 101},
    {2, {8192, 8192, 1}, 31},    {2, {8192, 8192, 1}, 63},
    {3, {512, 512, 512}, 15},    {3, {512, 512, 512}, 15},
    {1, {(size_t)1 << 26, 1, 1}, 1001},
};
/* The masks of both large suites, problem by problem. */
static const char *const masks_large[] = {
    "gaussian", "gaussian", NULL, NULL, "gaussian", NULL, NULL};

/* The same masks on data a 2-core CPU runs in minutes. */
static const clconv_bench_problem suite_large_quick[] = {
    {2, {1024, 1024, 1}, 31},    {2, {1024, 1024, 1}, 101},
    {2, {1024, 1024, 1}, 31},    {2, {1024, 1024, 1}, 63},
    {3, {128, 128, 128}, 15},    {3, {128, 128, 128}, 15},
    {1, {(size_t)1 << 20, 1, 1}, 1001},
};

static const struct {
    const char *name;
    const clconv_bench_problem *problems;
    size_t count;
    const char *const *masks; /* NULL: every mask random */
} suites[] = {
    {"full", suite_full, sizeof suite_full / sizeof suite_full[0], NULL},
    {"quick", suite_quick, sizeof suite_quick / sizeof suite_quick[0], NULL},
    {"large", suite_large, sizeof suite_large / sizeof suite_large[0],
     masks_large},
    {"large-quick", suite_large_quick,
     sizeof suite_large_quick / sizeof suite_large_quick[0], masks_large},
};

size_t clconv_bench_suite(const char *name, const clconv_bench_problem **out)
{
    if (!out)
        return 0;
    for (size_t i = 0; name && i < sizeof suites / sizeof suites[0]; ++i)
        if (strcmp(name, suites[i].name) == 0) {
            *out = suites[i].problems;
            return suites[i].count;
        }
    *out = NULL;
    return 0;
}

const char *clconv_bench_suite_mask(const char *name, size_t i)
{
    for (size_t k = 0; name && k < sizeof suites / sizeof suites[0]; ++k)
        if (strcmp(name, suites[k].name) == 0)
            return suites[k].masks && i < suites[k].count ? suites[k].masks[i]
                                                          : NULL;
    return NULL;
}

void clconv_bench_shape(const clconv_bench_problem *b, clconv_problem *p)
{
    if (!b || !p)
        return;
    memset(p, 0, sizeof *p);
    p->dims = b->dims;
    memcpy(p->size, b->size, sizeof p->size);
    p->mask_width = b->mask_width;
    p->tile = 1;
    p->strategy = CLCONV_NAIVE;
}

static const int tiles_1d[] = {64, 128, 256, 512};
static const int tiles_2d[] = {8, 16, 32};
static const int tiles_3d[] = {4, 8};

size_t clconv_bench_tiles(int dims, const int **out)
{
    if (!out)
        return 0;
    switch (dims) {
    case 1: *out = tiles_1d; return sizeof tiles_1d / sizeof tiles_1d[0];
    case 2: *out = tiles_2d; return sizeof tiles_2d / sizeof tiles_2d[0];
    case 3: *out = tiles_3d; return sizeof tiles_3d / sizeof tiles_3d[0];
    default: *out = NULL; return 0;
    }
}

void clconv_bench_metrics_of(const clconv_problem *p, double median_ms,
                             const clconv_ceilings *c,
                             clconv_bench_metrics *m)
{
    if (!m)
        return;
    memset(m, 0, sizeof *m);
    if (!p)
        return;
    const double n = (double)clconv_problem_elements(p);
    const double taps = (double)clconv_problem_mask_elements(p);
    /* Read once, write once, in the data's own types (issue 17). */
    m->bytes = n * (double)(clconv_elem_size(p->in_dtype) +
                            clconv_elem_size(p->out_dtype));
    m->flops = 2.0 * taps * n;
    m->intensity = m->flops / m->bytes;
    if (c && c->copy_gbs > 0 && c->fp32_gflops > 0) {
        double mem_ms = m->bytes / (c->copy_gbs * 1e9) * 1e3;
        double fma_ms = m->flops / (c->fp32_gflops * 1e9) * 1e3;
        m->floor_ms = mem_ms > fma_ms ? mem_ms : fma_ms;
    }
    if (median_ms > 0) {
        m->gbs = m->bytes / (median_ms * 1e-3) / 1e9;
        m->gflops = m->flops / (median_ms * 1e-3) / 1e9;
        if (m->floor_ms > 0)
            m->roofline_pct = 100.0 * m->floor_ms / median_ms;
    }
}

clconv_status clconv_bench_add_row(clconv_bench_report *r,
                                   const clconv_bench_row *row)
{
    if (!r || !row)
        return clc_fail(CLCONV_EINVAL, "no report or row given (NULL)");
    if (r->nrows == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        clconv_bench_row *rows = realloc(r->rows, cap * sizeof *rows);
        if (!rows)
            return clc_fail(CLCONV_ENOMEM, "out of memory for bench rows");
        r->rows = rows;
        r->cap = cap;
    }
    r->rows[r->nrows++] = *row;
    return CLCONV_OK;
}

void clconv_bench_report_free(clconv_bench_report *r)
{
    if (!r)
        return;
    free(r->devices);
    free(r->problems);
    free(r->rows);
    r->devices = NULL;
    r->problems = NULL;
    r->rows = NULL;
    r->ndevices = r->nproblems = r->nrows = r->cap = 0;
}

const char *clconv_bench_row_status(const clconv_bench_row *row)
{
    if (!row)
        return "error";
    if (row->res.status == CLCONV_EUNSUPPORTED)
        return "unsupported";
    if (row->res.status != CLCONV_OK)
        return "error";
    return row->res.verdict.ok ? "ok" : "FAIL";
}

long clconv_bench_best(const clconv_bench_report *r, size_t problem,
                       size_t device)
{
    long best = -1;
    for (size_t i = 0; r && i < r->nrows; ++i) {
        const clconv_bench_row *w = &r->rows[i];
        if (w->problem != problem || w->device != device ||
            w->res.status != CLCONV_OK || !w->res.verdict.ok ||
            w->res.timing.reps == 0)
            continue;
        if (best < 0 ||
            w->res.timing.median_ms < r->rows[best].res.timing.median_ms)
            best = (long)i;
    }
    return best;
}
