/* The tuning file on disk (its format is in tune_cache.c): reading it,
 * with every entry checked against the planner's ranges and the device's
 * limits, and saving a table by merging it, under an flock(2) on
 * "<file>.lock", into what the file holds by then, so that concurrent
 * `clconv tune` processes keep each other's entries. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clconv_io.h"
#include "clconv_tune.h"
#include "internal.h"

/* 2: entries name their mask's shape and element types; 3: and their
 * border mode (tune_cache.c) */
#define FORMAT_TAG "clconv tuning "
static const char format_line[] = FORMAT_TAG "3";
/* fields of an entry line, its tag included */
#define ENTRY_FIELDS 15

/* A header value as written: tabs and control characters become '?', so
 * that the value stays on its line and in its field. */
static void clean(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; ++i)
        out[i] = (unsigned char)in[i] < 0x20 ? '?' : in[i];
    out[i] = '\0';
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

/* The integer fields of an entry and their ranges: the format's one
 * statement of them, for the writer's caller and the reader alike. */
static const struct {
    const char *name;
    size_t offset;
    int min, max;
} entry_ints[] = {
    {"dims", offsetof(clconv_tuning, dims), 1, 3},
    {"mask_width", offsetof(clconv_tuning, mask_width), 1, 1023},
    {"size_class", offsetof(clconv_tuning, size_class), 0, 63},
    {"tile", offsetof(clconv_tuning, tile), 1, 65536},
    {"coarsen", offsetof(clconv_tuning, coarsen), 0, 65536},
    {"group_y", offsetof(clconv_tuning, group_y), 0, 65536},
};

clconv_status clc_tune_entry_check(const clconv_tuning *e)
{
    for (size_t k = 0; k < sizeof entry_ints / sizeof entry_ints[0]; ++k) {
        const int v = *(const int *)((const char *)e + entry_ints[k].offset);
        if (v < entry_ints[k].min || v > entry_ints[k].max)
            return clc_fail(CLCONV_EINVAL,
                            "tuning entry: %s %d is outside %d..%d",
                            entry_ints[k].name, v, entry_ints[k].min,
                            entry_ints[k].max);
    }
    /* Enums are checked as numbers: a caller's 7 is no name the file can
     * hold (the writer printed '?' and the reader refused the file). */
    if ((unsigned)e->strategy >= (unsigned)CLCONV_STRATEGY_COUNT)
        return clc_fail(CLCONV_EINVAL, "tuning entry: unknown strategy %d",
                        (int)e->strategy);
    if ((unsigned)e->in_dtype >= (unsigned)CLCONV_ELEM_COUNT ||
        (unsigned)e->out_dtype >= (unsigned)CLCONV_ELEM_COUNT)
        return clc_fail(CLCONV_EINVAL,
                        "tuning entry: unknown element type %d (in) or %d "
                        "(out)",
                        (int)e->in_dtype, (int)e->out_dtype);
    if ((unsigned)e->border >= (unsigned)CLCONV_BORDER_COUNT)
        return clc_fail(CLCONV_EINVAL, "tuning entry: unknown border mode %d",
                        (int)e->border);
    if (!(e->ms >= 0))
        return clc_fail(CLCONV_EINVAL, "tuning entry: time %g is not >= 0",
                        e->ms);
    /* the mask's shape: its widest axis is the mask field, and it is 1
     * wide beyond dims */
    int widest = 0;
    for (int a = 0; a < 3; ++a) {
        const int w = e->mask_size[a];
        if (w < 1 || w > 1023 || (a >= e->dims && w != 1) || !e->size[a])
            return clc_fail(CLCONV_EINVAL,
                            "tuning entry: axis %d: mask width %d (1..1023, "
                            "1 beyond dims %d) or size %zu (>= 1)",
                            a, w, e->dims, e->size[a]);
        widest = w > widest ? w : widest;
    }
    if (widest != e->mask_width)
        return clc_fail(CLCONV_EINVAL,
                        "tuning entry: mask_width %d is not the widest of "
                        "mask_size %dx%dx%d",
                        e->mask_width, e->mask_size[0], e->mask_size[1],
                        e->mask_size[2]);
    return CLCONV_OK;
}

