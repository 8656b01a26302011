/* clconv bench: measured ceilings per device and the standard problem set.
 *
 * The ceilings are what the hardware allows through OpenCL on this device,
 * measured in the same run as the convolutions they bound:
 *   copy_gbs    float4 device-to-device copy, bytes read + bytes written
 *               per second / 1e9, median of the timed runs;
 *   fp32_gflops independent FMA chains, 2 FLOP per FMA, median.
 * A convolution of n outputs with a mask of W^d moves at least (i + o) n
 * bytes (read once, write once; i and o the input's and output's bytes
 * per element, 4 + 4 for float32, 1 + 1 for u8 to u8) and does 2 W^d n
 * FLOP, so its roofline floor is max((i + o) n / copy, 2 W^d n / fp32). */
#ifndef CLCONV_BENCH_H
#define CLCONV_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clconv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clconv_ceilings {
    double copy_gbs;    /* GB/s (1e9 bytes), read + written */
    double fp32_gflops; /* GFLOP/s, 2 per FMA */
} clconv_ceilings;

/* Measure both ceilings on the session's device (a few seconds at most):
 * untimed warm-up, then at least 10 timed launches each, median. The
 * kernels are cl/bench_copy.cl and cl/bench_fma.cl. */
clconv_status clconv_measure_ceilings(clconv_session *s, clconv_ceilings *c);

/* The copy ceiling for buffers of `bytes` each (rounded down to whole
 * work-groups): on CPUs a problem that fits the caches copies faster than
 * the DRAM ceiling above, so a bench floor takes the larger of the two. */
clconv_status clconv_measure_copy(clconv_session *s, size_t bytes,
                                  double *gbs);

/* The cost model of the automatic method (issue 17 item 3): predicted
 * milliseconds of each method for p on dev with ceilings c (NULL or zero:
 * estimated from dev's compute units and clock; measuring them with
 * clconv_measure_ceilings on a session makes that session's automatic
 * choice use them). ms[CLCONV_METHOD_AUTO] is the least of the others;
 * separable is predicted as if the mask were separable. The model, per
 * output element n and mask width W in d dimensions:
 *   direct:    max(8 n / copy, 2 W^d n / (e fp32), k W^d 10 / clock),
 *              e = 0.25 (0.5 in 1D), the last term on GPUs only: k
 *              outputs per work-item of the default kernel, each work-
 *              item's taps in turn at ~10 clocks a tap (a problem too
 *              small to fill the GPU)
 *   separable: d passes of max(8 n / copy, 2 W n / (0.5 fp32))
 *   FFT:       L = padded elements; pad, multiply and crop move 36 L bytes,
 *              two transforms 2 * d * 8 L bytes and 2 * 2.5 L log2 L flops
 *              at 0.3 fp32, and each pass beyond one per axis (an axis
 *              longer than local memory / 4 complex floats) 40 L bytes
 * plus a fixed cost per kernel launch (5 us on GPUs, 20 us elsewhere).
 * The efficiencies are those measured on the H100 for large masks
 * (bench/PERF.md items 37 and 40). */
/* The ceilings the cost model uses for dev: c's where given (non-zero),
 * else estimated from dev's compute units and clock (or 1 and 1000 MHz
 * where dev or its figures are missing): 128 FP32 lanes a compute unit on
 * GPUs, 16 on CPUs, 2 flops per FMA; 1500 GB/s on GPUs, 20 elsewhere.
 * Writes them to used (may be NULL); returns which were estimated: bit 0
 * the copy ceiling, bit 1 the FP32 one. */
int clconv_method_ceilings(const clconv_device_info *dev,
                           const clconv_ceilings *c, clconv_ceilings *used);
void clconv_method_predict(const clconv_device_info *dev,
                           const clconv_ceilings *c, const clconv_problem *p,
                           double ms[CLCONV_METHOD_COUNT]);
/* The method the cost model picks (never auto); separable only when
 * separable is non-zero and dims > 1, or in 1D (one pass) on a device other
 * than a CPU beyond 64 taps, where the pass ran faster than the direct
 * kernel; the FFT only where it is predicted twice as fast as the best
 * other. Direct for p NULL (and clconv_method_predict writes nothing). */
clconv_method clconv_method_pick(const clconv_device_info *dev,
                                 const clconv_ceilings *c,
                                 const clconv_problem *p, int separable);

/* ---- end to end: host arrays in, host arrays out ------------------------ */

/* Transfers between pageable host memory (malloc'd, as users' arrays are)
 * and the device: blocking clEnqueueWriteBuffer/ReadBuffer of `bytes`
 * (clamped to what the session may allocate), median of 7 after one
 * untimed round; then the same from memory the runtime allocates for the
 * host (CL_MEM_ALLOC_HOST_PTR, mapped: pinned where the driver pins it,
 * as clconv's staging is). GB/s are 1e9 bytes per second. */
typedef struct clconv_transfer {
    size_t bytes;
    double h2d_gbs, d2h_gbs;               /* pageable */
    double pinned_h2d_gbs, pinned_d2h_gbs; /* runtime-allocated */
} clconv_transfer;
clconv_status clconv_measure_transfer(clconv_session *s, size_t bytes,
                                      clconv_transfer *t);

