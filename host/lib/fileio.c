/* Files: the one whole-file reader, the one atomic whole-file writer (on
 * top of the output API of output.c), the cache folder and the hash the
 * caches key on. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_io.h"
#include "internal.h"

/* ---- reading ------------------------------------------------------------ */

/* Open path for reading (with flags added) and fstat it; a folder is
 * CLCONV_EINVAL. Path "-" is standard input, read from where it stands
 * (a copy of descriptor 0, which stays open): opening /dev/stdin instead
 * read a redirected file from its start whatever a caller before had
 * taken of it, and fails on a socket (ENXIO). */
static clconv_status stream_open(const char *path, int flags, clc_stream *s,
                                 struct stat *sb)
{
    memset(s, 0, sizeof *s);
    const int dash = strcmp(path, "-") == 0;
    s->path = dash ? "standard input" : path;
    s->fd = dash ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3)
                 : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags);
    int e = errno, sock;
    /* A socket that a descriptor of ours holds (/dev/stdin of a service)
     * is read through a copy of it: open(2) cannot reach a socket. */
    if (s->fd < 0 && e == ENXIO && stat(path, sb) == 0 &&
        S_ISSOCK(sb->st_mode) && (sock = clc_socket_fd(path, sb)) >= 0 &&
        (s->fd = fcntl(sock, F_DUPFD_CLOEXEC, 3)) < 0)
        e = errno;
    if (s->fd < 0)
        return clc_fail(CLCONV_EIO, "cannot open '%s': %s", s->path,
                        strerror(e));
    if (fstat(s->fd, sb) != 0 || S_ISDIR(sb->st_mode)) {
        close(s->fd);
        s->fd = -1;
        return clc_fail(CLCONV_EINVAL, "'%s' is a folder, not a file",
                        s->path);
    }
    return CLCONV_OK;
}

clconv_status clc_stream_read(clc_stream *s, size_t want)
{
    while (!s->eof && s->n < want) {
        if (s->n + 1 >= s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 65536;
            if (cap > want + 2)
                cap = want + 2; /* more than n + 1: n < want */
            unsigned char *nb = realloc(s->b, cap);
            if (!nb)
                return clc_fail(CLCONV_ENOMEM, "out of memory reading '%s'",
                                s->path);
            s->b = nb;
            s->cap = cap;
        }
        ssize_t got = read(s->fd, s->b + s->n, s->cap - 1 - s->n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return clc_fail(CLCONV_EIO, "cannot read '%s': %s", s->path,
                            strerror(errno));
        if (got == 0)
            s->eof = 1;
        s->n += (size_t)got;
    }
    return CLCONV_OK;
}

/* Close; on st == CLCONV_OK hand over the bytes (NUL-terminated), else
 * free them. Returns st. */
static clconv_status stream_finish(clc_stream *s, clconv_status st,
                                   unsigned char **buf, size_t *len)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (st == CLCONV_OK && !s->b && !(s->b = malloc(1)))
        st = clc_fail(CLCONV_ENOMEM, "out of memory");
    if (st != CLCONV_OK) {
        free(s->b);
        s->b = NULL;
        return st;
    }
    s->b[s->n] = '\0';
    *buf = s->b;
    *len = s->n;
    return CLCONV_OK;
}

static clconv_status too_large(const clc_stream *s, size_t max_len)
{
    return clc_fail(CLCONV_EINVAL, "'%s' is larger than %zu bytes", s->path,
                    max_len);
}

/* An opened file (sb its fstat) read to its end, at most max_len bytes,
 * handed over as stream_finish does. */
static clconv_status read_all(clc_stream *s, const struct stat *sb,
                              size_t max_len, unsigned char **buf,
                              size_t *len)
{
    /* A regular file's size says at once whether it is too large (a
     * sparse or runaway file, a damaged cache entry of gigabytes, is not
     * read up to max_len to find out), and sizes the buffer. */
    if (S_ISREG(sb->st_mode) && (unsigned long long)sb->st_size > max_len)
        return stream_finish(s, too_large(s, max_len), buf, len);
    if (S_ISREG(sb->st_mode) && sb->st_size > 0) {
        s->b = malloc((size_t)sb->st_size + 2);
        s->cap = s->b ? (size_t)sb->st_size + 2 : 0;
    }
    clconv_status st = clc_stream_read(s, max_len + 1);
    if (st == CLCONV_OK && s->n > max_len)
        st = too_large(s, max_len); /* grew while read, or not regular */
    return stream_finish(s, st, buf, len);
}

clconv_status clc_read_path(const char *path, size_t max_len,
                            clconv_status (*stream)(clc_stream *s,
                                                    size_t max_len),
                            unsigned char **buf, size_t *len)
{
    if (!buf || !len)
        return clc_fail(CLCONV_EINVAL, "nowhere to put what is read (NULL)");
    *buf = NULL;
    *len = 0;
    clc_stream s;
    struct stat sb;
    clconv_status st = stream_open(path, 0, &s, &sb);
    if (st != CLCONV_OK)
        return st;
    if (stream && !S_ISREG(sb.st_mode))
        return stream_finish(&s, stream(&s, max_len), buf, len);
    return read_all(&s, &sb, max_len, buf, len);
}

clconv_status clc_read_regular(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    clc_stream s;
    struct stat sb;
    /* Without blocking: opening a FIFO waits for a writer. */
    clconv_status st = stream_open(path, O_NONBLOCK, &s, &sb);
    if (st != CLCONV_OK)
        return st;
    if (!S_ISREG(sb.st_mode))
        return stream_finish(
            &s, clc_fail(CLCONV_EIO, "'%s' is not a regular file", path),
            buf, len);
    return read_all(&s, &sb, max_len, buf, len);
}

clconv_status clconv_file_read(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len)
{
    return clc_read_path(path, max_len, NULL, buf, len);
}

int clconv_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- writing ------------------------------------------------------------ */

clconv_status clconv_file_write(const char *path, const void *data, size_t n)
{
    if (n && !data)
        return clc_fail(CLCONV_EINVAL, "no data to write given (NULL)");
    clconv_output *o = NULL;
    clconv_status st = clconv_output_open(path, &o);
    if (st != CLCONV_OK)
        return st;
    st = clconv_output_write(o, data, n);
    if (st != CLCONV_OK) {
        clconv_output_abort(o);
        return st;
    }
    return clconv_output_commit(o);
}

/* ---- hash and cache folder ---------------------------------------------- */

uint64_t clc_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* mkdir -p of an absolute path. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; ++p) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int r = mkdir(path, 0755);
        int e = errno;
        *p = c;
        if (r != 0 && e != EEXIST)
            return -1;
        if (c == '\0')
            return 0;
    }
}

clconv_status clc_cache_dir(const char *sub, int create, char *buf,
                            size_t len)
{
    /* The XDG base directory spec ignores a relative XDG_CACHE_HOME. */
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/clconv%s%s", xdg, sub ? "/" : "",
                     sub ? sub : "");
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/clconv%s%s", home, sub ? "/" : "",
                     sub ? sub : "");
    else
        return clc_fail(CLCONV_EIO, "no cache folder: neither XDG_CACHE_HOME "
                                    "nor HOME is an absolute path");
    if (n < 0 || (size_t)n >= len)
        return clc_fail(CLCONV_EIO, "cache folder path too long");
    if (create && make_dirs(buf) != 0)
        return clc_fail(CLCONV_EIO, "cannot create cache folder %s: %s", buf,
                        strerror(errno));
    return CLCONV_OK;
}
