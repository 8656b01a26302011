/* Internal declarations of libclconv_mpi (prefix clm_). Not public. */
#ifndef CLCONV_MPI_INTERNAL_H
#define CLCONV_MPI_INTERNAL_H

#include <sys/types.h>

#include "clconv_mpi.h"

/* Record a failed MPI call: "MPI_Foo failed: <MPI's error string>
 * (file:line)", as CLCONV_EIO. */
clconv_status clm_mpi_fail(const char *call, int err, const char *file,
                           int line);
/* Record a failed libclconv call: its clconv_last_error(), after what. */
clconv_status clm_lib_fail(clconv_status st, const char *what);

/* Check an MPI call (on a communicator whose error handler returns) in a
 * function that returns clconv_status and owns nothing. */
#define CLM_CHECK(call)                                                       \
    do {                                                                      \
        int clm_err_ = (call);                                                \
        if (clm_err_ != MPI_SUCCESS)                                          \
            return clm_mpi_fail(#call, clm_err_, __FILE__, __LINE__);         \
    } while (0)

/* The same in a function that cleans up at `out:`; sets `st`. */
#define CLM_CHECK_GOTO(call)                                                  \
    do {                                                                      \
        int clm_err_ = (call);                                                \
        if (clm_err_ != MPI_SUCCESS) {                                        \
            st = clm_mpi_fail(#call, clm_err_, __FILE__, __LINE__);           \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* The input rows [*lo, *hi) a block's outputs [begin, end) reach, clipped
 * to the array (zero ghost cells beyond its edges). */
void clm_reach(const clconv_problem *p, size_t rows, size_t begin,
               size_t end, size_t *lo, size_t *hi);
/* pwrite all n bytes at off (EINTR retried); the error names path. */
clconv_status clm_pwrite_all(int fd, const void *buf, size_t n, off_t off,
                             const char *path);
/* MPI_Wtime, for the times of clconv_mpi_times. */
double clm_now(void);

#endif
