/* The separable path (issue 17 item 1): a mask that is the outer product
 * of one 1D mask per axis runs as dims passes of cl/sep_pass.cl, x first,
 * then y, then z, each with its 1D mask compiled in as constants (on CPUs
 * x and y in one, cl/sep_xy.cl). The intermediates stay on the device in
 * the path's own buffers. The rank-1 test that finds the factors:
 * mask_separable.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clc_sep {
    clconv_session *s;
    clconv_problem p;
    int npass;         /* passes: one per axis, less the identities */
    cl_kernel pass[3]; /* in order, x first */
    size_t local[3][3], global[3][3];
    cl_mem tmp[2]; /* intermediates, made on first launch */
};

/* Bytes of local memory the x pass of g work-items takes: its tile, and
 * on GPUs (lanes 1) the staging row, each padded as cl/sep_pass.cl's PAD
 * (clc_pad_len). */
static uint64_t x_pass_local(size_t g, int coarsen, int lanes, int w)
{
    const size_t span = g * (size_t)coarsen * (size_t)lanes;
    const size_t tile = span + (size_t)w - 1;
    size_t floats = lanes == 1 ? clc_pad_len(tile, (size_t)coarsen) : tile + 1;
    if (lanes == 1)
        floats += clc_pad_len(span, (size_t)coarsen);
    return (uint64_t)floats * sizeof(float);
}

/* Work-items along x of a pass: tile (the caller's choice, 0 none) or on
 * GPUs 128 in the y and z passes; in the x pass 256 where its taps go in
 * rolled blocks (w x coarsen > 4096, cl/common.clh's
 * CLC_WINDOW_UNROLLED), else 32 where each work-item computes 16 or more
 * outputs and 64 below; 64 on CPUs. Shrunk to the row (a power of two
 * at least nx / coarsen), the device's limits and, for the x pass, its
 * local memory. H100 (bench/PERF.md items 45, 52): 1D 2^26 W=1001
 * (rolled) 3.282-3.290 ms at 256 against 3.364-3.370 at 128; 2D 8192^2
 * W=101 (16 outputs) 0.579-0.584 at 32, 0.594-0.595 at 64, 0.614 at
 * 128; W=31 (8 outputs) 0.373-0.375 at 64 or 128, 0.378-0.381 at 32,
 * and its 1D row 0.187 at 64 against 0.191-0.192. */
