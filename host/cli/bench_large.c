/* `clconv bench --suite large|large-quick`: the large-mask problems of
 * issue 17 by method. Per problem and device: the direct path (the
 * device's default strategy; skipped when the cost model predicts more
 * than --max-ms per launch), the separable path (Gaussian masks) and the
 * FFT path, each verified at sampled outputs against the double
 * reference with the method's bound, then timed; and the method auto
 * picks. The whole reference of these problems would take hours. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clconv_bench.h"
#include "clconv_io.h"
#include "bench_large.h"

void cli_bench_large_usage(FILE *f)
{
    fputs(
        "\n"
        "usage: clconv bench --suite large|large-quick [--device SEL]\n"
        "                    [--reps N] [--warmup N] [--seed S]\n"
        "                    [--json [FILE]] [--csv [FILE]]\n"
        "                    [--max-ms MS] [--mode M] [--method M]\n"
        "                    [--dims D --size X[xY[xZ]] --mask W\n"
        "                     [--kind random|gaussian]]\n"
        "Large masks by method: 2D 8192^2 Gaussian W=31 and 101, random 31^2\n"
        "and 63^2; 3D 512^3 Gaussian and random W=15; 1D 2^26 random W=1001\n"
        "(large-quick: 1024^2, 128^3, 2^20). Each method (direct with the\n"
        "device's default strategy, separable for the Gaussians and in 1D\n"
        "(one pass), fft) is verified at 4096 sampled outputs against the\n"
        "double reference with its bound, then timed; the row of auto names\n"
        "the method it picks.\n"
        "  --max-ms MS     skip the direct path where the cost model predicts\n"
        "                  more than MS per launch (default 3000)\n"
        "  --mode M        border mode of every problem (default constant)\n"
        "  --method M      only this method's rows: direct, separable, fft or\n"
        "                  auto (default: each that applies)\n"
        "  --dims D --size S --mask W   one problem instead of the suite's,\n"
        "                  its mask random (not separable) or, with --kind\n"
        "                  gaussian, a Gaussian of width W on every axis\n"
        "  --json [FILE]   every row as a JSON array: on stdout instead of the\n"
        "                  lines (no FILE, or -), or written to FILE atomically\n"
        "  --csv [FILE]    every row as CSV with a header, the same way\n"
        "Exit: 0 all verified, 1 a verification failed, 2 usage error,\n"
        "      3 unsupported or OpenCL error.\n",
        f);
}

int cli_bench_large_wanted(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--suite") == 0 &&
            strncmp(argv[i + 1], "large", 5) == 0)
            return 1;
    return 0;
}

/* --mode M and the custom problem's --dims, --size, --mask: 1 if argv[*i]
 * was one of them, 0 if not, -1 (error printed). */
static int parse_problem(int argc, char **argv, int *i, large_options *o,
                         const char **size)
{
    const char *v = NULL;
    int r = cli_opt_value(argc, argv, i, "--mode", &v);
    if (r > 0 && clconv_border_parse(v, &o->border) != CLCONV_OK) {
        cli_error("--mode: %s", clconv_last_error());
        return -1;
    }
    if (r)
        return r;
    if ((r = cli_opt_value(argc, argv, i, "--kind", &v))) {
        if (r > 0 && strcmp(v, "random") != 0 && strcmp(v, "gaussian") != 0) {
            cli_error("--kind: '%s' is neither random nor gaussian", v);
            return -1;
        }
        if (r > 0)
            o->kind = strcmp(v, "gaussian") == 0 ? "gaussian" : NULL;
        o->kind_given = 1;
        return r;
    }
    if ((r = cli_opt_value(argc, argv, i, "--method", &v))) {
        if (r > 0 && cli_parse_method(v, &o->method))
            return -1;
        o->method_only = 1;
        return r;
    }
    return cli_parse_problem_option(argc, argv, i, &o->custom.dims, size,
                                    &o->custom.mask_width);
}

static int parse(int argc, char **argv, large_options *o)
{
    const char *size = NULL;
    memset(o, 0, sizeof *o);
    o->reps = 5;
    o->warmup = 1;
    if (cli_default_seed(&o->seed))
        return -1;
    o->device = getenv("CLCONV_DEVICE");
    o->max_ms = 3000;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--suite", &v))) {
            const clconv_bench_problem *ps;
            if (r < 0)
                return -1;
            if (clconv_bench_suite(v, &ps) == 0) {
                cli_unknown_suite(v);
                return -1;
            }
            o->suite = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--max-ms", &v))) {
            if (r < 0 || cli_parse_int("--max-ms", v, 1, 100000000, &x))
                return -1;
            o->max_ms = (double)x;
        } else if ((r = cli_parse_run_option(argc, argv, &i, 1, &o->device,
                                             &o->reps, &o->warmup,
                                             &o->seed))) {
            if (r < 0)
                return -1;
        } else if ((r = parse_problem(argc, argv, &i, o, &size))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_parse_output_option(argc, argv, &i, 0,
                                                &o->out))) {
            if (r < 0)
                return -1;
        } else {
            cli_error("bench: unknown option '%s' with --suite %s", argv[i],
                      o->suite ? o->suite : "large");
            return -1;
        }
    }
    if (cli_outputs_check(&o->out))
        return -1;
    if (o->kind_given && !o->custom.dims) {
        cli_error("bench --suite %s: --kind is for a custom problem "
                  "(--dims, --size, --mask)", o->suite ? o->suite : "large");
        return -1;
    }
    if (o->method_only && o->method == CLCONV_METHOD_SEPARABLE &&
        o->custom.dims > 1 && !o->kind) {
        cli_error("bench --suite %s: method separable needs a separable mask "
                  "(--kind gaussian, or 1D)", o->suite ? o->suite : "large");
        return -1;
    }
    if ((o->custom.dims || size || o->custom.mask_width) &&
        (!o->custom.dims || !size || !o->custom.mask_width ||
         cli_parse_size(size, o->custom.dims, o->custom.size))) {
        cli_error("bench --suite %s: a custom problem needs --dims, --size "
                  "and --mask", o->suite ? o->suite : "large");
        return -1;
    }
    return 0;
}

