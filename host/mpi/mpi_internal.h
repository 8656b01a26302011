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

/* The rows of the slowest axis a block's outputs reach before and after
 * it (the mask's left and right reach along that axis). */
void clm_halo(const clconv_problem *p, size_t *before, size_t *after);
/* The rank whose block holds global row r of `rows` over n ranks. */
int clm_owner(size_t rows, int n, size_t r);
/* The block of rank q of nranks for p (what clconv_mpi_decompose gives
 * rank q). */
void clm_block_of(const clconv_problem *p, int nranks, int q,
                  clconv_mpi_block *b);

/* The local row of b's arrays that holds global row g of its block. */
size_t clm_local_row(const clconv_mpi_block *b, size_t g);
/* n rows of `row` floats at `at` set to cval (a constant-mode run). */
void clm_fill_cval(float *at, size_t n, size_t row, double cval);

/* A run of a block's local rows [local, local + n) holding global rows
 * [src, src + n) of one owner rank, or n rows of cval (src -1, owner
 * -1). */
typedef struct clm_run {
    size_t local, n;
    long long src;
    int owner;
} clm_run;
/* The runs of b's local rows [l0, l1), in order: each as long as its
 * sources rise by one (and, with by_owner, stay with one rank). Returns
 * their number; writes at most cap of them to runs (may be NULL). */
size_t clm_runs(const clconv_problem *p, const clconv_mpi_block *b,
                size_t l0, size_t l1, int by_owner, clm_run *runs,
                size_t cap);

/* pwrite all n bytes at off (EINTR retried); the error names path. */
clconv_status clm_pwrite_all(int fd, const void *buf, size_t n, off_t off,
                             const char *path);
/* MPI_Wtime, for the times of clconv_mpi_times. */
double clm_now(void);

#endif
