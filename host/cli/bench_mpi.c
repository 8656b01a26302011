/* `mpirun -n N clconv bench --mpi`: strong and weak scaling of the 3D
 * standard problems over the ranks, each on its own device; per-rank
 * compute, halo exchange and (with --io) file I/O times, the efficiency
 * against one rank alone, rows as text, JSON or CSV (rank 0 writes). */
#include <stdlib.h>
#include <string.h>

#include "bench_mpi.h"

void cli_bench_mpi_usage(FILE *f)
{
    fputs(
        "usage: mpirun -n N clconv bench --mpi [--size E[,E..]] [--mask W[,W..]]\n"
        "         [--scaling strong|weak|strong,weak] [--reps R] [--warmup W]\n"
        "         [--device SEL] [--strategy S|auto] [--tile T]\n"
        "         [--no-baseline] [--io DIR] [--seed S] [--json [F]] [--csv [F]]\n"
        "3D problems E^3 (strong: the whole problem split over the ranks;\n"
        "weak: E^3 per rank, E x E x (E N) in all), default E 512, masks 3,5.\n"
        "Each rank computes its slab on its own device (node-local rank modulo\n"
        "the GPUs, else the CPU, or --device's matches) while its halo rows\n"
        "travel (MPI_Isend/MPI_Irecv), then the rows that need them. Times are\n"
        "the median of R runs after W warm-ups (default 3 and 1) of the slowest\n"
        "rank; rank 0 alone runs the one-rank problem first (not with\n"
        "--no-baseline) for the efficiency: strong t1 / (N tN), weak t1 / tN;\n"
        "the output of a strong case is compared with one rank's (identical).\n"
        "--io DIR also writes the input as DIR/clconv-bench-mpi-in.npy and times\n"
        "end to end: read block and halo, compute, write the output .npy.\n",
        f);
}

/* One option of argv[*i]: 1 taken, 0 not this, -1 error. */
static int parse_value(int argc, char **argv, int *i, bench_mpi_options *o)
{
    const char *v;
    int x[8], r, n;
    if ((r = cli_opt_value(argc, argv, i, "--size", &v))) {
        if (r < 0 ||
            cli_parse_int_list("--size", v, 1, 1 << 20, x, 8, &o->nsizes))
            return -1;
        for (int k = 0; k < o->nsizes; ++k)
            o->sizes[k] = (size_t)x[k];
    } else if ((r = cli_opt_value(argc, argv, i, "--mask", &v))) {
        if (r < 0 ||
            cli_parse_int_list("--mask", v, 1, 1023, o->masks, 8,
                               &o->nmasks))
            return -1;
        for (int k = 0; k < o->nmasks; ++k)
            if (o->masks[k] % 2 == 0)
                return cli_error("--mask: %d is even (widths are odd)",
                                 o->masks[k]),
                       -1;
    } else if ((r = cli_opt_value(argc, argv, i, "--scaling", &v))) {
        char e[64];
        const char *rest = v;
        if (r < 0)
            return -1;
        o->strong = o->weak = 0;
        while ((r = cli_list_next("--scaling", v, &rest, e, sizeof e)) > 0) {
            if (strcmp(e, "strong") == 0)
                o->strong = 1;
            else if (strcmp(e, "weak") == 0)
                o->weak = 1;
            else
                return cli_error("--scaling: strong, weak or strong,weak "
                                 "(got '%s')",
                                 v),
                       -1;
        }
        if (r < 0)
            return -1;
    } else if ((r = cli_opt_value(argc, argv, i, "--io", &v))) {
        if (r < 0)
            return -1;
        o->io_dir = v;
    } else if ((r = cli_opt_value(argc, argv, i, "--strategy", &v))) {
        if (r < 0 || cli_parse_strategy(v, CLI_TAKES_AUTO, &n))
            return -1;
        o->strategy = n == CLI_STRATEGY_AUTO ? -1 : n;
    } else if ((r = cli_opt_value(argc, argv, i, "--tile", &v))) {
        long t;
        if (r < 0 || cli_parse_int("--tile", v, 1, 65536, &t))
            return -1;
        o->tile = (int)t;
    } else {
        return 0;
    }
    return 1;
}

