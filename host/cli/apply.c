/* `clconv apply IN OUT --mask SPEC`: convolve a .npy array or an image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "run.h"

void cli_apply_usage(FILE *f)
{
    fprintf(f,
        "usage: clconv apply IN OUT --mask SPEC [--device SEL]\n"
        "                    [--strategy S|auto] [--tile T] [--verify]\n"
        "                    [--float OUT.npy] [--mode M] [--cval V]\n"
        "                    [--origin O[,O..]] [--convolve]\n"
        "                    [--axes A[,B..] | --channel-axis N | --dims 3]\n"
        "                    [--method M] [--out-dtype same|f32]\n"
        "Correlate (scipy.ndimage.correlate; zeros outside by default) a .npy\n"
        "array or a PNG/PGM/PPM image with a mask (over 1 to 3 axes: an\n"
        "array of more takes --axes, the others filtered slice by slice).\n"
        "  IN              .npy (float16/32/64, int8/16/32/64, uint8/16/32/64,\n"
        "                  bool; either byte order, versions 1.0-3.0, C or\n"
        "                  Fortran order)\n"
        "                  or an image; - reads standard input;\n"
        "                  uint8/16, int16, float16 and 8/16-bit images go to\n"
        "                  the device as they are, the rest as float32\n"
        "  OUT             .npy input: float32 .npy of the same shape;\n"
        "                  image input: same format and depth, rounded and\n"
        "                  clamped, colour channels convolved, alpha kept;\n"
        "                  - writes standard output (the summary to stderr)\n"
        "  --out-dtype O   same: OUT in the input's type, rounded to nearest\n"
        "                  (ties to even) and saturated on the device (the\n"
        "                  default for images); f32: float32 from the device\n"
        "                  (the default for .npy; an image is then rounded,\n"
        "                  ties up, and clamped on the host)\n"
        "  --mask SPEC     box:W, gaussian:W[:sigma], sobel-x, sobel-y,\n"
        "                  sobel-z, laplacian, sharpen, emboss; box and\n"
        "                  gaussian take one width per axis (box:5x3 is\n"
        "                  np.ones((5, 3))/15); a list of W^dims numbers\n"
        "                  (1,2,1 or 0,1,0;1,-4,1;0,1,0; in 2D R rows of C);\n"
        "                  or a .npy of any shape with the data's dimensions\n"
        "  --mode M        constant (default), nearest, reflect, mirror or wrap\n"
        "                  (SciPy's grid-constant, grid-mirror, grid-wrap too)\n"
        "  --cval V        the constant mode's value outside (default 0)\n"
        "  --origin O      SciPy's origin: one, or one per axis (NumPy's order)\n"
        "  --convolve      scipy.ndimage.convolve (the mask flipped)\n"
        "  --axes A[,B..]  the data axes the mask spans (SciPy's axes=); in an\n"
        "                  array of more than 3 axes the others are slices,\n"
        "                  each filtered on its own\n"
        "  --channel-axis N  filter each slice along .npy axis N on its own\n"
        "  --dims 3        a 3D .npy is a volume ((H, W, 3|4) arrays need this,\n"
        "                  --channel-axis or --axes)\n"
        "  --device SEL    P:D, cpu, gpu or a name substring; the first match\n"
        "                  runs (default $CLCONV_DEVICE, else the first device);\n"
        "                  A,B (several terms): a float32 .npy shared between\n"
        "                  the devices they select\n"
        "  --strategy S    %s\n"
        "                  or auto (default: the device's tuning from\n"
        "                  clconv tune, else a safe choice)\n"
        "  --tile T        TILE_WIDTH (default: the strategy's default)\n"
        CLI_METHOD_HELP
        "                  (default auto)\n"
        "  --verify        compare with the double-precision CPU reference\n"
        "                  and report the worst error; exit 1 (and write\n"
        "                  nothing) if an element is out of bound\n"
        "  --float F.npy   images: also write the unclamped float32 result\n"
        "                  (shape H x W, or H x W x C)\n"
        "OUT and F.npy are replaced atomically, both or neither (a FIFO,\n"
        "device or - for stdout is written through); see doc/apply.md.\n"
        "-- ends the options: IN and OUT after it may begin with -.\n"
        "Under mpirun (mpirun -n N clconv apply ...) each rank filters a slab\n"
        "of rows; clconv-mpi apply --help says how (--halo read|exchange).\n"
        "Exit: 0 ok, 1 verification failed, 2 usage error or bad file,\n"
        "      3 unsupported on the device or OpenCL error.\n",
        cli_strategy_list(0));
}

int apply_parse(int argc, char **argv, apply_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->channel_axis = CLI_NO_CHANNEL_AXIS;
    o->device = getenv("CLCONV_DEVICE");
    int npos = 0, operands_only = 0;
    for (int i = 1; i < argc; ++i) {
        const char *v = NULL;
        long x;
        int r;
        /* "--" ends the options, as POSIX's utilities have it: an IN or
         * OUT that begins with '-' (-x.npy) follows it. */
        const int operand = operands_only ||
                            argv[i][0] != '-' || argv[i][1] == '\0';
        if (!operands_only && strcmp(argv[i], "--") == 0) {
            operands_only = 1;
        } else if (operand && npos < 2) {
            *(npos++ == 0 ? &o->in : &o->out) = argv[i];
        } else if (operand) {
            cli_error("apply: unexpected argument '%s' (IN and OUT are "
                      "already given)",
                      argv[i]);
            return -1;
        } else if ((r = cli_parse_filter_option(argc, argv, &i, 0,
                                                &o->filter))) {
            if (r < 0)
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--channel-axis", &v))) {
            if (r < 0 || cli_parse_int("--channel-axis", v,
                                       -CLCONV_NPY_MAX_DIMS,
                                       CLCONV_NPY_MAX_DIMS - 1, &x))
                return -1;
            o->channel_axis = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--dims", &v))) {
            if (r < 0 || cli_parse_int("--dims", v, 3, 3, &x))
                return -1;
            o->dims3 = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--mask", &v))) {
            if (r < 0)
                return -1;
            o->mask = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--device", &v))) {
            if (r < 0)
                return -1;
            o->device = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "--strategy", &v))) {
            /* apply runs one variant: "all" is run's and bench's */
            int s;
            if (r < 0 || cli_parse_strategy(v, CLI_TAKES_AUTO, &s))
                return -1;
            o->strategy = s == CLI_STRATEGY_AUTO ? -1 : s;
        } else if ((r = cli_opt_value(argc, argv, &i, "--method", &v))) {
            if (r < 0 || cli_parse_method(v, &o->method))
                return -1;
        } else if ((r = cli_opt_value(argc, argv, &i, "--tile", &v))) {
            if (r < 0 || cli_parse_int("--tile", v, 1, 65536, &x))
                return -1;
            o->tile = (int)x;
        } else if ((r = cli_opt_value(argc, argv, &i, "--out-dtype", &v))) {
            if (r < 0)
                return -1;
            if (strcmp(v, "same") == 0) {
                o->out_dtype = APPLY_OUT_SAME;
            } else if (strcmp(v, "f32") == 0) {
                o->out_dtype = APPLY_OUT_F32;
            } else {
                cli_error("--out-dtype: same or f32 (got '%s')", v);
                return -1;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "--float", &v))) {
            if (r < 0)
                return -1;
            o->float_out = v;
        } else if (cli_opt_flag(argv, i, "--verify")) {
            o->verify = 1;
        } else {
            cli_unknown_option("apply", argv[i]);
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
    if (o->channel_axis != CLI_NO_CHANNEL_AXIS && (o->dims3 || o->filter.naxes)) {
        cli_error("apply: --channel-axis excludes --dims 3 and --axes");
        return -1;
    }
    /* The separable passes and the FFT choose their own work-groups: a
     * variant or tile given with them did nothing, without a word (run
     * refuses them the same way). */
    if ((o->method == CLCONV_METHOD_SEPARABLE ||
         o->method == CLCONV_METHOD_FFT) &&
        (o->strategy >= 0 || o->tile)) {
        cli_error("apply: --strategy and --tile choose the direct kernel; "
                  "--method %s runs none",
                  clconv_method_name(o->method));
        return -1;
    }
    return 0;
}

