/* --strategy auto, shared by run and apply: the device's tuning from
 * `clconv tune`, else the default heuristic. */
#include <stdio.h>

#include "clconv_tune.h"
#include "cli.h"

void cli_format_config(clconv_strategy s, int tile, int coarsen, int group_y,
                       char *buf, size_t len)
{
    const char *name = clconv_strategy_name(s);
    if (s == CLCONV_COARSE && group_y)
        snprintf(buf, len, "%s T=%d C=%d GY=%d", name, tile, coarsen, group_y);
    else if (s == CLCONV_COARSE || coarsen)
        snprintf(buf, len, "%s T=%d C=%d", name, tile, coarsen);
    else
        snprintf(buf, len, "%s T=%d", name, tile);
}

/* An unusable tuning cache is said once per device and process. */
static void warn_cache_once(const clconv_device_info *dev)
{
    static const void *told[64];
    static size_t ntold;
    for (size_t i = 0; i < ntold; ++i)
        if (told[i] == dev->opaque_device)
            return;
    clconv_tune_table t = {0};
    if (clconv_tune_load(dev, &t) != CLCONV_OK)
        cli_error("ignoring the tuning cache of %s: %s (clconv tune "
                  "rewrites it)",
                  dev->name, clconv_last_error());
    else if (t.stale)
        cli_error("ignoring %zu tuned entries of %s: their kernel "
                  "sources changed since (run clconv tune again)",
                  t.stale, dev->name);
    if (t.invalid)
        cli_error("ignoring %zu tuned entries of %s the planner refuses "
                  "(first: %s); the default is used instead",
                  t.invalid, dev->name, t.invalid_reason);
    clconv_tune_table_free(&t);
    if (ntold < sizeof told / sizeof told[0])
        told[ntold++] = dev->opaque_device;
}

int cli_auto_config(const clconv_device_info *dev, clconv_problem *p,
                    int quiet)
{
    warn_cache_once(dev);
    int tuned = 0;
    if (clconv_auto_config(dev, p, &tuned) != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    if (!quiet) {
        char size[64], cand[96], filter[96];
        cli_format_size(p->size, p->dims, size, sizeof size);
        cli_format_config(p->strategy, p->tile, p->coarsen, p->group_y, cand,
                          sizeof cand);
        /* the mask's shape and the types: the tuning's class */
        cli_filter_describe(p, 0, filter, sizeof filter);
        fprintf(stderr, "clconv: auto on %u:%u for %dD %s W=%d%s: %s (%s)\n",
                dev->platform_index, dev->device_index, p->dims, size,
                p->mask_width, filter, cand,
                tuned ? "tuned" : "not tuned, default heuristic; see clconv "
                                  "tune");
    }
    return 0;
}
