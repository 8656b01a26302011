/* .npy files read and written by block: every rank opens the input and
 * reads its rows at the data's offset (pread); the output is a temporary
 * in the destination's folder that rank 0 creates with the header and
 * pre-sizes, every rank writes its rows into (pwrite), and rank 0 renames
 * into place once every rank succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_internal.h"

/* Rows move through a bounce buffer of this many bytes. */
#define CLM_CHUNK (4u << 20)
/* A .npy header longer than this is refused. */
#define CLM_HEADER_MAX (1u << 20)

/* All n bytes at off, read (write 0) or written (write 1), EINTR
 * retried; the error names path. */
static clconv_status transfer(int fd, unsigned char *p, size_t n, off_t off,
                              const char *path, int write)
{
    while (n > 0) {
        ssize_t k = write ? pwrite(fd, p, n, off) : pread(fd, p, n, off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return clconv_mpi_fail(CLCONV_EIO, "%s: %s at byte %lld: %s",
                                   path, write ? "write" : "read",
                                   (long long)off,
                                   k < 0 ? strerror(errno)
                                         : write ? "no progress"
                                                 : "unexpected end of file");
        p += k;
        n -= (size_t)k;
        off += k;
    }
    return CLCONV_OK;
}

static clconv_status pread_all(int fd, void *buf, size_t n, off_t off,
                               const char *path)
{
    return transfer(fd, buf, n, off, path, 0);
}

clconv_status clm_pwrite_all(int fd, const void *buf, size_t n, off_t off,
                             const char *path)
{
    return transfer(fd, (unsigned char *)buf, n, off, path, 1);
}

/* An empty array (an axis of length 0) is its header alone, which the
 * whole-array reader reads from the header's bytes head[0, hlen), of
 * any rank and either order (it has no rows to lie in one piece): 1 and
 * f's empty, shape and info set; else 0 (an array with elements, which
 * needs data beyond the header, or no .npy: the header reader says
 * why). */
static int empty_array(const unsigned char *head, size_t hlen,
                       clconv_mpi_npy_in *f)
{
    int nd = 0;
    size_t sh[CLCONV_NPY_MAX_DIMS];
    void *raw = NULL;
    if (clconv_npy_parse_nd(head, hlen, &nd, sh, &f->info, &raw) != CLCONV_OK)
        return 0;
    free(raw);
    f->empty = 1;
    f->shape.dims = nd;
    for (int d = 0; d < 3; ++d)
        f->shape.shape[d] = d < nd ? sh[d] : 1;
    return 1;
}

/* The header (preamble and dict) of the open file, checked against its
 * size. */
static clconv_status read_header(int fd, const char *path,
                                 clconv_mpi_npy_in *f)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return clconv_mpi_fail(CLCONV_EIO, "%s: %s", path, strerror(errno));
    unsigned char pre[12] = {0};
    size_t have = (size_t)sb.st_size < sizeof pre ? (size_t)sb.st_size
                                                  : sizeof pre;
    clconv_status st = pread_all(fd, pre, have, 0, path);
    if (st != CLCONV_OK)
        return st;
    size_t hlen = pre[6] == 1 ? 10 + (pre[8] | (size_t)pre[9] << 8)
                              : 12 + (pre[8] | (size_t)pre[9] << 8 |
                                      (size_t)pre[10] << 16 |
                                      (size_t)pre[11] << 24);
    if (hlen > CLM_HEADER_MAX || hlen > (size_t)sb.st_size)
        hlen = (size_t)sb.st_size < CLM_HEADER_MAX ? (size_t)sb.st_size
                                                   : CLM_HEADER_MAX;
    unsigned char *head = malloc(hlen ? hlen : 1);
    if (!head)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    st = pread_all(fd, head, hlen, 0, path);
    if (st == CLCONV_OK && !empty_array(head, hlen, f) &&
        (st = clconv_npy_header_parse(head, hlen, &f->shape.dims,
                                      f->shape.shape, &f->info)) != CLCONV_OK) {
        if (f->shape.dims > 3)
            clconv_mpi_fail(st,
                            "%s: a %dD array: clconv-mpi reads arrays of 1 "
                            "to 3 dimensions (clconv apply, on one machine, "
                            "takes more with --axes)",
                            path, f->shape.dims);
        else
            clm_lib_fail(st, path);
    }
    free(head);
    if (st != CLCONV_OK)
        return st;
    size_t bytes = f->empty ? 0 : clconv_dtype_size(f->info.dtype);
    for (int d = 0; d < f->shape.dims && !f->empty; ++d)
        bytes *= f->shape.shape[d];
    const size_t size = (size_t)sb.st_size - f->info.data_offset;
    if (size != bytes)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "%s: %s: the header declares %zu bytes of "
                               "data, the file has %zu",
                               path, size < bytes ? "truncated" : "too long",
                               bytes, size);
    return CLCONV_OK;
}

