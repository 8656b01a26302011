/* clconv under mpirun: `apply` and `bench --mpi` are clconv-mpi's (the
 * MPI build of the commands), so when a launcher started this process
 * among several ranks, clconv runs the clconv-mpi beside it instead of N
 * independent copies racing on one output. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The number of ranks the launcher says this job has (0: no launcher). */
static long launcher_ranks(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                 "PMIX_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return 0;
}

static int wants_mpi(int argc, char **argv)
{
    if (argc < 2)
        return 0;
    if (strcmp(argv[1], "apply") == 0)
        return 1;
    if (strcmp(argv[1], "bench") != 0)
        return 0;
    for (int i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--mpi") == 0)
            return 2;
    return 0;
}

/* --halo (clconv-mpi's own option) among argv? */
static int has_halo(int argc, char **argv)
{
    for (int i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--halo") == 0 ||
            strncmp(argv[i], "--halo=", 7) == 0)
            return 1;
    return 0;
}

int cli_mpi_redirect(int argc, char **argv)
{
    const int kind = wants_mpi(argc, argv);
    const long ranks = launcher_ranks();
    /* apply of one rank runs here, unless it names clconv-mpi's --halo
     * (mpirun -n 1 in a script that takes N) */
    if (!kind || (kind == 1 && ranks <= 1 &&
                  !(ranks == 1 && has_halo(argc, argv))))
        return -1;
    char self[PATH_MAX], mpi[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        snprintf(mpi, sizeof mpi, "%.*s/clconv-mpi",
                 slash ? (int)(slash - self) : 1, slash ? self : ".");
        if (access(mpi, X_OK) == 0) {
            argv[0] = mpi;
            execv(mpi, argv);
        }
    }
    cli_error("%s needs clconv-mpi beside clconv (build with `make MPI=1`, "
              "which needs OpenMPI: apt-get install libopenmpi-dev "
              "openmpi-bin)%s",
              kind == 2 ? "bench --mpi" : "apply under mpirun",
              ranks > 1 ? "; not running N copies of one apply" : "");
    return CLI_EXIT_USAGE;
}
