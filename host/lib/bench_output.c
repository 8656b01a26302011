/* A bench report as JSON or CSV. The schema is documented in
 * bench/README.md; bench/peers.py writes the same one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clconv_bench.h"
#include "internal.h"

#define BENCH_SCHEMA "clconv-bench-1"

void clconv_json_string(FILE *f, const char *s)
{
    if (!f)
        return;
    if (!s) { /* no string: JSON's null */
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A number, or null when it is not a finite positive measurement. */
/* The row's filter (issue 15): border mode, cval, per-axis mask widths
 * and origins (x first), convolution; and its element types. */
static void filter_json(FILE *f, const clconv_problem *p)
{
    fprintf(f, ", \"mode\": \"%s\", \"cval\": %.9g, \"mask_size\": [",
            clconv_border_name(p->border), p->cval);
    for (int a = 0; a < p->dims; ++a)
        fprintf(f, "%s%d", a ? ", " : "", clconv_problem_mask_axis(p, a));
    fputs("], \"origin\": [", f);
    for (int a = 0; a < p->dims; ++a)
        fprintf(f, "%s%d", a ? ", " : "", p->origin[a]);
    fprintf(f, "], \"convolve\": %s, \"dtype\": \"%s\", \"out_dtype\": \"%s\"",
            p->flip ? "true" : "false", clconv_elem_name(p->in_dtype),
            clconv_elem_name(p->out_dtype));
}

static void filter_csv(FILE *f, const clconv_problem *p)
{
    fprintf(f, ",%s,%.9g,", clconv_border_name(p->border), p->cval);
    for (int a = 0; a < p->dims; ++a)
        fprintf(f, "%s%d", a ? "x" : "", clconv_problem_mask_axis(p, a));
    fputc(',', f);
    for (int a = 0; a < p->dims; ++a)
        fprintf(f, "%s%d", a ? " " : "", p->origin[a]);
    fprintf(f, ",%d,%s,%s", p->flip, clconv_elem_name(p->in_dtype),
            clconv_elem_name(p->out_dtype));
}

static void json_number(FILE *f, double x, int valid)
{
    if (valid && isfinite(x))
        fprintf(f, "%.6g", x);
    else
        fputs("null", f);
}

static void json_device(FILE *f, size_t i, const clconv_bench_device *d)
{
    const clconv_device_info *v = &d->info;
    char id[32];
    snprintf(id, sizeof id, "%u:%u", v->platform_index, v->device_index);
    fprintf(f, "    {\"index\": %zu, \"id\": \"%s\", \"api\": \"OpenCL\", "
               "\"implementation\": \"clconv\",\n     \"name\": ",
            i, id);
    clconv_json_string(f, v->name);
    fputs(", \"vendor\": ", f);
    clconv_json_string(f, v->vendor);
    fputs(", \"platform\": ", f);
    clconv_json_string(f, v->platform);
    fputs(",\n     \"driver\": ", f);
    clconv_json_string(f, v->driver);
    fputs(", \"opencl_version\": ", f);
    clconv_json_string(f, v->version);
    fprintf(f, ", \"type\": \"%s\", \"compute_units\": %u, \"clock_mhz\": %u,"
               "\n     \"copy_gbs\": ",
            clconv_device_kind_name(v->kind), v->compute_units, v->clock_mhz);
    json_number(f, d->ceilings.copy_gbs, d->ceilings.copy_gbs > 0);
    fputs(", \"fp32_gflops\": ", f);
    json_number(f, d->ceilings.fp32_gflops, d->ceilings.fp32_gflops > 0);
    if (d->ceilings_error[0]) {
        fputs(", \"ceilings_error\": ", f);
        clconv_json_string(f, d->ceilings_error);
    }
    fputs("}", f);
}

/* Problem i as its rows ran it: the first row's problem (its per-axis
 * mask, element types and --batch stack: --mask WxH, --dtype, "dims" 3
 * and the stack's size, as "elements" counts it), else the suite's shape
 * (float32, a square or cubic mask). */
