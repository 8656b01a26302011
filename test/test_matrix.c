/* The test matrix: every variant of every dimension, verified against the
 * double reference on every device present ($CLCONV_DEVICE restricts).
 *
 * dims {1,2,3} x strategies x masks {1,3,5,7,9} (1D also 15, 55) x tiles
 * (1D 4/32/256, 2D 4/8/16/32, 3D 2/4/8) x sizes (1 element, tile-1, tile+1,
 * a prime, several tiles; unequal extents in 2D/3D), and for the strategies
 * that read the coarsen / group_y knobs also non-default knob values at
 * the largest tile and masks 3 and 5, where every strategy also runs one
 * wide case (x 101, y 7, z 5: interior x spans between border ones even
 * for vector's 32 outputs per work-item in 2D/3D). Each case poisons the
 * output with NaN, uses random data from a printed seed, and compares every
 * element. Unsupported cases are counted and listed with their reason.
 *
 * Then the filter semantics (issue 15): every variant x dims x border mode,
 * each with a mask class (centred cube, anisotropic, even widths, origins
 * at the low and the high end, masks wider than the data, convolution)
 * rotated so that every pair of (variant, mode, dims, mask class) appears,
 * on sizes 1, 2, a small mixed one, a prime one and a wide one; and
 * batches (a mask 1 wide along the slowest axes) for every (variant,
 * mode).
 *
 * CLCONV_MATRIX_SAMPLE=pairwise (make test-oclgrind, make sanitize) thins
 * the classic grid to a covering array of its (mask, tile, size kind)
 * pairs; see classic_row_selected. make test runs the whole matrix. */
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

typedef struct dims_config {
    int dims;
    int masks[8];
    int nmasks;
    int tiles[4];
    int ntiles;
} dims_config;

static const dims_config configs[] = {
    {1, {1, 3, 5, 7, 9, 15, 55}, 7, {4, 32, 256}, 3},
    {2, {1, 3, 5, 7, 9}, 5, {4, 8, 16, 32}, 4},
    {3, {1, 3, 5, 7, 9}, 5, {2, 4, 8}, 3},
};

enum { SIZE_ONE, SIZE_TILE_MINUS_1, SIZE_TILE_PLUS_1, SIZE_PRIME,
       SIZE_SEVERAL, SIZE_KINDS };
static const char *const size_kind_names[SIZE_KINDS] = {
    "1 element", "tile-1", "tile+1", "prime", "several tiles"};

static int is_prime(size_t n)
{
    if (n < 2)
        return 0;
    for (size_t d = 2; d * d <= n; ++d)
        if (n % d == 0)
            return 0;
    return 1;
}

static size_t extent(int kind, int tile)
{
    size_t t = (size_t)tile, p;
    switch (kind) {
    case SIZE_ONE: return 1;
    case SIZE_TILE_MINUS_1: return t > 1 ? t - 1 : 1;
    case SIZE_TILE_PLUS_1: return t + 1;
    case SIZE_PRIME:
        /* The first prime past two and a half tiles: never a multiple. */
        for (p = 2 * t + t / 2 + 1; !is_prime(p); ++p)
            ;
        return p;
    default: return 3 * t;
    }
}

/* Sizes of a case: x of the kind, y and z of the next kinds (other than
 * "1 element"), so extents differ in 2D and 3D. */
static void case_size(int dims, int kind, int tile, size_t size[3])
{
    size[0] = size[1] = size[2] = 1;
    if (kind == SIZE_ONE)
        return;
    for (int d = 0; d < dims; ++d) {
        int k = 1 + (kind - 1 + d) % (SIZE_KINDS - 1);
        size[d] = extent(k, tile);
    }
}

/* Per device counters and the list of unsupported reasons. */
typedef struct device_tally {
    const clconv_device_info *dev;
    clconv_session *session;
    long passed, failed, unsupported;
    long sampled_out; /* classic rows left out by CLCONV_MATRIX_SAMPLE */
    char *notes; /* unsupported reasons, one per line, deduplicated */
    size_t notes_len;
} device_tally;

typedef struct matrix_test {
    device_tally *tally;
    const dims_config *cfg;
    clconv_strategy strategy;
    int border; /* -1: the classic cases; else the semantics cases */
    char name[256];
} matrix_test;

static uint64_t seed;

