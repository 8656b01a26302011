/* Host-to-host calls (clconv_convolve_ex): on a session whose allocation
 * limit ($CLCONV_MAX_ALLOC_BYTES) forces small slabs, every strategy in
 * 1D, 2D and 3D gives bit for bit the result of one launch over the whole
 * problem, also when a slab is thinner than the mask's halo; the plan
 * cache gives right results across masks and shapes; the zero-copy path
 * of CPU devices and the pinned staging of GPUs (forced here on any
 * device, in chunks small enough that the ring wraps) match the plan
 * path; a limit below one row with its halo is unsupported with the
 * reason, a malformed limit or staging setting a bad argument. With the
 * 3D kernel's work-items along z sharing planes, slabs, row ranges and
 * parts held apart (clconv_convolve_part) give one launch's bits too.
 * Runs on every device $CLCONV_DEVICE selects. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_bench.h"
#include "clconv_cl.h"
#include "clconv_io.h"
#include "clconv_model.h"
#include "clconv_tune.h"
#include "support.h"

typedef struct fixture {
    clconv_device_list list;
    const clconv_device_info *dev;
    clconv_session *whole; /* no limit */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    unsetenv("CLCONV_MAX_ALLOC_BYTES");
    if (!f || support_first_device(&f->list, &f->dev) != 0 ||
        clconv_session_create(f->dev, &f->whole) != CLCONV_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clconv_session_destroy(f->whole);
    clconv_devices_free(&f->list);
    free(f);
    return 0;
}

/* Which way host memory is bound: BIND_COPY copies from pageable memory,
 * BIND_IN_PLACE works on it (CPU devices), BIND_PINNED copies through
 * pinned staging chunks of 1000 bytes (GPUs' default, with 16 MiB). */
enum { BIND_COPY, BIND_IN_PLACE, BIND_PINNED, BIND_COUNT };
static int binding = BIND_COPY;

static clconv_session *session_bound(fixture *f)
{
    setenv("CLCONV_ZERO_COPY", binding == BIND_IN_PLACE ? "1" : "0", 1);
    setenv("CLCONV_PINNED", binding == BIND_PINNED ? "1" : "0", 1);
    setenv("CLCONV_PINNED_CHUNK_BYTES", "1000", 1);
    clconv_session *s = NULL;
    clconv_status st = clconv_session_create(f->dev, &s);
    unsetenv("CLCONV_ZERO_COPY");
    unsetenv("CLCONV_PINNED");
    unsetenv("CLCONV_PINNED_CHUNK_BYTES");
    if (st != CLCONV_OK)
        fail_msg("session: %s", clconv_last_error());
    return s;
}

/* A session whose buffers hold at most `bytes`. */
static clconv_session *limited(fixture *f, size_t bytes)
{
    char v[32];
    snprintf(v, sizeof v, "%zu", bytes);
    setenv("CLCONV_MAX_ALLOC_BYTES", v, 1);
    clconv_session *s = session_bound(f);
    unsetenv("CLCONV_MAX_ALLOC_BYTES");
    return s;
}

/* The plan path: one launch of the direct method over the whole problem.
 * The calls compared with it leave the method on auto: in parts, where
 * the FFT's bits would depend on the partition, auto is the direct
 * method too (a slow device's cost model picks the FFT for the whole). */
static void launch_once(clconv_session *s, const clconv_problem *p,
                        const float *in, const float *mask, float *out)
{
    clconv_problem direct = *p;
    direct.method = CLCONV_METHOD_DIRECT;
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create_with_mask(s, &direct, mask, &plan),
                     CLCONV_OK);
    assert_int_equal(clconv_plan_set_input(plan, in), CLCONV_OK);
    assert_int_equal(clconv_plan_execute(plan, NULL), CLCONV_OK);
    assert_int_equal(clconv_plan_get_output(plan, out), CLCONV_OK);
    clconv_plan_destroy(plan);
}

static void one_launch(fixture *f, const clconv_problem *p, const float *in,
                       const float *mask, float *out)
{
    launch_once(f->whole, p, in, mask, out);
}

/* p in slabs of about `rows` rows of its slowest axis, against one launch. */
static void check_slabs(fixture *f, clconv_problem p, size_t rows)
{
    size_t n = clconv_problem_elements(&p), m = clconv_problem_mask_elements(&p);
    size_t row = n / p.size[p.dims - 1];
    float *in = malloc(n * 4), *mask = malloc(m * 4);
    float *want = malloc(n * 4), *got = malloc(n * 4);
    assert_non_null(in && mask && want && got);
    clconv_fill_random(in, n, 21 + p.dims);
    clconv_fill_random(mask, m, 31 + p.mask_width);
    one_launch(f, &p, in, mask, want);
    size_t halo = (size_t)(p.mask_width - 1);
    clconv_session *s = limited(f, (rows + halo) * row * 4);
    clconv_call_info info;
    for (size_t i = 0; i < n; ++i)
        got[i] = NAN;
    clconv_status st = clconv_convolve_ex(s, &p, in, mask, got, &info);
    if (st != CLCONV_OK)
        fail_msg("%dD %s W=%d %s in slabs: %s", p.dims,
                 clconv_strategy_name(p.strategy), p.mask_width,
                 clconv_border_name(p.border), clconv_last_error());
    if (info.slabs < 2)
        fail_msg("%dD %s W=%d ran in %zu slab(s)", p.dims,
                 clconv_strategy_name(p.strategy), p.mask_width, info.slabs);
    if (info.pinned != (binding == BIND_PINNED) ||
        info.zero_copy != (binding == BIND_IN_PLACE))
        fail_msg("binding %d: the call says pinned %d, zero-copy %d", binding,
                 info.pinned, info.zero_copy);
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&got[i], &want[i], 4) != 0)
            fail_msg("%dD %s W=%d %s, %zu slabs: element %zu is %.9g, one "
                     "launch gives %.9g", p.dims,
                     clconv_strategy_name(p.strategy), p.mask_width,
                     clconv_border_name(p.border), info.slabs, i, got[i],
                     want[i]);
    clconv_session_destroy(s);
    free(in);
    free(mask);
    free(want);
    free(got);
}

static void every_strategy_in_slabs_equals_one_launch(void **state)
{
    fixture *f = *state;
    for (binding = 0; binding < BIND_COUNT; ++binding) {
    const size_t sizes[3][3] = {{1000, 1, 1}, {45, 37, 1}, {19, 13, 17}};
    for (int dims = 1; dims <= 3; ++dims)
        for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
            for (int w = 1; w <= 5; w += 2) {
                clconv_problem p = {.dims = dims, .mask_width = w,
                                    .strategy = (clconv_strategy)s};
                memcpy(p.size, sizes[dims - 1], sizeof p.size);
                p.tile = clconv_default_tile(p.strategy, dims, w);
                check_slabs(f, p, dims == 1 ? 97 : 4);
            }
    }
    binding = BIND_COPY;
}

/* Slabs of one row under a mask of 7: the halo spans several slabs. */
static void slabs_thinner_than_the_halo_equal_one_launch(void **state)
{
    fixture *f = *state;
    clconv_problem p = {.dims = 2, .size = {33, 20, 1}, .mask_width = 7};
    clconv_pick_default(f->dev, &p);
    for (binding = 0; binding < BIND_COUNT; ++binding) {
        check_slabs(f, p, 1);
        clconv_problem q = {.dims = 3, .size = {9, 8, 10}, .mask_width = 5};
        clconv_pick_default(f->dev, &q);
        check_slabs(f, q, 1);
    }
    binding = BIND_COPY;
}

/* Every border mode in slabs, thick and of one row, bit for bit one
 * launch: wrap's slabs at the axis' ends (and reflect's and mirror's when
 * thinner than the halo) gather their halo rows from the far end or the
 * fold; once they were refused as not fitting the device. Row ranges at
 * the ends and a range of one edge row too. */
