/* Test helpers: a temporary cache home, and removing it. */
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
