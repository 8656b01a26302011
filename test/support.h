/* Helpers shared by the test programs (test/support_*.c is linked into
 * every one of them). */
#ifndef CLCONV_TEST_SUPPORT_H
#define CLCONV_TEST_SUPPORT_H

#include <stddef.h>

#include "clconv.h"

/* A fresh temporary folder made from `pattern` (ending in XXXXXX), set as
 * $XDG_CACHE_HOME so clconv's disk caches stay inside it. 0, or -1. */
int support_cache_home_create(char *buf, size_t len, const char *pattern);
/* Remove a file or a folder and everything below it. */
void support_remove_tree(const char *path);
/* Discover the devices and pick the first one $CLCONV_DEVICE selects (all
 * when unset). 0, or -1 when there is none. */
int support_first_device(clconv_device_list *devices,
                         const clconv_device_info **dev);

#endif
