/* The element-type matrix (issue 17 item 4): every path (the six direct
 * variants, separable, FFT) x dims x border mode x (input type, output
 * type), verified against the double reference of the typed input on
 * every device present ($CLCONV_DEVICE restricts), with the typed bound
 * (clconv_verify_typed: 0.5 ulp of a rounded output type plus the float
 * bound, saturated results equal to the saturated reference).
 *
 * A pairwise design: each (path, dims, mode) runs one type pair, rotated
 * so that every pair of (path, type pair), (dims, type pair) and (mode,
 * type pair) appears; the test checks that coverage itself. Each case has
 * an anisotropic mask with an origin and runs on a small odd size and on
 * a wide one (interior spans between border ones). The
 * f16 cases run twice, with $CLCONV_FP16=0 (converted on the host, what
 * a device without cl_khr_fp16 gets) and 1 (on the device, vload_half),
 * so both are checked on every device.
 *
 * The 2D coarse kernel's columns per work-item (XV: 4 or 8 by default for
 * narrow inputs on GPUs, 1 on CPUs) get their own group on every device:
 * XV 2, 4, 8 and 16 forced ($CLCONV_COARSE_XV), every mode, every type
 * pair, on a row length that is a multiple of 16 (aligned vectors in
 * interior work-groups) and on an odd one (every work-group checked). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "support.h"

/* The type pairs (input, output). */
static const clconv_elem pairs[][2] = {
    {CLCONV_ELEM_U8, CLCONV_ELEM_U8},   {CLCONV_ELEM_U8, CLCONV_ELEM_F32},
    {CLCONV_ELEM_U16, CLCONV_ELEM_U16}, {CLCONV_ELEM_U16, CLCONV_ELEM_F32},
    {CLCONV_ELEM_I16, CLCONV_ELEM_I16}, {CLCONV_ELEM_I16, CLCONV_ELEM_F32},
    {CLCONV_ELEM_F16, CLCONV_ELEM_F16}, {CLCONV_ELEM_F16, CLCONV_ELEM_F32},
};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])

/* The paths: the direct variants, then separable and FFT. */
#define NPATHS (CLCONV_STRATEGY_COUNT + 2)

typedef struct dtype_test {
    const clconv_device_info *dev;
    clconv_session *session;  /* f16 converted on the host */
    clconv_session *flipped;  /* f16 on the device */
    int path, dims;
    char name[160];
    int xv; /* the columns group: XV forced (0: the matrix's own cases) */
} dtype_test;

static uint64_t seed;
/* Which (factor value, pair) combinations ran: [path], [dims], [mode]. */
static int seen_path[NPATHS][NPAIRS], seen_dims[3][NPAIRS],
    seen_mode[CLCONV_BORDER_COUNT][NPAIRS];

static const char *path_name(int path)
{
    return path < CLCONV_STRATEGY_COUNT
               ? clconv_strategy_name((clconv_strategy)path)
           : path == CLCONV_STRATEGY_COUNT ? "separable"
                                           : "fft";
}

/* Case k (0: small and odd, 1: wide) of an anisotropic mask with an
 * origin (one program for both sizes). */
static clconv_problem case_problem(const dtype_test *dt, int mode, int pair,
                                   int k)
{
    static const size_t small[3] = {13, 11, 7}, wide[3][3] = {
        {1001, 1, 1}, {203, 19, 1}, {71, 9, 5}};
    static const int aniso[3][3] = {{5, 1, 1}, {5, 3, 1}, {3, 1, 5}};
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dt->dims;
    if (dt->path < CLCONV_STRATEGY_COUNT)
        p.strategy = (clconv_strategy)dt->path;
    else
        clconv_pick_default(dt->dev, &p);
    p.method = dt->path < CLCONV_STRATEGY_COUNT ? CLCONV_METHOD_DIRECT
               : dt->path == CLCONV_STRATEGY_COUNT ? CLCONV_METHOD_SEPARABLE
                                                   : CLCONV_METHOD_FFT;
    p.border = (clconv_border)mode;
    p.in_dtype = pairs[pair][0];
    p.out_dtype = pairs[pair][1];
    for (int a = 0; a < p.dims; ++a) {
        p.size[a] = k ? wide[p.dims - 1][a] : small[a];
        p.mask_size[a] = aniso[p.dims - 1][a];
        p.origin[a] = a == 0 ? (p.mask_size[a] - 1) / 2 : 0;
    }
    p.mask_width = clconv_problem_mask_max(&p);
    return p;
}

