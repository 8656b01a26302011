/* clconv model: every number of the notes' tables and worked examples, and
 * the model's closed forms against a brute-force count of what each
 * kernel's loops load.
 *
 * The notes print values rounded to their last digit, not always in the
 * same way (4.848 is printed 4.9, 19.753 is printed 19.7, 37.9 % is printed
 * 37 %), so a printed value is asserted to within one unit of its last
 * digit; values the notes print exactly are asserted exactly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clconv_model.h"
#include "support.h"

static void assert_near(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol)) {
        print_error("%s: got %.6f, notes say %.6g (tolerance %g)\n", what, got,
                    want, tol);
        fail();
    }
}

/* ---- the 1D worked examples ------------------------------------------- */

static void model_reproduces_the_notes_1d_interior_example(void **state)
{
    (void)state;
    clconv_model_interior m;
    clconv_problem p = support_problem(1, 1, 1, 1, 5, 8, CLCONV_OUTPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    /* "each block loads 8 + (5 - 1) = 12 elements" */
    assert_int_equal(m.counts.global_loads, 12);
    /* "1 + 2 + 3 + 4 + 5 * (8-5+1) + 4 + 3 + 2 + 1 = 40" */
    assert_int_equal(m.counts.accesses, 1 + 2 + 3 + 4 + 5 * (8 - 5 + 1) + 4 +
                                            3 + 2 + 1);
    assert_int_equal(m.counts.accesses, 8 * 5);
    /* "a bandwidth reduction of 40/12 = 3.3" */
    assert_near(m.counts.reduction, 3.3, 0.05, "1D T8 W5 reduction");
    assert_near(m.counts.reduction, 40.0 / 12.0, 1e-12, "exact 40/12");
    assert_near(clconv_model_interior_reduction(1, 8, 5), 40.0 / 12.0, 1e-12,
                "interior_reduction(1, 8, 5)");
    /* input_tile loads the same 12 with 12 work-items, 8 of which compute */
    p.strategy = CLCONV_INPUT_TILE;
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    assert_int_equal(m.counts.global_loads, 12);
    assert_int_equal(m.group_size, 12);
    assert_int_equal(m.computing_items, 8);
}

static void model_reproduces_the_notes_1d_boundary_example(void **state)
{
    (void)state;
    /* Block 0 of a long array: TILE 8, MASK 5. */
    clconv_problem p = support_problem(1, 64, 1, 1, 5, 8, CLCONV_OUTPUT_TILE);
    const size_t block[3] = {0, 0, 0};
    clconv_model_counts c;
    assert_int_equal(clconv_model_block(&p, block, &c), CLCONV_OK);
    /* "we load TILE_WIDTH + (MASK_WIDTH-1)/2 elements: 10" */
    assert_int_equal(c.global_loads, 8 + (5 - 1) / 2);
    assert_int_equal(c.global_loads, 10);
    /* "Total accesses is 6*5 + 4 + 3 = 37" */
    assert_int_equal(c.accesses, 6 * 5 + 4 + 3);
    /* "The reduction is 37/10 = 3.7" */
    assert_near(c.reduction, 3.7, 1e-12, "1D boundary reduction");
    /* the two ghost cells are zeros, not loads */
    assert_int_equal(c.ghost_cells, 2);
}

/* ---- the 2D worked examples ------------------------------------------- */

static void model_reproduces_the_notes_2d_interior_example(void **state)
{
    (void)state;
    clconv_model_interior m;
    clconv_problem p = support_problem(2, 1, 1, 1, 5, 8, CLCONV_OUTPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    /* "(8+5-1)^2 = 144 reads", "8 x 8 x 25 = 1,600", "1,600/144 = 11.1" */
    assert_int_equal(m.counts.global_loads, 144);
    assert_int_equal(m.counts.accesses, 1600);
    assert_near(m.counts.reduction, 11.1, 0.05, "2D T8 W5 reduction");
}

static void model_answers_the_notes_2d_boundary_block_exercise(void **state)
{
    (void)state;
    /* 5x5 mask, 16x16 output tiles, 32x32 image, strategy 1, block (0,0) */
    clconv_problem p = support_problem(2, 32, 32, 1, 5, 16, CLCONV_OUTPUT_TILE);
    const size_t block[3] = {0, 0, 0};
    clconv_model_counts c;
    assert_int_equal(clconv_model_block(&p, block, &c), CLCONV_OK);
    /* row 0: 9 + 12 + 15*14; row 1: 12 + 16 + 20*14;
     * other 14 rows: 15 + 20 + 25*14 */
    const long long accesses = (9 + 12 + 15 * 14) + (12 + 16 + 20 * 14) +
                               14 * (15 + 20 + 25 * 14);
    assert_int_equal(c.accesses, accesses);
    /* "input elements to be used in the calculation: 18 * 18" */
    assert_int_equal(c.global_loads, 18 * 18);
    assert_near(c.reduction, (double)accesses / (18.0 * 18.0), 1e-12,
                "2D boundary block reduction");
    assert_near(c.reduction, 18.30, 0.005, "5929 / 324");
}

/* ---- the reduction tables --------------------------------------------- */

static void interior_reduction_reproduces_the_notes_1d_table(void **state)
{
    (void)state;
    static const int tiles[5] = {16, 32, 64, 128, 256};
    static const double mask5[5] = {4.0, 4.4, 4.7, 4.9, 4.9};
    static const double mask9[5] = {6.0, 7.2, 8.0, 8.5, 8.7};
    for (int i = 0; i < 5; ++i) {
        assert_near(clconv_model_interior_reduction(1, tiles[i], 5), mask5[i],
                    0.1, "1D table, mask 5");
        assert_near(clconv_model_interior_reduction(1, tiles[i], 9), mask9[i],
                    0.1, "1D table, mask 9");
    }
    /* printed exactly by the notes */
    assert_near(clconv_model_interior_reduction(1, 16, 5), 4.0, 1e-12, "16/5");
    assert_near(clconv_model_interior_reduction(1, 16, 9), 6.0, 1e-12, "16/9");
    assert_near(clconv_model_interior_reduction(1, 32, 9), 7.2, 1e-12, "32/9");
    assert_near(clconv_model_interior_reduction(1, 64, 9), 8.0, 1e-12, "64/9");
}

static void interior_reduction_reproduces_the_notes_2d_table(void **state)
{
    (void)state;
    static const int tiles[4] = {8, 16, 32, 64};
    static const double mask5[4] = {11.1, 16, 19.7, 22.1};
    static const double mask9[4] = {20.3, 36, 51.8, 64};
    for (int i = 0; i < 4; ++i) {
        assert_near(clconv_model_interior_reduction(2, tiles[i], 5), mask5[i],
                    0.1, "2D table, mask 5");
        assert_near(clconv_model_interior_reduction(2, tiles[i], 9), mask9[i],
                    0.1, "2D table, mask 9");
    }
    assert_near(clconv_model_interior_reduction(2, 16, 5), 16.0, 1e-12, "16/5");
    assert_near(clconv_model_interior_reduction(2, 16, 9), 36.0, 1e-12, "16/9");
    assert_near(clconv_model_interior_reduction(2, 64, 9), 64.0, 1e-12, "64/9");
    assert_near(clconv_model_interior_reduction(2, 8, 9), 20.25, 1e-12, "8/9");
}

/* ---- bytes per FLOP and percent of peak ------------------------------- */

static void untiled_kernel_reaches_the_notes_percent_of_peak(void **state)
{
    (void)state;
    clconv_model_roof r;
    /* ~2010: "150 GB/s / 2 B/FLOP = 75 GFLOP/s = 7.50% of peak" */
    clconv_model_roof_of(1.0, 1000.0, 150.0, &r);
    assert_near(r.bytes_per_flop, 2.0, 1e-12, "untiled B/FLOP");
    assert_near(r.bandwidth_gflops, 75.0, 1e-12, "2010 GFLOP/s");
    assert_near(r.percent_of_peak, 7.50, 1e-12, "2010 percent");
    assert_near(clconv_model_reuse_needed(1000.0, 150.0), 13.3, 0.05,
                "2010 reuse");
    /* 2020, GRID K520: 96 GFLOP/s = 1.92 %, 52.1x reuse */
    clconv_model_roof_of(1.0, 5000.0, 192.0, &r);
    assert_near(r.bandwidth_gflops, 96.0, 1e-12, "2020 GFLOP/s");
    assert_near(r.percent_of_peak, 1.92, 1e-12, "2020 percent");
    assert_near(clconv_model_reuse_needed(5000.0, 192.0), 52.1, 0.05,
                "2020 reuse");
    /* H100 PCIe: 26 TFLOP/s, 2 TB/s: 1 TFLOP/s = 3.85 %, 25.97x (the notes
     * divide by the rounded 3.85; the unrounded need is 26.0x) */
    clconv_model_roof_of(1.0, 26000.0, 2000.0, &r);
    assert_near(r.bandwidth_gflops, 1000.0, 1e-9, "H100 GFLOP/s");
    assert_near(r.percent_of_peak, 3.85, 0.005, "H100 percent");
    assert_near(clconv_model_reuse_needed(26000.0, 2000.0), 25.97, 0.05,
                "H100 reuse");
}

typedef struct peak_row {
    int mask;
    double pct2010, pct2020; /* as the notes print them; 100: capped */
} peak_row;

static void check_peak_table(int dims, int tile, const peak_row *rows,
                             int nrows)
{
    for (int i = 0; i < nrows; ++i) {
        const double red =
            clconv_model_interior_reduction(dims, tile, rows[i].mask);
        clconv_model_roof a, b;
        clconv_model_roof_of(red, 1000.0, 150.0, &a);
        clconv_model_roof_of(red, 5000.0, 192.0, &b);
        const clconv_model_roof *r[2] = {&a, &b};
        const double want[2] = {rows[i].pct2010, rows[i].pct2020};
        for (int g = 0; g < 2; ++g) {
            char what[96];
            snprintf(what, sizeof what, "%dD tile %d mask %d, %s GPU", dims,
                     tile, rows[i].mask, g ? "~2020" : "~2010");
            if (want[g] == 100.0) {
                assert_true(r[g]->percent_of_peak >= 100.0);
                assert_near(r[g]->reachable_percent, 100.0, 0.0, what);
            } else {
                assert_true(r[g]->percent_of_peak < 100.0);
                assert_near(r[g]->reachable_percent, want[g], 1.0, what);
            }
        }
    }
}

static void percent_of_peak_reproduces_the_notes_1d_table(void **state)
{
    (void)state;
    /* 1D, TILE_WIDTH 1024 */
    static const peak_row rows[] = {
        {5, 37, 9.6}, {9, 67, 17}, {15, 100, 28}, {55, 100, 100}};
    check_peak_table(1, 1024, rows, 4);
    /* the one-decimal entry: 9.6 % */
    clconv_model_roof r;
    clconv_model_roof_of(clconv_model_interior_reduction(1, 1024, 5), 5000.0,
                         192.0, &r);
    assert_near(r.percent_of_peak, 9.6, 0.05, "1D mask 5, ~2020");
}

static void percent_of_peak_reproduces_the_notes_2d_table(void **state)
{
    (void)state;
    /* 2D, 32x32 tiles; mask 9 on the ~2020 GPU is "almost 100%" */
    static const peak_row rows[] = {
        {3, 60, 15}, {5, 100, 37}, {7, 100, 67}, {9, 100, 99.5}};
    check_peak_table(2, 32, rows, 4);
    clconv_model_roof r;
    clconv_model_roof_of(clconv_model_interior_reduction(2, 32, 9), 5000.0,
                         192.0, &r);
    assert_true(r.percent_of_peak >= 99.0 && r.percent_of_peak < 100.0);
}

/* ---- work-items and warps --------------------------------------------- */

static void input_tile_warps_match_the_notes_16x16_block_examples(void **state)
{
    (void)state;
    clconv_model_interior m;
    /* 16x16 blocks, 5x5 mask: TILE 12, 144 threads compute; of 8 warps,
     * 6 have 24 active threads and warps 6 and 7 do nothing */
    clconv_problem p = support_problem(2, 1, 1, 1, 5, 16 - 5 + 1, CLCONV_INPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    assert_int_equal(m.group_size, 256);
    assert_int_equal(m.computing_items, 144);
    assert_int_equal(m.warps, 8);
    assert_int_equal(m.active_warps, 6);
    assert_int_equal(m.idle_warps, 2);
    assert_int_equal(m.active_items_per_warp_max, 24);
    /* 9x9 mask: TILE 8, 64 threads, "4 warps are active (with 16 active
     * threads each)" */
    p = support_problem(2, 1, 1, 1, 9, 16 - 9 + 1, CLCONV_INPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    assert_int_equal(m.computing_items, 64);
    assert_int_equal(m.active_warps, 4);
    assert_int_equal(m.active_items_per_warp_max, 16);
}

static void output_tile_matches_the_notes_16x16_block_with_mask_9(void **state)
{
    (void)state;
    clconv_model_interior m;
    clconv_problem p = support_problem(2, 1, 1, 1, 9, 16, CLCONV_OUTPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    /* "an input tile of 16 + 9 - 1 = 24", "up to three loads per thread",
     * "all threads are active", "a 24x24 input tile requires 2.25 kB" */
    assert_int_equal(m.counts.tile_loads, 24 * 24);
    assert_int_equal(m.max_loads_per_item, 3);
    assert_int_equal(m.active_warps, 8);
    assert_int_equal(m.idle_warps, 0);
    assert_int_equal(m.divergent_warps, 0);
    assert_int_equal(m.local_bytes, 2304); /* 2.25 * 1024 */
}

static void input_tile_divergence_matches_the_notes_30x30_exercise(void **state)
{
    (void)state;
    clconv_model_interior m;
    /* 30x30 output tiles, 3x3 mask: 32x32 blocks; warps 0 and 31 do not
     * compute, warps 1-30 have 30 computing threads and 2 idle: "only 2
     * warps do not have control divergence" */
    clconv_problem p = support_problem(2, 1, 1, 1, 3, 30, CLCONV_INPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_OK);
    assert_int_equal(m.group_size, 32 * 32);
    assert_int_equal(m.warps, 32);
    assert_int_equal(m.idle_warps, 2);
    assert_int_equal(m.divergent_warps, 30);
    assert_int_equal(m.warps - m.divergent_warps, 2);
    assert_int_equal(m.active_items_per_warp_max, 30);
}

/* ---- the closed forms against a brute-force count of the kernels ------- */

typedef struct brute {
    long long outputs, accesses, global, tile, halo, ghosts, local;
} brute;

static int inside(const long long k[3], const long long n[3], int dims)
{
    for (int d = 0; d < dims; ++d)
        if (k[d] < 0 || k[d] >= n[d])
            return 0;
    return 1;
}

/* What the kernels of cl/ do in block b, element by element. */
static void brute_block(const clconv_problem *p, const long long b[3],
                        brute *o)
{
    const int dims = p->dims, t = p->tile, w = p->mask_width, r = w / 2;
    const long long n[3] = {(long long)p->size[0], (long long)p->size[1],
                            (long long)p->size[2]};
    long long ext[3] = {1, 1, 1}, win[3] = {1, 1, 1};
    for (int d = 0; d < dims; ++d) {
        ext[d] = t;
        win[d] = w;
    }
    memset(o, 0, sizeof *o);
    const long long in_w = t + w - 1;
    long long iw[3] = {1, 1, 1};
    for (int d = 0; d < dims; ++d)
        iw[d] = in_w;
    /* input-tile loads: output_tile and input_tile */
    for (long long z = 0; z < iw[2]; ++z)
        for (long long y = 0; y < iw[1]; ++y)
            for (long long x = 0; x < iw[0]; ++x) {
                const long long l[3] = {x, y, z};
                long long g[3] = {0, 0, 0};
                for (int d = 0; d < dims; ++d)
                    g[d] = b[d] * t - r + l[d];
                if (inside(g, n, dims))
                    ++o->tile;
                else
                    ++o->ghosts;
            }
    for (long long z = 0; z < ext[2]; ++z)
        for (long long y = 0; y < ext[1]; ++y)
            for (long long x = 0; x < ext[0]; ++x) {
                const long long l[3] = {x, y, z};
                long long i[3] = {0, 0, 0};
                for (int d = 0; d < dims; ++d)
                    i[d] = b[d] * t + l[d];
                if (!inside(i, n, dims))
                    continue;
                ++o->outputs;
                for (long long jz = 0; jz < win[2]; ++jz)
                    for (long long jy = 0; jy < win[1]; ++jy)
                        for (long long jx = 0; jx < win[0]; ++jx) {
                            const long long j[3] = {jx, jy, jz};
                            long long k[3] = {0, 0, 0};
                            int core = 1;
                            for (int d = 0; d < dims; ++d) {
                                k[d] = i[d] - r + j[d];
                                if (k[d] < b[d] * t || k[d] >= b[d] * t + t)
                                    core = 0;
                            }
                            if (!inside(k, n, dims))
                                continue;
                            ++o->accesses;
                            if (core)
                                ++o->local;
                            else
                                ++o->halo;
                        }
            }
}

static void model_counts_equal_a_brute_force_count_of_the_kernels(void **state)
{
    (void)state;
    static const size_t sizes[3][3] = {{13, 1, 1}, {11, 6, 1}, {7, 5, 6}};
    static const int tiles[3] = {1, 3, 4};
    int cases = 0;
    for (int dims = 1; dims <= 3; ++dims)
        for (int w = 1; w <= 9; w += 2)
            for (int ti = 0; ti < 3; ++ti)
                for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
                    if (!clconv_model_has_strategy((clconv_strategy)s))
                        continue;
                    clconv_problem p =
                        support_problem(dims, sizes[dims - 1][0], sizes[dims - 1][1],
                              sizes[dims - 1][2], w, tiles[ti],
                              (clconv_strategy)s);
                    size_t grid[3];
                    clconv_model_grid(&p, grid);
                    clconv_model_counts total;
                    assert_int_equal(clconv_model_problem(&p, &total),
                                     CLCONV_OK);
                    long long sum_global = 0, sum_acc = 0, sum_local = 0,
                              sum_ghost = 0, tiles_seen = 0;
                    for (size_t bz = 0; bz < grid[2]; ++bz)
                        for (size_t by = 0; by < grid[1]; ++by)
                            for (size_t bx = 0; bx < grid[0]; ++bx) {
                                const size_t blk[3] = {bx, by, bz};
                                const long long bb[3] = {(long long)bx,
                                                         (long long)by,
                                                         (long long)bz};
                                brute br;
                                brute_block(&p, bb, &br);
                                clconv_model_counts c;
                                assert_int_equal(
                                    clconv_model_block(&p, blk, &c),
                                    CLCONV_OK);
                                long long g = br.accesses, l = 0, gh = 0;
                                if (s == CLCONV_OUTPUT_TILE ||
                                    s == CLCONV_INPUT_TILE) {
                                    g = br.tile;
                                    l = br.outputs * (dims == 1   ? w
                                                      : dims == 2 ? w * w
                                                                  : w * w * w);
                                    gh = br.ghosts;
                                } else if (s == CLCONV_CACHED_HALO) {
                                    g = br.outputs + br.halo;
                                    l = br.local;
                                }
                                assert_int_equal(c.outputs, br.outputs);
                                assert_int_equal(c.accesses, br.accesses);
                                assert_int_equal(c.global_loads, g);
                                assert_int_equal(c.local_reads, l);
                                assert_int_equal(c.ghost_cells, gh);
                                sum_global += g;
                                sum_acc += br.accesses;
                                sum_local += l;
                                sum_ghost += gh;
                                ++tiles_seen;
                            }
                    assert_int_equal(total.tiles, tiles_seen);
                    assert_int_equal(total.global_loads, sum_global);
                    assert_int_equal(total.accesses, sum_acc);
                    assert_int_equal(total.local_reads, sum_local);
                    assert_int_equal(total.ghost_cells, sum_ghost);
                    ++cases;
                }
    assert_int_equal(cases, 3 * 5 * 3 * 4);
}

static void tile_kinds_add_up_to_the_whole_problem(void **state)
{
    (void)state;
    clconv_problem p = support_problem(3, 20, 9, 13, 7, 4, CLCONV_CACHED_HALO);
    clconv_model_kind kinds[512];
    size_t n = 0;
    assert_int_equal(clconv_model_tile_kinds(&p, kinds, 512, &n), CLCONV_OK);
    clconv_model_counts total;
    assert_int_equal(clconv_model_problem(&p, &total), CLCONV_OK);
    long long tiles = 0, global = 0, acc = 0;
    for (size_t k = 0; k < n; ++k) {
        clconv_model_counts one;
        assert_int_equal(clconv_model_block(&p, kinds[k].first, &one),
                         CLCONV_OK);
        assert_int_equal(one.global_loads, kinds[k].counts.global_loads);
        tiles += kinds[k].counts.tiles;
        global += kinds[k].counts.tiles * kinds[k].counts.global_loads;
        acc += kinds[k].counts.tiles * kinds[k].counts.accesses;
    }
    assert_int_equal(tiles, 5 * 3 * 4);
    assert_int_equal(global, total.global_loads);
    assert_int_equal(acc, total.accesses);
    /* too little room is an error, with the number needed */
    size_t need = 0;
    assert_int_equal(clconv_model_tile_kinds(&p, kinds, 1, &need),
                     CLCONV_EUNSUPPORTED);
    assert_int_equal(need, n);
}

static void model_rejects_bad_masks_and_blocks_outside_the_grid(void **state)
{
    (void)state;
    clconv_model_interior m;
    clconv_model_counts c;
    clconv_problem p = support_problem(2, 32, 32, 1, 0, 16, CLCONV_OUTPUT_TILE);
    assert_int_equal(clconv_model_interior_of(&p, 32, &m), CLCONV_EINVAL);
    p.mask_width = 4; /* even widths count too (issue 15) */
    assert_int_equal(clconv_model_problem(&p, &c), CLCONV_OK);
    p.origin[0] = 2; /* beyond (W-1)/2 */
    assert_int_equal(clconv_model_problem(&p, &c), CLCONV_EINVAL);
    p.origin[0] = 0;
    p.border = CLCONV_BORDER_REFLECT;
    p.mask_width = 4097; /* folded modes count tap by tap, up to 4096 */
    assert_int_equal(clconv_model_problem(&p, &c), CLCONV_EINVAL);
    p.border = CLCONV_BORDER_CONSTANT;
    p.mask_width = 5;
    assert_int_equal(clconv_model_interior_of(&p, 0, &m), CLCONV_EINVAL);
    const size_t outside[3] = {2, 0, 0};
    assert_int_equal(clconv_model_block(&p, outside, &c), CLCONV_EINVAL);
    p.dims = 4;
    assert_int_equal(clconv_model_problem(&p, &c), CLCONV_EINVAL);
    /* strategies outside the notes' four are refused, not guessed */
    p.dims = 2;
    for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
        p.strategy = (clconv_strategy)s;
        assert_int_equal(clconv_model_problem(&p, &c),
                         clconv_model_has_strategy(p.strategy)
                             ? CLCONV_OK
                             : CLCONV_EUNSUPPORTED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_reproduces_the_notes_1d_interior_example),
        cmocka_unit_test(model_reproduces_the_notes_1d_boundary_example),
        cmocka_unit_test(model_reproduces_the_notes_2d_interior_example),
        cmocka_unit_test(model_answers_the_notes_2d_boundary_block_exercise),
        cmocka_unit_test(interior_reduction_reproduces_the_notes_1d_table),
        cmocka_unit_test(interior_reduction_reproduces_the_notes_2d_table),
        cmocka_unit_test(untiled_kernel_reaches_the_notes_percent_of_peak),
        cmocka_unit_test(percent_of_peak_reproduces_the_notes_1d_table),
        cmocka_unit_test(percent_of_peak_reproduces_the_notes_2d_table),
        cmocka_unit_test(input_tile_warps_match_the_notes_16x16_block_examples),
        cmocka_unit_test(output_tile_matches_the_notes_16x16_block_with_mask_9),
        cmocka_unit_test(input_tile_divergence_matches_the_notes_30x30_exercise),
        cmocka_unit_test(model_counts_equal_a_brute_force_count_of_the_kernels),
        cmocka_unit_test(tile_kinds_add_up_to_the_whole_problem),
        cmocka_unit_test(model_rejects_bad_masks_and_blocks_outside_the_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
