/* Strict parsing of command-line values, shared by every command. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clconv_model.h"
#include "cli.h"

static int error_muted;

void cli_error_mute(int on) { error_muted = on; }

void cli_error(const char *fmt, ...)
{
    if (error_muted)
        return;
    va_list ap;
    fputs("clconv: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_exit_code(clconv_status st)
{
    switch (st) {
    case CLCONV_OK: return CLI_EXIT_OK;
    case CLCONV_EINVAL: return CLI_EXIT_USAGE;
    default: return CLI_EXIT_UNSUPPORTED;
    }
}

int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        cli_error("option %s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_opt_flag(char **argv, int i, const char *name)
{
    return strcmp(argv[i], name) == 0;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

int cli_parse_int(const char *flag, const char *s, long min, long max,
                  long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || isspace((unsigned char)*s) || *end || errno == ERANGE) {
        cli_error("%s: '%s' is not an integer", flag, s);
        return -1;
    }
    if (v < min || v > max) {
        cli_error("%s: %ld is out of range %ld..%ld", flag, v, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_list_next(const char *flag, const char *s, const char **rest,
                  char *buf, size_t cap)
{
    const char *p = *rest;
    if (!p)
        return 0;
    if (!*s) {
        cli_error("%s: empty list", flag);
        return -1;
    }
    const char *comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == 0) {
        cli_error("%s: '%s' has an empty entry", flag, s);
        return -1;
    }
    if (len >= cap) {
        cli_error("%s: '%s' has an entry too long", flag, s);
        return -1;
    }
    memcpy(buf, p, len);
    buf[len] = '\0';
    *rest = comma ? comma + 1 : NULL;
    return 1;
}

int cli_parse_int_list(const char *flag, const char *s, int min, int max,
                       int *out, int cap, int *n)
{
    char buf[32];
    const char *rest = s;
    int r;
    *n = 0;
    while ((r = cli_list_next(flag, s, &rest, buf, sizeof buf)) > 0) {
        long x;
        if (*n == cap) {
            cli_error("%s: at most %d values (got '%s')", flag, cap, s);
            return -1;
        }
        if (cli_parse_int(flag, buf, min, max, &x))
            return -1;
        out[(*n)++] = (int)x;
    }
    return r;
}

int cli_parse_positive_prefix(const char *s, double max, double *out,
                              const char **end)
{
    char *e = NULL;
    errno = 0;
    const double v = strtod(s, &e);
    *end = e;
    if (e == s || isspace((unsigned char)*s) || errno == ERANGE ||
        !isfinite(v) || !(v > 0.0) || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_u64(const char *flag, const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!*s || !isdigit((unsigned char)*s)) {
        cli_error("%s: '%s' is not a non-negative integer", flag, s);
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) {
        cli_error("%s: '%s' is not a 64-bit non-negative integer", flag, s);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int cli_parse_problem_option(int argc, char **argv, int *i, int *dims,
                             const char **size, int *mask)
{
    const char *v = NULL;
    long x;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "--dims", &v))) {
        if (r > 0 && cli_parse_int("--dims", v, 1, 3, &x))
            r = -1;
        else if (r > 0)
            *dims = (int)x;
    } else if ((r = cli_opt_value(argc, argv, i, "--size", &v))) {
        if (r > 0)
            *size = v;
    } else if ((r = cli_opt_value(argc, argv, i, "--mask", &v))) {
        if (r > 0 && cli_parse_mask_width(v, mask))
            r = -1;
    }
    return r;
}

int cli_parse_run_option(int argc, char **argv, int *i, int reps_min,
                         const char **device, int *reps, int *warmup,
                         uint64_t *seed)
{
    const char *v = NULL;
    long x;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "--device", &v))) {
        if (r > 0)
            *device = v;
    } else if ((r = cli_opt_value(argc, argv, i, "--reps", &v))) {
        if (r > 0 && cli_parse_int("--reps", v, reps_min, 100000, &x))
            r = -1;
        else if (r > 0)
            *reps = (int)x;
    } else if ((r = cli_opt_value(argc, argv, i, "--warmup", &v))) {
        if (r > 0 && cli_parse_int("--warmup", v, 0, 1000, &x))
            r = -1;
        else if (r > 0)
            *warmup = (int)x;
    } else if ((r = cli_opt_value(argc, argv, i, "--seed", &v))) {
        if (r > 0 && cli_parse_u64("--seed", v, seed))
            r = -1;
    }
    return r;
}

int cli_parse_mask_width(const char *s, int *out)
{
    long x;
    if (cli_parse_int("--mask", s, 1, 1023, &x))
        return -1;
    *out = (int)x;
    return 0;
}

const char *cli_strategy_list(int model_only)
{
    static char lists[2][256];
    char *b = lists[model_only != 0];
    if (*b)
        return b;
    if (!model_only) {
        clconv_strategy_list(b, sizeof lists[0]); /* the variant table's */
        return b;
    }
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        if (!clconv_model_has_strategy((clconv_strategy)s))
            continue;
        size_t used = strlen(b);
        snprintf(b + used, sizeof lists[0] - used, "%s%s", used ? ", " : "",
                 clconv_strategy_name((clconv_strategy)s));
    }
    return b;
}

