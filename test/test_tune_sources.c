/* The tuning file against the kernel sources its entries were tuned with:
 * loading it again and again (every clconv_auto_config does: each call of
 * the Python package) reads each variant's sources once while they stay
 * as they were, and an edit of a source, even one within the second of
 * the last load, makes that variant's entries stale at the next load. On
 * the first device $CLCONV_DEVICE selects, in a temporary XDG_CACHE_HOME,
 * the second test in a copy of the kernel folder. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv.h"
#include "clconv_io.h"
#include "clconv_tune.h"
#include "support.h"
#include "../host/lib/internal.h"

static char cache_home[256];
static char kernels[256]; /* the copy of the kernel folder */
static char *kernel_env;  /* CLCONV_KERNEL_DIR as the test found it */
static clconv_device_list devices;
static const clconv_device_info *dev;

static int setup(void **state)
{
    (void)state;
    const char *env = getenv("CLCONV_KERNEL_DIR");
    kernel_env = env ? strdup(env) : NULL;
    snprintf(kernels, sizeof kernels, "/tmp/clconv-test-kernels-XXXXXX");
    return support_cache_home_create(cache_home, sizeof cache_home,
                                     "/tmp/clconv-test-sources-XXXXXX") ||
                   !mkdtemp(kernels) ||
                   support_first_device(&devices, &dev)
               ? -1
               : 0;
}

static int teardown(void **state)
{
    (void)state;
    support_remove_tree(cache_home);
    support_remove_tree(kernels);
    clconv_devices_free(&devices);
    free(kernel_env);
    return 0;
}

/* Each test starts without tuning files, on the kernel folder it found. */
static int fresh(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/clconv", cache_home);
    support_remove_tree(dir);
    if (kernel_env)
        setenv("CLCONV_KERNEL_DIR", kernel_env, 1);
    else
        unsetenv("CLCONV_KERNEL_DIR");
    return 0;
}

/* An entry of strategy s in dims, of size class c, with the hash of its
 * sources as they are now. */
static clconv_tuning entry(clconv_strategy s, int dims, int c)
{
    clconv_tuning e;
    memset(&e, 0, sizeof e);
    e.dims = dims;
    e.mask_width = 3;
    for (int a = 0; a < 3; ++a)
        e.mask_size[a] = a < dims ? 3 : 1;
    e.size_class = c;
    e.strategy = s;
    e.tile = dims == 1 ? 64 : 8;
    e.ms = 1.0;
    e.size[0] = dims == 1 ? (size_t)1 << c : (size_t)1 << (c / 2);
    e.size[1] = dims == 1 ? 1 : (size_t)1 << (c - c / 2);
    e.size[2] = 1;
    assert_int_equal(clconv_kernel_hash(s, dims, &e.kernel_hash), CLCONV_OK);
    return e;
}

/* Six size classes of 2D output_tile and one of 1D naive, saved. */
static void save_seven(void)
{
    clconv_tune_table t = {0};
    for (int c = 10; c < 16; ++c) {
        const clconv_tuning e = entry(CLCONV_OUTPUT_TILE, 2, c);
        assert_int_equal(clconv_tune_put(&t, &e), CLCONV_OK);
    }
    const clconv_tuning e = entry(CLCONV_NAIVE, 1, 12);
    assert_int_equal(clconv_tune_put(&t, &e), CLCONV_OK);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
}

/* Load the file: it holds `kept` entries and `stale` stale ones. */
static void load_expecting(size_t kept, size_t stale)
{
    clconv_tune_table t = {0};
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, kept);
    assert_int_equal(t.stale, stale);
    clconv_tune_table_free(&t);
}

/* Wait until the files of the kernel folder in use are more than a
 * second old (a source changed within the last second is hashed again on
 * every load). */
