/* The program binary cache, so that a repeated run does not pay the JIT
 * (its folder, hash and files come from fileio.c and output.c).
 *
 * An entry of the binary cache is $XDG_CACHE_HOME/clconv/programs/<h>.bin
 * where h is FNV-1a/64 of the key text: the cache format, clconv's
 * version, the device name, CL_DRIVER_VERSION, CL_PLATFORM_VERSION, the
 * full build options and the exact source strings. The entry stores the
 * whole key text and a checksum of everything after its header, so a hash
 * collision, a truncated or a corrupt file is recognised; any doubt deletes
 * the entry and the caller builds from source. The folder is kept under
 * $CLCONV_CACHE_MAX_MB, least recently used entries first (cache_bound.c),
 * added up after a process's first store and then after each hundredth
 * of the bound it stores (scan_due). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clconv_io.h"
#include "internal.h"

char *clc_effective_options(const char *options)
{
    const char *extra = getenv("CLCONV_BUILD_OPTIONS");
    if (!extra)
        extra = "";
    size_t n = strlen(options) + 1 + strlen(extra) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", options, *extra ? " " : "", extra);
    return s;
}

int clc_program_disk_cache_enabled(void)
{
    const char *v = getenv("CLCONV_NO_CACHE");
    return !v || !*v || strcmp(v, "0") == 0;
}

/* ---- the program binary cache ------------------------------------------ */

static _Thread_local clc_program_disk_stats stats;

void clc_program_disk_stats_get(clc_program_disk_stats *out) { *out = stats; }

/* Entry layout (native byte order: the cache belongs to this machine). */
static const char magic[8] = {'C', 'L', 'C', 'V', 'B', 'I', 'N', '1'};
typedef struct entry_header {
    char magic[8];
    uint64_t key_len;  /* bytes of key text that follow the header */
    uint64_t bin_len;  /* bytes of binary after the key text */
    uint64_t checksum; /* FNV-1a/64 of key text and binary */
} entry_header;

/* A growing byte string. */
typedef struct text {
    char *p;
    size_t n, cap;
    int oom;
} text;

