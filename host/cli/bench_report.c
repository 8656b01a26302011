/* The parts of `clconv bench` around its loop: the problems, the tiles
 * per strategy, the side-by-side table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The tiles a strategy tries on a dims: the table, plus its default tile,
 * without duplicates. Returns the count (at most cap). */
size_t bench_tiles_of(const bench_options *o, const clconv_device_info *dev,
                      clconv_strategy s, const clconv_problem *shape,
                      int *out, size_t cap)
{
    size_t n = 0;
    const int *table = NULL;
    int sweep = o->all_tiles == 1 ||
                (o->all_tiles == 2 && dev->kind == CLCONV_DEVICE_GPU);
    size_t count = sweep ? clconv_bench_tiles(shape->dims, &table) : 0;
    for (size_t i = 0; i < count && n < cap; ++i)
        out[n++] = table[i];
    clconv_problem q = *shape; /* element types and mask shape decide too */
    q.strategy = s;
    int def = clconv_default_tile_for(dev, &q);
    for (size_t i = 0; i < n; ++i)
        if (out[i] == def)
            return n;
    if (n < cap)
        out[n++] = def;
    return n;
}

/* Relative cost of running one variant on a problem, for the estimate of
 * the time left: every output reads the mask's taps. */
double bench_work_of(const clconv_bench_problem *b)
{
    double taps = 1.0, n = 1.0;
    for (int k = 0; k < b->dims; ++k) {
        taps *= b->mask_width;
        n *= (double)b->size[k];
    }
    return n * (taps + 4.0);
}

void bench_problem_label(const clconv_bench_report *r, size_t p, char *buf,
                         size_t len)
{
    const clconv_bench_problem *b = &r->problems[p];
    int dims = b->dims;
    const size_t *extents = b->size;
    /* A row's problem is the one that ran: with --batch, the stack. */
    for (size_t k = 0; k < r->nrows; ++k)
        if (r->rows[k].problem == p) {
            dims = r->rows[k].p.dims;
            extents = r->rows[k].p.size;
            break;
        }
    char size[64];
    cli_format_size(extents, dims, size, sizeof size);
    snprintf(buf, len, "%dD %s W=%d", dims, size, b->mask_width);
}

/* The table's columns: the problem, per device [X] its best variant, its
 * median ms and % of roofline, then per device after the first its speed
 * relative to the first ("X vs A"). Keys "<d>.best", "<d>.ms", ... */
typedef struct bench_columns {
    cli_column *cols;
    size_t n;
    char (*keys)[4][24];   /* best, ms, roof, vs */
    char (*titles)[2][16]; /* "[X] best", "X vs A" */
} bench_columns;

static int bench_columns_of(size_t ndev, bench_columns *c)
{
    c->n = 0;
    c->cols = calloc(4 * ndev + 1, sizeof *c->cols);
    c->keys = calloc(ndev + 1, sizeof *c->keys);
    c->titles = calloc(ndev + 1, sizeof *c->titles);
    if (!c->cols || !c->keys || !c->titles)
        return -1;
    static const char *const what[4] = {"best", "ms", "roof", "vs"};
    c->cols[c->n++] = (cli_column){"problem", "problem", NULL, NULL};
    for (size_t d = 0; d < ndev; ++d) {
        for (int k = 0; k < 4; ++k)
            snprintf(c->keys[d][k], sizeof c->keys[d][k], "%zu.%s", d,
                     what[k]);
        const int x = 'A' + (int)(d % 26);
        snprintf(c->titles[d][0], sizeof c->titles[d][0], "[%c] best", x);
        snprintf(c->titles[d][1], sizeof c->titles[d][1], "%c vs A", x);
        c->cols[c->n++] = (cli_column){c->keys[d][0], c->titles[d][0], 0, 0};
        c->cols[c->n++] = (cli_column){c->keys[d][1], "ms", "%.4f", NULL};
        c->cols[c->n++] = (cli_column){c->keys[d][2], "%roof", "%.1f%%", 0};
    }
    for (size_t d = 1; d < ndev; ++d)
        c->cols[c->n++] = (cli_column){c->keys[d][3], c->titles[d][1],
                                       "%.2fx", NULL};
    return 0;
}

/* Problem p's row: each device's best verified variant and, after the
 * first device, how many times faster it is than the first's. */