static void json_problem(FILE *f, size_t i, const clconv_bench_report *r)
{
    const clconv_bench_problem *b = &r->problems[i];
    clconv_problem p;
    clconv_bench_shape(b, &p);
    for (size_t k = 0; k < r->nrows; ++k)
        if (r->rows[k].problem == i) {
            p = r->rows[k].p;
            break;
        }
    clconv_bench_metrics m;
    clconv_bench_metrics_of(&p, 0.0, NULL, &m);
    fprintf(f, "    {\"index\": %zu, \"dims\": %d, \"size\": [%zu, %zu, %zu], "
               "\"mask\": %d, \"elements\": %zu, \"bytes\": %.0f, "
               "\"flops\": %.0f, \"intensity\": %.6g, \"dtype\": \"%s\", "
               "\"out_dtype\": \"%s\"}",
            i, p.dims, p.size[0], p.size[1], p.size[2], b->mask_width,
            clconv_problem_elements(&p), m.bytes, m.flops, m.intensity,
            clconv_elem_name(p.in_dtype), clconv_elem_name(p.out_dtype));
}

static void json_row(FILE *f, const clconv_bench_row *w)
{
    const int ran = w->res.status == CLCONV_OK;
    const int timed = ran && w->res.verdict.ok && w->res.timing.reps > 0;
    fprintf(f, "    {\"device\": %zu, \"problem\": %zu, "
               "\"implementation\": \"clconv\", \"variant\": \"%s\", "
               "\"tile\": %d, \"status\": \"%s\",\n     \"max_err\": ",
            w->device, w->problem, clconv_strategy_name(w->p.strategy),
            w->p.tile, clconv_bench_row_status(w));
    json_number(f, w->res.verdict.max_err, ran);
    fprintf(f, ", \"reps\": %d, \"median_ms\": ", timed ? w->res.timing.reps : 0);
    json_number(f, w->res.timing.median_ms, timed);
    fputs(", \"min_ms\": ", f);
    json_number(f, w->res.timing.min_ms, timed);
    fputs(", \"max_ms\": ", f);
    json_number(f, w->res.timing.max_ms, timed);
    fputs(",\n     \"gbs\": ", f);
    json_number(f, w->m.gbs, timed);
    fputs(", \"gflops\": ", f);
    json_number(f, w->m.gflops, timed);
    fputs(", \"floor_ms\": ", f);
    json_number(f, w->m.floor_ms, w->m.floor_ms > 0);
    fputs(", \"roofline_pct\": ", f);
    json_number(f, w->m.roofline_pct, timed && w->m.roofline_pct > 0);
    fputs(", \"model_reduction\": ", f);
    json_number(f, w->model_reduction, w->model_reduction > 0);
    fprintf(f, ", \"mask_mode\": \"%s\"", clconv_mask_mode_name(w->p.mask_mode));
    filter_json(f, &w->p);
    const int knobs = clconv_strategy_knobs(w->p.strategy, w->p.dims);
    if (knobs & CLCONV_KNOB_COARSEN)
        fprintf(f, ", \"coarsen\": %d", w->p.coarsen);
    if (knobs & CLCONV_KNOB_GROUP_Y)
        fprintf(f, ", \"group_y\": %d", w->p.group_y);
    if (w->res.status != CLCONV_OK) {
        fputs(", \"reason\": ", f);
        clconv_json_string(f, w->res.reason);
    } else if (!w->res.verdict.ok) {
        char why[256];
        snprintf(why, sizeof why,
                 "verification failed: %zu elements out of bound, worst at "
                 "index %zu: got %.9g expected %.9g",
                 w->res.verdict.failures, w->res.verdict.worst_index,
                 w->res.verdict.worst_got, w->res.verdict.worst_expected);
        fputs(", \"reason\": ", f);
        clconv_json_string(f, why);
    }
    fputs("}", f);
}

