/* The methods (direct, separable, FFT), their names, the cost model that
 * predicts each one's time, and the automatic choice (issue 17 item 3). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_bench.h"
#include <stdint.h>

#include "internal.h"

static const char *const method_names[CLCONV_METHOD_COUNT] = {
    "auto", "direct", "separable", "fft"};

const char *clconv_method_name(clconv_method m)
{
    return (unsigned)m < CLCONV_METHOD_COUNT ? method_names[m] : "unknown";
}

clconv_status clconv_method_parse(const char *name, clconv_method *out)
{
    for (int m = 0; m < CLCONV_METHOD_COUNT; ++m)
        if (name && strcmp(name, method_names[m]) == 0) {
            *out = (clconv_method)m;
            return CLCONV_OK;
        }
    return clc_fail(CLCONV_EINVAL,
                    "unknown method '%s' (auto, direct, separable, fft)",
                    name ? name : "");
}

/* Fractions of the FMA ceiling each path reaches on large masks (the
 * H100's direct 31x31 ran at ~20%: bench/PERF.md); 1D direct kernels
 * march a register window as the separable passes do (item 39); a GPU's
 * 2D and 3D direct kernel that computes several columns of a work-item
 * from one window (2D float32 masks 7-9, 3D masks 3-5, narrow types)
 * reaches 65-75% (H100 and H200: 2D 8192^2 W=9 74-75%, 3D 512^3 W=5
 * 65.5-65.8%; items 33, 53, 61), so a small separable mask stays direct
 * (2D W=9 0.228 ms against the passes' memory floor of 0.36; 3D W=5
 * 0.787 against 1.08). */
#define EFF_DIRECT 0.25
#define EFF_DIRECT_COLUMNS 0.65
#define EFF_DIRECT_1D 0.5
#define EFF_SEPARABLE 0.5
/* The separable passes' fraction of the copy bandwidth where memory bounds
 * them (H100: 3D 512^3 Gaussian W=15 1.13-1.28 ms against a floor of
 * 1.08, 2D 8192^2 W=31 0.373 against 0.359; bench/PERF.md items 49-52). */
#define EFF_SEPARABLE_MEM 0.9
#define EFF_FFT 0.3
/* Bytes per padded element of each VkFFT pass beyond one per axis (the
 * strided uploads of an axis longer than local memory holds): fitted to
 * the H100's 1D 2^26 W=1001 FFT, 5.13 ms against 1.65 predicted with one
 * pass per axis (bench/PERF.md item 40). */
#define FFT_EXTRA_PASS_BYTES 40.0

/* Passes over memory VkFFT makes along an axis of len points: one while
 * the axis fits a work-group's local memory (S = local bytes / 4 complex
 * floats: as many again in registers), else ceil(log len / log S); the x
 * axis of a real transform holds len / 2 complex points and, in more
 * than one pass, takes one more to split the halves. */
static double fft_axis_passes(double len, double local_bytes, int x)
{
    const double s = local_bytes > 0 ? local_bytes / 4.0 : 12288.0;
    const double n = x ? len / 2 : len;
    if (n <= s)
        return 1;
    return ceil(log(n) / log(s)) + (x ? 1 : 0);
}

/* Ceilings from the device's description when none were measured: 128
 * FP32 lanes per compute unit on GPUs (NVIDIA's SM), 16 on CPUs (two
 * 8-wide FMA units), 2 flops per FMA; 1500 GB/s on GPUs, 20 elsewhere. */
