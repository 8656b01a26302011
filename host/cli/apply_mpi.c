/* `mpirun -n N clconv apply IN.npy OUT.npy --mask SPEC` (clconv-mpi):
 * each rank reads its slab of IN with the halo rows (or fetches the halo
 * from its neighbours, --halo exchange), computes it on its device, and
 * writes it into a temporary OUT that rank 0 renames into place once
 * every rank succeeded (an empty IN, an axis of length 0: rank 0 alone,
 * as one process). Every step is agreed: a failure on any rank is that
 * rank's message and the same exit code on every rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apply.h"
#include "cli_mpi.h"

void cli_apply_mpi_usage(FILE *f)
{
    cli_apply_usage(f);
    fputs("Under mpirun (clconv-mpi, or clconv when it finds clconv-mpi beside\n"
          "it): IN must be a .npy; each rank convolves a slab along the slowest\n"
          "axis on its own device (the node-local rank picks among --device's\n"
          "matches, default the GPUs, else the CPU) and writes it into OUT.\n"
          "  --halo read      each rank reads its halo rows from IN (default)\n"
          "  --halo exchange  ranks send each other their halo rows (MPI)\n",
          f);
}

/* The MPI-only options removed from argv; the rest is apply's. */
static int take_halo(int *argc, char **argv, int *exchange)
{
    *exchange = 0;
    for (int i = 1; i < *argc; ++i) {
        const char *v = NULL;
        int j = i, r = cli_opt_value(*argc, argv, &j, "--halo", &v);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        if (strcmp(v, "read") != 0 && strcmp(v, "exchange") != 0) {
            cli_error("--halo: '%s' is not read or exchange", v);
            return -1;
        }
        *exchange = strcmp(v, "exchange") == 0;
        int drop = j - i + 1;
        memmove(argv + i, argv + j + 1, (size_t)(*argc - j - 1) * sizeof *argv);
        *argc -= drop;
        --i;
    }
    return 0;
}

static int check_options(const apply_options *o)
{
    size_t n = strlen(o->in);
    if (strcmp(o->in, "-") == 0) {
        cli_error("apply: under MPI, IN cannot be standard input: each rank "
                  "reads its rows of a .npy file (name a file, or run one "
                  "process)");
        return -1;
    }
    if (n < 4 || strcasecmp(o->in + n - 4, ".npy") != 0) {
        cli_error("apply: under MPI, IN must be a .npy (images: run clconv "
                  "apply on one process)");
        return -1;
    }
    if (o->float_out) {
        cli_error("apply: --float is for image inputs");
        return -1;
    }
    if (strcmp(o->in, o->out) == 0 || clconv_file_same(o->in, o->out)) {
        cli_error("apply: '%s' is the input; choose another output", o->out);
        return -1;
    }
    if (apply_is_image_name(o->out)) {
        cli_error("apply: '%s': a .npy input writes a .npy output", o->out);
        return -1;
    }
    /* As one process checks OUT (a folder, a missing or unwritable folder:
     * before any work); then what only MPI refuses: the ranks write their
     * rows into one regular file at once, so a stream cannot be OUT. */
    char *target = NULL;
    int stream = 0;
    if (clconv_output_check(o->out) != CLCONV_OK ||
        clconv_output_target(o->out, &target, NULL, &stream) != CLCONV_OK) {
        cli_error("apply: %s", clconv_last_error());
        return -1;
    }
    free(target);
    if (stream) {
        cli_error("apply: '%s' is standard output, a FIFO or a device: "
                  "under MPI the ranks write OUT's rows at once into a "
                  "regular file (name a file, or run one process)",
                  o->out);
        return -1;
    }
    return 0;
}

/* One rank's work. */
typedef struct job {
    MPI_Comm comm;
    apply_options o;
    int exchange;
    clconv_mpi_npy_in in;
    clconv_mpi_npy_out out;
    clconv_mask mask;
    clconv_problem p;
    clconv_mpi_block b;
    clconv_elem out_elem; /* OUT's (--out-dtype) */
    cli_mpi_device dev;
    float *lin, *lout;
    clconv_mpi_times t;
    clconv_verdict verdict; /* --verify: this rank's block */
} job;

/* The problem from IN's shape, the mask and the filter options, as one
 * process makes it (a channel axis is a mask 1 wide along it): the exit
 * code. The checks of the options against the shape are the same on
 * every rank (each read the same header): rank 0 prints them. */
