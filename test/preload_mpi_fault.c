/* A failed MPI call on demand, preloaded into one rank by test/mpi.sh
 * (LD_PRELOAD; MPI's profiling interface, each call passed on to its
 * PMPI_ twin): CLCONV_TEST_MPI_FAIL=CALL:N makes this process's N-th
 * call of CALL (MPI_Isend or MPI_Irecv, the halo exchange's posts)
 * return MPI_ERR_OTHER, as a broken network or runtime would. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Does this call of `call` fail? (counts its calls) */
static int fails(const char *call, int *count)
{
    const char *v = getenv("CLCONV_TEST_MPI_FAIL");
    const size_t n = strlen(call);
    ++*count;
    return v && strncmp(v, call, n) == 0 && v[n] == ':' &&
           atoi(v + n + 1) == *count;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest,
              int tag, MPI_Comm comm, MPI_Request *req)
{
    static int calls;
    if (fails("MPI_Isend", &calls))
        return MPI_ERR_OTHER;
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    static int calls;
    if (fails("MPI_Irecv", &calls))
        return MPI_ERR_OTHER;
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}
