/* The output .npy of a distributed apply: rank 0 creates a temporary in
 * the destination's folder with the header, pre-sized to the whole
 * array; every rank writes its rows at their offset; rank 0 renames it
 * into place once every rank has flushed its rows without error. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi_internal.h"

#define CLM_CHUNK_FLOATS (1u << 20)

/* Rank 0: what OUT's temporary will be: the file it replaces (a
 * symlink's target, as clconv_output_open replaces a file; a stream
 * cannot take rows written at once by every rank: apply checks this
 * first), that file's mode and owner, and the temporary's name template
 * beside it (o->temp, ending in XXXXXX). */
static clconv_status plan_temp(clconv_mpi_npy_out *o)
{
    char *target = NULL;
    int stream = 0;
    unsigned mode = 0;
    clconv_status st = clconv_output_target(o->path, &target, &mode, &stream);
    if (st == CLCONV_OK && stream)
        st = clconv_mpi_fail(CLCONV_EINVAL, "%s: the ranks write their rows "
                             "at once into a regular file, not a stream",
                             o->path);
    else if (st == CLCONV_OK &&
             strlen(target) + sizeof ".clconv-XXXXXX" > sizeof o->target)
        st = clconv_mpi_fail(CLCONV_EINVAL, "%s: its path is too long",
                             target);
    else if (st != CLCONV_OK)
        st = clm_lib_fail(st, o->path);
    if (st == CLCONV_OK)
        snprintf(o->target, sizeof o->target, "%s", target);
    free(target);
    if (st != CLCONV_OK)
        return st;
    /* The replaced file's owner and mode are given at the rename: the
     * other ranks open the temporary for writing first, which its mode
     * (0444, say) could forbid them. */
    struct stat old;
    const int replaces = stat(o->target, &old) == 0;
    o->mode = mode;
    o->uid = replaces ? (long long)old.st_uid : -1;
    o->gid = replaces ? (long long)old.st_gid : -1;
    const char *slash = strrchr(o->target, '/');
    int dir = slash ? (int)(slash - o->target) + 1 : 0;
    snprintf(o->temp, sizeof o->temp, "%.*s.clconv-XXXXXX", dir, o->target);
    return CLCONV_OK;
}

/* Rank 0: the temporary (just created, o->fd) pre-sized to the whole
 * array of dims/shape, with the header. */
static clconv_status fill_temp(clconv_mpi_npy_out *o, int dims,
                               const size_t shape[3])
{
    unsigned char head[CLCONV_NPY_HEADER_MAX];
    size_t hlen, count = 1;
    clconv_status st =
        clconv_npy_header_typed(dims, shape, clconv_dtype_of_elem(o->elem),
                                head, sizeof head, &hlen);
    if (st != CLCONV_OK)
        return clm_lib_fail(st, o->path);
    for (int d = 0; d < dims; ++d)
        count *= shape[d];
    const size_t bytes = hlen + count * clconv_elem_size(o->elem);
    if (ftruncate(o->fd, (off_t)bytes) != 0)
        return clconv_mpi_fail(CLCONV_EIO, "cannot write '%s': %s", o->path,
                               strerror(errno));
    o->data_offset = hlen;
    return clm_pwrite_all(o->fd, head, hlen, 0, o->path);
}

/* Collective: the temporary created by rank 0 under a name every rank
 * watches first (clconv_temp_watch), so that a signal to any rank from
 * then on removes it, even when rank 0 is killed (SIGKILL: mpirun then
 * stops the others with SIGTERM). o->temp: the template on rank 0. */
