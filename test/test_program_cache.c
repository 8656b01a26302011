/* The program binary cache on disk: a second process (here: a second
 * session) builds from the cached binary; a corrupt, truncated or
 * misplaced entry is never trusted but rebuilt, and the result is still
 * verified correct; one of gigabytes is refused by its size, unread; CLCONV_NO_CACHE=1 neither reads nor writes;
 * CLCONV_BUILD_OPTIONS is part of the key; $CLCONV_CACHE_MAX_MB bounds
 * the folder, the least recently used entries going first. Runs on the first device that
 * $CLCONV_DEVICE selects (all: the first), in a temporary XDG_CACHE_HOME. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_io.h"
#include "support.h"
#include "../host/lib/internal.h"

static char cache_home[256];
static char programs[512];
static clconv_device_list devices;
static const clconv_device_info *dev;

/* The .bin entries in the programs folder: count, and the name of the
 * newest one not in `except` (may be NULL). */
static int entries(char *newest, size_t len, const char *except)
{
    int n = 0;
    DIR *d = opendir(programs);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".bin") != 0)
            continue;
        ++n;
        if (newest && (!except || strcmp(except, e->d_name) != 0))
            snprintf(newest, len, "%s", e->d_name);
    }
    closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    if (support_cache_home_create(cache_home, sizeof cache_home,
                                  "/tmp/clconv-test-cache-XXXXXX"))
        return -1;
    unsetenv("CLCONV_NO_CACHE");
    unsetenv("CLCONV_BUILD_OPTIONS");
    snprintf(programs, sizeof programs, "%s/clconv/programs", cache_home);
    return support_first_device(&devices, &dev);
}

static int teardown(void **state)
{
    (void)state;
    support_remove_tree(cache_home);
    clconv_devices_free(&devices);
    return 0;
}

/* Each test starts with an empty cache. */
static int empty_cache(void **state)
{
    (void)state;
    support_remove_tree(programs);
    unsetenv("CLCONV_NO_CACHE");
    unsetenv("CLCONV_BUILD_OPTIONS");
    unsetenv("CLCONV_CACHE_MAX_MB");
    return 0;
}

/* A fresh session (an empty in-process cache, as in a new process) runs
 * one verified problem; returns the cache's stats delta. */
static clc_program_disk_stats run_once(int mask_width)
{
    clc_program_disk_stats before, after;
    clc_program_disk_stats_get(&before);
    clconv_problem p =
        support_problem(2, 37, 29, 1, mask_width, 8, CLCONV_OUTPUT_TILE);
    clconv_session *s = NULL;
    clconv_dataset *data = NULL;
    clconv_result res;
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    assert_int_equal(clconv_dataset_create(&p, 11, &data), CLCONV_OK);
    clconv_status st = clconv_run_verified(s, &p, data, 0, 0, &res);
    if (st != CLCONV_OK)
        print_error("run: %s\n", res.reason);
    assert_int_equal(st, CLCONV_OK);
    assert_true(res.verdict.ok);
    clconv_dataset_destroy(data);
    clconv_session_destroy(s);
    clc_program_disk_stats_get(&after);
    clc_program_disk_stats d = after;
    d.hits -= before.hits;
    d.misses -= before.misses;
    d.rejected -= before.rejected;
    d.stored -= before.stored;
    d.evicted -= before.evicted;
    d.scans -= before.scans;
    return d;
}

static void second_build_of_the_same_program_comes_from_the_disk_cache(
    void **state)
{
    (void)state;
    clc_program_disk_stats a = run_once(5);
    assert_int_equal(a.misses, 1);
    assert_int_equal(a.stored, 1);
    assert_int_equal(a.hits, 0);
    assert_int_equal(entries(NULL, 0, NULL), 1);
    clc_program_disk_stats b = run_once(5);
    assert_int_equal(b.hits, 1);
    assert_int_equal(b.misses, 0);
    assert_int_equal(b.stored, 0);
    assert_int_equal(entries(NULL, 0, NULL), 1);
}

/* Rewrite the entry `name` with f applied to its bytes. */
static void damage(const char *name, void (*f)(char *data, size_t *n))
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", programs, name);
    char *data = NULL;
    size_t n = 0;
    assert_int_equal(
        clconv_file_read(path, 1u << 30, (unsigned char **)&data, &n),
        CLCONV_OK);
    f(data, &n);
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(data, 1, n, out), n);
    fclose(out);
    free(data);
}

static void flip_a_binary_byte(char *data, size_t *n) { data[*n - *n / 4] ^= 0x5a; }
static void truncate_half(char *data, size_t *n) { (void)data; *n /= 2; }
static void not_an_entry(char *data, size_t *n)
{
    memcpy(data, "hello, world", 12);
    *n = 12;
}

