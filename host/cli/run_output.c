/* `clconv run`'s output: a line per row as it runs, the side-by-side
 * table, and the fields of --json and --csv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "run.h"

/* GB/s of a verified, timed row (0 otherwise): the library's one
 * definition of the bytes a problem moves. */
static double gbs_of(const run_row *r)
{
    if (r->res.status != CLCONV_OK || !r->res.verdict.ok ||
        r->res.timing.reps == 0 || r->res.timing.median_ms <= 0)
        return 0.0;
    clconv_bench_metrics m;
    clconv_bench_metrics_of(&r->p, r->res.timing.median_ms, NULL, &m);
    return m.gbs;
}

static const char *status_word(const run_row *r)
{
    if (r->res.status == CLCONV_EUNSUPPORTED)
        return "unsupported";
    if (r->res.status != CLCONV_OK)
        return "error";
    return r->res.verdict.ok ? "ok" : "FAIL";
}

void run_print_line(const run_row *r)
{
    char size[64];
    cli_format_size(r->p.size, r->p.dims, size, sizeof size);
    char filter[160];
    cli_filter_describe(&r->p, 0, filter, sizeof filter);
    if (r->info.devices > 1)
        printf("%-33.33s ", r->devices);
    else
        printf("%u:%u %-28.28s ", r->dev->platform_index,
               r->dev->device_index, r->dev->name);
    printf("%-12s %dD %-14s W=%-3d T=%-4d%s ",
           cli_method_or_strategy(&r->p, r->res.method), r->p.dims, size,
           r->p.mask_width, r->p.tile, filter);
    const int knobs = clconv_strategy_knobs(r->p.strategy, r->p.dims);
    if (knobs & CLCONV_KNOB_GROUP_Y)
        printf("C=%-2d G=%-2d ", r->p.coarsen, r->p.group_y);
    else if (knobs & CLCONV_KNOB_COARSEN)
        printf("C=%-2d      ", r->p.coarsen);
    printf("%-5s ", r->p.mask_mode == CLCONV_MASK_BAKED ? "baked" : "arg");
    const clconv_verdict *v = &r->res.verdict;
    if (r->res.status == CLCONV_EUNSUPPORTED) {
        printf("unsupported: %s\n", r->res.reason);
    } else if (r->res.status != CLCONV_OK) {
        printf("error: %s\n", r->res.reason);
    } else if (!v->ok) {
        printf("FAIL max_err %.3g, worst at index %zu: got %.9g expected "
               "%.9g (%zu elements out of bound)\n",
               v->max_err, v->worst_index, v->worst_got, v->worst_expected,
               v->failures);
    } else if (r->res.timing.reps) {
        printf("ok   max_err %.2e %9.4f ms %8.2f GB/s", v->max_err,
               r->res.timing.median_ms, gbs_of(r));
        if (r->host_path)
            printf("  host-to-host, %zu slab(s) on %zu device(s)",
                   r->info.slabs, r->info.devices);
        printf("\n");
    } else {
        printf("ok   max_err %.2e (not timed)\n", v->max_err);
    }
    fflush(stdout);
    cli_stdout_note();
}

