/* clconv-mpi's entry point: `apply` and `bench --mpi` run over MPI ranks
 * (MPI_Init here: under mpirun, or alone as one rank); every other
 * command is clconv's own, without MPI. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cli_mpi.h"

/* A rank whose launcher dies (mpirun killed by SIGKILL: a batch system's
 * hard kill, `timeout -s KILL`) is ended by MPI's runtime with _exit,
 * which leaves OUT's temporary file behind: SIGTERM instead, whose
 * handler removes it (clconv_temp_watch), as when mpirun stops the
 * ranks itself. */
static void term_with_launcher(void)
{
#ifdef __linux__
    /* only under a launcher, which waits for its ranks: the signal comes
     * when the thread that started us ends, and another parent's may end
     * before its process does */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") &&
        !getenv("PMI_RANK"))
        return;
    const pid_t parent = getppid();
    if (parent > 1 && prctl(PR_SET_PDEATHSIG, SIGTERM) == 0 &&
        getppid() != parent) /* it died before the call */
        raise(SIGTERM);
#endif
}

static int has_flag(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], flag) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (cli_std_fds_open() != 0)
        return CLI_EXIT_UNSUPPORTED; /* nowhere to say it */
    const int apply = argc > 1 && strcmp(argv[1], "apply") == 0;
    const int bench = argc > 1 && strcmp(argv[1], "bench") == 0 &&
                      has_flag(argc - 1, argv + 1, "--mpi");
    if (!apply && !bench)
        return cli_main(argc, argv);
    if (cli_wants_help(argc - 1, argv + 1)) {
        (apply ? cli_apply_mpi_usage : cli_bench_mpi_usage)(stdout);
        cli_stdout_note();
        return cli_flush_stdout(CLI_EXIT_OK);
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        cli_error("MPI_Init failed");
        return CLI_EXIT_UNSUPPORTED;
    }
    /* Failed MPI calls return their code: clconv names them. */
    CLI_MPI_CHECK(MPI_COMM_WORLD, MPI_Comm_set_errhandler(
                                      MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    term_with_launcher();
    int code = apply ? cli_apply_mpi_main(argc - 1, argv + 1)
                     : cli_bench_mpi_main(argc - 1, argv + 1);
    if (clconv_mpi_check(MPI_Finalize(), "MPI_Finalize", __FILE__,
                         __LINE__) != CLCONV_OK) {
        cli_error("%s", clconv_mpi_last_error());
        code = code ? code : CLI_EXIT_UNSUPPORTED;
    }
    /* rank 0's summary or table, as one process's (cli_main) */
    return cli_flush_stdout(code);
}
