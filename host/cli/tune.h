/* `clconv tune`'s options and rows, shared by tune.c (parse, the search
 * loop, the cache) and tune_output.c (progress on stderr, the rows). */
#ifndef CLCONV_CLI_TUNE_H
#define CLCONV_CLI_TUNE_H

#include "clconv_tune.h"
#include "cli.h"

typedef struct tune_options {
    const char *suite; /* NULL: --dims or quick */
    int dims;          /* one problem when > 0 */
    size_t size[3];
    int have_size, mask;
    const char *device;
    double budget_s;
    int reps, warmup, finalists;
    uint64_t seed;
    cli_outputs out;
    int quiet;
    cli_filter filter; /* --mode, --cval, --mask WxH[xD], --origin, ... */
} tune_options;

/* What the progress callback needs to name the pair it reports on. */
typedef struct progress_ctx {
    const clconv_device_info *dev;
    const clconv_problem *p;
    const tune_options *o;
    double total_left_s; /* the command's budget left when the pair began */
    int failed, errors;
} progress_ctx;

typedef struct tune_row {
    const clconv_device_info *dev;
    clconv_problem p;
    clconv_tune_outcome out;
    clconv_tune_candidate def;
} tune_row;

/* clconv_tune_options' progress callback: failures and errors on stderr
 * always, a line per candidate unless --quiet. user is a progress_ctx. */
void tune_progress(void *user, const clconv_tune_event *ev);
/* The rows: lines on stdout unless JSON or CSV goes there, and --json,
 * --csv. 0, or -1 (error printed). */
int tune_print_rows(const tune_row *rows, size_t n, const cli_outputs *out);

#endif
