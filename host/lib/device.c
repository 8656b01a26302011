/* Enumerate every platform and device, read their limits, select them. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char install_hint[] =
    "install an OpenCL driver, e.g. on Debian/Ubuntu: "
    "sudo apt-get install pocl-opencl-icd (CPU); for an NVIDIA GPU in a "
    "container, register the ICD: echo libnvidia-opencl.so.1 > "
    "/etc/OpenCL/vendors/nvidia.icd";

/* PoCL keeps its compiled kernels under $POCL_CACHE_DIR, else
 * $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl, and exposes no device at
 * all when it cannot create that folder. When no device is found, say so
 * if that folder's base (or the first ancestor that exists) is not a
 * writable folder: 1 and a sentence in buf, else 0. */
static int cache_problem(char *buf, size_t len)
{
    const char *var = "POCL_CACHE_DIR", *base = getenv(var);
    char home[4096];
    if (!base || !*base) {
        var = "XDG_CACHE_HOME";
        base = getenv(var);
    }
    if (!base || !*base) {
        const char *h = getenv("HOME");
        if (!h || !*h)
            return 0;
        snprintf(home, sizeof home, "%s/.cache", h);
        var = "HOME/.cache";
        base = home;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", base);
    struct stat sb;
    while (stat(path, &sb) != 0) { /* the first ancestor that exists */
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            return 0;
        *slash = '\0';
    }
    const char *why = !S_ISDIR(sb.st_mode)            ? "is not a folder"
                      : access(path, W_OK | X_OK) != 0 ? "is not writable"
                                                       : NULL;
    if (!why)
        return 0;
    char where[8300];
    if (strcmp(path, base) == 0)
        snprintf(where, sizeof where, "%s=%s %s", var, base, why);
    else
        snprintf(where, sizeof where, "%s=%s cannot be created (%s %s)", var,
                 base, path, why);
    snprintf(buf, len,
             "the cache folder %s: OpenCL drivers such as PoCL keep compiled "
             "kernels there and expose no device without it; point %s at a "
             "writable folder",
             where, var);
    return 1;
}

/* No platform or no device: the reason, when one can be seen. */
static clconv_status no_device(const char *what)
{
    char cache[8600];
    if (cache_problem(cache, sizeof cache))
        return clc_fail(CLCONV_ENOPLATFORM, "%s: %s", what, cache);
    return clc_fail(CLCONV_ENOPLATFORM, "%s: %s", what, install_hint);
}

const char *clconv_device_kind_name(clconv_device_kind kind)
{
    switch (kind) {
    case CLCONV_DEVICE_CPU: return "CPU";
    case CLCONV_DEVICE_GPU: return "GPU";
    case CLCONV_DEVICE_ACCELERATOR: return "ACCELERATOR";
    case CLCONV_DEVICE_OTHER: break;
    }
    return "OTHER";
}

clconv_status clc_device_info_read(cl_platform_id pid, cl_device_id did,
                                   clconv_device_info *d)
{
    cl_device_type type = 0;
    cl_uint cu = 0, clock = 0;
    cl_ulong local = 0, cmem = 0, gmem = 0, alloc = 0;
    size_t items[3] = {1, 1, 1};
    cl_uint ndims = 0;

    CLC_CHECK(clGetPlatformInfo(pid, CL_PLATFORM_NAME, sizeof d->platform,
                                d->platform, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_NAME, sizeof d->name, d->name,
                              NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_VENDOR, sizeof d->vendor,
                              d->vendor, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_VERSION, sizeof d->version,
                              d->version, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DRIVER_VERSION, sizeof d->driver,
                              d->driver, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_TYPE, sizeof type, &type, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu,
                              NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock,
                              &clock, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                              sizeof d->max_work_group_size,
                              &d->max_work_group_size, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
                              sizeof ndims, &ndims, NULL));
    if (ndims >= 3) {
        size_t *all = calloc(ndims, sizeof *all);
        if (!all)
            return clc_fail(CLCONV_ENOMEM, "out of memory");
        cl_int err = clGetDeviceInfo(did, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                     ndims * sizeof *all, all, NULL);
        memcpy(items, all, sizeof items);
        free(all);
        if (err != CL_SUCCESS)
            return clc_cl_fail("clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)",
                               err, __FILE__, __LINE__);
    }
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local,
                              &local, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
                              sizeof cmem, &cmem, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem,
                              &gmem, NULL));
    CLC_CHECK(clGetDeviceInfo(did, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc,
                              &alloc, NULL));

    d->kind = (type & CL_DEVICE_TYPE_GPU)           ? CLCONV_DEVICE_GPU
              : (type & CL_DEVICE_TYPE_CPU)         ? CLCONV_DEVICE_CPU
              : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLCONV_DEVICE_ACCELERATOR
                                                    : CLCONV_DEVICE_OTHER;
    d->compute_units = cu;
    d->clock_mhz = clock;
    memcpy(d->max_work_item_sizes, items, sizeof items);
    d->local_mem_bytes = local;
    d->constant_mem_bytes = cmem;
    d->global_mem_bytes = gmem;
    d->max_alloc_bytes = alloc;
    d->opaque_device = did;
    d->opaque_platform = pid;
    return CLCONV_OK;
}