static void every_mode_in_slabs_equals_one_launch(void **state)
{
    fixture *f = *state;
    static const clconv_border modes[] = {
        CLCONV_BORDER_WRAP, CLCONV_BORDER_REFLECT, CLCONV_BORDER_MIRROR,
        CLCONV_BORDER_NEAREST, CLCONV_BORDER_CONSTANT};
    const size_t sizes[3][3] = {{300, 1, 1}, {23, 19, 1}, {9, 8, 10}};
    /* Sampled (make test-oclgrind, make sanitize: minutes on the
     * simulator): the copying binding and the modes that gather. */
    const char *sample = getenv("CLCONV_MATRIX_SAMPLE");
    const int sampled = sample && *sample;
    const int bindings = sampled ? 1 : BIND_COUNT;
    const size_t nmodes = sampled ? 3 : sizeof modes / sizeof *modes;
    for (binding = 0; binding < bindings; ++binding)
        for (size_t mi = 0; mi < nmodes; ++mi)
            for (int dims = 1; dims <= 3; ++dims) {
                clconv_problem p = {.dims = dims, .mask_width = 5,
                                    .border = modes[mi], .cval = 0.5f};
                memcpy(p.size, sizes[dims - 1], sizeof p.size);
                p.origin[dims - 1] = (int)mi % 3 - 1;
                clconv_pick_default(f->dev, &p);
                check_slabs(f, p, dims == 1 ? 70 : 3);
                check_slabs(f, p, 1);
            }
    binding = BIND_COPY;
    clconv_problem p = {.dims = 2, .size = {17, 11, 1}, .mask_width = 7,
                        .border = CLCONV_BORDER_WRAP};
    clconv_pick_default(f->dev, &p);
    const size_t n = clconv_problem_elements(&p);
    const size_t m = clconv_problem_mask_elements(&p);
    float *in = malloc(n * 4), *mask = malloc(m * 4);
    float *want = malloc(n * 4), *got = malloc(n * 4);
    assert_non_null(in && mask && want && got);
    clconv_fill_random(in, n, 51);
    clconv_fill_random(mask, m, 52);
    for (int b = CLCONV_BORDER_NEAREST; b < CLCONV_BORDER_COUNT; ++b) {
        p.border = (clconv_border)b;
        one_launch(f, &p, in, mask, want);
        for (size_t i = 0; i < n; ++i)
            got[i] = NAN;
        const size_t cuts[] = {0, 2, 10, 11, 2, 10};
        for (int k = 0; k < 3; ++k)
            if (clconv_convolve_rows(f->whole, &p, in, mask, got, cuts[2 * k],
                                     cuts[2 * k + 1], NULL) != CLCONV_OK)
                fail_msg("%s rows %zu to %zu: %s",
                         clconv_border_name(p.border), cuts[2 * k],
                         cuts[2 * k + 1], clconv_last_error());
        assert_memory_equal(got, want, n * 4);
    }
    free(in);
    free(mask);
    free(want);
    free(got);
}

/* The output over the input, whole or shifted by a few elements, in every
 * binding: the result of separate arrays (CPUs' in-place binding once
 * read outputs already written: 255 of 4096 wrong). Row ranges refuse
 * overlapping arrays (other calls would read this one's outputs). */
static void an_output_over_the_input_is_computed_as_if_apart(void **state)
{
    fixture *f = *state;
    const size_t sizes[2][3] = {{4096, 1, 1}, {31, 7, 1}};
    for (binding = 0; binding < BIND_COUNT; ++binding) {
        clconv_session *s = session_bound(f);
        for (int dims = 1; dims <= 2; ++dims)
            for (size_t shift = 0; shift <= 5; shift += 5) {
                clconv_problem p = {.dims = dims, .mask_width = 3,
                                    .border = CLCONV_BORDER_WRAP};
                memcpy(p.size, sizes[dims - 1], sizeof p.size);
                clconv_pick_default(f->dev, &p);
                const size_t n = clconv_problem_elements(&p);
                float *in = malloc(n * 4), *want = malloc(n * 4);
                float *both = malloc((n + shift) * 4), mask[9];
                assert_non_null(in && want && both);
                clconv_fill_random(in, n, 61);
                clconv_fill_random(mask, 9, 62);
                one_launch(f, &p, in, mask, want);
                memcpy(both + shift, in, n * 4);
                if (clconv_convolve(s, &p, both + shift, mask, both) !=
                    CLCONV_OK)
                    fail_msg("in place: %s", clconv_last_error());
                for (size_t i = 0; i < n; ++i)
                    if (memcmp(&both[i], &want[i], 4) != 0)
                        fail_msg("%dD in place, output %zu before the input, "
                                 "binding %d: element %zu is %.9g, apart "
                                 "%.9g", dims, shift, binding, i, both[i],
                                 want[i]);
                memcpy(both + shift, in, n * 4);
                assert_int_equal(clconv_convolve_rows(s, &p, both + shift,
                                                      mask, both, 0,
                                                      p.size[dims - 1], NULL),
                                 CLCONV_EINVAL);
                assert_non_null(strstr(clconv_last_error(), "overlaps"));
                free(in);
                free(want);
                free(both);
            }
        clconv_session_destroy(s);
    }
    binding = BIND_COPY;
}

/* Through pinned staging in one piece (no slab limit): 8-bit data in and
 * out and float32, sizes that no chunk divides, bit for bit the plan's
 * result, no byte left unwritten; later calls on the same ring and the
 * session's kept slab buffers (larger, then smaller) are right too. */
static void pinned_staging_equals_the_plan(void **state)
{
    fixture *f = *state;
    binding = BIND_PINNED;
    clconv_session *s = session_bound(f);
    const size_t heights[3] = {97, 99, 96}; /* kept buffers grow, reused */
    for (int rep = 0; rep < 3; ++rep)
        for (int t = 0; t < 2; ++t) {
            const clconv_elem e = t ? CLCONV_ELEM_U8 : CLCONV_ELEM_F32;
            clconv_problem p = {.dims = 2, .size = {301, heights[rep], 1},
                                .mask_width = 5, .in_dtype = e,
                                .out_dtype = e};
            clconv_pick_default(f->dev, &p);
            const size_t n = clconv_problem_elements(&p);
            const size_t isz = clconv_elem_size(e);
            unsigned char *in = malloc(n * isz), *want = malloc(n * isz),
                          *got = malloc(n * isz);
            float mask[25];
            assert_non_null(in && want && got);
            for (size_t i = 0; i < n * isz; ++i)
                in[i] = (unsigned char)(i * 2654435761u >> 13);
            if (e == CLCONV_ELEM_F32)
                clconv_fill_random((float *)in, n, 77 + (uint64_t)rep);
            for (int i = 0; i < 25; ++i)
                mask[i] = 0.04f * (float)(i % 7) - 0.1f;
            clconv_plan *plan = NULL;
            p.method = CLCONV_METHOD_DIRECT;
            assert_int_equal(clconv_plan_create_with_mask(f->whole, &p, mask,
                                                          &plan),
                             CLCONV_OK);
            assert_int_equal(clconv_plan_set_input_typed(plan, in), CLCONV_OK);
            assert_int_equal(clconv_plan_execute(plan, NULL), CLCONV_OK);
            assert_int_equal(clconv_plan_get_output_typed(plan, want),
                             CLCONV_OK);
            clconv_plan_destroy(plan);
            memset(got, 0xA5, n * isz);
            clconv_call_info info;
            assert_int_equal(clconv_convolve_typed(s, &p, in, mask, got,
                                                   &info),
                             CLCONV_OK);
            assert_int_equal(info.pinned, 1);
            assert_int_equal(info.slabs, 1);
            for (size_t i = 0; i < n * isz; ++i)
                if (got[i] != want[i])
                    fail_msg("%s %zux%zu, call %d: byte %zu is %u, the plan "
                             "gives %u", clconv_elem_name(e), p.size[0],
                             p.size[1], rep, i, got[i], want[i]);
            free(in);
            free(want);
            free(got);
        }
    clconv_session_destroy(s);
    binding = BIND_COPY;
}

/* Repeated calls reuse plans; new masks and shapes still give the
 * reference's result. */
static void cached_plans_follow_new_masks_and_shapes(void **state)
{
    fixture *f = *state;
    for (int rep = 0; rep < 10; ++rep) {
        clconv_problem p = {.dims = 2, .size = {40 + (size_t)(rep % 3), 30, 1},
                            .mask_width = rep % 2 ? 3 : 5};
        clconv_pick_default(f->dev, &p);
        size_t n = clconv_problem_elements(&p);
        float in[43 * 30], mask[25], got[43 * 30];
        double ref[43 * 30], abs_sum[43 * 30];
        clconv_fill_random(in, n, 100 + (uint64_t)rep);
        clconv_fill_random(mask, clconv_problem_mask_elements(&p),
                           200 + (uint64_t)rep);
        assert_int_equal(clconv_convolve(f->whole, &p, in, mask, got),
                         CLCONV_OK);
        assert_int_equal(clconv_reference(&p, in, mask, ref, abs_sum),
                         CLCONV_OK);
        clconv_verdict v;
        clconv_verify(&p, got, ref, abs_sum, &v);
        if (!v.ok)
            fail_msg("call %d: element %zu is %g, expected %g", rep,
                     v.worst_index, v.worst_got, v.worst_expected);
    }
}

/* Rows computed in ranges, in any order, add up to the whole result, and
 * rows outside a range are never written. */
