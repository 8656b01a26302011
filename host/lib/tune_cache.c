/* The tuning cache: one text file per device, its entries, and
 * clconv_auto_config(), which reads it.
 *
 * File format (tab-separated, one record a line):
 *   clconv tuning 3
 *   device  <CL_DEVICE_NAME>
 *   driver  <CL_DRIVER_VERSION>
 *   clconv  <CLCONV_VERSION_STRING>
 *   entry   dims mask size_class strategy tile coarsen group_y ms
 *           NXxNYxNZ kernel_hash MXxMYxMZ in_dtype out_dtype mode
 *   ...
 *   checksum <FNV-1a/64 of every byte before this line, 16 hex digits>
 * (mask: the widest of MX, MY, MZ; the dtypes as clconv_elem_name and the
 * mode as clconv_border_name write them. Format 1 had no mask shape,
 * types or mode, format 2 no mode: such a file is ignored as stale, as
 * one of another driver is, and clconv tune rewrites it.) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "clconv_tune.h"
#include "internal.h"

int clconv_size_class(const clconv_problem *p)
{
    size_t n = clconv_problem_elements(p); /* NULL: 0, class 0 */
    int c = 0;
    while (n > 1) {
        n >>= 1;
        ++c;
    }
    return c;
}

clconv_status clconv_tune_path(const clconv_device_info *dev, char *buf,
                               size_t len)
{
    if (!dev || !buf)
        return clc_fail(CLCONV_EINVAL,
                        "no device or nowhere to put the path (NULL)");
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

void clconv_tune_table_free(clconv_tune_table *t)
{
    if (!t)
        return;
    free(t->entries);
    memset(t, 0, sizeof *t);
}

void clconv_tune_class(const clconv_problem *p, clconv_tuning *e)
{
    if (!p || !e)
        return;
    e->dims = p->dims;
    e->mask_width = clconv_problem_mask_max(p);
    for (int a = 0; a < 3; ++a)
        e->mask_size[a] = a < p->dims ? clconv_problem_mask_axis(p, a) : 1;
    e->in_dtype = p->in_dtype;
    e->out_dtype = p->out_dtype;
    e->border = p->border;
    e->size_class = clconv_size_class(p);
}

/* An entry's mask width along axis a (0 in mask_size: mask_width within
 * dims, 1 beyond). */
static int entry_axis(const clconv_tuning *e, int a)
{
    if (e->mask_size[a] > 0)
        return e->mask_size[a];
    return a < e->dims ? e->mask_width : 1;
}

/* Same dims, mask shape, element types and border mode (the class but
 * its size). The mode is part of it: it costs each strategy differently
 * (bench/PERF.md item 17), so it can change which one is fastest. */
static int same_shape(const clconv_tuning *a, const clconv_tuning *b)
{
    if (a->dims != b->dims || a->in_dtype != b->in_dtype ||
        a->out_dtype != b->out_dtype || a->border != b->border)
        return 0;
    for (int k = 0; k < 3; ++k)
        if (entry_axis(a, k) != entry_axis(b, k))
            return 0;
    return 1;
}

static int same_class(const clconv_tuning *a, const clconv_tuning *b)
{
    return same_shape(a, b) && a->size_class == b->size_class;
}

clconv_status clconv_tune_put(clconv_tune_table *t, const clconv_tuning *e)
{
    if (!t || !e)
        return clc_fail(CLCONV_EINVAL, "no table or entry given (NULL)");
    clconv_tuning n = *e; /* mask_size written out */
    for (int a = 0; a < 3; ++a)
        n.mask_size[a] = entry_axis(e, a);
    e = &n;
    /* Refused here, not written: a field the file cannot hold made the
     * whole file unreadable on the next load. */
    clconv_status st = clc_tune_entry_check(e);
    if (st != CLCONV_OK)
        return st;
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
    if (!t || !p)
        return NULL;
    clconv_tuning key = {0};
    clconv_tune_class(p, &key);
    const clconv_tuning *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < t->count; ++i) {
        const clconv_tuning *e = &t->entries[i];
        if (!same_shape(e, &key))
            continue;
        int d = abs(e->size_class - key.size_class);
        if (d < best_d) {
            best = e;
            best_d = d;
        }
    }
    return best;
}

/* ---- auto ----------------------------------------------------------------- */

clconv_status clconv_auto_config(const clconv_device_info *dev,
                                 clconv_problem *p, int *tuned)
{
    if (!dev || !p || !tuned)
        return clc_fail(CLCONV_EINVAL, "no device, problem or flag given (NULL)");
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