static size_t pass_group(const clconv_device_info *dev, size_t nx, int axis,
                         int coarsen, int lanes, int w, int tile)
{
    const int rolled = w * coarsen > 4096;
    size_t g = tile ? (size_t)tile
               : dev->kind != CLCONV_DEVICE_GPU ? 64
               : axis != 0                      ? 128
               : rolled                         ? 256
               : coarsen >= 16                  ? 32
                                                : 64;
    const size_t per = (size_t)lanes * (axis == 0 ? (size_t)coarsen : 1);
    const size_t need = (nx + per - 1) / per;
    while (g > 1 && g / 2 >= need)
        g /= 2;
    while (g > 1 &&
           (g > dev->max_work_group_size || g > dev->max_work_item_sizes[0] ||
            (axis == 0 && dev->local_mem_bytes > 0 &&
             x_pass_local(g, coarsen, lanes, w) > dev->local_mem_bytes)))
        g /= 2;
    return g;
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

/* The passes' form: 16 (float16 blocks along x) on CPUs, 1 on GPUs, or
 * $CLCONV_SEP_LANES. */
static int pass_lanes(const clc_sep *sp)
{
    const int ov = sp->s->overrides.sep_lanes;
    return ov ? ov : sp->s->dev.kind != CLCONV_DEVICE_GPU ? 16 : 1;
}

/* Pass k's kernel: the program stem (cl/<stem>.cl, kernel <stem>) built
 * with opts (freed here), its size arguments (nx, ny, nz) set. */
static clconv_status pass_kernel(clc_sep *sp, int k, const char *stem,
                                 char *opts)
{
    cl_program prog = NULL;
    clconv_status st = clc_program_get(sp->s, stem, opts, 1, &prog);
    free(opts);
    if (st != CLCONV_OK)
        return st;
    cl_int err;
    sp->pass[k] = clCreateKernel(prog, stem, &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateKernel", err, __FILE__, __LINE__);
    for (cl_uint a = 2; a < 5; ++a) {
        cl_int v = (cl_int)sp->p.size[a - 2];
        CLC_CHECK(clSetKernelArg(sp->pass[k], a, sizeof v, &v));
    }
    return CLCONV_OK;
}

/* Pass k: the 1D mask f along axis, each output's window starting left
 * inputs before it, ghost the value beyond the data in constant mode;
 * built with the defines of that 1D problem (clc_filter_defines), so
 * border mode, width and origin read as in the direct kernels. */
static clconv_status make_pass(clc_sep *sp, int k, int axis, const float *f,
                               int left, double ghost)
{
    const clconv_problem *p = &sp->p;
    /* CPUs: float16 blocks along x (LANES 16), 4 per work-item in the x
     * pass, 8 rows in the y and z passes, each an independent chain of
     * FMAs (PERF.md item 46: on the 2-core AVX-512 Xeon 4096^2 1x101 took
     * 51.0 ms at 8 rows, 64.0 at 4, 54.5 at 16 and 94.5 at 2, where the
     * sliding window it replaced took 63.5 at 2 rows). GPUs: one column
     * per work-item, 16 outputs per work-item in the y and z passes, in
     * the x pass 8 up to W=64 and 16 beyond (PERF.md item 37, H100: 8 was
     * 4% faster at W=31, 16 6% faster at W=101 and 29% at W=1001). */
    /* $CLCONV_SEP_LANES picks either form on any device (for tests),
     * $CLCONV_SEP_COARSEN=X,Y the outputs per work-item of the x pass and
     * of the y and z passes, $CLCONV_SEP_TILE=X,Y their work-items across
     * x (for measuring). */
    const int lanes = pass_lanes(sp);
    const int *oc = sp->s->overrides.sep_coarsen;
    const int w = clconv_problem_mask_axis(p, axis);
    const int coarsen = oc[axis ? 1 : 0] ? oc[axis ? 1 : 0]
                        : lanes == 16    ? (axis ? 8 : 4)
                        : axis || w > 64 ? 16
                                         : 8;
    /* A 2D problem's y pass on GPUs: 32 work-items across x by 4 along
     * y, which read 3/4 of their rows after one another (H100, 8192^2
     * Gaussian W=31: 0.453-0.457 ms against 0.474 at 128 x 1; W=101
     * 0.799-0.800 against 0.797; the 3D passes were 1% slower so, 512^3
     * W=15 1.176 against 1.163: bench/PERF.md item 49). Otherwise 1
     * along the axis. $CLCONV_SEP_TILE and $CLCONV_SEP_GROUP_A replace
     * either; ga is halved to the device's work-group limits. */
    const int ytile = axis == 1 && p->dims == 2 && lanes == 1 &&
                      sp->s->dev.kind == CLCONV_DEVICE_GPU;
    const int *ot = sp->s->overrides.sep_tile;
    const size_t g =
        pass_group(&sp->s->dev, p->size[0], axis, coarsen, lanes, w,
                   ot[axis ? 1 : 0] ? ot[axis ? 1 : 0] : ytile ? 32 : 0);
    size_t ga = !axis                          ? 1
                : sp->s->overrides.sep_group_a ? (size_t)sp->s->overrides.sep_group_a
                : ytile                        ? 4
                                               : 1;
    while (ga > 1 && (g * ga > sp->s->dev.max_work_group_size ||
                      ga > sp->s->dev.max_work_item_sizes[1]))
        ga /= 2;
    clconv_problem q;
    memset(&q, 0, sizeof q);
    q.dims = 1;
    q.mask_width = w;
    q.origin[0] = left - q.mask_width / 2;
    q.border = p->border;
    q.cval = ghost;
    q.tile = (int)g;
    const size_t len = 400 + (size_t)q.mask_width * 24;
    char *opts = malloc(len);
    if (!opts)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    size_t n = (size_t)snprintf(opts, len, "-D AXIS=%d -D COARSEN=%d "
                                "-D LANES=%d -D SEP_GROUP_A=%zu ", axis,
                                coarsen, lanes, ga);
    n += clc_filter_defines(&q, opts + n, len - n);
    n += (size_t)snprintf(opts + n, len - n, " -D SEP_MASK_VALUES=");
    clc_format_floats(opts + n, len - n, f, (size_t)q.mask_width);
    const clconv_status st = pass_kernel(sp, k, "sep_pass", opts);
    if (st != CLCONV_OK)
        return st;
    size_t *lo = sp->local[k], *gl = sp->global[k];
    lo[0] = g, lo[1] = ga, lo[2] = 1;
    const size_t lx = (p->size[0] + (size_t)lanes - 1) / (size_t)lanes;
    if (axis == 0) {
        gl[0] = round_up(lx, g * (size_t)coarsen) / (size_t)coarsen;
        gl[1] = p->size[1], gl[2] = p->size[2];
    } else {
        gl[0] = round_up(lx, g);
        gl[1] = round_up(
            (p->size[axis] + (size_t)coarsen - 1) / (size_t)coarsen, ga);
        gl[2] = axis == 1 ? p->size[2] : p->size[1];
    }
    return CLCONV_OK;
}

/* CPUs' x and y passes in one (cl/sep_xy.cl) by default: where the
 * device is not a GPU, the problem has a y axis and its y mask is at most
 * SEP_FUSE_MAX_Y taps (each work-item keeps SEP_ROWS + W - 1 filtered
 * rows of its columns in private memory). bench/PERF.md item 56. */
#define SEP_FUSE_MAX_Y 128
int clc_sep_fuses(const clconv_device_info *dev, const clconv_problem *p)
{
    return p->dims >= 2 && (!dev || dev->kind != CLCONV_DEVICE_GPU) &&
           clconv_problem_mask_axis(p, 1) <= SEP_FUSE_MAX_Y;
}

/* This plan's choice: the default where the passes take the CPUs' form
 * (LANES 16), else as $CLCONV_SEP_FUSE says (on any device and form). */
static int fused_xy(const clc_sep *sp, int lanes)
{
    const int o = sp->s->overrides.sep_fuse;
    if (sp->p.dims < 2)
        return 0;
    if (o)
        return o == 2;
    return lanes == 16 && clc_sep_fuses(&sp->s->dev, &sp->p);
}

/* The fused pass k: fx along x (left_x inputs before each output, ghost
 * gx beyond a row), fy along y (left_y, gy a filtered row beyond the
 * plane). Each work-item takes XB float16 blocks of x (8) and CHUNK rows
 * (256, fewer where the problem would leave compute units without four
 * work-groups each), ROWS output rows at a time (8; 16 where the x pass
 * goes row by row, beyond 64 x taps); work-groups of 4 work-items across
 * x. 16-core Xeon, 2D 8192^2 Gaussian (bench/PERF.md item 56): W=31
 * 20.1-24.8 ms at 8 blocks of 8 rows, 23.0-23.8 at 4 blocks; W=101
 * 42.8-45.0 at 8 blocks of 16 rows, 47.6-56.6 at 8 rows. */
static clconv_status make_fused(clc_sep *sp, int k, const float *fx,
                                const float *fy, int left_x, int left_y,
                                double gx, double gy)
{
    const clconv_problem *p = &sp->p;
    const int *og = sp->s->overrides.sep_fuse_geom;
    const int xb = og[0] ? og[0] : 8;
    const int rows = og[1] ? og[1] : clconv_problem_mask_axis(p, 0) > 64 ? 16 : 8;
    const size_t cols = (p->size[0] + 16 * (size_t)xb - 1) / (16 * (size_t)xb);
    size_t g = 4;
    while (g > 1 && (g / 2 >= cols || g > sp->s->dev.max_work_group_size ||
                     g > sp->s->dev.max_work_item_sizes[0]))
        g /= 2;
    int chunk = og[2];
    if (!chunk) {
        const size_t cu = sp->s->dev.compute_units ? sp->s->dev.compute_units : 1;
        const size_t groups = (cols + g - 1) / g * p->size[2];
        chunk = 256;
        while (chunk > rows &&
               groups * ((p->size[1] + (size_t)chunk - 1) / (size_t)chunk) <
                   4 * cu)
            chunk /= 2;
        chunk = chunk < rows ? rows : chunk / rows * rows;
    }
    clconv_problem q;
    memset(&q, 0, sizeof q);
    q.dims = 2;
    const int wx = clconv_problem_mask_axis(p, 0);
    const int wy = clconv_problem_mask_axis(p, 1);
    q.mask_width = wx;
    q.mask_size[0] = wx, q.mask_size[1] = wy, q.mask_size[2] = 1;
    q.origin[0] = left_x - wx / 2;
    q.origin[1] = left_y - wy / 2;
    q.border = p->border;
    q.cval = gx;
    q.tile = (int)g;
    const size_t len = 500 + (size_t)(wx + wy) * 24;
    char *opts = malloc(len);
    if (!opts)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    const float gyf = (float)gy;
    size_t n = (size_t)snprintf(opts, len, "-D SEP_XB=%d -D SEP_ROWS=%d "
                                "-D SEP_CHUNK=%d -D SEP_Y_GHOST=",
                                xb, rows, chunk);
    n += clc_format_floats(opts + n, len - n, &gyf, 1);
    opts[n++] = ' ';
    n += clc_filter_defines(&q, opts + n, len - n);
    n += (size_t)snprintf(opts + n, len - n, " -D SEP_MASK_VALUES=");
    n += clc_format_floats(opts + n, len - n, fx, (size_t)wx);
    n += (size_t)snprintf(opts + n, len - n, " -D SEP_Y_MASK_VALUES=");
    clc_format_floats(opts + n, len - n, fy, (size_t)wy);
    const clconv_status st = pass_kernel(sp, k, "sep_xy", opts);
    if (st != CLCONV_OK)
        return st;
    size_t *lo = sp->local[k], *gl = sp->global[k];
    lo[0] = g, lo[1] = 1, lo[2] = 1;
    gl[0] = round_up(cols, g);
    gl[1] = (p->size[1] + (size_t)chunk - 1) / (size_t)chunk;
    gl[2] = p->size[2];
    return CLCONV_OK;
}

/* The passes of factors f (flipped for a convolution). In constant mode
 * the data are extended by cval, so an intermediate beyond the data along
 * a later axis is cval filtered by the earlier passes: pass a reads
 * cval * sum(f_0) * .. * sum(f_{a-1}) there, which makes the passes
 * exactly the d-dimensional correlation. A y or z factor that is the
 * single tap 1 (the width-1 axes of --axes and batches) is no pass. */
static clconv_status make_passes(clc_sep *sp, float *f)
{
    const clconv_problem *p = &sp->p;
    float *fa[3];
    int skip[3] = {0, 0, 0};
    double ghost[3]; /* what pass a reads beyond the data */
    ghost[0] = p->border == CLCONV_BORDER_CONSTANT ? (float)p->cval : 0;
    for (int a = 0, off = 0; a < p->dims; ++a) {
        const int w = clconv_problem_mask_axis(p, a);
        fa[a] = f + off;
        off += w;
        for (int j = 0; p->flip && j < w / 2; ++j) {
            const float t = fa[a][j];
            fa[a][j] = fa[a][w - 1 - j], fa[a][w - 1 - j] = t;
        }
        skip[a] = a > 0 && w == 1 && fa[a][0] == 1.0f;
        double sum = 0.0;
        for (int j = 0; j < w; ++j)
            sum += fa[a][j];
        if (a + 1 < 3)
            ghost[a + 1] = skip[a] ? ghost[a] : (float)(ghost[a] * sum);
    }
    clconv_status st = CLCONV_OK;
    int a = 0;
    if (p->dims >= 2 && !skip[1] &&
        fused_xy(sp, pass_lanes(sp))) {
        st = make_fused(sp, sp->npass++, fa[0], fa[1],
                        clconv_problem_left(p, 0), clconv_problem_left(p, 1),
                        ghost[0], ghost[1]);
        a = 2;
    }
    for (; a < p->dims && st == CLCONV_OK; ++a)
        if (!skip[a])
            st = make_pass(sp, sp->npass++, a, fa[a],
                           clconv_problem_left(p, a), ghost[a]);
    return st;
}

clconv_status clc_sep_create(clconv_session *s, const clconv_problem *p,
                             const float *mask, clc_sep **out)
{
    float f[3 * 1023];
    *out = NULL;
    if (!mask)
        return clc_fail(CLCONV_EINVAL, "the separable method needs the mask "
                                       "when the plan is made "
                                       "(clconv_plan_create_with_mask)");
    if (!clconv_mask_separable(p, mask, f))
        return clc_fail(CLCONV_EINVAL,
                        "method separable: the %dD mask %dx%dx%d is not "
                        "an outer product of 1D masks (rank-1 test, "
                        "tolerance %d * FLT_EPSILON per element)",
                        p->dims, clconv_problem_mask_axis(p, 0),
                        clconv_problem_mask_axis(p, 1),
                        clconv_problem_mask_axis(p, 2), CLCONV_SEPARABLE_TOL);
    clc_sep *sp = calloc(1, sizeof *sp);
    if (!sp)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    sp->s = s;
    sp->p = *p;
    clconv_status st = make_passes(sp, f);
    if (st != CLCONV_OK) {
        clc_sep_destroy(sp);
        return st;
    }
    *out = sp;
    return CLCONV_OK;
}

void clc_sep_destroy(clc_sep *sp)
{
    if (!sp)
        return;
    for (int a = 0; a < 3; ++a)
        if (sp->pass[a])
            clReleaseKernel(sp->pass[a]);
    for (int k = 0; k < 2; ++k)
        if (sp->tmp[k])
            clReleaseMemObject(sp->tmp[k]);
    free(sp);
}

static clconv_status temps(clc_sep *sp)
{
    const size_t bytes = clconv_problem_elements(&sp->p) * sizeof(float);
    cl_int err;
    for (int k = 0; k < sp->npass - 1; ++k)
        if (!sp->tmp[k]) {
            sp->tmp[k] = clCreateBuffer(sp->s->context, CL_MEM_READ_WRITE,
                                        bytes, NULL, &err);
            if (err != CL_SUCCESS)
                return clc_cl_fail("clCreateBuffer(separable intermediate)",
                                   err, __FILE__, __LINE__);
        }
    return CLCONV_OK;
}

clconv_status clc_sep_launch(clc_sep *sp, cl_mem in, cl_mem out,
                             cl_uint nwait, const cl_event *wait,
                             cl_event *first, cl_event *last)
{
    clconv_status st = temps(sp);
    if (st != CLCONV_OK)
        return st;
    const int d = sp->npass;
    cl_event prev = NULL;
    for (int a = 0; a < d && st == CLCONV_OK; ++a) {
        cl_mem src = a == 0 ? in : sp->tmp[a - 1];
        cl_mem dst = a == d - 1 ? out : sp->tmp[a];
        cl_event ev = NULL;
        const char *call = "clSetKernelArg(sep_pass)";
        cl_int err = clSetKernelArg(sp->pass[a], 0, sizeof src, &src);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(sp->pass[a], 1, sizeof dst, &dst);
        if (err == CL_SUCCESS) {
            call = "clEnqueueNDRangeKernel(sep_pass)";
            err = clEnqueueNDRangeKernel(
                sp->s->queue, sp->pass[a], 3, NULL, sp->global[a],
                sp->local[a], a ? 1 : nwait, a ? &prev : wait, &ev);
        }
        if (err != CL_SUCCESS)
            st = clc_cl_fail(call, err, __FILE__, __LINE__);
        if (a == 0 && first && ev)
            clRetainEvent(*first = ev);
        if (prev)
            clReleaseEvent(prev);
        prev = ev;
    }
    if (st == CLCONV_OK && last)
        *last = prev;
    else if (prev)
        clReleaseEvent(prev);
    return st;
}