clconv_status clconv_bench_write_json(const clconv_bench_report *r, FILE *f)
{
    if (!r || !f)
        return clc_fail(CLCONV_EINVAL, "no report or file given (NULL)");
    fprintf(f, "{\n  \"schema\": \"%s\",\n  \"clconv_version\": ", BENCH_SCHEMA);
    clconv_json_string(f, r->version);
    fputs(",\n  \"date\": ", f);
    clconv_json_string(f, r->date);
    fputs(",\n  \"suite\": ", f);
    clconv_json_string(f, r->suite);
    fprintf(f, ",\n  \"seed\": %llu,\n  \"warmup\": %d,\n  \"reps\": %d,\n",
            (unsigned long long)r->seed, r->warmup, r->reps);
    fputs("  \"devices\": [\n", f);
    for (size_t i = 0; i < r->ndevices; ++i) {
        json_device(f, i, &r->devices[i]);
        fputs(i + 1 < r->ndevices ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"problems\": [\n", f);
    for (size_t i = 0; i < r->nproblems; ++i) {
        json_problem(f, i, r);
        fputs(i + 1 < r->nproblems ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"rows\": [\n", f);
    for (size_t i = 0; i < r->nrows; ++i) {
        json_row(f, &r->rows[i]);
        fputs(i + 1 < r->nrows ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"best\": [", f);
    int first = 1;
    for (size_t p = 0; p < r->nproblems; ++p)
        for (size_t d = 0; d < r->ndevices; ++d) {
            long b = clconv_bench_best(r, p, d);
            if (b < 0)
                continue;
            fprintf(f, "%s\n    {\"problem\": %zu, \"device\": %zu, \"row\": %ld}",
                    first ? "" : ",", p, d, b);
            first = 0;
        }
    fputs("\n  ]\n}\n", f);
    if (fflush(f) != 0 || ferror(f))
        return clc_fail(CLCONV_EIO, "writing the JSON report failed");
    return CLCONV_OK;
}

void clconv_csv_string(FILE *f, const char *s)
{
    if (!f)
        return;
    fputc('"', f);
    for (; s && *s; ++s) { /* no string: an empty field */
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_number(FILE *f, double x, int valid)
{
    if (valid && isfinite(x))
        fprintf(f, "%.6g", x);
}

clconv_status clconv_bench_write_csv(const clconv_bench_report *r, FILE *f)
{
    if (!r || !f)
        return clc_fail(CLCONV_EINVAL, "no report or file given (NULL)");
    fputs("clconv_version,date,device,device_name,driver,copy_gbs,"
          "fp32_gflops,dims,nx,ny,nz,mask,implementation,variant,tile,status,"
          "max_err,reps,median_ms,min_ms,max_ms,gbs,gflops,floor_ms,"
          "roofline_pct,model_reduction,reason,mask_mode,mode,cval,mask_size,"
          "origin,convolve,dtype,out_dtype\n",
          f);
    for (size_t i = 0; i < r->nrows; ++i) {
        const clconv_bench_row *w = &r->rows[i];
        const clconv_bench_device *d = &r->devices[w->device];
        const clconv_bench_problem *b = &r->problems[w->problem];
        const int ran = w->res.status == CLCONV_OK;
        const int timed = ran && w->res.verdict.ok && w->res.timing.reps > 0;
        clconv_csv_string(f, r->version);
        fputc(',', f);
        clconv_csv_string(f, r->date);
        fprintf(f, ",%u:%u,", d->info.platform_index, d->info.device_index);
        clconv_csv_string(f, d->info.name);
        fputc(',', f);
        clconv_csv_string(f, d->info.driver);
        fputc(',', f);
        csv_number(f, d->ceilings.copy_gbs, d->ceilings.copy_gbs > 0);
        fputc(',', f);
        csv_number(f, d->ceilings.fp32_gflops, d->ceilings.fp32_gflops > 0);
        /* The row's own problem: a --batch stack's dims and size. */
        fprintf(f, ",%d,%zu,%zu,%zu,%d,clconv,%s,%d,%s,", w->p.dims,
                w->p.size[0], w->p.size[1], w->p.size[2], b->mask_width,
                clconv_strategy_name(w->p.strategy), w->p.tile,
                clconv_bench_row_status(w));
        csv_number(f, w->res.verdict.max_err, ran);
        fprintf(f, ",%d,", timed ? w->res.timing.reps : 0);
        csv_number(f, w->res.timing.median_ms, timed);
        fputc(',', f);
        csv_number(f, w->res.timing.min_ms, timed);
        fputc(',', f);
        csv_number(f, w->res.timing.max_ms, timed);
        fputc(',', f);
        csv_number(f, w->m.gbs, timed);
        fputc(',', f);
        csv_number(f, w->m.gflops, timed);
        fputc(',', f);
        csv_number(f, w->m.floor_ms, w->m.floor_ms > 0);
        fputc(',', f);
        csv_number(f, w->m.roofline_pct, timed && w->m.roofline_pct > 0);
        fputc(',', f);
        csv_number(f, w->model_reduction, w->model_reduction > 0);
        fputc(',', f);
        clconv_csv_string(f, ran && w->res.verdict.ok ? ""
                      : ran                    ? "verification failed"
                                               : w->res.reason);
        fprintf(f, ",%s", clconv_mask_mode_name(w->p.mask_mode));
        filter_csv(f, &w->p);
        fputc('\n', f);
    }
    if (fflush(f) != 0 || ferror(f))
        return clc_fail(CLCONV_EIO, "writing the CSV report failed");
    return CLCONV_OK;
}