static void data_free(large_data *d)
{
    free(d->in);
    free(d->mask);
    free(d->out);
}

/* Input, mask, sampled outputs and their reference. */
static clconv_status data_make(const clconv_bench_problem *b,
                               const char *named, uint64_t seed,
                               clconv_border border, large_data *d)
{
    memset(d, 0, sizeof *d);
    clconv_bench_shape(b, &d->p);
    d->p.border = border;
    d->kind = named ? named : "random";
    const size_t n = clconv_problem_elements(&d->p);
    const size_t m = clconv_problem_mask_elements(&d->p);
    d->in = malloc(n * sizeof *d->in);
    d->out = malloc(n * sizeof *d->out);
    d->mask = malloc(m * sizeof *d->mask);
    if (!d->in || !d->out || !d->mask) {
        cli_error("out of memory for %zu elements", n);
        return CLCONV_ENOMEM;
    }
    clconv_fill_random(d->in, n, seed);
    if (named) {
        char spec[64];
        clconv_mask mk;
        snprintf(spec, sizeof spec, "%s:%d", named, b->mask_width);
        clconv_status st = clconv_mask_spec_parse(spec, b->dims, &mk);
        if (st != CLCONV_OK)
            return st;
        memcpy(d->mask, mk.values, m * sizeof *d->mask);
        clconv_mask_free(&mk);
    } else {
        clconv_fill_random(d->mask, m, seed ^ 0x6d61736bULL);
    }
    uint64_t state = seed * 2654435761ULL + 1;
    for (size_t k = 0; k < LARGE_SAMPLES; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        d->idx[k] = k < 2 ? (k ? n - 1 : 0) : (size_t)(state >> 11) % n;
    }
    return clconv_reference_at(&d->p, d->in, d->mask, d->idx, LARGE_SAMPLES,
                               d->ref, d->abs_sum);
}

/* The sampled outputs against their bound; 1 if all are within it. */
static int sampled_ok(const large_data *d, clconv_method m, double *max_err)
{
    double scale, floor;
    clconv_verify_bound(&d->p, m, d->in, d->mask, &scale, &floor);
    int ok = 1;
    *max_err = 0;
    for (size_t k = 0; k < LARGE_SAMPLES; ++k) {
        const double got = d->out[d->idx[k]];
        const double err = got > d->ref[k] ? got - d->ref[k] : d->ref[k] - got;
        const double bound = scale * FLT_EPSILON * d->abs_sum[k] +
                             floor + 1e-30;
        if (!(err <= bound))
            ok = 0;
        if (!(err <= *max_err))
            *max_err = err;
    }
    return ok;
}

static void row_fail(large_row *r, clconv_status st)
{
    r->status = st == CLCONV_EUNSUPPORTED ? "unsupported"
                : st == CLCONV_EINVAL     ? "unsupported"
                                          : "error";
    snprintf(r->reason, sizeof r->reason, "%.*s",
             (int)strcspn(clconv_last_error(), "\n"), clconv_last_error());
}

/* Plan, run once, verify the samples, time. */
static void run_method(clconv_session *s, const clconv_ceilings *c,
                       const large_options *o, large_data *d, large_row *r)
{
    const clconv_device_info *dev = clconv_session_device(s);
    double pred[CLCONV_METHOD_COUNT];
    r->p = d->p;
    r->p.method = r->method;
    clconv_pick_default(dev, &r->p);
    clconv_method_predict(dev, c, &r->p, pred);
    r->predicted_ms = pred[r->method];
    r->status = "ok";
    if (r->method == CLCONV_METHOD_DIRECT && pred[r->method] > o->max_ms) {
        r->status = "skipped";
        snprintf(r->reason, sizeof r->reason,
                 "predicted %.0f ms per launch > --max-ms %.0f",
                 pred[r->method], o->max_ms);
        return;
    }
    clconv_plan *plan = NULL;
    clconv_status st = clconv_plan_create_with_mask(s, &r->p, d->mask, &plan);
    if (st == CLCONV_OK)
        st = clconv_plan_set_input(plan, d->in);
    if (st == CLCONV_OK)
        st = clconv_plan_poison_output(plan);
    if (st == CLCONV_OK)
        st = clconv_plan_execute(plan, NULL);
    if (st == CLCONV_OK)
        st = clconv_plan_get_output(plan, d->out);
    if (st == CLCONV_OK) {
        r->ran = clconv_plan_method(plan);
        r->predicted_ms = pred[r->ran]; /* auto: the method it took */
        if (!sampled_ok(d, r->ran, &r->max_err))
            r->status = "FAIL";
        else
            st = clconv_plan_time(plan, o->warmup, o->reps, &r->t);
    }
    if (st != CLCONV_OK)
        row_fail(r, st);
    clconv_plan_destroy(plan);
    r->floor_ms = bench_large_floor_ms(&d->p, r->ran, c);
}

