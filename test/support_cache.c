/* Test helpers: a temporary cache home, removing it, the device to use. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

int support_cache_home_create(char *buf, size_t len, const char *pattern)
{
    int n = snprintf(buf, len, "%s", pattern);
    if (n < 0 || (size_t)n >= len || !mkdtemp(buf))
        return -1;
    return setenv("XDG_CACHE_HOME", buf, 1);
}

void support_remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            support_remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

int support_first_device(clconv_device_list *devices,
                         const clconv_device_info **dev)
{
    if (clconv_devices_discover(devices) != CLCONV_OK)
        return -1;
    size_t sel[64], nsel = 0;
    if (devices->count > 64 ||
        clconv_devices_select(devices, getenv("CLCONV_DEVICE"), sel, &nsel) !=
            CLCONV_OK ||
        nsel == 0)
        return -1;
    *dev = &devices->devices[sel[0]];
    return 0;
}