clconv_status clconv_devices_discover(clconv_device_list *list)
{
    if (!list)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the devices (NULL)");
    clc_temp_install(); /* before any OpenCL compiler installs its own */
    clconv_status st = CLCONV_OK;
    cl_uint nplat = 0;
    cl_platform_id *plats = NULL;
    list->devices = NULL;
    list->count = 0;

    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || nplat == 0 ||
        (err == CL_SUCCESS && nplat == 0))
        return no_device("no OpenCL platform found");
    if (err != CL_SUCCESS)
        return clc_cl_fail("clGetPlatformIDs", err, __FILE__, __LINE__);

    plats = calloc(nplat, sizeof *plats);
    if (!plats)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    CLC_CHECK_GOTO(clGetPlatformIDs(nplat, plats, NULL));

    for (cl_uint p = 0; p < nplat; ++p) {
        cl_uint ndev = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev);
        if (err == CL_DEVICE_NOT_FOUND || ndev == 0)
            continue; /* a platform without devices is not an error */
        CLC_CHECK_CALL_GOTO("clGetDeviceIDs", err);
        cl_device_id *ids = calloc(ndev, sizeof *ids);
        clconv_device_info *grown =
            realloc(list->devices, (list->count + ndev) * sizeof *grown);
        if (!ids || !grown) {
            free(ids);
            if (grown)
                list->devices = grown;
            st = clc_fail(CLCONV_ENOMEM, "out of memory");
            goto out;
        }
        list->devices = grown;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, ids, NULL);
        if (err != CL_SUCCESS) {
            free(ids);
            st = clc_cl_fail("clGetDeviceIDs", err, __FILE__, __LINE__);
            goto out;
        }
        for (cl_uint d = 0; d < ndev; ++d) {
            clconv_device_info *info = &list->devices[list->count];
            memset(info, 0, sizeof *info);
            info->platform_index = p;
            info->device_index = d;
            st = clc_device_info_read(plats[p], ids[d], info);
            if (st != CLCONV_OK) {
                free(ids);
                goto out;
            }
            list->count++;
        }
        free(ids);
    }
    if (list->count == 0)
        st = no_device("OpenCL platforms found but no devices");
out:
    free(plats);
    if (st != CLCONV_OK)
        clconv_devices_free(list);
    return st;
}

void clconv_devices_free(clconv_device_list *list)
{
    if (!list)
        return;
    free(list->devices);
    list->devices = NULL;
    list->count = 0;
}

