/* The variant table: every strategy has a name that parses back, a
 * summary and kernels for dims 1-3; its knobs have sane ranges and their
 * defaults lie inside them; its default tile fits small devices (256
 * work-items, little local memory) and is the preferred one where 1024
 * fit; a kernel compiled for another work-group than the table plans is an
 * internal error, never "unsupported". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_cl.h" /* <CL/cl.h>: the devices' native float width */
#include "clconv_tune.h"
#include "support.h"

static const int masks[] = {1, 3, 5, 7, 9, 15, 55};
#define NMASKS (sizeof masks / sizeof masks[0])

/* A device of the given limits (no OpenCL behind it). */
static clconv_device_info fake_device(clconv_device_kind kind, size_t wg,
                                      size_t item_max, uint64_t local)
{
    clconv_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "fake");
    snprintf(d.platform, sizeof d.platform, "fake platform");
    d.kind = kind;
    d.max_work_group_size = wg;
    for (int k = 0; k < 3; ++k)
        d.max_work_item_sizes[k] = item_max;
    d.local_mem_bytes = local;
    d.constant_mem_bytes = 64 * 1024;
    d.global_mem_bytes = d.max_alloc_bytes = 1ull << 30;
    return d;
}

static clconv_problem shape(int dims, int mask, clconv_strategy s)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    p.mask_width = mask;
    p.strategy = s;
    for (int d = 0; d < 3; ++d)
        p.size[d] = d < dims ? 100 : 1;
    return p;
}

static void every_strategy_has_a_name_summary_and_kernels_for_dims_1_to_3(
    void **state)
{
    (void)state;
    char list[512];
    clconv_strategy_list(list, sizeof list);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        const char *name = clconv_strategy_name((clconv_strategy)s);
        clconv_strategy back;
        assert_int_equal(clconv_strategy_parse(name, &back), CLCONV_OK);
        assert_int_equal(back, s);
        assert_non_null(strstr(list, name));
        assert_true(strlen(clconv_strategy_summary((clconv_strategy)s)) > 10);
        for (int dims = 1; dims <= 3; ++dims) {
            uint64_t h;
            if (clconv_kernel_hash((clconv_strategy)s, dims, &h) != CLCONV_OK)
                fail_msg("%s %dD: %s", name, dims, clconv_last_error());
        }
    }
    clconv_strategy out;
    assert_int_equal(clconv_strategy_parse("bogus", &out), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), list));
    /* the names it takes, no more: "all" is the CLI's (it was listed) */
    assert_int_equal(clconv_strategy_parse("all", &out), CLCONV_EINVAL);
    assert_null(strstr(clconv_last_error(), ", all)"));
}

/* Negative knobs are refused for every strategy, past their ranges only
 * where a strategy reads them (the others ignore them). */
static void knobs_are_validated_where_they_are_read(void **state)
{
    (void)state;
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        for (int dims = 1; dims <= 3; ++dims) {
            clconv_problem p = {.dims = dims, .size = {64, 16, 8},
                                .mask_width = 3,
                                .strategy = (clconv_strategy)s};
            const int knobs = clconv_strategy_knobs(p.strategy, dims);
            p.coarsen = -1;
            assert_int_equal(clconv_problem_validate(&p), CLCONV_EINVAL);
            p.coarsen = 0;
            p.group_y = -1;
            assert_int_equal(clconv_problem_validate(&p), CLCONV_EINVAL);
            p.group_y = 0;
            p.coarsen = 65;
            assert_int_equal(clconv_problem_validate(&p),
                             knobs ? CLCONV_EINVAL : CLCONV_OK);
        }
}