static void add_note(device_tally *t, const char *line)
{
    if (t->notes && strstr(t->notes, line))
        return;
    size_t n = strlen(line);
    char *grown = realloc(t->notes, t->notes_len + n + 2);
    if (!grown)
        return;
    t->notes = grown;
    memcpy(t->notes + t->notes_len, line, n);
    t->notes_len += n;
    t->notes[t->notes_len++] = '\n';
    t->notes[t->notes_len] = '\0';
}

/* Verify one case and count it; 1 if it failed. A case with tile 0 runs
 * the strategy's default tile for the device, which must fit wherever
 * some tile does: unsupported is a failure there (and counted as
 * unsupported only when not even a tile of 1 fits the device). */
static int run_case(device_tally *t, const clconv_problem *p,
                    const char *size_kind, uint64_t case_seed)
{
    clconv_dataset *data = NULL;
    clconv_status st = support_dataset(p, case_seed, &data);
    assert_int_equal(st, CLCONV_OK);
    /* The variant under test, never another path the automatic method
     * would take for a separable mask (a W x 1 or 1x1x1 one). */
    clconv_problem direct = *p;
    if (direct.method == CLCONV_METHOD_AUTO)
        direct.method = CLCONV_METHOD_DIRECT;
    clconv_result res;
    clconv_run_verified(t->session, &direct, data, 0, 0, &res);
    clconv_dataset_destroy(data);

    char knobs[160] = "";
    int kn = 0;
    if (p->coarsen || p->group_y)
        kn += snprintf(knobs, sizeof knobs, " coarsen %d group_y %d",
                       p->coarsen, p->group_y);
    if (p->mask_size[0] || p->border || p->flip || p->cval != 0.0)
        snprintf(knobs + kn, sizeof knobs - (size_t)kn,
                 " %s%s cval %g mask %dx%dx%d origin %d,%d,%d",
                 clconv_border_name(p->border), p->flip ? " convolve" : "",
                 p->cval, p->mask_size[0], p->mask_size[1], p->mask_size[2],
                 p->origin[0], p->origin[1], p->origin[2]);
    char what[400];
    snprintf(what, sizeof what, "%dD %s mask %d tile %d%s size %zux%zux%zu (%s)",
             p->dims, clconv_strategy_name(p->strategy), p->mask_width,
             p->tile, knobs, p->size[0], p->size[1], p->size[2], size_kind);
    clconv_problem smallest = *p;
    smallest.tile = 1;
    if (res.status == CLCONV_EUNSUPPORTED && p->tile == 0 &&
        clconv_problem_fits(t->dev, &smallest) == CLCONV_OK) {
        t->failed++;
        print_error("FAIL %s: the default tile does not fit the device: %s\n",
                    what, res.reason);
        return 1;
    }
    if (res.status == CLCONV_EUNSUPPORTED) {
        t->unsupported++;
        char line[1400];
        snprintf(line, sizeof line, "  unsupported: %dD %s mask %d tile %d%s: %s",
                 p->dims, clconv_strategy_name(p->strategy), p->mask_width,
                 p->tile, knobs, res.reason);
        add_note(t, line);
        return 0;
    }
    if (res.status != CLCONV_OK) {
        t->failed++;
        print_error("FAIL %s seed %llu: %s\n", what,
                    (unsigned long long)case_seed, res.reason);
        return 1;
    }
    if (!res.verdict.ok) {
        t->failed++;
        print_error("FAIL %s seed %llu: %zu elements out of bound, "
                    "worst at %zu: got %.9g expected %.9g\n",
                    what, (unsigned long long)case_seed, res.verdict.failures,
                    res.verdict.worst_index, res.verdict.worst_got,
                    res.verdict.worst_expected);
        return 1;
    }
    t->passed++;
    return 0;
}

/* Knob cases: besides its defaults, a strategy that reads coarsen runs
 * these values (odd, so that no extent is a multiple) at the largest tile
 * and masks 3 and 5; coarse also with these work-group y extents. */
static const int knob_coarsen[] = {1, 3};
static const int knob_group_y[] = {1, 3};

/* The strategy's default: tile 0, chosen by the library for the device,
 * on a size of several of those tiles. */
