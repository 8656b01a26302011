/* The FFT path (issue 17 item 2): correlation with a large mask as a
 * product of spectra, in every border mode. Along each axis the input
 * sits at the origin of a cyclic array of L >= n + W - 1 elements whose
 * other slots hold the border mode's extension: slot x reads input index
 * x, or x - L in the last `left` slots (cl/fft_ops.cl, through
 * common.clh's folds and ghost value). In wrap mode an axis whose period
 * n is itself a transform size is transformed unpadded (L = n: the
 * circular correlation is the wrap mode). The array is transformed
 * (VkFFT, R2C), multiplied by the spectrum of the mask placed at
 * (left - j) mod L (so the circular convolution is the correlation whose
 * window starts `left` before each output: proof in doc/methods.md),
 * transformed back (C2R), scaled by 1/L^d and cropped. The mask's
 * spectrum is made once per mask. Each plan first checks VkFFT's
 * transforms of its sizes on an impulse and takes larger sizes where
 * the device computes them wrong (impulse_check). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct clc_fft {
    clconv_session *s;
    clconv_problem p;
    size_t len[3];  /* transform sizes */
    int left[3];    /* where each output's window starts, per axis */
    size_t rowf;    /* floats per row of the padded layout */
    size_t floats;  /* floats of the padded array */
    clc_vkfft *vk;
    /* The session's queue, or its in-order one where the session's is an
     * application's out-of-order queue: VkFFT's kernels, and the steps
     * between them, follow each other by the queue's order alone. */
    cl_command_queue q;
    cl_mem data, spec; /* the padded array, the mask's spectrum */
    cl_kernel pad, mul, crop;
};

/* The smallest size >= n whose prime factors are 2, 3, 5 and 7 (even
 * along x, as R2C wants), at least 2. */
static size_t nice_size(size_t n, int even)
{
    for (size_t m = n < 2 ? 2 : n;; ++m) {
        size_t r = m;
        static const size_t primes[] = {2, 3, 5, 7};
        for (int i = 0; i < 4; ++i)
            while (r % primes[i] == 0)
                r /= primes[i];
        if (r == 1 && (!even || m % 2 == 0))
            return m;
    }
}

/* The transform size along each axis: the period itself in wrap mode
 * where it is one (even along x), else room for the data and its
 * extension, n + W - 1. */
void clc_fft_padded_sizes(const clconv_problem *p, size_t len[3])
{
    for (int k = 0; k < 3; ++k) {
        const size_t n = p->size[k];
        const size_t w = (size_t)clconv_problem_mask_axis(p, k);
        if (k >= p->dims)
            len[k] = 1;
        else if (p->border == CLCONV_BORDER_WRAP && nice_size(n, !k) == n)
            len[k] = n;
        else
            len[k] = nice_size(n + w - 1, !k);
    }
}

double clc_fft_padded_elements(const clconv_problem *p)
{
    size_t len[3];
    clc_fft_padded_sizes(p, len);
    return (double)len[0] * (double)len[1] * (double)len[2];
}

static uint64_t len_bytes(const size_t len[3])
{
    return (uint64_t)(2 * (len[0] / 2 + 1)) * len[1] * len[2] * sizeof(float);
}

static int len_fits(const clconv_session *s, const size_t len[3])
{
    const uint64_t bytes = len_bytes(len);
    return bytes <= s->alloc_limit && 4 * bytes <= s->dev.global_mem_bytes;
}

uint64_t clc_fft_array_bytes(const clconv_problem *p)
{
    size_t len[3];
    clc_fft_padded_sizes(p, len);
    return len_bytes(len);
}

int clc_fft_fits_alloc(const clconv_session *s, const clconv_problem *p)
{
    size_t len[3];
    clc_fft_padded_sizes(p, len);
    return len_fits(s, len);
}

/* Whether s refused an FFT plan of these sizes before (clc_fft_create). */
static int refused(const clconv_session *s, const size_t len[3])
{
    const int n = s->fft_nrefused < CLC_FFT_REFUSED ? s->fft_nrefused
                                                    : CLC_FFT_REFUSED;
    for (int i = 0; i < n; ++i)
        if (memcmp(s->fft_refused[i], len, sizeof s->fft_refused[i]) == 0)
            return 1;
    return 0;
}

