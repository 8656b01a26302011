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

/* Read from fd until EOF or more than max_len bytes; grows *b as it goes,
 * never beyond max_len + 2 bytes (one to notice an overlong file, one for
 * the NUL). */
static clconv_status read_fd(int fd, const char *path, size_t max_len,
                             size_t hint, unsigned char **b, size_t *n)
{
    size_t cap = 0;
    *b = NULL;
    *n = 0;
    for (;;) {
        if (*n + 1 >= cap) {
            if (cap > max_len)
                return clc_fail(CLCONV_EINVAL, "'%s' is larger than %zu bytes",
                                path, max_len);
            size_t want = cap ? cap * 2 : (hint ? hint + 2 : 65536);
            if (want > max_len + 2)
                want = max_len + 2;
            unsigned char *nb = realloc(*b, want);
            if (!nb)
                return clc_fail(CLCONV_ENOMEM, "out of memory reading '%s'",
                                path);
            *b = nb;
            cap = want;
        }
        ssize_t got = read(fd, *b + *n, cap - 1 - *n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return clc_fail(CLCONV_EIO, "cannot read '%s': %s", path,
                            strerror(errno));
        if (got == 0)
            break;
        *n += (size_t)got;
    }
    if (*n > max_len)
        return clc_fail(CLCONV_EINVAL, "'%s' is larger than %zu bytes", path,
                        max_len);
    (*b)[*n] = '\0';
    return CLCONV_OK;
}

clconv_status clconv_file_read(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return clc_fail(CLCONV_EIO, "cannot open '%s': %s", path,
                        strerror(errno));
    struct stat sb;
    size_t hint = 0;
    if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        close(fd);
        return clc_fail(CLCONV_EINVAL, "'%s' is a folder, not a file", path);
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (unsigned long long)sb.st_size <= max_len)
        hint = (size_t)sb.st_size;
    unsigned char *b = NULL;
    size_t n = 0;
    clconv_status st = read_fd(fd, path, max_len, hint, &b, &n);
    close(fd);
    if (st != CLCONV_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = n;
    return CLCONV_OK;
}

int clconv_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- writing ------------------------------------------------------------ */

clconv_status clconv_file_write(const char *path, const void *data, size_t n)
{
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
