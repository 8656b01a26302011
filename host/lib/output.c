/* Output files as coreutils treats them: opened (a temporary beside a
 * regular file, special files written through), written, committed by
 * rename, alone or several together; the rules are in clconv_io.h,
 * "output files". Where a path leads: output_path.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_io.h"
#include "internal.h"

enum out_kind { OUT_REPLACE, OUT_STREAM, OUT_STDOUT };

struct clconv_output {
    enum out_kind kind;
    int fd;
    int err;        /* errno of the first failed write (sticky) */
    int existed;    /* OUT_REPLACE: the target was a regular file */
    char *shown;    /* the path as given, for messages */
    char *target;   /* where the bytes go (the symlink's target) */
    char *temp;     /* OUT_REPLACE: the temporary file */
    int slot;       /* its slot in the temporary-file registry, or -1 */
    size_t nbuf;
    unsigned char buf[65536];
};

/* ---- opening ------------------------------------------------------------- */

static void output_free(clconv_output *o)
{
    free(o->shown);
    free(o->target);
    free(o->temp);
    free(o);
}

/* The temporary file next to o->target, with the target's mode (and owner,
 * where allowed) when it replaces one, else the mode of a plain create. */
static clconv_status open_temp(clconv_output *o, const struct stat *old)
{
    char *dir = clc_dir_of(o->target);
    size_t len = dir ? strlen(dir) + sizeof "/.clconv-XXXXXX" : 0;
    o->temp = dir ? malloc(len) : NULL;
    if (o->temp)
        snprintf(o->temp, len, "%s/.clconv-XXXXXX", dir);
    free(dir);
    if (!o->temp)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    o->fd = clc_temp_create(o->temp, &o->slot);
    const int e = errno;
    if (o->fd < 0) {
        free(o->temp);
        o->temp = NULL;
        return clc_fail(e == ENOENT || e == EACCES || e == EROFS
                            ? CLCONV_EINVAL
                            : CLCONV_EIO,
                        "cannot write '%s': cannot create a file in its "
                        "folder: %s",
                        o->shown, strerror(e));
    }
    /* Where not ours to give away, keep our owner; the mode still. */
    if (o->existed && fchown(o->fd, old->st_uid, old->st_gid) != 0)
        errno = 0;
    (void)fchmod(o->fd, clc_output_replacing_mode(o->existed ? old : NULL));
    return CLCONV_OK;
}

static clconv_status open_target(clconv_output *o, const char *path)
{
    if (strcmp(path, "-") == 0) {
        o->kind = OUT_STDOUT;
        o->fd = STDOUT_FILENO;
        fflush(stdout); /* what the caller printed goes first */
        return CLCONV_OK;
    }
    int exists = 0;
    struct stat sb;
    clconv_status st = clc_output_resolve(path, &o->target, &exists, &sb);
    if (st != CLCONV_OK)
        return st;
    if (exists && S_ISDIR(sb.st_mode))
        return clc_fail(CLCONV_EINVAL, "cannot write '%s': it is a folder",
                        path);
    if (exists && !S_ISREG(sb.st_mode)) {
        /* A FIFO, device or socket: never replaced, written through; a
         * socket (/dev/stdout of a service) through a copy of the
         * descriptor that holds it, as open(2) cannot reach it (ENXIO). */
        o->kind = OUT_STREAM;
        const int sock = S_ISSOCK(sb.st_mode)
                             ? clc_socket_fd(path, &sb)
                             : -1;
        if (sock >= 0)
            o->fd = fcntl(sock, F_DUPFD_CLOEXEC, 3);
        else
            do
                o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
            while (o->fd < 0 && errno == EINTR);
        if (o->fd < 0)
            return clc_fail(CLCONV_EIO, "cannot open '%s' for writing: %s",
                            path, strerror(errno));
        return CLCONV_OK;
    }
    o->kind = OUT_REPLACE;
    o->existed = exists;
    st = clc_output_check_folder(path, o->target);
    return st == CLCONV_OK ? open_temp(o, &sb) : st;
}

