/* clconv's entry point: everything happens in the command table. */
#include "cli.h"

int main(int argc, char **argv)
{
    if (cli_std_fds_open() != 0)
        return CLI_EXIT_UNSUPPORTED; /* nowhere to say it */
    /* apply and bench --mpi under mpirun are clconv-mpi's (mpirun.c). */
    int code = cli_mpi_redirect(argc, argv);
    return code >= 0 ? code : cli_main(argc, argv);
}
