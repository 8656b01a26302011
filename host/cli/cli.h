/* The command-line interface: commands, exit codes, argument helpers. */
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
} cli_command;

int cli_main(int argc, char **argv);
int cli_devices_main(int argc, char **argv);
int cli_run_main(int argc, char **argv);
int cli_bench_main(int argc, char **argv);
int cli_model_main(int argc, char **argv);
int cli_apply_main(int argc, char **argv);
int cli_tune_main(int argc, char **argv);
/* --strategy auto (cli_tune.c): fill p's strategy, tile, coarsen and
 * group_y from the device's tuning cache, else the default heuristic; an
 * unusable cache is said once per device, the choice on one stderr line
 * unless quiet. 0, or -1 with the error printed (invalid problem). */
int cli_auto_config(const clconv_device_info *dev, clconv_problem *p,
                    int quiet);

/* Print "clconv: <message>" on one line to stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Exit code for a library status. */
int cli_exit_code(clconv_status st);

/* Option scanning: if argv[*i] is --name or --name=value, store the value
 * (the next argument or the part after '='), advance *i and return 1; 0 if
 * argv[*i] is another option; -1 (error printed) if the value is missing. */
int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char **value);
/* argv[*i] is the flag --name (no value). */
int cli_opt_flag(char **argv, int i, const char *name);
/* Strict parsers: the whole string, in range, or an error line and -1. */
int cli_parse_int(const char *flag, const char *s, long min, long max,
                  long *out);
int cli_parse_u64(const char *flag, const char *s, uint64_t *out);
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
/* --mask: an odd width in 1..1023, or an error line and -1. */
int cli_parse_mask_width(const char *s, int *out);
/* --strategy: a strategy name, "all" (CLI_STRATEGY_ALL) or, with
 * allow_auto, "auto" (CLI_STRATEGY_AUTO); an error line and -1 else. */
enum { CLI_STRATEGY_ALL = -1, CLI_STRATEGY_AUTO = -2 };
int cli_parse_strategy(const char *s, int allow_auto, int *out);
/* A comma list of mask modes (auto, argument, baked) into modes[0..2]. */
int cli_parse_mask_modes(const char *s, int modes[3], int *n);
/* "X[xY[xZ]]" for dims dimensions; a single extent means a cube. */
int cli_parse_size(const char *s, int dims, size_t size[3]);
/* Size as "X", "XxY" or "XxYxZ". */
void cli_format_size(const size_t size[3], int dims, char *buf, size_t len);
/* A JSON string literal, escaped. */
void cli_json_string(FILE *f, const char *s);
/* The seed for random data: --seed, else $CLCONV_SEED, else the clock. */
uint64_t cli_default_seed(void);
/* Is this command's --help requested? */
int cli_wants_help(int argc, char **argv);

#endif