static int run_default_case(device_tally *t, int dims, clconv_strategy s,
                            int mask, uint64_t case_seed)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.mask_width = mask;
    p.strategy = s;
    const int tile = clconv_default_tile_for(t->dev, &p);
    case_size(dims, SIZE_PRIME, tile, p.size);
    /* A mask of one tap runs as a batch of rows whose tile is 1D's (256):
     * y and z then take 3D's tile, not 641 x 768 x 255 elements (minutes
     * on a simulator for nothing more). */
    if (clconv_problem_elements(&p) > ((size_t)1 << 22)) {
        size_t yz[3];
        case_size(dims, SIZE_PRIME, tile < 8 ? tile : 8, yz);
        for (int d = 1; d < dims; ++d)
            p.size[d] = yz[d];
    }
    return run_case(t, &p, "default tile", case_seed);
}

/* $CLCONV_MATRIX_SAMPLE=pairwise (make test-oclgrind, make sanitize): of
 * the classic (mask, tile, size kind) grid of each variant and dims, only
 * the rows whose tile is (mask index + size kind) mod tiles, a covering
 * array of strength 2: every pair of mask and tile, of mask and size kind
 * and of tile and size kind still runs (there are at least as many masks
 * and size kinds as tiles), in masks x size kinds rows instead of masks x
 * tiles x size kinds. The default-tile, wide and knob cases and every
 * semantics test (variant x dims x mode, itself pairwise in the mask
 * classes) run in full. Unset or empty: the whole matrix. */
static int sample_pairwise;

static int classic_row_selected(const dims_config *cfg, int mi, int ti, int k)
{
    return !sample_pairwise || ti == (mi + k) % cfg->ntiles;
}

static void run_cases(void **state)
{
    matrix_test *mt = *state;
    device_tally *t = mt->tally;
    const dims_config *cfg = mt->cfg;
    const int knobs = clconv_strategy_knobs(mt->strategy, cfg->dims);
    long failures = 0;
    uint64_t case_seed = seed;
    for (int mi = 0; mi < cfg->nmasks; ++mi)
        failures += run_default_case(t, cfg->dims, mt->strategy,
                                     cfg->masks[mi], ++case_seed);
    for (int mi = 0; mi < cfg->nmasks; ++mi)
        for (int ti = 0; ti < cfg->ntiles; ++ti)
            for (int k = 0; k < SIZE_KINDS; ++k) {
                clconv_problem p =
                    support_problem(cfg->dims, 1, 1, 1, cfg->masks[mi],
                                    cfg->tiles[ti], mt->strategy);
                case_size(p.dims, k, p.tile, p.size);
                ++case_seed;
                if (classic_row_selected(cfg, mi, ti, k))
                    failures += run_case(t, &p, size_kind_names[k], case_seed);
                else
                    t->sampled_out++;

                const int knob_case = ti == cfg->ntiles - 1 &&
                                      (p.mask_width == 3 || p.mask_width == 5);
                if (knob_case && k == SIZE_SEVERAL) {
                    const size_t wide[3] = {101, 7, 5};
                    clconv_problem w = p;
                    for (int d = 0; d < p.dims; ++d)
                        w.size[d] = wide[d];
                    failures += run_case(t, &w, "wide", ++case_seed);
                }
                if (!knob_case || !(knobs & CLCONV_KNOB_COARSEN))
                    continue;
                const int ngy = knobs & CLCONV_KNOB_GROUP_Y && p.dims > 1 ? 2 : 1;
                for (size_t c = 0; c < sizeof knob_coarsen / sizeof *knob_coarsen;
                     ++c)
                    for (int g = 0; g < ngy; ++g) {
                        p.coarsen = knob_coarsen[c];
                        p.group_y = ngy > 1 ? knob_group_y[g] : 0;
                        failures +=
                            run_case(t, &p, size_kind_names[k], ++case_seed);
                    }
            }
    assert_int_equal(failures, 0);
}

/* The mask classes of the semantics cases, per dims (x first). */
/* CLASS_BATCH, outside the rotation: 1 wide along the slowest axes, so
 * the problem runs as a batch of lower-dimensional members (2D: rows; 3D:
 * planes, or rows for odd strategies). */
enum { CLASS_CUBE, CLASS_ANISO, CLASS_EVEN, CLASS_ORIGIN_LOW,
       CLASS_ORIGIN_HIGH, CLASS_WIDE, CLASS_CONVOLVE, CLASSES,
       CLASS_BATCH = CLASSES, ALL_CLASSES };
static const char *const class_names[ALL_CLASSES] = {
    "cube", "anisotropic", "even", "origin low", "origin high",
    "wider than the data", "convolve even", "batch"};
