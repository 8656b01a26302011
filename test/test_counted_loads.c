/* Counted loads: the instrumented kernels (-D CLCONV_COUNT_LOADS) issue
 * exactly the global loads of N, and the local-tile reads, that
 * `clconv model --size` predicts, on every device present
 * ($CLCONV_DEVICE restricts).
 *
 * For every strategy, dims 1-3, masks 1..9 (odd), one small tile per dims
 * and sizes with partial boundary tiles (and a single element), so every
 * kind of boundary tile appears: ghost cells on one or both sides, a
 * mask wider than the tile, tiles cut by the end of N; then anisotropic
 * and even masks with origins at both ends, in every border mode; then
 * every element type (the store of an int16 output once ran the naive
 * kernels' sum twice, counting its loads twice). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_model.h"
#include "support.h"

typedef struct dims_case {
    int dims;
    int tile;
    size_t sizes[4][3];
    int nsizes;
} dims_case;

static const dims_case cases[] = {
    {1, 4, {{1, 1, 1}, {4, 1, 1}, {11, 1, 1}, {30, 1, 1}}, 4},
    {2, 4, {{1, 1, 1}, {7, 5, 1}, {9, 13, 1}}, 3},
    {3, 2, {{1, 1, 1}, {5, 3, 4}, {7, 6, 3}}, 3},
};

typedef struct counted_test {
    clconv_session *session;
    const clconv_device_info *dev;
    const dims_case *dc;
    clconv_strategy strategy;
    char name[160];
} counted_test;

/* Run one instrumented plan; 0 if it ran, 1 if unsupported (reason in
 * why), fails the test on any other error. */
static int count_one(counted_test *t, const clconv_problem *p,
                     long long counts[2], char *why, size_t why_len)
{
    clconv_plan *plan = NULL;
    clconv_status st = clconv_plan_create_counting(t->session, p, NULL, &plan);
    if (st == CLCONV_EUNSUPPORTED) {
        snprintf(why, why_len, "%s", clconv_last_error());
        return 1;
    }
    if (st != CLCONV_OK) {
        print_error("plan: %s\n", clconv_last_error());
        fail();
    }
    const size_t n = clconv_problem_elements(p);
    const size_t nm = clconv_problem_mask_elements(p);
    float *in = malloc(n * sizeof *in), *mask = malloc(nm * sizeof *mask);
    void *typed = malloc(n * clconv_elem_size(p->in_dtype));
    assert_non_null(in);
    assert_non_null(mask);
    assert_non_null(typed);
    clconv_fill_random(in, n, 1);
    clconv_fill_random(mask, nm, 2);
    clconv_elems_from_float(p->in_dtype, in, n, typed);
    st = clconv_plan_set_input_typed(plan, typed);
    if (st == CLCONV_OK)
        st = clconv_plan_set_mask(plan, mask);
    if (st == CLCONV_OK)
        st = clconv_plan_execute(plan, NULL);
    clconv_load_counts c = {-1, -1};
    if (st == CLCONV_OK)
        st = clconv_plan_counters(plan, &c);
    counts[0] = c.global_loads;
    counts[1] = c.local_reads;
    free(typed);
    free(in);
    free(mask);
    clconv_plan_destroy(plan);
    if (st != CLCONV_OK) {
        print_error("run: %s\n", clconv_last_error());
        fail();
    }
    return 0;
}

/* The cases of one test: run, unsupported (the last reason in why), and
 * wrong (the first five printed). */
typedef struct tally {
    int ran, skipped, wrong;
    char why[1024];
} tally;

/* p's counted loads against the model's. */
static void check_case(counted_test *t, const clconv_problem *p, tally *y)
{
    clconv_model_counts want;
    assert_int_equal(clconv_model_problem(p, &want), CLCONV_OK);
    long long got[2] = {-1, -1};
    if (count_one(t, p, got, y->why, sizeof y->why)) {
        ++y->skipped;
        return;
    }
    ++y->ran;
    if (got[0] >= 0 && got[1] >= 0 &&
        (unsigned long long)got[0] == want.global_loads &&
        (unsigned long long)got[1] == want.local_reads)
        return;
    if (++y->wrong <= 5)
        print_error("  %dD %s %s %s->%s mask %dx%dx%d (width %d) origin "
                    "%d,%d,%d tile %d size %zux%zux%zu: global loads %lld, "
                    "model %llu; local reads %lld, model %llu\n",
                    p->dims, clconv_strategy_name(p->strategy),
                    clconv_border_name(p->border),
                    clconv_elem_name(p->in_dtype),
                    clconv_elem_name(p->out_dtype), p->mask_size[0],
                    p->mask_size[1], p->mask_size[2], p->mask_width,
                    p->origin[0], p->origin[1], p->origin[2], p->tile,
                    p->size[0], p->size[1], p->size[2], got[0],
                    want.global_loads, got[1], want.local_reads);
}

static void counted_loads_equal_the_model(void **state)
{
    counted_test *t = *state;
    tally y = {0, 0, 0, ""};
    for (int w = 1; w <= 9; w += 2)
        for (int s = 0; s < t->dc->nsizes; ++s) {
            const size_t *sz = t->dc->sizes[s];
            clconv_problem p = support_problem(t->dc->dims, sz[0], sz[1], sz[2],
                                               w, t->dc->tile, t->strategy);
            check_case(t, &p, &y);
        }
    if (y.skipped)
        printf("  %s: %d case(s) unsupported, e.g. %s\n", t->name, y.skipped,
               y.why);
    assert_int_equal(y.wrong, 0);
    if (!y.ran)
        SUPPORT_SKIP("%s: no case fits this device", t->name);
}