static int run_one(clconv_session *s, const clconv_problem *p,
                   uint64_t case_seed, const char *what)
{
    clconv_dataset *data = NULL;
    assert_int_equal(support_dataset(p, case_seed, &data), CLCONV_OK);
    if (p->method == CLCONV_METHOD_SEPARABLE) { /* an outer product */
        clconv_fill_separable(p, data->mask, support_mask_seed());
        assert_int_equal(clconv_dataset_update(data), CLCONV_OK);
    }
    clconv_result res;
    clconv_run_verified(s, p, data, 0, 0, &res);
    clconv_dataset_destroy(data);
    if (res.status != CLCONV_OK) {
        print_error("FAIL %s seed %llu: %s\n", what,
                    (unsigned long long)case_seed, res.reason);
        return 1;
    }
    if (!res.verdict.ok) {
        print_error("FAIL %s seed %llu: %zu elements out of bound, worst at "
                    "%zu: got %.9g expected %.9g\n",
                    what, (unsigned long long)case_seed,
                    res.verdict.failures, res.verdict.worst_index,
                    res.verdict.worst_got, res.verdict.worst_expected);
        return 1;
    }
    return 0;
}

static long run_pair(const dtype_test *dt, int mode, int pair,
                     uint64_t *case_seed)
{
    long failures = 0;
    seen_path[dt->path][pair] = seen_dims[dt->dims - 1][pair] =
        seen_mode[mode][pair] = 1;
    for (int k = 0; k < 2; ++k) {
        const clconv_problem p = case_problem(dt, mode, pair, k);
        char what[256];
        snprintf(what, sizeof what, "%dD %s %s %s->%s %s", p.dims,
                 path_name(dt->path), clconv_border_name(p.border),
                 clconv_elem_name(p.in_dtype), clconv_elem_name(p.out_dtype),
                 k ? "wide" : "small");
        ++*case_seed;
        failures += run_one(dt->session, &p, *case_seed, what);
        if (p.in_dtype == CLCONV_ELEM_F16)
            failures += run_one(dt->flipped, &p, *case_seed, what);
    }
    return failures;
}

static void run_modes(void **state)
{
    const dtype_test *dt = *state;
    long failures = 0;
    uint64_t case_seed = seed ^ ((uint64_t)(dt->path * 8 + dt->dims) << 40);
    for (int m = 0; m < CLCONV_BORDER_COUNT; ++m) {
        /* One pair per (path, dims, mode): this rotation covers every
         * pair of factors (checked by the last test). */
        failures += run_pair(dt, m, (dt->path + m + 2 * dt->dims) % NPAIRS,
                             &case_seed);
    }
    assert_int_equal(failures, 0);
}

/* A session on dev with $CLCONV_COARSE_XV=xv, f16 on the device (fp16)
 * or converted on the host. */
static clconv_session *columns_session(const clconv_device_info *dev,
                                       int xv, int fp16)
{
    char v[8];
    snprintf(v, sizeof v, "%d", xv);
    setenv("CLCONV_COARSE_XV", v, 1);
    setenv("CLCONV_FP16", fp16 ? "1" : "0", 1);
    clconv_session *s = NULL;
    if (clconv_session_create(dev, &s) != CLCONV_OK)
        s = NULL;
    unsetenv("CLCONV_COARSE_XV");
    setenv("CLCONV_FP16", "0", 1);
    return s;
}

/* 2D coarse with XV columns per work-item: 70 rows 1104 long (a multiple
 * of 16: interior work-groups load and store aligned vectors) and 9 rows
 * 1101 long (unaligned: checked everywhere), a 5x3 mask at its largest x
 * origin (halo 4 + 0 columns); then the 70 rows again with a 7x3 mask at
 * x origin -1 (halo 2 + 4: from XV = 4 on, both sides come from the
 * neighbouring vectors, cl/conv2d_coarse.cl's XV_HALO_VECTORS), float32
 * there as well;
 * one type pair per mode, rotated so that the XVs together see all
 * eight. */
static void run_columns(void **state)
{
    const dtype_test *dt = *state;
    clconv_session *host = columns_session(dt->dev, dt->xv, 0),
                   *dev16 = columns_session(dt->dev, dt->xv, 1);
    assert_non_null(host);
    assert_non_null(dev16);
    static const size_t rows[3][2] = {{1104, 70}, {1101, 9}, {1104, 70}};
    static const int mask_x[3] = {5, 5, 7}, origin_x[3] = {2, 2, -1};
    long failures = 0;
    uint64_t case_seed = seed ^ ((uint64_t)(100 + dt->xv) << 40);
    for (int m = 0; m < CLCONV_BORDER_COUNT; ++m) {
        const int pair = (m + dt->xv) % NPAIRS;
        for (int z = 0; z < 3; ++z) {
            clconv_problem p;
            memset(&p, 0, sizeof p);
            p.dims = 2;
            p.strategy = CLCONV_COARSE;
            p.border = (clconv_border)m;
            p.in_dtype = pairs[pair][0];
            p.out_dtype = pairs[pair][1];
            p.size[0] = rows[z][0];
            p.size[1] = rows[z][1];
            p.mask_size[0] = mask_x[z];
            p.mask_size[1] = 3;
            p.origin[0] = origin_x[z];
            p.mask_width = mask_x[z];
            char what[256];
            snprintf(what, sizeof what,
                     "2D coarse XV=%d %dx3 origin %d %s %s->%s %zux%zu",
                     dt->xv, mask_x[z], origin_x[z],
                     clconv_border_name(p.border),
                     clconv_elem_name(p.in_dtype),
                     clconv_elem_name(p.out_dtype), p.size[0], p.size[1]);
            ++case_seed;
            failures += run_one(host, &p, case_seed, what);
            if (p.in_dtype == CLCONV_ELEM_F16)
                failures += run_one(dev16, &p, case_seed, what);
            if (z == 2) { /* float32 too (GPUs' default at masks 7-9) */
                p.in_dtype = p.out_dtype = CLCONV_ELEM_F32;
                snprintf(what, sizeof what,
                         "2D coarse XV=%d %dx3 origin %d %s f32 %zux%zu",
                         dt->xv, mask_x[z], origin_x[z],
                         clconv_border_name(p.border), p.size[0], p.size[1]);
                failures += run_one(host, &p, ++case_seed, what);
            }
        }
    }
    clconv_session_destroy(host);
    clconv_session_destroy(dev16);
    assert_int_equal(failures, 0);
}