int clconv_method_ceilings(const clconv_device_info *dev,
                           const clconv_ceilings *c, clconv_ceilings *used)
{
    const int gpu = dev && dev->kind == CLCONV_DEVICE_GPU;
    const double cu = dev && dev->compute_units ? dev->compute_units : 1;
    const double ghz = dev && dev->clock_mhz ? dev->clock_mhz * 1e-3 : 1.0;
    const int have_gbs = c && c->copy_gbs > 0;
    const int have_fp = c && c->fp32_gflops > 0;
    clconv_ceilings u;
    memset(&u, 0, sizeof u);
    u.copy_gbs = have_gbs ? c->copy_gbs : gpu ? 1500.0 : 20.0;
    u.fp32_gflops = have_fp ? c->fp32_gflops : cu * ghz * (gpu ? 256.0 : 32.0);
    if (used)
        *used = u;
    return !have_gbs + 2 * !have_fp;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* A GPU's direct path on a problem too small to fill it: each work-item's
 * taps run one after another (its outputs x taps, at about 10 clocks a
 * tap where few warps share an SM), so that is its least time, in ms.
 * Fitted to the H100 at 1980 MHz (bench/PERF.md item 50): 2D 256^2 and
 * 512^2 random 31x31 took 0.084-0.088 ms at 16 outputs per work-item
 * (15376 taps: 79 us after the launch, 10.2 clocks a tap), 15x15
 * 0.026-0.027. 0 elsewhere (CPUs run a work-group's work-items as SIMD
 * lanes, and the throughput term covers them). */
#define GPU_CLOCKS_PER_TAP 10.0
static double direct_item_ms(const clconv_device_info *dev,
                             const clconv_problem *p, double taps)
{
    if (!dev || dev->kind != CLCONV_DEVICE_GPU || !dev->clock_mhz ||
        p->dims < 1 || p->dims > 3)
        return 0;
    clconv_problem q = *p;
    clconv_pick_default(dev, &q);
    clc_config c;
    clc_config_resolve_batched(dev, NULL, &q, &c);
    clc_geometry g;
    clc_config_geometry(&c, &g);
    const double items = (double)g.global[0] * (double)g.global[1] *
                         (double)g.global[2];
    if (items < 1)
        return 0;
    const double per_item = (double)clconv_problem_elements(p) / items;
    return per_item * taps * GPU_CLOCKS_PER_TAP / (dev->clock_mhz * 1e3);
}

/* The direct path's fraction of the FMA ceiling on p (above). */
static double direct_eff(const clconv_device_info *dev,
                         const clconv_problem *p)
{
    if (p->dims == 1)
        return EFF_DIRECT_1D;
    if (!dev || dev->kind != CLCONV_DEVICE_GPU || p->dims > 3)
        return EFF_DIRECT;
    clconv_problem q = *p;
    clconv_pick_default(dev, &q);
    clc_config c;
    clc_config_resolve_batched(dev, NULL, &q, &c);
    return q.strategy == CLCONV_COARSE && c.knob[CLC_KNOB_XV] > 1
               ? EFF_DIRECT_COLUMNS
               : EFF_DIRECT;
}

void clconv_method_predict(const clconv_device_info *dev,
                           const clconv_ceilings *c, const clconv_problem *p,
                           double ms[CLCONV_METHOD_COUNT])
{
    if (!p || !ms)
        return;
    double gbs, gflops;
    clconv_ceilings u;
    clconv_method_ceilings(dev, c, &u);
    gbs = u.copy_gbs;
    gflops = u.fp32_gflops;
    const double launch = dev && dev->kind == CLCONV_DEVICE_GPU ? 5e-3 : 2e-2;
    const double bw = gbs * 1e6, fl = gflops * 1e6; /* per millisecond */
    const double n = (double)clconv_problem_elements(p);
    const double taps = (double)clconv_problem_mask_elements(p);
    /* The direct kernel reads and writes the data's own types; the other
     * paths' passes are float32 (8 bytes per element and pass). */
    const double io = (double)(clconv_elem_size(p->in_dtype) +
                               clconv_elem_size(p->out_dtype));
    const double eff = direct_eff(dev, p);
    ms[CLCONV_METHOD_DIRECT] =
        max2(max2(io * n / bw, 2 * taps * n / (eff * fl)),
             direct_item_ms(dev, p, taps)) +
        launch;
    ms[CLCONV_METHOD_SEPARABLE] = 0;
    for (int a = 0; a < p->dims; ++a) { /* one pass per axis */
        double w = clconv_problem_mask_axis(p, a);
        /* a y or z axis of one tap is no pass (the plan's factor there
         * is 1: separable.c's make_passes), nor fused with x */
        if (a > 0 && w == 1)
            continue;
        if (a == 0 && clconv_problem_mask_axis(p, 1) > 1 &&
            clc_sep_fuses(dev, p)) {
            /* x and y in one pass, the x pass of a chunk's first W_y - 1
             * rows done twice (chunks of 256 rows) */
            const double wy = clconv_problem_mask_axis(p, 1);
            w = w * (1 + (wy - 1) / 256) + wy;
            ++a;
        }
        ms[CLCONV_METHOD_SEPARABLE] +=
            max2(8 * n / (EFF_SEPARABLE_MEM * bw),
                 2 * w * n / (EFF_SEPARABLE * fl)) +
            launch;
    }
    size_t len[3];
    clc_fft_padded_sizes(p, len);
    const double l = (double)len[0] * (double)len[1] * (double)len[2];
    double extra = 0; /* passes beyond one per axis, per transform */
    for (int a = 0; a < p->dims; ++a)
        extra += fft_axis_passes((double)len[a],
                                 dev ? (double)dev->local_mem_bytes : 0,
                                 a == 0) - 1;
    const double bytes = 36 * l + 2.0 * p->dims * 8 * l +
                         2.0 * extra * FFT_EXTRA_PASS_BYTES * l;
    const double flops = 2 * 2.5 * l * log2(l > 2 ? l : 2);
    ms[CLCONV_METHOD_FFT] = bytes / bw + flops / (EFF_FFT * fl) +
                            (3 + 2 * p->dims) * launch;
    ms[CLCONV_METHOD_AUTO] = ms[CLCONV_METHOD_DIRECT];
    for (int m = CLCONV_METHOD_SEPARABLE; m < CLCONV_METHOD_COUNT; ++m)
        if (ms[m] < ms[CLCONV_METHOD_AUTO])
            ms[CLCONV_METHOD_AUTO] = ms[m];
}

/* The fastest predicted method among direct, separable (where the mask
 * is) and the FFT (where fft says it can run). */
static clconv_method pick(const clconv_device_info *dev,
                          const clconv_ceilings *c, const clconv_problem *p,
                          int separable, int fft)
{
    double ms[CLCONV_METHOD_COUNT];
    clconv_method_predict(dev, c, p, ms);
    /* A mask one tap wide along y and z is a 1D filter of rows: the
     * direct path runs it as a batch of 1D problems (its members' own
     * kernel) and the separable path as its one x pass, so the 1D rule
     * below decides, not the model's near tie (a 3D 1x1x1 mask went to
     * the separable path, and test_matrix's default 3D case with it). */
    int x_only = 1;
    for (int a = 1; a < p->dims; ++a)
        x_only &= clconv_problem_mask_axis(p, a) == 1;
    clconv_method best = CLCONV_METHOD_DIRECT;
    if (separable && !x_only &&
        ms[CLCONV_METHOD_SEPARABLE] < ms[CLCONV_METHOD_DIRECT])
        best = CLCONV_METHOD_SEPARABLE;
    /* 1D: every mask is one pass. On GPUs beyond 64 taps the pass (a
     * window march with staged stores, 256 wide) ran faster than the
     * direct kernel's window (H100, 2^26 W=1001: 3.28 ms against 4.04);
     * up to 64 the direct queue did (W=55: 0.271 ms against 0.346). On
     * CPUs the direct vector kernel did (2 cores, 2^22 W=101: 5.4 ms
     * against 11.9; W=1001 52 against 153). bench/PERF.md item 40. */
    if (x_only && (p->dims == 1 || separable) &&
        clconv_problem_mask_axis(p, 0) > 64 && dev &&
        dev->kind != CLCONV_DEVICE_CPU)
        best = CLCONV_METHOD_SEPARABLE;
    /* The FFT's error grows with the data's range, not the mask's: take it
     * only where it is at least twice as fast. */
    if (fft && 2 * ms[CLCONV_METHOD_FFT] < ms[best])
        best = CLCONV_METHOD_FFT;
    return best;
}

clconv_method clconv_method_pick(const clconv_device_info *dev,
                                 const clconv_ceilings *c,
                                 const clconv_problem *p, int separable)
{
    return p ? pick(dev, c, p, separable, 1) : CLCONV_METHOD_DIRECT;
}

clconv_method clc_method_choose(const clconv_session *s,
                                const clconv_problem *p, const float *mask)
{
    if (p->method != CLCONV_METHOD_AUTO)
        return p->method;
    if (!mask)
        return CLCONV_METHOD_DIRECT;
    const clconv_ceilings c = {s->copy_gbs, s->fp32_gflops};
    const int sep = p->dims > 1 && clconv_mask_separable(p, mask, NULL);
    /* The FFT transforms the whole problem at once: where its arrays do
     * not fit, or this session refused its sizes before, the best of the
     * paths that stream in slabs. */
    const int fft = clc_fft_fits(s, p);
    return pick(&s->dev, &c, p, sep, fft);
}

clconv_method clconv_method_choose(const clconv_session *s,
                                   const clconv_problem *p, const float *mask)
{
    if (!p)
        return CLCONV_METHOD_DIRECT;
    /* Without a session nothing measures the others: direct, as without
     * a mask. */
    return s || p->method != CLCONV_METHOD_AUTO ? clc_method_choose(s, p, mask)
                                                : CLCONV_METHOD_DIRECT;
}

/* Any NaN or Inf among n elements of type t at in (integers: none); and
 * *range, the largest magnitude among the finite ones (the integer
 * types' largest, without reading them). */
static int any_nonfinite(const void *in, size_t n, clconv_elem t,
                         double *range)
{
    *range = 0.0;
    if (t == CLCONV_ELEM_F32) {
        const uint32_t *u = in;
        uint32_t big = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t a = u[i] & 0x7fffffffu;
            if (a >= 0x7f800000u)
                return 1;
            big = a > big ? a : big; /* magnitudes order as their bits */
        }
        float f;
        memcpy(&f, &big, sizeof f);
        *range = f;
    } else if (t == CLCONV_ELEM_F16) {
        const uint16_t *u = in;
        for (size_t i = 0; i < n; ++i)
            if ((u[i] & 0x7c00u) == 0x7c00u)
                return 1;
        *range = 65504.0;
    } else {
        *range = t == CLCONV_ELEM_U8    ? 255.0
                 : t == CLCONV_ELEM_U16 ? 65535.0
                                        : 32768.0;
    }
    return 0;
}

