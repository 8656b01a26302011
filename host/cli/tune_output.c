/* `clconv tune`'s output: progress per candidate on stderr, a result per
 * device and problem as a table's line, JSON or CSV. */
#include <stdio.h>
#include <string.h>

#include "clconv_bench.h"
#include "tune.h"

static void format_candidate(const clconv_tune_candidate *c, char *buf,
                             size_t len)
{
    cli_format_config(c->strategy, c->tile, c->coarsen, c->group_y, buf, len);
}

void tune_progress(void *user, const clconv_tune_event *ev)
{
    progress_ctx *c = user;
    char size[64], cand[96], best[96] = "none yet", head[288], filter[96];
    cli_format_size(c->p->size, c->p->dims, size, sizeof size);
    cli_filter_describe(c->p, 0, filter, sizeof filter);
    format_candidate(ev->candidate, cand, sizeof cand);
    snprintf(head, sizeof head, "%u:%u %dD %s W=%d%s", c->dev->platform_index,
             c->dev->device_index, c->p->dims, size, c->p->mask_width,
             filter);
    const clconv_result *r = ev->result;
    const clconv_verdict *v = &r->verdict;
    if (r->status == CLCONV_OK && !v->ok) {
        c->failed = 1;
        cli_error("VERIFICATION FAILED: %s %s: %zu elements out of bound, "
                  "max_err %.3g, worst at index %zu: got %.9g expected %.9g; "
                  "excluded from the choice (please report this)",
                  head, cand, v->failures, v->max_err, v->worst_index,
                  v->worst_got, v->worst_expected);
    } else if (r->status != CLCONV_OK && r->status != CLCONV_EUNSUPPORTED) {
        c->errors = 1;
        cli_error("tune: %s %s: %s: %s", head, cand,
                  clconv_status_name(r->status), r->reason);
    }
    if (c->o->quiet)
        return;
    char what[160];
    if (r->status == CLCONV_EUNSUPPORTED)
        snprintf(what, sizeof what, "unsupported");
    else if (r->status != CLCONV_OK)
        snprintf(what, sizeof what, "error");
    else if (!v->ok)
        snprintf(what, sizeof what, "FAILED verification");
    else
        snprintf(what, sizeof what, "ok %.4f ms", r->timing.median_ms);
    if (ev->best) {
        format_candidate(ev->best, best, sizeof best);
        size_t n = strlen(best);
        snprintf(best + n, sizeof best - n, " %.4f ms", ev->best_ms);
    }
    double left = c->total_left_s - ev->elapsed_s;
    fprintf(stderr, "tune %s %s [%zu/%zu] %s: %s | best %s | %.0f s left\n",
            head, ev->phase == 1 ? "try" : "re-time", ev->index + 1,
            ev->count, cand, what, best, left > 0 ? left : 0.0);
}

static double gbs(const clconv_problem *p, double ms)
{
    clconv_bench_metrics m;
    clconv_bench_metrics_of(p, ms, NULL, &m);
    return m.gbs;
}

/* The fields of one row for --json and --csv, in the order of the keys
 * `clconv tune --json` has always had. */
static void put_fields(cli_rows *t, const void *rows, size_t i)
{
    const tune_row *r = &((const tune_row *)rows)[i];
    const clconv_tune_outcome *o = &r->out;
    cli_row_begin(t);
    cli_put_device(t, "device", r->dev);
    cli_put_str(t, "driver", r->dev->driver);
    cli_put_int(t, "dims", r->p.dims);
    cli_put_size(t, "size", &r->p);
    cli_put_int(t, "mask", r->p.mask_width);
    cli_put_int(t, "size_class", clconv_size_class(&r->p));
    cli_put_bool(t, "found", o->found);
    if (o->found) {
        cli_put_str(t, "strategy", clconv_strategy_name(o->best.strategy));
        cli_put_int(t, "tile", o->best.tile);
        cli_put_int(t, "coarsen", o->best.coarsen);
        cli_put_int(t, "group_y", o->best.group_y);
        cli_put_num(t, "ms", "%.6f", o->best_ms);
        cli_put_num(t, "gbs", "%.3f", gbs(&r->p, o->best_ms));
    }
    /* How many times faster the best is than the default. */
    if (o->found && o->default_ms > 0)
        cli_put_num(t, "speedup", "%.3f", o->default_ms / o->best_ms);
    else
        cli_put_null(t, "speedup");
    cli_put_str(t, "default.strategy", clconv_strategy_name(r->def.strategy));
    cli_put_int(t, "default.tile", r->def.tile);
    if (o->default_ms > 0)
        cli_put_num(t, "default.ms", "%.6f", o->default_ms);
    else
        cli_put_null(t, "default.ms");
    cli_put_int(t, "tried", (long long)o->tried);
    cli_put_int(t, "verified", (long long)o->verified);
    cli_put_int(t, "failed", (long long)o->failed);
    cli_put_int(t, "unsupported", (long long)o->unsupported);
    cli_put_int(t, "errors", (long long)o->errors);
    cli_put_int(t, "not_tried", (long long)o->not_tried);
    cli_put_bool(t, "out_of_time", o->out_of_time);
    /* the filter (after the keys tune has always had): mask_size, the
     * dtypes and mode are the entry's class */
    cli_put_filter(t, &r->p, 1);
}

/* A knob of the best configuration: "-" where the strategy has none (0). */
static void knob(const char *text, char *buf, size_t len)
{
    snprintf(buf, len, "%s", strcmp(text, "0") == 0 ? "-" : text);
}

/* The lines: the rows' fields; "-" for the best of a problem with no
 * verified candidate and for a default that was not timed. */
static const cli_column columns[] = {
    {"device", "device", NULL, NULL},
    {"dims", "D", NULL, NULL},
    {"size", "size", NULL, NULL},
    {"mask_size", "mask", NULL, NULL},
    {"dtype", "type", NULL, NULL},
    {"out_dtype", "out", NULL, NULL},
    {"mode", "mode", NULL, NULL},
    {"strategy", "best", NULL, NULL},
    {"tile", "T", NULL, NULL},
    {"coarsen", "C", NULL, knob},
    {"group_y", "GY", NULL, knob},
    {"ms", "ms", "%.4f", NULL},
    {"gbs", "GB/s", "%.2f", NULL},
    {"default.strategy", "default", NULL, NULL},
    {"default.tile", "T", NULL, NULL},
    {"default.ms", "ms", "%.4f", NULL},
    {"speedup", "speedup", "%.2fx", NULL},
    {"tried", "tried", NULL, NULL},
    {"not_tried", "not tried", NULL, NULL},
    {"verified", "ok", NULL, NULL},
    {"failed", "FAILED", NULL, NULL},
    {"unsupported", "unsupported", NULL, NULL},
    {"errors", "errors", NULL, NULL},
    {"out_of_time", "budget ran out", NULL, NULL},
};

int tune_print_rows(const tune_row *rows, size_t n, const cli_outputs *out)
{
    return cli_emit_table(out, columns, sizeof columns / sizeof *columns, rows,
                          n, put_fields);
}
