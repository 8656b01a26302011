/* `clconv model`: the tiling analysis of the notes for any case. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

void cli_model_usage(FILE *f)
{
    fprintf(f,
        "usage: clconv model --dims D --mask W|WxH[xD] [--tile T] [--strategy S|all]\n"
        "                    [--mode M] [--cval V] [--origin O[,O..]]\n"
        "                    [--convolve] [--axes A[,B..]] [--warp N]\n"
        "                    [--size X[xY[xZ]] [--block i[,j[,k]]]]\n"
        "                    [--json] [--dtype T] [--out-dtype same|f32]\n"
        "       clconv model --table\n"
        "       clconv model --peak-gflops G[,G..] --bandwidth B[,B..]\n"
        "                    [--masks W,W..]\n"
        "       clconv model --device SEL [--masks W,W..]\n"
        "       clconv model --methods ... (below)\n"
        "The tiling analysis of the lecture notes \"Tiled Convolution\" and\n"
        "\"Tiled Convolution Analysis\" (ECE408/CS483 Applied Parallel\n"
        "Programming, lecture 9; \"the notes\" below), computed (no device is\n"
        "used except with --device). Counting: 'accesses' are the reads of N\n"
        "an untiled kernel issues for the tile's outputs (ghost cells are not\n"
        "read); 'global' the loads of N the strategy issues (input tile, or\n"
        "core + halo for cached_halo); reduction = accesses / global.\n"
        "  --dims D         1, 2 or 3\n"
        "  --mask W|WxH[xD] mask width, or one per axis (x first; odd or\n"
        "                   even)\n"
        "  --mode M         border mode: constant (ghost cells are not\n"
        "                   loaded), nearest, reflect, mirror, wrap (every\n"
        "                   tap loads a folded element)\n"
        "  --cval V         the constant mode's value (ghost cells: no load)\n"
        "  --origin O[,O..] SciPy's origin per axis; --convolve flips it\n"
        "  --axes A[,B..]   the axes the mask spans (x first; 1 wide along\n"
        "                   the others)\n"
        "  --dtype T, --out-dtype O   element types (u8, u16, i16, f16,\n"
        "                   f32; same or f32) of --device's kernels\n"
        "  --tile T         TILE_WIDTH (default: the strategy's default)\n"
        "  --strategy S     %s, all\n"
        "  --warp N         warp width for the warp counts (default 32)\n"
        "  --size X[xY[xZ]] the whole problem: every kind of tile of the grid\n"
        "                   (first, interior, last...) and the totals\n"
        "  --block i,j,k    one tile of the grid, e.g. a boundary tile\n"
        "  --device SEL     with --dims and --size (no --block, no --json):\n"
        "                   also run"
" each strategy's instrumented\n"
        "                   kernel (-D CLCONV_COUNT_LOADS) on SEL and print\n"
        "                   its counted global loads and local reads under\n"
        "                   the model's totals (exit 1 if they differ);\n"
        "                   without --dims: measure both ceilings on each\n"
        "                   selected device (as clconv bench does) and use\n"
        "                   them as columns\n"
        "  --json           one JSON array, one object per strategy\n"
        "  --table          the notes' reduction tables (1D TILE 16..256,\n"
        "                   2D TILE 8..64, masks 5 and 9)\n"
        "  --peak-gflops G  peak FP32 GFLOP/s, one per column (comma list)\n"
        "  --bandwidth B    memory bandwidth GB/s, one per column\n"

        "  --masks W,W..    masks of the percent-of-peak tables (default:\n"
        "                   1D 5,9,15,55; 2D 3,5,7,9, as in the notes)\n"
        "Percent of peak: 4 B of N per access, 2 FLOP per access, so an\n"
        "untiled kernel needs 2 B/FLOP and tiling divides that by the\n"
        "interior reduction (1D TILE 1024, 2D 32x32 tiles).\n",
        cli_strategy_list(1));
    cli_model_methods_usage(f);
}

/* "a,b,c" of positive numbers. */
static int parse_list(const char *flag, const char *s, double *out, int *n)
{
    *n = 0;
    const char *p = s;
    for (;;) {
        const char *end;
        double v;
        if (cli_parse_positive_prefix(p, 1e12, &v, &end)) {
            cli_error("%s: '%s' is not a comma list of positive numbers", flag,
                      s);
            return -1;
        }
        if (*n == MODEL_MAX_LIST) {
            cli_error("%s: at most %d values", flag, MODEL_MAX_LIST);
            return -1;
        }
        out[(*n)++] = v;
        if (*end == '\0')
            return 0;
        if (*end != ',') {
            cli_error("%s: '%s' is not a comma list of positive numbers", flag,
                      s);
            return -1;
        }
        p = end + 1;
    }
}

