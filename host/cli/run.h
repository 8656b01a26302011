/* `clconv run`'s options and rows, shared by run.c (parse, loop) and
 * run_output.c (the line, the side-by-side table, the fields). */
#ifndef CLCONV_CLI_RUN_H
#define CLCONV_CLI_RUN_H

#include "cli.h"

typedef struct run_options {
    int dims;          /* 0: the default problem set */
    size_t size[3];
    int have_size;
    int mask;          /* 0: the default of the dims */
    /* Lists (cross-product): tiles, and the coarse variant's knobs; an
     * empty list means the defaults. */
    int tile[8], ntile;
    int coarsen[8], ncoarsen;
    int group_y[8], ngroup_y;
    int mask_mode[3], nmask_mode;
    int strategy;      /* CLI_STRATEGY_ALL, CLI_STRATEGY_AUTO or one */
    const char *device;
    int reps, warmup;
    uint64_t seed;
    cli_outputs out;   /* --json, --csv */
    int table;         /* the side-by-side table on stdout */
    int lines;         /* one line per row on stdout, as it runs */
    int split;         /* --split: one problem shared by the devices */
    cli_filter filter; /* --mode (a list: rows per mode), --cval, ... */
    clconv_method method; /* default direct: one row per strategy */
} run_options;

typedef struct run_row {
    int batch; /* --batch: problems stacked along the last axis */
    const clconv_device_info *dev; /* the first device of a split */
    clconv_problem p;
    clconv_result res;
    /* Rows that ran through the host-to-host path (a split, or a problem
     * beyond the device's allocation): timing is wall time of whole calls,
     * host arrays in and out. Otherwise slabs 1 and devices 1. */
    int host_path;
    clconv_call_info info;
    char devices[256]; /* "P:D name" of each device that shared it, ";" */
} run_row;

typedef struct run_rows {
    run_row *rows;
    size_t n, cap;
} run_rows;

/* Verify once and time whole host-to-host calls of problems[i] on
 * sessions[i], i < n (n > 1: split by measured speed), into r (res, info,
 * devices). Returns r's exit code. run_split.c. */
int run_host_path(const run_options *o, clconv_session *const *sessions,
                  const clconv_device_info *const *devs, size_t n,
                  const clconv_problem *problems, const clconv_dataset *data,
                  run_row *r);

/* The row's line of the default text output. */
void run_print_line(const run_row *r);
/* One block per problem, one row per variant, one column per device,
 * pivoted from the rows' fields. 0, or -1 (out of memory: printed). */
int run_print_table(const run_rows *rows, const cli_devices *devs);
/* --json and --csv: every row's fields. 0, or -1 (error printed). */
int run_emit(const run_rows *rows, const cli_outputs *out);

#endif
