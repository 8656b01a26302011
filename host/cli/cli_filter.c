/* The filter's semantics on the command line (issue 15): --mode, --cval,
 * --mask WxH[xD], --origin, --convolve; shared by run, bench, apply and
 * tune (the parsing of cli_args.c, in a file of its own). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "cli.h"

int cli_parse_modes(const char *s, int *modes, int *n)
{
    char buf[32];
    const char *rest = s;
    int r;
    *n = 0;
    while ((r = cli_list_next("--mode", s, &rest, buf, sizeof buf)) > 0) {
        clconv_border b;
        if (*n == CLCONV_BORDER_COUNT) {
            cli_error("--mode: at most %d modes", CLCONV_BORDER_COUNT);
            return -1;
        }
        if (clconv_border_parse(buf, &b) != CLCONV_OK) {
            cli_error("--mode: %s", clconv_last_error());
            return -1;
        }
        modes[(*n)++] = (int)b;
    }
    return r;
}

int cli_parse_cval(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    /* decimal only: strtod also reads hexadecimal ("0x10") */
    if (!*s || isspace((unsigned char)*s) || *end || strpbrk(s, "xX")) {
        cli_error("--cval: '%s' is not a number", s);
        return -1;
    }
    if (!isfinite(v) || fabs(v) > 3.4e38) {
        cli_error("--cval: '%s' is not a finite float", s);
        return -1;
    }
    *out = v;
    return 0;
}

/* --mask given as WxH[xD] (per-axis widths), not a plain width? */
static int mask_has_axes(int argc, char **argv, int i)
{
    const char *a = argv[i];
    if (strncmp(a, "--mask=", 7) == 0)
        return strpbrk(a + 7, "xX") != NULL;
    return strcmp(a, "--mask") == 0 && i + 1 < argc &&
           strpbrk(argv[i + 1], "xX") != NULL;
}

int cli_parse_mask_axes(const char *s, int widths[3], int *n)
{
    char buf[64];
    if (strlen(s) >= sizeof buf) {
        cli_error("--mask: '%s' is too long", s);
        return -1;
    }
    strcpy(buf, s);
    for (char *c = buf; *c; ++c)
        if (*c == 'X')
            *c = 'x';
    *n = 0;
    char *p = buf;
    for (;;) {
        char *x = strchr(p, 'x');
        if (x)
            *x = '\0';
        long w;
        if (*n == 3) {
            cli_error("--mask: '%s' has more than 3 widths", s);
            return -1;
        }
        if (cli_parse_int("--mask", p, 1, 1023, &w))
            return -1;
        widths[(*n)++] = (int)w;
        if (!x)
            break;
        p = x + 1;
    }
    return 0;
}

int cli_parse_filter_option(int argc, char **argv, int *i, int flags,
                            cli_filter *f)
{
    const char *v = NULL;
    int r;
    if ((flags & CLI_FILTER_MASK_AXES) && mask_has_axes(argc, argv, *i)) {
        r = cli_opt_value(argc, argv, i, "--mask", &v);
        if (r > 0 && cli_parse_mask_axes(v, f->mask_size, &f->nmask_size))
            r = -1;
    } else if ((r = cli_opt_value(argc, argv, i, "--mode", &v))) {
        if (r > 0 && cli_parse_modes(v, f->modes, &f->nmodes))
            r = -1;
        if (r > 0 && f->nmodes > 1 && !(flags & CLI_FILTER_MODE_LIST)) {
            cli_error("--mode: one mode here (got '%s')", v);
            r = -1;
        }
    } else if ((r = cli_opt_value(argc, argv, i, "--cval", &v))) {
        if (r > 0 && cli_parse_cval(v, &f->cval))
            r = -1;
    } else if ((r = cli_opt_value(argc, argv, i, "--origin", &v))) {
        if (r > 0 && cli_parse_int_list("--origin", v, -1023, 1023,
                                        f->origin, 3, &f->norigin))
            r = -1;
    } else if ((flags & CLI_FILTER_BATCH) &&
               (r = cli_opt_value(argc, argv, i, "--batch", &v))) {
        long x;
        if (r > 0 && cli_parse_int("--batch", v, 1, 1 << 20, &x))
            r = -1;
        else if (r > 0)
            f->batch = (int)x;
    } else if ((r = cli_opt_value(argc, argv, i, "--axes", &v))) {
        if (r > 0 && cli_parse_int_list("--axes", v, -CLCONV_NPY_MAX_DIMS,
                                        CLCONV_NPY_MAX_DIMS - 1, f->axes, 3,
                                        &f->naxes))
            r = -1;
    } else if (cli_opt_flag(argv, *i, "--convolve")) {
        f->convolve = 1;
        r = 1;
    } else if ((flags & CLI_FILTER_DTYPE) &&
               (r = cli_opt_value(argc, argv, i, "--dtype", &v))) {
        if (r > 0 && clconv_elem_parse(v, &f->dtype) != CLCONV_OK) {
            cli_error("--dtype: %s", clconv_last_error());
            r = -1;
        }
    } else if ((flags & CLI_FILTER_DTYPE) &&
               (r = cli_opt_value(argc, argv, i, "--out-dtype", &v))) {
        f->out_f32 = r > 0 && strcmp(v, "f32") == 0;
        if (r > 0 && !f->out_f32 && strcmp(v, "same") != 0) {
            cli_error("--out-dtype: same or f32 (got '%s')", v);
            r = -1;
        }
    }
    return r;
}

