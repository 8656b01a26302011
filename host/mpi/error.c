/* libclconv_mpi's messages and the agreement on a failure: the lowest
 * failing rank's status and message reach every rank. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi_internal.h"

/* Room for the library's longest messages (build logs are cut). */
#define CLM_MSG 4096

static _Thread_local char last_error[CLM_MSG] = "no error";
/* last_error is an agreed message already ("rank R on HOST: ..."). */
static _Thread_local int agreed_message;
/* an MPI call failed on this thread (clconv_mpi_broken) */
static _Thread_local int broken;

const char *clconv_mpi_last_error(void) { return last_error; }

int clconv_mpi_broken(void) { return broken; }

clconv_status clconv_mpi_fail(clconv_status st, const char *fmt, ...)
{
    char buf[CLM_MSG];
    if (!fmt)
        fmt = "a failure with no message (NULL)";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    memcpy(last_error, buf, sizeof buf);
    agreed_message = 0;
    return st;
}

clconv_status clm_mpi_fail(const char *call, int err, const char *file,
                           int line)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error %d", err);
    broken = 1;
    return clconv_mpi_fail(CLCONV_EIO, "%s failed: %s (%s:%d)", call, text,
                           file, line);
}

clconv_status clconv_mpi_check(int err, const char *call, const char *file,
                               int line)
{
    if (err == MPI_SUCCESS)
        return CLCONV_OK;
    return clm_mpi_fail(call ? call : "an MPI call", err,
                        file ? file : "?", line);
}

clconv_status clm_lib_fail(clconv_status st, const char *what)
{
    return clconv_mpi_fail(st, "%s: %s", what, clconv_last_error());
}

double clm_now(void) { return MPI_Wtime(); }

/* The message as the failing rank sends it: "rank R on HOST: ...", or as
 * it is when it was agreed before. */
static void compose(MPI_Comm comm, clconv_status st, char *buf, size_t len)
{
    if (agreed_message) {
        snprintf(buf, len, "%c %.4000s", (char)('A' + (int)st), last_error);
        return;
    }
    int rank = 0, n = 0;
    char host[MPI_MAX_PROCESSOR_NAME] = "?";
    /* a message about a failure: what these cannot say stays unknown */
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        rank = -1;
    if (MPI_Get_processor_name(host, &n) != MPI_SUCCESS)
        snprintf(host, sizeof host, "?");
    snprintf(buf, len, "%c rank %d on %.200s: %.3800s", (char)('A' + (int)st), rank,
             host, last_error);
}

clconv_status clconv_mpi_agree(MPI_Comm comm, clconv_status st)
{
    /* after a failed MPI call the ranks' collectives no longer pair up
     * (peers wait in the one this rank left): none more, the failure
     * kept for the caller to end the job */
    if (broken)
        return CLCONV_EIO;
    int rank, size;
    CLM_CHECK(MPI_Comm_rank(comm, &rank));
    CLM_CHECK(MPI_Comm_size(comm, &size));
    int mine = st != CLCONV_OK ? rank : INT_MAX, first = INT_MAX;
    CLM_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
    if (first == INT_MAX)
        return CLCONV_OK;
    /* The status travels as the message's first character. */
    char buf[CLM_MSG];
    if (rank == first)
        compose(comm, st, buf, sizeof buf);
    CLM_CHECK(MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, comm));
    buf[sizeof buf - 1] = '\0';
    clconv_status agreed = (clconv_status)(buf[0] - 'A');
    if (agreed == CLCONV_OK)
        agreed = CLCONV_EIO;
    memcpy(last_error, buf + 2, sizeof buf - 2);
    agreed_message = 1;
    return agreed;
}