static void put(text *t, const void *data, size_t n)
{
    if (t->oom)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = (t->n + n + 1) * 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, data, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void put_field(text *t, const char *name, const char *value, size_t n)
{
    char head[96];
    /* Length-prefixed, so no value can imitate the next field. */
    snprintf(head, sizeof head, "%s %zu\n", name, n);
    put(t, head, strlen(head));
    put(t, value, n);
    put(t, "\n", 1);
}

/* The key text and the entry's path; 0 on success. */
static int entry_key(clconv_session *s, const char *const *parts,
                     size_t nparts, const char *options, text *key,
                     char *path, size_t len)
{
    char pver[256] = "";
    if (clGetPlatformInfo((cl_platform_id)s->dev.opaque_platform,
                          CL_PLATFORM_VERSION, sizeof pver, pver,
                          NULL) != CL_SUCCESS)
        return -1;
    put_field(key, "format", "clconv program binary 1", 23);
    put_field(key, "clconv", CLCONV_VERSION_STRING,
              strlen(CLCONV_VERSION_STRING));
    put_field(key, "device", s->dev.name, strlen(s->dev.name));
    put_field(key, "driver", s->dev.driver, strlen(s->dev.driver));
    put_field(key, "platform", pver, strlen(pver));
    put_field(key, "options", options, strlen(options));
    for (size_t i = 0; i < nparts; ++i)
        put_field(key, "source", parts[i], strlen(parts[i]));
    if (key->oom)
        return -1;
    char dir[4096];
    if (clc_cache_dir("programs", 0, dir, sizeof dir) != CLCONV_OK)
        return -1;
    uint64_t h = clc_fnv1a64(CLC_FNV1A64_INIT, key->p, key->n);
    int n = snprintf(path, len, "%s/%016llx.bin", dir, (unsigned long long)h);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Is the folder to be added up against the bound after a store of n
 * bytes? After this thread's first store, then each time it has stored
 * a hundredth of the bound since it last did: adding up stats every
 * entry (0.28 s for 16000 entries on 2 loaded cores, as long as a build),
 * so a process that stores thousands of programs (the test matrix) does
 * not add them up after each; each process may take the folder a
 * hundredth of the bound past it meanwhile. */
static _Thread_local uint64_t stored_since_scan;
static _Thread_local int scanned_once;

static int scan_due(uint64_t bound, size_t n)
{
    stored_since_scan += n;
    if (bound == 0 || (scanned_once && stored_since_scan < bound / 100))
        return 0;
    scanned_once = 1;
    stored_since_scan = 0;
    ++stats.scans;
    return 1;
}

static void reject(const char *path, const char *why)
{
    ++stats.rejected;
    snprintf(stats.last_reject, sizeof stats.last_reject, "%s: %s", path, why);
    unlink(path);
}

void clc_program_disk_load(clconv_session *s, const char *const *parts,
                           size_t nparts, const char *options,
                           cl_program *out)
{
    *out = NULL;
    if (!clc_program_disk_cache_enabled())
        return;
    text key = {0};
    char path[4200];
    unsigned char *udata = NULL;
    size_t n = 0;
    cl_program prog = NULL;
    if (entry_key(s, parts, nparts, options, &key, path, sizeof path) != 0)
        goto out;
    if (access(path, F_OK) != 0) {
        ++stats.misses;
        goto out;
    }
    /* An entry is at most key, binary and header: 1 GiB is beyond doubt. */
    if (clc_read_regular(path, (size_t)1 << 30, &udata, &n) != CLCONV_OK) {
        if (access(path, F_OK) != 0)
            ++stats.misses; /* evicted by another process meanwhile */
        else
            reject(path, "unreadable, or not a regular file");
        goto out;
    }
    const char *data = (const char *)udata;
    entry_header h;
    if (n < sizeof h) {
        reject(path, "shorter than its header");
        goto out;
    }
    memcpy(&h, data, sizeof h);
    const char *body = data + sizeof h;
    if (memcmp(h.magic, magic, sizeof magic) != 0) {
        reject(path, "not a clconv program binary");
        goto out;
    }
    if (h.key_len > n - sizeof h || h.bin_len != n - sizeof h - h.key_len ||
        h.bin_len == 0) {
        reject(path, "sizes in the header do not match the file");
        goto out;
    }
    if (clc_fnv1a64(CLC_FNV1A64_INIT, body, n - sizeof h) != h.checksum) {
        reject(path, "checksum mismatch");
        goto out;
    }
    if (h.key_len != key.n || memcmp(body, key.p, key.n) != 0) {
        reject(path, "stored key differs (hash collision or stale entry)");
        goto out;
    }
    const unsigned char *bin = (const unsigned char *)body + h.key_len;
    size_t bin_len = (size_t)h.bin_len;
    cl_int err, bstatus = CL_SUCCESS;
    prog = clCreateProgramWithBinary(s->context, 1, &s->device, &bin_len,
                                     &bin, &bstatus, &err);
    if (err != CL_SUCCESS || bstatus != CL_SUCCESS) {
        reject(path, "the driver refused the binary");
        goto out;
    }
    if (clBuildProgram(prog, 1, &s->device, options, NULL, NULL) !=
        CL_SUCCESS) {
        reject(path, "building the binary failed");
        goto out;
    }
    ++stats.hits;
    clc_cache_touch(path);
    *out = prog;
    prog = NULL;
out:
    if (prog)
        clReleaseProgram(prog);
    free(udata);
    free(key.p);
}

void clc_program_disk_store(clconv_session *s, const char *const *parts,
                            size_t nparts, const char *options,
                            cl_program prog)
{
    if (!clc_program_disk_cache_enabled())
        return;
    text key = {0}, entry = {0};
    char path[4200];
    unsigned char *bin = NULL;
    size_t bin_len = 0;
    cl_uint ndev = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev,
                         NULL) != CL_SUCCESS ||
        ndev != 1 ||
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bin_len,
                         &bin_len, NULL) != CL_SUCCESS ||
        bin_len == 0)
        goto out;
    bin = malloc(bin_len);
    if (!bin || clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                                 NULL) != CL_SUCCESS)
        goto out;
    if (entry_key(s, parts, nparts, options, &key, path, sizeof path) != 0)
        goto out;
    char dir[4096];
    if (clc_cache_dir("programs", 1, dir, sizeof dir) != CLCONV_OK)
        goto out;
    entry_header h;
    memcpy(h.magic, magic, sizeof magic);
    h.key_len = key.n;
    h.bin_len = bin_len;
    h.checksum = clc_fnv1a64(clc_fnv1a64(CLC_FNV1A64_INIT, key.p, key.n), bin,
                             bin_len);
    put(&entry, &h, sizeof h);
    put(&entry, key.p, key.n);
    put(&entry, bin, bin_len);
    if (!entry.oom && clconv_file_write(path, entry.p, entry.n) == CLCONV_OK) {
        ++stats.stored;
        const uint64_t bound = clc_cache_bound_bytes();
        if (scan_due(bound, entry.n))
            stats.evicted += (unsigned long)clc_cache_evict(
                dir, ".bin", bound, strrchr(path, '/') + 1);
    }
out:
    free(entry.p);
    free(key.p);
    free(bin);
}