/* The variant that runs on dev: --strategy with --tile or its default
 * tile there, or auto (the device's tuning from clconv tune, else its
 * default), with the tile resolved either way. A plan is made with it, and
 * the slabs of a host-to-host call run it: there a tile of 0 was shown as
 * "T=0", and naive with tile 0 read as "the device's default variant". */
static void choose_variant(const clconv_device_info *dev,
                           const apply_options *o, clconv_problem *p)
{
    if (o->strategy >= 0) {
        p->strategy = (clconv_strategy)o->strategy;
        p->tile = o->tile ? o->tile : clconv_default_tile_for(dev, p);
    } else {
        cli_auto_config(dev, p, 1);
        if (o->tile)
            p->tile = o->tile;
    }
}

int apply_fft_falls_back(const apply_options *o, const clconv_problem *p,
                         clconv_status st)
{
    return st == CLCONV_EUNSUPPORTED && o->method == CLCONV_METHOD_AUTO &&
           p->method == CLCONV_METHOD_FFT;
}

/* Plan on the session with the variant choose_variant gives (auto: then
 * naive if that does not fit; an FFT auto chose that the device refuses:
 * the direct path). */
static clconv_status make_plan(clconv_session *s, const apply_options *o,
                               const float *mask, clconv_problem *p,
                               clconv_plan **plan)
{
    choose_variant(clconv_session_device(s), o, p);
    clconv_status st = clconv_problem_validate(p);
    if (st != CLCONV_OK)
        return st;
    st = clconv_plan_create_with_mask(s, p, mask, plan);
    if (apply_fft_falls_back(o, p, st)) {
        p->method = CLCONV_METHOD_DIRECT;
        st = clconv_plan_create_with_mask(s, p, mask, plan);
    }
    if (st == CLCONV_EUNSUPPORTED && o->strategy < 0 &&
        p->strategy != CLCONV_NAIVE) {
        p->strategy = CLCONV_NAIVE;
        p->tile = clconv_default_tile_for(clconv_session_device(s), p);
        st = clconv_plan_create_with_mask(s, p, mask, plan);
    }
    return st;
}