int cli_parse_strategy(const char *s, int takes, int *out)
{
    clconv_strategy st;
    if ((takes & CLI_TAKES_ALL) && strcmp(s, "all") == 0) {
        *out = CLI_STRATEGY_ALL;
    } else if ((takes & CLI_TAKES_AUTO) && strcmp(s, "auto") == 0) {
        *out = CLI_STRATEGY_AUTO;
    } else if (clconv_strategy_parse(s, &st) == CLCONV_OK) {
        *out = (int)st;
    } else {
        cli_error("--strategy: unknown strategy '%s' (%s%s%s)", s,
                  cli_strategy_list(0),
                  takes & CLI_TAKES_ALL ? ", all" : "",
                  takes & CLI_TAKES_AUTO ? " or auto" : "");
        return -1;
    }
    return 0;
}

int cli_parse_method(const char *s, clconv_method *out)
{
    if (clconv_method_parse(s, out) != CLCONV_OK) {
        cli_error("--method: %s", clconv_last_error());
        return -1;
    }
    return 0;
}

clconv_status cli_dataset_for(const clconv_problem *p, uint64_t seed,
                              clconv_dataset **out)
{
    clconv_status st = clconv_dataset_create(p, seed, out);
    if (st != CLCONV_OK || p->method != CLCONV_METHOD_SEPARABLE)
        return st;
    clconv_fill_separable(p, (*out)->mask, seed);
    st = clconv_dataset_update(*out);
    if (st != CLCONV_OK) {
        clconv_dataset_destroy(*out);
        *out = NULL;
    }
    return st;
}

const char *cli_method_or_strategy(const clconv_problem *p, clconv_method m)
{
    return m == CLCONV_METHOD_SEPARABLE || m == CLCONV_METHOD_FFT
               ? clconv_method_name(m)
               : clconv_strategy_name(p->strategy);
}

int cli_parse_mask_modes(const char *s, int modes[3], int *n)
{
    char buf[32];
    const char *rest = s;
    int r;
    *n = 0;
    while ((r = cli_list_next("--mask-mode", s, &rest, buf, sizeof buf)) > 0) {
        clconv_mask_mode m;
        if (*n == 3) {
            cli_error("--mask-mode: at most 3 modes");
            return -1;
        }
        if (clconv_mask_mode_parse(buf, &m) != CLCONV_OK) {
            cli_error("--mask-mode: %s", clconv_last_error());
            return -1;
        }
        modes[(*n)++] = (int)m;
    }
    return r;
}

int cli_parse_size(const char *s, int dims, size_t size[3])
{
    size_t v[3] = {1, 1, 1};
    int n = 0;
    const char *p = s;
    for (;;) {
        if (n == 3 || !isdigit((unsigned char)*p)) {
            cli_error("--size: '%s' is not X[xY[xZ]] with positive integers",
                      s);
            return -1;
        }
        char *end = NULL;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno == ERANGE || x > (unsigned long long)SIZE_MAX) {
            cli_error("--size: extent '%.*s' is too large", (int)(end - p), p);
            return -1;
        }
        if (x == 0) {
            cli_error("--size: extents must be >= 1 (got 0 in '%s')", s);
            return -1;
        }
        v[n++] = (size_t)x;
        p = end;
        if (*p == '\0')
            break;
        if (*p != 'x' && *p != 'X') {
            cli_error("--size: '%s' is not X[xY[xZ]] with positive integers",
                      s);
            return -1;
        }
        ++p;
    }
    if (n == 1) {
        for (int k = 1; k < dims; ++k)
            v[k] = v[0];
    } else if (n != dims) {
        cli_error("--size: '%s' has %d extents, --dims %d needs %d (or one "
                  "for a cube)",
                  s, n, dims, dims);
        return -1;
    }
    for (int k = dims; k < 3; ++k)
        v[k] = 1;
    memcpy(size, v, sizeof v);
    return 0;
}

void cli_format_size(const size_t size[3], int dims, char *buf, size_t len)
{
    if (dims == 1)
        snprintf(buf, len, "%zu", size[0]);
    else if (dims == 2)
        snprintf(buf, len, "%zux%zu", size[0], size[1]);
    else
        snprintf(buf, len, "%zux%zux%zu", size[0], size[1], size[2]);
}

int cli_default_seed(uint64_t *seed)
{
    const char *env = getenv("CLCONV_SEED");
    if (env && *env)
        return cli_parse_u64("CLCONV_SEED", env, seed);
    *seed = (uint64_t)time(NULL);
    return 0;
}
