/* Device limits: does a launch geometry, a mask and the buffers of a
 * problem fit a device. Plans refuse what does not fit (unsupported, with
 * the reason); the variant table picks default tiles that do; a built
 * kernel is checked against the launch it was planned for. */
#include <stdio.h>

#include "internal.h"

static void shape_string(const size_t v[3], int dims, char *buf, size_t len)
{
    if (dims == 1)
        snprintf(buf, len, "%zu", v[0]);
    else if (dims == 2)
        snprintf(buf, len, "%zux%zu", v[0], v[1]);
    else
        snprintf(buf, len, "%zux%zux%zu", v[0], v[1], v[2]);
}

int clc_geometry_check(const clconv_device_info *d, int dims,
                       const clc_geometry *g, char *why, size_t len)
{
    char shape[64];
    const size_t wg = g->local[0] * g->local[1] * g->local[2];
    if (!why)
        len = 0;
    if (wg > d->max_work_group_size) {
        shape_string(g->local, dims, shape, sizeof shape);
        if (len)
            snprintf(why, len,
                     "work-group of %s = %zu work-items exceeds the device's "
                     "maximum of %zu",
                     shape, wg, d->max_work_group_size);
        return 0;
    }
    for (int k = 0; k < dims; ++k)
        if (g->local[k] > d->max_work_item_sizes[k]) {
            if (len)
                snprintf(why, len,
                         "work-group size %zu along dimension %d exceeds "
                         "the device's maximum of %zu",
                         g->local[k], k, d->max_work_item_sizes[k]);
            return 0;
        }
    const uint64_t lbytes = (uint64_t)g->local_floats * sizeof(float);
    if (lbytes > d->local_mem_bytes) {
        if (len)
            snprintf(why, len,
                     "needs %llu bytes of local memory, the device has %llu",
                     (unsigned long long)lbytes,
                     (unsigned long long)d->local_mem_bytes);
        return 0;
    }
    return 1;
}

clconv_status clc_problem_fits(const clconv_device_info *d,
                               const clc_config *c, const clc_geometry *g)
{
    const clconv_problem *p = &c->p;
    char why[512];
    if (!clc_geometry_check(d, p->dims, g, why, sizeof why))
        return clc_fail(CLCONV_EUNSUPPORTED, "%s", why);
    const uint64_t mbytes =
        (uint64_t)clconv_problem_mask_elements(p) * sizeof(float);
    if (mbytes > d->constant_mem_bytes)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "mask of %llu bytes exceeds the device's constant "
                        "buffer of %llu bytes",
                        (unsigned long long)mbytes,
                        (unsigned long long)d->constant_mem_bytes);
    /* The input and output buffers in their own element types (a uint8
     * slab of 513 x 2^21 elements is 1 GiB each, not 4). */
    const uint64_t n = (uint64_t)clconv_problem_elements(p) * c->batch;
    const uint64_t ibytes = n * clconv_elem_size(p->in_dtype);
    const uint64_t obytes = n * clconv_elem_size(p->out_dtype);
    const uint64_t dbytes = ibytes > obytes ? ibytes : obytes;
    if (dbytes > d->max_alloc_bytes)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "a buffer of %llu bytes exceeds the device's maximum "
                        "allocation of %llu bytes",
                        (unsigned long long)dbytes,
                        (unsigned long long)d->max_alloc_bytes);
    if (ibytes + obytes + mbytes > d->global_mem_bytes)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "input and output need %llu bytes, the device has %llu",
                        (unsigned long long)(ibytes + obytes + mbytes),
                        (unsigned long long)d->global_mem_bytes);
    return CLCONV_OK;
}

void clc_flat_launch(const clconv_device_info *d, const size_t n[3],
                     size_t local[3], size_t global[3])
{
    size_t g = 64;
    while (g > 1 && (g / 2 >= n[0] || g > d->max_work_group_size ||
                     g > d->max_work_item_sizes[0]))
        g /= 2;
    local[0] = g, local[1] = local[2] = 1;
    global[0] = (n[0] + g - 1) / g * g;
    global[1] = n[1], global[2] = n[2];
}

/* Limits that the built kernel reports.
 *
 * Every kernel declares reqd_work_group_size: a compiled size other than
 * the planned launch means the variant's geometry and its kernel disagree,
 * an internal error (never "unsupported", so tests fail on it). When they
 * agree the compiler built the kernel for exactly that size, and the device
 * maximum (checked before building) is the limit: NVIDIA's OpenCL reports a
 * CL_KERNEL_WORK_GROUP_SIZE of 256 for every kernel, even a one-line one
 * built with -cl-nv-maxrregcount=32, yet runs launches of 1024 correctly
 * (scripts/probe_wg.c, bench/PERF.md). A kernel without the attribute is
 * held to CL_KERNEL_WORK_GROUP_SIZE. */
clconv_status clc_kernel_limits_check(clconv_session *s, cl_kernel k,
                                      const char *stem, const clc_geometry *g)
{
    size_t kwg = 0, reqd[3] = {0, 0, 0};
    cl_ulong klocal = 0;
    CLC_CHECK(clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_WORK_GROUP_SIZE,
                                       sizeof kwg, &kwg, NULL));
    CLC_CHECK(clGetKernelWorkGroupInfo(k, s->device,
                                       CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                       sizeof reqd, reqd, NULL));
    CLC_CHECK(clGetKernelWorkGroupInfo(k, s->device, CL_KERNEL_LOCAL_MEM_SIZE,
                                       sizeof klocal, &klocal, NULL));
    const int declared = reqd[0] || reqd[1] || reqd[2];
    if (declared && (reqd[0] != g->local[0] || reqd[1] != g->local[1] ||
                     reqd[2] != g->local[2]))
        return clc_fail(CLCONV_EINTERNAL,
                        "internal error: %s.cl was compiled for work-groups of "
                        "%zux%zux%zu but the variant table plans %zux%zux%zu",
                        stem, reqd[0], reqd[1], reqd[2], g->local[0],
                        g->local[1], g->local[2]);
    const size_t wg = g->local[0] * g->local[1] * g->local[2];
    if (wg > kwg && !declared)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "work-group of %zu work-items exceeds the kernel's "
                        "CL_KERNEL_WORK_GROUP_SIZE of %zu on this device",
                        wg, kwg);
    if (klocal > s->dev.local_mem_bytes)
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "kernel uses %llu bytes of local memory, the device "
                        "has %llu",
                        (unsigned long long)klocal,
                        (unsigned long long)s->dev.local_mem_bytes);
    return CLCONV_OK;
}