static int parse(int argc, char **argv, bench_mpi_options *o)
{
    memset(o, 0, sizeof *o);
    *o = (bench_mpi_options){.sizes = {512}, .nsizes = 1, .masks = {3, 5},
                             .nmasks = 2, .strong = 1, .weak = 1, .reps = 3,
                             .warmup = 1, .strategy = -1, .baseline = 1,
                             .device = getenv("CLCONV_DEVICE")};
    if (cli_default_seed(&o->seed))
        return -1;
    for (int i = 1; i < argc; ++i) {
        int r = parse_value(argc, argv, &i, o);
        if (r == 0)
            r = cli_parse_run_option(argc, argv, &i, 1, &o->device, &o->reps,
                                     &o->warmup, &o->seed);
        if (r == 0)
            r = cli_parse_output_option(argc, argv, &i, 0, &o->out);
        if (r == 0 && (cli_opt_flag(argv, i, "--mpi") ||
                       cli_opt_flag(argv, i, "--no-baseline"))) {
            o->baseline &= !cli_opt_flag(argv, i, "--no-baseline");
            r = 1;
        }
        if (r < 0)
            return -1;
        if (r == 0) {
            cli_unknown_option("bench --mpi", argv[i]);
            return -1;
        }
    }
    return cli_outputs_check(&o->out);
}

/* A row: one rank of one case. */
typedef struct row_ref {
    const bench_mpi_case *c;
    int rank;
} row_ref;

static void put_row(cli_rows *t, const void *items, size_t i)
{
    const row_ref *r = (const row_ref *)items + i;
    const bench_mpi_case *c = r->c;
    const bench_mpi_rank *k = &c->rank[r->rank];
    cli_row_begin(t);
    cli_put_str(t, "scaling", c->weak ? "weak" : "strong");
    cli_put_int(t, "dims", c->p.dims);
    cli_put_size(t, "size", &c->p);
    cli_put_int(t, "mask", c->p.mask_width);
    cli_put_str(t, "strategy", clconv_strategy_name(c->p.strategy));
    cli_put_int(t, "tile", c->p.tile);
    cli_put_int(t, "ranks", c->ranks);
    cli_put_int(t, "rank", r->rank);
    cli_put_str(t, "device", k->device);
    cli_put_int(t, "rows", (long long)k->rows);
    cli_put_int(t, "halo_rows", (long long)k->halo_rows);
    cli_put_num(t, "compute_ms", "%.4f", k->interior_ms + k->border_ms);
    cli_put_num(t, "interior_ms", "%.4f", k->interior_ms);
    cli_put_num(t, "border_ms", "%.4f", k->border_ms);
    cli_put_num(t, "exchange_ms", "%.4f", k->post_ms + k->wait_ms);
    cli_put_num(t, "wait_ms", "%.4f", k->wait_ms);
    cli_put_num(t, "rank_ms", "%.4f", k->total_ms);
    cli_put_num(t, "job_ms", "%.4f", c->job_ms);
    if (c->t1_ms > 0) {
        cli_put_num(t, "t1_ms", "%.4f", c->t1_ms);
        cli_put_num(t, "efficiency", "%.4f", c->efficiency);
    } else {
        cli_put_null(t, "t1_ms");
        cli_put_null(t, "efficiency");
    }
    if (c->identical >= 0)
        cli_put_bool(t, "identical", c->identical);
    else
        cli_put_null(t, "identical");
    if (c->end_to_end_ms > 0) {
        cli_put_num(t, "io_read_ms", "%.4f", k->io_read_ms);
        cli_put_num(t, "io_write_ms", "%.4f", k->io_write_ms);
        cli_put_num(t, "end_to_end_ms", "%.4f", c->end_to_end_ms);
    }
    cli_put_str(t, "version", CLCONV_VERSION_STRING);
}