static int problem_of(job *j)
{
    const clconv_array *a = &j->in.shape;
    apply_options *o = &j->o;
    if (apply_array_axes(o, a->dims, a->shape) ||
        apply_out_elem(o, j->in.info.dtype, &j->out_elem))
        return CLI_EXIT_USAGE;
    if (o->channel_axis != CLI_NO_CHANNEL_AXIS) {
        const int ca = o->channel_axis < 0 ? o->channel_axis + a->dims
                                           : o->channel_axis;
        o->filter.naxes = 0;
        for (int k = 0; k < a->dims; ++k)
            if (k != ca)
                o->filter.axes[o->filter.naxes++] = k;
    }
    int code = cli_mpi_step(
        j->comm,
        /* the library's message names --mask itself */
        cli_mpi_lib(clconv_mask_load(o->mask,
                                     o->filter.naxes ? o->filter.naxes
                                                     : a->dims,
                                     &j->mask),
                    NULL),
        CLI_EXIT_USAGE);
    /* a mask file can differ between the ranks' hosts: every check
     * below and every rank's rows then take the same one */
    if (code == CLI_EXIT_OK)
        code = cli_mpi_step(j->comm,
                            clconv_mpi_same_mask(j->comm, &j->mask, o->mask),
                            CLI_EXIT_USAGE);
    if (code != CLI_EXIT_OK)
        return code;
    clconv_problem *p = &j->p;
    memset(p, 0, sizeof *p);
    p->dims = a->dims;
    for (int d = 0; d < 3; ++d)
        p->size[d] = d < a->dims ? a->shape[a->dims - 1 - d] : 1;
    if (apply_filter_problem(o, &j->mask, p))
        return CLI_EXIT_USAGE;
    return cli_mpi_step(j->comm,
                        cli_mpi_lib(clconv_problem_validate(p), o->in),
                        CLI_EXIT_USAGE);
}

/* The block's rows (and, unless exchanged, its halo) from IN. */
static clconv_status read_block(job *j)
{
    const size_t n = clconv_mpi_local_elements(&j->b);
    j->lin = malloc((n ? n : 1) * sizeof(float));
    j->lout = malloc((n ? n : 1) * sizeof(float));
    if (!j->lin || !j->lout)
        return clconv_mpi_fail(CLCONV_ENOMEM,
                               "out of memory for 2 x %zu floats", n);
    const clconv_mpi_block *b = &j->b;
    if (j->exchange)
        return clconv_mpi_npy_read_rows(&j->in, b->row, b->begin,
                                        b->end - b->begin,
                                        j->lin + b->halo_lo * b->row);
    return clconv_mpi_npy_read_block(&j->in, &j->p, b, j->lin);
}

/* An exchange whose MPI calls failed ends the job here, before any
 * other collective (peers may wait for this rank's halos). */
static clconv_status compute(job *j)
{
    if (j->exchange) {
        clconv_status st = clconv_mpi_convolve(j->comm, j->dev.session, &j->p,
                                               &j->b, j->lin, j->mask.values,
                                               j->lout, &j->t);
        cli_mpi_end_if_broken(j->comm, &j->out);
        return st;
    }
    return clconv_mpi_convolve_local(j->dev.session, &j->p, &j->b, j->lin,
                                     j->mask.values, j->lout, &j->t);
}

/* --verify: the block against the double reference of its local arrays
 * (the halo rows are the neighbours' input rows, so the reference of the
 * block's rows is the whole array's). *bad: out of bound somewhere. */
static clconv_status verify_block(job *j, int *bad)
{
    const clconv_mpi_block *b = &j->b;
    *bad = 0;
    if (b->begin == b->end)
        return CLCONV_OK;
    clconv_problem local = j->p, own = j->p;
    local.size[b->axis] = clconv_mpi_local_rows(b);
    own.size[b->axis] = b->end - b->begin;
    const size_t n = clconv_mpi_local_elements(b), off = b->halo_lo * b->row;
    double *ref = malloc(n * sizeof *ref), *mag = malloc(n * sizeof *mag);
    clconv_status st = ref && mag ? CLCONV_OK
                                  : clconv_mpi_fail(CLCONV_ENOMEM,
                                                    "out of memory");
    if (st == CLCONV_OK)
        st = cli_mpi_lib(clconv_reference(&local, j->lin, j->mask.values,
                                          ref, mag),
                         "reference");
    clconv_verdict *v = &j->verdict;
    if (st == CLCONV_OK) {
        /* The bound of the method the rank ran (the direct method's gave
         * the FFT a false FAIL on data of a wide range). */
        double scale, floor;
        clconv_verify_bound(&local, j->p.method, j->lin, j->mask.values,
                            &scale, &floor);
        clconv_verify_with(&own, j->lout + off, ref + off, mag + off, scale,
                           floor, v);
        *bad = !v->ok;
        if (!v->ok)
            st = clconv_mpi_fail(CLCONV_EINVAL,
                                 "verification failed: %zu element(s) out of "
                                 "bound, worst at index %zu: got %.9g "
                                 "expected %.9g; nothing written",
                                 v->failures,
                                 b->begin * b->row + v->worst_index,
                                 v->worst_got, v->worst_expected);
    }
    free(ref);
    free(mag);
    return st;
}