static const int class_widths[ALL_CLASSES][3][3] = {
    {{3, 1, 1}, {3, 3, 1}, {3, 3, 3}}, {{5, 1, 1}, {5, 3, 1}, {3, 1, 5}},
    {{4, 1, 1}, {2, 4, 1}, {4, 2, 3}}, {{6, 1, 1}, {3, 4, 1}, {3, 4, 2}},
    {{7, 1, 1}, {4, 5, 1}, {2, 3, 4}}, {{9, 1, 1}, {7, 5, 1}, {5, 5, 3}},
    {{6, 1, 1}, {4, 3, 1}, {2, 3, 4}}, {{3, 1, 1}, {5, 1, 1}, {3, 4, 1}}};
/* Sizes of every semantics case (x first): 1, 2, small mixed, prime, wide
 * (interior spans of every fast variant between border ones). */
static const size_t sem_sizes[5][3] = {
    {1, 1, 1}, {2, 2, 2}, {3, 1, 2}, {13, 11, 7}, {203, 71, 37}};
static const size_t sem_wide_yz[3][3] = {{1, 1, 1}, {71, 19, 1}, {37, 9, 5}};

static void sem_problem(const matrix_test *mt, int cls, int flip_cval,
                        clconv_problem *p)
{
    const int d = mt->cfg->dims;
    memset(p, 0, sizeof *p);
    p->dims = d;
    p->strategy = mt->strategy;
    p->border = (clconv_border)mt->border;
    static const int tiles[4] = {0, 16, 4, 2};
    p->tile = mt->strategy == CLCONV_COARSE || mt->strategy == CLCONV_VECTOR
                  ? (d == 1 ? 4 : 2)
                  : tiles[d];
    if (clconv_strategy_knobs(p->strategy, d)) {
        p->coarsen = 2;
        p->group_y = clconv_strategy_knobs(p->strategy, d) &
                             CLCONV_KNOB_GROUP_Y && d > 1
                         ? 2
                         : 0;
    }
    const int rows = cls == CLASS_BATCH && d == 3 && mt->strategy % 2;
    for (int a = 0; a < d; ++a) {
        const int w = rows ? (a ? 1 : 5) : class_widths[cls][d - 1][a];
        p->mask_size[a] = w;
        if (cls == CLASS_ORIGIN_LOW || (cls == CLASS_WIDE && a == 1))
            p->origin[a] = -(w / 2);
        if (cls == CLASS_ORIGIN_HIGH || cls == CLASS_CONVOLVE ||
            (cls == CLASS_WIDE && a == 0))
            p->origin[a] = (w - 1) / 2;
    }
    p->mask_width = clconv_problem_mask_max(p);
    p->flip = cls == CLASS_CONVOLVE || flip_cval;
    if (p->border == CLCONV_BORDER_CONSTANT && flip_cval)
        p->cval = 0.75;
}

static long run_semantics_class(matrix_test *mt, int cls, int flip_cval,
                                uint64_t *case_seed)
{
    long failures = 0;
    char kind[80];
    for (int k = 0; k < 5; ++k) {
        clconv_problem p;
        sem_problem(mt, cls, flip_cval, &p);
        for (int a = 0; a < p.dims; ++a)
            p.size[a] = k == 4 ? sem_wide_yz[p.dims - 1][a] : sem_sizes[k][a];
        snprintf(kind, sizeof kind, "%s", class_names[cls]);
        failures += run_case(mt->tally, &p, kind, ++*case_seed);
    }
    return failures;
}

/* Two mask classes per (variant, dims, mode), rotated so that every pair
 * of the four factors appears; convolution and a non-zero cval on
 * alternate cases. */
static void run_semantics(void **state)
{
    matrix_test *mt = *state;
    const int v = (int)mt->strategy, m = mt->border, d = mt->cfg->dims;
    const int c1 = (v + m + d) % CLASSES;
    int c2 = (v + 2 * m + 3 * d + 3) % CLASSES;
    if (c2 == c1)
        c2 = (c2 + 1) % CLASSES;
    uint64_t case_seed = seed ^ ((uint64_t)(v * 64 + m * 8 + d) << 32);
    long failures = run_semantics_class(mt, c1, (v + m + d) % 2, &case_seed);
    failures += run_semantics_class(mt, c2, (v + m + d + 1) % 2, &case_seed);
    /* Batches: every (variant, mode) once, in 2D or 3D by parity. */
    if (d > 1 && (v + m + d) % 2 == 0)
        failures += run_semantics_class(mt, CLASS_BATCH, (v + m) % 2,
                                        &case_seed);
    assert_int_equal(failures, 0);
}

