/* The command-line interface: commands, exit codes, argument helpers, the
 * shared layer (devices and sessions, default problems, exit-code rules)
 * and the row emitter. host/cli includes the public headers alone. */
#ifndef CLCONV_CLI_H
#define CLCONV_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "clconv.h"

/* Exit codes (documented in README.md). */
enum {
    CLI_EXIT_OK = 0,          /* every requested run verified */
    CLI_EXIT_VERIFY = 1,      /* a verification failed */
    CLI_EXIT_USAGE = 2,       /* bad flag or value */
    CLI_EXIT_UNSUPPORTED = 3  /* unsupported on the device, or OpenCL error */
};

/* A command: `clconv NAME ...`. argv[0] is the command's name. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*main)(int argc, char **argv);
    void (*usage)(FILE *f); /* its --help */
} cli_command;

int cli_main(int argc, char **argv);
/* First in main: standard input, output and error, where one is closed
 * (`>&-`), opened on /dev/null the wrong way round, so no file clconv
 * opens takes their number and their reads and writes still fail; -1 if
 * /dev/null cannot be opened. */
int cli_std_fds_open(void);
/* Flush stdout at a command's end: a write that failed at any point is
 * said on stderr and makes an exit code of CLI_EXIT_OK
 * CLI_EXIT_UNSUPPORTED; the code, so changed. */
int cli_flush_stdout(int code);
/* Right after writes to stdout (a usage text, a table's line): keep the
 * errno of the first that failed for cli_flush_stdout's message. glibc
 * drops a buffer it could not write, and the final flush then succeeds
 * with no errno: "write error on standard output" lost its reason. */
void cli_stdout_note(void);
/* Under an MPI launcher with several ranks, `apply` and `bench --mpi`
 * exec the clconv-mpi beside this program: returns only if it could not
 * (the exit code, error printed) or need not (-1: run as usual). */
int cli_mpi_redirect(int argc, char **argv);
int cli_devices_main(int argc, char **argv);
int cli_run_main(int argc, char **argv);
int cli_bench_main(int argc, char **argv);
int cli_model_main(int argc, char **argv);
int cli_apply_main(int argc, char **argv);
int cli_tune_main(int argc, char **argv);
void cli_devices_usage(FILE *f);
void cli_run_usage(FILE *f);
void cli_bench_usage(FILE *f);
void cli_model_usage(FILE *f);
void cli_apply_usage(FILE *f);
void cli_tune_usage(FILE *f);
/* One stderr line naming the session's measuring overrides, if any. */
void cli_note_overrides(const clconv_session *s);
/* Mute (on 1) or restore (0) cli_error: MPI ranks other than 0 while
 * every rank makes the same checks, so a message is printed once. */
void cli_error_mute(int on);
/* Print "clconv: <message>" on one line to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* --suite NAME, a suite of clconv_bench_suite(): 1 if argv[*i] was it
 * (stored), 0 for another option, -1 (error printed). */
int cli_parse_suite(int argc, char **argv, int *i, const char **suite);
/* "--suite: unknown suite 'v' (full, quick, large, large-quick)" */
void cli_unknown_suite(const char *v);
/* "clconv: CMD: unknown option 'ARG' (see clconv CMD --help)" */
void cli_unknown_option(const char *cmd, const char *arg);
/* Exit code for a library status. */
int cli_exit_code(clconv_status st);

/* How a command parses (run.c, tune.c, bench.c, model.c): a parse_one()
 * that tries each of its options in turn, `if (cli_opt_value(...)) return
 * ...;`, ending in cli_unknown_option(), then parse() that sets the
 * defaults, loops parse_one() and checks the rules. The commands' parsers
 * have this same shape on purpose, one line per option they take (a
 * table in code; `duplicates` lists them as alike). */
/* Option scanning: if argv[*i] is --name or --name=value, store the value
 * (the next argument or the part after '='), advance *i and return 1; 0 if
 * argv[*i] is another option; -1 (error printed) if the value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char **value);
/* argv[*i] is the flag --name (no value). */
int cli_opt_flag(char **argv, int i, const char *name);
/* If argv[i] is the flag --name, set *flag to 1 and return 1; else 0. */
int cli_opt_set(char **argv, int i, const char *name, int *flag);
/* The defaults of the commands that run kernels: --device from
 * $CLCONV_DEVICE, --seed from cli_default_seed(). 0, or -1 (printed). */
