/* The tuning file under concurrent and hand-made writes: several
 * processes saving at once keep every entry (the merge under flock), and
 * a checksummed entry whose knobs the planner refuses is skipped with its
 * reason while auto falls back to the default; another user's lock file
 * that this one may only read still locks. On the first device
 * $CLCONV_DEVICE selects, in a temporary XDG_CACHE_HOME. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_tune.h"
#include "support.h"

static char cache_home[256];
static clconv_device_list devices;
static const clconv_device_info *dev;

static int setup(void **state)
{
    (void)state;
    return support_cache_home_create(cache_home, sizeof cache_home,
                                     "/tmp/clconv-test-merge-XXXXXX") ||
                   support_first_device(&devices, &dev)
               ? -1
               : 0;
}

static int teardown(void **state)
{
    (void)state;
    support_remove_tree(cache_home);
    clconv_devices_free(&devices);
    return 0;
}

/* Each test starts without the device's tuning file. */
static int no_tuning_file(void **state)
{
    (void)state;
    char path[4200];
    return clconv_tune_path(dev, path, sizeof path) == CLCONV_OK &&
                   (unlink(path) == 0 || errno == ENOENT)
               ? 0
               : -1;
}

/* An entry of class (dims, mask 5, size class 20) for strategy s with its
 * real kernel hash. */
static clconv_tuning entry(clconv_strategy s, int dims, int tile,
                           int coarsen)
{
    clconv_tuning e;
    memset(&e, 0, sizeof e);
    e.dims = dims;
    e.mask_width = 5;
    e.size_class = 20;
    e.strategy = s;
    e.tile = tile;
    e.coarsen = coarsen;
    e.ms = 1.0;
    e.size[0] = dims == 1 ? (size_t)1 << 20 : 1024;
    e.size[1] = dims == 1 ? 1 : 1024;
    e.size[2] = 1;
    assert_int_equal(clconv_kernel_hash(s, dims, &e.kernel_hash), CLCONV_OK);
    return e;
}

/* Each of several processes saves, a few times, a table holding only its
 * own entry (another problem class each), all at once: every entry is in
 * the file afterwards. */
static void concurrent_saves_keep_every_entry(void **state)
{
    (void)state;
    enum { PROCS = 4, ROUNDS = 5 };
    clconv_tune_table t = {0};
    const clconv_tuning e0 = entry(CLCONV_OUTPUT_TILE, 2, 32, 0);
    pid_t pids[PROCS];
    for (int k = 0; k < PROCS; ++k) {
        pids[k] = fork();
        assert_true(pids[k] >= 0);
        if (pids[k] == 0) {
            clconv_tune_table mine = {0};
            clconv_tuning x = e0;
            x.size_class = 10 + k; /* a class of its own */
            x.ms = 1.0 + k;
            int bad = clconv_tune_put(&mine, &x) != CLCONV_OK;
            for (int r = 0; r < ROUNDS && !bad; ++r)
                bad = clconv_tune_save(dev, &mine) != CLCONV_OK;
            _exit(bad);
        }
    }
    for (int k = 0; k < PROCS; ++k) {
        int status = 0;
        assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, PROCS);
    for (int k = 0; k < PROCS; ++k) {
        int found = 0;
        for (size_t i = 0; i < t.count; ++i)
            found |= t.entries[i].size_class == 10 + k &&
                     t.entries[i].ms == 1.0 + k;
        assert_true(found);
    }
    clconv_tune_table_free(&t);
}

/* The lock file of another user, which this one may only read, in a
 * folder both may write (a cache a group shares): the save still takes
 * the lock, opened read-only, and the file keeps both users' entries (it
 * stopped at "cannot open ....lock: Permission denied", though the
 * tuning file itself could be replaced). The saving child becomes
 * nobody when run as root (root opens any file); else the lock is made
 * read-only. */
static void a_lock_file_this_user_may_only_read_still_serialises(
    void **state)
{
    (void)state;
    clconv_tune_table t = {0};
    clconv_tuning mine = entry(CLCONV_OUTPUT_TILE, 2, 32, 0);
    assert_int_equal(clconv_tune_put(&t, &mine), CLCONV_OK);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
    char path[4200], lock[4300], dir[512];
    assert_int_equal(clconv_tune_path(dev, path, sizeof path), CLCONV_OK);
    snprintf(lock, sizeof lock, "%s.lock", path);
    snprintf(dir, sizeof dir, "%s/clconv", cache_home);
    assert_int_equal(chmod(lock, 0444), 0);
    assert_int_equal(chmod(cache_home, 0711), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        clconv_tune_table theirs = {0};
        clconv_tuning x = mine;
        x.size_class = 11;
        if (clconv_tune_put(&theirs, &x) != CLCONV_OK)
            _exit(3);
        if (clconv_tune_save(dev, &theirs) != CLCONV_OK) {
            fprintf(stderr, "save: %s\n", clconv_last_error());
            _exit(1);
        }
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, 2);
    clconv_tune_table_free(&t);
    assert_int_equal(chmod(cache_home, 0700), 0);
}

/* A checksummed entry whose knobs the planner refuses is skipped with its
 * reason, and auto falls back to the default. */
static void entries_out_of_range_are_skipped_and_auto_uses_the_default(
    void **state)
{
    (void)state;
    clconv_tune_table t = {0};
    /* A 2D work-group of 4096^2, and a coarsening beyond any range. */
    const clconv_tuning bad[2] = {entry(CLCONV_OUTPUT_TILE, 2, 4096, 0),
                                  entry(CLCONV_COARSE, 1, 128, 999)};
    for (int k = 0; k < 2; ++k)
        assert_int_equal(clconv_tune_put(&t, &bad[k]), CLCONV_OK);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, 0);
    assert_int_equal(t.invalid, 2);
    assert_non_null(strstr(t.invalid_reason, ":5: "));
    clconv_tune_table_free(&t);
    clconv_problem p = support_problem(2, 1024, 1024, 1, 5, 1, CLCONV_NAIVE);
    int tuned = 1;
    assert_int_equal(clconv_auto_config(dev, &p, &tuned), CLCONV_OK);
    assert_int_equal(tuned, 0);
    assert_int_equal(clconv_problem_validate(&p), CLCONV_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(concurrent_saves_keep_every_entry,
                               no_tuning_file),
        cmocka_unit_test_setup(
            entries_out_of_range_are_skipped_and_auto_uses_the_default,
            no_tuning_file),
        cmocka_unit_test_setup(
            a_lock_file_this_user_may_only_read_still_serialises,
            no_tuning_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