static clconv_status create_watched(MPI_Comm comm, int rank,
                                    clconv_mpi_npy_out *o)
{
    char templ[sizeof o->temp];
    memcpy(templ, o->temp, sizeof templ);
    for (int tries = 0; tries < 16; ++tries) {
        if (rank == 0) {
            memcpy(o->temp, templ, sizeof templ);
            clconv_temp_name(o->temp);
        }
        CLM_CHECK(MPI_Bcast(o->temp, (int)sizeof o->temp, MPI_CHAR, 0, comm));
        o->temp_handle = clconv_temp_watch(o->temp);
        CLM_CHECK(MPI_Barrier(comm));
        int e = 0;
        if (rank == 0) {
            o->fd = open(o->temp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            e = o->fd < 0 ? errno : 0;
        }
        CLM_CHECK(MPI_Bcast(&e, 1, MPI_INT, 0, comm));
        if (e == 0)
            return CLCONV_OK;
        /* not ours: no rank removes it */
        clconv_temp_release(o->temp_handle);
        o->temp_handle = -1;
        o->temp[0] = '\0';
        if (e != EEXIST)
            /* as one process says it (output.c): the folder's fault is
             * the caller's, the rest the system's */
            return clconv_mpi_fail(e == ENOENT || e == EACCES || e == EROFS
                                       ? CLCONV_EINVAL
                                       : CLCONV_EIO,
                                   "cannot write '%s': cannot create a file "
                                   "in its folder: %s",
                                   o->path, strerror(e));
    }
    return clconv_mpi_fail(CLCONV_EIO, "cannot write '%s': no free name for "
                           "a temporary file in its folder", o->path);
}

/* Rank 0, every rank's rows written: the temporary takes the replaced
 * file's owner (where this process may give it away, as one process
 * does) and mode. */
static clconv_status finish_temp(const clconv_mpi_npy_out *o)
{
    if (o->uid >= 0 && chown(o->temp, (uid_t)o->uid, (gid_t)o->gid) != 0)
        errno = 0;
    if (chmod(o->temp, (mode_t)o->mode) != 0)
        return clconv_mpi_fail(CLCONV_EIO, "cannot write '%s': %s", o->path,
                               strerror(errno));
    return CLCONV_OK;
}

static void remove_temp(clconv_mpi_npy_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->temp[0])
        unlink(o->temp);
    o->temp[0] = '\0';
    clconv_temp_release(o->temp_handle);
    o->temp_handle = -1;
}