int cli_run_defaults(const char **device, uint64_t *seed);
/* Strict parsers: the whole string, in range, or an error line and -1. */
int cli_parse_int(const char *flag, const char *s, long min, long max,
                  long *out);
int cli_parse_u64(const char *flag, const char *s, uint64_t *out);
/* Comma lists ("a,b,c"). cli_list_next copies the next entry of s from
 * *rest (s at first; NULL once the last is taken) into buf and moves *rest
 * past it: 1 an entry, 0 none left, -1 (error printed) for an empty list
 * or entry ("", "1,", ",1", "1,,2") or one of cap bytes or more.
 * cli_parse_int_list: at most cap integers in [min, max], each as
 * cli_parse_int takes it, at least one. */
int cli_list_next(const char *flag, const char *s, const char **rest,
                  char *buf, size_t cap);
int cli_parse_int_list(const char *flag, const char *s, int min, int max,
                       int *out, int cap, int *n);
/* A positive finite number up to max at the start of s (no leading
 * space), *end just after it: 0, or -1 (nothing printed: the caller says
 * what the flag takes). */
int cli_parse_positive_prefix(const char *s, double max, double *out,
                              const char **end);
/* --device SEL, --reps N (>= reps_min), --warmup N, --seed S, shared by
 * the commands that time kernels: 1 if argv[*i] was one of them (value
 * stored), 0 if it is another option, -1 (error printed) on a bad value. */
int cli_parse_run_option(int argc, char **argv, int *i, int reps_min,
                         const char **device, int *reps, int *warmup,
                         uint64_t *seed);
/* --dims D, --size X[xY[xZ]] (kept as text: it is parsed once --dims is
 * known) and --mask W, shared by the commands that take a problem: 1 if
 * argv[*i] was one of them, 0 if another option, -1 (error printed). */
int cli_parse_problem_option(int argc, char **argv, int *i, int *dims,
                             const char **size, int *mask);
/* --mask: a width in 1..1023 (odd or even), or an error line and -1. */
int cli_parse_mask_width(const char *s, int *out);
/* --strategy: a strategy name, or what the command takes besides (takes:
 * CLI_TAKES_ALL, CLI_TAKES_AUTO) "all" (CLI_STRATEGY_ALL) and "auto"
 * (CLI_STRATEGY_AUTO); else one line naming what it takes, and -1. */
enum { CLI_STRATEGY_ALL = -1, CLI_STRATEGY_AUTO = -2 };
enum { CLI_TAKES_ALL = 1, CLI_TAKES_AUTO = 2 };
int cli_parse_strategy(const char *s, int takes, int *out);
/* --method: auto, direct, separable or fft; an error line and -1 else. */
int cli_parse_method(const char *s, clconv_method *out);
/* The help lines of --method, for every command that takes it. */
#define CLI_METHOD_HELP                                                       \
    "  --method M      direct (W^d taps per output), separable (d passes of\n" \
    "                  1D masks; exit 2 if the mask is not separable), fft\n"  \
    "                  (VkFFT: pad, multiply spectra, crop) or auto (the\n"   \
    "                  cost model of clconv model --methods picks)\n"
/* The random dataset of run and bench; with method separable, its mask is
 * an outer product of random 1D masks (clconv_fill_separable). */
clconv_status cli_dataset_for(const clconv_problem *p, uint64_t seed,
                              clconv_dataset **out);
/* A row's name: the method for the separable and FFT paths, else the
 * strategy. */
const char *cli_method_or_strategy(const clconv_problem *p, clconv_method m);
/* model_methods.c: model --methods (each method's predicted time). */
int cli_model_methods_wanted(int argc, char **argv);
int cli_model_methods_main(int argc, char **argv);
void cli_model_methods_usage(FILE *f);
/* bench_large.c: bench --suite large|large-quick. */
int cli_bench_large_wanted(int argc, char **argv);
int cli_bench_large_main(int argc, char **argv);
void cli_bench_large_usage(FILE *f);
/* A comma list of mask modes (auto, argument, baked) into modes[0..2]. */
int cli_parse_mask_modes(const char *s, int modes[3], int *n);
/* "X[xY[xZ]]" for dims dimensions; a single extent means a cube. */
int cli_parse_size(const char *s, int dims, size_t size[3]);
/* Size as "X", "XxY" or "XxYxZ". */
void cli_format_size(const size_t size[3], int dims, char *buf, size_t len);
/* The seed for random data: $CLCONV_SEED, else the clock (--seed
 * overrides it). -1 with one line on stderr if $CLCONV_SEED is no number. */
