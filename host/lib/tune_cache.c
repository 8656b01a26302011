/* The tuning cache: one text file per device, its entries, and
 * clconv_auto_config(), which reads it.
 *
 * File format (tab-separated, one record a line):
 *   clconv tuning 1
 *   device  <CL_DEVICE_NAME>
 *   driver  <CL_DRIVER_VERSION>
 *   clconv  <CLCONV_VERSION_STRING>
 *   entry   dims mask size_class strategy tile coarsen group_y ms
 *           NXxNYxNZ kernel_hash
 *   ...
 *   checksum <FNV-1a/64 of every byte before this line, 16 hex digits> */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_tune.h"
#include "internal.h"

static const char format_line[] = "clconv tuning 1";

int clconv_size_class(const clconv_problem *p)
{
    size_t n = clconv_problem_elements(p);
    int c = 0;
    while (n > 1) {
        n >>= 1;
        ++c;
    }
    return c;
}

/* A header value as written: tabs and control characters become '?', so
 * that the value stays on its line and in its field. */
static void clean(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; ++i)
        out[i] = (unsigned char)in[i] < 0x20 ? '?' : in[i];
    out[i] = '\0';
}

clconv_status clconv_tune_path(const clconv_device_info *dev, char *buf,
                               size_t len)
{
    char dir[4096];
    clconv_status st = clc_cache_dir(NULL, 0, dir, sizeof dir);
    if (st != CLCONV_OK)
        return st;
    uint64_t h = clc_fnv1a64(CLC_FNV1A64_INIT, dev->name, strlen(dev->name));
    h = clc_fnv1a64(h, "\n", 1);
    h = clc_fnv1a64(h, dev->driver, strlen(dev->driver));
    int n = snprintf(buf, len, "%s/tune-%016" PRIx64 ".txt", dir, h);
    if (n < 0 || (size_t)n >= len)
        return clc_fail(CLCONV_EIO, "tuning cache path too long");
    return CLCONV_OK;
}

clconv_status clconv_kernel_hash(clconv_strategy s, int dims, uint64_t *hash)
{
    const char *dir = NULL;
    char stem[64];
    if (clc_kernel_stem(s, dims, stem, sizeof stem))
        return clc_fail(CLCONV_ENOKERNELS, "unknown strategy %d", (int)s);
    clconv_status st = clconv_kernel_dir(&dir);
    if (st != CLCONV_OK)
        return st;
    char path[4200];
    uint64_t h = CLC_FNV1A64_INIT;
    for (int k = 0; k < 2; ++k) {
        if (k == 0)
            snprintf(path, sizeof path, "%s/common.clh", dir);
        else
            snprintf(path, sizeof path, "%s/%s.cl", dir, stem);
        char *text = NULL;
        size_t n = 0;
        st = clc_read_all(path, &text, &n);
        if (st != CLCONV_OK)
            return clc_fail(CLCONV_ENOKERNELS, "no kernel source %s", path);
        h = clc_fnv1a64(h, text, n);
        free(text);
    }
    *hash = h;
    return CLCONV_OK;
}

void clconv_tune_table_free(clconv_tune_table *t)
{
    free(t->entries);
    memset(t, 0, sizeof *t);
}

static int same_class(const clconv_tuning *a, const clconv_tuning *b)
{
    return a->dims == b->dims && a->mask_width == b->mask_width &&
           a->size_class == b->size_class;
}

clconv_status clconv_tune_put(clconv_tune_table *t, const clconv_tuning *e)
{
    for (size_t i = 0; i < t->count; ++i)
        if (same_class(&t->entries[i], e)) {
            t->entries[i] = *e;
            return CLCONV_OK;
        }
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        clconv_tuning *p = realloc(t->entries, cap * sizeof *p);
        if (!p)
            return clc_fail(CLCONV_ENOMEM, "out of memory");
        t->entries = p;
        t->cap = cap;
    }
    t->entries[t->count++] = *e;
    return CLCONV_OK;
}

const clconv_tuning *clconv_tune_find(const clconv_tune_table *t,
                                      const clconv_problem *p)
{
    const int c = clconv_size_class(p);
    const clconv_tuning *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < t->count; ++i) {
        const clconv_tuning *e = &t->entries[i];
        if (e->dims != p->dims || e->mask_width != p->mask_width)
            continue;
        int d = abs(e->size_class - c);
        if (d < best_d) {
            best = e;
            best_d = d;
        }
    }
    return best;
}

