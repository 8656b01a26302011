/* bench --suite large: a row's floor and its output, a line or a JSON
 * object. */
#include <stdio.h>
#include <string.h>

#include "bench_large.h"
#include "cli.h"
#include "clconv_io.h"

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

void bench_large_print_row(const large_options *o, const clconv_device_info *dev,
                      const large_data *d, const large_row *r, int first)
{
    char size[64];
    cli_format_size(d->p.size, d->p.dims, size, sizeof size);
    print_line(o->json ? stderr : stdout, dev, d, r);
    if (!o->json)
        return;
    printf("%s  {\"device\": ", first ? "" : ",\n");
    clconv_json_string(stdout, dev->name);
    printf(", \"dims\": %d, \"size\": \"%s\", \"mask\": %d, \"mask_kind\": "
           "\"%s\", \"mode\": \"%s\", \"method\": \"%s\", \"ran\": \"%s\", "
           "\"strategy\": \"%s\", \"status\": \"%s\", \"predicted_ms\": %.6g",
           d->p.dims, size, d->p.mask_width, d->kind,
           clconv_border_name(d->p.border),
           clconv_method_name(r->method), clconv_method_name(r->ran),
           clconv_strategy_name(r->p.strategy), r->status, r->predicted_ms);
    if (r->t.reps > 0)
        printf(", \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
               "\"reps\": %d, \"max_err\": %.6g, \"floor_ms\": %.6g",
               r->t.median_ms, r->t.min_ms, r->t.max_ms, r->t.reps,
               r->max_err, r->floor_ms);
    else if (strcmp(r->status, "FAIL") == 0)
        printf(", \"max_err\": %.6g", r->max_err);
    if (*r->reason) {
        printf(", \"reason\": ");
        clconv_json_string(stdout, r->reason);
    }
    printf("}");
    fflush(stdout);
}