static int parse_block(const char *s, int dims, size_t block[3])
{
    int n = 0;
    const char *p = s;
    while (n < 3) {
        char *end = NULL;
        errno = 0;
        if (*p < '0' || *p > '9')
            break;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno == ERANGE)
            break;
        block[n++] = (size_t)x;
        p = end;
        if (*p == '\0') {
            if (n != dims) {
                cli_error("--block: '%s' has %d indices, --dims %d needs %d",
                          s, n, dims, dims);
                return -1;
            }
            for (int d = n; d < 3; ++d)
                block[d] = 0;
            return 0;
        }
        if (*p != ',')
            break;
        ++p;
    }
    cli_error("--block: '%s' is not i[,j[,k]] with non-negative integers", s);
    return -1;
}

/* --masks W,W..: odd integers. */
static int parse_masks(const char *v, model_options *o)
{
    double m[MODEL_MAX_LIST];
    if (parse_list("--masks", v, m, &o->nmasks))
        return -1;
    for (int k = 0; k < o->nmasks; ++k) {
        o->masks[k] = (int)m[k];
        if ((double)o->masks[k] != m[k] || o->masks[k] % 2 == 0) {
            cli_error("--masks: widths must be odd integers ('%s')", v);
            return -1;
        }
    }
    return 0;
}

/* One option of argv[*i] (--size and --block kept as text): 0 if it was
 * model's, -1 (error printed) else. */
static int parse_one(int argc, char **argv, int *i, model_options *o,
                     const char **size, const char **block)
{
    const char *v = NULL;
    long x;
    int r;
    if ((r = cli_parse_filter_option(argc, argv, i,
                                     CLI_FILTER_MASK_AXES | CLI_FILTER_DTYPE,
                                     &o->filter)) ||
        (r = cli_parse_problem_option(argc, argv, i, &o->dims, size,
                                      &o->mask)))
        return r < 0 ? -1 : 0;
    if ((r = cli_opt_value(argc, argv, i, "--masks", &v)))
        return r < 0 ? -1 : parse_masks(v, o);
    if ((r = cli_opt_value(argc, argv, i, "--tile", &v))) {
        if (r < 0 || cli_parse_int("--tile", v, 1, 65536, &x))
            return -1;
        o->tile = (int)x;
        return 0;
    }
    if ((r = cli_opt_value(argc, argv, i, "--warp", &v))) {
        if (r < 0 || cli_parse_int("--warp", v, 1, 1024, &x))
            return -1;
        o->warp = (int)x;
        return 0;
    }
    if ((r = cli_opt_value(argc, argv, i, "--strategy", &v)))
        return r < 0 ? -1 : cli_parse_strategy(v, CLI_TAKES_ALL, &o->strategy);
    if ((r = cli_opt_value(argc, argv, i, "--block", block)))
        return r < 0 ? -1 : 0;
    if ((r = cli_opt_value(argc, argv, i, "--peak-gflops", &v)))
        return r < 0 ? -1 : parse_list("--peak-gflops", v, o->peak, &o->npeak);
    if ((r = cli_opt_value(argc, argv, i, "--bandwidth", &v)))
        return r < 0 ? -1 : parse_list("--bandwidth", v, o->bw, &o->nbw);
    if ((r = cli_opt_value(argc, argv, i, "--device", &o->device)))
        return r < 0 ? -1 : 0;
    if (cli_opt_set(argv, *i, "--json", &o->json) ||
        cli_opt_set(argv, *i, "--table", &o->table))
        return 0;
    cli_unknown_option("model", argv[*i]);
    return -1;
}

/* The modes' rules: which options go together. 0, or -1 (printed). */
static int check(const model_options *o, const char *size, const char *block)
{
    /* --device with --dims counts loads; without, it measures ceilings */
    const int peak_mode = o->npeak || o->nbw || (o->device && !o->dims);
    if (o->npeak != o->nbw) {
        cli_error("model: --peak-gflops has %d values, --bandwidth %d: give "
                  "one of each per column",
                  o->npeak, o->nbw);
        return -1;
    }
    if (o->device && o->npeak) {
        cli_error("model: --device measures the ceilings; it excludes "
                  "--peak-gflops and --bandwidth");
        return -1;
    }
    if ((o->table || peak_mode) && (o->dims || size || block || o->json)) {
        cli_error("model: --table and the percent-of-peak tables take no "
                  "--dims, --size, --block or --json");
        return -1;
    }
    if (!o->table && !peak_mode) {
        if (!o->dims || !o->mask) {
            cli_error("model: give --dims and --mask (or --table, or "
                      "--peak-gflops with --bandwidth; see --help)");
            return -1;
        }
        if (o->nmasks) {
            cli_error("model: --masks is for the percent-of-peak tables; use "
                      "--mask");
            return -1;
        }
    }
    if (o->device && o->dims && !size) {
        cli_error("model: --device with --dims needs --size (the problem "
                  "whose loads the kernels count)");
        return -1;
    }
    if (o->device && o->dims && (block || o->json)) {
        cli_error("model: counting on --device prints the whole problem's "
                  "totals: no --block or --json");
        return -1;
    }
    if (block && !size) {
        cli_error("model: --block needs --size (the grid it is a tile of)");
        return -1;
    }
    return 0;
}

