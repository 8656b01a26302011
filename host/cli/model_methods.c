/* `clconv model --methods`: the cost model of the automatic method
 * (clconv_method_predict) for one problem: each method's predicted time
 * and the mask widths where separable and FFT overtake direct. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clconv_bench.h"

typedef struct methods_options {
    int dims, mask, max_mask, csv, measure;
    clconv_border border;
    size_t size[3];
    const char *device;
    clconv_ceilings c;
} methods_options;

void cli_model_methods_usage(FILE *f)
{
    fputs(
        "\n"
        "usage: clconv model --methods --dims D --size X[xY[xZ]] [--mask W]\n"
        "                    [--device SEL [--measure] | --bandwidth GB/s\n"
        "                    --peak-gflops G] [--max-mask W] [--mode M]\n"
        "                    [--csv]\n"
        "Each method's predicted time (direct, separable as if the mask were\n"
        "separable, fft) by the cost model the automatic method uses (see\n"
        "include/clconv_bench.h), and the crossovers: the smallest mask width\n"
        "from which separable, and from which fft, is faster than direct.\n"
        "  --device SEL    the device's description (its first match);\n"
        "                  with --measure, its measured ceilings\n"
        "  --bandwidth B --peak-gflops G   given ceilings instead\n"
        "  --mask W        also print the prediction at W\n"
        "  --mode M        border mode (default constant): the FFT's padded\n"
        "                  size follows it (wrap transforms the period)\n"
        "  --max-mask W    the widest mask of the crossover scan (default\n"
        "                  1023 in 1D, 255 in 2D, 63 in 3D)\n"
        "  --csv           the scan as CSV (width,direct_ms,separable_ms,\n"
        "                  fft_ms,auto_ms; auto_ms: what auto takes for a\n"
        "                  separable mask), the input of bench/crossover.py\n",
        f);
}

int cli_model_methods_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--methods") == 0)
            return 1;
    return 0;
}

/* A ceiling as bench and devices print it (GB/s or GFLOP/s, decimals
 * allowed, as model's --bandwidth list takes them). */