static void sources_settle(void)
{
    const char *dir = NULL;
    assert_int_equal(clconv_kernel_dir(&dir), CLCONV_OK);
    const char *names[3] = {"dtype.clh", "common.clh", "conv2d_output_tile.cl"};
    for (int k = 0; k < 3; ++k) {
        char path[4200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        assert_int_equal(stat(path, &sb), 0);
        while (time(NULL) <= sb.st_ctim.tv_sec + 1 ||
               time(NULL) <= sb.st_mtim.tv_sec + 1)
            sleep(1);
    }
}

/* Ten loads of seven entries of two variants: their sources are read at
 * most once each (they were read for every entry of every load: 70 times;
 * a small Python call with 8 tuned entries took 6.6x as long as with
 * none). */
static void loads_read_each_variants_sources_once(void **state)
{
    (void)state;
    sources_settle();
    save_seven();
    const unsigned long before = clc_kernel_hash_reads();
    for (int k = 0; k < 10; ++k)
        load_expecting(7, 0);
    assert_in_range(clc_kernel_hash_reads() - before, 0, 2);
}

/* Copy file name from the kernel folder in use into kernels. */
static void copy_source(const char *from_dir, const char *name)
{
    char from[4400], to[4400];
    snprintf(from, sizeof from, "%s/%s", from_dir, name);
    snprintf(to, sizeof to, "%s/%s", kernels, name);
    unsigned char *data = NULL;
    size_t n = 0;
    assert_int_equal(clconv_file_read(from, (size_t)64 << 20, &data, &n),
                     CLCONV_OK);
    assert_int_equal(clconv_file_write(to, data, n), CLCONV_OK);
    free(data);
}

/* Change one byte of kernels/name in place (its inode and size kept, as
 * an editor that writes in place leaves them), `from_end` bytes before its
 * end. */
static void edit_in_place(const char *name, off_t from_end)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", kernels, name);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    const off_t at = lseek(fd, -from_end, SEEK_END);
    unsigned char c = 0;
    assert_int_equal(pread(fd, &c, 1, at), 1);
    c ^= 0x01;
    assert_int_equal(pwrite(fd, &c, 1, at), 1);
    close(fd);
}

/* Replace kernels/name with a line appended (a new file, renamed over). */
static void append_a_line(const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", kernels, name);
    unsigned char *data = NULL;
    size_t n = 0;
    assert_int_equal(clconv_file_read(path, (size_t)64 << 20, &data, &n),
                     CLCONV_OK);
    unsigned char *more = realloc(data, n + 16);
    assert_non_null(more);
    data = more;
    memcpy(data + n, "// edited\n", 10);
    assert_int_equal(clconv_file_write(path, data, n + 10), CLCONV_OK);
    free(data);
}

/* In a copy of the kernel folder: an edit of common.clh of the same size
 * right after a load (within the times' resolution) makes every entry
 * stale, its undoing makes them current again; with the sources settled
 * and kept, an edit of output_tile's file makes its six entries stale
 * and leaves naive's. */
static void an_edited_source_makes_its_entries_stale_at_once(void **state)
{
    (void)state;
    const char *dir = NULL;
    assert_int_equal(clconv_kernel_dir(&dir), CLCONV_OK);
    char real[4096];
    snprintf(real, sizeof real, "%s", dir);
    DIR *d = opendir(real);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)))
        if (strstr(de->d_name, ".cl"))
            copy_source(real, de->d_name);
    closedir(d);
    setenv("CLCONV_KERNEL_DIR", kernels, 1);
    save_seven();
    load_expecting(7, 0);
    edit_in_place("common.clh", 2);
    load_expecting(0, 7);
    edit_in_place("common.clh", 2); /* undone */
    load_expecting(7, 0);
    sources_settle();
    load_expecting(7, 0);
    const unsigned long before = clc_kernel_hash_reads();
    load_expecting(7, 0);
    assert_int_equal(clc_kernel_hash_reads(), before); /* kept */
    append_a_line("conv2d_output_tile.cl");
    load_expecting(1, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(loads_read_each_variants_sources_once, fresh),
        cmocka_unit_test_setup(an_edited_source_makes_its_entries_stale_at_once,
                               fresh),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