static int parse(int argc, char **argv, model_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = -1;
    o->warp = 32;
    const char *size = NULL, *block = NULL;
    for (int i = 1; i < argc; ++i)
        if (parse_one(argc, argv, &i, o, &size, &block))
            return -1;
    for (int a = 0; a < o->filter.nmask_size; ++a) /* the largest width */
        if (o->filter.mask_size[a] > o->mask)
            o->mask = o->filter.mask_size[a];
    if (check(o, size, block))
        return -1;
    clconv_problem shape = {.dims = o->dims, .mask_width = o->mask};
    if (o->dims && cli_filter_apply(&o->filter, 0, &shape))
        return -1;
    if (size && cli_parse_size(size, o->dims, o->size))
        return -1;
    if (block && parse_block(block, o->dims, o->block))
        return -1;
    o->have_size = size != NULL;
    o->have_block = block != NULL;
    return 0;
}

static void problem_of(const model_options *o, clconv_strategy s,
                       clconv_problem *p)
{
    memset(p, 0, sizeof *p);
    p->dims = o->dims;
    memcpy(p->size, o->size, sizeof p->size);
    p->mask_width = o->mask;
    cli_filter_apply(&o->filter, 0, p); /* checked by parse */
    p->strategy = s;
    p->tile = o->tile ? o->tile : clconv_default_tile(s, o->dims, o->mask);
}

/* Each strategy's counts over --size (a block, or every kind of tile). */
static int model_cases(const model_options *o, int s0, int s1)
{
    int rc = CLI_EXIT_OK, first = 1;
    if (o->json)
        printf("[\n");
    for (int s = s0; s < s1 && rc == CLI_EXIT_OK; ++s) {
        if (!clconv_model_has_strategy((clconv_strategy)s))
            continue;
        clconv_problem p;
        problem_of(o, (clconv_strategy)s, &p);
        rc = model_sized(&p, o, first);
        first = 0;
    }
    if (o->json)
        printf("\n]\n");
    return rc;
}

/* Each strategy's interior tile, a row each: JSON or a table. */
static int model_interiors(const model_options *o, int s0, int s1)
{
    cli_rows *t = cli_rows_new();
    if (!t) {
        cli_error("out of memory");
        return CLI_EXIT_UNSUPPORTED;
    }
    for (int s = s0; s < s1; ++s) {
        clconv_problem p;
        problem_of(o, (clconv_strategy)s, &p);
        if (clconv_model_has_strategy((clconv_strategy)s))
            model_interior(t, &p, o->warp);
    }
    const cli_outputs out = {o->json ? "-" : NULL, NULL};
    int rc = o->json ? cli_rows_emit(t, &out)
                     : cli_rows_text(t, model_interior_columns,
                                     model_interior_ncolumns, stdout);
    cli_rows_free(t);
    return rc ? CLI_EXIT_UNSUPPORTED : CLI_EXIT_OK;
}

int cli_model_main(int argc, char **argv)
{
    /* The methods' cost model (model_methods.c). */
    if (cli_model_methods_wanted(argc, argv))
        return cli_model_methods_main(argc, argv);
    model_options o;
    if (parse(argc, argv, &o))
        return CLI_EXIT_USAGE;
    const int peak = o.npeak || (o.device && !o.dims);
    if (o.table || peak) {
        if (o.table)
            model_print_reduction_tables();
        if (o.table && peak)
            printf("\n");
        return peak ? model_peak_tables(&o) : CLI_EXIT_OK;
    }
    if (o.strategy >= 0 && !clconv_model_has_strategy((clconv_strategy)o.strategy)) {
        cli_error("model: the model covers naive, output_tile, input_tile "
                  "and cached_halo, not %s",
                  clconv_strategy_name((clconv_strategy)o.strategy));
        return CLI_EXIT_USAGE;
    }
    const int s0 = o.strategy < 0 ? 0 : o.strategy;
    const int s1 = o.strategy < 0 ? CLCONV_STRATEGY_COUNT : o.strategy + 1;
    /* A case that cannot be counted is one line and nothing else. */
    for (int s = s0; s < s1; ++s) {
        clconv_problem p;
        clconv_model_counts c;
        clconv_model_interior m;
        if (!clconv_model_has_strategy((clconv_strategy)s))
            continue;
        problem_of(&o, (clconv_strategy)s, &p);
        /* --block: that tile must be in every strategy's grid, checked
         * here so that a block outside it prints no header first. */
        clconv_status st = o.have_block ? clconv_model_block(&p, o.block, &c)
                           : o.have_size ? clconv_model_problem(&p, &c)
                                         : clconv_model_interior_of(&p, o.warp,
                                                                    &m);
        if (st != CLCONV_OK) {
            cli_error("model: %s", clconv_last_error());
            return cli_exit_code(st);
        }
    }
    if (!o.json) {
        clconv_problem p;
        char filter[160];
        problem_of(&o, (clconv_strategy)s0, &p);
        cli_filter_describe(&p, 0, filter, sizeof filter);
        printf("%dD, mask %d%s, %s\n", o.dims, o.mask, filter,
               o.have_block ? "one tile of the grid"
               : o.have_size ? "every tile of the grid"
                             : "an interior tile (no ghost cells)");
    }
    return o.have_size ? model_cases(&o, s0, s1) : model_interiors(&o, s0, s1);
}
