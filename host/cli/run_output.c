/* `clconv run`'s output: a line per row as it runs, the side-by-side
 * table, and the fields of --json and --csv. */
#include <stdio.h>
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

typedef struct table_notes {
    int count;
    char text[4096];
} table_notes;

/* The cell of row r (NULL: not run there); a failure gets a note. */
static void table_cell(const run_row *r, table_notes *notes, char *cell,
                       size_t len)
{
    if (!r) {
        snprintf(cell, len, "-");
    } else if (r->res.status == CLCONV_OK && r->res.verdict.ok) {
        if (r->res.timing.reps)
            snprintf(cell, len, "ok %9.3f ms %7.1f GB/s",
                     r->res.timing.median_ms, gbs_of(r));
        else
            snprintf(cell, len, "ok (not timed)");
    } else {
        const int note = ++notes->count;
        snprintf(cell, len, "%s [%d]", status_word(r), note);
        size_t used = strlen(notes->text);
        snprintf(notes->text + used, sizeof notes->text - used,
                 "[%d] %s %dD %s: %s\n", note,
                 clconv_strategy_name(r->p.strategy), r->p.dims, r->dev->name,
                 r->res.status == CLCONV_OK ? "verification failed"
                                            : r->res.reason);
    }
}

static void table_head(const clconv_problem *p, const cli_devices *devs)
{
    char size[64];
    cli_format_size(p->size, p->dims, size, sizeof size);
    char filter[160];
    cli_filter_describe(p, 0, filter, sizeof filter);
    printf("\n%dD %s, mask %d%s (variant/tile: median ms, GB/s)\n", p->dims,
           size, p->mask_width, filter);
    printf("%-16s", "variant/tile");
    for (size_t d = 0; d < devs->n; ++d) {
        char head[40];
        const clconv_device_info *dev = cli_device(devs, d);
        snprintf(head, sizeof head, "%u:%u %.26s", dev->platform_index,
                 dev->device_index, dev->name);
        printf(" | %-26.26s", head);
    }
    printf("\n");
}

/* Rows [i, j) are one problem: one line per strategy among them. */
static void table_block(const run_row *rows, size_t i, size_t j,
                        const cli_devices *devs, table_notes *notes)
{
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        int tile = 0;
        for (size_t k = i; k < j && !tile; ++k)
            if ((int)rows[k].p.strategy == s)
                tile = rows[k].p.tile;
        if (!tile)
            continue;
        char label[32];
        snprintf(label, sizeof label, "%s/%d",
                 clconv_strategy_name((clconv_strategy)s), tile);
        printf("%-16s", label);
        for (size_t d = 0; d < devs->n; ++d) {
            const run_row *r = NULL;
            for (size_t k = i; k < j; ++k)
                if ((int)rows[k].p.strategy == s &&
                    rows[k].dev == cli_device(devs, d))
                    r = &rows[k];
            char cell[64];
            table_cell(r, notes, cell, sizeof cell);
            printf(" | %-26s", cell);
        }
        printf("\n");
    }
}

static int same_problem(const clconv_problem *a, const clconv_problem *b)
{
    return memcmp(a->size, b->size, sizeof a->size) == 0 &&
           a->dims == b->dims && a->mask_width == b->mask_width &&
           a->border == b->border;
}

void run_print_table(const run_rows *rows, const cli_devices *devs)
{
    table_notes notes = {0, ""};
    for (size_t i = 0; i < rows->n;) {
        const clconv_problem *p = &rows->rows[i].p;
        size_t j = i;
        while (j < rows->n && same_problem(&rows->rows[j].p, p))
            ++j;
        table_head(p, devs);
        table_block(rows->rows, i, j, devs, &notes);
        i = j;
    }
    if (*notes.text)
        printf("\n%s", notes.text);
}
