/* clconv model at any size: the closed forms (interior tiles of a
 * dimension as one class, clipped tiles one by one) equal a per-tile loop
 * on many random small problems, sizes up to 2^40 answer at once with the
 * exact counts, and counts that overflow 64 bits are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "clconv_model.h"

static clconv_problem sized(int dims, const size_t n[3], int mask, int tile,
                            clconv_strategy s)
{
    clconv_problem p;
    memset(&p, 0, sizeof p);
    p.dims = dims;
    for (int d = 0; d < 3; ++d)
        p.size[d] = d < dims ? n[d] : 1;
    p.mask_width = mask;
    p.tile = tile;
    p.strategy = s;
    return p;
}

static const clconv_strategy modelled[4] = {
    CLCONV_NAIVE, CLCONV_OUTPUT_TILE, CLCONV_INPUT_TILE, CLCONV_CACHED_HALO};

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

typedef struct sums {
    unsigned long long f[8];
} sums;

static void add(sums *s, const clconv_model_counts *c, unsigned long long k)
{
    const unsigned long long v[8] = {c->tiles,       c->outputs,
                                     c->accesses,    c->tile_loads,
                                     c->halo_loads,  c->global_loads,
                                     c->ghost_cells, c->local_reads};
    for (int i = 0; i < 8; ++i)
        s->f[i] += (i == 0 ? 1 : v[i]) * k;
}

static void closed_forms_equal_the_per_tile_loop_on_random_problems(
    void **state)
{
    (void)state;
    uint64_t seed = 14;
    for (int c = 0; c < 600; ++c) {
        const int dims = 1 + (int)(next(&seed) % 3);
        size_t n[3];
        for (int d = 0; d < 3; ++d)
            n[d] = 1 + next(&seed) % (dims == 1 ? 200 : dims == 2 ? 40 : 15);
        const int mask = 1 + 2 * (int)(next(&seed) % 8);
        const int tile = 1 + (int)(next(&seed) % 9);
        clconv_problem p = sized(dims, n, mask, tile, modelled[c % 4]);
        size_t grid[3];
        clconv_model_grid(&p, grid);
        /* the per-tile loop */
        sums loop = {{0}};
        for (size_t bz = 0; bz < grid[2]; ++bz)
            for (size_t by = 0; by < grid[1]; ++by)
                for (size_t bx = 0; bx < grid[0]; ++bx) {
                    const size_t b[3] = {bx, by, bz};
                    clconv_model_counts one;
                    assert_int_equal(clconv_model_block(&p, b, &one),
                                     CLCONV_OK);
                    add(&loop, &one, 1);
                }
        /* the closed form, and the kinds it groups the tiles into */
        clconv_model_counts total;
        assert_int_equal(clconv_model_problem(&p, &total), CLCONV_OK);
        sums closed = {{0}}, kinds_sum = {{0}};
        add(&closed, &total, 1);
        closed.f[0] = total.tiles;
        static clconv_model_kind kinds[4096];
        size_t nk = 0;
        assert_int_equal(clconv_model_tile_kinds(&p, kinds, 4096, &nk),
                         CLCONV_OK);
        for (size_t k = 0; k < nk; ++k) {
            clconv_model_counts one;
            assert_int_equal(clconv_model_block(&p, kinds[k].first, &one),
                             CLCONV_OK);
            assert_int_equal(one.global_loads, kinds[k].counts.global_loads);
            assert_int_equal(one.local_reads, kinds[k].counts.local_reads);
            add(&kinds_sum, &kinds[k].counts, kinds[k].counts.tiles);
        }
        for (int i = 0; i < 8; ++i)
            if (loop.f[i] != closed.f[i] || loop.f[i] != kinds_sum.f[i])
                fail_msg("case %d (%dD %zux%zux%zu mask %d tile %d %s) field "
                         "%d: loop %llu, closed form %llu, kinds %llu",
                         c, dims, n[0], n[1], n[2], mask, tile,
                         clconv_strategy_name(p.strategy), i, loop.f[i],
                         closed.f[i], kinds_sum.f[i]);
    }
}

static void a_size_of_2_to_the_40_answers_at_once_with_exact_counts(
    void **state)
{
    (void)state;
    const unsigned long long n = 1ULL << 40;
    const size_t sz[3] = {(size_t)n, 3, 5};
    const clock_t start = clock();
    for (int s = 0; s < 4; ++s) {
        clconv_problem p = sized(1, sz, 5, 256, modelled[s]);
        clconv_model_counts c;
        assert_int_equal(clconv_model_problem(&p, &c), CLCONV_OK);
        assert_true(c.tiles == n / 256);
        assert_true(c.outputs == n);
        /* every output reads 5 taps but the 2 + 1 cut at each end */
        assert_true(c.accesses == 5 * n - 6);
        assert_true(c.global_loads > 0 && c.reduction > 1.0 - 1e-12);
        size_t nk = 0;
        clconv_model_kind kinds[16];
        assert_int_equal(clconv_model_tile_kinds(&p, kinds, 16, &nk),
                         CLCONV_OK);
        /* the first and last tiles (clipped alike), the interior ones */
        assert_int_equal(nk, 2);
        assert_true(kinds[0].counts.tiles == 2);
        assert_true(kinds[1].counts.tiles == n / 256 - 2);
        /* and in 3D, 2^40 x 3 x 5 */
        clconv_problem q = sized(3, sz, 3, 4, modelled[s]);
        assert_int_equal(clconv_model_problem(&q, &c), CLCONV_OK);
        assert_true(c.outputs == n * 15);
    }
    assert_true((double)(clock() - start) / CLOCKS_PER_SEC < 0.5);
}

static void counts_that_overflow_64_bits_are_refused(void **state)
{
    (void)state;
    const size_t big[3] = {(size_t)1 << 40, (size_t)1 << 40, (size_t)1 << 40};
    for (int dims = 2; dims <= 3; ++dims)
        for (int s = 0; s < 4; ++s) {
            clconv_problem p = sized(dims, big, 9, 16, modelled[s]);
            clconv_model_counts c;
            assert_int_equal(clconv_model_problem(&p, &c), CLCONV_EINVAL);
            assert_non_null(strstr(clconv_last_error(), "overflow 64 bits"));
            clconv_model_kind kinds[64];
            size_t nk = 0;
            assert_int_equal(clconv_model_tile_kinds(&p, kinds, 64, &nk),
                             CLCONV_EINVAL);
        }
    /* one past 2^40 is refused as before */
    const size_t over[3] = {((size_t)1 << 40) + 1, 1, 1};
    clconv_problem p = sized(1, over, 3, 16, CLCONV_NAIVE);
    clconv_model_counts c;
    assert_int_equal(clconv_model_problem(&p, &c), CLCONV_EINVAL);
    /* an interior tile whose counts overflow */
    const size_t one[3] = {1, 1, 1};
    clconv_problem q = sized(3, one, 1023, 65536, CLCONV_OUTPUT_TILE);
    clconv_model_interior m;
    assert_int_equal(clconv_model_interior_of(&q, 32, &m), CLCONV_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            closed_forms_equal_the_per_tile_loop_on_random_problems),
        cmocka_unit_test(
            a_size_of_2_to_the_40_answers_at_once_with_exact_counts),
        cmocka_unit_test(counts_that_overflow_64_bits_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