/* Every rank read the same header (a file that differs between the
 * ranks' hosts or folders would mix their rows): agreed. */
static clconv_status same_header(MPI_Comm comm, const clconv_mpi_npy_in *f)
{
    enum { N = 9 };
    const clconv_npy_info *i = &f->info;
    long long mine[N] = {f->shape.dims, (long long)f->shape.shape[0],
                         (long long)f->shape.shape[1],
                         (long long)f->shape.shape[2], (long long)i->dtype,
                         i->big_endian, i->fortran_order,
                         (long long)i->data_offset, i->major};
    long long lo[N], hi[N];
    CLM_CHECK(MPI_Allreduce(mine, lo, N, MPI_LONG_LONG, MPI_MIN, comm));
    CLM_CHECK(MPI_Allreduce(mine, hi, N, MPI_LONG_LONG, MPI_MAX, comm));
    if (memcmp(lo, hi, sizeof lo) != 0)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "%s: the ranks read different headers (its "
                               "shape, dtype or layout differs between the "
                               "ranks' hosts or folders): every rank must "
                               "read the same file",
                               f->path);
    return CLCONV_OK;
}

/* path opened for reading: a regular file, never blocking (a FIFO's open
 * waits for a writer, and its data cannot be read at offsets). */
static clconv_status open_regular(const char *path, int *fd)
{
    struct stat sb;
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return clconv_mpi_fail(errno == ENOENT || errno == EACCES
                                   ? CLCONV_EINVAL
                                   : CLCONV_EIO,
                               "%s: %s", path, strerror(errno));
    if (fstat(*fd, &sb) != 0)
        return clconv_mpi_fail(CLCONV_EIO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return clconv_mpi_fail(CLCONV_EINVAL, "%s: it is a folder", path);
    if (!S_ISREG(sb.st_mode))
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "%s: not a regular file (a FIFO or a "
                               "device): under MPI each rank reads its rows "
                               "at their offset (name a file, or run one "
                               "process)",
                               path);
    const int flags = fcntl(*fd, F_GETFL);
    if (flags < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        return clconv_mpi_fail(CLCONV_EIO, "%s: %s", path, strerror(errno));
    return CLCONV_OK;
}

clconv_status clconv_mpi_npy_open(MPI_Comm comm, const char *path,
                                  clconv_mpi_npy_in *f)
{
    clconv_status st = CLCONV_OK;
    if (f) {
        memset(f, 0, sizeof *f);
        f->fd = -1;
    }
    /* a NULL is this rank's failure, agreed as any other */
    if (!f || !path)
        st = clconv_mpi_fail(CLCONV_EINVAL, "no path or file given (NULL)");
    if (st == CLCONV_OK) {
        snprintf(f->path, sizeof f->path, "%s", path);
        st = open_regular(path, &f->fd);
    }
    if (st == CLCONV_OK)
        st = read_header(f->fd, path, f);
    st = clconv_mpi_agree(comm, st);
    if (st == CLCONV_OK)
        st = clconv_mpi_agree(comm, same_header(comm, f));
    if (st != CLCONV_OK)
        clconv_mpi_npy_close(f);
    return st;
}

/* The chunk's refused element (a finite float64 beyond float32's range,
 * the only one clconv_npy_convert refuses), said as one process says it,
 * with its index in the whole array: first, that of raw[0]. */
static clconv_status refused_element(const clconv_mpi_npy_in *f,
                                     const unsigned char *raw, size_t k,
                                     size_t first)
{
    const size_t isz = clconv_dtype_size(f->info.dtype);
    const uint16_t one = 1;
    const int host_big = *(const unsigned char *)&one == 0;
    /* int64 and uint64 are 8 bytes too, but always in range */
    const int f64 = f->info.dtype == CLCONV_DTYPE_F64;
    float v;
    for (size_t i = 0; i < k; ++i) {
        if (clconv_npy_convert(raw + i * isz, 1, &f->info, &v) == CLCONV_OK)
            continue;
        unsigned char b[8];
        double d = 0;
        for (size_t j = 0; j < 8 && f64; ++j)
            b[j] = raw[i * isz + (f->info.big_endian != host_big ? 7 - j : j)];
        if (f64)
            memcpy(&d, b, sizeof d);
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "%s: element %zu is %g, beyond float32's "
                               "range (+-%g); clconv computes in float32",
                               f->path, first + i, d, (double)FLT_MAX);
    }
    return clconv_mpi_fail(CLCONV_EINVAL, "%s: %s", f->path,
                           clconv_last_error());
}

