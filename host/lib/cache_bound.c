/* The program binary cache's bound: the least recently used entries go
 * first once the folder holds more than $CLCONV_CACHE_MAX_MB.
 *
 * An entry's modification time is its last use: written when it is
 * stored, set to now again when a build is answered from it
 * (clc_cache_touch). After a process's first store, and then after each
 * hundredth of the bound it has stored (program_cache.c's scan_due: the
 * scan stats every entry), clc_cache_evict adds up the folder's entries
 * and, above the bound, deletes the oldest until they hold at most nine
 * tenths of it (so that the next stores do not each delete one entry). Several processes may
 * evict at once: an entry another one deleted first is skipped, and a
 * process that has an entry open keeps reading it (POSIX unlink). Only
 * regular files named *<suffix> count; nothing else in the folder is
 * touched. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

uint64_t clc_cache_bound_bytes(void)
{
    const char *v = getenv("CLCONV_CACHE_MAX_MB");
    char *end = NULL;
    double mb = v && *v ? strtod(v, &end) : -1.0;
    if (!v || !*v || *end != '\0' || !(mb >= 0.0) || mb > 1e9)
        mb = CLC_CACHE_DEFAULT_MB; /* unset or not a number: the default */
    const uint64_t bytes = (uint64_t)(mb * 1048576.0);
    return bytes == 0 && mb > 0.0 ? 1 : bytes; /* 0 is "no bound" */
}

void clc_cache_touch(const char *path)
{
    /* A failure only makes the entry look older than it is. */
    (void)utimensat(AT_FDCWD, path, NULL, 0);
}

typedef struct cache_entry {
    char *name;
    uint64_t bytes;
    struct timespec used;
} cache_entry;

static int older_first(const void *a, const void *b)
{
    const cache_entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

long clc_cache_evict(const char *dir, const char *suffix, uint64_t max_bytes,
                     const char *keep)
{
    if (max_bytes == 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    cache_entry *e = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    long evicted = 0;
    int fd = dirfd(d);
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (!has_suffix(de->d_name, suffix) ||
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        if (keep && strcmp(de->d_name, keep) == 0)
            continue; /* counted, never deleted */
        if (n == cap) {
            size_t c = cap ? 2 * cap : 256;
            cache_entry *g = realloc(e, c * sizeof *g);
            if (!g)
                goto out;
            e = g, cap = c;
        }
        e[n].name = strdup(de->d_name);
        if (!e[n].name)
            goto out;
        e[n].bytes = (uint64_t)st.st_size;
        e[n].used = st.st_mtim;
        ++n;
    }
    if (total > max_bytes) {
        const uint64_t target = max_bytes / 10 * 9;
        qsort(e, n, sizeof *e, older_first);
        for (size_t i = 0; i < n && total > target; ++i) {
            if (unlinkat(fd, e[i].name, 0) == 0)
                ++evicted;
            else if (errno != ENOENT)
                continue; /* still there: still counted */
            total -= e[i].bytes; /* deleted, by us or by another process */
        }
    }
out:
    for (size_t i = 0; i < n; ++i)
        free(e[i].name);
    free(e);
    closedir(d);
    return evicted;
}