static void bench_put_problem(cli_rows *t, const clconv_bench_report *r,
                              size_t p, const bench_columns *c)
{
    char label[96];
    bench_problem_label(r, p, label, sizeof label);
    cli_row_begin(t);
    cli_put_str(t, "problem", label);
    double t0 = 0.0;
    for (size_t d = 0; d < r->ndevices; ++d) {
        long b = clconv_bench_best(r, p, d);
        if (b < 0) {
            cli_put_str(t, c->keys[d][0], "(none)");
            continue;
        }
        const clconv_bench_row *w = &r->rows[b];
        char variant[48];
        snprintf(variant, sizeof variant, "%s/%d",
                 clconv_strategy_name(w->p.strategy), w->p.tile);
        cli_put_str(t, c->keys[d][0], variant);
        cli_put_num(t, c->keys[d][1], "%.6f", w->res.timing.median_ms);
        if (w->m.roofline_pct > 0)
            cli_put_num(t, c->keys[d][2], "%.3f", w->m.roofline_pct);
        if (d == 0)
            t0 = w->res.timing.median_ms;
    }
    for (size_t d = 1; d < r->ndevices; ++d) {
        long b = clconv_bench_best(r, p, d);
        if (b >= 0 && t0 > 0)
            cli_put_num(t, c->keys[d][3], "%.6f",
                        t0 / r->rows[b].res.timing.median_ms);
    }
}

/* The suite and the devices with their ceilings, then a row per problem
 * with a column group per device. 0, or -1 (out of memory: printed). */
int bench_print_table(const clconv_bench_report *r)
{
    printf("\nclconv bench %s: suite %s, seed %llu, median of %d launches "
           "after %d warm-up\n",
           r->version, r->suite, (unsigned long long)r->seed, r->reps,
           r->warmup);
    for (size_t d = 0; d < r->ndevices; ++d) {
        const clconv_bench_device *v = &r->devices[d];
        printf("  [%c] %u:%u %s (%s, %u CUs): copy %.1f GB/s, FP32 %.1f "
               "GFLOP/s%s%s\n",
               (int)('A' + d % 26), v->info.platform_index,
               v->info.device_index, v->info.name, v->info.driver,
               v->info.compute_units, v->ceilings.copy_gbs,
               v->ceilings.fp32_gflops, v->ceilings_error[0] ? ": " : "",
               v->ceilings_error);
    }
    printf("\n");
    bench_columns c = {0};
    cli_rows *t = cli_rows_new();
    int rc = -1;
    if (t && bench_columns_of(r->ndevices, &c) == 0) {
        for (size_t p = 0; p < r->nproblems; ++p)
            bench_put_problem(t, r, p, &c);
        rc = cli_rows_text(t, c.cols, c.n, stdout);
    } else {
        cli_error("out of memory");
    }
    if (rc == 0 && r->ndevices > 1)
        printf("(X vs A: how many times faster device X's best variant is "
               "than device A's)\n");
    cli_rows_free(t);
    free(c.cols);
    free(c.keys);
    free(c.titles);
    return rc;
}

int bench_choose_problems(const bench_options *o, const cli_devices *devs,
                          clconv_bench_report *r)
{
    const clconv_bench_problem *ps = NULL;
    const char *name = o->suite;
    if (o->dims) {
        name = "custom";
        r->nproblems = 1;
    } else {
        for (size_t d = 0; !name && d < devs->n; ++d)
            if (cli_device(devs, d)->kind == CLCONV_DEVICE_GPU)
                name = "full";
        name = name ? name : "quick";
        r->nproblems = clconv_bench_suite(name, &ps);
    }
    snprintf(r->suite, sizeof r->suite, "%s", name);
    r->problems = calloc(r->nproblems ? r->nproblems : 1, sizeof *r->problems);
    if (!r->problems) {
        cli_error("out of memory");
        return CLI_EXIT_UNSUPPORTED;
    }
    if (o->dims) {
        r->problems[0].dims = o->dims;
        memcpy(r->problems[0].size, o->size, sizeof o->size);
        r->problems[0].mask_width = o->mask;
    } else {
        memcpy(r->problems, ps, r->nproblems * sizeof *ps);
    }
    for (size_t p = 0; p < r->nproblems; ++p) {
        clconv_problem shape;
        clconv_bench_shape(&r->problems[p], &shape);
        if (cli_filter_apply(&o->filter, 0, &shape))
            return CLI_EXIT_USAGE;
        if (clconv_problem_validate(&shape) != CLCONV_OK) {
            cli_error("bench: %s", clconv_last_error());
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}