/* Every rank's flag: is it set anywhere? */
static int anywhere(MPI_Comm comm, int flag)
{
    int any = flag;
    CLI_MPI_CHECK(comm,
                  MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, comm));
    return any;
}

/* The FFT chosen or asked for, and the input holds NaN or Inf on some
 * rank (a transform would spread it over its slab), or values large
 * enough to overflow the transform's float32 sums: as one process does
 * (clconv_method_choose_for_input), auto then takes the best other
 * method and an asked-for FFT is unsupported: the exit code (agreed). */
static int method_for_input(job *j)
{
    if (j->p.method != CLCONV_METHOD_FFT)
        return CLI_EXIT_OK;
    const clconv_mpi_block *b = &j->b;
    const float *own = j->lin + b->halo_lo * b->row;
    int nonfinite = 0;
    float big = 0.0f; /* the largest finite magnitude */
    for (size_t i = 0; i < (b->end - b->begin) * b->row && !nonfinite; ++i) {
        nonfinite = !isfinite(own[i]);
        big = fabsf(own[i]) > big ? fabsf(own[i]) : big;
    }
    float every = big;
    CLI_MPI_CHECK(j->comm, MPI_Allreduce(&big, &every, 1, MPI_FLOAT, MPI_MAX,
                                         j->comm));
    /* what some rank holds: a NaN, else the largest magnitude */
    const float held = anywhere(j->comm, nonfinite) ? NAN : every;
    clconv_problem asked = j->p;
    asked.method = j->o.method;
    return cli_mpi_step(
        j->comm,
        cli_mpi_lib(clconv_method_choose_for_input(j->dev.session, &asked,
                                                   j->mask.values, &held, 1,
                                                   &j->p.method),
                    "--method"),
        0);
}

/* Read, compute, verify: the exit code (agreed). */
static int run(job *j)
{
    int code = cli_mpi_step(j->comm, read_block(j), 0);
    if (code == CLI_EXIT_OK)
        code = method_for_input(j);
    if (code != CLI_EXIT_OK)
        return code;
    clconv_status st = compute(j);
    /* An FFT auto chose that a rank's device refuses: every rank runs the
     * direct path (agreed), as one process does. */
    if (anywhere(j->comm, apply_fft_falls_back(&j->o, &j->p, st))) {
        j->p.method = CLCONV_METHOD_DIRECT;
        st = compute(j);
    }
    if ((code = cli_mpi_step(j->comm, st, 0)) != CLI_EXIT_OK || !j->o.verify)
        return code;
    int bad = 0;
    st = verify_block(j, &bad);
    if (anywhere(j->comm, bad))
        return cli_mpi_step(j->comm, st, CLI_EXIT_VERIFY);
    return cli_mpi_step(j->comm, st, 0);
}

/* What the summary says of every rank, on rank 0: the slowest rank's
 * compute time and, with --verify, the largest error (worst); the outputs
 * NaN or Inf as in the reference and those beyond float32's range,
 * summed (all). */
typedef struct totals {
    double worst[2];
    unsigned long long all[2];
} totals;

/* Gathered before OUT is renamed: a failed reduction ends the job with
 * the old OUT in place. */
static void gather_totals(const job *j, totals *t)
{
    double mine[2] = {j->t.total_s, j->verdict.max_err};
    unsigned long long counts[2] = {j->verdict.nonfinite,
                                    j->verdict.overflowed};
    memset(t, 0, sizeof *t);
    CLI_MPI_CHECK(j->comm, MPI_Reduce(mine, t->worst, 2, MPI_DOUBLE, MPI_MAX,
                                      0, j->comm));
    CLI_MPI_CHECK(j->comm, MPI_Reduce(counts, t->all, 2,
                                      MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
                                      j->comm));
}

static void summary(const job *j, const totals *t, double seconds)
{
    const double *worst = t->worst;
    const unsigned long long *all = t->all;
    if (j->b.rank != 0)
        return;
    char size[64], filter[160];
    cli_format_size(j->p.size, j->p.dims, size, sizeof size);
    cli_filter_describe(&j->p, 1, filter, sizeof filter);
    printf("%s -> %s: %dD %s, mask %s%s, %s %s tile %d on %d ranks (halo "
           "%s), compute %.3f ms (slowest rank), %.3f s in all",
           j->o.in, j->o.out, j->p.dims, size, j->o.mask, filter,
           clconv_method_name(j->p.method),
           clconv_strategy_name(j->p.strategy), j->p.tile, j->b.nranks,
           j->exchange ? "exchanged" : "read", worst[0] * 1e3, seconds);
    /* as one process says it: never a silent pass of NaN against NaN */
    if (j->o.verify)
        printf(", verified max_err %.3g", worst[1]);
    if (j->o.verify && all[0])
        printf(" (%llu output(s) NaN or Inf as in the reference: the input "
               "holds NaN or Inf)",
               all[0]);
    if (j->o.verify && all[1])
        printf(" (%llu output(s) beyond float32's range, inf)", all[1]);
    printf("\n");
}