static void print_case(const bench_mpi_case *c)
{
    char size[64];
    cli_format_size(c->p.size, c->p.dims, size, sizeof size);
    printf("%-6s %-14s mask %d  %s T=%d  %d rank(s): %.3f ms", c->weak ? "weak"
           : "strong", size, c->p.mask_width,
           clconv_strategy_name(c->p.strategy), c->p.tile, c->ranks,
           c->job_ms);
    if (c->t1_ms > 0)
        printf("  1 rank %.3f ms  efficiency %.1f%%", c->t1_ms,
               100 * c->efficiency);
    if (c->identical >= 0)
        printf("  %s", c->identical ? "identical" : "DIFFERS");
    if (c->end_to_end_ms > 0)
        printf("  end-to-end %.1f ms", c->end_to_end_ms);
    printf("\n");
    for (int r = 0; r < c->ranks; ++r) {
        const bench_mpi_rank *k = &c->rank[r];
        printf("    rank %d %-28.28s rows %-6.0f compute %.3f ms (interior "
               "%.3f) exchange %.3f ms (wait %.3f)",
               r, k->device, k->rows, k->interior_ms + k->border_ms,
               k->interior_ms, k->post_ms + k->wait_ms, k->wait_ms);
        if (c->end_to_end_ms > 0)
            printf(" read %.1f ms write %.1f ms", k->io_read_ms,
                   k->io_write_ms);
        printf("\n");
    }
}

/* Every case of the options, measured in order: the exit code. */
static int measure_all(const bench_mpi_options *o, cli_mpi_device *dev,
                       bench_mpi_case *cases, int *ncases)
{
    int code = CLI_EXIT_OK, n;
    CLI_MPI_CHECK(MPI_COMM_WORLD, MPI_Comm_size(MPI_COMM_WORLD, &n));
    *ncases = 0;
    for (int w = 0; w < 2; ++w)
        for (int s = 0; s < o->nsizes && code == CLI_EXIT_OK; ++s)
            for (int m = 0; m < o->nmasks && code == CLI_EXIT_OK; ++m) {
                if (!(w ? o->weak : o->strong))
                    continue;
                bench_mpi_case *c = &cases[(*ncases)++];
                const size_t e = o->sizes[s];
                c->weak = w;
                c->p = (clconv_problem){.dims = 3, .size = {e, e, e},
                                        .mask_width = o->masks[m], .tile = 1};
                if (w)
                    c->p.size[2] = e * (size_t)n;
                code = bench_mpi_measure(MPI_COMM_WORLD, o, dev, c);
                if (code == CLI_EXIT_OK && c->rank && cli_outputs_text(&o->out)) {
                    print_case(c);
                    fflush(stdout);
                    cli_stdout_note();
                }
            }
    return code;
}

static int emit(const bench_mpi_options *o, const bench_mpi_case *cases,
                int ncases)
{
    size_t n = 0;
    for (int k = 0; k < ncases; ++k)
        n += (size_t)cases[k].ranks;
    row_ref *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows)
        return -1;
    n = 0;
    for (int k = 0; k < ncases; ++k)
        for (int r = 0; r < cases[k].ranks; ++r)
            rows[n++] = (row_ref){&cases[k], r};
    int bad = cli_emit(&o->out, rows, n, put_row);
    free(rows);
    return bad;
}

int cli_bench_mpi_main(int argc, char **argv)
{
    bench_mpi_options o;
    int rank = 0;
    CLI_MPI_CHECK(MPI_COMM_WORLD, MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    /* every rank parses the same argv: rank 0 says what is wrong, once */
    cli_error_mute(rank != 0);
    int bad = parse(argc, argv, &o) != 0, any = bad;
    cli_error_mute(0);
    CLI_MPI_CHECK(MPI_COMM_WORLD, MPI_Allreduce(&bad, &any, 1, MPI_INT,
                                                MPI_MAX, MPI_COMM_WORLD));
    if (any)
        return CLI_EXIT_USAGE;
    /* --json/--csv FILE checked before any work, as one process does
     * (rank 0 writes them) */
    int code = rank == 0 ? cli_outputs_writable(&o.out) : CLI_EXIT_OK;
    CLI_MPI_CHECK(MPI_COMM_WORLD,
                  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (code != CLI_EXIT_OK)
        return code;
    cli_mpi_device dev;
    code = cli_mpi_open_device(MPI_COMM_WORLD, o.device, &dev);
    if (code != CLI_EXIT_OK)
        return code;
    bench_mpi_case cases[2 * 8 * 8];
    int ncases = 0;
    memset(cases, 0, sizeof cases);
    code = measure_all(&o, &dev, cases, &ncases);
    if (rank == 0 && code == CLI_EXIT_OK && emit(&o, cases, ncases))
        code = CLI_EXIT_UNSUPPORTED;
    for (int k = 0; k < ncases; ++k)
        free(cases[k].rank);
    cli_mpi_close_device(&dev);
    return code;
}