int cli_default_seed(uint64_t *seed);
/* Is this command's --help requested? */
int cli_wants_help(int argc, char **argv);

/* ---- the shared layer (common.c) --------------------------------------- */

/* The devices a command works on: every device discovered, the ones
 * --device selected and, when asked for, a session on each of those. */
typedef struct cli_devices {
    clconv_device_list list;
    size_t *sel;                /* indices into list.devices */
    size_t n;                   /* how many are selected */
    clconv_session **sessions;  /* one per selected device, or NULL */
} cli_devices;

/* Discover every device and select those of `selector` (NULL: all); with
 * with_sessions, first check that the kernel folder exists, then open a
 * session on each. Returns CLI_EXIT_OK, or the exit code with the error
 * printed on one line (d is then closed already). */
int cli_devices_open(cli_devices *d, const char *selector, int with_sessions);
/* The k-th selected device. */
const clconv_device_info *cli_device(const cli_devices *d, size_t k);
/* Keep only the first selected device (its session; the others' closed):
 * a command that runs on one device where the selector matches several. */
void cli_devices_keep_first(cli_devices *d);
void cli_devices_close(cli_devices *d);

/* The default problem of each dims (`clconv run` without --size, `clconv
 * tune --dims D`): sizes that run in about a second on a 2-core CPU and fit
 * every variant on common devices; strategy naive, the dims' default tile.
 * dims must be 1, 2 or 3. */
void cli_default_problem(int dims, clconv_problem *p);

/* Validate each problem; the first invalid one is said as "CMD: why".
 * 0, or -1. */
int cli_validate_problems(const char *cmd, const clconv_problem *ps, size_t n);
/* The exit code of one verified run: 0 ok, 1 wrong result, else the
 * status's code (3 unsupported or OpenCL error). */
int cli_result_code(const clconv_result *r);
/* The command's exit code after a row with exit code c: a wrong result
 * outranks an unsupported one, which outranks success. */
int cli_merge_code(int code, int c);
/* The bound (clconv_verify_bound) for p's result where n devices ran
 * parts of it with methods m[0..n): the loosest of the methods', each
 * distinct method's computed once (the FFT's reads all of in). */
void cli_verify_bound_of(const clconv_problem *p, const clconv_method *m,
                         size_t n, const float *in, const float *mask,
                         double *scale, double *floor);
/* The strategies' names, comma-separated, for help texts and usage
 * errors (model_only: those clconv model covers). Every help text takes
 * it from here; it comes from the variant table (clconv_strategy_list). */
const char *cli_strategy_list(int model_only);
/* A mask's shape for summaries: "5^2" when cubic, else its widths in
 * NumPy's order ("5x2": 5 rows of 2). */
void cli_mask_shape(int dims, const int size[3], char *buf, size_t len);

/* --strategy auto (auto.c): fill p's strategy, tile, coarsen and group_y
 * from the device's tuning cache, else the default heuristic; an unusable
 * cache is said once per device, the choice on one stderr line unless
 * quiet. 0, or -1 with the error printed (invalid problem). */
int cli_auto_config(const clconv_device_info *dev, clconv_problem *p,
                    int quiet);
/* "coarse T=16 C=8 GY=4": a configuration as the tune and auto lines
 * print it. */
void cli_format_config(clconv_strategy s, int tile, int coarsen, int group_y,
                       char *buf, size_t len);

/* ---- output: rows as JSON and CSV (emit.c) ------------------------------ */

/* --json [FILE] and --csv [FILE]: NULL when not asked for, "-" for stdout
 * (no FILE, or FILE "-"); a file is written atomically once the command
 * is done. The text table goes to stdout unless JSON or CSV does. */
typedef struct cli_outputs {
    const char *json, *csv;
} cli_outputs;
/* 1 if argv[*i] was --json or --csv (value stored; FILE optional unless
 * file_required), 0 for another option, -1 (error printed). */
int cli_parse_output_option(int argc, char **argv, int *i, int file_required,
                            cli_outputs *o);
/* Is path standard output: "-", or what stdout is open on (/dev/stdout,
 * /proc/self/fd/1, a file stdout is redirected to)? Then no text goes to
 * stdout beside it (apply's summary goes to stderr). */