/* On stdout, or on stderr when OUT (or --float) is stdout. */
static void print_summary(const apply_options *o, const apply_data *d,
                          const clconv_problem *p, const clconv_mask *m,
                          const clconv_device_info *dev, const apply_result *r)
{
    FILE *f = o->summary_stderr ? stderr : stdout;
    char size[64];
    cli_format_size(p->size, p->dims, size, sizeof size);
    fprintf(f, "apply: %s %dD %s", o->in, p->dims, size);
    if (d->is_image)
        fprintf(f, " %s %d channel(s)",
                clconv_image_format_name(d->image.format), d->image.channels);
    char filter[160];
    cli_filter_describe(p, 1, filter, sizeof filter);
    if (d->planes > 1 && !d->is_image)
        fprintf(f, " x %d %s", d->planes,
                o->channel_axis != CLI_NO_CHANNEL_AXIS ? "channels" : "slices");
    char shape[48];
    cli_mask_shape(m->dims, m->size, shape, sizeof shape);
    fprintf(f, ", mask %s (%s)%s, ", o->mask, shape, filter);
    if (r->empty)
        fprintf(f, "empty: nothing to compute");
    else if (r->method == CLCONV_METHOD_DIRECT)
        fprintf(f, "%s T=%d", clconv_strategy_name(p->strategy), p->tile);
    else
        fprintf(f, "method %s", clconv_method_name(r->method));
    fprintf(f, " on %u:%u %s", dev->platform_index, dev->device_index,
            dev->name);
    if (!r->empty)
        fprintf(f, ": %.3f ms", r->ms);
    if (r->slabs)
        fprintf(f, " host to host in %zu slab(s)", r->slabs);
    if (o->verify)
        fprintf(f, ", %s max_err %.3g", r->verified_ok ? "verified" : "FAILED",
                r->worst.max_err);
    /* Never a silent pass of NaN against NaN: say how many. */
    if (o->verify && r->nonfinite)
        fprintf(f, " (%zu output(s) NaN or Inf as in the reference: the input "
                   "holds NaN or Inf)",
                r->nonfinite);
    if (o->verify && r->overflowed)
        fprintf(f, " (%zu output(s) beyond float32's range, inf)",
                r->overflowed);
    fprintf(f, "\n");
}