/* VkFFT plans its work-groups for GPUs: on a device allowing fewer work-
 * items than this its scheduler loops for ever (POCL_MAX_WORK_GROUP_SIZE
 * 1 and 8: VkFFTScheduler's register split, 2D 64^2) or its kernels fail
 * to launch (2 to 6: VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL); at 16 and 32
 * the transforms of 64^2 and 96^3 ran, and 64 leaves a margin. Every GPU
 * and CPU runtime allows 256 or more. */
#define FFT_MIN_GROUP 64

static int group_fits(const clconv_session *s)
{
    return s->dev.max_work_group_size >= FFT_MIN_GROUP;
}

/* The padded array and its spectrum each within one allocation, the two
 * with the caller's input and output within the device's memory, work-
 * groups wide enough for VkFFT, and the sizes not refused on this session
 * before. */
int clc_fft_fits(const clconv_session *s, const clconv_problem *p)
{
    size_t len[3];
    clc_fft_padded_sizes(p, len);
    return len_fits(s, len) && group_fits(s) && !refused(s, len);
}

/* fft_ops built after common.clh with the defines of a 1D problem of
 * width 1 in p's border mode and cval: one program per mode and cval,
 * whatever the mask. */
static clconv_status build(clc_fft *f, cl_program *prog)
{
    clconv_problem q;
    memset(&q, 0, sizeof q);
    q.dims = 1;
    q.size[0] = q.size[1] = q.size[2] = 1;
    q.mask_width = 1;
    q.tile = 1;
    q.border = f->p.border;
    q.cval = f->p.cval;
    char opts[256];
    clc_filter_defines(&q, opts, sizeof opts);
    return clc_program_get(f->s, "fft_ops", opts, 1, prog);
}

