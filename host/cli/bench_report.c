/* The parts of `clconv bench` around its loop: the problems, the tiles
 * per strategy, the side-by-side table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The tiles a strategy tries on a dims: the table, plus its default tile,
 * without duplicates. Returns the count (at most cap). */
size_t bench_tiles_of(const bench_options *o, const clconv_device_info *dev,
                      clconv_strategy s, int dims, int mask, int *out,
                      size_t cap)
{
    size_t n = 0;
    const int *table = NULL;
    int sweep = o->all_tiles == 1 ||
                (o->all_tiles == 2 && dev->kind == CLCONV_DEVICE_GPU);
    size_t count = sweep ? clconv_bench_tiles(dims, &table) : 0;
    for (size_t i = 0; i < count && n < cap; ++i)
        out[n++] = table[i];
    const clconv_problem shape = {.dims = dims, .mask_width = mask,
                                  .strategy = s};
    int def = clconv_default_tile_for(dev, &shape);
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

void bench_problem_label(const clconv_bench_problem *b, char *buf, size_t len)
{
    char size[64];
    cli_format_size(b->size, b->dims, size, sizeof size);
    snprintf(buf, len, "%dD %s W=%d", b->dims, size, b->mask_width);
}

/* One row per problem, a column group per device (best variant, median ms,
 * % of roofline), then each device's speed relative to the first. */
void bench_print_table(const clconv_bench_report *r)
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
    printf("\n%-24s", "problem");
    for (size_t d = 0; d < r->ndevices; ++d)
        printf(" | [%c] %-15s %10s %6s", (int)('A' + d % 26), "best", "ms",
               "%roof");
    for (size_t d = 1; d < r->ndevices; ++d)
        printf(" | %c vs A", (int)('A' + d % 26));
    printf("\n");
    for (size_t p = 0; p < r->nproblems; ++p) {
        char label[96];
        bench_problem_label(&r->problems[p], label, sizeof label);
        printf("%-24s", label);
        double t0 = 0.0;
        for (size_t d = 0; d < r->ndevices; ++d) {
            long b = clconv_bench_best(r, p, d);
            if (b < 0) {
                printf(" |     %-15s %10s %6s", "(none)", "-", "-");
                continue;
            }
            const clconv_bench_row *w = &r->rows[b];
            char variant[48], pct[16];
            snprintf(variant, sizeof variant, "%s/%d",
                     clconv_strategy_name(w->p.strategy), w->p.tile);
            if (w->m.roofline_pct > 0)
                snprintf(pct, sizeof pct, "%5.1f%%", w->m.roofline_pct);
            else
                snprintf(pct, sizeof pct, "-");
            printf(" |     %-15s %10.4f %6s", variant, w->res.timing.median_ms,
                   pct);
            if (d == 0)
                t0 = w->res.timing.median_ms;
        }
        for (size_t d = 1; d < r->ndevices; ++d) {
            long b = clconv_bench_best(r, p, d);
            if (b < 0 || t0 <= 0)
                printf(" | %6s", "-");
            else
                printf(" | %5.2fx", t0 / r->rows[b].res.timing.median_ms);
        }
        printf("\n");
    }
    if (r->ndevices > 1)
        printf("(X vs A: how many times faster device X's best variant is "
               "than device A's)\n");
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