static void row_ranges_add_up_to_the_whole(void **state)
{
    fixture *f = *state;
    clconv_problem p = {.dims = 3, .size = {21, 17, 30}, .mask_width = 5};
    clconv_pick_default(f->dev, &p);
    size_t n = clconv_problem_elements(&p), m = clconv_problem_mask_elements(&p);
    float *in = malloc(n * 4), *mask = malloc(m * 4);
    float *want = malloc(n * 4), *got = malloc(n * 4);
    assert_non_null(in && mask && want && got);
    clconv_fill_random(in, n, 41);
    clconv_fill_random(mask, m, 42);
    one_launch(f, &p, in, mask, want);
    for (size_t i = 0; i < n; ++i)
        got[i] = NAN;
    const size_t plane = 21 * 17, cuts[] = {20, 30, 0, 7, 7, 20};
    for (int k = 0; k < 3; ++k) {
        assert_int_equal(clconv_convolve_rows(f->whole, &p, in, mask, got,
                                              cuts[2 * k], cuts[2 * k + 1],
                                              NULL),
                         CLCONV_OK);
        for (size_t i = cuts[2 * k + 1] * plane; k == 1 && i < 20 * plane; ++i)
            assert_true(isnan(got[i])); /* rows 7-19 not yet written */
    }
    assert_memory_equal(got, want, n * 4);
    assert_int_equal(clconv_convolve_rows(f->whole, &p, in, mask, got, 5, 5,
                                          NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_convolve_rows(f->whole, &p, in, mask, got, 0, 31,
                                          NULL),
                     CLCONV_EINVAL);
    free(in);
    free(mask);
    free(want);
    free(got);
}

/* A session whose 3D coarse kernel has 4 work-items along z sharing a
 * work-group's planes, 2 columns each (GPUs' default at masks 3-5): an
 * output at the boundary between two work-items' planes adds their two
 * partial sums, at planes counted from the launch's first. limit: as
 * limited(), 0 for none. */
static clconv_session *planes_shared(fixture *f, size_t limit)
{
    setenv("CLCONV_COARSE_GZ", "4", 1);
    setenv("CLCONV_COARSE_XV", "2", 1);
    clconv_session *s = limit ? limited(f, limit) : session_bound(f);
    unsetenv("CLCONV_COARSE_GZ");
    unsetenv("CLCONV_COARSE_XV");
    return s;
}

static void same_bits(const float *got, const float *want, size_t n,
                      const char *what, const clconv_problem *p)
{
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&got[i], &want[i], 4) != 0)
            fail_msg("%s, %zux%zux%zu mask %dx%dx%d %s, binding %d: element "
                     "%zu is %.9g, one launch gives %.9g", what, p->size[0],
                     p->size[1], p->size[2], p->mask_size[0],
                     p->mask_size[1], p->mask_size[2],
                     clconv_border_name(p->border), binding, i, got[i],
                     want[i]);
}

/* p's whole rows [begin, end) from a part of it alone (an MPI rank's
 * block, a chunk of a mapped file): its rows from begin - lo to end + hi
 * (within the array in the constant mode, whose ends the part folds as
 * the whole does; past its ends the rows the mode reads otherwise), into
 * got through clconv_convolve_part; all: every row of the part computed
 * (its halo rows too, as apply's chunks over several devices), else
 * only those. */
static void part_of(clconv_session *s, const clconv_problem *p,
                    const float *in, const float *mask, float *got,
                    size_t begin, size_t end, int all)
{
    const long long rows = (long long)p->size[2];
    const long long lo = clconv_problem_left(p, 2),
                    hi = clconv_problem_mask_axis(p, 2) - 1 - lo;
    long long first = (long long)begin - lo, last = (long long)end + hi;
    if (p->border == CLCONV_BORDER_CONSTANT) {
        first = first < 0 ? 0 : first;
        last = last > rows ? rows : last;
    }
    const size_t row = p->size[0] * p->size[1], n = (size_t)(last - first);
    float *lin = malloc(n * row * 4), *lout = malloc(n * row * 4);
    assert_non_null(lin && lout);
    for (size_t i = 0; i < n; ++i)
        memcpy(lin + i * row,
               in + row * (size_t)clconv_border_index(first + (long long)i,
                                                      rows, p->border),
               row * 4);
    clconv_problem local = *p;
    local.size[2] = n;
    const clconv_part part = {first, p->size[2]};
    if (clconv_convolve_part(s, &local, &part, lin, mask, lout,
                             all ? 0 : (size_t)((long long)begin - first),
                             all ? n : (size_t)((long long)end - first),
                             NULL) != CLCONV_OK)
        fail_msg("part from row %lld, rows %zu to %zu: %s", first, begin, end,
                 clconv_last_error());
    memcpy(got + begin * row, lout + (size_t)((long long)begin - first) * row,
           (end - begin) * row * 4);
    free(lin);
    free(lout);
}

/* With work-items along z sharing a work-group's planes (planes_shared),
 * slabs (forced by the allocation limit, 4 planes a work-item: 16 a
 * work-group), row ranges of the whole array and parts held apart with
 * their halos (clconv_convolve_part, as MPI ranks and apply's chunks
 * call it), cut at rows of every phase against the work-groups, give one
 * launch's result bit for bit, in every mode and binding: each launch
 * starts a multiple of the work-group's planes into the whole, with the
 * whole problem's planes per work-item (fewer for a small part alone).
 * They differed by up to 3e-7 when each launch's work-groups started at
 * its own first plane. Masks 5^3, 3x4x5 with an origin, 4x3x2
 * convolved; 64 x 40 x 150 (the default takes 16 planes a work-group on
 * 2 compute units, a part of it alone 4; sampled runs 36 x 6 x 150). */
static void planes_shared_in_slabs_and_parts_equal_one_launch(void **state)
{
    fixture *f = *state;
    static const int masks[][4] = {{5, 5, 5, 0}, {3, 4, 5, 1}, {4, 3, 2, -1}};
    const char *sample = getenv("CLCONV_MATRIX_SAMPLE");
    const int sampled = sample && *sample;
    const size_t cuts[] = {0, 7, 23, 24, 41, 90, 150};
    const size_t ncuts = sizeof cuts / sizeof *cuts;
    /* sampled (Oclgrind, sanitizers): one binding, two masks, three
     * modes, a volume 36 x 6 (no interior work-group along y) */
    const size_t nx = sampled ? 36 : 64, ny = sampled ? 6 : 40;
    for (binding = 0; binding < (sampled ? 1 : BIND_COUNT); ++binding) {
        clconv_session *whole = planes_shared(f, 0);
        for (int mi = 0; mi < 3; mi += sampled ? 2 : 1)
            for (int mode = 0; mode < CLCONV_BORDER_COUNT;
                 mode += sampled ? 2 : 1) {
                clconv_problem p = {.dims = 3, .size = {nx, ny, 150},
                                    .border = (clconv_border)mode,
                                    .cval = -1.5};
                for (int a = 0; a < 3; ++a)
                    p.mask_size[a] = masks[mi][a];
                p.mask_width = 5;
                p.origin[2] = masks[mi][3] > 0 ? masks[mi][3] : 0;
                p.flip = masks[mi][3] < 0;
                clconv_pick_default(f->dev, &p);
                p.strategy = CLCONV_COARSE;
                p.tile = 0;
                const size_t n = clconv_problem_elements(&p), row = nx * ny;
                const size_t m = clconv_problem_mask_elements(&p);
                float *in = malloc(n * 4), *mask = malloc(m * 4);
                float *want = malloc(n * 4), *got = malloc(n * 4);
                assert_non_null(in && mask && want && got);
                const uint64_t seed = 700 + (uint64_t)(mi * 8 + mode);
                print_message("seed %llu\n", (unsigned long long)seed);
                clconv_fill_random(in, n, seed);
                clconv_fill_random(mask, m, seed + 1);
                launch_once(whole, &p, in, mask, want);
                for (size_t i = 0; i < n; ++i)
                    got[i] = NAN;
                for (size_t k = 0; k + 1 < ncuts; k += 2)
                    if (clconv_convolve_rows(whole, &p, in, mask, got, cuts[k],
                                             cuts[k + 1], NULL) != CLCONV_OK)
                        fail_msg("rows: %s", clconv_last_error());
                for (size_t k = 1; k + 1 < ncuts; k += 2)
                    part_of(whole, &p, in, mask, got, cuts[k], cuts[k + 1],
                            k == 3);
                same_bits(got, want, n, "row ranges and parts", &p);
                /* 4 planes a work-item, slabs of about 9 planes */
                clconv_problem q = p;
                q.coarsen = 4;
                launch_once(whole, &q, in, mask, want);
                clconv_session *s =
                    planes_shared(f, (9 + 4 + 15) * row * 4);
                clconv_call_info info;
                if (clconv_convolve_ex(s, &q, in, mask, got, &info) !=
                    CLCONV_OK)
                    fail_msg("slabs: %s", clconv_last_error());
                if (info.slabs < 10)
                    fail_msg("%zu slabs", info.slabs);
                same_bits(got, want, n, "slabs", &q);
                clconv_session_destroy(s);
                free(in);
                free(mask);
                free(want);
                free(got);
            }
        clconv_session_destroy(whole);
    }
    binding = BIND_COPY;
}