int cli_is_stdout(const char *path);
/* Is the host little-endian (a .npy's bytes as they lie in memory)? */
int cli_host_little_endian(void);
/* Both on stdout ("-" or a path naming stdout's file), or both naming one
 * file (clconv_output_same: also through links), is a usage error
 * (printed): -1, else 0. */
int cli_outputs_check(const cli_outputs *o);
/* Can every FILE be written (clconv_output_check: its folder exists and is
 * writable, it is not a folder)? CLI_EXIT_OK, or CLI_EXIT_UNSUPPORTED (an
 * I/O error, printed). Commands call it before any work, so that a report
 * that cannot be written is said in milliseconds, not after the run. */
int cli_outputs_writable(const cli_outputs *o);
/* Does the text output go to stdout (neither JSON nor CSV does, as "-"
 * or as a path naming stdout: cli_is_stdout)? */
int cli_outputs_text(const cli_outputs *o);
/* Write through render(ctx, f) to path through clconv's output files
 * (clconv_io.h): a regular file is replaced atomically (the old one stays
 * on failure), a symlink's target replaced, a FIFO, device or "-" written
 * through. 0, or -1 with the error printed ("No space left on device"). */
int cli_write_output(const char *path,
                     int (*render)(const void *ctx, FILE *f),
                     const void *ctx);

/* Rows of named fields, described once per command by a function that
 * puts each field of a row in order; JSON and CSV are written from them.
 * Keys are string literals; "a.b" nests b in an object a in JSON and is
 * the column "a.b" in CSV. A field a row leaves out is absent from its
 * JSON object and empty in its CSV line; the CSV header has every key. */
typedef struct cli_rows cli_rows;
cli_rows *cli_rows_new(void);
void cli_rows_free(cli_rows *t);
/* Start a new row; the cli_put_* calls add fields to it. Out of memory
 * is remembered and reported by the writers. */
void cli_row_begin(cli_rows *t);
void cli_put_str(cli_rows *t, const char *key, const char *s);
void cli_put_int(cli_rows *t, const char *key, long long v);
void cli_put_uint(cli_rows *t, const char *key, unsigned long long v);
/* A number printed with fmt ("%.6f"); null when not finite. */
void cli_put_num(cli_rows *t, const char *key, const char *fmt, double v);
void cli_put_bool(cli_rows *t, const char *key, int v);
void cli_put_null(cli_rows *t, const char *key);
/* The rows as a JSON array (one object a line), or as CSV with a header. */
int cli_rows_json(const void *rows, FILE *f);
int cli_rows_csv(const void *rows, FILE *f);
/* Write the rows where outs asks (JSON and/or CSV). 0, or -1 (printed). */
int cli_rows_emit(const cli_rows *t, const cli_outputs *outs);
/* A command's --json and --csv: put(t, items, i) describes item i as one
 * row, for i < n; nothing happens when neither is asked for. 0, or -1. */
int cli_emit(const cli_outputs *outs, const void *items, size_t n,
             void (*put)(cli_rows *t, const void *items, size_t i));
/* Reading rows back: their count, whether building them ran out of
 * memory, and the text of field key of row r (a number as its JSON
 * literal), NULL when the row lacks it or it is null; *is_string (may be
 * NULL) says whether it is a string. */
size_t cli_rows_count(const cli_rows *t);
int cli_rows_oom(const cli_rows *t);
const char *cli_rows_get(const cli_rows *t, size_t r, const char *key,
                         int *is_string);

/* A column of a text table: the rows' field key, its title, and how to
 * show a value: fmt, a printf format of one double ("%.4f"), for a
 * number, or show(text, buf, len) for anything (the field's text as
 * cli_rows_get gives it); neither: the text as it is. */
typedef struct cli_column {
    const char *key;
    const char *title;
    const char *fmt;
    void (*show)(const char *text, char *buf, size_t len);
} cli_column;
/* The rows as a text table: a line of titles, then a line per row; each
 * column as wide as its widest cell, numbers right-aligned, "-" where a
 * row lacks the field or it is null. 0, or -1 (out of memory: printed). */
int cli_rows_text(const cli_rows *t, const cli_column *cols, size_t ncols,
                  FILE *f);
/* cli_emit, plus the text table of cols (none: ncols 0) on stdout when
 * neither JSON nor CSV goes there: a command describes its rows once for
 * all three. */