static clconv_status kernels(clc_fft *f)
{
    cl_program prog = NULL;
    cl_int err = CL_SUCCESS;
    clconv_status st = build(f, &prog);
    if (st != CLCONV_OK)
        return st;
    f->pad = clCreateKernel(prog, "fft_pad", &err);
    if (err == CL_SUCCESS)
        f->mul = clCreateKernel(prog, "fft_mul", &err);
    if (err == CL_SUCCESS)
        f->crop = clCreateKernel(prog, "fft_crop", &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateKernel(fft_ops)", err, __FILE__, __LINE__);
    cl_int4 n, len, left;
    for (int k = 0; k < 4; ++k) {
        n.s[k] = k < 3 ? (cl_int)f->p.size[k] : 1;
        len.s[k] = k < 3 ? (cl_int)f->len[k] : 1;
        left.s[k] = k < 3 ? f->left[k] : 0;
    }
    const cl_int rowf = (cl_int)f->rowf, ly = (cl_int)f->len[1];
    const float scale = (float)(1.0 / ((double)f->len[0] * (double)f->len[1] *
                                       (double)f->len[2]));
    CLC_CHECK(clSetKernelArg(f->pad, 1, sizeof f->data, &f->data));
    CLC_CHECK(clSetKernelArg(f->pad, 2, sizeof n, &n));
    CLC_CHECK(clSetKernelArg(f->pad, 3, sizeof len, &len));
    CLC_CHECK(clSetKernelArg(f->pad, 4, sizeof left, &left));
    CLC_CHECK(clSetKernelArg(f->pad, 5, sizeof rowf, &rowf));
    CLC_CHECK(clSetKernelArg(f->mul, 0, sizeof f->data, &f->data));
    CLC_CHECK(clSetKernelArg(f->mul, 1, sizeof f->spec, &f->spec));
    CLC_CHECK(clSetKernelArg(f->mul, 2, sizeof scale, &scale));
    const cl_int bins = (cl_int)(f->floats / 2);
    CLC_CHECK(clSetKernelArg(f->mul, 3, sizeof bins, &bins));
    CLC_CHECK(clSetKernelArg(f->crop, 0, sizeof f->data, &f->data));
    CLC_CHECK(clSetKernelArg(f->crop, 2, sizeof n, &n));
    CLC_CHECK(clSetKernelArg(f->crop, 3, sizeof rowf, &rowf));
    CLC_CHECK(clSetKernelArg(f->crop, 4, sizeof ly, &ly));
    return CLCONV_OK;
}

#define IMPULSE_TRIES 4

/* VkFFT's transforms of f's sizes on an impulse at slot 0: forward, every
 * bin must be 1; back, the element at slot 0 the number of elements N and
 * every other 0 (each within a bound far above float rounding, far below
 * a wrong value, and never NaN). PoCL (3.1 and 5.0) computes NaN for
 * 8232 x 8232, the transform of 2D 8192^2 with masks 3 to 41, where
 * NVIDIA's and Intel's runtimes are right, and neighbouring sizes are
 * right on PoCL too (bench/PERF.md item 38): so each plan checks its own
 * sizes once. Read in chunks of 4 Mi floats. */
static clconv_status impulse_check(clc_fft *f, int *right)
{
    cl_command_queue q = f->q;
    const float zero = 0.0f, one = 1.0f;
    const double nall = (double)f->len[0] * (double)f->len[1] *
                        (double)f->len[2];
    const size_t chunk = (size_t)4 << 20;
    *right = 1;
    float *h = malloc((f->floats < chunk ? f->floats : chunk) * sizeof *h);
    if (!h)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    clconv_status st = CLCONV_OK;
    /* Written from the host, not filled: Oclgrind's --uninitialized
     * check does not count words clEnqueueFillBuffer wrote. */
    cl_int err = CL_SUCCESS;
    for (size_t i0 = 0; err == CL_SUCCESS && i0 < f->floats; i0 += chunk) {
        const size_t m = f->floats - i0 < chunk ? f->floats - i0 : chunk;
        for (size_t i = 0; i < m; ++i)
            h[i] = i0 + i == 0 ? one : zero;
        err = clEnqueueWriteBuffer(q, f->data, CL_TRUE, i0 * sizeof *h,
                                   m * sizeof *h, h, 0, NULL, NULL);
    }
    if (err != CL_SUCCESS)
        st = clc_cl_fail("clEnqueueWriteBuffer(FFT impulse)", err, __FILE__,
                         __LINE__);
    for (int inverse = 0; inverse < 2 && st == CLCONV_OK && *right;
         ++inverse) {
        st = clc_vkfft_run(f->vk, f->data, inverse);
        for (size_t i0 = 0; st == CLCONV_OK && *right && i0 < f->floats;
             i0 += chunk) {
            const size_t m = f->floats - i0 < chunk ? f->floats - i0 : chunk;
            err = clEnqueueReadBuffer(q, f->data, CL_TRUE, i0 * sizeof *h,
                                      m * sizeof *h, h, 0, NULL, NULL);
            if (err != CL_SUCCESS) {
                st = clc_cl_fail("clEnqueueReadBuffer(FFT impulse)", err,
                                 __FILE__, __LINE__);
                break;
            }
            for (size_t i = 0; i < m && *right; ++i) {
                const size_t g = i0 + i;
                double want, tol;
                if (!inverse) { /* bins (re, im): (1, 0) */
                    want = g % 2 ? 0.0 : 1.0;
                    tol = 1e-3;
                } else if (g % f->rowf >= f->len[0]) {
                    continue; /* the row's padding past len[0] reals */
                } else {
                    want = g == 0 ? nall : 0.0;
                    tol = 1e-4 * nall;
                }
                if (!(fabs((double)h[i] - want) <= tol))
                    *right = 0;
            }
        }
    }
    free(h);
    return st;
}

#define CPU_LOCAL_X 1536

/* The data buffer and VkFFT's plan for f->len, checked on an impulse
 * (*right: 0 where the device computes them wrong; both are then freed). */
static clconv_status transform_for(clc_fft *f, int *right)
{
    cl_int err;
    *right = 0;
    f->rowf = 2 * (f->len[0] / 2 + 1);
    f->floats = f->rowf * f->len[1] * f->len[2];
    const uint64_t bytes = (uint64_t)f->floats * sizeof(float);
    if (!len_fits(f->s, f->len))
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "the FFT's padded array of %llu bytes does not fit "
                        "the device", (unsigned long long)bytes);
    f->data = clCreateBuffer(f->s->context, CL_MEM_READ_WRITE, bytes, NULL,
                             &err);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clCreateBuffer(FFT array)", err, __FILE__,
                           __LINE__);
    clconv_status st =
        clc_vkfft_create(f->s, f->q, f->p.dims, f->len, f->data, &f->vk);
    /* On CPUs VkFFT's work-groups wider than CPU_LOCAL_X are not run:
     * PoCL crashed at 4050 (1D 101250); up to 1372 they ran (at 1372,
     * 8232^2, wrong: the impulse check catches that). */
    if (st == CLCONV_OK && f->s->dev.kind == CLCONV_DEVICE_CPU &&
        clc_vkfft_max_local_x(f->vk) > CPU_LOCAL_X)
        *right = 0;
    else if (st == CLCONV_OK)
        st = impulse_check(f, right);
    if (st == CLCONV_OK && !*right) {
        clc_vkfft_destroy(f->vk);
        f->vk = NULL;
        clReleaseMemObject(f->data);
        f->data = NULL;
    }
    return st;
}

