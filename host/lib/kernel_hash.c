/* The hash of a variant's kernel sources (dtype.clh, common.clh and its
 * conv<D>d_<name>.cl), which a tuning entry records so that an entry of
 * sources changed since is dropped as stale.
 *
 * Every load of the tuning file checks every entry's hash, and every
 * clconv_auto_config loads the file: each call of the Python package,
 * each `run --strategy auto`. Hashing 45 kB of sources per entry made a
 * small Python call with 8 tuned entries 6.6x slower than with none. So
 * the hash is kept per variant and dims, with the folder and the identity
 * of the three files it read (device, inode, size, modification and
 * change times): a file that changed (an edit changes its change time,
 * which no one can set back) is read and hashed again. A file changed
 * within the last second is hashed again every time, its hash not kept:
 * a file's times tick more coarsely than it can be written (the "racy
 * clean" files of git's index), so an edit right after a hash could
 * leave them as they were. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clconv_io.h"
#include "clconv_tune.h"
#include "internal.h"

#define NFILES 3

typedef struct memo {
    int valid;
    uint64_t dir_hash; /* FNV-1a/64 of the kernel folder's path */
    struct stat id[NFILES];
    uint64_t hash;
} memo;

static memo memos[CLCONV_STRATEGY_COUNT][3];
/* The Python package's sessions call from several threads at once. */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long reads;

unsigned long clc_kernel_hash_reads(void)
{
    pthread_mutex_lock(&memo_lock);
    unsigned long n = reads;
    pthread_mutex_unlock(&memo_lock);
    return n;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
           a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
           a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Changed within the last second (or in the future: another host's
 * clock)? */
static int recent(const struct stat *sb, const struct timespec *now)
{
    return sb->st_mtim.tv_sec >= now->tv_sec - 1 ||
           sb->st_ctim.tv_sec >= now->tv_sec - 1;
}

/* Read and hash the files at path[] into *hash. */
static clconv_status hash_files(char path[NFILES][4200], uint64_t *hash)
{
    uint64_t h = CLC_FNV1A64_INIT;
    for (int k = 0; k < NFILES; ++k) {
        unsigned char *text = NULL;
        size_t n = 0;
        if (clconv_file_read(path[k], (size_t)64 << 20, &text, &n) !=
            CLCONV_OK)
            return clc_fail(CLCONV_ENOKERNELS, "no kernel source %s",
                            path[k]);
        h = clc_fnv1a64(h, text, n);
        free(text);
    }
    *hash = h;
    return CLCONV_OK;
}

clconv_status clconv_kernel_hash(clconv_strategy s, int dims, uint64_t *hash)
{
    if (!hash)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the hash (NULL)");
    const char *dir = NULL;
    char stem[64];
    if (clc_kernel_stem(s, dims, stem, sizeof stem))
        return clc_fail(CLCONV_ENOKERNELS, "unknown strategy %d", (int)s);
    clconv_status st = clconv_kernel_dir(&dir);
    if (st != CLCONV_OK)
        return st;
    char path[NFILES][4200];
    snprintf(path[0], sizeof path[0], "%s/dtype.clh", dir);
    snprintf(path[1], sizeof path[1], "%s/common.clh", dir);
    snprintf(path[2], sizeof path[2], "%s/%s.cl", dir, stem);
    const uint64_t dir_hash = clc_fnv1a64(CLC_FNV1A64_INIT, dir, strlen(dir));
    /* The files as they are before the read (none missing: else no
     * memo, and the read says which). */
    struct stat before[NFILES];
    int known = 1;
    for (int k = 0; k < NFILES; ++k)
        known = known && stat(path[k], &before[k]) == 0;
    memo *m = &memos[s][dims - 1];
    pthread_mutex_lock(&memo_lock);
    int hit = known && m->valid && m->dir_hash == dir_hash;
    for (int k = 0; hit && k < NFILES; ++k)
        hit = same_file(&m->id[k], &before[k]);
    if (hit)
        *hash = m->hash;
    else
        ++reads;
    pthread_mutex_unlock(&memo_lock);
    if (hit)
        return CLCONV_OK;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t h = 0;
    st = hash_files(path, &h);
    if (st != CLCONV_OK)
        return st;
    *hash = h;
    /* Kept only for files that stayed as they were while read and are
     * older than the times' resolution. */
    int keep = known;
    for (int k = 0; keep && k < NFILES; ++k) {
        struct stat after;
        keep = stat(path[k], &after) == 0 && same_file(&after, &before[k]) &&
               !recent(&after, &now);
    }
    pthread_mutex_lock(&memo_lock);
    m->valid = keep;
    m->dir_hash = dir_hash;
    memcpy(m->id, before, sizeof m->id);
    m->hash = h;
    pthread_mutex_unlock(&memo_lock);
    return CLCONV_OK;
}