int cli_emit_table(const cli_outputs *outs, const cli_column *cols,
                   size_t ncols, const void *items, size_t n,
                   void (*put)(cli_rows *t, const void *items, size_t i));

/* Fields every command's rows share: a device as "P:D name", a size as
 * "XxYxZ" (cli_format_size). */
void cli_put_device(cli_rows *t, const char *key,
                    const clconv_device_info *dev);
void cli_put_size(cli_rows *t, const char *key, const clconv_problem *p);

/* The filter's semantics (issue 15), shared by run, bench, apply, tune:
 * --mode M[,M..], --cval V, --mask WxH[xD] (per-axis widths; a plain
 * --mask W stays with cli_parse_problem_option or apply's mask spec),
 * --origin O[,O..], --convolve. Per-axis lists are kept in the order
 * given: x first for run/bench/tune, NumPy's order for apply
 * (cli_filter_apply's numpy_order). */
typedef struct cli_filter {
    int mask_size[3], nmask_size;
    int origin[3], norigin;
    int modes[CLCONV_BORDER_COUNT], nmodes;
    double cval;
    int convolve;
    int axes[3], naxes; /* --axes: the data axes the mask spans */
    int batch;          /* --batch N: N problems in one launch (0: one) */
    clconv_elem dtype;  /* --dtype (default f32) */
    int out_f32;        /* --out-dtype f32 (default same: the input's) */
} cli_filter;
enum {
    CLI_FILTER_MASK_AXES = 1, /* --mask WxH[xD] is this command's */
    CLI_FILTER_MODE_LIST = 2, /* --mode takes a list (rows per mode) */
    CLI_FILTER_BATCH = 4,     /* --batch N is this command's */
    CLI_FILTER_DTYPE = 8      /* --dtype and --out-dtype are this command's */
};
/* The help lines of --dtype and --out-dtype. */
#define CLI_DTYPE_HELP                                                        \
    "  --dtype T       input element type: u8, u16, i16, f16 or f32\n"      \
    "                  (default); random data over the type's range (f16\n" \
    "                  in [-2, 2]); accumulation is float32\n"              \
    "  --out-dtype O   same (default: the input's type, rounded to nearest\n"\
    "                  and saturated as OpenCV's saturate_cast) or f32\n"
/* 1 if argv[*i] was one of the filter's options (value stored), 0 if it
 * is another option, -1 (error printed) on a bad value. Call it before
 * cli_parse_problem_option, which takes a plain --mask W. */
int cli_parse_filter_option(int argc, char **argv, int *i, int flags,
                            cli_filter *f);
/* Set p's mask widths, origins, cval and flip from f, and its border mode
 * to f's first; p->dims must be known. With --axes the mask spans those
 * axes of the data (SciPy's axes=; increasing, negative from the end)
 * and is 1 wide along the others; its widths are f's --mask WxH, else
 * p->mask_size[0..naxes-1] as the caller set them (the mask's own axes,
 * x first), else mask_width. Then --batch (cli_filter_batch). 0, or -1
 * with one line naming the flag (a mask with more axes than the data, an
 * origin out of range, repeated or out-of-range axes, a batch of 3D). */
int cli_filter_apply(const cli_filter *f, int numpy_order, clconv_problem *p);
/* f's --axes as axes 0 .. d-1 of data of d axes (in the order given, a
 * negative one from the end): each in range, none twice, increasing. 0,
 * or -1 with one line naming the flag. */
int cli_filter_axes(const cli_filter *f, int d, int norm[3]);
/* The filter of a row as text (empty for the notes' default), e.g.
 * " reflect mask=5x3 origin=1,0 convolve" (per-axis values x first, or in
 * NumPy's order), and as a row's fields: mode, cval, mask_size ("5x3")
 * and origin ("1,0") x first, convolve. */
void cli_filter_describe(const clconv_problem *p, int numpy_order, char *buf,
                         size_t len);
void cli_put_filter(cli_rows *t, const clconv_problem *p, int batch);
/* --batch N (cli_filter_apply's last step): N equal 1D or 2D problems stacked along one more (slowest)
 * axis, the mask 1 wide along it, so one launch computes them all. 0, or
 * -1 (error printed: 3D data has no axis left). */
int cli_filter_batch(const cli_filter *f, clconv_problem *p);
int cli_parse_modes(const char *s, int *modes, int *n);
int cli_parse_cval(const char *s, double *out);
int cli_parse_mask_axes(const char *s, int widths[3], int *n);

#endif