/* Every method of one problem on one session of dev (the list's, which
 * outlives the session: t keeps it); the exit code so far. */
static int bench_problem(const clconv_device_info *dev, clconv_session *s,
                         const clconv_ceilings *c, const large_options *o,
                         large_data *d, large_records *t)
{
    static const clconv_method methods[] = {
        CLCONV_METHOD_DIRECT, CLCONV_METHOD_SEPARABLE, CLCONV_METHOD_FFT,
        CLCONV_METHOD_AUTO};
    int code = CLI_EXIT_OK;
    const int sep = clconv_mask_separable(&d->p, d->mask, NULL);
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; ++k) {
        large_row r;
        memset(&r, 0, sizeof r);
        r.method = methods[k];
        if (o->method_only && r.method != o->method)
            continue;
        if (r.method == CLCONV_METHOD_SEPARABLE && !sep)
            continue;
        run_method(s, c, o, d, &r);
        if (bench_large_add_row(t, o, dev, d, &r))
            return CLI_EXIT_UNSUPPORTED;
        if (strcmp(r.status, "FAIL") == 0)
            code = CLI_EXIT_VERIFY;
        else if (strcmp(r.status, "error") == 0 && code == CLI_EXIT_OK)
            code = CLI_EXIT_UNSUPPORTED;
    }
    return code;
}

static int bench_device(const clconv_device_info *dev, const large_options *o,
                        int first, large_records *t)
{
    clconv_session *s = NULL;
    clconv_ceilings c = {0, 0};
    clconv_status st = clconv_session_create(dev, &s);
    if (st == CLCONV_OK)
        st = clconv_measure_ceilings(s, &c);
    if (st != CLCONV_OK) {
        cli_error("%s: %s", dev->name, clconv_last_error());
        clconv_session_destroy(s);
        return cli_exit_code(st);
    }
    if (first) /* once, as run and bench's other suites say them */
        cli_note_overrides(s);
    fprintf(cli_outputs_text(&o->out) ? stdout : stderr, "%s: copy %.1f GB/s, FP32 %.0f "
            "GFLOP/s\n", dev->name, c.copy_gbs, c.fp32_gflops);
    const clconv_bench_problem *ps = &o->custom;
    const size_t np = o->custom.dims ? 1 : clconv_bench_suite(o->suite, &ps);
    int code = CLI_EXIT_OK;
    for (size_t i = 0; i < np; ++i) {
        large_data d;
        st = data_make(&ps[i],
                       o->custom.dims ? o->kind
                                      : clconv_bench_suite_mask(o->suite, i),
                       o->seed + i, o->border, &d);
        int c2 = st == CLCONV_OK ? bench_problem(dev, s, &c, o, &d, t)
                                 : cli_exit_code(st);
        if (st != CLCONV_OK)
            cli_error("%s", clconv_last_error());
        data_free(&d);
        if (c2 == CLI_EXIT_VERIFY || (c2 && code == CLI_EXIT_OK))
            code = c2;
    }
    clconv_session_destroy(s);
    return code;
}

int cli_bench_large_main(int argc, char **argv)
{
    large_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    /* a FILE that cannot be written: said before any work */
    int code = cli_outputs_writable(&o.out);
    if (code != CLI_EXIT_OK)
        return code;
    clconv_device_list list;
    clconv_status st = clconv_devices_discover(&list);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st);
    }
    size_t *sel = calloc(list.count ? list.count : 1, sizeof *sel), nsel = 0;
    large_records rows = {NULL, 0, 0};
    code = CLI_EXIT_USAGE;
    if (!sel || clconv_devices_select(&list, o.device, sel, &nsel) != CLCONV_OK) {
        cli_error("--device: %s", clconv_last_error());
        goto out;
    }
    fprintf(stderr, "clconv: bench suite %s, seed %llu\n", o.suite,
            (unsigned long long)o.seed);
    code = CLI_EXIT_OK;
    for (size_t k = 0; k < nsel; ++k)
        code = cli_merge_code(
            code, bench_device(&list.devices[sel[k]], &o, k == 0, &rows));
    if (bench_large_emit(&o, &rows))
        code = cli_merge_code(code, CLI_EXIT_UNSUPPORTED);
out:
    free(rows.rec);
    free(sel);
    clconv_devices_free(&list);
    return code;
}
