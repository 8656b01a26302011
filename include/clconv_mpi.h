/* clconv over MPI: one problem decomposed into slabs along its slowest
 * axis (z in 3D, y in 2D, x in 1D), one slab per rank, each rank on one
 * device. Built as libclconv_mpi (`make MPI=1`, or when the build finds
 * OpenMPI); libclconv itself never links MPI.
 *
 * A rank's local arrays hold its block's rows with the halo rows its
 * outputs reach on either side (clconv_mpi_block): the caller fills the
 * block's rows, clconv_mpi_convolve fetches the halos from the ranks that
 * own them (several when the halo is wider than a neighbour's block;
 * past the array's ends, per the border mode: cval, rows of its own, or
 * the far end's for wrap), computes the rows that need no halo while they
 * travel, then the rest. Every filter of clconv_problem holds: border
 * modes, per-axis widths and origins, convolution, axes. The result is
 * the single-device result bit for bit (same variant, method and device
 * type) for the direct and separable methods: each output row is computed
 * by the same kernel over the same input rows, its launch placed as the
 * whole problem's (clconv_convolve_part).
 *
 * Errors: every call returns a clconv_status; clconv_mpi_last_error() has
 * the message (a failed MPI call names the call and MPI's error string,
 * and leaves clconv_mpi_broken() set).
 * Calls marked "collective" agree on the outcome: if any rank failed,
 * every rank returns that rank's status and message ("rank R on HOST:
 * ..."), so no rank waits for a peer that gave up.
 *
 * NULL arguments (beyond those a comment allows) never crash. A local
 * call given one returns CLCONV_EINVAL with a message, or the value its
 * comment names (0, -1), or does nothing. A collective call must not
 * return on one rank while the others wait for it, so where it agrees
 * anyway (clconv_mpi_npy_open, _create, _commit, _same_mask, _convolve:
 * before its exchange) a NULL is that rank's CLCONV_EINVAL, agreed: every
 * rank returns it; clconv_mpi_decompose and clconv_mpi_select_device
 * return CLCONV_EINVAL on the rank given NULL alone, once past what every
 * rank does (as any of their failures: the caller agrees on them). */
#ifndef CLCONV_MPI_H
#define CLCONV_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "clconv.h"
#include "clconv_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last failed clconv_mpi_* call on this thread. */
const char *clconv_mpi_last_error(void);
/* Did an MPI call of libclconv_mpi fail on this thread (the call named
 * in clconv_mpi_last_error(), the status CLCONV_EIO)? Its peers may then
 * wait in a call this rank left (an agreement, a halo exchange), which
 * no later call on the communicator reaches: the caller ends the job
 * (MPI_Abort). Local. */
int clconv_mpi_broken(void);
/* The result err of the caller's own MPI call: CLCONV_OK, or record
 * "CALL failed: <MPI's error string> (file:line)" as the library's own
 * failed calls are, set clconv_mpi_broken() and return CLCONV_EIO.
 * Local. */
clconv_status clconv_mpi_check(int err, const char *call, const char *file,
                               int line);
/* Record this rank's failure (the message clconv_mpi_agree sends) and
 * return st: for callers whose own step failed, e.g.
 * clconv_mpi_fail(st, "%s", clconv_last_error()). A NULL fmt records a
 * message that says so. Local. */