/* The next larger transform size along every axis of the problem, never
 * less than n + W - 1 (a wrap mode's unpadded period grown is padded). */
static void grow(clc_fft *f)
{
    for (int k = 0; k < f->p.dims; ++k) {
        const size_t need = f->p.size[k] +
                            (size_t)clconv_problem_mask_axis(&f->p, k) - 1;
        f->len[k] = nice_size(f->len[k] + 1 > need ? f->len[k] + 1 : need, !k);
    }
}

clconv_status clc_fft_create(clconv_session *s, const clconv_problem *p,
                             clc_fft **out)
{
    cl_int err;
    *out = NULL;
    clc_fft *f = calloc(1, sizeof *f);
    if (!f)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    f->s = s;
    f->p = *p;
    if (!group_fits(s)) {
        free(f);
        return clc_fail(CLCONV_EUNSUPPORTED,
                        "method fft: VkFFT needs work-groups of %d "
                        "work-items, the device allows %zu",
                        FFT_MIN_GROUP, s->dev.max_work_group_size);
    }
    if (!(f->q = clc_session_ordered_queue(s))) {
        free(f);
        return CLCONV_EOPENCL;
    }
    clc_fft_padded_sizes(p, f->len);
    for (int k = 0; k < 3; ++k)
        f->left[k] = k < p->dims ? clconv_problem_left(p, k) : 0;
    clconv_status st = CLCONV_OK;
    int right = 0;
    const size_t first[3] = {f->len[0], f->len[1], f->len[2]};
    for (int tries = 0; st == CLCONV_OK && !right; ++tries) {
        if (tries == IMPULSE_TRIES) {
            if (!refused(s, first))
                memcpy(s->fft_refused[s->fft_nrefused++ % CLC_FFT_REFUSED],
                       first, sizeof first);
            st = clc_fail(CLCONV_EUNSUPPORTED,
                          "VkFFT's transforms of %zux%zux%zu to "
                          "%zux%zux%zu (%d sizes) gave wrong values on this "
                          "device or took work-groups too wide for a CPU",
                          first[0], first[1], first[2], f->len[0], f->len[1],
                          f->len[2], tries);
            break;
        }
        if (tries) /* the sizes before were computed wrong: next larger */
            grow(f);
        st = transform_for(f, &right);
    }
    if (st == CLCONV_OK) {
        f->spec = clCreateBuffer(s->context, CL_MEM_READ_WRITE,
                                 f->floats * sizeof(float), NULL, &err);
        if (err != CL_SUCCESS)
            st = clc_cl_fail("clCreateBuffer(FFT array)", err, __FILE__,
                             __LINE__);
    }
    if (st == CLCONV_OK)
        st = kernels(f);
    if (st != CLCONV_OK) {
        clc_fft_destroy(f);
        return st;
    }
    *out = f;
    return CLCONV_OK;
}

void clc_fft_destroy(clc_fft *f)
{
    if (!f)
        return;
    clc_vkfft_destroy(f->vk);
    cl_kernel k[3] = {f->pad, f->mul, f->crop};
    for (int i = 0; i < 3; ++i)
        if (k[i])
            clReleaseKernel(k[i]);
    if (f->spec)
        clReleaseMemObject(f->spec);
    if (f->data)
        clReleaseMemObject(f->data);
    free(f);
}

/* Where tap j of an axis of width w goes: (left - j) mod len, the tap
 * reversed first for a convolution (left is then the mirrored origin's,
 * clconv_problem_left). */
static size_t tap_slot(const clc_fft *f, int axis, size_t j)
{
    const size_t w = (size_t)clconv_problem_mask_axis(&f->p, axis);
    const size_t len = f->len[axis];
    const size_t t = f->p.flip ? w - 1 - j : j;
    return ((size_t)f->left[axis] + len * w - t) % len;
}