/* Slabs at the axis' ends shorter than the fold they need, in reflect and
 * mirror: the balanced division's last (13 elements in slabs of about 4
 * under a mask of 5 reaching 4 after each output) and a first slab cut
 * short to place the launches (40 planes, 4 work-items along z, a mask 5
 * deep reaching 4 planes before each output). Both folded inside
 * themselves and read other rows (the last element 320 for 304 in
 * reflect; plane 0 24 for 26 in mirror); now they gather their rows. */
static void short_slabs_at_the_ends_fold_as_the_whole(void **state)
{
    fixture *f = *state;
    static const clconv_border modes[] = {CLCONV_BORDER_REFLECT,
                                          CLCONV_BORDER_MIRROR};
    for (size_t mi = 0; mi < 2; ++mi)
        for (int dims = 1; dims <= 3; dims += 2) {
            clconv_problem p = {.dims = dims, .mask_width = 5,
                                .border = modes[mi],
                                .strategy = CLCONV_COARSE};
            p.size[0] = dims == 1 ? 13 : 1;
            p.size[1] = 1;
            p.size[2] = dims == 1 ? 1 : 40;
            p.mask_size[0] = dims == 1 ? 5 : 1;
            p.mask_size[1] = 1;
            p.mask_size[2] = dims == 1 ? 1 : 5;
            p.origin[dims - 1] = dims == 1 ? -2 : 2;
            const size_t n = p.size[0] * p.size[2];
            float in[40], mask[5] = {1, 2, 4, 8, 16}, want[40], got[40];
            for (size_t i = 0; i < n; ++i)
                in[i] = (float)i;
            clconv_session *one = planes_shared(f, 0);
            launch_once(one, &p, in, mask, want);
            clconv_session_destroy(one);
            clconv_session *s = planes_shared(f, dims == 1 ? 36 : 96);
            clconv_call_info info;
            for (size_t i = 0; i < n; ++i)
                got[i] = NAN;
            if (clconv_convolve_ex(s, &p, in, mask, got, &info) != CLCONV_OK)
                fail_msg("%dD %s: %s", dims, clconv_border_name(p.border),
                         clconv_last_error());
            if (info.slabs < 3)
                fail_msg("%dD %s: %zu slabs", dims,
                         clconv_border_name(p.border), info.slabs);
            same_bits(got, want, n, "short slabs at the ends", &p);
            clconv_session_destroy(s);
        }
}

/* A part that holds none of its whole's rows (before its first, past its
 * last, a whole of none) is refused with the reason, for one session and
 * for a split; one that holds some is computed. */
static void parts_holding_no_rows_are_refused(void **state)
{
    fixture *f = *state;
    clconv_problem p = {.dims = 2, .size = {16, 8, 1}, .mask_width = 3};
    float in[128] = {0}, out[128], mask[9] = {0};
    const clconv_part bad[] = {{-8, 20}, {20, 20}, {0, 0}, {LLONG_MIN, 5}};
    const double w = 1;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        assert_int_equal(clconv_convolve_part(f->whole, &p, &bad[k], in, mask,
                                              out, 0, 8, NULL),
                         CLCONV_EINVAL);
        assert_non_null(strstr(clconv_last_error(), "none of the whole"));
        assert_int_equal(clconv_convolve_split_part(&f->whole, 1, &p, &bad[k],
                                                    &w, in, mask, out, NULL),
                         CLCONV_EINVAL);
    }
    const clconv_part ok[] = {{-7, 20}, {19, 20}, {3, 30}};
    for (size_t k = 0; k < sizeof ok / sizeof *ok; ++k)
        assert_int_equal(clconv_convolve_part(f->whole, &p, &ok[k], in, mask,
                                              out, 0, 8, NULL),
                         CLCONV_OK);
    assert_int_equal(clconv_convolve_part(NULL, &p, ok, in, mask, out, 0, 8,
                                          NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_convolve_part(f->whole, &p, ok, in, mask, out, 3,
                                          9, NULL),
                     CLCONV_EINVAL);
}

/* Only dims, size and mask set: the device's default variant, bit for bit
 * what clconv_pick_default's choice gives. */
static void a_zero_initialised_problem_gets_the_device_default(void **state)
{
    fixture *f = *state;
    clconv_problem bare = {.dims = 2, .size = {50, 33, 1}, .mask_width = 5};
    clconv_problem picked = bare;
    clconv_pick_default(f->dev, &picked);
    float in[50 * 33], mask[25], a[50 * 33], b[50 * 33];
    clconv_fill_random(in, 50 * 33, 7);
    clconv_fill_random(mask, 25, 8);
    assert_int_equal(clconv_convolve(f->whole, &bare, in, mask, a), CLCONV_OK);
    assert_int_equal(clconv_convolve(f->whole, &picked, in, mask, b),
                     CLCONV_OK);
    assert_memory_equal(a, b, sizeof a);
}

static void a_limit_below_one_row_and_halo_is_unsupported(void **state)
{
    fixture *f = *state;
    clconv_problem p = {.dims = 2, .size = {64, 64, 1}, .mask_width = 5};
    clconv_pick_default(f->dev, &p);
    clconv_session *s = limited(f, 4 * 64 * 4); /* 4 rows; 5 needed */
    float *in = calloc(64 * 64, 4), mask[25] = {0}, *out = calloc(64 * 64, 4);
    assert_int_equal(clconv_convolve(s, &p, in, mask, out),
                     CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "halo rows"));
    clconv_session_destroy(s);
    free(in);
    free(out);
    setenv("CLCONV_MAX_ALLOC_BYTES", "12k", 1);
    assert_int_equal(clconv_session_create(f->dev, &s), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "CLCONV_MAX_ALLOC_BYTES"));
    unsetenv("CLCONV_MAX_ALLOC_BYTES");
    setenv("CLCONV_ZERO_COPY", "yes", 1);
    assert_int_equal(clconv_session_create(f->dev, &s), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "CLCONV_ZERO_COPY"));
    unsetenv("CLCONV_ZERO_COPY");
    setenv("CLCONV_PINNED", "2", 1);
    assert_int_equal(clconv_session_create(f->dev, &s), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "CLCONV_PINNED"));
    unsetenv("CLCONV_PINNED");
    const char *bad_chunks[] = {"63", "1k", "-5", "2000000000", " 64"};
    for (int i = 0; i < 5; ++i) {
        setenv("CLCONV_PINNED_CHUNK_BYTES", bad_chunks[i], 1);
        assert_int_equal(clconv_session_create(f->dev, &s), CLCONV_EINVAL);
        assert_non_null(strstr(clconv_last_error(),
                               "CLCONV_PINNED_CHUNK_BYTES"));
    }
    unsetenv("CLCONV_PINNED_CHUNK_BYTES");
}

/* p with method fft on s (a limited session): it runs in two or more
 * slabs, every output within the FFT's bound of the double reference. */
static void fft_in_slabs_within_bound(clconv_session *s, clconv_problem p)
{
    const size_t n = clconv_problem_elements(&p);
    const size_t m = clconv_problem_mask_elements(&p);
    float *in = malloc(n * 4), *mask = malloc(m * 4), *got = malloc(n * 4);
    double *want = malloc(n * sizeof *want), *sum = malloc(n * sizeof *sum);
    assert_non_null(in && mask && got && want && sum);
    clconv_fill_random(in, n, 41 + p.dims);
    clconv_fill_random(mask, m, 43);
    assert_int_equal(clconv_reference(&p, in, mask, want, sum), CLCONV_OK);
    clconv_call_info info;
    if (clconv_convolve_ex(s, &p, in, mask, got, &info) != CLCONV_OK)
        fail_msg("%dD fft %s: %s", p.dims, clconv_border_name(p.border),
                 clconv_last_error());
    if (info.slabs < 2)
        fail_msg("%dD fft %s ran in %zu slab(s)", p.dims,
                 clconv_border_name(p.border), info.slabs);
    double scale, floor;
    clconv_verify_bound(&p, CLCONV_METHOD_FFT, in, mask, &scale, &floor);
    clconv_verdict v;
    clconv_verify_with(&p, got, want, sum, scale, floor, &v);
    if (!v.ok)
        fail_msg("%dD fft %s in %zu slabs: element %zu is %.9g for %.9g",
                 p.dims, clconv_border_name(p.border), info.slabs,
                 v.worst_index, v.worst_got, v.worst_expected);
    free(in), free(mask), free(got), free(want), free(sum);
}