/* ---- reading ------------------------------------------------------------ */

/* Split line (NUL-terminated, modified) at tabs into at most max fields. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;;) {
        if (n == max)
            return max + 1;
        f[n++] = p;
        p = strchr(p, '\t');
        if (!p)
            return n;
        *p++ = '\0';
    }
}

static int parse_int(const char *s, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* One "entry" line's fields after the tag; 0 on success. */
static int parse_entry(char **f, clconv_tuning *e)
{
    memset(e, 0, sizeof *e);
    char *end;
    unsigned long long nx, ny, nz;
    if (parse_int(f[0], 1, 3, &e->dims) ||
        parse_int(f[1], 1, 1023, &e->mask_width) ||
        parse_int(f[2], 0, 63, &e->size_class) ||
        clconv_strategy_parse(f[3], &e->strategy) != CLCONV_OK ||
        parse_int(f[4], 1, 65536, &e->tile) ||
        parse_int(f[5], 0, 65536, &e->coarsen) ||
        parse_int(f[6], 0, 65536, &e->group_y))
        return -1;
    errno = 0;
    e->ms = strtod(f[7], &end);
    if (errno || end == f[7] || *end || !(e->ms >= 0))
        return -1;
    int used = 0;
    if (sscanf(f[8], "%llux%llux%llu%n", &nx, &ny, &nz, &used) != 3 ||
        f[8][used] || !nx || !ny || !nz)
        return -1;
    e->size[0] = (size_t)nx;
    e->size[1] = (size_t)ny;
    e->size[2] = (size_t)nz;
    errno = 0;
    e->kernel_hash = strtoull(f[9], &end, 16);
    if (errno || end == f[9] || *end || strlen(f[9]) != 16)
        return -1;
    return 0;
}

/* Parse a whole file into t; CLCONV_EIO with the reason on any doubt. */
static clconv_status parse_file(const clconv_device_info *dev, char *data,
                                size_t n, const char *path,
                                clconv_tune_table *t)
{
    /* The checksum line is the last line; it covers everything before. */
    if (n == 0 || data[n - 1] != '\n')
        return clc_fail(CLCONV_EIO, "%s: truncated (no final newline)", path);
    data[n - 1] = '\0';
    char *last = strrchr(data, '\n');
    if (!last)
        return clc_fail(CLCONV_EIO, "%s: no checksum line", path);
    ++last;
    uint64_t want = clc_fnv1a64(CLC_FNV1A64_INIT, data,
                                (size_t)(last - data));
    last[-1] = '\0';
    char *f[12];
    char *end;
    if (split(last, f, 2) != 2 || strcmp(f[0], "checksum") != 0 ||
        strlen(f[1]) != 16 || strtoull(f[1], &end, 16) != want || *end)
        return clc_fail(CLCONV_EIO, "%s: checksum mismatch (corrupt file)",
                        path);
    char name[256], driver[128];
    clean(dev->name, name, sizeof name);
    clean(dev->driver, driver, sizeof driver);
    /* The header, in order; then only entries. */
    const char *want_tag[4] = {NULL, "device", "driver", "clconv"};
    const char *want_val[4] = {NULL, name, driver, CLCONV_VERSION_STRING};
    int lineno = 0;
    for (char *line = data; line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int nf = split(line, f, 11);
        if (lineno == 0) {
            if (nf != 1 || strcmp(f[0], format_line) != 0)
                return clc_fail(CLCONV_EIO, "%s: not a clconv tuning file "
                                            "of this format", path);
        } else if (lineno < 4) {
            if (nf != 2 || strcmp(f[0], want_tag[lineno]) != 0)
                return clc_fail(CLCONV_EIO, "%s:%d: expected the %s line",
                                path, lineno + 1, want_tag[lineno]);
            if (strcmp(f[1], want_val[lineno]) != 0)
                return clc_fail(CLCONV_EIO, "%s: stale: made for %s '%s', "
                                            "this is '%s'",
                                path, want_tag[lineno], f[1],
                                want_val[lineno]);
        } else if (nf == 11 && strcmp(f[0], "entry") == 0) {
            clconv_tuning e;
            if (parse_entry(f + 1, &e) != 0)
                return clc_fail(CLCONV_EIO, "%s:%d: malformed entry", path,
                                lineno + 1);
            uint64_t h = 0;
            if (clconv_kernel_hash(e.strategy, e.dims, &h) != CLCONV_OK ||
                h != e.kernel_hash) {
                ++t->stale; /* its kernel changed or is gone */
            } else if (clconv_tune_put(t, &e) != CLCONV_OK) {
                return CLCONV_ENOMEM;
            }
        } else {
            return clc_fail(CLCONV_EIO, "%s:%d: unexpected line", path,
                            lineno + 1);
        }
        ++lineno;
        line = next;
    }
    if (lineno < 4)
        return clc_fail(CLCONV_EIO, "%s: incomplete header", path);
    return CLCONV_OK;
}

