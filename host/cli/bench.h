/* `clconv bench`'s options, shared by bench.c (parse, loop) and
 * bench_report.c (the problems, the tiles, the table). */
#ifndef CLCONV_CLI_BENCH_H
#define CLCONV_CLI_BENCH_H

#include "clconv_bench.h"
#include "cli.h"

typedef struct bench_options {
    const char *suite;  /* NULL: full if a GPU is selected, else quick */
    int dims;           /* custom problem when > 0 */
    size_t size[3];
    int mask;
    const char *device;
    int strategy;       /* -1: all */
    clconv_mask_mode mask_mode;
    int all_tiles;      /* 0: only each strategy's default tile; 2: all
                           tiles on GPUs, the default tile elsewhere */
    int reps, warmup;
    uint64_t seed;
    cli_outputs out;    /* --json FILE, --csv FILE ("-": stdout) */
    int quiet;
    int end_to_end;     /* --end-to-end: whole host-to-host calls */
    int kernel_knobs;   /* --tiles or --mask-mode given (kernel rows only) */
    cli_filter filter;  /* --mode, --cval, --mask WxH[xD], --origin, ... */
} bench_options;

/* --end-to-end (bench_e2e.c): the exit code. */
int bench_end_to_end(const bench_options *o, const cli_devices *devs);

/* The report's problems: custom, the named suite, or the default for the
 * devices (full as soon as a GPU is among them). CLI_EXIT_OK, or the exit
 * code (error printed). */
int bench_choose_problems(const bench_options *o, const cli_devices *devs,
                          clconv_bench_report *r);
/* The tiles a strategy tries on a dims: the table, plus its default tile,
 * without duplicates. Returns the count (at most cap). */
size_t bench_tiles_of(const bench_options *o, const clconv_device_info *dev,
                      clconv_strategy s, const clconv_problem *shape,
                      int *out, size_t cap);
/* Relative cost of running one variant on a problem, for the estimate of
 * the time left. */
double bench_work_of(const clconv_bench_problem *b);
/* "2D 67x45 W=3": problem p of r as its rows ran it (--batch N stacked:
 * "3D 67x45xN"), the suite's shape before any row. */
void bench_problem_label(const clconv_bench_report *r, size_t p, char *buf,
                         size_t len);
/* One row per problem, a column group per device (best variant, median ms,
 * % of roofline), then each device's speed relative to the first; rows
 * rendered by the emitter (cli_rows_text). 0, or -1 (printed). */
int bench_print_table(const clconv_bench_report *r);

#endif