static int contains_nocase(const char *hay, const char *needle, size_t n)
{
    size_t hl = strlen(hay);
    for (size_t i = 0; i + n <= hl; ++i) {
        size_t k = 0;
        while (k < n && tolower((unsigned char)hay[i + k]) ==
                            tolower((unsigned char)needle[k]))
            ++k;
        if (k == n)
            return 1;
    }
    return 0;
}

static int term_equals(const char *t, size_t n, const char *word)
{
    return strlen(word) == n && strncmp(t, word, n) == 0;
}

/* Is t[0..n) "P:D", two runs of decimal digits (no sign, no space), each
 * within unsigned? (sscanf's %u took "-1" and wrapped 4294967296 to 0.) */
static int term_index_pair(const char *t, size_t n, unsigned long long *p,
                           unsigned long long *q)
{
    unsigned long long v[2] = {0, 0};
    size_t i = 0;
    for (int k = 0; k < 2; ++k) {
        const size_t start = i;
        for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i) {
            v[k] = v[k] * 10 + (unsigned)(t[i] - '0');
            if (v[k] > UINT_MAX)
                return 0;
        }
        if (i == start || (k == 0 && (i == n || t[i++] != ':')))
            return 0;
    }
    if (i != n)
        return 0;
    *p = v[0];
    *q = v[1];
    return 1;
}

/* Does device d match the selector term t[0..n)? -1 if the term is bad. */
static int term_matches(const char *t, size_t n, const clconv_device_info *d)
{
    if (term_equals(t, n, "all"))
        return 1;
    if (term_equals(t, n, "cpu"))
        return d->kind == CLCONV_DEVICE_CPU;
    if (term_equals(t, n, "gpu"))
        return d->kind == CLCONV_DEVICE_GPU;
    unsigned long long p, q;
    if (term_index_pair(t, n, &p, &q))
        return d->platform_index == p && d->device_index == q;
    return contains_nocase(d->name, t, n) || contains_nocase(d->vendor, t, n) ||
           contains_nocase(d->platform, t, n);
}

/* The syntax first, so that the answer does not depend on which devices
 * exist: no empty selector and no empty term ("", ",", "cpu,", " ,gpu"). */
static clconv_status check_selector(const char *sel)
{
    const char *t = sel;
    for (;;) {
        size_t n = strcspn(t, ","), k = 0;
        while (k < n && isspace((unsigned char)t[k]))
            ++k;
        if (k == n)
            return clc_fail(CLCONV_EINVAL,
                            "%s '%s' (give all, cpu, gpu, P:D or a name, "
                            "separated by commas)",
                            *sel ? "empty term in device selector"
                                 : "empty device selector",
                            sel);
        t += n;
        if (*t == '\0')
            return CLCONV_OK;
        ++t;
    }
}

clconv_status clconv_devices_select(const clconv_device_list *list,
                                    const char *sel, size_t *selected,
                                    size_t *nselected)
{
    if (!list || !selected || !nselected)
        return clc_fail(CLCONV_EINVAL,
                        "no device list, selection or count given (NULL)");
    *nselected = 0;
    if (!sel)
        sel = "all";
    clconv_status st = check_selector(sel);
    if (st != CLCONV_OK)
        return st;
    const char *t = sel;
    while (*t) {
        size_t n = strcspn(t, ",");
        while (n > 0 && isspace((unsigned char)*t)) {
            ++t;
            --n;
        }
        while (n > 0 && isspace((unsigned char)t[n - 1]))
            --n;
        size_t matched = 0;
        for (size_t i = 0; i < list->count; ++i) {
            if (!term_matches(t, n, &list->devices[i]))
                continue;
            ++matched;
            size_t k = 0;
            while (k < *nselected && selected[k] != i)
                ++k;
            if (k == *nselected)
                selected[(*nselected)++] = i;
        }
        if (matched == 0)
            return clc_fail(CLCONV_EINVAL,
                            "no device matches '%.*s' (see 'clconv devices')",
                            (int)n, t);
        t += strcspn(t, ",");
        if (*t == ',')
            ++t;
    }
    return CLCONV_OK;
}