clconv_status clconv_output_open(const char *path, clconv_output **out)
{
    if (!out)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the output (NULL)");
    *out = NULL;
    if (!path || !*path)
        return clc_fail(CLCONV_EINVAL, "an empty output path");
    clconv_output *o = calloc(1, sizeof *o);
    if (!o || !(o->shown = strdup(path))) {
        free(o);
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    o->fd = -1;
    o->slot = -1;
    clconv_status st = open_target(o, path);
    if (st != CLCONV_OK) {
        output_free(o);
        return st;
    }
    *out = o;
    return CLCONV_OK;
}

/* ---- writing ------------------------------------------------------------- */

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static clconv_status write_error(const clconv_output *o)
{
    return clc_fail(CLCONV_EIO, "cannot write '%s': %s", o->shown,
                    strerror(o->err));
}

static clconv_status flush_buf(clconv_output *o)
{
    if (!o->err && o->nbuf)
        o->err = write_all(o->fd, o->buf, o->nbuf);
    o->nbuf = 0;
    return o->err ? write_error(o) : CLCONV_OK;
}

clconv_status clconv_output_write(clconv_output *o, const void *data,
                                  size_t n)
{
    const unsigned char *p = data;
    if (!o || (n && !data))
        return clc_fail(CLCONV_EINVAL, "no output or data given (NULL)");
    if (o->err)
        return write_error(o);
    if (o->nbuf + n > sizeof o->buf) {
        clconv_status st = flush_buf(o);
        if (st != CLCONV_OK)
            return st;
        if (n >= sizeof o->buf) {
            o->err = write_all(o->fd, p, n);
            return o->err ? write_error(o) : CLCONV_OK;
        }
    }
    memcpy(o->buf + o->nbuf, p, n);
    o->nbuf += n;
    return CLCONV_OK;
}

clconv_status clconv_output_printf(clconv_output *o, const char *fmt, ...)
{
    if (!o || !fmt)
        return clc_fail(CLCONV_EINVAL, "no output or format given (NULL)");
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return clc_fail(CLCONV_EINVAL, "bad format");
    if ((size_t)n < sizeof small)
        return clconv_output_write(o, small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    clconv_status st = clconv_output_write(o, big, (size_t)n);
    free(big);
    return st;
}

int clconv_output_is_stream(const clconv_output *o)
{
    return o && o->kind != OUT_REPLACE;
}

/* ---- committing ---------------------------------------------------------- */

void clconv_output_abort(clconv_output *o)
{
    if (!o)
        return;
    if (o->kind != OUT_STDOUT && o->fd >= 0)
        close(o->fd);
    if (o->temp) {
        unlink(o->temp);
        clc_temp_unregister(o->slot);
    }
    output_free(o);
}

/* Everything written reaches the file (a temporary one is fsync'ed and
 * closed, not yet renamed); a stream is closed. */
static clconv_status finish(clconv_output *o)
{
    clconv_status st = flush_buf(o);
    if (st != CLCONV_OK || o->kind == OUT_STDOUT)
        return st;
    if (o->kind == OUT_REPLACE && fsync(o->fd) != 0)
        o->err = errno;
    if (close(o->fd) != 0 && !o->err && errno != EINTR)
        o->err = errno;
    o->fd = -1;
    return o->err ? write_error(o) : CLCONV_OK;
}

/* Rename the finished temporary file over the target. */
static clconv_status put_in_place(clconv_output *o)
{
    if (rename(o->temp, o->target) != 0)
        return clc_fail(CLCONV_EIO, "cannot replace '%s': %s", o->shown,
                        strerror(errno));
    clc_temp_unregister(o->slot);
    free(o->temp);
    o->temp = NULL;
    return CLCONV_OK;
}

clconv_status clconv_output_commit(clconv_output *o)
{
    if (!o)
        return clc_fail(CLCONV_EINVAL, "no output given (NULL)");
    clconv_status st = finish(o);
    if (st == CLCONV_OK && o->kind == OUT_REPLACE)
        st = put_in_place(o);
    clconv_output_abort(o); /* removes the temporary file on an error */
    return st;
}

/* A hard link to the file at target under a fresh name in its folder, to
 * put it back with; NULL when the target did not exist or cannot be
 * linked (a file system without hard links). */
static char *backup_of(const clconv_output *o, int *slot)
{
    if (!o->existed)
        return NULL;
    char *dir = clc_dir_of(o->target);
    size_t len = dir ? strlen(dir) + sizeof "/.clconv-XXXXXX" : 0;
    char *b = dir ? malloc(len) : NULL;
    if (b)
        snprintf(b, len, "%s/.clconv-XXXXXX", dir);
    free(dir);
    for (int tries = 0; b && tries < 16; ++tries) {
        clc_temp_name(b);
        *slot = clc_temp_register(b); /* before it exists: clc_temp_create */
        if (link(o->target, b) == 0)
            return b;
        const int e = errno;
        clc_temp_unregister(*slot);
        *slot = -1;
        if (e != EEXIST)
            break;
    }
    free(b);
    return NULL;
}

/* Undo the renames of outs[0..k): each target gets its backup back, or is
 * removed when it did not exist before. */
static void roll_back(clconv_output **outs, char **backups, size_t k)
{
    for (size_t i = 0; i < k; ++i) {
        if (outs[i]->kind != OUT_REPLACE)
            continue;
        if (backups[i])
            rename(backups[i], outs[i]->target);
        else if (!outs[i]->existed)
            unlink(outs[i]->target);
    }
}

clconv_status clconv_output_commit_all(clconv_output **outs, size_t n)
{
    clconv_status st = CLCONV_OK;
    char *backups[8] = {NULL};
    int slots[8];
    if (n > 8)
        st = clc_fail(CLCONV_EINVAL, "at most 8 outputs commit together");
    if (n && !outs)
        return clc_fail(CLCONV_EINVAL, "no outputs given (NULL)");
    /* A missing one: none is committed, the others are freed as ever. */
    for (size_t i = 0; st == CLCONV_OK && i < n; ++i)
        if (!outs[i])
            st = clc_fail(CLCONV_EINVAL, "output %zu of %zu is NULL", i, n);
    /* Every byte in place first: streams closed, temporaries synced. */
    for (size_t i = 0; st == CLCONV_OK && i < n; ++i)
        st = finish(outs[i]);
    for (size_t i = 0; st == CLCONV_OK && i < n; ++i) {
        slots[i] = -1;
        if (n > 1 && outs[i]->kind == OUT_REPLACE)
            backups[i] = backup_of(outs[i], &slots[i]);
    }
    size_t done = 0;
    for (; st == CLCONV_OK && done < n; ++done)
        if (outs[done]->kind == OUT_REPLACE &&
            (st = put_in_place(outs[done])) != CLCONV_OK)
            break;
    if (st != CLCONV_OK)
        roll_back(outs, backups, done);
    for (size_t i = 0; i < n && i < 8; ++i) {
        if (backups[i]) {
            unlink(backups[i]); /* gone already where it was put back */
            clc_temp_unregister(slots[i]);
            free(backups[i]);
        }
        clconv_output_abort(outs[i]);
        outs[i] = NULL;
    }
    return st;
}