clconv_status clconv_mpi_npy_read_rows(const clconv_mpi_npy_in *f,
                                       size_t row, size_t first, size_t n,
                                       float *dst)
{
    if (!f || !dst)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "no file or destination given (NULL)");
    const size_t isz = clconv_dtype_size(f->info.dtype);
    const size_t per = CLM_CHUNK / isz, total = n * row;
    unsigned char *buf = malloc(CLM_CHUNK);
    if (!buf)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    clconv_status st = CLCONV_OK;
    for (size_t done = 0; st == CLCONV_OK && done < total; done += per) {
        size_t k = total - done < per ? total - done : per;
        off_t at = (off_t)(f->info.data_offset + (first * row + done) * isz);
        st = pread_all(f->fd, buf, k * isz, at, f->path);
        if (st == CLCONV_OK &&
            clconv_npy_convert(buf, k, &f->info, dst + done) != CLCONV_OK)
            st = refused_element(f, buf, k, first * row + done);
    }
    free(buf);
    return st;
}

clconv_status clconv_mpi_npy_read_block(const clconv_mpi_npy_in *f,
                                        const clconv_problem *p,
                                        const clconv_mpi_block *b,
                                        float *dst)
{
    if (!f || !p || !b || !dst)
        return clconv_mpi_fail(CLCONV_EINVAL, "no file, problem, block or "
                                              "destination given (NULL)");
    const size_t rows = clconv_mpi_local_rows(b);
    const size_t n = clm_runs(p, b, 0, rows, 0, NULL, 0);
    clm_run *runs = malloc((n ? n : 1) * sizeof *runs);
    if (!runs)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    clm_runs(p, b, 0, rows, 0, runs, n);
    clconv_status st = CLCONV_OK;
    for (size_t k = 0; k < n && st == CLCONV_OK; ++k) {
        float *at = dst + runs[k].local * b->row;
        if (runs[k].src < 0)
            clm_fill_cval(at, runs[k].n, b->row, p->cval);
        else
            st = clconv_mpi_npy_read_rows(f, b->row, (size_t)runs[k].src,
                                          runs[k].n, at);
    }
    free(runs);
    return st;
}

void clconv_mpi_npy_close(clconv_mpi_npy_in *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}