clconv_status clconv_mpi_fail(clconv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Collective: if st is not CLCONV_OK on some rank, every rank returns the
 * status of the lowest such rank, and its clconv_mpi_last_error() (set by
 * the clconv_mpi_* calls, or by the caller through clconv_mpi_fail)
 * prefixed with "rank R on HOST: " becomes every rank's. CLCONV_OK when
 * every rank passed CLCONV_OK. After a failed MPI call on this thread
 * (clconv_mpi_broken) it communicates no more: CLCONV_EIO at once, that
 * call's message kept. */
clconv_status clconv_mpi_agree(MPI_Comm comm, clconv_status st);

/* ---- decomposition ------------------------------------------------------ */

/* One rank's share of a problem: output rows [begin, end) of the slowest
 * axis (rows of `row` elements each; balanced: the first rows % nranks
 * ranks get one row more; a rank may get none when rows < nranks), and
 * the halo rows its local arrays hold before and after them. */
typedef struct clconv_mpi_block {
    int rank, nranks;
    int axis;              /* the slowest axis: dims - 1 */
    size_t rows;           /* its global extent */
    size_t row;            /* elements per row */
    size_t begin, end;     /* this rank's output rows */
    size_t halo_lo;        /* rows held before begin */
    size_t halo_hi;        /* rows held after end */
} clconv_mpi_block;

/* The blocks of p (its global size and mask) over comm's ranks: b gets
 * the calling rank's. Collective (each rank must pass the same p), but
 * it exchanges nothing: a NULL p or b is CLCONV_EINVAL on that rank. */
clconv_status clconv_mpi_decompose(MPI_Comm comm, const clconv_problem *p,
                                   clconv_mpi_block *b);
/* Rows and elements of the local arrays: halo_lo + (end - begin) +
 * halo_hi rows; the block's rows start at row halo_lo. The halos are the
 * rows the block's outputs reach along the axis (the mask's width and
 * origin there), before and after it, also past the array's ends: there
 * they hold what the border mode reads (clconv_mpi_source_row); in the
 * constant mode they stop at the array's ends (the kernel reads cval
 * beyond them, as on one device). Local; 0 for a NULL b. */
size_t clconv_mpi_local_rows(const clconv_mpi_block *b);
size_t clconv_mpi_local_elements(const clconv_mpi_block *b);
/* The global row whose values local row `local` of b's arrays holds: a
 * row of the block, of a neighbour's (an inner halo), or past the array's
 * ends the row the border mode reads there (clconv_border_index: the far
 * end for wrap, rows by the edge for reflect, mirror and nearest; -1, a
 * row of cval, only for a block made otherwise than by
 * clconv_mpi_decompose, whose constant-mode halos stop at the ends).
 * Local; -1 for a NULL p or b. */
long long clconv_mpi_source_row(const clconv_problem *p,
                                const clconv_mpi_block *b, size_t local);
/* The block of rank r of n for `rows` rows: [*begin, *end). Local; with
 * begin or end NULL nothing is written; n < 1, or r outside 0..n-1, gives
 * the empty block [0, 0). */
void clconv_mpi_block_range(size_t rows, int n, int r, size_t *begin,
                            size_t *end);

/* ---- devices ------------------------------------------------------------ */

/* This rank's device among list: with a selector (clconv_devices_select's
 * syntax), the node-local rank (MPI_Comm_split_type SHARED) picks among
 * its matches, modulo their number; without one, among the GPUs, else the
 * first CPU, else among every device. *index indexes list->devices. A
 * selector matching nothing is CLCONV_EINVAL, and so is a NULL list or
 * index, on that rank (selector may be NULL: the default). Collective
 * over comm (every rank splits it by node). */
clconv_status clconv_mpi_select_device(MPI_Comm comm,
                                       const clconv_device_list *list,
                                       const char *selector, size_t *index);

/* ---- the mask ----------------------------------------------------------- */

/* Collective: did every rank load the same mask m (its dims, extents and
 * values, bit for bit)? A mask file at the same path can differ between
 * the ranks' hosts or folders, and ranks with different masks would mix
 * their rows (or their halos, of other widths, into each other's
 * messages). CLCONV_EINVAL on every rank when some rank's differs from
 * rank 0's, the first such rank's message naming spec (may be NULL); a
 * NULL m on some rank: CLCONV_EINVAL on every rank. */
clconv_status clconv_mpi_same_mask(MPI_Comm comm, const clconv_mask *m,
                                   const char *spec);

/* ---- halo exchange and compute ------------------------------------------- */

typedef struct clconv_mpi_times {
    double post_s;     /* posting the halo receives and sends */
    double interior_s; /* the rows that need no halo, while halos travel */
    double wait_s;     /* waiting for the halos after that */
    double border_s;   /* the rows that need halos */
    double total_s;    /* the whole call */
    size_t halo_rows;  /* rows received */
} clconv_mpi_times;

/* Collective: exchange the halos of in (local arrays of
 * clconv_mpi_local_elements(b) floats whose block rows the caller filled;
 * the halo rows are overwritten) with MPI_Isend/MPI_Irecv, and write the
 * block's output rows of out (the same layout; halo rows of out are not
 * touched). p is the global problem (its strategy and knobs are used as
 * they are on every rank; knobs left 0 are chosen for p, not for the
 * block). times may be NULL. What can fail on one rank alone before the
 * exchange (a NULL s, p, b, in, mask or out; no memory; counts beyond
 * MPI's int) is agreed before anything is posted: every rank returns
 * that rank's status, no rank waits. The compute's failure is this
 * rank's, once every message arrived (the caller agrees on it). A failed
 * MPI call is CLCONV_EIO naming it, and clconv_mpi_broken(): peers may
 * wait for this rank's messages. */
clconv_status clconv_mpi_convolve(MPI_Comm comm, clconv_session *s,
                                  const clconv_problem *p,
                                  const clconv_mpi_block *b, float *in,
                                  const float *mask, float *out,
                                  clconv_mpi_times *times);

/* The same without communication, for callers that filled the halo rows
 * themselves (clconv_mpi_source_row says with what;
 * clconv_mpi_npy_read_block reads them from a .npy): computes the block's
 * output rows of out from in. Local; a NULL s, p, b, in, mask or out is
 * CLCONV_EINVAL (times may be NULL). */
clconv_status clconv_mpi_convolve_local(clconv_session *s,
                                        const clconv_problem *p,
                                        const clconv_mpi_block *b,
                                        const float *in, const float *mask,
                                        float *out, clconv_mpi_times *times);

/* ---- .npy files read and written by block ------------------------------- */

/* An input .npy every rank opened itself (its own open() and reads at
 * the data's offset: a rank that cannot open it fails, not the job's
 * rank 0 for it). */
typedef struct clconv_mpi_npy_in {
    int fd;                /* -1 when closed */
    char path[4096];
    clconv_array shape;    /* dims and NumPy-order shape; data NULL */
    clconv_npy_info info;  /* dtype, byte order, data offset */
    int empty;             /* an axis of length 0: no rows to read */
} clconv_mpi_npy_in;

/* Collective: open path on every rank and check its header, and that the
 * file holds all the data the header declares (a truncated file is
 * caught here, before any compute). A C-order array of 1 to 3
 * dimensions, or an empty one (an axis of length 0, NumPy's
 * np.zeros((0, 5))) of any rank and either order: f->empty set, shape
 * holding its rank and (up to) its first three extents; there is nothing
 * to read or decompose (clconv apply then writes the empty result on
 * rank 0 alone). A NULL path or f on some rank: CLCONV_EINVAL on every
 * rank. */
clconv_status clconv_mpi_npy_open(MPI_Comm comm, const char *path,
                                  clconv_mpi_npy_in *f);
/* Rows [first, first + n) of `row` elements each (the slowest axis) into
 * dst as float32, converted from the file's dtype. Local; a NULL f or dst
 * is CLCONV_EINVAL. */
clconv_status clconv_mpi_npy_read_rows(const clconv_mpi_npy_in *f,
                                       size_t row, size_t first, size_t n,
                                       float *dst);
/* b's whole local array (clconv_mpi_local_elements floats) from the
 * file: the block's rows and its halos, past the array's ends what p's
 * border mode reads there (clconv_mpi_source_row: rows of the file, or
 * cval). Local; a NULL f, p, b or dst is CLCONV_EINVAL. */
clconv_status clconv_mpi_npy_read_block(const clconv_mpi_npy_in *f,
                                        const clconv_problem *p,
                                        const clconv_mpi_block *b,
                                        float *dst);
/* Local; NULL is fine. */
void clconv_mpi_npy_close(clconv_mpi_npy_in *f);

/* A .npy being written by every rank (float32, or a narrow element
 * type: u8, u16, i16, f16): a temporary file in the destination's
 * folder, created by rank 0 with the header and pre-sized, renamed into
 * place by clconv_mpi_npy_commit only when every rank succeeded. The
 * file must be on storage every rank sees. */
typedef struct clconv_mpi_npy_out {
    int fd;
    char path[4096];   /* the destination as given */
    char target[4096]; /* the file replaced: path, its symlinks followed */
    char temp[4096];   /* the temporary, "" once committed or removed */
    int temp_handle;   /* this rank's clconv_temp_watch handle on the
                          temporary (a signal removes it), or -1 */
    size_t data_offset;
    clconv_elem elem;  /* the file's element type */
    /* rank 0: what the file takes when it is renamed into place (the
     * temporary stays 0600 while the ranks open it): the replaced file's
     * mode and owner (uid -1: no file replaced; the owner where this
     * process may give it), else the mode of a new file */
    unsigned mode;
    long long uid, gid;
} clconv_mpi_npy_out;

/* Collective: create the temporary for an array of dims/shape (NumPy
 * order) of element type elem and open it on every rank. A NULL path,
 * shape or o, or an unknown elem, on some rank: CLCONV_EINVAL on every
 * rank, nothing created. */
clconv_status clconv_mpi_npy_create(MPI_Comm comm, const char *path,
                                    int dims, const size_t shape[3],
                                    clconv_elem elem, clconv_mpi_npy_out *o);
/* Write rows [first, first + n) of `row` floats from src, as the file's
 * element type (clconv_elems_from_float: rounded and saturated as the
 * kernels store it), little-endian. Local; a NULL o or src is
 * CLCONV_EINVAL. */
clconv_status clconv_mpi_npy_write_rows(clconv_mpi_npy_out *o, size_t row,
                                        size_t first, size_t n,
                                        const float *src);
/* Collective: with st CLCONV_OK on every rank, flush each rank's writes
 * and rename the temporary to the destination (rank 0); otherwise, or
 * if that fails, remove the temporary. Returns the agreed status
 * (clconv_mpi_agree): nothing is left at the destination unless every
 * rank returns CLCONV_OK. A NULL o on some rank: CLCONV_EINVAL on every
 * rank, nothing renamed (the temporary of rank 0's o, when that was the
 * NULL one, is left to its caller's clconv_mpi_npy_discard). */
clconv_status clconv_mpi_npy_commit(MPI_Comm comm, clconv_mpi_npy_out *o,
                                    clconv_status st);
/* Local, any rank, before it aborts the job (MPI_Abort): the temporary
 * removed, the destination left as it was. NULL is fine. */
void clconv_mpi_npy_discard(clconv_mpi_npy_out *o);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_MPI_H */