clconv_status clc_fft_set_mask(clc_fft *f, const float *mask)
{
    const size_t wx = (size_t)clconv_problem_mask_axis(&f->p, 0);
    const size_t wy = (size_t)clconv_problem_mask_axis(&f->p, 1);
    const size_t wz = (size_t)clconv_problem_mask_axis(&f->p, 2);
    float *k = calloc(f->floats, sizeof *k);
    if (!k)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    /* Taps that meet in one slot add (in wrap mode's unpadded period,
     * where W > n: the indices they read are the same mod n). */
    for (size_t jz = 0; jz < wz; ++jz)
        for (size_t jy = 0; jy < wy; ++jy)
            for (size_t jx = 0; jx < wx; ++jx)
                k[(tap_slot(f, 2, jz) * f->len[1] + tap_slot(f, 1, jy)) *
                      f->rowf +
                  tap_slot(f, 0, jx)] += mask[(jz * wy + jy) * wx + jx];
    clconv_status st = CLCONV_OK;
    cl_int err = clEnqueueWriteBuffer(f->q, f->spec, CL_TRUE, 0,
                                      f->floats * sizeof *k, k, 0, NULL, NULL);
    free(k);
    if (err != CL_SUCCESS)
        return clc_cl_fail("clEnqueueWriteBuffer(FFT mask)", err, __FILE__,
                           __LINE__);
    st = clc_vkfft_run(f->vk, f->spec, 0);
    if (st == CLCONV_OK && (err = clFinish(f->q)) != CL_SUCCESS)
        st = clc_cl_fail("clFinish", err, __FILE__, __LINE__);
    return st;
}

static clconv_status enqueued(cl_int err)
{
    return err == CL_SUCCESS ? CLCONV_OK
                             : clc_cl_fail("clEnqueueNDRangeKernel(fft_ops)",
                                           err, __FILE__, __LINE__);
}

clconv_status clc_fft_launch(clc_fft *f, cl_mem in, cl_mem out,
                             cl_uint nwait, const cl_event *wait,
                             cl_event *first, cl_event *last)
{
    cl_command_queue q = f->q;
    const clconv_device_info *d = &f->s->dev;
    const size_t bins[3] = {f->floats / 2, 1, 1};
    size_t lpad[3], gpad[3], lmul[3], gmul[3], lcrop[3], gcrop[3];
    clc_flat_launch(d, f->len, lpad, gpad);
    clc_flat_launch(d, bins, lmul, gmul);
    clc_flat_launch(d, f->p.size, lcrop, gcrop);
    cl_event ev = NULL;
    CLC_CHECK(clSetKernelArg(f->pad, 0, sizeof in, &in));
    CLC_CHECK(clSetKernelArg(f->crop, 1, sizeof out, &out));
    CLC_CHECK(clEnqueueNDRangeKernel(q, f->pad, 3, NULL, gpad, lpad, nwait,
                                     wait, &ev));
    if (first)
        *first = ev;
    else
        clReleaseEvent(ev);
    /* f->q is in order: each step follows the one before (the caller
     * waits for *last, on whichever queue). */
    clconv_status st = clc_vkfft_run(f->vk, f->data, 0);
    if (st == CLCONV_OK)
        st = enqueued(clEnqueueNDRangeKernel(
            q, f->mul, 1, NULL, gmul, lmul, 0, NULL, NULL));
    if (st == CLCONV_OK)
        st = clc_vkfft_run(f->vk, f->data, 1);
    /* On an application's out-of-order queue the steps ran on the
     * session's in-order one: a marker on the application's queue ends
     * them, so its clFinish, barriers and markers cover the FFT as they
     * cover the other paths (it finished after clFinish returned). */
    const int apart = q != f->s->queue;
    cl_event crop = NULL;
    if (st == CLCONV_OK)
        st = enqueued(clEnqueueNDRangeKernel(q, f->crop, 3, NULL, gcrop,
                                             lcrop, 0, NULL,
                                             apart ? &crop : last));
    /* A command of another queue may wait on crop only once crop's
     * queue is flushed (OpenCL 1.2 section 5.13: an implementation need
     * not submit it before, and the application's clFinish would wait
     * for ever). */
    if (st == CLCONV_OK && apart) {
        cl_int err = clFlush(q);
        const char *call = "clFlush";
        if (err == CL_SUCCESS) {
            err = clEnqueueMarkerWithWaitList(f->s->queue, 1, &crop, last);
            call = "clEnqueueMarkerWithWaitList";
        }
        if (err != CL_SUCCESS)
            st = clc_cl_fail(call, err, __FILE__, __LINE__);
    }
    if (crop)
        clReleaseEvent(crop);
    return st;
}