/* The fields of row i, in the order of --json's keys. */
static void put_fields(cli_rows *t, const void *rows, size_t i)
{
    const run_row *r = &((const run_row *)rows)[i];
    cli_row_begin(t);
    cli_put_device(t, "device", r->dev);
    cli_put_str(t, "strategy", clconv_strategy_name(r->p.strategy));
    cli_put_int(t, "dims", r->p.dims);
    cli_put_size(t, "size", &r->p);
    cli_put_int(t, "mask", r->p.mask_width);
    cli_put_int(t, "tile", r->p.tile);
    cli_put_str(t, "status", status_word(r));
    cli_put_str(t, "mask_mode", clconv_mask_mode_name(r->p.mask_mode));
    cli_put_filter(t, &r->p, r->batch);
    cli_put_str(t, "method", clconv_method_name(r->res.method));
    const int knobs = clconv_strategy_knobs(r->p.strategy, r->p.dims);
    if (knobs & CLCONV_KNOB_COARSEN)
        cli_put_int(t, "coarsen", r->p.coarsen);
    if (knobs & CLCONV_KNOB_GROUP_Y)
        cli_put_int(t, "group_y", r->p.group_y);
    const int ran = r->res.status == CLCONV_OK;
    const int timed = ran && r->res.verdict.ok && r->res.timing.reps;
    if (ran && r->res.verdict.max_err < 1e300)
        cli_put_num(t, "max_err", "%.6g", r->res.verdict.max_err);
    else
        cli_put_null(t, "max_err");
    /* How the problem ran: in how many pieces, on which devices, and
     * what "ms" measures (kernel launches, or whole host-to-host calls). */
    cli_put_int(t, "slabs", r->host_path ? (long long)r->info.slabs : 1);
    if (r->host_path) {
        cli_put_str(t, "devices", r->devices);
    } else {
        char one[300];
        snprintf(one, sizeof one, "%u:%u %s", r->dev->platform_index,
                 r->dev->device_index, r->dev->name);
        cli_put_str(t, "devices", one);
    }
    cli_put_str(t, "timed", r->host_path ? "host-to-host" : "kernel");
    if (timed) {
        cli_put_num(t, "ms", "%.6f", r->res.timing.median_ms);
        cli_put_num(t, "gbs", "%.3f", gbs_of(r));
    } else {
        cli_put_null(t, "ms");
        cli_put_null(t, "gbs");
    }
    if (!ran)
        cli_put_str(t, "reason", r->res.reason);
}

int run_emit(const run_rows *rows, const cli_outputs *out)
{
    return cli_emit(out, rows->rows, rows->n, put_fields);
}

/* ---- the side-by-side table ----------------------------------------------- */

/* The rows' fields (put_fields), pivoted: for each problem a table with a
 * line per variant and a column per device. */
typedef struct table_ctx {
    const run_rows *rows;
    const cli_devices *devs;
    cli_rows *fields; /* put_fields of every row */
    int notes;
    char text[4096]; /* the notes of failed cells */
} table_ctx;

/* Row k's variant: "strategy/tile", with its knobs where it has them. */
static void variant_label(const cli_rows *f, size_t k, char *buf, size_t len)
{
    const char *c = cli_rows_get(f, k, "coarsen", NULL);
    const char *g = cli_rows_get(f, k, "group_y", NULL);
    snprintf(buf, len, "%s/%s%s%s%s%s", cli_rows_get(f, k, "strategy", NULL),
             cli_rows_get(f, k, "tile", NULL), c ? " C=" : "", c ? c : "",
             g ? " G=" : "", g ? g : "");
}

/* The cell of row k: median ms and GB/s, or its status and a note. */
static void table_cell(table_ctx *c, size_t k, char *cell, size_t len)
{
    const char *status = cli_rows_get(c->fields, k, "status", NULL);
    const char *ms = cli_rows_get(c->fields, k, "ms", NULL);
    const char *gbs = cli_rows_get(c->fields, k, "gbs", NULL);
    if (strcmp(status, "ok") == 0) {
        if (ms && gbs)
            snprintf(cell, len, "ok %9.3f ms %7.1f GB/s", strtod(ms, NULL),
                     strtod(gbs, NULL));
        else
            snprintf(cell, len, "ok (not timed)");
        return;
    }
    const run_row *r = &c->rows->rows[k];
    const char *reason = cli_rows_get(c->fields, k, "reason", NULL);
    snprintf(cell, len, "%s [%d]", status, ++c->notes);
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "[%d] %s %dD %s: %s\n",
             c->notes, clconv_strategy_name(r->p.strategy), r->p.dims,
             r->dev->name, reason ? reason : "verification failed");
}

static void table_title(const clconv_problem *p)
{
    char size[64];
    cli_format_size(p->size, p->dims, size, sizeof size);
    char filter[160];
    cli_filter_describe(p, 0, filter, sizeof filter);
    printf("\n%dD %s, mask %d%s (variant/tile: median ms, GB/s)\n", p->dims,
           size, p->mask_width, filter);
}

