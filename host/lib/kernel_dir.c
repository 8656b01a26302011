/* Finding the folder of .cl sources at run time. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#ifndef CLCONV_PREFIX
#define CLCONV_PREFIX "/usr/local"
#endif

/* The marker every kernel folder holds: common.clh. */
static const char marker[] = "common.clh";

/* snprintf that reports truncation: 0 on success, -1 if it did not fit. */
static int format_path(char *buf, size_t len, const char *a, const char *b)
{
    int n = snprintf(buf, len, "%s%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int has_marker(const char *dir)
{
    char path[PATH_MAX];
    if (format_path(path, sizeof path, dir, "/common.clh"))
        return 0;
    return access(path, R_OK) == 0;
}

/* The kernel folders beside a binary's folder: ../cl (a build tree) and
 * ../share/clconv/cl (an installed tree). Fills up to two candidates. */
static int beside(const char *file, char (*out)[PATH_MAX])
{
    char folder[PATH_MAX];
    if (format_path(folder, sizeof folder, file, ""))
        return 0;
    char *slash = strrchr(folder, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    int k = 0;
    if (format_path(out[k], PATH_MAX, folder, "/../cl") == 0)
        ++k;
    if (format_path(out[k], PATH_MAX, folder, "/../share/clconv/cl") == 0)
        ++k;
    return k;
}

clconv_status clconv_kernel_dir(const char **dir)
{
    if (!dir)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the folder (NULL)");
    static _Thread_local char found[PATH_MAX];
    char tried[4 * PATH_MAX] = "";
    const char *env = getenv("CLCONV_KERNEL_DIR");
    if (env && *env) {
        /* An explicit choice is final: never fall back behind its back. */
        if (!has_marker(env))
            return clc_fail(CLCONV_ENOKERNELS,
                            "CLCONV_KERNEL_DIR=%s holds no %s: kernel sources "
                            "not found",
                            env, marker);
        if (format_path(found, sizeof found, env, ""))
            return clc_fail(CLCONV_ENOKERNELS, "CLCONV_KERNEL_DIR is too long");
        *dir = found;
        return CLCONV_OK;
    }

    char candidates[5][PATH_MAX];
    int nc = 0;
    char exe[PATH_MAX] = "";
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        nc += beside(exe, candidates + nc);
    }
    /* The library's own file: libclconv.so loaded by another program
     * (Python, an application) finds the kernels installed beside it
     * (any of its objects names the file it was loaded from). */
    Dl_info info;
    if (dladdr(marker, &info) && info.dli_fname &&
        strchr(info.dli_fname, '/') && strcmp(info.dli_fname, exe) != 0)
        nc += beside(info.dli_fname, candidates + nc);
    if (format_path(candidates[nc], PATH_MAX, CLCONV_PREFIX,
                    "/share/clconv/cl") == 0)
        ++nc;
    for (int i = 0; i < nc; ++i) {
        if (has_marker(candidates[i])) {
            char *real = realpath(candidates[i], NULL);
            int bad = format_path(found, sizeof found,
                                  real ? real : candidates[i], "");
            free(real);
            if (bad)
                continue;
            *dir = found;
            return CLCONV_OK;
        }
        size_t used = strlen(tried);
        if (format_path(tried + used, sizeof tried - used, used ? ", " : "",
                        candidates[i]))
            break;
    }
    return clc_fail(CLCONV_ENOKERNELS,
                    "kernel sources not found; tried: %s (set "
                    "CLCONV_KERNEL_DIR to the folder holding %s)",
                    tried, marker);
}
