/* `clconv model --table` and the percent-of-peak tables: the notes'
 * reduction tables, and what a reduction allows on given or measured
 * ceilings; rows rendered by the emitter's text tables. */
#include <stdio.h>

#include "clconv_bench.h"
#include "model.h"

/* ---- --table ------------------------------------------------------------ */

/* One of the notes' tables: its dims and TILE_WIDTHs. */
typedef struct reduction_table {
    int dims;
    const int *tiles;
} reduction_table;

/* Row t: a TILE_WIDTH and its reductions for masks 5 and 9. */
static void put_reduction(cli_rows *rows, const void *table, size_t t)
{
    const reduction_table *r = table;
    cli_row_begin(rows);
    cli_put_int(rows, "tile", r->tiles[t]);
    cli_put_num(rows, "w5", "%.6f",
                clconv_model_interior_reduction(r->dims, r->tiles[t], 5));
    cli_put_num(rows, "w9", "%.6f",
                clconv_model_interior_reduction(r->dims, r->tiles[t], 9));
}

static const cli_column reduction_columns[] = {
    {"tile", "TILE_WIDTH", NULL, NULL},
    {"w5", "reduction MASK_WIDTH = 5", "%.2f", NULL},
    {"w9", "reduction MASK_WIDTH = 9", "%.2f", NULL},
};

void model_print_reduction_tables(void)
{
    static const int tiles1[] = {16, 32, 64, 128, 256};
    static const int tiles2[] = {8, 16, 32, 64};
    const reduction_table t1 = {1, tiles1}, t2 = {2, tiles2};
    const cli_outputs text = {NULL, NULL};
    printf("Bandwidth reduction for 1D: (TILE_WIDTH * MASK_WIDTH) / "
           "(TILE_WIDTH + MASK_WIDTH - 1)\n");
    cli_emit_table(&text, reduction_columns, 3, &t1,
                   sizeof tiles1 / sizeof *tiles1, put_reduction);
    printf("\nBandwidth reduction for 2D: (TILE_WIDTH * MASK_WIDTH)^2 / "
           "(TILE_WIDTH + MASK_WIDTH - 1)^2\n");
    cli_emit_table(&text, reduction_columns, 3, &t2,
                   sizeof tiles2 / sizeof *tiles2, put_reduction);
}

/* ---- percent of peak ------------------------------------------------------ */

typedef struct ceiling_column {
    char name[64];
    double peak, bw;
    char key[16]; /* "c<index>": its column in the tables */
} ceiling_column;

/* One mask's row: its interior reduction R and, per ceiling, the percent
 * of peak (capped, with what the bandwidth alone would allow). */
static void put_peak_row(cli_rows *t, int dims, int tile, int mask,
                         const ceiling_column *cols, int ncols)
{
    const double red = clconv_model_interior_reduction(dims, tile, mask);
    cli_row_begin(t);
    cli_put_int(t, "mask", mask);
    cli_put_num(t, "R", "%.6f", red);
    for (int c = 0; c < ncols; ++c) {
        clconv_model_roof r;
        clconv_model_roof_of(red, cols[c].peak, cols[c].bw, &r);
        char cell[64];
        if (r.percent_of_peak >= 100.0)
            snprintf(cell, sizeof cell, "100%% (bw %.0f%%)",
                     r.percent_of_peak);
        else
            snprintf(cell, sizeof cell, "%.1f%%", r.percent_of_peak);
        cli_put_str(t, cols[c].key, cell);
    }
}

static int print_peak_table(int dims, int tile, const int *masks, int nmasks,
                            const ceiling_column *cols, int ncols)
{
    char shape[32];
    if (dims == 1)
        snprintf(shape, sizeof shape, "TILE_WIDTH %d", tile);
    else
        snprintf(shape, sizeof shape, "%dx%d tiles", tile, tile);
    printf("\n%% of peak compute for %dD tiled convolution, %s\n"
           "(interior reduction R, bytes per FLOP 2 / R; capped at 100%%, "
           "'bw' is what\nthe bandwidth alone would allow)\n",
           dims, shape);
    cli_column head[MODEL_MAX_LIST + 2] = {{"mask", "MASK_WIDTH", 0, 0},
                                           {"R", "R", "%.2f", NULL}};
    for (int c = 0; c < ncols; ++c)
        head[c + 2] = (cli_column){cols[c].key, cols[c].name, NULL, NULL};
    cli_rows *t = cli_rows_new();
    for (int m = 0; t && m < nmasks; ++m)
        put_peak_row(t, dims, tile, masks[m], cols, ncols);
    int rc = t ? cli_rows_text(t, head, (size_t)ncols + 2, stdout) : -1;
    if (!t)
        cli_error("out of memory");
    cli_rows_free(t);
    return rc;
}

