/* `clconv model --table` and the percent-of-peak tables: the notes'
 * reduction tables, and what a reduction allows on given or measured
 * ceilings. */
#include <stdio.h>

#include "clconv_bench.h"
#include "model.h"

/* ---- --table ------------------------------------------------------------ */

/* One of the notes' tables: the reduction per TILE_WIDTH, masks 5 and 9. */
static void print_reduction_table(int dims, const int *tiles, size_t ntiles)
{
    static const int masks[] = {5, 9};
    if (dims == 1)
        printf("Bandwidth reduction for 1D: (TILE_WIDTH * MASK_WIDTH) / "
               "(TILE_WIDTH + MASK_WIDTH - 1)\n%-26s", "TILE_WIDTH");
    else
        printf("Bandwidth reduction for 2D: (TILE_WIDTH * MASK_WIDTH)^2 / "
               "(TILE_WIDTH + MASK_WIDTH - 1)^2\n%-26s", "TILE_WIDTH");
    for (size_t t = 0; t < ntiles; ++t)
        printf("%8d", tiles[t]);
    for (size_t m = 0; m < 2; ++m) {
        printf("\nReduction MASK_WIDTH = %-3d", masks[m]);
        for (size_t t = 0; t < ntiles; ++t)
            printf("%8.2f",
                   clconv_model_interior_reduction(dims, tiles[t], masks[m]));
    }
    printf("\n");
}

void model_print_reduction_tables(void)
{
    static const int tiles1[] = {16, 32, 64, 128, 256};
    static const int tiles2[] = {8, 16, 32, 64};
    print_reduction_table(1, tiles1, sizeof tiles1 / sizeof *tiles1);
    printf("\n");
    print_reduction_table(2, tiles2, sizeof tiles2 / sizeof *tiles2);
}

/* ---- percent of peak ------------------------------------------------------ */

typedef struct ceiling_column {
    char name[64];
    double peak, bw;
} ceiling_column;

static void print_peak_table(int dims, int tile, const int *masks, int nmasks,
                             const ceiling_column *cols, int ncols)
{
    char shape[32];
    if (dims == 1)
        snprintf(shape, sizeof shape, "TILE_WIDTH %d", tile);
    else
        snprintf(shape, sizeof shape, "%dx%d tiles", tile, tile);
    printf("\n%% of peak compute for %dD tiled convolution, %s\n"
           "(interior reduction R, bytes per FLOP 2 / R; capped at 100%%, "
           "'bw' is what\nthe bandwidth alone would allow)\n%-10s %8s",
           dims, shape, "MASK_WIDTH", "R");
    for (int c = 0; c < ncols; ++c)
        printf("  %22.22s", cols[c].name);
    printf("\n");
    for (int m = 0; m < nmasks; ++m) {
        const double red = clconv_model_interior_reduction(dims, tile, masks[m]);
        printf("%-10d %8.2f", masks[m], red);
        for (int c = 0; c < ncols; ++c) {
            clconv_model_roof r;
            clconv_model_roof_of(red, cols[c].peak, cols[c].bw, &r);
            char cell[64];
            if (r.percent_of_peak >= 100.0)
                snprintf(cell, sizeof cell, "100%% (bw %.0f%%)",
                         r.percent_of_peak);
            else
                snprintf(cell, sizeof cell, "%.1f%%", r.percent_of_peak);
            printf("  %22s", cell);
        }
        printf("\n");
    }
}

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
    printf("%-34s", "ceilings");
    for (int c = 0; c < ncols; ++c)
        printf("  %22.22s", cols[c].name);
    printf("\n%-34s", "peak GFLOP/s, bandwidth GB/s");
    for (int c = 0; c < ncols; ++c) {
        char cell[64];
        snprintf(cell, sizeof cell, "%.0f, %.0f", cols[c].peak, cols[c].bw);
        printf("  %22s", cell);
    }
    printf("\n%-34s", "untiled (2 B/FLOP): GFLOP/s");
    for (int c = 0; c < ncols; ++c) {
        clconv_model_roof r;
        clconv_model_roof_of(1.0, cols[c].peak, cols[c].bw, &r);
        char cell[64];
        snprintf(cell, sizeof cell, "%.0f = %.2f%%", r.bandwidth_gflops,
                 r.percent_of_peak);
        printf("  %22s", cell);
    }
    printf("\n%-34s", "reuse needed for full compute");
    for (int c = 0; c < ncols; ++c) {
        char cell[64];
        snprintf(cell, sizeof cell, "%.1fx",
                 clconv_model_reuse_needed(cols[c].peak, cols[c].bw));
        printf("  %22s", cell);
    }
    printf("\n");
    static const int masks1[] = {5, 9, 15, 55}, masks2[] = {3, 5, 7, 9};
    print_peak_table(1, 1024, o->nmasks ? o->masks : masks1,
                     o->nmasks ? o->nmasks : 4, cols, ncols);
    print_peak_table(2, 32, o->nmasks ? o->masks : masks2,
                     o->nmasks ? o->nmasks : 4, cols, ncols);
    return CLI_EXIT_OK;
}

