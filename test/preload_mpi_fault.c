/* A failed MPI call on demand, preloaded into one rank by test/mpi.sh
 * (LD_PRELOAD; MPI's profiling interface, each call passed on to its
 * PMPI_ twin): CLCONV_TEST_MPI_FAIL=CALL:N makes this process's N-th
 * call of CALL (MPI_Isend or MPI_Irecv, the halo exchange's posts;
 * MPI_Allreduce, MPI_Bcast or MPI_Reduce, the agreements and the
 * commands' own collectives) return MPI_ERR_OTHER at once, as a broken
 * network or runtime would, while its peers wait in theirs. */
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

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm)
{
    static int calls;
    if (fails("MPI_Allreduce", &calls))
        return MPI_ERR_OTHER;
    return PMPI_Allreduce(in, out, count, type, op, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
              MPI_Comm comm)
{
    static int calls;
    if (fails("MPI_Bcast", &calls))
        return MPI_ERR_OTHER;
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void *in, void *out, int count, MPI_Datatype type,
               MPI_Op op, int root, MPI_Comm comm)
{
    static int calls;
    if (fails("MPI_Reduce", &calls))
        return MPI_ERR_OTHER;
    return PMPI_Reduce(in, out, count, type, op, root, comm);
}
