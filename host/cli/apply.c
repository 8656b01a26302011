/* `clconv apply IN OUT --mask SPEC`: convolve a .npy array or an image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "apply.h"

void cli_apply_usage(FILE *f)
{
    fprintf(f,
        "usage: clconv apply IN OUT --mask SPEC [--device SEL]\n"
        "                    [--strategy S|auto] [--tile T] [--verify]\n"
        "                    [--float OUT.npy]\n"
        "Convolve (correlate, zeros outside) a NumPy .npy array of 1 to 3\n"
        "dimensions or a PNG/PGM/PPM image with a mask, on one OpenCL device.\n"
        "  IN              .npy (float32/64, int8/16/32, uint8/16/32, either\n"
        "                  byte order, versions 1.0-3.0, C order) or an image\n"
        "  OUT             .npy input: float32 .npy of the same shape;\n"
        "                  image input: same format and depth, rounded and\n"
        "                  clamped, colour channels convolved, alpha kept\n"
        "  --mask SPEC     box:W, gaussian:W[:sigma], sobel-x, sobel-y,\n"
        "                  sobel-z, laplacian, sharpen, emboss; a list of\n"
        "                  W^dims numbers (1,2,1 or 0,1,0;1,-4,1;0,1,0);\n"
        "                  or a .npy file of shape W, WxW or WxWxW (W odd)\n"
        "  --device SEL    P:D, cpu, gpu or a name substring; the first match\n"
        "                  runs (default $CLCONV_DEVICE, else the first device)\n"
        "  --strategy S    %s\n"
        "                  or auto (default: the device's tuning from\n"
        "                  clconv tune, else a safe choice)\n"
        "  --tile T        TILE_WIDTH (default: the strategy's default)\n"
        "  --verify        compare with the double-precision CPU reference\n"
        "                  and report the worst error; exit 1 (and write\n"
        "                  nothing) if an element is out of bound\n"
        "  --float F.npy   images: also write the unclamped float32 result\n"
        "                  (shape H x W, or H x W x C)\n"
        "Outputs are written atomically: on any error nothing is left at OUT.\n"
        "Exit: 0 ok, 1 verification failed, 2 usage error or bad file,\n"
        "      3 unsupported on the device or OpenCL error.\n",
        cli_strategy_list(0));
}

static int parse(int argc, char **argv, apply_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->device = getenv("CLCONV_DEVICE");
    int npos = 0;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        if ((r = cli_opt_value(argc, argv, &i, "--mask", &v))) {
            if (r < 0)
                return -1;
            o->mask = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--device", &v))) {
            if (r < 0)
                return -1;
            o->device = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--strategy", &v))) {
            if (r < 0)
                return -1;
            clconv_strategy s;
            if (strcmp(v, "auto") == 0) {
                o->strategy = -1;
            } else if (clconv_strategy_parse(v, &s) == CLCONV_OK) {
                o->strategy = (int)s;
            } else {
                cli_error("--strategy: %s (or auto)", clconv_last_error());
                return -1;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--tile", &v))) {
            if (r < 0 || cli_parse_int("--tile", v, 1, 65536, &x))
                return -1;
            o->tile = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--float", &v))) {
            if (r < 0)
                return -1;
            o->float_out = v;
        } else if (cli_opt_flag(argv, i, "--verify")) {
            o->verify = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_unknown_option("apply", argv[i]);
            return -1;
        } else if (npos < 2) {
            *(npos++ == 0 ? &o->in : &o->out) = argv[i];
        } else {
            cli_error("apply: unexpected argument '%s' (IN and OUT are "
                      "already given)",
                      argv[i]);
            return -1;
        }
    }
    if (npos < 2) {
        cli_error("apply: needs IN and OUT (see clconv apply --help)");
        return -1;
    }
    if (!o->mask) {
        cli_error("apply: needs --mask SPEC (e.g. --mask gaussian:5)");
        return -1;
    }
    return 0;
}

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

static int is_image_name(const char *path)
{
    return has_ext(path, ".png") || has_ext(path, ".pgm") ||
           has_ext(path, ".ppm") || has_ext(path, ".pnm");
}

/* Paths that must not clash and must name the right kind of file. */
static int check_paths(const apply_options *o, int is_image)
{
    const char *outs[2] = {o->out, o->float_out};
    for (int k = 0; k < 2; ++k) {
        if (outs[k] && (strcmp(outs[k], o->in) == 0 ||
                        clconv_file_same(outs[k], o->in))) {
            cli_error("apply: '%s' is the input; choose another output",
                      outs[k]);
            return -1;
        }
    }
    if (o->float_out && (strcmp(o->float_out, o->out) == 0 ||
                         clconv_file_same(o->float_out, o->out))) {
        cli_error("apply: --float and OUT name the same file");
        return -1;
    }
    if (!is_image && o->float_out) {
        cli_error("apply: --float is for image inputs (a .npy output is "
                  "already float32)");
        return -1;
    }
    if (!is_image && is_image_name(o->out)) {
        cli_error("apply: '%s': a .npy input writes a .npy output", o->out);
        return -1;
    }
    if (is_image && has_ext(o->out, ".npy")) {
        cli_error("apply: '%s': an image input writes an image of its own "
                  "format; use --float OUT.npy for the float result",
                  o->out);
        return -1;
    }
    for (int k = 0; k < 2; ++k) {
        if (!outs[k])
            continue;
        /* Fail before any work when the output's folder is not there. */
        const char *slash = strrchr(outs[k], '/');
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s/.",
                 slash ? (int)(slash - outs[k]) : 1, slash ? outs[k] : ".");
        struct stat sb;
        if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            cli_error("apply: cannot write '%s': its folder does not exist",
                      outs[k]);
            return -1;
        }
    }
    if (o->float_out && !has_ext(o->float_out, ".npy")) {
        cli_error("apply: --float '%s' must end in .npy", o->float_out);
        return -1;
    }
    return 0;
}


