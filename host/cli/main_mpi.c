/* clconv-mpi's entry point: `apply` and `bench --mpi` run over MPI ranks
 * (MPI_Init here: under mpirun, or alone as one rank); every other
 * command is clconv's own, without MPI. */
#include <stdio.h>
#include <string.h>

#include "cli_mpi.h"

static int has_flag(int argc, char **argv, const char *flag)
{
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], flag) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const int apply = argc > 1 && strcmp(argv[1], "apply") == 0;
    const int bench = argc > 1 && strcmp(argv[1], "bench") == 0 &&
                      has_flag(argc - 1, argv + 1, "--mpi");
    if (!apply && !bench)
        return cli_main(argc, argv);
    if (cli_wants_help(argc - 1, argv + 1)) {
        (apply ? cli_apply_mpi_usage : cli_bench_mpi_usage)(stdout);
        return CLI_EXIT_OK;
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        cli_error("MPI_Init failed");
        return CLI_EXIT_UNSUPPORTED;
    }
    /* Failed MPI calls return their code: clconv names them. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int code = apply ? cli_apply_mpi_main(argc - 1, argv + 1)
                     : cli_bench_mpi_main(argc - 1, argv + 1);
    MPI_Finalize();
    return code;
}
