/* `clconv model`'s options, shared by model.c (parse, dispatch),
 * model_tables.c (--table and the percent-of-peak tables) and
 * model_counts.c (one case: an interior tile, a block, a whole problem,
 * and the counted loads on devices). */
#ifndef CLCONV_CLI_MODEL_H
#define CLCONV_CLI_MODEL_H

#include "clconv_model.h"
#include "cli.h"

#define MODEL_MAX_LIST 16
#define MODEL_MAX_KINDS 1024

typedef struct model_options {
    int dims, mask, tile, warp;
    int strategy; /* -1: all */
    size_t size[3];
    int have_size;
    size_t block[3];
    int have_block;
    int json, table;
    double peak[MODEL_MAX_LIST], bw[MODEL_MAX_LIST];
    int npeak, nbw;
    const char *device;
    int masks[MODEL_MAX_LIST];
    int nmasks;
    cli_filter filter; /* --mask WxH[xD], --mode, --origin, --convolve */
} model_options;

/* --table: the notes' reduction tables. */
void model_print_reduction_tables(void);
/* The percent-of-peak tables, for --peak-gflops/--bandwidth or the
 * ceilings measured on --device. The exit code. */
int model_peak_tables(const model_options *o);
/* One strategy's interior tile as a row of t (the case checked first),
 * for --json and the table of model_interior_columns. */
void model_interior(cli_rows *t, const clconv_problem *p, int warp);
extern const cli_column model_interior_columns[];
extern const size_t model_interior_ncolumns;
/* One strategy over --size: a --block, or every kind of tile and the
 * totals, and with --device the counted loads under them. */
int model_sized(const clconv_problem *p, const model_options *o, int first);

#endif