static void knob_ranges_are_sane_and_defaults_lie_inside_them(void **state)
{
    (void)state;
    const clconv_device_info cpu = fake_device(CLCONV_DEVICE_CPU, 4096, 4096,
                                               1 << 20);
    const clconv_device_info gpu = fake_device(CLCONV_DEVICE_GPU, 1024, 1024,
                                               48 * 1024);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        for (int dims = 1; dims <= 3; ++dims) {
            const int knobs = clconv_strategy_knobs((clconv_strategy)s, dims);
            int cmin = 0, cmax = 0, gmin = 0, gmax = 0;
            if (knobs & CLCONV_KNOB_COARSEN) {
                assert_int_equal(clconv_knob_range((clconv_strategy)s, dims,
                                                   CLCONV_KNOB_COARSEN, &cmin,
                                                   &cmax),
                                 CLCONV_OK);
                assert_true(cmin >= 1 && cmin <= cmax && cmax <= 64);
            }
            if (knobs & CLCONV_KNOB_GROUP_Y) {
                assert_int_equal(clconv_knob_range((clconv_strategy)s, dims,
                                                   CLCONV_KNOB_GROUP_Y, &gmin,
                                                   &gmax),
                                 CLCONV_OK);
                assert_true(gmin >= 1 && gmin <= gmax && gmax <= 1024);
            }
            for (size_t m = 0; m < NMASKS; ++m)
                for (int d = 0; d < 2; ++d) {
                    clconv_problem p = shape(dims, masks[m], (clconv_strategy)s);
                    clconv_problem_apply_defaults(d ? &gpu : &cpu, &p);
                    assert_true(p.tile >= 1);
                    assert_int_not_equal(p.mask_mode, CLCONV_MASK_AUTO);
                    if (knobs & CLCONV_KNOB_COARSEN)
                        assert_true(p.coarsen >= cmin && p.coarsen <= cmax);
                    if (knobs & CLCONV_KNOB_GROUP_Y)
                        assert_true(p.group_y >= gmin && p.group_y <= gmax);
                }
        }
    int lo, hi;
    clconv_knob_bounds(CLCONV_KNOB_COARSEN, &lo, &hi);
    assert_true(lo == 1 && hi == 64);
    clconv_knob_bounds(CLCONV_KNOB_GROUP_Y, &lo, &hi);
    assert_true(lo == 1 && hi == 1024);
}

/* On devices of 256 work-items, 64 along a dimension, or 4 KiB of local
 * memory, every default fits wherever some tile does (input_tile's group
 * of (1 + W - 1)^3 outgrows 256 from W = 7 on: nothing fits there); where
 * 1024 work-items fit, the default is clconv_default_tile's. */
static void default_tiles_fit_small_devices(void **state)
{
    (void)state;
    const clconv_device_info small[] = {
        fake_device(CLCONV_DEVICE_GPU, 256, 256, 32 * 1024),
        fake_device(CLCONV_DEVICE_CPU, 256, 64, 1 << 20),
        fake_device(CLCONV_DEVICE_GPU, 1024, 1024, 4 * 1024),
    };
    const clconv_device_info big = fake_device(CLCONV_DEVICE_GPU, 1024, 1024,
                                               1 << 30);
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s)
        for (int dims = 1; dims <= 3; ++dims)
            for (size_t m = 0; m < NMASKS; ++m) {
                clconv_problem p = shape(dims, masks[m], (clconv_strategy)s);
                clconv_problem one = p;
                one.tile = 1;
                for (size_t d = 0; d < sizeof small / sizeof *small; ++d)
                    if (clconv_problem_fits(&small[d], &p) != CLCONV_OK &&
                        clconv_problem_fits(&small[d], &one) == CLCONV_OK)
                        fail_msg("%s %dD mask %d on device %zu: %s",
                                 clconv_strategy_name(p.strategy), dims,
                                 masks[m], d, clconv_last_error());
                /* A GPU's float32 2D coarse at masks 7-9 takes 4 columns
                 * per work-item and its own tile (item 33), its 3D coarse
                 * at masks 3-5 2 columns in 16 x 4 work-items (item 53);
                 * otherwise the device-free default is the big device's. */
                const int columns = s == CLCONV_COARSE && dims == 2 &&
                                    masks[m] >= 7 && masks[m] <= 9;
                const int columns3 = s == CLCONV_COARSE && dims == 3 &&
                                     masks[m] >= 3 && masks[m] <= 5;
                assert_int_equal(clconv_default_tile_for(&big, &p),
                                 columns    ? 32
                                 : columns3 ? 16
                                            : clconv_default_tile(p.strategy,
                                                                  dims,
                                                                  masks[m]));
            }
}

/* An explicit tile that cannot fit stays unsupported, with the reason. */
static void an_explicit_tile_that_cannot_fit_is_unsupported(void **state)
{
    (void)state;
    const clconv_device_info d = fake_device(CLCONV_DEVICE_GPU, 256, 256,
                                             32 * 1024);
    clconv_problem p = shape(2, 5, CLCONV_NAIVE);
    p.tile = 32;
    assert_int_equal(clconv_problem_fits(&d, &p), CLCONV_EUNSUPPORTED);
    assert_non_null(strstr(clconv_last_error(), "exceeds"));
    p.tile = 0;
    assert_int_equal(clconv_problem_fits(&d, &p), CLCONV_OK);
}