int apply_filter_problem(const apply_options *o, const clconv_mask *mask,
                         clconv_problem *p)
{
    p->mask_width = mask->width;
    for (int a = 0; a < p->dims; ++a) /* a 5x2 box is not 5^2 */
        p->mask_size[a] = mask->size[a];
    p->tile = 1;
    if (cli_filter_apply(&o->filter, 1, p))
        return -1;
    p->method = o->method;
    /* Refused before any work, on every path (an empty array, the
     * mapped chunks, MPI's ranks), in the user's terms. */
    if (p->method == CLCONV_METHOD_SEPARABLE &&
        !clconv_mask_separable(p, mask->values, NULL)) {
        char shape[48];
        cli_mask_shape(mask->dims, mask->size, shape, sizeof shape);
        cli_error("--method separable: mask %s (%s) is not an outer product "
                  "of 1D masks (rank-1 test, tolerance %d * FLT_EPSILON per "
                  "element)",
                  o->mask, shape, CLCONV_SEPARABLE_TOL);
        return -1;
    }
    return 0;
}

/* The mask of --mask and the problem it makes with the data. CLI_EXIT_OK,
 * or the exit code (error printed). */
static int load_mask(const apply_options *o, const apply_data *d,
                     clconv_mask *mask, clconv_problem *p)
{
    clconv_status st = clconv_mask_load(
        o->mask, o->filter.naxes ? o->filter.naxes : d->shape.dims, mask);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return cli_exit_code(st) == CLI_EXIT_UNSUPPORTED ? CLI_EXIT_USAGE
                                                         : cli_exit_code(st);
    }
    *p = d->shape;
    if (apply_filter_problem(o, mask, p))
        return CLI_EXIT_USAGE;
    p->in_dtype = d->elem;
    p->out_dtype = d->out_elem;
    /* An empty array (an axis of length 0) is checked as if each such
     * axis had one element: the library takes no size 0, but the mask,
     * modes and origins must be right all the same (SciPy refuses them
     * on an empty array too). */
    clconv_problem checked = *p;
    for (int a = 0; a < checked.dims; ++a)
        if (checked.size[a] == 0)
            checked.size[a] = 1;
    if (clconv_problem_validate(&checked) != CLCONV_OK) {
        cli_error("%s: %s", o->in, clconv_last_error());
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* An array with an axis of length 0 (NumPy allows them; an image always
 * has pixels). */
static int no_elements(const apply_data *d)
{
    return !d->is_image && apply_array_elements(d) == 0;
}

/* A session on the first device --device selects, and the plan on it.
 * CLI_EXIT_OK, or the exit code (error printed). */
static int open_plan(const apply_options *o, const clconv_mask *mask,
                     const apply_data *d, clconv_problem *p, cli_devices *devs,
                     clconv_session **session, clconv_plan **plan)
{
    int code = cli_devices_open(devs, o->device, 0);
    if (code != CLI_EXIT_OK)
        return code;
    if (devs->n == 0) {
        cli_error("--device: no device selected");
        return CLI_EXIT_USAGE;
    }
    /* Several devices share only what the mapped path takes: said, not
     * dropped in silence. */
    if (devs->n > 1 && apply_several_devices(o)) {
        const clconv_device_info *first = cli_device(devs, 0);
        fprintf(stderr,
                "clconv: note: --device %s: this input runs on one device, "
                "%u:%u %s (several devices share a little-endian .npy of "
                "f4, u1, u2, i2 or f2 filtered over its own axes)\n",
                o->device, first->platform_index, first->device_index,
                first->name);
    }
    /* An empty array has nothing to compute: no session, no plan. The
     * device is still opened, so that a wrong --device is refused as for
     * any input, and the summary names it. */
    if (no_elements(d))
        return CLI_EXIT_OK;
    const clconv_device_info *dev = cli_device(devs, 0);
    clconv_status st = clconv_session_create(dev, session);
    /* The method for these data: never an FFT on NaN or Inf, which it
     * would spread to every output (an image's samples are finite). */
    if (st == CLCONV_OK && !d->is_image)
        st = clconv_method_choose_for_input(
            *session, p, mask->values,
            d->raw ? d->raw : (const void *)d->array.data,
            apply_array_elements(d), &p->method);
    /* Beyond what one plan runs: no plan, the host-to-host call in slabs
     * (with the variant auto or --strategy gives). */
    if (st == CLCONV_OK && clconv_session_needs_slabs(*session, p)) {
        choose_variant(dev, o, p);
        st = clconv_problem_validate(p);
    } else if (st == CLCONV_OK) {
        st = make_plan(*session, o, mask->values, p, plan);
    }
    if (st != CLCONV_OK) {
        cli_error("%s: %s", dev->name, clconv_last_error());
        return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

int cli_apply_main(int argc, char **argv)
{
    apply_options o;
    apply_data d;
    if (apply_parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    /* Before any output replaces a file stdout is redirected to. */
    o.summary_stderr = cli_is_stdout(o.out) || cli_is_stdout(o.float_out);
    /* The chunked path of large arrays takes every filter over the
     * array's own axes (modes, cval, origin, convolution): --axes and
     * channels take the in-memory path. */
    const int plain = !o.filter.naxes && o.channel_axis == CLI_NO_CHANNEL_AXIS;
    int large = o.float_out || !plain ? 0 : apply_large_wanted(&o);
    if (large < 0)
        return CLI_EXIT_USAGE;
    if (large) {
        apply_data npy = {.is_image = 0}; /* what the mapped path reads */
        return apply_check_paths(&o, &npy) ? CLI_EXIT_USAGE
                                           : apply_large_main(&o);
    }
    if (apply_load_input(&o, &d))
        return CLI_EXIT_USAGE;
    /* Beyond 3 axes the problem is the axes --axes lists, in order: the
     * mask spans all of them. */
    if (!d.is_image && d.nd > 3)
        o.filter.naxes = 0;
    if (apply_choose_types(&o, &d)) {
        clconv_array_free(&d.array);
        clconv_image_free(&d.image);
        free(d.raw);
        return CLI_EXIT_USAGE;
    }
    clconv_mask mask = {0, 0, NULL, {0, 0, 0}};
    cli_devices devs = {{NULL, 0}, NULL, 0, NULL};
    clconv_session *session = NULL;
    clconv_plan *plan = NULL;
    clconv_problem p;
    apply_result r;
    int code = apply_check_paths(&o, &d) ? CLI_EXIT_USAGE
                                         : load_mask(&o, &d, &mask, &p);
    if (code == CLI_EXIT_OK)
        code = open_plan(&o, &mask, &d, &p, &devs, &session, &plan);
    if (code == CLI_EXIT_OK && no_elements(&d)) { /* OUT is as empty */
        memset(&r, 0, sizeof r);
        r.empty = r.verified_ok = 1;
    } else if (code == CLI_EXIT_OK) {
        clconv_status st = apply_convolve_planes(session, plan, &p, &mask,
                                                 &d, o.verify, &r);
        code = cli_exit_code(st);
    }
    if (code != CLI_EXIT_OK)
        goto out;
    if (o.verify && !r.verified_ok) {
        print_summary(&o, &d, &p, &mask, cli_device(&devs, 0), &r);
        const clconv_verdict *v = &r.worst;
        cli_error("verification failed: %zu element(s) out of bound, worst at "
                  "index %zu: got %.9g expected %.9g; nothing written",
                  v->failures, v->worst_index, v->worst_got,
                  v->worst_expected);
        code = CLI_EXIT_VERIFY;
        goto out;
    }
    /* The summary says what was written: only once it is in place. */
    code = apply_write_outputs(&o, &d);
    if (code == CLI_EXIT_OK)
        print_summary(&o, &d, &p, &mask, cli_device(&devs, 0), &r);
out:
    clconv_plan_destroy(plan);
    clconv_session_destroy(session);
    cli_devices_close(&devs);
    clconv_mask_free(&mask);
    clconv_array_free(&d.array);
    clconv_image_free(&d.image);
    free(d.raw);
    return code;
}