/* Plan on the session: the given strategy, or auto (the device's tuning
 * from clconv tune, else its default; then naive if that does not fit). */
static clconv_status make_plan(clconv_session *s, const apply_options *o,
                               const float *mask, clconv_problem *p,
                               clconv_plan **plan)
{
    if (o->strategy >= 0) {
        p->strategy = (clconv_strategy)o->strategy;
        p->tile = o->tile ? o->tile
                          : clconv_default_tile_for(clconv_session_device(s),
                                                    p);
    } else {
        cli_auto_config(clconv_session_device(s), p, 1);
        if (o->tile)
            p->tile = o->tile;
    }
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    st = clconv_plan_create_with_mask(s, p, mask, plan);
    if (st == CLCONV_EUNSUPPORTED && o->strategy < 0 &&
        p->strategy != CLCONV_NAIVE) {
        p->strategy = CLCONV_NAIVE;
        p->tile = clconv_default_tile_for(clconv_session_device(s), p);
        st = clconv_plan_create_with_mask(s, p, mask, plan);
    }
    return st;
}

typedef struct apply_result {
    double ms;
    clconv_verdict worst; /* the plane with the largest error */
    int verified_ok;
    size_t nonfinite, overflowed; /* summed over the planes */
} apply_result;

static clconv_status convolve_planes(clconv_plan *plan, const clconv_problem *p,
                                     const clconv_mask *m, apply_data *d,
                                     int verify, apply_result *r)
{
    size_t n = clconv_problem_elements(p);
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    double *ref = verify ? malloc(n * sizeof *ref) : NULL;
    double *mag = verify ? malloc(n * sizeof *mag) : NULL;
    clconv_status st = CLCONV_OK;
    memset(r, 0, sizeof *r);
    r->verified_ok = 1;
    if (!in || !out || (verify && (!ref || !mag))) {
        st = CLCONV_ENOMEM;
        cli_error("out of memory for %zu elements", n);
        goto out;
    }
    st = clconv_plan_set_mask(plan, m->values);
    for (int k = 0; st == CLCONV_OK && k < d->planes; ++k) {
        double ms = 0;
        apply_plane_get(d, k, in, n);
        st = clconv_plan_set_input(plan, in);
        if (st == CLCONV_OK)
            st = clconv_plan_poison_output(plan);
        if (st == CLCONV_OK)
            st = clconv_plan_execute(plan, &ms);
        if (st == CLCONV_OK)
            st = clconv_plan_get_output(plan, out);
        if (st != CLCONV_OK)
            break;
        r->ms += ms;
        if (verify) {
            st = clconv_reference(p, in, m->values, ref, mag);
            if (st != CLCONV_OK)
                break;
            clconv_verdict v;
            clconv_verify(p, out, ref, mag, &v);
            if (!v.ok)
                r->verified_ok = 0;
            r->nonfinite += v.nonfinite;
            r->overflowed += v.overflowed;
            if (k == 0 || v.max_err > r->worst.max_err)
                r->worst = v;
        }
        apply_plane_put(d, k, out, n);
    }
    if (st != CLCONV_OK)
        cli_error("%s", clconv_last_error());
out:
    free(in);
    free(out);
    free(ref);
    free(mag);
    return st;
}

