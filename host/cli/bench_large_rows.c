/* bench --suite large: a row's floor and its output, a line as it
 * finishes and the rows through the emitter (JSON, CSV). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_large.h"
#include "cli.h"

/* The floor of the method that ran: the slower of its bytes at the copy
 * ceiling and its FMAs at the FMA ceiling. Direct: one read and write, W^d
 * taps per output; separable: a read and write per pass and W_a taps per
 * output in pass a; FFT: one read and write (its transforms are not FMA
 * chains, so they have no floor here). */
double bench_large_floor_ms(const clconv_problem *p, clconv_method ran,
                              const clconv_ceilings *c)
{
    const double n = (double)clconv_problem_elements(p);
    double passes = 1.0, taps = 0.0;
    if (ran == CLCONV_METHOD_SEPARABLE) {
        passes = 0.0;
        for (int a = 0; a < p->dims; ++a) {
            const int w = clconv_problem_mask_axis(p, a);
            if (a == 0 || w > 1) { /* a width-1 y or z axis is no pass */
                passes += 1.0;
                taps += (double)w;
            }
        }
    } else if (ran == CLCONV_METHOD_DIRECT) {
        taps = (double)clconv_problem_mask_elements(p);
    }
    const double mem =
        c->copy_gbs > 0 ? passes * 8.0 * n / (c->copy_gbs * 1e6) : 0.0;
    const double fma =
        c->fp32_gflops > 0 ? 2.0 * taps * n / (c->fp32_gflops * 1e6) : 0.0;
    return mem > fma ? mem : fma;
}

/* The row as one line (stdout, or stderr beside --json as progress). */
static void print_line(FILE *f, const clconv_device_info *dev,
                       const large_data *d, const large_row *r)
{
    char size[64];
    cli_format_size(d->p.size, d->p.dims, size, sizeof size);
    fprintf(f, "%-24.24s %dD %-13s %-8s W=%-4d %-8s %-9s", dev->name,
            d->p.dims, size, d->kind, d->p.mask_width,
            clconv_border_name(d->p.border), clconv_method_name(r->method));
    if (r->method == CLCONV_METHOD_AUTO)
        fprintf(f, " -> %-9s", clconv_method_name(r->ran));
    if (r->t.reps > 0)
        fprintf(f, " %10.3f ms (model %.3g ms, floor %.3g ms, max_err %.2e)",
                r->t.median_ms, r->predicted_ms, r->floor_ms, r->max_err);
    else if (strcmp(r->status, "FAIL") == 0)
        fprintf(f, " FAIL max_err %.2e beyond the bound", r->max_err);
    else
        fprintf(f, " %s %s", r->status, r->reason);
    fprintf(f, "\n");
    fflush(f);
}

int bench_large_add_row(large_records *t, const large_options *o,
                        const clconv_device_info *dev, const large_data *d,
                        const large_row *r)
{
    print_line(cli_outputs_text(&o->out) ? stdout : stderr, dev, d, r);
    if (t->n == t->cap) {
        const size_t cap = t->cap ? 2 * t->cap : 16;
        large_record *grown = realloc(t->rec, cap * sizeof *grown);
        if (!grown) {
            cli_error("bench: out of memory for %zu rows", cap);
            return -1;
        }
        t->rec = grown;
        t->cap = cap;
    }
    t->rec[t->n++] = (large_record){dev, d->p, d->kind, *r};
    return 0;
}

/* A row's fields, once for JSON and CSV (a field a row lacks: a timing
 * not taken, a reason where there is none). */
static void put_fields(cli_rows *t, const void *recs, size_t i)
{
    const large_record *e = &((const large_record *)recs)[i];
    const large_row *r = &e->r;
    cli_row_begin(t);
    cli_put_device(t, "device", e->dev);
    cli_put_int(t, "dims", e->p.dims);
    cli_put_size(t, "size", &e->p);
    cli_put_int(t, "mask", e->p.mask_width);
    cli_put_str(t, "mask_kind", e->kind);
    cli_put_str(t, "mode", clconv_border_name(e->p.border));
    cli_put_str(t, "method", clconv_method_name(r->method));
    cli_put_str(t, "ran", clconv_method_name(r->ran));
    cli_put_str(t, "strategy", clconv_strategy_name(r->p.strategy));
    cli_put_str(t, "status", r->status);
    cli_put_num(t, "predicted_ms", "%.6g", r->predicted_ms);
    if (r->t.reps > 0) {
        cli_put_num(t, "median_ms", "%.6f", r->t.median_ms);
        cli_put_num(t, "min_ms", "%.6f", r->t.min_ms);
        cli_put_num(t, "max_ms", "%.6f", r->t.max_ms);
        cli_put_int(t, "reps", r->t.reps);
    }
    if (r->t.reps > 0 || strcmp(r->status, "FAIL") == 0)
        cli_put_num(t, "max_err", "%.6g", r->max_err);
    if (r->t.reps > 0)
        cli_put_num(t, "floor_ms", "%.6g", r->floor_ms);
    if (*r->reason)
        cli_put_str(t, "reason", r->reason);
}

int bench_large_emit(const large_options *o, const large_records *t)
{
    return cli_emit(&o->out, t->rec, t->n, put_fields);
}


