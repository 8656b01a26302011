/* `clconv bench --mpi`'s cases and measurements (bench_run_mpi.c), shared
 * with its command (bench_mpi.c). */
#ifndef CLCONV_CLI_BENCH_MPI_H
#define CLCONV_CLI_BENCH_MPI_H

#include "cli_mpi.h"

typedef struct bench_mpi_options {
    size_t sizes[8];
    int nsizes;
    int masks[8];
    int nmasks;
    int strong, weak;   /* which scalings */
    int reps, warmup;
    int strategy, tile; /* -1: auto */
    int baseline;       /* time one rank alone for the efficiency */
    const char *device;
    const char *io_dir; /* end-to-end through .npy files there, or NULL */
    uint64_t seed;
    cli_outputs out;
} bench_mpi_options;

/* What one rank measured in one case; rank 0 gathers every rank's. */
typedef struct bench_mpi_rank {
    double rows, halo_rows;
    double interior_ms, border_ms, post_ms, wait_ms, total_ms;
    double io_read_ms, io_write_ms, io_total_ms;
    char device[192];
} bench_mpi_rank;

/* One case: a scaling of one size and mask on every rank. */
typedef struct bench_mpi_case {
    int weak;
    clconv_problem p;       /* the global problem, strategy chosen */
    int ranks;
    double job_ms;          /* median over reps of the slowest rank */
    double t1_ms;           /* one rank alone (0: not measured) */
    double efficiency;      /* strong: t1 / (N job); weak: t1 / job */
    int identical;          /* -1 unknown, else output hash == one rank's */
    double end_to_end_ms;   /* read + compute + write, slowest rank */
    bench_mpi_rank *rank;   /* ranks entries on rank 0, else NULL */
} bench_mpi_case;

/* Measure one case on comm with this rank's device: the exit code
 * (agreed). */
int bench_mpi_measure(MPI_Comm comm, const bench_mpi_options *o,
                      cli_mpi_device *dev, bench_mpi_case *c);

#endif