/* One "entry" line's fields after the tag; 0 on success. Each field is
 * read as its type, then ranged by clc_tune_entry_check. */
static int parse_entry(char **f, clconv_tuning *e)
{
    memset(e, 0, sizeof *e);
    char *end;
    unsigned long long nx, ny, nz;
    if (parse_int(f[0], INT_MIN, INT_MAX, &e->dims) ||
        parse_int(f[1], INT_MIN, INT_MAX, &e->mask_width) ||
        parse_int(f[2], INT_MIN, INT_MAX, &e->size_class) ||
        clconv_strategy_parse(f[3], &e->strategy) != CLCONV_OK ||
        parse_int(f[4], INT_MIN, INT_MAX, &e->tile) ||
        parse_int(f[5], INT_MIN, INT_MAX, &e->coarsen) ||
        parse_int(f[6], INT_MIN, INT_MAX, &e->group_y))
        return -1;
    errno = 0;
    e->ms = strtod(f[7], &end);
    if (errno || end == f[7] || *end)
        return -1;
    int used = 0;
    if (sscanf(f[8], "%llux%llux%llu%n", &nx, &ny, &nz, &used) != 3 ||
        f[8][used])
        return -1;
    e->size[0] = (size_t)nx;
    e->size[1] = (size_t)ny;
    e->size[2] = (size_t)nz;
    errno = 0;
    e->kernel_hash = strtoull(f[9], &end, 16);
    if (errno || end == f[9] || *end || strlen(f[9]) != 16)
        return -1;
    int mx, my, mz;
    used = 0;
    if (sscanf(f[10], "%dx%dx%d%n", &mx, &my, &mz, &used) != 3 ||
        f[10][used])
        return -1;
    e->mask_size[0] = mx;
    e->mask_size[1] = my;
    e->mask_size[2] = mz;
    if (clconv_elem_parse(f[11], &e->in_dtype) != CLCONV_OK ||
        clconv_elem_parse(f[12], &e->out_dtype) != CLCONV_OK)
        return -1;
    /* the mode by the name the writer uses, not one of SciPy's aliases */
    if (clconv_border_parse(f[13], &e->border) != CLCONV_OK ||
        strcmp(f[13], clconv_border_name(e->border)) != 0)
        return -1;
    return clc_tune_entry_check(e) == CLCONV_OK ? 0 : -1;
}

/* Does the planner accept the entry's configuration: a valid problem,
 * every knob within the variant table's range (clconv_knob_range; 0 is
 * the default), and, resolved on the device, a work-group, local and
 * constant memory and buffers that fit it (clc_problem_fits)? */
static clconv_status entry_check(const clconv_device_info *dev,
                                 const clconv_tuning *e)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = e->dims;
    memcpy(p.size, e->size, sizeof p.size);
    p.mask_width = e->mask_width;
    memcpy(p.mask_size, e->mask_size, sizeof p.mask_size);
    p.in_dtype = e->in_dtype;
    p.out_dtype = e->out_dtype;
    p.border = e->border;
    p.strategy = e->strategy;
    p.tile = e->tile;
    p.coarsen = e->coarsen;
    p.group_y = e->group_y;
    clconv_status st = clconv_problem_validate(&p);
    if (st != CLCONV_OK)
        return st;
    const int knob[2] = {CLCONV_KNOB_COARSEN, CLCONV_KNOB_GROUP_Y};
    const int value[2] = {e->coarsen, e->group_y};
    const char *name[2] = {"coarsen", "group_y"};
    const int reads = clconv_strategy_knobs(e->strategy, e->dims);
    for (int k = 0; k < 2; ++k) {
        int lo = 0, hi = 0;
        if (!(reads & knob[k]) || value[k] == 0 ||
            clconv_knob_range(e->strategy, e->dims, knob[k], &lo, &hi) !=
                CLCONV_OK ||
            (value[k] >= lo && value[k] <= hi))
            continue;
        return clc_fail(CLCONV_EINVAL, "%s %s=%d is outside %d..%d",
                        clconv_strategy_name(e->strategy), name[k], value[k],
                        lo, hi);
    }
    clc_config c;
    clc_geometry g;
    clc_config_resolve_batched(dev, NULL, &p, &c);
    clc_config_geometry(&c, &g);
    return clc_problem_fits(dev, &c, &g);
}