clconv_status clconv_tune_load(const clconv_device_info *dev,
                               clconv_tune_table *t)
{
    clconv_tune_table_free(t);
    char path[4200];
    clconv_status st = clconv_tune_path(dev, path, sizeof path);
    if (st != CLCONV_OK)
        return st;
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return errno == ENOENT ? CLCONV_OK
                               : clc_fail(CLCONV_EIO, "cannot open %s: %s",
                                          path, strerror(errno));
    fclose(probe);
    char *data = NULL;
    size_t n = 0;
    st = clc_read_all(path, &data, &n);
    if (st == CLCONV_OK)
        st = parse_file(dev, data, n, path, t);
    free(data);
    if (st != CLCONV_OK) {
        size_t stale = t->stale;
        clconv_tune_table_free(t);
        t->stale = stale;
        if (st != CLCONV_ENOMEM)
            st = CLCONV_EIO;
    }
    return st;
}

/* ---- writing ------------------------------------------------------------ */

clconv_status clconv_tune_save(const clconv_device_info *dev,
                               const clconv_tune_table *t)
{
    char path[4200], dir[4096];
    clconv_status st = clconv_tune_path(dev, path, sizeof path);
    if (st == CLCONV_OK)
        st = clc_cache_dir(NULL, 1, dir, sizeof dir);
    if (st != CLCONV_OK)
        return st;
    size_t cap = 1024 + t->count * 256;
    char *buf = malloc(cap);
    if (!buf)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    char name[256], driver[128];
    clean(dev->name, name, sizeof name);
    clean(dev->driver, driver, sizeof driver);
    size_t n = (size_t)snprintf(buf, cap, "%s\ndevice\t%s\ndriver\t%s\n"
                                          "clconv\t%s\n",
                                format_line, name, driver,
                                CLCONV_VERSION_STRING);
    for (size_t i = 0; i < t->count && n < cap; ++i) {
        const clconv_tuning *e = &t->entries[i];
        n += (size_t)snprintf(
            buf + n, cap - n,
            "entry\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%.9g\t%llux%llux%llu\t"
            "%016" PRIx64 "\n",
            e->dims, e->mask_width, e->size_class,
            clconv_strategy_name(e->strategy), e->tile, e->coarsen,
            e->group_y, e->ms, (unsigned long long)e->size[0],
            (unsigned long long)e->size[1], (unsigned long long)e->size[2],
            e->kernel_hash);
    }
    if (n + 40 >= cap) {
        free(buf);
        return clc_fail(CLCONV_ENOMEM, "tuning file buffer too small");
    }
    uint64_t h = clc_fnv1a64(CLC_FNV1A64_INIT, buf, n);
    n += (size_t)snprintf(buf + n, cap - n, "checksum\t%016" PRIx64 "\n", h);
    st = clc_write_atomic(path, buf, n);
    free(buf);
    return st;
}

/* ---- auto ----------------------------------------------------------------- */

clconv_status clconv_auto_config(const clconv_device_info *dev,
                                 clconv_problem *p, int *tuned)
{
    *tuned = 0;
    clconv_problem shape = *p;
    shape.strategy = CLCONV_NAIVE;
    shape.tile = 1;
    clconv_status st = clconv_problem_validate(&shape);
    if (st != CLCONV_OK)
        return st;
    clconv_tune_table t = {0};
    const clconv_tuning *e = NULL;
    if (clconv_tune_load(dev, &t) == CLCONV_OK)
        e = clconv_tune_find(&t, p);
    if (e) {
        p->strategy = e->strategy;
        p->tile = e->tile;
        p->coarsen = e->coarsen;
        p->group_y = e->group_y;
        *tuned = 1;
    } else {
        clconv_pick_default(dev, p);
        p->coarsen = 0;
        p->group_y = 0;
    }
    clconv_tune_table_free(&t);
    return CLCONV_OK;
}