/* Method fft where the data fit the allocation limit but the padded
 * array does not, or where the slabs the data alone would cut have
 * padded arrays beyond it: host arrays in and out run it in slabs whose
 * padded arrays fit (it was unsupported: "the FFT's padded array of N
 * bytes does not fit the device", though smaller slabs fit), in every
 * mode; a slab of one row whose padded array is beyond the limit is
 * unsupported, saying so. */
static void an_fft_in_slabs_fits_the_allocation_limit(void **state)
{
    fixture *f = *state;
    /* 1D 4090: 16360 bytes of data, a padded array of 4116 reals (16472
     * bytes), a limit of 16384; 2D 200 x 100: slabs of 16 rows by the
     * data (16000 bytes), their padded arrays 24 rows of 212 floats
     * (20352 bytes). */
    const struct { int dims; size_t x, y, limit; } cases[] = {
        {1, 4090, 1, 16384}, {2, 200, 100, 16000}};
    for (binding = 0; binding < BIND_COUNT; ++binding)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
            for (int b = 0; b < CLCONV_BORDER_COUNT; ++b) {
                clconv_problem p = {.dims = cases[c].dims,
                                    .size = {cases[c].x, cases[c].y, 1},
                                    .mask_width = 5,
                                    .method = CLCONV_METHOD_FFT,
                                    .border = (clconv_border)b};
                clconv_session *s = limited(f, cases[c].limit);
                assert_int_equal(clconv_session_needs_slabs(s, &p), 1);
                fft_in_slabs_within_bound(s, p);
                clconv_session_destroy(s);
            }
    binding = BIND_COPY;
    clconv_problem p = {.dims = 2, .size = {200, 100, 1}, .mask_width = 5,
                        .method = CLCONV_METHOD_FFT};
    clconv_session *s = limited(f, 4000); /* 5 rows of 800 bytes fit */
    float *in = calloc(200 * 100, 4), mask[25] = {0};
    float *out = calloc(200 * 100, 4);
    assert_non_null(in && out);
    assert_int_equal(clconv_convolve(s, &p, in, mask, out),
                     CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "padded array"));
    clconv_session_destroy(s);
    free(in), free(out);
}

/* What needs slabs: the input or the output beyond the limit, each in
 * its own type (a uint8 input's float32 output four times its size), or
 * method fft's padded array; NULL is no. */
static void needs_slabs_counts_the_output_and_the_fft(void **state)
{
    fixture *f = *state;
    clconv_session *s = limited(f, 16384);
    clconv_problem p = {.dims = 1, .size = {5000, 1, 1}, .mask_width = 5,
                        .in_dtype = CLCONV_ELEM_U8};
    p.out_dtype = CLCONV_ELEM_U8;
    assert_int_equal(clconv_session_needs_slabs(s, &p), 0);
    p.out_dtype = CLCONV_ELEM_F32; /* 20000 bytes out */
    assert_int_equal(clconv_session_needs_slabs(s, &p), 1);
    p.in_dtype = CLCONV_ELEM_F32;
    p.size[0] = 4000; /* 16000 bytes, padded 4032 reals (16136 bytes) */
    assert_int_equal(clconv_session_needs_slabs(s, &p), 0);
    p.method = CLCONV_METHOD_FFT;
    assert_int_equal(clconv_session_needs_slabs(s, &p), 0);
    p.size[0] = 4090;
    assert_int_equal(clconv_session_needs_slabs(s, &p), 1);
    p.method = CLCONV_METHOD_DIRECT;
    assert_int_equal(clconv_session_needs_slabs(s, &p), 0);
    assert_int_equal(clconv_session_needs_slabs(NULL, &p), 0);
    assert_int_equal(clconv_session_needs_slabs(s, NULL), 0);
    clconv_session_destroy(s);
}

/* More elements than one launch indexes: a valid problem (host arrays in
 * and out stream it in slabs), but a plan (one launch) is unsupported with
 * the reason, before anything is allocated; so is a problem whose one row
 * with its halo is already beyond int. */
static void one_launch_beyond_int_is_unsupported(void **state)
{
    fixture *f = *state;
    clconv_problem p = {.dims = 3, .size = {1300, 1300, 1300},
                        .mask_width = 3};
    clconv_pick_default(f->dev, &p);
    assert_int_equal(clconv_problem_validate(&p), CLCONV_OK);
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create(f->whole, &p, &plan),
                     CLCONV_EUNSUPPORTED);
    assert_null(plan);
    assert_non_null(strstr(clconv_last_error(), "in one launch"));
    assert_int_equal(clconv_problem_fits(f->dev, &p), CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "in one launch"));
    /* A 2D problem whose 3 rows (one and its halo) hold 3 x 2^30 elements:
     * no slab can be cut (bytes or int, whichever limit comes first);
     * refused without touching the (absent) arrays. */
    clconv_problem q = {.dims = 2, .size = {(size_t)1 << 30, 4, 1},
                        .mask_width = 3};
    clconv_pick_default(f->dev, &q);
    static float mask[9];
    assert_int_equal(clconv_convolve(f->whole, &q, (const float *)mask, mask,
                                     mask),
                     CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "halo rows"));
}

/* NULL where the API wants an object is a bad argument with the reason,
 * never a crash (some entry points checked, others dereferenced it). */