/* p's build defines on dev, into d (len bytes), contain each of want (a
 * NULL-ended list). */
static void has_defines(const clconv_device_info *dev, const clconv_problem *p,
                        char *d, size_t len, const char *const *want)
{
    assert_int_equal(clconv_problem_defines(dev, p, d, len), CLCONV_OK);
    for (; *want; ++want)
        if (!strstr(d, *want))
            fail_msg("'%s' not in '%s'", *want, d);
}

/* A GPU's 3D coarse at mask 5 takes 4 work-items along z in 16 x 2 x 4
 * work-groups (bench/PERF.md items 61, 70); where the caller's tile fits
 * the device with one and not with four, one (the knob is the
 * variant's), and a default tile fits four; 16 planes a work-item (a
 * group's 64) on a device the work-items fill, 8 where 16 would leave it
 * idle. Mask 3 keeps 2 along z in 16 x 4 x 2 work-groups, 16 planes
 * each; a 5 x 5 x 3 mask is 3 deep, so it does too. */
static void three_d_coarse_takes_one_along_z_where_two_do_not_fit(void **state)
{
    (void)state;
    clconv_device_info d = fake_device(CLCONV_DEVICE_GPU, 256, 256, 48 * 1024);
    d.compute_units = 132;
    d.global_mem_bytes = d.max_alloc_bytes = 8ull << 30;
    clconv_problem p = shape(3, 5, CLCONV_COARSE);
    p.size[0] = p.size[1] = p.size[2] = 512;
    char defs[1024];
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=4", "-D COARSEN=16",
                                      "-D GROUP_Y=2", "-D TILE_WIDTH=16",
                                      NULL});
    assert_int_equal(clconv_problem_fits(&d, &p), CLCONV_OK);
    p.tile = 32, p.group_y = 4; /* 128 work-items: no room for four */
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=1", NULL});
    assert_int_equal(clconv_problem_fits(&d, &p), CLCONV_OK);
    p.tile = 16, p.group_y = 4;
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=4", NULL});
    p.tile = 0, p.group_y = 0;
    p.size[0] = p.size[1] = p.size[2] = 256;
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=4", "-D COARSEN=8", NULL});
    p = shape(3, 3, CLCONV_COARSE);
    p.size[0] = p.size[1] = p.size[2] = 512;
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=2", "-D COARSEN=16",
                                      "-D GROUP_Y=4", NULL});
    p.mask_width = 0;
    p.mask_size[0] = p.mask_size[1] = 5, p.mask_size[2] = 3;
    has_defines(&d, &p, defs, sizeof defs,
                (const char *const[]){"-D GROUP_Z=2", "-D GROUP_Y=4", NULL});
}

/* VEC_BLOCKS of 2D vector at mask 5: two blocks on PoCL and GPUs, one on
 * other CPU implementations (Intel's runtime is 5x slower with two); the
 * wider masks' blocks and rows on PoCL. */
/* Three implementations the defaults tell apart: PoCL's CPU, Intel's CPU
 * runtime and a GPU. */
static void three_devices(clconv_device_info *pocl, clconv_device_info *intel,
                          clconv_device_info *gpu)
{
    *pocl = fake_device(CLCONV_DEVICE_CPU, 4096, 4096, 1 << 20);
    snprintf(pocl->platform, sizeof pocl->platform,
             "Portable Computing Language");
    *intel = *pocl;
    snprintf(intel->platform, sizeof intel->platform, "Intel(R) OpenCL");
    *gpu = fake_device(CLCONV_DEVICE_GPU, 1024, 1024, 48 * 1024);
}

/* Integer element types are converted by bit arithmetic on PoCL's CPUs
 * (-D CLCONV_CVT_BITS=1; bench/PERF.md item 58), by convert_* on other
 * implementations and GPUs, and float types never carry the define. */