static void print_summary(device_tally *tallies, size_t n)
{
    printf("\nTest matrix summary (seed %llu):\n", (unsigned long long)seed);
    for (size_t i = 0; i < n; ++i) {
        device_tally *t = &tallies[i];
        printf("  %u:%u %s: %ld passed, %ld failed, %ld unsupported\n",
               t->dev->platform_index, t->dev->device_index, t->dev->name,
               t->passed, t->failed, t->unsupported);
        if (t->sampled_out)
            printf("  (pairwise sample: %ld classic cases left out, "
                   "CLCONV_MATRIX_SAMPLE=pairwise; unset it for the whole "
                   "matrix)\n", t->sampled_out);
        if (t->notes)
            printf("%s", t->notes);
    }
}

int main(void)
{
    seed = support_seeds("test matrix");

    const char *sample = getenv("CLCONV_MATRIX_SAMPLE");
    if (sample && *sample) {
        if (strcmp(sample, "pairwise") != 0) {
            fprintf(stderr, "test_matrix: CLCONV_MATRIX_SAMPLE=%s: the only "
                    "sample is 'pairwise'\n", sample);
            return 1;
        }
        sample_pairwise = 1;
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; ++c)
            if (configs[c].ntiles > configs[c].nmasks ||
                configs[c].ntiles > SIZE_KINDS) {
                fprintf(stderr, "test_matrix: %dD has more tiles than masks "
                        "or size kinds: the pairwise sample would not cover "
                        "every pair\n", configs[c].dims);
                return 1;
            }
        printf("test matrix: the classic cases sampled pairwise "
               "(CLCONV_MATRIX_SAMPLE=pairwise)\n");
    }

    support_devices f;
    if (support_devices_open(&f)) {
        fprintf(stderr, "test_matrix: %s\n", f.why);
        return 1;
    }
    const size_t nsel = f.n;
    device_tally *tallies = calloc(nsel, sizeof *tallies);
    const size_t nconfigs = sizeof configs / sizeof configs[0];
    const size_t ntests =
        nsel * nconfigs * CLCONV_STRATEGY_COUNT * (1 + CLCONV_BORDER_COUNT);
    matrix_test *mts = calloc(ntests, sizeof *mts);
    struct CMUnitTest *tests = calloc(ntests, sizeof *tests);
    if (!tallies || !mts || !tests)
        return 1;
    size_t n = 0;
    for (size_t d = 0; d < nsel; ++d) {
        device_tally *t = &tallies[d];
        t->dev = support_device(&f, d);
        t->session = f.sessions[d];
        for (size_t c = 0; c < nconfigs; ++c)
            for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
                for (int b = -1; b < CLCONV_BORDER_COUNT; ++b) {
                    matrix_test *mt = &mts[n];
                    mt->tally = t;
                    mt->cfg = &configs[c];
                    mt->strategy = (clconv_strategy)s;
                    mt->border = b;
                    snprintf(mt->name, sizeof mt->name,
                             "conv%dd_%s%s%s_matches_reference_on_%u:%u_%.60s",
                             configs[c].dims, clconv_strategy_name(mt->strategy),
                             b < 0 ? "" : "_mode_",
                             b < 0 ? "" : clconv_border_name((clconv_border)b),
                             t->dev->platform_index, t->dev->device_index,
                             t->dev->name);
                    tests[n].name = mt->name;
                    tests[n].test_func = b < 0 ? run_cases : run_semantics;
                    tests[n].initial_state = mt;
                    ++n;
                }
    }
    /* $CLCONV_MATRIX_FILTER: run only the tests whose name matches (cmocka's
     * glob, e.g. '*_mode_*' for the filter semantics alone). */
    const char *filter = getenv("CLCONV_MATRIX_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
    int failed = _cmocka_run_group_tests("matrix", tests, n, NULL, NULL);
    print_summary(tallies, nsel);
    for (size_t d = 0; d < nsel; ++d)
        free(tallies[d].notes);
    free(tests);
    free(mts);
    free(tallies);
    support_devices_close(&f);
    return failed ? 1 : 0;
}