static void null_arguments_are_refused(void **state)
{
    fixture *f = *state;
    clconv_problem p = support_problem(2, 16, 8, 1, 3, 0, CLCONV_NAIVE);
    float in[128] = {0}, out[128], mask[9] = {0};
    clconv_session *s = (clconv_session *)&p; /* overwritten or untouched */
    clconv_plan *plan = (clconv_plan *)&p;
    assert_int_equal(clconv_session_create(NULL, &s), CLCONV_EINVAL);
    assert_null(s);
    assert_int_equal(clconv_session_create(f->dev, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_convolve(f->whole, NULL, in, mask, out),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "no problem"));
    assert_int_equal(clconv_convolve(NULL, &p, in, mask, out), CLCONV_EINVAL);
    assert_int_equal(
        clconv_convolve_rows(NULL, &p, in, mask, out, 0, 8, NULL),
        CLCONV_EINVAL);
    assert_int_equal(clconv_plan_create(f->whole, NULL, &plan),
                     CLCONV_EINVAL);
    assert_null(plan);
    plan = (clconv_plan *)&p;
    assert_int_equal(clconv_plan_create(NULL, &p, &plan), CLCONV_EINVAL);
    assert_null(plan);
    assert_int_equal(clconv_plan_create(f->whole, &p, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_create_with_mask(f->whole, &p, NULL, NULL),
                     CLCONV_EINVAL);
    clconv_result res;
    assert_int_equal(clconv_run_verified(f->whole, &p, NULL, 0, 0, &res),
                     CLCONV_EINVAL);
    assert_int_equal(res.status, CLCONV_EINVAL);
    /* The plan's own calls, the reference, the mode's name, a split. */
    clconv_border b;
    assert_int_equal(clconv_border_parse(NULL, &b), CLCONV_EINVAL);
    assert_int_equal(clconv_border_parse("wrap", NULL), CLCONV_EINVAL);
    double ref[128];
    assert_int_equal(clconv_reference(&p, NULL, mask, ref, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_reference(&p, in, mask, NULL, NULL),
                     CLCONV_EINVAL);
    const size_t past = 128, first = 0;
    assert_int_equal(clconv_reference_at(&p, in, mask, &past, 1, ref, NULL),
                     CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "past"));
    assert_int_equal(clconv_reference_at(&p, in, mask, &first, 1, ref, NULL),
                     CLCONV_OK);
    assert_int_equal(clconv_plan_execute(NULL, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_set_input(NULL, in), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_get_output(NULL, out), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_set_mask(NULL, mask), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_time(NULL, 0, 1, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_create_with_mask(f->whole, &p, mask, &plan),
                     CLCONV_OK);
    assert_int_equal(clconv_plan_set_input(plan, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_get_output(plan, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_set_mask(plan, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_time(plan, 0, 1, NULL), CLCONV_EINVAL);
    clconv_plan_destroy(plan);
    const double w = 1;
    assert_int_equal(clconv_convolve_split(NULL, 1, &p, &w, in, mask, out,
                                           NULL),
                     CLCONV_EINVAL);
    /* Every other entry point that returns a status (they dereferenced
     * their NULL). */
    clconv_strategy strat;
    clconv_elem t;
    clconv_mask_mode mm;
    assert_int_equal(clconv_strategy_parse(NULL, &strat), CLCONV_EINVAL);
    assert_int_equal(clconv_strategy_parse("naive", NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_elem_parse(NULL, &t), CLCONV_EINVAL);
    assert_int_equal(clconv_elem_parse("u8", NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_mask_mode_parse(NULL, &mm), CLCONV_EINVAL);
    assert_int_equal(clconv_mask_mode_parse("baked", NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_devices_discover(NULL), CLCONV_EINVAL);
    size_t sel[1], nsel = 0;
    assert_int_equal(clconv_devices_select(NULL, "all", sel, &nsel),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_devices_select(&f->list, "all", NULL, &nsel),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_devices_select(&f->list, "all", sel, NULL),
                     CLCONV_EINVAL);
    int lo = 0, hi = 0;
    assert_int_equal(
        clconv_knob_range(CLCONV_COARSE, 2, CLCONV_KNOB_COARSEN, NULL, &hi),
        CLCONV_EINVAL);
    assert_int_equal(
        clconv_knob_range(CLCONV_COARSE, 2, CLCONV_KNOB_COARSEN, &lo, NULL),
        CLCONV_EINVAL);
    assert_int_equal(clconv_problem_fits(NULL, &p), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_poison_output(NULL), CLCONV_EINVAL);
    clconv_method m;
    assert_int_equal(
        clconv_method_choose_for_input(NULL, &p, mask, in, 128, &m),
        CLCONV_EINVAL);
    assert_int_equal(
        clconv_method_choose_for_input(f->whole, NULL, mask, in, 128, &m),
        CLCONV_EINVAL);
    assert_int_equal(
        clconv_method_choose_for_input(f->whole, &p, mask, in, 128, NULL),
        CLCONV_EINVAL);
    assert_int_equal(clconv_dataset_create(&p, 1, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_dataset_create_seeds(&p, 1, 2, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_dataset_update(NULL), CLCONV_EINVAL);
    clconv_dataset *data = NULL;
    assert_int_equal(clconv_dataset_create(&p, 1, &data), CLCONV_OK);
    assert_int_equal(clconv_run_verified(f->whole, &p, data, 0, 0, NULL),
                     CLCONV_EINVAL);
    clconv_dataset_destroy(data);
    assert_int_equal(clconv_kernel_dir(NULL), CLCONV_EINVAL);
    clconv_session *one[1] = {f->whole};
    assert_int_equal(clconv_measure_weights(one, 1, &p, in, mask, NULL),
                     CLCONV_EINVAL);
}

/* Every other public entry point given NULL, one argument at a time
 * (each of these dereferenced it): a status call says CLCONV_EINVAL, an
 * accessor gives NULL or 0 (or the value its header names), a void call
 * does nothing, and a verification fails. */
static void null_arguments_give_safe_values(void **state)
{
    fixture *f = *state;
    clconv_problem p = support_problem(2, 16, 8, 1, 3, 0, CLCONV_NAIVE);
    float in[128] = {0}, mask[9] = {1};
    double ref[128] = {0}, sum[128] = {0}, d = 0;
    size_t sz[3] = {7, 7, 7}, n = 0;
    int lo = 7, hi = 7;
    unsigned char *buf = NULL;
    char text[256] = "untouched";
    /* clconv.h: the problem's accessors, and calls that fill a problem */
    assert_int_equal(clconv_problem_elements(NULL), 0);
    assert_int_equal(clconv_problem_mask_elements(NULL), 0);
    assert_int_equal(clconv_problem_mask_axis(NULL, 0), 0);
    assert_int_equal(clconv_problem_mask_max(NULL), 0);
    assert_int_equal(clconv_problem_left(NULL, 0), 0);
    assert_int_equal(clconv_default_tile_for(f->dev, NULL), 1);
    clconv_problem_apply_defaults(f->dev, NULL);
    clconv_pick_default(f->dev, NULL);
    assert_int_equal(clconv_problem_defines(f->dev, &p, NULL, 8),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_mask_separable(NULL, mask, NULL), 0);
    assert_int_equal(clconv_mask_separable(&p, NULL, NULL), 0);
    clconv_fill_separable(NULL, mask, 1);
    clconv_fill_separable(&p, NULL, 1);
    clconv_fill_random(NULL, 4, 1);
    clconv_elems_from_float(CLCONV_ELEM_U8, NULL, 4, text);
    clconv_elems_from_float(CLCONV_ELEM_U8, in, 4, NULL);
    assert_string_equal(text, "untouched");
    char names[256];
    const size_t need = clconv_strategy_list(names, sizeof names);
    assert_int_equal(clconv_strategy_list(NULL, 64), need);
    clconv_knob_bounds(CLCONV_KNOB_COARSEN, NULL, &hi);
    clconv_knob_bounds(CLCONV_KNOB_COARSEN, &lo, NULL);
    assert_int_equal(lo, 7);
    assert_int_equal(hi, 7);
    /* sessions and plans */
    assert_null(clconv_session_device(NULL));
    assert_null(clconv_session_overrides(NULL));
    assert_null(clconv_session_overrides_ignored(NULL));
    assert_null(clconv_session_cl_std(NULL));
    assert_int_equal(clconv_session_max_alloc(NULL), 0);
    assert_null(clconv_session_cl_context(NULL));
    assert_null(clconv_session_cl_queue(NULL));
    assert_int_equal(clconv_plan_method(NULL), CLCONV_METHOD_AUTO);
    size_t local[3] = {7, 7, 7}, global[3] = {7, 7, 7};
    clconv_plan_geometry(NULL, local, global);
    assert_int_equal(local[0] + local[1] + local[2] + global[0], 0);
    clconv_plan *plan = NULL;
    /* the direct method: a plan of another path launches no kernel of its
     * own (geometry 0), and auto may take one where the ceilings are
     * estimated (Oclgrind) */
    clconv_problem direct = p;
    direct.method = CLCONV_METHOD_DIRECT;
    assert_int_equal(clconv_plan_create_with_mask(f->whole, &direct, mask,
                                                  &plan),
                     CLCONV_OK);
    clconv_plan_geometry(plan, NULL, global);
    assert_true(global[0] > 0);
    clconv_plan_geometry(plan, local, NULL);
    clconv_load_counts lc;
    assert_int_equal(clconv_plan_counters(plan, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_plan_counters(NULL, &lc), CLCONV_EINVAL);
    clconv_plan_destroy(plan);
    assert_int_equal(clconv_method_choose(f->whole, NULL, mask),
                     CLCONV_METHOD_DIRECT);
    assert_int_equal(clconv_method_choose(NULL, &p, mask),
                     CLCONV_METHOD_DIRECT);
    /* verification and timing */
    clconv_verdict v = {.ok = 1};
    clconv_verify(NULL, in, ref, sum, &v);
    assert_false(v.ok);
    assert_non_null(strstr(clconv_last_error(), "NULL"));
    v.ok = 1;
    clconv_verify(&p, NULL, ref, sum, &v);
    assert_false(v.ok);
    v.ok = 1;
    clconv_verify_with(&p, in, NULL, sum, 1, 0, &v);
    assert_false(v.ok);
    v.ok = 1;
    clconv_verify_typed(&p, in, ref, NULL, 1, 0, &v);
    assert_false(v.ok);
    clconv_verify(&p, in, ref, sum, NULL);
    double scale = 7, floor = 7;
    clconv_verify_bound(NULL, CLCONV_METHOD_DIRECT, NULL, NULL, &scale,
                        &floor);
    assert_true(scale == 0 && floor == 0);
    clconv_verify_bound(&p, CLCONV_METHOD_DIRECT, NULL, NULL, NULL, &floor);
    clconv_verify_bound(&p, CLCONV_METHOD_DIRECT, NULL, NULL, &scale, NULL);
    clconv_timing t = {.reps = 7};
    clconv_timing_of(NULL, 3, &t);
    assert_int_equal(t.reps, 0);
    clconv_timing_of(ref, 3, NULL);
    /* clconv_bench.h */
    clconv_ceilings c = {0, 0};
    clconv_transfer tr;
    assert_int_equal(clconv_measure_ceilings(NULL, &c), CLCONV_EINVAL);
    assert_int_equal(clconv_measure_ceilings(f->whole, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_measure_copy(NULL, 64, &d), CLCONV_EINVAL);
    assert_int_equal(clconv_measure_copy(f->whole, 64, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_measure_transfer(NULL, 64, &tr), CLCONV_EINVAL);
    assert_int_equal(clconv_measure_transfer(f->whole, 64, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_time_end_to_end(f->whole, &p, in, mask, in, 0, 1,
                                            NULL, NULL),
                     CLCONV_EINVAL);
    double ms[CLCONV_METHOD_COUNT];
    clconv_method_predict(f->dev, &c, NULL, ms);
    clconv_method_predict(f->dev, &c, &p, NULL);
    assert_int_equal(clconv_method_pick(f->dev, &c, NULL, 0),
                     CLCONV_METHOD_DIRECT);
    const clconv_bench_problem *bp = NULL;
    const int *tiles = NULL;
    assert_int_equal(clconv_bench_suite(NULL, &bp), 0);
    assert_null(bp);
    assert_int_equal(clconv_bench_suite("quick", NULL), 0);
    assert_null(clconv_bench_suite_mask(NULL, 0));
    assert_int_equal(clconv_bench_tiles(2, NULL), 0);
    assert_true(clconv_bench_suite("quick", &bp) > 0);
    clconv_bench_shape(NULL, &p);
    clconv_bench_shape(bp, NULL);
    clconv_bench_metrics m;
    clconv_bench_metrics_of(NULL, 1.0, &c, &m);
    clconv_bench_metrics_of(&p, 1.0, &c, NULL);
    (void)tiles;
    clconv_bench_report rep;
    memset(&rep, 0, sizeof rep);
    clconv_bench_row row;
    memset(&row, 0, sizeof row);
    assert_int_equal(clconv_bench_add_row(NULL, &row), CLCONV_EINVAL);
    assert_int_equal(clconv_bench_add_row(&rep, NULL), CLCONV_EINVAL);
    clconv_bench_report_free(NULL);
    assert_string_equal(clconv_bench_row_status(NULL), "error");
    assert_int_equal(clconv_bench_best(NULL, 0, 0), -1);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    assert_int_equal(clconv_bench_write_json(NULL, tmp), CLCONV_EINVAL);
    assert_int_equal(clconv_bench_write_json(&rep, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_bench_write_csv(NULL, tmp), CLCONV_EINVAL);
    assert_int_equal(clconv_bench_write_csv(&rep, NULL), CLCONV_EINVAL);
    clconv_json_string(NULL, "x");
    clconv_csv_string(NULL, "x");
    clconv_json_string(tmp, NULL);
    clconv_csv_string(tmp, NULL);
    rewind(tmp);
    assert_non_null(fgets(text, sizeof text, tmp));
    assert_string_equal(text, "null\"\"");
    fclose(tmp);
    /* clconv_model.h */
    clconv_model_counts mc;
    clconv_model_interior mi;
    clconv_model_kind kinds[4];
    clconv_model_roof roof;
    p.tile = 4;
    clconv_model_grid(NULL, sz);
    assert_true(sz[0] == 1 && sz[1] == 1 && sz[2] == 1);
    clconv_model_grid(&p, NULL);
    assert_int_equal(clconv_model_interior_of(NULL, 32, &mi), CLCONV_EINVAL);
    assert_int_equal(clconv_model_interior_of(&p, 32, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_model_block(NULL, sz, &mc), CLCONV_EINVAL);
    assert_int_equal(clconv_model_block(&p, NULL, &mc), CLCONV_EINVAL);
    assert_int_equal(clconv_model_block(&p, sz, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_model_problem(NULL, &mc), CLCONV_EINVAL);
    assert_int_equal(clconv_model_problem(&p, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_model_tile_kinds(NULL, kinds, 4, &n),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_model_tile_kinds(&p, NULL, 4, &n), CLCONV_EINVAL);
    assert_int_equal(clconv_model_tile_kinds(&p, kinds, 4, NULL),
                     CLCONV_EINVAL);
    clconv_model_roof_of(1.0, 1.0, 1.0, NULL);
    (void)roof;
    /* clconv_tune.h */
    clconv_tune_table tt;
    memset(&tt, 0, sizeof tt);
    clconv_tuning e;
    memset(&e, 0, sizeof e);
    clconv_tune_options opt;
    memset(&opt, 0, sizeof opt);
    clconv_tune_outcome out;
    uint64_t h;
    int tuned = 0;
    assert_int_equal(clconv_size_class(NULL), 0);
    assert_int_equal(clconv_tune_path(NULL, text, sizeof text),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_tune_path(f->dev, NULL, 8), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_load(NULL, &tt), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_load(f->dev, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_save(NULL, &tt), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_save(f->dev, NULL), CLCONV_EINVAL);
    clconv_tune_class(NULL, &e);
    clconv_tune_class(&p, NULL);
    assert_int_equal(clconv_tune_put(NULL, &e), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_put(&tt, NULL), CLCONV_EINVAL);
    assert_null(clconv_tune_find(NULL, &p));
    assert_null(clconv_tune_find(&tt, NULL));
    clconv_tune_table_free(NULL);
    assert_int_equal(clconv_kernel_hash(CLCONV_NAIVE, 2, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_auto_config(NULL, &p, &tuned), CLCONV_EINVAL);
    assert_int_equal(clconv_auto_config(f->dev, NULL, &tuned), CLCONV_EINVAL);
    assert_int_equal(clconv_auto_config(f->dev, &p, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_tune_candidates(f->dev, NULL, NULL, 0), 0);
    assert_true(clconv_tune_candidates(f->dev, &p, NULL, 8) > 0);
    clconv_dataset *data = NULL;
    assert_int_equal(clconv_dataset_create(&p, 1, &data), CLCONV_OK);
    assert_int_equal(clconv_tune_problem(f->whole, data, NULL, &out),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_tune_problem(f->whole, data, &opt, NULL),
                     CLCONV_EINVAL);
    clconv_dataset_destroy(data);
    (void)h;
    /* clconv_io.h: arrays and .npy */
    clconv_array a;
    clconv_npy_info info = clconv_npy_host_info(CLCONV_DTYPE_F32);
    const size_t shape[3] = {4, 1, 1};
    unsigned char *npy = NULL;
    size_t len = 0;
    int dims = 0;
    void *raw = NULL;
    assert_int_equal(clconv_npy_encode_typed(1, shape, CLCONV_DTYPE_F32, in,
                                             &npy, &len),
                     CLCONV_OK);
    assert_int_equal(clconv_npy_parse(NULL, len, &a, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_parse(npy, len, NULL, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_parse_native(npy, len, &dims, sz, &info,
                                             NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_parse_native(npy, len, &dims, NULL, &info,
                                             &raw),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_declared_size(NULL, len, &n), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_declared_size(npy, len, NULL), CLCONV_EINVAL);
    size_t nd_shape[CLCONV_NPY_MAX_DIMS];
    assert_int_equal(clconv_npy_parse_nd(npy, len, NULL, nd_shape, &info,
                                         &raw),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_parse_nd(npy, len, &dims, nd_shape, NULL,
                                         &raw),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_header_parse(npy, len, &dims, NULL, &info),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_header_parse(npy, len, NULL, sz, &info),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_convert(NULL, 4, &info, in), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_convert(npy, 4, NULL, in), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_convert(npy, 4, &info, NULL), CLCONV_EINVAL);
    clconv_npy_info unknown = info; /* indexed a table with it */
    unknown.dtype = CLCONV_DTYPE_COUNT;
    assert_int_equal(clconv_npy_convert(npy, 4, &unknown, in), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_header(1, NULL, npy, len, &n), CLCONV_EINVAL);
    assert_int_equal(clconv_npy_header(1, shape, NULL, len, &n),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_header(1, shape, npy, len, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_encode_typed(1, shape, CLCONV_DTYPE_F32, NULL,
                                             &buf, &n),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_encode_typed(1, shape, CLCONV_DTYPE_F32, in,
                                             NULL, &n),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_npy_encode(NULL, &buf, &n), CLCONV_EINVAL);
    assert_int_equal(clconv_array_alloc(NULL, 1, shape), CLCONV_EINVAL);
    assert_int_equal(clconv_array_alloc(&a, 1, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_array_elements(NULL), 0);
    free(npy);
    /* images and masks */
    clconv_image img;
    clconv_mask mk;
    assert_int_equal(clconv_image_sniff(NULL, 8), 0);
    assert_int_equal(clconv_image_decode(NULL, 8, &img), CLCONV_EINVAL);
    assert_int_equal(clconv_image_decode((const unsigned char *)"P5 1 1 255\n",
                                         12, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_image_encode(NULL, &buf, &n), CLCONV_EINVAL);
    assert_int_equal(clconv_mask_spec_parse("box:3", 2, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_mask_load("box:3", 2, NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_mask_from_array(NULL, 2, &mk), CLCONV_EINVAL);
    /* files and outputs */
    char templ[] = "/tmp/clconv-null-XXXXXX";
    int handle = 0;
    char *target = NULL;
    int stream = 0;
    clconv_output *o = NULL;
    assert_int_equal(clconv_file_read("/dev/null", 8, NULL, &n),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_input_read("/dev/null", 8, &buf, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_file_same(NULL, "/"), 0);
    assert_int_equal(clconv_output_target("-", NULL, NULL, &stream),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_output_target("-", &target, NULL, NULL),
                     CLCONV_EINVAL);
    assert_int_equal(clconv_output_open("-", NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_output_write(NULL, "x", 1), CLCONV_EINVAL);
    assert_int_equal(clconv_output_printf(NULL, "%d", 1), CLCONV_EINVAL);
    assert_int_equal(clconv_output_is_stream(NULL), 0);
    assert_int_equal(clconv_output_commit(NULL), CLCONV_EINVAL);
    assert_int_equal(clconv_output_commit_all(NULL, 1), CLCONV_EINVAL);
    assert_int_equal(clconv_output_open("/dev/null", &o), CLCONV_OK);
    assert_int_equal(clconv_output_write(o, NULL, 1), CLCONV_EINVAL);
    clconv_output *pair[2] = {o, NULL};
    assert_int_equal(clconv_output_commit_all(pair, 2), CLCONV_EINVAL);
    assert_null(pair[0]); /* freed all the same */
    assert_int_equal(clconv_file_write("/dev/null", NULL, 1), CLCONV_EINVAL);
    assert_int_equal(clconv_temp_create(NULL, &handle), -1);
    assert_int_equal(clconv_temp_create(templ, NULL), -1);
}

/* "P:D" is two unsigned decimal numbers: one past UINT_MAX, a sign or a
 * space inside is no index (sscanf's %u wrapped 4294967296 to 0 and took
 * "-4294967295" as 1, so such terms selected a device). */
static void device_indices_are_parsed_strictly(void **state)
{
    fixture *f = *state;
    const unsigned p = f->dev->platform_index, d = f->dev->device_index;
    size_t sel[64], n = 0;
    char term[96];
    assert_true(f->list.count <= 64);
    snprintf(term, sizeof term, "%u:%u", p, d);
    assert_int_equal(clconv_devices_select(&f->list, term, sel, &n),
                     CLCONV_OK);
    assert_int_equal(n, 1);
    snprintf(term, sizeof term, "%llu:%u", 4294967296ULL + p, d);
    assert_int_equal(clconv_devices_select(&f->list, term, sel, &n),
                     CLCONV_EINVAL);
    snprintf(term, sizeof term, "%u:%llu", p, 4294967296ULL + d);
    assert_int_equal(clconv_devices_select(&f->list, term, sel, &n),
                     CLCONV_EINVAL);
    snprintf(term, sizeof term, "-%llu:%u", 4294967296ULL - p, d);
    assert_int_equal(clconv_devices_select(&f->list, term, sel, &n),
                     CLCONV_EINVAL);
    snprintf(term, sizeof term, "+%u:%u", p, d);
    assert_int_equal(clconv_devices_select(&f->list, term, sel, &n),
                     CLCONV_EINVAL);
}

/* Threads sharing one session: each thread's calls on shapes of its own
 * (more shapes than the session's plan cache holds, so entries are
 * evicted while other threads use theirs), host-to-host calls beside
 * plans made and run, give the bits of the same calls made one after
 * another. The session's caches, staging and slab buffers were unlocked:
 * four threads crashed in malloc, free or PoCL within a few calls (8 of 10 runs). */
enum { SHARE_THREADS = 4, SHARE_CALLS = 16, SHARE_NX = 48, SHARE_NY = 20 };

typedef struct share_job {
    clconv_session *s;
    int thread;
    float in[SHARE_CALLS][SHARE_NX * SHARE_NY];
    float out[SHARE_CALLS][SHARE_NX * SHARE_NY];
    clconv_status st[SHARE_CALLS];
} share_job;

static clconv_problem share_problem(const clconv_device_info *dev, int thread,
                                    int call)
{
    clconv_problem p = {.dims = 2,
                        .size = {SHARE_NX - thread, SHARE_NY - call, 1},
                        .mask_width = 3 + 2 * (call % 2),
                        .border = (clconv_border)(call % CLCONV_BORDER_COUNT),
                        .method = call % 3 == 2 ? CLCONV_METHOD_SEPARABLE
                                                : CLCONV_METHOD_DIRECT};
    clconv_pick_default(dev, &p);
    return p;
}

/* Thread 0 makes a plan per call and runs it; the others call
 * clconv_convolve. */
static void *share_calls(void *arg)
{
    share_job *j = arg;
    const clconv_device_info *dev = clconv_session_device(j->s);
    for (int c = 0; c < SHARE_CALLS; ++c) {
        clconv_problem p = share_problem(dev, j->thread, c);
        float mask[25];
        clconv_fill_separable(&p, mask, (uint64_t)c + 1);
        if (j->thread != 0) {
            j->st[c] = clconv_convolve(j->s, &p, j->in[c], mask, j->out[c]);
            continue;
        }
        clconv_plan *plan = NULL;
        clconv_status st = clconv_plan_create_with_mask(j->s, &p, mask, &plan);
        if (st == CLCONV_OK)
            st = clconv_plan_set_input(plan, j->in[c]);
        if (st == CLCONV_OK)
            st = clconv_plan_execute(plan, NULL);
        if (st == CLCONV_OK)
            st = clconv_plan_get_output(plan, j->out[c]);
        clconv_plan_destroy(plan);
        j->st[c] = st;
    }
    return NULL;
}

static void threads_sharing_a_session_give_one_thread_s_bits(void **state)
{
    fixture *f = *state;
    /* Thread 0's plan runs on the session's queue beside the others'
     * calls (OpenCL's enqueues are thread-safe); Oclgrind simulates one
     * kernel invocation a context at a time and aborts on a second
     * ("m_kernelInvocation == NULL"). */
    if (strstr(f->dev->name, "Oclgrind"))
        SUPPORT_SKIP("%s runs one kernel a context at a time: threads "
                     "enqueueing at once abort it", f->dev->name);
    share_job *alone = calloc(SHARE_THREADS, sizeof *alone),
              *shared = calloc(SHARE_THREADS, sizeof *shared);
    assert_non_null(alone);
    assert_non_null(shared);
    for (int t = 0; t < SHARE_THREADS; ++t) {
        alone[t].s = shared[t].s = f->whole;
        alone[t].thread = shared[t].thread = t;
        for (int c = 0; c < SHARE_CALLS; ++c) {
            clconv_fill_random(alone[t].in[c], SHARE_NX * SHARE_NY,
                               (uint64_t)(100 * t + c));
            memcpy(shared[t].in[c], alone[t].in[c], sizeof alone[t].in[c]);
        }
        share_calls(&alone[t]);
    }
    pthread_t th[SHARE_THREADS];
    for (int t = 0; t < SHARE_THREADS; ++t)
        assert_int_equal(pthread_create(&th[t], NULL, share_calls, &shared[t]),
                         0);
    for (int t = 0; t < SHARE_THREADS; ++t)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < SHARE_THREADS; ++t)
        for (int c = 0; c < SHARE_CALLS; ++c) {
            assert_int_equal(alone[t].st[c], CLCONV_OK);
            assert_int_equal(shared[t].st[c], CLCONV_OK);
            assert_memory_equal(shared[t].out[c], alone[t].out[c],
                                sizeof alone[t].out[c]);
        }
    free(alone);
    free(shared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(null_arguments_give_safe_values),
        cmocka_unit_test(device_indices_are_parsed_strictly),
        cmocka_unit_test(one_launch_beyond_int_is_unsupported),
        cmocka_unit_test(every_strategy_in_slabs_equals_one_launch),
        cmocka_unit_test(slabs_thinner_than_the_halo_equal_one_launch),
        cmocka_unit_test(every_mode_in_slabs_equals_one_launch),
        cmocka_unit_test(an_output_over_the_input_is_computed_as_if_apart),
        cmocka_unit_test(pinned_staging_equals_the_plan),
        cmocka_unit_test(cached_plans_follow_new_masks_and_shapes),
        cmocka_unit_test(row_ranges_add_up_to_the_whole),
        cmocka_unit_test(planes_shared_in_slabs_and_parts_equal_one_launch),
        cmocka_unit_test(parts_holding_no_rows_are_refused),
        cmocka_unit_test(short_slabs_at_the_ends_fold_as_the_whole),
        cmocka_unit_test(a_zero_initialised_problem_gets_the_device_default),
        cmocka_unit_test(a_limit_below_one_row_and_halo_is_unsupported),
        cmocka_unit_test(an_fft_in_slabs_fits_the_allocation_limit),
        cmocka_unit_test(needs_slabs_counts_the_output_and_the_fft),
        cmocka_unit_test(threads_sharing_a_session_give_one_thread_s_bits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