static void corrupt_entries_are_rebuilt_and_the_result_is_still_correct(
    void **state)
{
    (void)state;
    void (*damages[])(char *, size_t *) = {flip_a_binary_byte, truncate_half,
                                           not_an_entry};
    run_once(3);
    for (size_t k = 0; k < sizeof damages / sizeof damages[0]; ++k) {
        char name[256] = "";
        assert_int_equal(entries(name, sizeof name, NULL), 1);
        damage(name, damages[k]);
        clc_program_disk_stats d = run_once(3); /* asserts verification */
        assert_int_equal(d.rejected, 1);
        assert_int_equal(d.hits, 0);
        assert_int_equal(d.stored, 1); /* rebuilt and written again */
        clc_program_disk_stats again = run_once(3);
        assert_int_equal(again.hits, 1);
    }
}

/* The path of the one entry a run of mask 3 stores. */
static void the_entry_of_mask_3(char *path, size_t len)
{
    char name[256] = "";
    run_once(3);
    assert_int_equal(entries(name, sizeof name, NULL), 1);
    snprintf(path, len, "%s/%s", programs, name);
}

/* The damaged entry at path is rejected, rebuilt and written again as a
 * regular file of a binary's size, which the next run takes. */
static void rejected_then_stored_again(const char *path)
{
    alarm(60); /* a hang fails the test instead of the whole run */
    clc_program_disk_stats d = run_once(3);
    alarm(0);
    assert_int_equal(d.rejected, 1);
    assert_int_equal(d.stored, 1);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_true(st.st_size < (off_t)1 << 30);
    assert_int_equal(run_once(3).hits, 1);
}

/* An entry replaced by a FIFO (or another file that is not a regular
 * one): rejected without waiting for a writer, rebuilt, written again as
 * a regular file. A process used to block on it for ever. */
static void an_entry_that_is_a_fifo_is_rebuilt_without_blocking(void **state)
{
    (void)state;
    char path[1024];
    the_entry_of_mask_3(path, sizeof path);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    rejected_then_stored_again(path);
}

/* An entry grown to gigabytes (here a sparse 3 GiB file): refused by its
 * size, as the cache reads it (clc_read_regular, 1 GiB at most), without
 * reading a byte, so a child process with 256 MiB of address space to
 * spare gets "larger than" (the whole GiB was read first: out of memory
 * there, 14 s and 1.1 GB of memory on a 2-core machine without a limit);
 * the build then rejects it, rebuilds and stores a good entry. */
