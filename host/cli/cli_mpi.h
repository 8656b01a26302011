/* The commands of clconv-mpi that run over MPI ranks (apply, bench
 * --mpi) and what they share: agreed steps and each rank's device. */
#ifndef CLCONV_CLI_MPI_H
#define CLCONV_CLI_MPI_H

#include "cli.h"
#include "clconv_mpi.h"

int cli_apply_mpi_main(int argc, char **argv);
void cli_apply_mpi_usage(FILE *f);
int cli_bench_mpi_main(int argc, char **argv);
void cli_bench_mpi_usage(FILE *f);

/* One step every rank took: CLI_EXIT_OK when st was CLCONV_OK on every
 * rank; else the failing rank's message, printed once (by rank 0), and on
 * every rank the exit code `code` (0: cli_exit_code of the agreed
 * status). */
int cli_mpi_step(MPI_Comm comm, clconv_status st, int code);
/* Record the library's last error for cli_mpi_step, after "what: "
 * (NULL: the message alone): st. */
clconv_status cli_mpi_lib(clconv_status st, const char *what);

/* After a failed MPI call (clconv_mpi_broken: peers may wait in a call
 * this rank left, an agreement or a halo exchange, which no later
 * collective reaches): print its message, remove OUT's temporary (out
 * may be NULL) and end every rank (MPI_Abort, exit 3). Else returns. */
void cli_mpi_end_if_broken(MPI_Comm comm, clconv_mpi_npy_out *out);
/* A command's own MPI call, checked: a failure is named (CALL failed:
 * MPI's message) and ends the job (cli_mpi_end_if_broken). */
#define CLI_MPI_CHECK(comm, call)                                             \
    cli_mpi_checked((comm), (call), #call, __FILE__, __LINE__)
void cli_mpi_checked(MPI_Comm comm, int err, const char *call,
                     const char *file, int line);

/* This rank's device (clconv_mpi_select_device) and a session on it. */
typedef struct cli_mpi_device {
    clconv_device_list list;
    size_t index;
    clconv_session *session;
} cli_mpi_device;
/* Collective; CLI_EXIT_OK or the exit code (message printed). */
int cli_mpi_open_device(MPI_Comm comm, const char *selector,
                        cli_mpi_device *d);
void cli_mpi_close_device(cli_mpi_device *d);
const clconv_device_info *cli_mpi_device_info(const cli_mpi_device *d);

/* Strategy and tile of the global problem p on dev: strategy >= 0 and
 * tile (0: its default) as given, else --strategy auto (tuning cache,
 * else the default), as clconv apply chooses. */
clconv_status cli_mpi_choose(const clconv_device_info *dev, int strategy,
                             int tile, clconv_problem *p);

#endif
