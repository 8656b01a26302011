/* What clconv-mpi's commands share: agreed steps (one message, printed
 * once), each rank's device and session, the variant of the problem. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_mpi.h"

int cli_mpi_step(MPI_Comm comm, clconv_status st, int code)
{
    clconv_status agreed = clconv_mpi_agree(comm, st);
    cli_mpi_end_if_broken(comm, NULL); /* this step's or an earlier one's */
    if (agreed == CLCONV_OK)
        return CLI_EXIT_OK;
    int rank = 0;
    CLI_MPI_CHECK(comm, MPI_Comm_rank(comm, &rank));
    if (rank == 0)
        cli_error("%s", clconv_mpi_last_error());
    return code ? code : cli_exit_code(agreed);
}

clconv_status cli_mpi_lib(clconv_status st, const char *what)
{
    if (st == CLCONV_OK)
        return st;
    if (!what)
        return clconv_mpi_fail(st, "%s", clconv_last_error());
    return clconv_mpi_fail(st, "%s: %s", what, clconv_last_error());
}

void cli_mpi_end_if_broken(MPI_Comm comm, clconv_mpi_npy_out *out)
{
    if (!clconv_mpi_broken())
        return;
    cli_error_mute(0); /* this rank's failure, whoever speaks for the
                          others */
    cli_error("%s", clconv_mpi_last_error());
    clconv_mpi_npy_discard(out); /* MPI_Abort removes nothing */
    /* mpirun forwards a rank's stderr as it reads it, and once MPI_Abort
     * reaches it may stop reading: give it the message first */
    fflush(stderr);
    nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
    MPI_Abort(comm, CLI_EXIT_UNSUPPORTED);
}

void cli_mpi_checked(MPI_Comm comm, int err, const char *call,
                     const char *file, int line)
{
    if (clconv_mpi_check(err, call, file, line) != CLCONV_OK)
        cli_mpi_end_if_broken(comm, NULL);
}

int cli_mpi_open_device(MPI_Comm comm, const char *selector,
                        cli_mpi_device *d)
{
    memset(d, 0, sizeof *d);
    clconv_status st = cli_mpi_lib(clconv_devices_discover(&d->list),
                                   "OpenCL");
    if (st == CLCONV_OK)
        st = clconv_mpi_select_device(comm, &d->list, selector, &d->index);
    if (st == CLCONV_OK)
        st = cli_mpi_lib(clconv_session_create(&d->list.devices[d->index],
                                               &d->session),
                         d->list.devices[d->index].name);
    int code = cli_mpi_step(comm, st, 0);
    if (code != CLI_EXIT_OK)
        cli_mpi_close_device(d);
    return code;
}

void cli_mpi_close_device(cli_mpi_device *d)
{
    clconv_session_destroy(d->session);
    d->session = NULL;
    clconv_devices_free(&d->list);
}

const clconv_device_info *cli_mpi_device_info(const cli_mpi_device *d)
{
    return &d->list.devices[d->index];
}

clconv_status cli_mpi_choose(const clconv_device_info *dev, int strategy,
                             int tile, clconv_problem *p)
{
    if (strategy >= 0) {
        p->strategy = (clconv_strategy)strategy;
        p->tile = tile ? tile : clconv_default_tile_for(dev, p);
    } else {
        cli_auto_config(dev, p, 1);
        if (tile)
            p->tile = tile;
    }
    return cli_mpi_lib(clconv_problem_validate(p), "the problem");
}