static void integer_conversions_by_bits_on_pocl_only(void **state)
{
    (void)state;
    clconv_device_info pocl, intel, gpu;
    three_devices(&pocl, &intel, &gpu);
    const char *bits = "-D CLCONV_CVT_BITS=1";
    char d[512];
    static const clconv_elem types[] = {CLCONV_ELEM_U8, CLCONV_ELEM_U16,
                                        CLCONV_ELEM_I16, CLCONV_ELEM_F16};
    for (size_t i = 0; i < sizeof types / sizeof *types; ++i)
        for (int st = 0; st < CLCONV_STRATEGY_COUNT; ++st) {
            clconv_problem p = shape(2, 3, (clconv_strategy)st);
            p.in_dtype = p.out_dtype = types[i];
            const int integer = types[i] != CLCONV_ELEM_F16;
            assert_int_equal(clconv_problem_defines(&pocl, &p, d, sizeof d),
                             CLCONV_OK);
            assert_int_equal(strstr(d, bits) != NULL, integer);
            p.out_dtype = CLCONV_ELEM_F32; /* the input's conversion alone */
            assert_int_equal(clconv_problem_defines(&pocl, &p, d, sizeof d),
                             CLCONV_OK);
            assert_int_equal(strstr(d, bits) != NULL, integer);
            assert_int_equal(clconv_problem_defines(&intel, &p, d, sizeof d),
                             CLCONV_OK);
            assert_null(strstr(d, bits));
            assert_int_equal(clconv_problem_defines(&gpu, &p, d, sizeof d),
                             CLCONV_OK);
            assert_null(strstr(d, bits));
        }
    clconv_problem f = shape(2, 3, CLCONV_COARSE);
    assert_int_equal(clconv_problem_defines(&pocl, &f, d, sizeof d),
                     CLCONV_OK);
    assert_null(strstr(d, bits));
}

