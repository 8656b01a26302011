/* bench --suite large: what its driver (bench_large.c) and its row
 * output (bench_large_rows.c) share. */
#ifndef CLCONV_CLI_BENCH_LARGE_H
#define CLCONV_CLI_BENCH_LARGE_H

#include <stdint.h>

#include "cli.h"
#include "clconv.h"
#include "clconv_bench.h"

/* outputs each row verifies against the double reference */
#define LARGE_SAMPLES 4096

typedef struct large_options {
    const char *suite, *device;
    int reps, warmup;
    cli_outputs out;             /* --json [FILE], --csv [FILE] */
    uint64_t seed;
    double max_ms;
    clconv_border border;
    clconv_bench_problem custom; /* dims 0: the suite's problems */
    const char *kind;            /* the custom mask: NULL random, "gaussian" */
    int kind_given;              /* --kind appeared */
    int method_only;             /* --method: only this one (else all) */
    clconv_method method;
} large_options;

typedef struct large_data {
    clconv_problem p;
    const char *kind; /* "gaussian" or "random" */
    float *in, *mask, *out;
    size_t idx[LARGE_SAMPLES];
    double ref[LARGE_SAMPLES], abs_sum[LARGE_SAMPLES];
} large_data;

typedef struct large_row {
    clconv_method method;   /* asked for */
    clconv_method ran;      /* what ran (auto resolved) */
    clconv_problem p;
    const char *status;     /* ok, FAIL, skipped, unsupported, error */
    char reason[256];
    double max_err, predicted_ms, floor_ms;
    clconv_timing t;
} large_row;

/* The rows so far, each with its device, problem and mask kind. */
typedef struct large_record {
    const clconv_device_info *dev;
    clconv_problem p;
    const char *kind;
    large_row r;
} large_record;
typedef struct large_records {
    large_record *rec;
    size_t n, cap;
} large_records;

/* The floor of the method that ran (bench_large_rows.c). */
double bench_large_floor_ms(const clconv_problem *p, clconv_method ran,
                            const clconv_ceilings *c);
/* One row: its line on stdout (on stderr, as progress, when JSON or CSV
 * goes to stdout), kept in t for bench_large_emit. 0, or -1 (out of
 * memory, printed). */
int bench_large_add_row(large_records *t, const large_options *o,
                        const clconv_device_info *dev, const large_data *d,
                        const large_row *r);
/* The rows as JSON and CSV where --json and --csv ask. 0, or -1
 * (printed). */
int bench_large_emit(const large_options *o, const large_records *t);

#endif