int cli_filter_axes(const cli_filter *f, int d, int norm[3])
{
    for (int i = 0; i < f->naxes; ++i) {
        const int n = f->axes[i];
        if (n < -d || n >= d) {
            cli_error("--axes: %d is out of range for %dD data", n, d);
            return -1;
        }
        norm[i] = n < 0 ? n + d : n;
        if (i > 0 && norm[i] == norm[i - 1]) {
            cli_error("--axes: axis %d is given twice", norm[i]);
            return -1;
        }
        if (i > 0 && norm[i] < norm[i - 1]) {
            cli_error("--axes: list the axes in increasing order (got %d "
                      "after %d)", norm[i], norm[i - 1]);
            return -1;
        }
    }
    return 0;
}

/* The data axes (x first) that the mask's axes span, in the mask's own
 * x-first order: ax[0..*k-1]. 0, or -1 (error printed). */
static int mask_axes(const cli_filter *f, int numpy_order, int d, int ax[3],
                     int *k)
{
    int norm[3];
    *k = f->naxes ? f->naxes : d;
    if (!f->naxes) {
        for (int j = 0; j < d; ++j)
            ax[j] = j;
        return 0;
    }
    if (cli_filter_axes(f, d, norm))
        return -1;
    /* Mask axis j (x first) is listed axis k-1-j in NumPy's order, j in
     * clconv's. */
    for (int j = 0; j < *k; ++j)
        ax[j] = numpy_order ? d - 1 - norm[*k - 1 - j] : norm[j];
    return 0;
}

/* The mask's widths along the data's axes: listed axes from f's --mask
 * WxH, the caller's mask_size or mask_width; the others 1. */
static int place_widths(const cli_filter *f, const int ax[3], int k,
                        clconv_problem *p)
{
    const int d = p->dims;
    if (f->nmask_size > d) {
        cli_error("--mask: %d widths for %dD data (a mask with more axes "
                  "than the data)", f->nmask_size, d);
        return -1;
    }
    if (f->nmask_size && f->nmask_size != k) {
        cli_error("--mask: %d widths for %d axes (give one width, or one per "
                  "axis)", f->nmask_size, k);
        return -1;
    }
    if (!f->nmask_size && !f->naxes)
        return 0; /* the caller's widths stand */
    unsigned axes = 0;
    for (int j = 0; j < k; ++j) {
        if (f->nmask_size)
            p->mask_size[j] = f->mask_size[j];
        axes |= 1u << ax[j];
    }
    /* Listed in the mask's x-first order, so its widths land in order. */
    return clconv_problem_on_axes(p, axes) == CLCONV_OK ? 0 : -1;
}