static int parse_ceiling(const char *flag, const char *v, double *out)
{
    const char *end;
    double x;
    if (cli_parse_positive_prefix(v, 1e8, &x, &end) || *end) {
        cli_error("%s: '%s' is not a positive number up to 1e8", flag, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse(int argc, char **argv, methods_options *o)
{
    const char *size = NULL;
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        if (cli_opt_flag(argv, i, "--methods")) {
            continue;
        } else if ((r = cli_parse_problem_option(argc, argv, &i, &o->dims,
                                                 &size, &o->mask))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--device", &v))) {
            o->device = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--bandwidth", &v))) {
            if (r < 0 || parse_ceiling("--bandwidth", v, &o->c.copy_gbs))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--peak-gflops", &v))) {
            if (r < 0 || parse_ceiling("--peak-gflops", v, &o->c.fp32_gflops))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--max-mask", &v))) {
            if (r < 0 || cli_parse_int("--max-mask", v, 1, 1023, &x))
                return -1;
            o->max_mask = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--mode", &v))) {
            if (r < 0 || clconv_border_parse(v, &o->border) != CLCONV_OK) {
                if (r > 0)
                    cli_error("--mode: %s", clconv_last_error());
                return -1;
            }
        } else if (cli_opt_flag(argv, i, "--csv")) {
            o->csv = 1;
        } else if (cli_opt_flag(argv, i, "--measure")) {
            o->measure = 1;
        } else {
            cli_error("model --methods: unknown option '%s'", argv[i]);
            return -1;
        }
    }
    if (!o->dims || !size || cli_parse_size(size, o->dims, o->size)) {
        cli_error("model --methods: needs --dims and --size");
        return -1;
    }
    if (o->measure && !o->device) {
        cli_error("model --methods: --measure needs --device");
        return -1;
    }
    if (!o->max_mask)
        o->max_mask = o->dims == 1 ? 1023 : o->dims == 2 ? 255 : 63;
    return 0;
}

/* The device's description (and measured ceilings) into dev and o->c. */
static int device_of(methods_options *o, clconv_device_info *dev)
{
    clconv_device_list list;
    size_t sel[64], n = 0;
    if (clconv_devices_discover(&list) != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return CLI_EXIT_UNSUPPORTED;
    }
    int code = CLI_EXIT_OK;
    if (list.count > 64 ||
        clconv_devices_select(&list, o->device, sel, &n) != CLCONV_OK ||
        n == 0) {
        cli_error("--device: %s", clconv_last_error());
        code = CLI_EXIT_USAGE;
    } else {
        *dev = list.devices[sel[0]];
        clconv_session *s = NULL;
        clconv_status st = CLCONV_OK;
        if (o->measure && (st = clconv_session_create(dev, &s)) == CLCONV_OK)
            st = clconv_measure_ceilings(s, &o->c);
        clconv_session_destroy(s);
        if (st != CLCONV_OK) {
            cli_error("%s: %s", dev->name, clconv_last_error());
            code = cli_exit_code(st);
        }
    }
    dev->opaque_device = dev->opaque_platform = NULL;
    clconv_devices_free(&list);
    return code;
}

static void print_prediction(const clconv_device_info *dev,
                             const methods_options *o, clconv_problem *p,
                             int w)
{
    double ms[CLCONV_METHOD_COUNT];
    p->mask_width = w;
    clconv_method_predict(dev, &o->c, p, ms);
    printf("W=%-4d direct %10.4g ms  separable %10.4g ms  fft %10.4g ms  "
           "auto: %s (%s if separable)\n",
           w, ms[CLCONV_METHOD_DIRECT], ms[CLCONV_METHOD_SEPARABLE],
           ms[CLCONV_METHOD_FFT],
           clconv_method_name(clconv_method_pick(dev, &o->c, p, 0)),
           clconv_method_name(clconv_method_pick(dev, &o->c, p, 1)));
}

/* Scan odd widths: CSV rows, or the first width where the automatic
 * choice leaves the direct path, for separable masks and for others. */
static void scan(const clconv_device_info *dev, const methods_options *o,
                 clconv_problem *p)
{
    int cross[2] = {0, 0}; /* other masks, separable ones */
    clconv_method to[2] = {CLCONV_METHOD_DIRECT, CLCONV_METHOD_DIRECT};
    if (o->csv)
        printf("width,direct_ms,separable_ms,fft_ms,auto_ms\n");
    for (int w = 1; w <= o->max_mask; w += 2) {
        double ms[CLCONV_METHOD_COUNT];
        p->mask_width = w;
        clconv_method_predict(dev, &o->c, p, ms);
        const clconv_method pick[2] = {clconv_method_pick(dev, &o->c, p, 0),
                                       clconv_method_pick(dev, &o->c, p, 1)};
        /* auto_ms: the prediction of what auto takes for a separable
         * mask (not the least of the three: the FFT must be predicted
         * twice as fast, masks along x only follow the 1D rule) */
        if (o->csv)
            printf("%d,%.6g,%.6g,%.6g,%.6g\n", w, ms[CLCONV_METHOD_DIRECT],
                   ms[CLCONV_METHOD_SEPARABLE], ms[CLCONV_METHOD_FFT],
                   ms[pick[1]]);
        for (int sep = 0; sep < 2; ++sep) {
            const clconv_method m = pick[sep];
            if (!cross[sep] && m != CLCONV_METHOD_DIRECT) {
                cross[sep] = w;
                to[sep] = m;
            }
        }
    }
    if (o->csv)
        return;
    static const char *const what[2] = {"other masks", "separable masks"};
    for (int sep = 1; sep >= 0; --sep) {
        if (cross[sep])
            printf("%s: %s from W=%d\n", what[sep],
                   clconv_method_name(to[sep]), cross[sep]);
        else
            printf("%s: direct up to W=%d\n", what[sep], o->max_mask);
    }
}

int cli_model_methods_main(int argc, char **argv)
{
    methods_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    clconv_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.kind = CLCONV_DEVICE_GPU;
    snprintf(dev.name, sizeof dev.name, "a GPU of the given ceilings");
    if (o.device) {
        int code = device_of(&o, &dev);
        if (code != CLI_EXIT_OK)
            return code;
    }
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = o.dims;
    memcpy(p.size, o.size, sizeof p.size);
    p.tile = 1;
    p.border = o.border;
    if (!o.csv) {
        char size[64];
        cli_format_size(p.size, p.dims, size, sizeof size);
        clconv_ceilings u;
        const int est = clconv_method_ceilings(&dev, &o.c, &u);
        char from[96] = "";
        if (est && !o.device)
            snprintf(from, sizeof from, "; give --device or --bandwidth "
                                        "and --peak-gflops");
        else if (est)
            snprintf(from, sizeof from, " from %u compute units at %u MHz",
                     dev.compute_units, dev.clock_mhz);
        printf("methods of %dD %s mode %s on %s (copy %.1f GB/s%s, FP32 "
               "%.1f GFLOP/s%s%s)\n", p.dims, size,
               clconv_border_name(p.border), dev.name, u.copy_gbs,
               est & 1 ? " estimated" : "", u.fp32_gflops,
               est & 2 ? " estimated" : "", from);
        if (o.mask)
            print_prediction(&dev, &o, &p, o.mask);
    }
    scan(&dev, &o, &p);
    return CLI_EXIT_OK;
}
