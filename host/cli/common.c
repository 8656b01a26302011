/* The layer every command stands on: devices and sessions, the default
 * problems, the exit-code rules, the clock. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include "clconv_model.h"
#include "cli.h"

int cli_devices_open(cli_devices *d, const char *selector, int with_sessions)
{
    memset(d, 0, sizeof *d);
    clconv_status st;
    if (with_sessions) {
        /* No kernel sources: one line, before any device work. */
        const char *kernel_dir = NULL;
        st = clconv_kernel_dir(&kernel_dir);
        if (st != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return cli_exit_code(st);
        }
    }
    st = clconv_devices_discover(&d->list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    int code = CLI_EXIT_OK;
    const size_t room = d->list.count ? d->list.count : 1;
    d->sel = calloc(room, sizeof *d->sel);
    d->sessions = with_sessions ? calloc(room, sizeof *d->sessions) : NULL;
    if (!d->sel || (with_sessions && !d->sessions)) {
        cli_error("out of memory");
        code = CLI_EXIT_UNSUPPORTED;
    } else if (clconv_devices_select(&d->list, selector, d->sel, &d->n) !=
               CLCONV_OK) {
        cli_error("--device: %s", clconv_last_error());
        code = CLI_EXIT_USAGE;
    }
    for (size_t k = 0; code == CLI_EXIT_OK && with_sessions && k < d->n; ++k) {
        st = clconv_session_create(cli_device(d, k), &d->sessions[k]);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", cli_device(d, k)->name, clconv_last_error());
            code = cli_exit_code(st);
        }
    }
    if (code != CLI_EXIT_OK)
        cli_devices_close(d);
    else if (with_sessions && d->n)
        cli_note_overrides(d->sessions[0]);
    return code;
}

const clconv_device_info *cli_device(const cli_devices *d, size_t k)
{
    return &d->list.devices[d->sel[k]];
}

void cli_devices_keep_first(cli_devices *d)
{
    for (size_t k = 1; d->sessions && k < d->n; ++k) {
        clconv_session_destroy(d->sessions[k]);
        d->sessions[k] = NULL;
    }
    if (d->n > 1)
        d->n = 1;
}

void cli_devices_close(cli_devices *d)
{
    for (size_t k = 0; d->sessions && k < d->n; ++k)
        clconv_session_destroy(d->sessions[k]);
    free(d->sessions);
    free(d->sel);
    clconv_devices_free(&d->list);
    memset(d, 0, sizeof *d);
}

void cli_default_problem(int dims, clconv_problem *p)
{
    static const struct {
        size_t size[3];
        int mask, tile;
    } defaults[3] = {
        {{1u << 20, 1, 1}, 9, 256},
        {{1024, 1024, 1}, 5, 16},
        {{128, 128, 128}, 3, 8},
    };
    memset(p, 0, sizeof *p);
    p->dims = dims;
    memcpy(p->size, defaults[dims - 1].size, sizeof p->size);
    p->mask_width = defaults[dims - 1].mask;
    p->tile = defaults[dims - 1].tile;
    p->strategy = CLCONV_NAIVE;
}

int cli_result_code(const clconv_result *r)
{
    if (r->status != CLCONV_OK)
        return cli_exit_code(r->status);
    return r->verdict.ok ? CLI_EXIT_OK : CLI_EXIT_VERIFY;
}

int cli_merge_code(int code, int c)
{
    if (c == CLI_EXIT_VERIFY || (c && code == CLI_EXIT_OK))
        return c;
    return code;
}

void cli_verify_bound_of(const clconv_problem *p, const clconv_method *m,
                         size_t n, const float *in, const float *mask,
                         double *scale, double *floor)
{
    *scale = *floor = 0.0;
    for (size_t i = 0; i < n; ++i) {
        size_t j = 0;
        while (j < i && m[j] != m[i])
            ++j;
        if (j < i) /* this method's bound is in already */
            continue;
        double sc, fl;
        clconv_verify_bound(p, m[i], in, mask, &sc, &fl);
        *scale = sc > *scale ? sc : *scale;
        *floor = fl > *floor ? fl : *floor;
    }
}

void cli_note_overrides(const clconv_session *s)
{
    const char *ov = clconv_session_overrides(s);
    if (*ov)
        fprintf(stderr, "clconv: measuring overrides in effect: %s\n", ov);
    const char *bad = clconv_session_overrides_ignored(s);
    if (*bad)
        fprintf(stderr, "clconv: measuring overrides ignored (not a value "
                        "they take; the defaults apply): %s\n", bad);
}

void cli_unknown_option(const char *cmd, const char *arg)
{
    cli_error("%s: unknown option '%s' (see clconv %s --help)", cmd, arg, cmd);
}

int cli_validate_problems(const char *cmd, const clconv_problem *ps, size_t n)
{
    for (size_t k = 0; k < n; ++k)
        if (clconv_problem_validate(&ps[k]) != CLCONV_OK) {
            cli_error("%s: %s", cmd, clconv_last_error());
            return -1;
        }
    return 0;
}

void cli_unknown_suite(const char *v)
{
    cli_error("--suite: unknown suite '%s' (full, quick, large, large-quick)",
              v);
}

int cli_parse_suite(int argc, char **argv, int *i, const char **suite)
{
    const char *v = NULL;
    const clconv_bench_problem *ps;
    int r = cli_opt_value(argc, argv, i, "--suite", &v);
    if (r <= 0)
        return r;
    if (clconv_bench_suite(v, &ps) == 0) {
        cli_unknown_suite(v);
        return -1;
    }
    *suite = v;
    return 1;
}

int cli_opt_set(char **argv, int i, const char *name, int *flag)
{
    if (!cli_opt_flag(argv, i, name))
        return 0;
    *flag = 1;
    return 1;
}

int cli_run_defaults(const char **device, uint64_t *seed)
{
    *device = getenv("CLCONV_DEVICE");
    return cli_default_seed(seed);
}

void cli_mask_shape(int dims, const int size[3], char *buf, size_t len)
{
    int cubic = 1;
    for (int d = 1; d < dims; ++d)
        cubic = cubic && size[d] == size[0];
    if (cubic)
        snprintf(buf, len, "%d^%d", size[0], dims);
    else if (dims == 2)
        snprintf(buf, len, "%dx%d", size[1], size[0]);
    else
        snprintf(buf, len, "%dx%dx%d", size[2], size[1], size[0]);
}

int cli_host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}