int cli_filter_apply(const cli_filter *f, int numpy_order, clconv_problem *p)
{
    static const char axis[] = "xyz";
    int ax[3], k;
    if (mask_axes(f, numpy_order, p->dims, ax, &k) ||
        place_widths(f, ax, k, p))
        return -1;
    if (f->norigin) {
        if (f->norigin != 1 && f->norigin != k) {
            cli_error("--origin: %d values for %d axes (one, or one per "
                      "axis)", f->norigin, k);
            return -1;
        }
        for (int j = 0; j < k; ++j)
            p->origin[ax[j]] =
                f->norigin == 1
                    ? f->origin[0]
                    : f->origin[numpy_order ? k - 1 - j : j];
        for (int a = 0; a < p->dims; ++a) {
            const int w = clconv_problem_mask_axis(p, a);
            if (p->origin[a] < -(w / 2) || p->origin[a] > (w - 1) / 2) {
                cli_error("--origin: %d along %c is out of range for a mask "
                          "%d wide (%d..%d)", p->origin[a], axis[a], w,
                          -(w / 2), (w - 1) / 2);
                return -1;
            }
        }
    }
    p->border = f->nmodes ? (clconv_border)f->modes[0] : CLCONV_BORDER_CONSTANT;
    p->cval = f->cval;
    p->flip = f->convolve;
    p->in_dtype = f->dtype;
    p->out_dtype = f->out_f32 ? CLCONV_ELEM_F32 : f->dtype;
    return cli_filter_batch(f, p);
}

void cli_filter_describe(const clconv_problem *p, int numpy_order, char *buf,
                         size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (p->border != CLCONV_BORDER_CONSTANT || p->cval != 0.0)
        n += (size_t)snprintf(buf + n, len - n, " %s",
                              clconv_border_name(p->border));
    if (p->border == CLCONV_BORDER_CONSTANT && p->cval != 0.0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " cval=%g", p->cval);
    int shaped = 0, shifted = 0;
    for (int a = 0; a < p->dims; ++a) {
        shaped |= clconv_problem_mask_axis(p, a) != p->mask_width;
        shifted |= p->origin[a] != 0;
    }
    for (int k = 0; shaped && k < p->dims && n < len; ++k)
        n += (size_t)snprintf(
            buf + n, len - n, "%s%d", k ? "x" : " mask=",
            clconv_problem_mask_axis(p, numpy_order ? p->dims - 1 - k : k));
    for (int k = 0; shifted && k < p->dims && n < len; ++k)
        n += (size_t)snprintf(buf + n, len - n, "%s%d", k ? "," : " origin=",
                              p->origin[numpy_order ? p->dims - 1 - k : k]);
    if (p->flip && n < len)
        n += (size_t)snprintf(buf + n, len - n, " convolve");
    if ((p->in_dtype || p->out_dtype) && n < len)
        snprintf(buf + n, len - n, " %s->%s", clconv_elem_name(p->in_dtype),
                 clconv_elem_name(p->out_dtype));
}

int cli_filter_batch(const cli_filter *f, clconv_problem *p)
{
    if (f->batch > 1 && clconv_problem_stack(p, (size_t)f->batch) != CLCONV_OK) {
        cli_error("--%s", clconv_last_error());
        return -1;
    }
    return 0;
}

void cli_put_filter(cli_rows *t, const clconv_problem *p, int batch)
{
    char sizes[48] = "", origins[48] = "";
    size_t ns = 0, no = 0;
    for (int a = 0; a < p->dims; ++a) {
        ns += (size_t)snprintf(sizes + ns, sizeof sizes - ns, "%s%d",
                               a ? "x" : "", clconv_problem_mask_axis(p, a));
        no += (size_t)snprintf(origins + no, sizeof origins - no, "%s%d",
                               a ? "," : "", p->origin[a]);
    }
    cli_put_str(t, "mode", clconv_border_name(p->border));
    cli_put_num(t, "cval", "%.9g", p->cval);
    cli_put_str(t, "mask_size", sizes);
    cli_put_str(t, "origin", origins);
    cli_put_bool(t, "convolve", p->flip);
    cli_put_int(t, "batch", batch > 1 ? batch : 1);
    cli_put_str(t, "dtype", clconv_elem_name(p->in_dtype));
    cli_put_str(t, "out_dtype", clconv_elem_name(p->out_dtype));
}