/* Encode every output, stage them all, then commit: an error anywhere
 * leaves nothing behind. float_copy is the unclamped image result. */
static int write_outputs(const apply_options *o, const apply_data *d,
                         const clconv_array *float_copy)
{
    unsigned char *buf[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    const char *path[2] = {o->out, o->float_out};
    clconv_staged_file staged[2] = {{NULL, NULL}, {NULL, NULL}};
    int nout = o->float_out ? 2 : 1, rc = -1;
    clconv_status st = d->is_image
                           ? clconv_image_encode(&d->image, &buf[0], &len[0])
                           : clconv_npy_encode(&d->array, &buf[0], &len[0]);
    if (st == CLCONV_OK && nout == 2)
        st = clconv_npy_encode(float_copy, &buf[1], &len[1]);
    for (int k = 0; st == CLCONV_OK && k < nout; ++k)
        st = clconv_file_stage(path[k], buf[k], len[k], &staged[k]);
    for (int k = 0; st == CLCONV_OK && k < nout; ++k)
        st = clconv_file_commit(&staged[k]);
    if (st != CLCONV_OK)
        cli_error("%s", clconv_last_error());
    else
        rc = 0;
    for (int k = 0; k < nout; ++k) {
        clconv_file_discard(&staged[k]);
        free(buf[k]);
    }
    return rc;
}

static void print_summary(const apply_options *o, const apply_data *d,
                          const clconv_problem *p, const clconv_mask *m,
                          const clconv_device_info *dev, const apply_result *r)
{
    char size[64];
    cli_format_size(p->size, p->dims, size, sizeof size);
    printf("apply: %s %dD %s", o->in, p->dims, size);
    if (d->is_image)
        printf(" %s %d channel(s)", clconv_image_format_name(d->image.format),
               d->image.channels);
    printf(", mask %s (%d^%d), %s T=%d on %u:%u %s: %.3f ms", o->mask,
           m->width, m->dims, clconv_strategy_name(p->strategy), p->tile,
           dev->platform_index, dev->device_index, dev->name, r->ms);
    if (o->verify)
        printf(", %s max_err %.3g", r->verified_ok ? "verified" : "FAILED",
               r->worst.max_err);
    /* Never a silent pass of NaN against NaN: say how many. */
    if (o->verify && r->nonfinite)
        printf(" (%zu output(s) NaN or Inf as in the reference: the input "
               "holds NaN or Inf)",
               r->nonfinite);
    if (o->verify && r->overflowed)
        printf(" (%zu output(s) beyond float32's range, inf)",
               r->overflowed);
    printf("\n");
}

/* The mask of --mask and the problem it makes with the data. CLI_EXIT_OK,
 * or the exit code (error printed). */
static int load_mask(const apply_options *o, const apply_data *d,
                     clconv_mask *mask, clconv_problem *p)
{
    clconv_status st = clconv_mask_load(o->mask, d->shape.dims, mask);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st) == CLI_EXIT_UNSUPPORTED ? CLI_EXIT_USAGE
                                                         : cli_exit_code(st);
    }
    *p = d->shape;
    p->mask_width = mask->width;
    p->tile = 1;
    if (clconv_problem_validate(p) != CLCONV_OK) {
        cli_error("%s: %s", o->in, clconv_last_error());
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* A session on the first device --device selects, and the plan on it.
 * CLI_EXIT_OK, or the exit code (error printed). */
static int open_plan(const apply_options *o, const clconv_mask *mask,
                     clconv_problem *p, cli_devices *devs,
                     clconv_session **session, clconv_plan **plan)
{
    int code = cli_devices_open(devs, o->device, 0);
    if (code != CLI_EXIT_OK)
        return code;
    if (devs->n == 0) {
        cli_error("--device: no device selected");
        return CLI_EXIT_USAGE;
    }
    const clconv_device_info *dev = cli_device(devs, 0);
    clconv_status st = clconv_session_create(dev, session);
    if (st == CLCONV_OK)
        st = make_plan(*session, o, mask->values, p, plan);
    if (st != CLCONV_OK) {
        cli_error("%s: %s", dev->name, clconv_last_error());
        return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

/* --float: the unclamped image result as a float32 array. 0, or -1. */
static int float_copy_of(const apply_data *d, clconv_array *out)
{
    size_t shape[3] = {d->image.height, d->image.width,
                       (size_t)d->image.channels};
    int dims = d->image.channels == 1 ? 2 : 3;
    if (clconv_array_alloc(out, dims, shape) != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    memcpy(out->data, d->image.pixels,
           clconv_array_elements(out) * sizeof(float));
    return 0;
}

int cli_apply_main(int argc, char **argv)
{
    apply_options o;
    apply_data d;
    if (parse(argc, argv, &o) || apply_load_input(&o, &d))
        return CLI_EXIT_USAGE;
    clconv_mask mask = {0, 0, NULL};
    cli_devices devs = {{NULL, 0}, NULL, 0, NULL};
    clconv_session *session = NULL;
    clconv_plan *plan = NULL;
    clconv_array float_copy = {0, {0, 0, 0}, NULL};
    clconv_problem p;
    apply_result r;
    int code = check_paths(&o, d.is_image) ? CLI_EXIT_USAGE
                                           : load_mask(&o, &d, &mask, &p);
    if (code == CLI_EXIT_OK)
        code = open_plan(&o, &mask, &p, &devs, &session, &plan);
    if (code == CLI_EXIT_OK) {
        clconv_status st = convolve_planes(plan, &p, &mask, &d, o.verify, &r);
        code = cli_exit_code(st);
    }
    if (code == CLI_EXIT_OK && o.float_out && float_copy_of(&d, &float_copy))
        code = CLI_EXIT_USAGE;
    if (code != CLI_EXIT_OK)
        goto out;
    print_summary(&o, &d, &p, &mask, cli_device(&devs, 0), &r);
    if (o.verify && !r.verified_ok) {
        const clconv_verdict *v = &r.worst;
        cli_error("verification failed: %zu element(s) out of bound, worst at "
                  "index %zu: got %.9g expected %.9g; nothing written",
                  v->failures, v->worst_index, v->worst_got,
                  v->worst_expected);
        code = CLI_EXIT_VERIFY;
        goto out;
    }
    code = write_outputs(&o, &d, &float_copy) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
out:
    clconv_array_free(&float_copy);
    clconv_plan_destroy(plan);
    clconv_session_destroy(session);
    cli_devices_close(&devs);
    clconv_mask_free(&mask);
    clconv_array_free(&d.array);
    clconv_image_free(&d.image);
    return code;
}