/* An entry the planner would refuse (a hand edit with knobs out of range,
 * a work-group beyond the device) is skipped: counted in t->invalid, the
 * first one's reason kept. */
static int entry_is_usable(const clconv_device_info *dev,
                           const clconv_tuning *e, clconv_tune_table *t,
                           const char *path, int lineno)
{
    if (entry_check(dev, e) == CLCONV_OK)
        return 1;
    if (t->invalid++ == 0 &&
        snprintf(t->invalid_reason, sizeof t->invalid_reason, "%s:%d: %s",
                 path, lineno, clconv_last_error()) < 0)
        t->invalid_reason[0] = '\0';
    return 0;
}

/* The kernel hashes of one file's entries, each variant and dims looked
 * up once (0 in `have`: not yet; -1: its sources are missing). */
typedef struct load_hashes {
    int have[CLCONV_STRATEGY_COUNT][3];
    uint64_t hash[CLCONV_STRATEGY_COUNT][3];
} load_hashes;

static int current_hash(load_hashes *k, const clconv_tuning *e, uint64_t *h)
{
    int *have = &k->have[e->strategy][e->dims - 1];
    if (!*have)
        *have = clconv_kernel_hash(e->strategy, e->dims,
                                   &k->hash[e->strategy][e->dims - 1]) ==
                        CLCONV_OK
                    ? 1
                    : -1;
    *h = k->hash[e->strategy][e->dims - 1];
    return *have == 1 ? 0 : -1;
}

/* One "entry" line's fields: kept, or dropped as stale (its kernel
 * changed) or unusable; CLCONV_EIO when malformed. */
