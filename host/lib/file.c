/* Whole-file reads and atomic writes (temporary file + rename). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_io.h"
#include "internal.h"

clconv_status clconv_file_read(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return clc_fail(CLCONV_EIO, "cannot open '%s': %s", path,
                        strerror(errno));
    clconv_status st = CLCONV_OK;
    size_t cap = 0, n = 0;
    unsigned char *b = NULL;
    for (;;) {
        if (n == cap) {
            if (cap > max_len) {
                st = clc_fail(CLCONV_EINVAL, "'%s' is larger than %zu bytes",
                              path, max_len);
                goto out;
            }
            size_t ncap = cap ? cap * 2 : 65536;
            unsigned char *nb = realloc(b, ncap);
            if (!nb) {
                st = clc_fail(CLCONV_ENOMEM, "out of memory reading '%s'",
                              path);
                goto out;
            }
            b = nb;
            cap = ncap;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                st = clc_fail(CLCONV_EIO, "cannot read '%s': %s", path,
                              strerror(errno));
            break;
        }
    }
    if (st == CLCONV_OK && n > max_len)
        st = clc_fail(CLCONV_EINVAL, "'%s' is larger than %zu bytes", path,
                      max_len);
out:
    fclose(f);
    if (st != CLCONV_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = n;
    return CLCONV_OK;
}

static clconv_status write_all(int fd, const unsigned char *buf, size_t len,
                               const char *path)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return clc_fail(CLCONV_EIO, "cannot write '%s': %s", path,
                            w < 0 ? strerror(errno) : "no progress");
        buf += w;
        len -= (size_t)w;
    }
    return CLCONV_OK;
}

clconv_status clconv_file_stage(const char *path, const unsigned char *buf,
                                size_t len, clconv_staged_file *out)
{
    out->path = NULL;
    out->temp = NULL;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return clc_fail(CLCONV_EINVAL, "'%s' names a folder, not a file", path);
    size_t tlen = dirlen + strlen(base) + sizeof ".tmp.XXXXXX" + 1;
    char *temp = malloc(tlen);
    char *dest = malloc(strlen(path) + 1);
    if (!temp || !dest) {
        free(temp);
        free(dest);
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    }
    strcpy(dest, path);
    snprintf(temp, tlen, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
    int fd = mkstemp(temp);
    if (fd < 0) {
        clconv_status st = clc_fail(CLCONV_EIO,
                                    "cannot create a file next to '%s': %s",
                                    path, strerror(errno));
        free(temp);
        free(dest);
        return st;
    }
    /* mkstemp makes 0600; give the file the mode a plain create would. */
    mode_t mask = umask(0);
    umask(mask);
    clconv_status st = CLCONV_OK;
    if (fchmod(fd, 0666 & ~mask) != 0)
        st = clc_fail(CLCONV_EIO, "cannot set the mode of '%s': %s", temp,
                      strerror(errno));
    if (st == CLCONV_OK)
        st = write_all(fd, buf, len, path);
    if (st == CLCONV_OK && fsync(fd) != 0)
        st = clc_fail(CLCONV_EIO, "cannot write '%s': %s", path,
                      strerror(errno));
    if (close(fd) != 0 && st == CLCONV_OK)
        st = clc_fail(CLCONV_EIO, "cannot write '%s': %s", path,
                      strerror(errno));
    if (st != CLCONV_OK) {
        unlink(temp);
        free(temp);
        free(dest);
        return st;
    }
    out->path = dest;
    out->temp = temp;
    return CLCONV_OK;
}

clconv_status clconv_file_commit(clconv_staged_file *f)
{
    if (!f->temp)
        return clc_fail(CLCONV_EINVAL, "nothing staged for '%s'",
                        f->path ? f->path : "?");
    clconv_status st = CLCONV_OK;
    if (rename(f->temp, f->path) != 0) {
        st = clc_fail(CLCONV_EIO, "cannot rename into '%s': %s", f->path,
                      strerror(errno));
        unlink(f->temp);
    }
    free(f->temp);
    free(f->path);
    f->temp = NULL;
    f->path = NULL;
    return st;
}

void clconv_file_discard(clconv_staged_file *f)
{
    if (f->temp)
        unlink(f->temp);
    free(f->temp);
    free(f->path);
    f->temp = NULL;
    f->path = NULL;
}

int clconv_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