/* Anisotropic and even masks, origins at both ends of their range and
 * every border mode (rotated over dims and strategies: two shapes per
 * test, each its own kernel build). x first. */
static const int shape_widths[3][2][3] = {
    {{4, 1, 1}, {5, 1, 1}}, {{5, 2, 1}, {4, 3, 1}}, {{3, 2, 4}, {4, 1, 3}}};
static const int shape_origins[3][2][3] = {
    {{1, 0, 0}, {-2, 0, 0}}, {{-2, 0, 0}, {1, 1, 0}}, {{-1, 0, 1}, {1, 0, -1}}};

static void shaped_masks_in_every_mode_count_as_the_model(void **state)
{
    counted_test *t = *state;
    const int d = t->dc->dims;
    tally y = {0, 0, 0, ""};
    for (int k = 0; k < 2; ++k)
        for (int s = 0; s < t->dc->nsizes; ++s) {
            const size_t *sz = t->dc->sizes[s];
            clconv_problem p = support_problem(d, sz[0], sz[1], sz[2], 1,
                                               t->dc->tile, t->strategy);
            for (int a = 0; a < d; ++a) {
                p.mask_size[a] = shape_widths[d - 1][k][a];
                p.origin[a] = shape_origins[d - 1][k][a];
            }
            p.mask_width = clconv_problem_mask_max(&p);
            p.border = (clconv_border)((d + (int)t->strategy + 2 * k) %
                                       CLCONV_BORDER_COUNT);
            p.cval = p.border == CLCONV_BORDER_CONSTANT ? 0.5 : 0.0;
            check_case(t, &p, &y);
        }
    assert_int_equal(y.wrong, 0);
    if (!y.ran)
        SUPPORT_SKIP("%s: no shaped case fits this device: %s", t->name,
                     y.why);
}

/* Each narrow type in and out (one size with partial tiles, mask 3): the
 * loads do not depend on the type. */
static void every_element_type_counts_as_the_model(void **state)
{
    counted_test *t = *state;
    static const clconv_elem types[] = {CLCONV_ELEM_U8, CLCONV_ELEM_U16,
                                        CLCONV_ELEM_I16, CLCONV_ELEM_F16};
    const size_t *sz = t->dc->sizes[t->dc->nsizes - 1];
    tally y = {0, 0, 0, ""};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) {
        clconv_problem p = support_problem(t->dc->dims, sz[0], sz[1], sz[2],
                                           3, t->dc->tile, t->strategy);
        p.in_dtype = p.out_dtype = types[k];
        check_case(t, &p, &y);
    }
    assert_int_equal(y.wrong, 0);
    if (!y.ran)
        SUPPORT_SKIP("%s: no typed case fits this device: %s", t->name,
                     y.why);
}

int main(void)
{
    support_devices f;
    if (support_devices_open(&f)) {
        fprintf(stderr, "test_counted_loads: %s\n", f.why);
        return 1;
    }
    /* Each (dims, strategy) case three ways: odd masks, shaped masks in
     * every mode, every element type. */
    static const struct {
        const char *what;
        void (*func)(void **);
    } kinds[] = {
        {"counted_loads_equal_the_model", counted_loads_equal_the_model},
        {"shaped_masks_count_as_the_model",
         shaped_masks_in_every_mode_count_as_the_model},
        {"every_element_type_counts_as_the_model",
         every_element_type_counts_as_the_model},
    };
    const size_t nkinds = sizeof kinds / sizeof kinds[0];
    const size_t ncases = sizeof cases / sizeof cases[0];
    const size_t ntests = nkinds * f.n * ncases * CLCONV_STRATEGY_COUNT;
    counted_test *cts = calloc(ntests, sizeof *cts);
    struct CMUnitTest *tests = calloc(ntests, sizeof *tests);
    if (!cts || !tests)
        return 1;
    size_t n = 0;
    for (size_t d = 0; d < f.n; ++d) {
        const clconv_device_info *dev = support_device(&f, d);
        for (size_t c = 0; c < ncases; ++c)
            for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
                if (!clconv_model_has_strategy((clconv_strategy)s))
                    continue;
                for (size_t k = 0; k < nkinds; ++k) {
                    counted_test *ct = &cts[n];
                    ct->session = f.sessions[d];
                    ct->dev = dev;
                    ct->dc = &cases[c];
                    ct->strategy = (clconv_strategy)s;
                    snprintf(ct->name, sizeof ct->name,
                             "conv%dd_%s_%s_on_%u:%u_%.50s", cases[c].dims,
                             clconv_strategy_name(ct->strategy),
                             kinds[k].what, dev->platform_index,
                             dev->device_index, dev->name);
                    tests[n].name = ct->name;
                    tests[n].test_func = kinds[k].func;
                    tests[n].initial_state = ct;
                    ++n;
                }
            }
    }
    int failed = _cmocka_run_group_tests("counted_loads", tests, n, NULL, NULL);
    free(tests);
    free(cts);
    support_devices_close(&f);
    return failed ? 1 : 0;
}