/* Open IN, make the problem, open the device, choose the variant, split,
 * create OUT's temporary: the exit code (agreed). An empty IN stops
 * after the open (apply_empty). */
static int prepare(job *j)
{
    int code = cli_mpi_step(j->comm,
                            clconv_mpi_npy_open(j->comm, j->o.in, &j->in),
                            CLI_EXIT_USAGE);
    if (code == CLI_EXIT_OK && j->in.empty) /* every rank read it so */
        return code;
    if (code == CLI_EXIT_OK) {
        cli_error_mute(j->b.rank != 0);
        code = problem_of(j);
        cli_error_mute(0);
    }
    if (code == CLI_EXIT_OK)
        code = cli_mpi_open_device(j->comm, j->o.device, &j->dev);
    if (code != CLI_EXIT_OK)
        return code;
    clconv_status st = cli_mpi_choose(cli_mpi_device_info(&j->dev),
                                      j->o.strategy, j->o.tile, &j->p);
    /* The method of the whole problem, as one process picks it (--method
     * or auto): every rank's slab then runs it (direct and separable slabs
     * give the same bytes). */
    j->p.method = clconv_method_choose(j->dev.session, &j->p, j->mask.values);
    if (st == CLCONV_OK)
        st = clconv_mpi_decompose(j->comm, &j->p, &j->b);
    if ((code = cli_mpi_step(j->comm, st, 0)) != CLI_EXIT_OK)
        return code;
    /* exit 2 for OUT's folder (missing, not writable), 3 for the
     * system's failures (no space), as one process */
    return cli_mpi_step(j->comm,
                        clconv_mpi_npy_create(j->comm, j->o.out,
                                              j->in.shape.dims,
                                              j->in.shape.shape, j->out_elem,
                                              &j->out),
                        0);
}

/* An empty IN (an axis of length 0) has no rows to split: rank 0 runs
 * apply as one process does (the mask, filter and --device checked as
 * for any input, OUT written with the same bytes, its summary), the
 * others wait for its exit code. */
static int apply_empty(MPI_Comm comm, int rank, int argc, char **argv)
{
    int code = rank == 0 ? cli_apply_main(argc, argv) : CLI_EXIT_OK;
    CLI_MPI_CHECK(comm, MPI_Bcast(&code, 1, MPI_INT, 0, comm));
    return code;
}

int cli_apply_mpi_main(int argc, char **argv)
{
    job j;
    totals tot;
    memset(&j, 0, sizeof j);
    memset(&tot, 0, sizeof tot);
    j.comm = MPI_COMM_WORLD;
    j.in.fd = j.out.fd = -1;
    double t0 = MPI_Wtime();
    CLI_MPI_CHECK(j.comm, MPI_Comm_rank(j.comm, &j.b.rank));
    /* Every rank parses the same arguments: rank 0 says what is wrong. */
    cli_error_mute(j.b.rank != 0);
    int bad = take_halo(&argc, argv, &j.exchange) ||
              apply_parse(argc, argv, &j.o) || check_options(&j.o);
    cli_error_mute(0);
    int code = anywhere(j.comm, bad) ? CLI_EXIT_USAGE : prepare(&j);
    const int empty = code == CLI_EXIT_OK && j.in.empty;
    if (empty)
        code = apply_empty(j.comm, j.b.rank, argc, argv);
    else if (code == CLI_EXIT_OK) {
        code = run(&j);
        clconv_status st = CLCONV_OK;
        if (code == CLI_EXIT_OK)
            gather_totals(&j, &tot);
        if (code == CLI_EXIT_OK)
            st = clconv_mpi_npy_write_rows(&j.out, j.b.row, j.b.begin,
                                           j.b.end - j.b.begin,
                                           j.lout + j.b.halo_lo * j.b.row);
        st = clconv_mpi_npy_commit(j.comm, &j.out,
                                   code == CLI_EXIT_OK ? st : CLCONV_EIO);
        if (code == CLI_EXIT_OK)
            code = cli_mpi_step(j.comm, st, 0);
    }
    if (code == CLI_EXIT_OK && !empty)
        summary(&j, &tot, MPI_Wtime() - t0);
    free(j.lin);
    free(j.lout);
    cli_mpi_close_device(&j.dev);
    clconv_mpi_npy_close(&j.in);
    clconv_mask_free(&j.mask);
    return code;
}