/* The ceilings, a line each: what they are, what an untiled kernel
 * (2 B/FLOP) reaches on them, the reuse full compute needs. */
static void put_ceiling(cli_rows *t, const void *cols, size_t c)
{
    const ceiling_column *col = &((const ceiling_column *)cols)[c];
    clconv_model_roof r;
    clconv_model_roof_of(1.0, col->peak, col->bw, &r);
    cli_row_begin(t);
    cli_put_str(t, "ceilings", col->name);
    cli_put_num(t, "peak_gflops", "%.6g", col->peak);
    cli_put_num(t, "bandwidth_gbs", "%.6g", col->bw);
    cli_put_num(t, "untiled_gflops", "%.6g", r.bandwidth_gflops);
    cli_put_num(t, "untiled_pct", "%.6g", r.percent_of_peak);
    cli_put_num(t, "reuse", "%.6g",
                clconv_model_reuse_needed(col->peak, col->bw));
}

static const cli_column ceiling_columns[] = {
    {"ceilings", "ceilings", NULL, NULL},
    {"peak_gflops", "peak GFLOP/s", "%.0f", NULL},
    {"bandwidth_gbs", "bandwidth GB/s", "%.0f", NULL},
    {"untiled_gflops", "untiled (2 B/FLOP): GFLOP/s", "%.0f", NULL},
    {"untiled_pct", "% of peak", "%.2f%%", NULL},
    {"reuse", "reuse needed for full compute", "%.1fx", NULL},
};

/* The ceilings measured on each device of o->device, as columns. The
 * exit code. */
static int measured_columns(const model_options *o, ceiling_column *cols,
                            int *ncols)
{
    cli_devices devs;
    int rc = cli_devices_open(&devs, o->device, 1);
    const int opened = rc == CLI_EXIT_OK;
    for (size_t k = 0; rc == CLI_EXIT_OK && k < devs.n &&
                       *ncols < MODEL_MAX_LIST; ++k) {
        const clconv_device_info *d = cli_device(&devs, k);
        clconv_ceilings c;
        clconv_status st = clconv_measure_ceilings(devs.sessions[k], &c);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            rc = cli_exit_code(st);
            break;
        }
        snprintf(cols[*ncols].name, sizeof cols[*ncols].name, "%u:%u %.40s",
                 d->platform_index, d->device_index, d->name);
        cols[*ncols].peak = c.fp32_gflops;
        cols[*ncols].bw = c.copy_gbs;
        ++*ncols;
    }
    if (opened)
        cli_devices_close(&devs);
    return rc;
}

int model_peak_tables(const model_options *o)
{
    ceiling_column cols[MODEL_MAX_LIST];
    int ncols = 0;
    if (o->device) {
        int rc = measured_columns(o, cols, &ncols);
        if (rc != CLI_EXIT_OK)
            return rc;
    } else {
        for (int c = 0; c < o->npeak; ++c) {
            snprintf(cols[c].name, sizeof cols[c].name, "%g GFLOP/s %g GB/s",
                     o->peak[c], o->bw[c]);
            cols[c].peak = o->peak[c];
            cols[c].bw = o->bw[c];
        }
        ncols = o->npeak;
    }
    for (int c = 0; c < ncols; ++c)
        snprintf(cols[c].key, sizeof cols[c].key, "c%d", c);
    const cli_outputs text = {NULL, NULL};
    if (cli_emit_table(&text, ceiling_columns,
                       sizeof ceiling_columns / sizeof *ceiling_columns, cols,
                       (size_t)ncols, put_ceiling))
        return CLI_EXIT_UNSUPPORTED;
    static const int masks1[] = {5, 9, 15, 55}, masks2[] = {3, 5, 7, 9};
    if (print_peak_table(1, 1024, o->nmasks ? o->masks : masks1,
                         o->nmasks ? o->nmasks : 4, cols, ncols) ||
        print_peak_table(2, 32, o->nmasks ? o->masks : masks2,
                         o->nmasks ? o->nmasks : 4, cols, ncols))
        return CLI_EXIT_UNSUPPORTED;
    return CLI_EXIT_OK;
}