static void vector_blocks_default_depends_on_the_implementation(void **state)
{
    (void)state;
    clconv_device_info pocl, intel, gpu;
    three_devices(&pocl, &intel, &gpu);
    const clconv_problem p = shape(2, 5, CLCONV_VECTOR);
    char d[256];
    assert_int_equal(clconv_problem_defines(&pocl, &p, d, sizeof d), CLCONV_OK);
    assert_non_null(strstr(d, "-D VEC_BLOCKS=2"));
    assert_int_equal(clconv_problem_defines(&intel, &p, d, sizeof d), CLCONV_OK);
    assert_non_null(strstr(d, "-D VEC_BLOCKS=1"));
    assert_int_equal(clconv_problem_defines(&gpu, &p, d, sizeof d), CLCONV_OK);
    assert_non_null(strstr(d, "-D VEC_BLOCKS=2"));
    /* VEC_WIDTH 8 needs the device's native float width: 16 without it. */
    assert_non_null(strstr(d, "-D VEC_WIDTH=16"));
    /* PoCL: one block beyond mask 5; rows per work-item 16 in 2D from
     * mask 7, planes 8 in 3D; the march's ends peeled (bench/PERF.md
     * item 41). Intel's runtime: one block always; it and GPUs do not
     * peel. */
    static const struct {
        int dims, mask;
        const char *blocks, *coarsen;
    } pocl_rows[] = {{2, 5, "-D VEC_BLOCKS=2", "-D COARSEN=4"},
                     {2, 7, "-D VEC_BLOCKS=1", "-D COARSEN=16"},
                     {2, 9, "-D VEC_BLOCKS=1", "-D COARSEN=16"},
                     {3, 5, "-D VEC_BLOCKS=2", "-D COARSEN=8"},
                     {3, 7, "-D VEC_BLOCKS=1", "-D COARSEN=8"}};
    for (size_t i = 0; i < sizeof pocl_rows / sizeof *pocl_rows; ++i) {
        const clconv_problem v =
            shape(pocl_rows[i].dims, pocl_rows[i].mask, CLCONV_VECTOR);
        assert_int_equal(clconv_problem_defines(&pocl, &v, d, sizeof d),
                         CLCONV_OK);
        assert_non_null(strstr(d, pocl_rows[i].blocks));
        assert_non_null(strstr(d, pocl_rows[i].coarsen));
        assert_non_null(strstr(d, "-D VEC_PEEL=1"));
        /* 3D: the next plane's rows prefetched on PoCL's CPUs alone
         * (item 65); 2D has no such knob. */
        const char *pf = pocl_rows[i].dims == 3 ? "-D VEC_PREFETCH=1" : NULL;
        if (pf)
            assert_non_null(strstr(d, pf));
        else
            assert_null(strstr(d, "VEC_PREFETCH"));
        assert_int_equal(clconv_problem_defines(&intel, &v, d, sizeof d),
                         CLCONV_OK);
        assert_non_null(strstr(d, "-D VEC_BLOCKS=1"));
        assert_non_null(strstr(d, "-D VEC_PEEL=0"));
        if (pf)
            assert_non_null(strstr(d, "-D VEC_PREFETCH=0"));
        assert_int_equal(clconv_problem_defines(&gpu, &v, d, sizeof d),
                         CLCONV_OK);
        assert_non_null(strstr(d, "-D VEC_PEEL=0"));
        if (pf)
            assert_non_null(strstr(d, "-D VEC_PREFETCH=0"));
    }
    /* Only what a variant reads is defined. */
    const clconv_problem naive = shape(3, 3, CLCONV_NAIVE);
    assert_int_equal(clconv_problem_defines(&gpu, &naive, d, sizeof d),
                     CLCONV_OK);
    assert_string_equal(d, "-D MASK_WIDTH=3 -D TILE_WIDTH=8");
    /* MARCH is 2D coarse's alone: the unrolled form up to 21x21, the mask
     * read in place beyond (25x25 ran 22x faster so on the H100, 12% on
     * PoCL), on every device. */
    const struct {
        const clconv_device_info *dev;
        int w;
        const char *march;
    } marches[] = {{&gpu, 21, "-D MARCH=1"},
                   {&gpu, 25, "-D MARCH=2"},
                   {&pocl, 21, "-D MARCH=1"},
                   {&pocl, 25, "-D MARCH=2"}};
    for (size_t i = 0; i < sizeof marches / sizeof *marches; ++i) {
        const clconv_problem m = shape(2, marches[i].w, CLCONV_COARSE);
        assert_int_equal(clconv_problem_defines(marches[i].dev, &m, d,
                                                sizeof d),
                         CLCONV_OK);
        assert_non_null(strstr(d, marches[i].march));
    }
    const clconv_problem c2 = shape(2, 9, CLCONV_COARSE),
                         c3 = shape(3, 5, CLCONV_COARSE);
    assert_int_equal(clconv_problem_defines(&gpu, &c2, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D MARCH=1"));
    /* XV, columns per work-item: for float32 on a GPU 4 at masks 7-9 (4
     * rows a work-item, 32 x 8 work-items, 32 x 4 at mask 9;
     * bench/PERF.md items 33, 69) and 1
     * otherwise; for narrow inputs on a GPU up to 8 at mask 3 (a tile of
     * 32), 4 at mask 5 (64) and 1 beyond, at most 8 bytes in and 16 out
     * per row; 1 for every type on a CPU (item 31). */
    assert_non_null(strstr(d, "-D XV=4"));
    assert_non_null(strstr(d, "-D COARSEN=4"));
    assert_non_null(strstr(d, "-D GROUP_Y=4"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=32"));
    const clconv_problem c7 = shape(2, 7, CLCONV_COARSE);
    assert_int_equal(clconv_problem_defines(&gpu, &c7, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=4"));
    assert_non_null(strstr(d, "-D COARSEN=4"));
    assert_non_null(strstr(d, "-D GROUP_Y=8"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=32"));
    assert_int_equal(clconv_problem_defines(&pocl, &c2, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=1"));
    clconv_problem f5 = shape(2, 5, CLCONV_COARSE);
    assert_int_equal(clconv_problem_defines(&gpu, &f5, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=1"));
    clconv_problem u8 = c2;
    u8.size[0] = 1024; /* a multiple of every XV */
    u8.in_dtype = u8.out_dtype = CLCONV_ELEM_U8;
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=1"));
    u8.mask_width = u8.mask_size[0] = u8.mask_size[1] = 5;
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=4"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=64"));
    u8.mask_width = u8.mask_size[0] = u8.mask_size[1] = 3;
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=8"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=32"));
    u8.out_dtype = CLCONV_ELEM_F32; /* at most 16 bytes out per row */
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=4"));
    u8.in_dtype = u8.out_dtype = CLCONV_ELEM_U16; /* 8 bytes in */
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=4"));
    assert_int_equal(clconv_problem_defines(&pocl, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=1"));
    /* Never more columns than divide the row: no row of vectors would be
     * aligned (every work-group on the checked path). */
    u8.in_dtype = u8.out_dtype = CLCONV_ELEM_U8;
    u8.size[0] = 1002; /* 2 x 501 */
    assert_int_equal(clconv_problem_defines(&gpu, &u8, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=2"));
    clconv_problem odd = c2;
    odd.size[0] = 1001;
    assert_int_equal(clconv_problem_defines(&gpu, &odd, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D XV=1"));
    assert_non_null(strstr(d, "-D COARSEN=16")); /* one column's rows */
    /* 3D: on a GPU 2 columns of 3 rows at masks 3-5 in 16 x 4
     * work-items where 2 divides the row, else one column (2 rows from
     * mask 4); one column on a CPU (bench/PERF.md item 53). */
    has_defines(&gpu, &c3, d, sizeof d,
                (const char *const[]){"-D XV=2", "-D ROWS=3",
                                      "-D TILE_WIDTH=16", NULL});
    assert_null(strstr(d, "MARCH"));
    has_defines(&pocl, &c3, d, sizeof d,
                (const char *const[]){"-D XV=1", NULL});
    clconv_problem c3w = shape(3, 7, CLCONV_COARSE), c3o = c3;
    c3o.size[0] = 63;
    has_defines(&gpu, &c3w, d, sizeof d,
                (const char *const[]){"-D XV=1", "-D ROWS=2", NULL});
    has_defines(&gpu, &c3o, d, sizeof d,
                (const char *const[]){"-D XV=1", "-D ROWS=2",
                                      "-D TILE_WIDTH=32", NULL});
    /* 1D coarse: on a GPU the queue up to 64 taps, beyond the window with
     * staged stores at 16 outputs a work-item; on a CPU the window
     * (bench/PERF.md item 39). */
    clconv_problem c1 = shape(1, 9, CLCONV_COARSE);
    assert_int_equal(clconv_problem_defines(&gpu, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D MARCH=1"));
    assert_non_null(strstr(d, "-D COARSEN=4"));
    assert_int_equal(clconv_problem_defines(&pocl, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D MARCH=2"));
    c1.mask_width = 101;
    assert_int_equal(clconv_problem_defines(&gpu, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D MARCH=3"));
    assert_non_null(strstr(d, "-D COARSEN=16"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=256"));
    assert_non_null(strstr(d, "-D SPANS=1"));
    /* from 55 taps the queue's work-groups take 8 spans of 32 work-items
     * of 12 outputs on a GPU (bench/PERF.md items 40, 69, 71) */
    c1.mask_width = 55;
    assert_int_equal(clconv_problem_defines(&gpu, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D MARCH=1"));
    assert_non_null(strstr(d, "-D SPANS=8"));
    assert_non_null(strstr(d, "-D TILE_WIDTH=32"));
    assert_non_null(strstr(d, "-D COARSEN=12"));
    c1.mask_width = 31; /* one span, 4 outputs, as before */
    assert_int_equal(clconv_problem_defines(&gpu, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D SPANS=1"));
    assert_non_null(strstr(d, "-D COARSEN=4"));
    c1.mask_width = 55;
    assert_int_equal(clconv_problem_defines(&pocl, &c1, d, sizeof d),
                     CLCONV_OK);
    assert_non_null(strstr(d, "-D SPANS=1"));
}

/* $CLCONV_COARSE_ROWS, $CLCONV_COARSE_MARCH, $CLCONV_COARSE_XV,
 * $CLCONV_VECTOR_PEEL, $CLCONV_VECTOR_PREFETCH, $CLCONV_SEP_COARSEN,
 * $CLCONV_SEP_TILE,
 * $CLCONV_SEP_GROUP_A, $CLCONV_SEP_FUSE and $CLCONV_SEP_FUSE_GEOM are read
 * when a session is made, and reported (a value out of range is
 * ignored);
 * the session builds for the device's OpenCL C version. */
static void measuring_overrides_are_read_once_per_session_and_reported(
    void **state)
{
    (void)state;
    clconv_device_list list;
    const clconv_device_info *dev = NULL;
    assert_int_equal(support_first_device(&list, &dev), 0);
    setenv("CLCONV_COARSE_ROWS", "2", 1);
    setenv("CLCONV_COARSE_MARCH", "2", 1);
    setenv("CLCONV_COARSE_XV", "8", 1);
    setenv("CLCONV_VECTOR_PEEL", "0", 1);
    setenv("CLCONV_VECTOR_PREFETCH", "2", 1);
    setenv("CLCONV_SEP_COARSEN", "16,8", 1);
    setenv("CLCONV_SEP_TILE", "64,256", 1);
    setenv("CLCONV_SEP_GROUP_A", "16", 1);
    setenv("CLCONV_SEP_FUSE", "0", 1);
    setenv("CLCONV_SEP_FUSE_GEOM", "8,3,255", 1);
    setenv("CLCONV_FMA_SHAPE", "4,64", 1);
    clconv_session *s = NULL;
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    unsetenv("CLCONV_COARSE_ROWS");
    unsetenv("CLCONV_FMA_SHAPE");
    assert_string_equal(clconv_session_overrides(s),
                        "CLCONV_COARSE_ROWS=2 CLCONV_VECTOR_PEEL=0 "
                        "CLCONV_VECTOR_PREFETCH=2 "
                        "CLCONV_COARSE_MARCH=2 CLCONV_COARSE_XV=8 "
                        "CLCONV_SEP_COARSEN=16,8 CLCONV_SEP_TILE=64,256 "
                        "CLCONV_SEP_GROUP_A=16 CLCONV_SEP_FUSE=0 "
                        "CLCONV_SEP_FUSE_GEOM=8,3,255 "
                        "CLCONV_FMA_SHAPE=4,64");
    assert_string_equal(clconv_session_overrides_ignored(s), "");
    clconv_session_destroy(s);
    setenv("CLCONV_COARSE_MARCH", "4", 1);
    setenv("CLCONV_COARSE_XV", "3", 1);
    setenv("CLCONV_VECTOR_PEEL", "2", 1);
    setenv("CLCONV_VECTOR_PREFETCH", "5", 1); /* beyond 4 */
    setenv("CLCONV_SEP_COARSEN", "0,8", 1);
    setenv("CLCONV_SEP_TILE", "96,128", 1); /* not a power of two */
    setenv("CLCONV_SEP_GROUP_A", "3", 1);     /* not a power of two */
    setenv("CLCONV_SEP_FUSE", "2", 1);
    setenv("CLCONV_SEP_FUSE_GEOM", "8,5,256", 1); /* 256 rows not in 5s */
    setenv("CLCONV_FMA_SHAPE", "65,256", 1);      /* beyond 64 chains */
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    unsetenv("CLCONV_FMA_SHAPE");
    unsetenv("CLCONV_COARSE_MARCH");
    unsetenv("CLCONV_COARSE_XV");
    unsetenv("CLCONV_VECTOR_PEEL");
    unsetenv("CLCONV_VECTOR_PREFETCH");
    unsetenv("CLCONV_SEP_COARSEN");
    unsetenv("CLCONV_SEP_FUSE");
    assert_string_equal(clconv_session_overrides(s), "");
    /* named, so that a measurement does not run the default unawares */
    assert_string_equal(clconv_session_overrides_ignored(s),
                        "CLCONV_VECTOR_PEEL=2 CLCONV_VECTOR_PREFETCH=5 "
                        "CLCONV_COARSE_MARCH=4 CLCONV_COARSE_XV=3 "
                        "CLCONV_SEP_COARSEN=0,8 CLCONV_SEP_TILE=96,128 "
                        "CLCONV_SEP_GROUP_A=3 CLCONV_SEP_FUSE=2 "
                        "CLCONV_SEP_FUSE_GEOM=8,5,256 "
                        "CLCONV_FMA_SHAPE=65,256");
    clconv_session_destroy(s);
    setenv("CLCONV_SEP_TILE", "128,2048", 1); /* beyond 1024 */
    setenv("CLCONV_SEP_GROUP_A", "64", 1);    /* beyond 32 */
    setenv("CLCONV_SEP_FUSE_GEOM", "9,8,256", 1); /* beyond 8 blocks */
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    unsetenv("CLCONV_SEP_TILE");
    unsetenv("CLCONV_SEP_GROUP_A");
    unsetenv("CLCONV_SEP_FUSE_GEOM");
    assert_string_equal(clconv_session_overrides(s), "");
    assert_true(strncmp(clconv_session_cl_std(s), "-cl-std=CL1.", 12) == 0 ||
                *clconv_session_cl_std(s) == '\0');
    clconv_session_destroy(s);
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    assert_string_equal(clconv_session_overrides(s), "");
    clconv_session_destroy(s);
    clconv_devices_free(&list);
}

/* On every device present: VEC_WIDTH 8 where PoCL runs a CPU whose native
 * float vector is 8 wide (AVX2), in 2D at any mask and in 3D up to mask 5
 * (its queue of two float16 blocks spilled there: bench/PERF.md items
 * 23, 66); 16 in 3D beyond, and 16 on every other device. */
static void vector_width_follows_the_native_float_width(void **state)
{
    (void)state;
    clconv_device_list list;
    assert_int_equal(clconv_devices_discover(&list), CLCONV_OK);
    for (size_t i = 0; i < list.count; ++i) {
        const clconv_device_info *dev = &list.devices[i];
        cl_uint native = 0;
        assert_int_equal(clGetDeviceInfo((cl_device_id)dev->opaque_device,
                                         CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
                                         sizeof native, &native, NULL),
                         CL_SUCCESS);
        const int avx2_pocl =
            dev->kind == CLCONV_DEVICE_CPU && native == 8 &&
            strstr(dev->platform, "Portable Computing Language") != NULL;
        static const struct {
            int dims, mask, eight; /* eight: 8 on such a device */
        } rows[] = {{2, 3, 1}, {2, 9, 1}, {3, 3, 1}, {3, 4, 1}, {3, 5, 1},
                    {3, 7, 0}};
        for (size_t r = 0; r < sizeof rows / sizeof *rows; ++r) {
            const clconv_problem p =
                shape(rows[r].dims, rows[r].mask, CLCONV_VECTOR);
            char d[512];
            has_defines(dev, &p, d, sizeof d,
                        (const char *const[]){avx2_pocl && rows[r].eight
                                                  ? "-D VEC_WIDTH=8"
                                                  : "-D VEC_WIDTH=16",
                                              NULL});
        }
        printf("  %s (native float %u): %s\n", dev->name, native,
               avx2_pocl ? "width 8 up to 3D mask 5" : "width 16");
    }
    clconv_devices_free(&list);
}

/* A copy of the kernels whose conv1d_naive.cl asks for twice the planned
 * work-group: planning it is CLCONV_EINTERNAL, never unsupported. */
static void a_kernel_compiled_for_another_work_group_is_an_internal_error(
    void **state)
{
    (void)state;
    const char *dir = NULL;
    assert_int_equal(clconv_kernel_dir(&dir), CLCONV_OK);
    char tmp[256], cmd[1024];
    snprintf(tmp, sizeof tmp, "/tmp/clconv-variants-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    snprintf(cmd, sizeof cmd,
             "cp '%s'/*.cl '%s'/*.clh '%s'/ && sed -i "
             "'s/reqd_work_group_size(TILE_WIDTH, 1, 1)/"
             "reqd_work_group_size(2 * TILE_WIDTH, 1, 1)/' '%s/conv1d_naive.cl'",
             dir, dir, tmp, tmp);
    assert_int_equal(system(cmd), 0);
    char *saved = strdup(dir);
    setenv("CLCONV_KERNEL_DIR", tmp, 1);

    clconv_device_list list;
    const clconv_device_info *dev = NULL;
    assert_int_equal(support_first_device(&list, &dev), 0);
    clconv_session *s = NULL;
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    clconv_problem p = shape(1, 3, CLCONV_NAIVE);
    p.tile = 8;
    p.mask_mode = CLCONV_MASK_ARGUMENT;
    clconv_plan *plan = NULL;
    assert_int_equal(clconv_plan_create(s, &p, &plan), CLCONV_EINTERNAL);
    assert_null(plan);
    assert_non_null(strstr(clconv_last_error(), "internal error"));
    assert_non_null(strstr(clconv_last_error(), "conv1d_naive"));
    clconv_session_destroy(s);
    clconv_devices_free(&list);
    setenv("CLCONV_KERNEL_DIR", saved, 1);
    free(saved);
    support_remove_tree(tmp);
}

int main(void)
{
    char cache[256];
    if (support_cache_home_create(cache, sizeof cache,
                                  "/tmp/clconv-test-variants-XXXXXX"))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            every_strategy_has_a_name_summary_and_kernels_for_dims_1_to_3),
        cmocka_unit_test(knobs_are_validated_where_they_are_read),
        cmocka_unit_test(knob_ranges_are_sane_and_defaults_lie_inside_them),
        cmocka_unit_test(default_tiles_fit_small_devices),
        cmocka_unit_test(vector_width_follows_the_native_float_width),
        cmocka_unit_test(an_explicit_tile_that_cannot_fit_is_unsupported),
        cmocka_unit_test(three_d_coarse_takes_one_along_z_where_two_do_not_fit),
        cmocka_unit_test(vector_blocks_default_depends_on_the_implementation),
        cmocka_unit_test(integer_conversions_by_bits_on_pocl_only),
        cmocka_unit_test(
            measuring_overrides_are_read_once_per_session_and_reported),
        cmocka_unit_test(
            a_kernel_compiled_for_another_work_group_is_an_internal_error),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    support_remove_tree(cache);
    return failed;
}