/* Wall time of whole clconv_convolve_ex calls (host in, host out): warmup
 * untimed calls, then reps timed ones; t gets median/min/max ms, info what
 * the last call did (slabs, zero copy). */
clconv_status clconv_time_end_to_end(clconv_session *s,
                                     const clconv_problem *p, const float *in,
                                     const float *mask, float *out,
                                     int warmup, int reps, clconv_timing *t,
                                     clconv_call_info *info);

/* ---- the standard problem set ------------------------------------------ */

typedef struct clconv_bench_problem {
    int dims;
    size_t size[3]; /* unused dimensions are 1 */
    int mask_width;
} clconv_bench_problem;

/* The problems of a named suite ("full", "quick"): *out points to a static
 * table; returns the count, 0 for an unknown name (or NULL: then *out
 * is NULL; out NULL: 0). */
size_t clconv_bench_suite(const char *name, const clconv_bench_problem **out);
/* The mask of problem i of a suite: NULL for random values in [-1, 1],
 * else a named mask of the problem's width ("gaussian", as
 * clconv_mask_spec_parse reads "gaussian:W"). */
const char *clconv_bench_suite_mask(const char *name, size_t i);

/* The problem of a bench entry, with strategy naive and tile 1 (every
 * other field zero). */
void clconv_bench_shape(const clconv_bench_problem *b, clconv_problem *p);

/* The TILE_WIDTH values tried for a dims (1D 64..512, 2D 8..32, 3D 4, 8):
 * *out points to a static table, returns the count. Each strategy also
 * tries its clconv_default_tile(); tiles that do not fit a device are
 * skipped with their reason. out NULL: 0. */
size_t clconv_bench_tiles(int dims, const int **out);

/* ---- metrics of one timed row ------------------------------------------ */

typedef struct clconv_bench_metrics {
    double bytes;        /* 8 n: input read once, output written once */
    double flops;        /* 2 W^d n */
    double intensity;    /* flops / bytes */
    double gbs;          /* bytes / median, 1e9 B/s */
    double gflops;       /* flops / median */
    double floor_ms;     /* max(bytes / copy, flops / fp32); 0 if unknown */
    double roofline_pct; /* 100 * floor / median; 0 if unknown */
} clconv_bench_metrics;

/* Metrics of a problem timed at median_ms on a device with ceilings c
 * (c may be NULL: no floor). */
void clconv_bench_metrics_of(const clconv_problem *p, double median_ms,
                             const clconv_ceilings *c,
                             clconv_bench_metrics *m);

/* ---- a report: devices, problems, rows ---------------------------------- */

typedef struct clconv_bench_device {
    clconv_device_info info;
    clconv_ceilings ceilings; /* zero when they could not be measured */
    char ceilings_error[256]; /* why not, or "" */
} clconv_bench_device;

typedef struct clconv_bench_row {
    size_t device;          /* index into the report's devices */
    size_t problem;         /* index into the report's problems */
    clconv_problem p;       /* with strategy and tile */
    clconv_result res;      /* status, verdict, timing */
    clconv_bench_metrics m; /* valid when timed (timing.reps > 0) */
    double model_reduction; /* the notes' interior reduction; 0 for naive */
} clconv_bench_row;

typedef struct clconv_bench_report {
    char version[96];  /* git describe at build time, or the release */
    char date[32];     /* UTC, ISO 8601 */
    char suite[16];    /* "full", "quick" or "custom" */
    uint64_t seed;
    int warmup, reps;
    clconv_bench_device *devices;
    size_t ndevices;
    clconv_bench_problem *problems;
    size_t nproblems;
    clconv_bench_row *rows;
    size_t nrows, cap;
} clconv_bench_report;

/* Append a row (copied); CLCONV_ENOMEM if it cannot grow. */
clconv_status clconv_bench_add_row(clconv_bench_report *r,
                                   const clconv_bench_row *row);
/* Free what the report owns (devices, problems, rows). */
void clconv_bench_report_free(clconv_bench_report *r);
/* A row is "ok" (verified and timed), "unsupported", "error" or "FAIL"
 * ("error" for row NULL). */
const char *clconv_bench_row_status(const clconv_bench_row *row);
/* The fastest verified, timed row of a problem on a device; -1 if none
 * (r NULL too). */
long clconv_bench_best(const clconv_bench_report *r, size_t problem,
                       size_t device);

/* The report as JSON or CSV (schema in bench/README.md). CLCONV_EIO if
 * writing failed. */
clconv_status clconv_bench_write_json(const clconv_bench_report *r, FILE *f);
clconv_status clconv_bench_write_csv(const clconv_bench_report *r, FILE *f);

/* The string escapers every JSON and CSV writer of clconv uses (the
 * reports above, the CLI's rows): a JSON string literal (", \ and control
 * characters escaped), and a CSV field (quoted, quotes doubled, newlines
 * as spaces). s NULL: JSON's null, an empty CSV field; f NULL: nothing. */
void clconv_json_string(FILE *f, const char *s);
void clconv_csv_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_BENCH_H */