/* Rows [i, j) are one problem: a line per variant among them (in their
 * order), a cell per device ("-": not run there). */
static int table_block(table_ctx *c, size_t i, size_t j, cli_rows *t,
                       const cli_column *cols, size_t ncols)
{
    if (!t) {
        cli_error("out of memory");
        return -1;
    }
    for (size_t k = i; k < j; ++k) {
        char label[96], other[96];
        variant_label(c->fields, k, label, sizeof label);
        int seen = 0;
        for (size_t e = i; e < k && !seen; ++e) {
            variant_label(c->fields, e, other, sizeof other);
            seen = strcmp(label, other) == 0;
        }
        if (seen)
            continue;
        cli_row_begin(t);
        cli_put_str(t, "variant", label);
        for (size_t d = 0; d + 1 < ncols; ++d) {
            long at = -1;
            for (size_t e = k; e < j; ++e) {
                variant_label(c->fields, e, other, sizeof other);
                if (strcmp(label, other) == 0 &&
                    c->rows->rows[e].dev == cli_device(c->devs, d))
                    at = (long)e;
            }
            char cell[96];
            if (at >= 0) {
                table_cell(c, (size_t)at, cell, sizeof cell);
                cli_put_str(t, cols[d + 1].key, cell);
            }
        }
    }
    table_title(&c->rows->rows[i].p);
    return cli_rows_text(t, cols, ncols, stdout);
}

static int same_problem(const clconv_problem *a, const clconv_problem *b)
{
    return memcmp(a->size, b->size, sizeof a->size) == 0 &&
           a->dims == b->dims && a->mask_width == b->mask_width &&
           a->border == b->border;
}

/* The columns: the variant, then a device each, keyed "d<index>". */
static cli_column *table_columns(const cli_devices *devs, char (*keys)[24],
                                 char (*titles)[300])
{
    cli_column *cols = calloc(devs->n + 1, sizeof *cols);
    if (!cols)
        return NULL;
    cols[0] = (cli_column){"variant", "variant/tile", NULL, NULL};
    for (size_t d = 0; d < devs->n; ++d) {
        const clconv_device_info *dev = cli_device(devs, d);
        snprintf(keys[d], sizeof keys[d], "d%zu", d);
        snprintf(titles[d], sizeof titles[d], "%u:%u %s", dev->platform_index,
                 dev->device_index, dev->name);
        cols[d + 1] = (cli_column){keys[d], titles[d], NULL, NULL};
    }
    return cols;
}

int run_print_table(const run_rows *rows, const cli_devices *devs)
{
    table_ctx *c = calloc(1, sizeof *c);
    char(*keys)[24] = calloc(devs->n + 1, sizeof *keys);
    char(*titles)[300] = calloc(devs->n + 1, sizeof *titles);
    cli_column *cols = keys && titles ? table_columns(devs, keys, titles) : 0;
    int rc = -1;
    if (!c || !cols || !(c->fields = cli_rows_new())) {
        cli_error("out of memory");
        goto out;
    }
    *c = (table_ctx){rows, devs, c->fields, 0, ""};
    for (size_t k = 0; k < rows->n; ++k)
        put_fields(c->fields, rows->rows, k);
    rc = cli_rows_oom(c->fields) ? -1 : 0;
    if (rc)
        cli_error("out of memory");
    for (size_t i = 0; i < rows->n && rc == 0;) {
        size_t j = i;
        while (j < rows->n && same_problem(&rows->rows[j].p, &rows->rows[i].p))
            ++j;
        cli_rows *t = cli_rows_new();
        rc = table_block(c, i, j, t, cols, devs->n + 1);
        cli_rows_free(t);
        i = j;
    }
    if (*c->text)
        printf("\n%s", c->text);
out:
    if (c)
        cli_rows_free(c->fields);
    free(c);
    free(cols);
    free(titles);
    free(keys);
    return rc;
}