clconv_status clconv_mpi_npy_create(MPI_Comm comm, const char *path,
                                    int dims, const size_t shape[3],
                                    clconv_elem elem, clconv_mpi_npy_out *o)
{
    int rank;
    clconv_status st = CLCONV_OK;
    if (o) {
        memset(o, 0, sizeof *o);
        o->fd = -1;
        o->temp_handle = -1;
    }
    /* bad arguments are this rank's failure, agreed as any other (a
     * rank that returned here would leave the others waiting) */
    if (!o || !path || !shape)
        st = clconv_mpi_fail(CLCONV_EINVAL,
                             "no path, shape or file given (NULL)");
    else if (clconv_elem_size(elem) == 0)
        st = clconv_mpi_fail(CLCONV_EINVAL, "unknown element type %d",
                             (int)elem);
    if (st == CLCONV_OK) {
        o->elem = elem;
        snprintf(o->path, sizeof o->path, "%s", path);
    }
    CLM_CHECK(MPI_Comm_rank(comm, &rank));
    st = clconv_mpi_agree(comm,
                          st == CLCONV_OK && rank == 0 ? plan_temp(o) : st);
    if (st == CLCONV_OK)
        st = clconv_mpi_agree(comm, create_watched(comm, rank, o));
    if (st == CLCONV_OK)
        st = clconv_mpi_agree(comm,
                              rank == 0 ? fill_temp(o, dims, shape) : CLCONV_OK);
    if (st == CLCONV_OK) {
        unsigned long long off = o->data_offset;
        CLM_CHECK(MPI_Bcast(&off, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
        o->data_offset = (size_t)off;
        if (rank != 0 && (o->fd = open(o->temp, O_WRONLY | O_CLOEXEC)) < 0)
            st = clconv_mpi_fail(CLCONV_EIO, "cannot write '%s': %s: %s",
                                 o->path, o->temp, strerror(errno));
        st = clconv_mpi_agree(comm, st);
    }
    if (st != CLCONV_OK && o) {
        if (rank != 0)
            o->temp[0] = '\0'; /* rank 0 removes it */
        remove_temp(o);
    }
    return st;
}

void clconv_mpi_npy_discard(clconv_mpi_npy_out *o)
{
    if (o)
        remove_temp(o);
}

/* k elements of es bytes from native (this host's order) to
 * little-endian bytes. */
static void put_le(unsigned char *dst, const unsigned char *native,
                   size_t k, size_t es)
{
    for (size_t i = 0; i < k; ++i) {
        uint32_t u = 0;
        if (es == 4) {
            memcpy(&u, native + 4 * i, 4);
        } else if (es == 2) {
            uint16_t h;
            memcpy(&h, native + 2 * i, 2);
            u = h;
        } else {
            u = native[i];
        }
        for (size_t b = 0; b < es; ++b)
            dst[es * i + b] = (unsigned char)(u >> (8 * b));
    }
}

clconv_status clconv_mpi_npy_write_rows(clconv_mpi_npy_out *o, size_t row,
                                        size_t first, size_t n,
                                        const float *src)
{
    if (!o || !src)
        return clconv_mpi_fail(CLCONV_EINVAL,
                               "no file or source given (NULL)");
    const size_t es = clconv_elem_size(o->elem);
    unsigned char *buf = malloc((size_t)CLM_CHUNK_FLOATS * 4 * 2);
    if (!buf)
        return clconv_mpi_fail(CLCONV_ENOMEM, "out of memory");
    unsigned char *native = buf + (size_t)CLM_CHUNK_FLOATS * 4;
    const size_t total = n * row;
    clconv_status st = CLCONV_OK;
    for (size_t done = 0; st == CLCONV_OK && done < total;
         done += CLM_CHUNK_FLOATS) {
        size_t k = total - done < CLM_CHUNK_FLOATS ? total - done
                                                   : CLM_CHUNK_FLOATS;
        if (o->elem == CLCONV_ELEM_F32)
            memcpy(native, src + done, 4 * k);
        else
            clconv_elems_from_float(o->elem, src + done, k, native);
        put_le(buf, native, k, es);
        off_t at = (off_t)(o->data_offset + (first * row + done) * es);
        st = clm_pwrite_all(o->fd, buf, es * k, at, o->path);
    }
    free(buf);
    return st;
}

clconv_status clconv_mpi_npy_commit(MPI_Comm comm, clconv_mpi_npy_out *o,
                                    clconv_status st)
{
    int rank;
    CLM_CHECK(MPI_Comm_rank(comm, &rank));
    /* a NULL is this rank's failure: agreed, so no rank renames */
    if (!o)
        return clconv_mpi_agree(
            comm, clconv_mpi_fail(CLCONV_EINVAL, "no file given (NULL)"));
    if (st == CLCONV_OK && o->fd >= 0 && fsync(o->fd) != 0)
        st = clconv_mpi_fail(CLCONV_EIO, "%s: fsync: %s", o->path,
                             strerror(errno));
    if (o->fd >= 0 && close(o->fd) != 0 && st == CLCONV_OK)
        st = clconv_mpi_fail(CLCONV_EIO, "%s: close: %s", o->path,
                             strerror(errno));
    o->fd = -1;
    st = clconv_mpi_agree(comm, st);
    if (st == CLCONV_OK) {
        clconv_status moved = rank == 0 ? finish_temp(o) : CLCONV_OK;
        if (rank == 0 && moved == CLCONV_OK) {
            if (rename(o->temp, o->target) != 0) {
                moved = clconv_mpi_fail(CLCONV_EIO, "%s: rename from %s: %s",
                                        o->path, o->temp, strerror(errno));
            } else {
                o->temp[0] = '\0';
                clconv_temp_release(o->temp_handle);
                o->temp_handle = -1;
            }
        }
        st = clconv_mpi_agree(comm, moved);
    }
    if (rank != 0)
        o->temp[0] = '\0';
    remove_temp(o); /* rank 0, when not renamed; every rank's handle */
    return st;
}