static void an_entry_of_gigabytes_is_refused_by_its_size_unread(void **state)
{
    (void)state;
    char path[1024];
    the_entry_of_mask_3(path, sizeof path);
    assert_int_equal(truncate(path, (off_t)3 << 30), 0);
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    assert_non_null(statm);
    assert_int_equal(fscanf(statm, "%ld", &pages), 1);
    fclose(statm);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const rlim_t spare = (rlim_t)256 << 20;
        struct rlimit lim = {(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
                                 spare,
                             RLIM_INFINITY};
        unsigned char *data = NULL;
        size_t n = 0;
        if (setrlimit(RLIMIT_AS, &lim) != 0)
            _exit(2);
        clconv_status st = clc_read_regular(path, (size_t)1 << 30, &data, &n);
        if (st != CLCONV_EINVAL || !strstr(clconv_last_error(), "larger than"))
            fprintf(stderr, "clc_read_regular: status %d: %s\n", (int)st,
                    clconv_last_error());
        _exit(st == CLCONV_EINVAL && !data &&
                      strstr(clconv_last_error(), "larger than")
                  ? 0
                  : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    rejected_then_stored_again(path);
}

/* The entry of mask 3 placed under the name of mask 5's entry: the driver
 * would accept it, but it is another program (a wrong MASK_WIDTH), and
 * the stored key says so. */
static void an_entry_of_another_program_is_not_trusted(void **state)
{
    (void)state;
    char a[256] = "", b[256] = "", pa[1024], pb[1024];
    run_once(3);
    assert_int_equal(entries(a, sizeof a, NULL), 1);
    run_once(5);
    assert_int_equal(entries(b, sizeof b, a), 2);
    assert_string_not_equal(a, b);
    snprintf(pa, sizeof pa, "%s/%s", programs, a);
    snprintf(pb, sizeof pb, "%s/%s", programs, b);
    assert_int_equal(rename(pa, pb), 0);
    clc_program_disk_stats d = run_once(5); /* still verifies */
    assert_int_equal(d.rejected, 1);
    assert_int_equal(d.hits, 0);
    clc_program_disk_stats last;
    clc_program_disk_stats_get(&last);
    assert_non_null(strstr(last.last_reject, "key"));
}

static void no_cache_env_neither_reads_nor_writes(void **state)
{
    (void)state;
    run_once(5);
    assert_int_equal(entries(NULL, 0, NULL), 1);
    setenv("CLCONV_NO_CACHE", "1", 1);
    clc_program_disk_stats d = run_once(5);
    assert_int_equal(d.hits + d.misses + d.rejected + d.stored, 0);
    support_remove_tree(programs);
    d = run_once(5);
    assert_int_equal(d.hits + d.misses + d.rejected + d.stored, 0);
    assert_int_equal(entries(NULL, 0, NULL), 0);
    setenv("CLCONV_NO_CACHE", "0", 1); /* "0" leaves it on */
    d = run_once(5);
    assert_int_equal(d.stored, 1);
}

static void build_options_env_is_appended_and_part_of_the_key(void **state)
{
    (void)state;
    run_once(5);
    assert_int_equal(entries(NULL, 0, NULL), 1);
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_EXTRA=1", 1);
    char *opts = clc_effective_options("-cl-std=CL1.2");
    assert_string_equal(opts, "-cl-std=CL1.2 -D CLCONV_TEST_EXTRA=1");
    free(opts);
    clc_program_disk_stats d = run_once(5);
    assert_int_equal(d.hits, 0); /* another key */
    assert_int_equal(d.stored, 1);
    assert_int_equal(entries(NULL, 0, NULL), 2);
    d = run_once(5);
    assert_int_equal(d.hits, 1);
}

/* programs/name's size in bytes (-1: absent), and setting its use time
 * (modification time) to `ago` seconds before now. */
static long long entry_size(const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", programs, name);
    return lstat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static void entry_age(const char *name, int ago)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", programs, name);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= ago;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static void write_file(const char *name, size_t bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", programs, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < bytes; ++i)
        fputc((int)(i & 0xff), f);
    assert_int_equal(fclose(f), 0);
}

static void least_recently_used_entries_are_evicted_first(void **state)
{
    (void)state;
    char path[1024];
    char dir[1024];
    assert_int_equal(clc_cache_dir("programs", 1, dir, sizeof dir), CLCONV_OK);
    assert_string_equal(dir, programs);
    /* Six entries of 200 KiB, e0 the oldest, 1200 KiB in all. */
    for (int i = 0; i < 6; ++i) {
        char name[32];
        snprintf(name, sizeof name, "e%d.bin", i);
        write_file(name, 200 * 1024);
        entry_age(name, 600 - 60 * i);
    }
    /* Not entries: another suffix, a symbolic link, a folder. */
    write_file("notes.txt", 2 * 1024 * 1024);
    snprintf(path, sizeof path, "%s/link.bin", programs);
    assert_int_equal(symlink("e5.bin", path), 0);
    snprintf(path, sizeof path, "%s/sub.bin", programs);
    assert_int_equal(mkdir(path, 0700), 0);
    /* No bound, or under it: nothing goes. */
    assert_int_equal(clc_cache_evict(programs, ".bin", 0, NULL), 0);
    assert_int_equal(clc_cache_evict(programs, ".bin", 1200 * 1024, NULL), 0);
    assert_int_equal(entries(NULL, 0, NULL), 8); /* 6, the link, the folder */
    /* Over 1 MiB: the oldest go until at most 0.9 MiB is left, e0 kept
     * as the entry just stored would be: e1 and e2. */
    assert_int_equal(clc_cache_evict(programs, ".bin", 1024 * 1024, "e0.bin"),
                     2);
    assert_true(entry_size("e0.bin") == 200 * 1024);
    assert_true(entry_size("e1.bin") < 0);
    assert_true(entry_size("e2.bin") < 0);
    for (int i = 3; i < 6; ++i) {
        char name[32];
        snprintf(name, sizeof name, "e%d.bin", i);
        assert_true(entry_size(name) == 200 * 1024);
    }
    assert_true(entry_size("notes.txt") == 2 * 1024 * 1024);
    assert_true(entry_size("link.bin") > 0);
    assert_true(entry_size("sub.bin") > 0);
    /* Without `keep`, the oldest left (e0) goes first. */
    assert_int_equal(clc_cache_evict(programs, ".bin", 600 * 1024, NULL), 2);
    assert_true(entry_size("e0.bin") < 0);
    assert_true(entry_size("e3.bin") < 0);
    assert_true(entry_size("e5.bin") == 200 * 1024);
}

/* Builds of one program, told apart by CLCONV_BUILD_OPTIONS (so their
 * entries are of one size), under a bound of two and a half entries: the
 * third store evicts the entry used least recently, which is the one
 * built second once the first was used again. */
static void the_bound_holds_and_a_hit_keeps_an_entry(void **state)
{
    (void)state;
    char a[64] = "", b[64] = "";
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_ENTRY=1", 1);
    assert_int_equal(run_once(5).stored, 1);
    entries(a, sizeof a, NULL);
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_ENTRY=2", 1);
    assert_int_equal(run_once(5).stored, 1);
    entries(b, sizeof b, a);
    const long long size = entry_size(a) > entry_size(b) ? entry_size(a)
                                                         : entry_size(b);
    assert_true(size > 0);
    char mb[64];
    snprintf(mb, sizeof mb, "%.6f", 2.5 * (double)size / 1048576.0);
    setenv("CLCONV_CACHE_MAX_MB", mb, 1);
    entry_age(a, 7200);
    entry_age(b, 3600);
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_ENTRY=1", 1);
    clc_program_disk_stats d = run_once(5); /* a used: now the newest */
    assert_int_equal(d.hits, 1);
    assert_int_equal(d.evicted, 0);
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_ENTRY=3", 1);
    d = run_once(5);
    assert_int_equal(d.stored, 1);
    assert_int_equal(d.evicted, 1);
    assert_int_equal(entries(NULL, 0, NULL), 2);
    assert_true(entry_size(a) > 0);
    assert_true(entry_size(b) < 0);
    /* An unreadable bound is the default one (far above these). */
    setenv("CLCONV_CACHE_MAX_MB", "lots", 1);
    setenv("CLCONV_BUILD_OPTIONS", "-D CLCONV_TEST_ENTRY=4", 1);
    d = run_once(5);
    assert_int_equal(d.evicted, 0);
    assert_int_equal(entries(NULL, 0, NULL), 3);
}

/* Under a bound far above what is stored (1000 MiB: a hundredth is 10
 * MiB, some 90 entries), four stores add the folder up once at most (this
 * thread's first store), not after each (a scan stats every entry: 0.28 s
 * with 16000 of them); under a bound below one entry, every store adds it
 * up and keeps the bound. */
static void the_folder_is_added_up_per_hundredth_of_the_bound_stored(
    void **state)
{
    (void)state;
    setenv("CLCONV_CACHE_MAX_MB", "1000", 1);
    unsigned long scans = 0, stored = 0;
    /* Programs of their own through CLCONV_BUILD_OPTIONS, each one store
     * on every implementation (mask widths are not: under Oclgrind a run
     * at 7 or 9 stored another program than its kernel, and the run at 9
     * found it: 3 stores of 4). */
    char opts[64];
    for (int i = 1; i <= 4; ++i) {
        snprintf(opts, sizeof opts, "-D CLCONV_TEST_SCAN=%d", i);
        setenv("CLCONV_BUILD_OPTIONS", opts, 1);
        const clc_program_disk_stats d = run_once(3);
        scans += d.scans;
        stored += d.stored;
    }
    assert_int_equal(stored, 4);
    assert_in_range(scans, 0, 1);
    assert_int_equal(entries(NULL, 0, NULL), 4);
    setenv("CLCONV_CACHE_MAX_MB", "0.01", 1);
    for (int i = 5; i <= 6; ++i) {
        snprintf(opts, sizeof opts, "-D CLCONV_TEST_SCAN=%d", i);
        setenv("CLCONV_BUILD_OPTIONS", opts, 1);
        const clc_program_disk_stats d = run_once(3);
        assert_int_equal(d.scans, 1);
        assert_int_equal(entries(NULL, 0, NULL), 1); /* the new one */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(
            second_build_of_the_same_program_comes_from_the_disk_cache,
            empty_cache),
        cmocka_unit_test_setup(
            corrupt_entries_are_rebuilt_and_the_result_is_still_correct,
            empty_cache),
        cmocka_unit_test_setup(
            an_entry_of_gigabytes_is_refused_by_its_size_unread, empty_cache),
        cmocka_unit_test_setup(an_entry_of_another_program_is_not_trusted,
                               empty_cache),
        cmocka_unit_test_setup(
            an_entry_that_is_a_fifo_is_rebuilt_without_blocking, empty_cache),
        cmocka_unit_test_setup(no_cache_env_neither_reads_nor_writes,
                               empty_cache),
        cmocka_unit_test_setup(
            build_options_env_is_appended_and_part_of_the_key, empty_cache),
        cmocka_unit_test_setup(least_recently_used_entries_are_evicted_first,
                               empty_cache),
        cmocka_unit_test_setup(the_bound_holds_and_a_hit_keeps_an_entry,
                               empty_cache),
        cmocka_unit_test_setup(
            the_folder_is_added_up_per_hundredth_of_the_bound_stored,
            empty_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