static clconv_status take_entry(const clconv_device_info *dev, char **f,
                                const char *path, int lineno,
                                load_hashes *k, clconv_tune_table *t)
{
    clconv_tuning e;
    if (parse_entry(f, &e) != 0)
        return clc_fail(CLCONV_EIO, "%s:%d: malformed entry", path, lineno);
    uint64_t h = 0;
    if (current_hash(k, &e, &h) != 0 || h != e.kernel_hash) {
        ++t->stale; /* its kernel changed or is gone */
        return CLCONV_OK;
    }
    if (!entry_is_usable(dev, &e, t, path, lineno))
        return CLCONV_OK;
    return clconv_tune_put(t, &e);
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
    char *f[ENTRY_FIELDS + 1];
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
    load_hashes hashes;
    memset(&hashes, 0, sizeof hashes);
    int lineno = 0;
    for (char *line = data; line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int nf = split(line, f, ENTRY_FIELDS);
        if (lineno == 0) {
            /* An older (or newer) format is stale, as another driver's
             * file is: its entries are keyed by less than this one's. */
            if (nf == 1 &&
                strncmp(f[0], FORMAT_TAG, strlen(FORMAT_TAG)) == 0 &&
                strcmp(f[0], format_line) != 0)
                return clc_fail(CLCONV_EIO, "%s: stale: written in format "
                                            "'%s', this clconv reads '%s'",
                                path, f[0], format_line);
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
        } else if (nf == ENTRY_FIELDS && strcmp(f[0], "entry") == 0) {
            clconv_status st =
                take_entry(dev, f + 1, path, lineno + 1, &hashes, t);
            if (st != CLCONV_OK)
                return st;
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

/* Load the file at path into t (emptied first); no file is an empty
 * table. */
static clconv_status load_path(const clconv_device_info *dev,
                               const char *path, clconv_tune_table *t)
{
    clconv_tune_table_free(t);
    unsigned char *data = NULL;
    size_t n = 0;
    /* No file, or no folder for one (XDG_CACHE_HOME is a file): nothing
     * tuned. */
    if (access(path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR))
        return CLCONV_OK;
    clconv_status st = clc_read_regular(path, (size_t)64 << 20, &data, &n);
    if (st == CLCONV_OK)
        st = parse_file(dev, (char *)data, n, path, t);
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

clconv_status clconv_tune_load(const clconv_device_info *dev,
                               clconv_tune_table *t)
{
    if (!dev || !t)
        return clc_fail(CLCONV_EINVAL, "no device or table given (NULL)");
    char path[4200];
    clconv_tune_table_free(t);
    /* No cache folder at all (neither XDG_CACHE_HOME nor HOME absolute):
     * nothing tuned, which is no error to a caller that only reads it
     * (clconv tune's save says why it cannot write). */
    if (clconv_tune_path(dev, path, sizeof path) != CLCONV_OK)
        return CLCONV_OK;
    return load_path(dev, path, t);
}

/* ---- writing ------------------------------------------------------------ */

/* The file's text for table t (malloc'd, its length in *len). */
static char *format_file(const clconv_device_info *dev,
                         const clconv_tune_table *t, size_t *len)
{
    size_t cap = 1024 + t->count * 256;
    char *buf = malloc(cap);
    if (!buf) {
        clc_fail(CLCONV_ENOMEM, "out of memory");
        return NULL;
    }
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
            "%016" PRIx64 "\t%dx%dx%d\t%s\t%s\t%s\n",
            e->dims, e->mask_width, e->size_class,
            clconv_strategy_name(e->strategy), e->tile, e->coarsen,
            e->group_y, e->ms, (unsigned long long)e->size[0],
            (unsigned long long)e->size[1], (unsigned long long)e->size[2],
            e->kernel_hash, e->mask_size[0], e->mask_size[1], e->mask_size[2],
            clconv_elem_name(e->in_dtype), clconv_elem_name(e->out_dtype),
            clconv_border_name(e->border));
    }
    if (n + 40 >= cap) {
        free(buf);
        clc_fail(CLCONV_ENOMEM, "tuning file buffer too small");
        return NULL;
    }
    uint64_t h = clc_fnv1a64(CLC_FNV1A64_INIT, buf, n);
    n += (size_t)snprintf(buf + n, cap - n, "checksum\t%016" PRIx64 "\n", h);
    *len = n;
    return buf;
}

clconv_status clconv_tune_save(const clconv_device_info *dev,
                               const clconv_tune_table *t)
{
    if (!dev || !t)
        return clc_fail(CLCONV_EINVAL, "no device or table given (NULL)");
    char path[4200], lock[4300], dir[4096];
    clconv_status st = clconv_tune_path(dev, path, sizeof path);
    if (st == CLCONV_OK)
        st = clc_cache_dir(NULL, 1, dir, sizeof dir);
    if (st != CLCONV_OK)
        return st;
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    /* Another user's lock, in a folder both may write (a cache a group
     * shares): flock(2) needs no write access to it. */
    if (fd < 0 && errno == EACCES)
        fd = open(lock, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return clc_fail(CLCONV_EIO, "cannot open %s: %s", lock,
                        strerror(errno));
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            st = clc_fail(CLCONV_EIO, "cannot lock %s: %s", lock,
                          strerror(errno));
            close(fd);
            return st;
        }
    /* What other processes saved since this one loaded, then t's entries
     * over it (a corrupt or stale file is replaced; so is anything but a
     * regular file or a link, which the writer would write through). */
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
        (void)unlink(path);
    clconv_tune_table merged = {0};
    (void)load_path(dev, path, &merged);
    for (size_t i = 0; st == CLCONV_OK && i < t->count; ++i)
        st = clconv_tune_put(&merged, &t->entries[i]);
    size_t n = 0;
    char *buf = st == CLCONV_OK ? format_file(dev, &merged, &n) : NULL;
    if (st == CLCONV_OK)
        st = buf ? clconv_file_write(path, buf, n) : CLCONV_ENOMEM;
    free(buf);
    clconv_tune_table_free(&merged);
    close(fd); /* releases the lock */
    return st;
}