/* Whether the FFT's float32 intermediates could overflow on data of this
 * range: the forward transform's bins reach (padded elements) x range,
 * their products with the mask's spectrum that times sum|M|, and the
 * inverse as much; an inf there is NaN at every output, where the direct
 * and separable paths (and scipy.ndimage) give the finite result. A
 * quarter of FLT_MAX leaves room for the rounding of the sums. */
static int fft_overflows(const clconv_problem *p, const float *mask,
                         double range)
{
    if (p->border == CLCONV_BORDER_CONSTANT && fabs(p->cval) > range)
        range = fabs(p->cval);
    double msum = 0.0;
    const size_t taps = clconv_problem_mask_elements(p);
    for (size_t i = 0; mask && i < taps; ++i)
        msum += fabs((double)mask[i]);
    return range * clc_fft_padded_elements(p) * (msum > 1.0 ? msum : 1.0) >
           0.25 * (double)FLT_MAX;
}

clconv_status clconv_method_choose_for_input(const clconv_session *s,
                                             const clconv_problem *p,
                                             const float *mask, const void *in,
                                             size_t n, clconv_method *out)
{
    if (!s || !p || !out)
        return clc_fail(CLCONV_EINVAL,
                        "no session, problem or result given (NULL)");
    clconv_method m = clc_method_choose(s, p, mask);
    double range = 0.0;
    const int fft = m == CLCONV_METHOD_FFT && in;
    const int nonfinite = fft && any_nonfinite(in, n, p->in_dtype, &range);
    const int overflows = fft && !nonfinite && fft_overflows(p, mask, range);
    if (nonfinite || overflows) {
        if (p->method != CLCONV_METHOD_AUTO && nonfinite)
            return clc_fail(CLCONV_EUNSUPPORTED,
                            "method fft: the input holds NaN or Inf, which a "
                            "Fourier transform spreads to every output (the "
                            "direct and separable methods keep each where "
                            "scipy.ndimage does)");
        if (p->method != CLCONV_METHOD_AUTO)
            return clc_fail(CLCONV_EUNSUPPORTED,
                            "method fft: the input's magnitude (up to %g) "
                            "would overflow float32 in the Fourier transform "
                            "(NaN at every output); the direct and separable "
                            "methods compute it",
                            range);
        const clconv_ceilings c = {s->copy_gbs, s->fp32_gflops};
        const int sep = p->dims > 1 && clconv_mask_separable(p, mask, NULL);
        m = pick(&s->dev, &c, p, sep, 0);
    }
    *out = m;
    return CLCONV_OK;
}