/* Runs last: every pair of factors appeared (the design's promise). */
static void every_pair_of_factors_appears(void **state)
{
    (void)state;
    int missing = 0;
    for (int t = 0; t < NPAIRS; ++t) {
        for (int v = 0; v < NPATHS; ++v)
            missing += !seen_path[v][t];
        for (int d = 0; d < 3; ++d)
            missing += !seen_dims[d][t];
        for (int m = 0; m < CLCONV_BORDER_COUNT; ++m)
            missing += !seen_mode[m][t];
    }
    assert_int_equal(missing, 0);
}

/* A second session on dev that runs f16 on the device ($CLCONV_FP16=1:
 * the kernels need only vload_half/vstore_half, core OpenCL C). */
static clconv_session *device_f16_session(const clconv_device_info *dev)
{
    clconv_session *s = NULL;
    setenv("CLCONV_FP16", "1", 1);
    if (clconv_session_create(dev, &s) != CLCONV_OK)
        s = NULL;
    setenv("CLCONV_FP16", "0", 1);
    return s;
}

int main(void)
{
    seed = support_seeds("dtype matrix");
    /* The fixture's sessions convert f16 on the host; the second ones of
     * each device use it on the device (vload_half, core OpenCL C). */
    setenv("CLCONV_FP16", "0", 1);
    support_devices f;
    if (support_devices_open(&f)) {
        fprintf(stderr, "test_matrix_dtype: %s\n", f.why);
        return 1;
    }
    static const int xvs[] = {2, 4, 8, 16};
    const size_t ntests = f.n * (NPATHS * 3 + 4) + 1;
    dtype_test *dts = calloc(ntests, sizeof *dts);
    clconv_session **flipped = calloc(f.n ? f.n : 1, sizeof *flipped);
    struct CMUnitTest *tests = calloc(ntests, sizeof *tests);
    if (!dts || !tests || !flipped)
        return 1;
    size_t n = 0;
    for (size_t d = 0; d < f.n; ++d) {
        flipped[d] = device_f16_session(support_device(&f, d));
        if (!flipped[d]) {
            fprintf(stderr, "test_matrix_dtype: %s\n", clconv_last_error());
            return 1;
        }
        for (int v = 0; v < NPATHS; ++v)
            for (int dims = 1; dims <= 3; ++dims) {
                dtype_test *dt = &dts[n];
                *dt = (dtype_test){support_device(&f, d), f.sessions[d],
                                   flipped[d], v, dims, "", 0};
                snprintf(dt->name, sizeof dt->name,
                         "conv%dd_%s_typed_matches_reference_in_every_mode_"
                         "on_%u:%u",
                         dims, path_name(v), dt->dev->platform_index,
                         dt->dev->device_index);
                tests[n].name = dt->name;
                tests[n].test_func = run_modes;
                tests[n].initial_state = dt;
                ++n;
            }
        for (int i = 0; i < 4; ++i) {
            dtype_test *dt = &dts[n];
            *dt = (dtype_test){support_device(&f, d), NULL, NULL,
                               CLCONV_COARSE, 2, "", xvs[i]};
            snprintf(dt->name, sizeof dt->name,
                     "conv2d_coarse_xv%d_typed_matches_reference_in_every_"
                     "mode_on_%u:%u",
                     xvs[i], dt->dev->platform_index, dt->dev->device_index);
            tests[n].name = dt->name;
            tests[n].test_func = run_columns;
            tests[n].initial_state = dt;
            ++n;
        }
    }
    tests[n].name = "every_pair_of_factors_appears";
    tests[n].test_func = every_pair_of_factors_appears;
    ++n;
    const char *filter = getenv("CLCONV_MATRIX_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    int failed = _cmocka_run_group_tests("dtype matrix", tests, n, NULL, NULL);
    for (size_t d = 0; d < f.n; ++d)
        clconv_session_destroy(flipped[d]);
    free(flipped);
    free(tests);
    free(dts);
    support_devices_close(&f);
    return failed ? 1 : 0;
}
