/* Tuning: problem classes, the per-device tuning file (path key, round
 * trip, corrupt/stale files ignored with a reason, entries whose kernel
 * changed dropped), clconv_auto_config(), and a real 5-second tune on the
 * first device $CLCONV_DEVICE selects that ends in a verified choice. In a
 * temporary XDG_CACHE_HOME. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "clconv.h"
#include "support.h"
#include "clconv_tune.h"

static char cache_home[256];
static clconv_device_list devices;
static const clconv_device_info *dev;

static int setup(void **state)
{
    (void)state;
    if (support_cache_home_create(cache_home, sizeof cache_home,
                                  "/tmp/clconv-test-tune-XXXXXX"))
        return -1;
    /* Determinism: every build from source. */
    setenv("CLCONV_NO_CACHE", "1", 1);
    return support_first_device(&devices, &dev);
}

static int teardown(void **state)
{
    (void)state;
    support_remove_tree(cache_home);
    clconv_devices_free(&devices);
    return 0;
}

/* Each test starts without tuning files. */
static int empty_cache(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/clconv", cache_home);
    support_remove_tree(dir);
    return 0;
}

static void size_class_is_the_power_of_two_bucket_of_the_element_count(
    void **state)
{
    (void)state;
    /* floor(log2(n)) by repeated doubling, independent of the library. */
    const size_t sizes[][3] = {{1, 1, 1},       {2, 1, 1},    {3, 1, 1},
                               {1024, 1024, 1}, {1000, 999, 1},
                               {128, 128, 128}, {1u << 26, 1, 1}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        clconv_problem p = support_problem(3, sizes[i][0], sizes[i][1], sizes[i][2], 3, 1, CLCONV_NAIVE);
        size_t n = sizes[i][0] * sizes[i][1] * sizes[i][2];
        int c = 0;
        while (((size_t)2 << c) <= n)
            ++c;
        assert_int_equal(clconv_size_class(&p), c);
    }
}

static void tuning_path_is_keyed_by_device_name_and_driver(void **state)
{
    (void)state;
    clconv_device_info a = *dev, b = *dev, c = *dev;
    /* Change one character of each. */
    b.driver[0] = b.driver[0] == 'x' ? 'y' : 'x';
    c.name[0] = c.name[0] == 'x' ? 'y' : 'x';
    char pa[4200], pb[4200], pc[4200], pa2[4200], prefix[512];
    assert_int_equal(clconv_tune_path(&a, pa, sizeof pa), CLCONV_OK);
    assert_int_equal(clconv_tune_path(&a, pa2, sizeof pa2), CLCONV_OK);
    assert_int_equal(clconv_tune_path(&b, pb, sizeof pb), CLCONV_OK);
    assert_int_equal(clconv_tune_path(&c, pc, sizeof pc), CLCONV_OK);
    assert_string_equal(pa, pa2);
    assert_string_not_equal(pa, pb);
    assert_string_not_equal(pa, pc);
    snprintf(prefix, sizeof prefix, "%s/clconv/", cache_home);
    assert_memory_equal(pa, prefix, strlen(prefix));
}

/* Two entries with their real kernel hashes. */
static void two_entries(clconv_tune_table *t, clconv_tuning e[2])
{
    memset(e, 0, 2 * sizeof *e);
    e[0].dims = 2;
    e[0].mask_width = 5;
    e[0].size_class = 20;
    e[0].strategy = CLCONV_OUTPUT_TILE;
    e[0].tile = 32;
    e[0].ms = 1.25;
    e[0].size[0] = 1024;
    e[0].size[1] = 1024;
    e[0].size[2] = 1;
    e[1] = e[0];
    e[1].dims = 1;
    e[1].mask_width = 9;
    e[1].size_class = 22;
    e[1].strategy = CLCONV_COARSE;
    e[1].tile = 128;
    e[1].coarsen = 4;
    e[1].group_y = 0;
    e[1].ms = 0.0625;
    e[1].size[0] = (size_t)1 << 22;
    e[1].size[1] = 1;
    /* A strategy whose kernel file is missing cannot be stored. */
    for (int k = 0; k < 2; ++k) {
        if (clconv_kernel_hash(e[k].strategy, e[k].dims, &e[k].kernel_hash) !=
            CLCONV_OK) {
            e[k].strategy = CLCONV_NAIVE;
            assert_int_equal(clconv_kernel_hash(e[k].strategy, e[k].dims,
                                                &e[k].kernel_hash),
                             CLCONV_OK);
        }
        assert_int_equal(clconv_tune_put(t, &e[k]), CLCONV_OK);
    }
}

static void tuning_file_round_trips(void **state)
{
    (void)state;
    clconv_tune_table t = {0}, back = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    /* Replacing the entry of a class keeps one entry per class. */
    clconv_tuning again = e[0];
    again.tile = 16;
    assert_int_equal(clconv_tune_put(&t, &again), CLCONV_OK);
    assert_int_equal(t.count, 2);
    e[0].tile = 16;
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    assert_int_equal(clconv_tune_load(dev, &back), CLCONV_OK);
    assert_int_equal(back.count, 2);
    assert_int_equal(back.stale, 0);
    for (int k = 0; k < 2; ++k) {
        const clconv_tuning *b = &back.entries[k];
        assert_int_equal(b->dims, e[k].dims);
        assert_int_equal(b->mask_width, e[k].mask_width);
        assert_int_equal(b->size_class, e[k].size_class);
        assert_int_equal(b->strategy, e[k].strategy);
        assert_int_equal(b->tile, e[k].tile);
        assert_int_equal(b->coarsen, e[k].coarsen);
        assert_int_equal(b->group_y, e[k].group_y);
        assert_true(b->ms == e[k].ms);
        assert_memory_equal(b->size, e[k].size, sizeof b->size);
        assert_true(b->kernel_hash == e[k].kernel_hash);
    }
    clconv_tune_table_free(&t);
    clconv_tune_table_free(&back);
}

/* A library caller's entry the file cannot hold (a border mode, element
 * type or strategy beyond its enum, a field out of the reader's range) is
 * refused by clconv_tune_put with the field named, before anything is
 * stored: it was written as '?' (or a number the reader refuses), and the
 * whole file was then rejected on the next load. */
static void entries_the_file_cannot_hold_are_refused_before_saving(void **state)
{
    (void)state;
    clconv_tune_table t = {0}, back = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    static const struct {
        const char *what; /* in the error line */
        int field, value;
    } bad[] = {
        {"border mode 5", 0, CLCONV_BORDER_COUNT},
        {"border mode -1", 0, -1},
        {"element type 5", 1, CLCONV_ELEM_COUNT},
        {"or 7 (out)", 2, 7},
        {"strategy 6", 3, CLCONV_STRATEGY_COUNT},
        {"dims 4", 4, 4},
        {"size_class 64", 5, 64},
        {"tile 0", 6, 0},
        {"coarsen -1", 7, -1},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        clconv_tuning x = e[0];
        x.size_class = 30; /* a class of its own: added, not replaced */
        switch (bad[k].field) {
        case 0: x.border = (clconv_border)bad[k].value; break;
        case 1: x.in_dtype = (clconv_elem)bad[k].value; break;
        case 2: x.out_dtype = (clconv_elem)bad[k].value; break;
        case 3: x.strategy = (clconv_strategy)bad[k].value; break;
        case 4: x.dims = bad[k].value; break;
        case 5: x.size_class = bad[k].value; break;
        case 6: x.tile = bad[k].value; break;
        default: x.coarsen = bad[k].value; break;
        }
        if (clconv_tune_put(&t, &x) != CLCONV_EINVAL ||
            !strstr(clconv_last_error(), bad[k].what))
            fail_msg("%s: put gave '%s'", bad[k].what, clconv_last_error());
        assert_null(strchr(clconv_last_error(), '\n'));
        assert_int_equal(t.count, 2);
    }
    /* nor did a refused one replace the entry of its class */
    clconv_tuning x = e[0];
    x.border = CLCONV_BORDER_COUNT;
    assert_int_equal(clconv_tune_put(&t, &x), CLCONV_EINVAL);
    assert_int_equal(t.entries[0].border, e[0].border);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    assert_int_equal(clconv_tune_load(dev, &back), CLCONV_OK);
    assert_int_equal(back.count, 2);
    clconv_tune_table_free(&t);
    clconv_tune_table_free(&back);
}

static void nearest_size_class_within_two_is_found(void **state)
{
    (void)state;
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e); /* 2D mask 5 class 20 */
    clconv_problem p = support_problem(2, 1024, 1024, 1, 5, 1, CLCONV_NAIVE);
    assert_ptr_equal(clconv_tune_find(&t, &p), &t.entries[0]);
    p.size[1] = 4096; /* class 22 */
    assert_ptr_equal(clconv_tune_find(&t, &p), &t.entries[0]);
    p.size[1] = 8192; /* class 23: too far */
    assert_null(clconv_tune_find(&t, &p));
    p = support_problem(2, 1024, 1024, 1, 3, 1, CLCONV_NAIVE); /* another mask */
    assert_null(clconv_tune_find(&t, &p));
    clconv_tune_table_free(&t);
}

/* Put an entry of p's class for naive at tile (which entry a lookup found)
 * into t, with its real kernel hash. */
static void put_class(clconv_tune_table *t, const clconv_problem *p, int tile)
{
    clconv_tuning e = {0};
    clconv_tune_class(p, &e);
    e.strategy = CLCONV_NAIVE;
    e.tile = tile;
    e.ms = 1.0;
    memcpy(e.size, p->size, sizeof e.size);
    assert_int_equal(clconv_kernel_hash(e.strategy, e.dims, &e.kernel_hash),
                     CLCONV_OK);
    assert_int_equal(clconv_tune_put(t, &e), CLCONV_OK);
}

/* Save t and load it back: count entries, through the file. */
static void save_and_reload(clconv_tune_table *t, size_t count)
{
    assert_int_equal(t->count, count);
    assert_int_equal(clconv_tune_save(dev, t), CLCONV_OK);
    clconv_tune_table_free(t);
    assert_int_equal(clconv_tune_load(dev, t), CLCONV_OK);
    assert_int_equal(t->count, count);
}

/* auto on p: tuned (from the entry of that tile) or not (tile 0). */
static void auto_takes(const clconv_problem *p, int tile)
{
    clconv_problem a = *p;
    int tuned = -1;
    assert_int_equal(clconv_auto_config(dev, &a, &tuned), CLCONV_OK);
    assert_int_equal(tuned, tile != 0);
    if (tile)
        assert_int_equal(a.tile, tile);
}

/* auto on a 2D 1024^2 mask-5 problem falls back to the default (a
 * tuning file it cannot use is "not tuned", not an error). */
static void auto_is_not_tuned(void)
{
    const clconv_problem p =
        support_problem(2, 1024, 1024, 1, 5, 1, CLCONV_NAIVE);
    auto_takes(&p, 0);
}

/* A problem class is the mask's shape and the element types too: entries
 * for a 2D 9x9 float32 mask, the same on uint8 and a 9x3 mask live side by
 * side through a save and a load, each problem finds its own, and a 3x9
 * mask, uint8 to float32 or a 9x9 float32 3D problem (a batch of 2D ones
 * stacks to that) finds none; auto configures the uint8 problem from its
 * entry. (Format 1 keyed all of them as "2D mask 9".) */
static void entries_are_kept_per_mask_shape_and_element_types(void **state)
{
    (void)state;
    clconv_problem p[3];
    for (int k = 0; k < 3; ++k)
        p[k] = support_problem(2, 1024, 1024, 1, 9, 1, CLCONV_NAIVE);
    p[1].in_dtype = p[1].out_dtype = CLCONV_ELEM_U8;
    p[2].mask_size[0] = 9, p[2].mask_size[1] = 3;
    clconv_tune_table t = {0};
    for (int k = 0; k < 3; ++k)
        put_class(&t, &p[k], 8 << k); /* 8, 16, 32 */
    save_and_reload(&t, 3);
    for (int k = 0; k < 3; ++k) {
        const clconv_tuning *e = clconv_tune_find(&t, &p[k]);
        assert_non_null(e);
        assert_int_equal(e->tile, 8 << k);
    }
    assert_int_equal(t.entries[2].mask_size[1], 3);
    assert_int_equal(t.entries[1].in_dtype, CLCONV_ELEM_U8);
    clconv_problem other = p[2];
    other.mask_size[0] = 3, other.mask_size[1] = 9;
    assert_null(clconv_tune_find(&t, &other));
    other = p[1];
    other.out_dtype = CLCONV_ELEM_F32;
    assert_null(clconv_tune_find(&t, &other));
    other = support_problem(3, 1024, 1024, 1, 9, 1, CLCONV_NAIVE);
    other.mask_size[0] = other.mask_size[1] = 9, other.mask_size[2] = 1;
    assert_null(clconv_tune_find(&t, &other));
    clconv_tune_table_free(&t);
    auto_takes(&p[1], 16);
    auto_takes(&other, 0);
}

/* The border mode is part of the class: it costs each strategy
 * differently (bench/PERF.md item 17). A reflect entry for 2D 9x9 float32
 * (tile 16) and a constant one (tile 8) live side by side through a save
 * and a load; a reflect problem, also one size class away, finds its own
 * and auto takes it; nearest, mirror and wrap find none and auto leaves
 * them to the default. (Format 2 had no mode: the constant problem took
 * the reflect entry.) */
static void an_entry_for_one_border_mode_is_not_used_for_another(void **state)
{
    (void)state;
    clconv_problem p[2];
    const clconv_border modes[2] = {CLCONV_BORDER_REFLECT,
                                    CLCONV_BORDER_CONSTANT};
    clconv_tune_table t = {0};
    for (int k = 0; k < 2; ++k) {
        p[k] = support_problem(2, 1024, 1024, 1, 9, 1, CLCONV_NAIVE);
        p[k].border = modes[k];
        put_class(&t, &p[k], 16 >> k); /* 16 reflect, 8 constant */
        /* the reflect entry alone: the constant problem must not take it,
         * in the table or through auto's load of the file */
        if (k == 0) {
            clconv_problem c = p[0];
            c.border = CLCONV_BORDER_CONSTANT;
            assert_ptr_equal(clconv_tune_find(&t, &p[0]), &t.entries[0]);
            assert_null(clconv_tune_find(&t, &c));
            assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
            auto_takes(&c, 0);
        }
    }
    save_and_reload(&t, 2);
    for (int k = 0; k < 2; ++k) {
        const clconv_tuning *e = clconv_tune_find(&t, &p[k]);
        assert_non_null(e);
        assert_int_equal(e->tile, 16 >> k); /* its own mode's entry */
    }
    clconv_problem near = p[0];
    near.size[1] = 2048; /* size class 21: the nearest entry, same mode */
    assert_non_null(clconv_tune_find(&t, &near));
    assert_int_equal(clconv_tune_find(&t, &near)->tile, 16);
    const clconv_border others[3] = {CLCONV_BORDER_NEAREST,
                                     CLCONV_BORDER_MIRROR,
                                     CLCONV_BORDER_WRAP};
    for (int k = 0; k < 3; ++k) {
        clconv_problem o = p[0];
        o.border = others[k];
        assert_null(clconv_tune_find(&t, &o));
        near.border = others[k];
        assert_null(clconv_tune_find(&t, &near));
        auto_takes(&o, 0);
    }
    clconv_tune_table_free(&t);
    auto_takes(&p[0], 16);
}

/* Write the device's tuning file in an old format: the header with
 * format_line, then entry (with %016llx for the 2D naive kernel's hash),
 * and a right checksum. */
static void write_old_format(const char *format_line, const char *entry)
{
    char path[4200], text[2048], line[512];
    assert_int_equal(clconv_tune_path(dev, path, sizeof path), CLCONV_OK);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/clconv", cache_home);
    mkdir(dir, 0700);
    uint64_t hash = 0;
    assert_int_equal(clconv_kernel_hash(CLCONV_NAIVE, 2, &hash), CLCONV_OK);
    snprintf(line, sizeof line, entry, (unsigned long long)hash);
    int n = snprintf(text, sizeof text,
                     "%s\ndevice\t%s\ndriver\t%s\nclconv\t%s\n%s", format_line,
                     dev->name, dev->driver, CLCONV_VERSION_STRING, line);
    /* FNV-1a/64 of the text, as the file's checksum line */
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; ++i)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    snprintf(text + n, sizeof text - (size_t)n, "checksum\t%016llx\n",
             (unsigned long long)h);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The old file is ignored as a whole, as stale, with its format named;
 * auto is not tuned; a save replaces it with format 3. */
static void old_format_is_ignored_and_rewritten(const char *format_line)
{
    char path[4200], text[256];
    assert_int_equal(clconv_tune_path(dev, path, sizeof path), CLCONV_OK);
    clconv_tune_table t = {0};
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_EIO);
    assert_int_equal(t.count, 0);
    assert_non_null(strstr(clconv_last_error(), "stale"));
    assert_non_null(strstr(clconv_last_error(), format_line));
    auto_is_not_tuned();
    clconv_tuning e[2];
    two_entries(&t, e);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, 2);
    clconv_tune_table_free(&t);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "clconv tuning 3\n");
}

/* A file of format 1 (entries without a mask shape, types or mode). */
static void a_format_1_file_is_ignored_and_rewritten(void **state)
{
    (void)state;
    write_old_format("clconv tuning 1",
                     "entry\t2\t5\t20\tnaive\t8\t0\t0\t1.5\t1024x1024x1\t"
                     "%016llx\n");
    old_format_is_ignored_and_rewritten("clconv tuning 1");
}

/* A file of format 2 (entries with a mask shape and types, no mode): its
 * entry for 2D 5x5 float32 was tuned in some mode it does not say, so it
 * tunes no mode. */
static void a_format_2_file_is_ignored_and_rewritten(void **state)
{
    (void)state;
    write_old_format("clconv tuning 2",
                     "entry\t2\t5\t20\tnaive\t8\t0\t0\t1.5\t1024x1024x1\t"
                     "%016llx\t5x5x1\tf32\tf32\n");
    old_format_is_ignored_and_rewritten("clconv tuning 2");
}

/* Save the two entries, then rewrite the file with edit applied. */
static void saved_then_edited(void (*edit)(char *s, size_t *n))
{
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
    char path[4200];
    assert_int_equal(clconv_tune_path(dev, path, sizeof path), CLCONV_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    edit(buf, &n);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

static void change_a_digit(char *s, size_t *n)
{
    (void)n;
    char *tile = strstr(s, "\t32\t");
    assert_non_null(tile);
    tile[1] = '6';
}
static void truncate_file(char *s, size_t *n) { (void)s; *n -= 10; }
static void empty_file(char *s, size_t *n) { (void)s; *n = 0; }
static void garbage(char *s, size_t *n) { *n = (size_t)sprintf(s, "\x01\x02 not a tuning file\n"); }

static void corrupt_tuning_files_are_ignored_with_a_reason(void **state)
{
    (void)state;
    void (*edits[])(char *, size_t *) = {change_a_digit, truncate_file,
                                         empty_file, garbage};
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; ++k) {
        saved_then_edited(edits[k]);
        clconv_tune_table t = {0};
        assert_int_equal(clconv_tune_load(dev, &t), CLCONV_EIO);
        assert_int_equal(t.count, 0);
        assert_true(strlen(clconv_last_error()) > 0);
        /* auto falls back to the default heuristic, not an error */
        clconv_problem p = support_problem(2, 1024, 1024, 1, 5, 1, CLCONV_NAIVE), want = p;
        int tuned = -1;
        assert_int_equal(clconv_auto_config(dev, &p, &tuned), CLCONV_OK);
        assert_int_equal(tuned, 0);
        clconv_pick_default(dev, &want);
        assert_int_equal(p.strategy, want.strategy);
        assert_int_equal(p.tile, want.tile);
        clconv_tune_table_free(&t);
    }
}

/* A tuning file that is a FIFO: loading says so at once (it waited for a
 * writer for ever), auto falls back to the defaults, and a save replaces
 * it with a regular file. */
static void a_tuning_file_that_is_a_fifo_neither_blocks_nor_stays(void **state)
{
    (void)state;
    char path[4200];
    assert_int_equal(clconv_tune_path(dev, path, sizeof path), CLCONV_OK);
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK); /* the folder */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(60); /* a hang fails the test instead of the whole run */
    clconv_tune_table loaded = {0};
    assert_int_equal(clconv_tune_load(dev, &loaded), CLCONV_EIO);
    assert_non_null(strstr(clconv_last_error(), "not a regular file"));
    auto_is_not_tuned();
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    alarm(0);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(clconv_tune_load(dev, &loaded), CLCONV_OK);
    assert_int_equal(loaded.count, 2);
    clconv_tune_table_free(&loaded);
    clconv_tune_table_free(&t);
}

/* No folder for a tuning file (XDG_CACHE_HOME a file; neither it nor HOME
 * absolute): nothing tuned, not an error to read (apply warned about "the
 * tuning cache" on every run); saving says why it cannot. */
static void no_cache_folder_is_an_empty_tuning_without_complaint(void **state)
{
    (void)state;
    char file[600];
    const char *home = getenv("HOME");
    char *saved_home = home ? strdup(home) : NULL;
    snprintf(file, sizeof file, "%s/a-file", cache_home);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    for (int k = 0; k < 2; ++k) {
        if (k == 0) {
            setenv("XDG_CACHE_HOME", file, 1);
        } else {
            unsetenv("XDG_CACHE_HOME");
            setenv("HOME", "relative", 1);
        }
        assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
        assert_int_equal(t.count, 0);
        two_entries(&t, e);
        assert_int_not_equal(clconv_tune_save(dev, &t), CLCONV_OK);
        clconv_tune_table_free(&t);
    }
    if (saved_home)
        setenv("HOME", saved_home, 1);
    else
        unsetenv("HOME");
    free(saved_home);
    setenv("XDG_CACHE_HOME", cache_home, 1);
    unlink(file);
}

static void tuning_of_another_driver_is_stale(void **state)
{
    (void)state;
    clconv_device_info other = *dev;
    snprintf(other.driver, sizeof other.driver, "0.0-other");
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    /* Make the other driver's path hold this driver's file. */
    char from[4200], to[4200];
    assert_int_equal(clconv_tune_path(dev, from, sizeof from), CLCONV_OK);
    assert_int_equal(clconv_tune_path(&other, to, sizeof to), CLCONV_OK);
    assert_int_equal(rename(from, to), 0);
    assert_int_equal(clconv_tune_load(&other, &t), CLCONV_EIO);
    assert_non_null(strstr(clconv_last_error(), "stale"));
    assert_int_equal(t.count, 0);
    clconv_tune_table_free(&t);
}

static void entry_whose_kernel_changed_is_dropped(void **state)
{
    (void)state;
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    t.entries[0].kernel_hash ^= 1;
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    assert_int_equal(clconv_tune_load(dev, &t), CLCONV_OK);
    assert_int_equal(t.count, 1);
    assert_int_equal(t.stale, 1);
    assert_int_equal(t.entries[0].dims, e[1].dims);
    clconv_tune_table_free(&t);
}

static void auto_config_uses_the_tuned_entry(void **state)
{
    (void)state;
    clconv_tune_table t = {0};
    clconv_tuning e[2];
    two_entries(&t, e);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
    clconv_problem p = support_problem(2, 1000, 2000, 1, 5, 1, CLCONV_NAIVE); /* class 20 */
    int tuned = 0;
    assert_int_equal(clconv_auto_config(dev, &p, &tuned), CLCONV_OK);
    assert_int_equal(tuned, 1);
    assert_int_equal(p.strategy, e[0].strategy);
    assert_int_equal(p.tile, e[0].tile);
    p = support_problem(3, 64, 64, 64, 3, 1, CLCONV_NAIVE); /* nothing tuned */
    p.coarsen = 7;
    assert_int_equal(clconv_auto_config(dev, &p, &tuned), CLCONV_OK);
    assert_int_equal(tuned, 0);
    assert_int_equal(p.coarsen, 0);
    p.mask_width = 0; /* invalid problem: no mask */
    assert_int_equal(clconv_auto_config(dev, &p, &tuned), CLCONV_EINVAL);
}

typedef struct seen {
    size_t events, failed;
    double last_elapsed;
    int monotone;
    int late; /* a candidate started after the budget had run out */
} seen;

static void count_event(void *user, const clconv_tune_event *ev)
{
    seen *s = user;
    ++s->events;
    if (ev->elapsed_s < s->last_elapsed)
        s->monotone = 0;
    /* The search checks the clock right after each report, before the
     * next candidate: a report after one at or past the budget means a
     * candidate started late. (Not a wall-clock bound on one candidate,
     * which a loaded machine or a simulator can exceed.) */
    if (s->events > 1 && s->last_elapsed >= ev->budget_s)
        s->late = 1;
    s->last_elapsed = ev->elapsed_s;
    if (ev->result->status == CLCONV_OK && !ev->result->verdict.ok)
        ++s->failed;
}

static void five_second_tune_ends_in_a_verified_choice_that_auto_uses(
    void **state)
{
    (void)state;
    clconv_problem p = support_problem(2, 96, 80, 1, 3, 1, CLCONV_NAIVE);
    p.strategy = CLCONV_NAIVE;
    clconv_session *s = NULL;
    clconv_dataset *data = NULL;
    assert_int_equal(clconv_session_create(dev, &s), CLCONV_OK);
    assert_int_equal(clconv_dataset_create(&p, 5, &data), CLCONV_OK);
    seen sn = {0, 0, 0.0, 1, 0};
    clconv_tune_options opt = {5.0, 1, 2, 3, count_event, &sn};
    clconv_tune_outcome out;
    assert_int_equal(clconv_tune_problem(s, data, &opt, &out), CLCONV_OK);
    print_message("tune: tried %zu (%zu ok, %zu failed, %zu unsupported, "
                  "%zu errors, %zu not tried), best %s T=%d C=%d GY=%d "
                  "%.4f ms\n",
                  out.tried, out.verified, out.failed, out.unsupported,
                  out.errors, out.not_tried,
                  clconv_strategy_name(out.best.strategy), out.best.tile,
                  out.best.coarsen, out.best.group_y, out.best_ms);
    assert_true(out.found);
    assert_int_equal(out.failed, 0);
    assert_int_equal(sn.failed, 0);
    assert_true(sn.monotone);
    assert_true(sn.events >= out.tried);
    assert_true(out.tried + out.not_tried ==
                clconv_tune_candidates(dev, &p, NULL, 0));
    /* The budget bounds the search: no candidate starts after it, so it
     * ends at most one candidate's time over. */
    assert_false(sn.late);

    /* The choice verifies on its own. */
    clconv_problem best = p;
    best.strategy = out.best.strategy;
    best.tile = out.best.tile;
    best.coarsen = out.best.coarsen;
    best.group_y = out.best.group_y;
    clconv_result res;
    assert_int_equal(clconv_run_verified(s, &best, data, 0, 1, &res),
                     CLCONV_OK);
    assert_true(res.verdict.ok);

    /* Stored, auto picks it. */
    clconv_tuning e = {0};
    clconv_tune_class(&p, &e);
    e.strategy = best.strategy;
    e.tile = best.tile;
    e.coarsen = best.coarsen;
    e.group_y = best.group_y;
    e.ms = out.best_ms;
    memcpy(e.size, p.size, sizeof e.size);
    assert_int_equal(clconv_kernel_hash(e.strategy, e.dims, &e.kernel_hash),
                     CLCONV_OK);
    clconv_tune_table t = {0};
    assert_int_equal(clconv_tune_put(&t, &e), CLCONV_OK);
    assert_int_equal(clconv_tune_save(dev, &t), CLCONV_OK);
    clconv_tune_table_free(&t);
    clconv_problem a = support_problem(2, 96, 80, 1, 3, 1, CLCONV_NAIVE);
    int tuned = 0;
    assert_int_equal(clconv_auto_config(dev, &a, &tuned), CLCONV_OK);
    assert_int_equal(tuned, 1);
    assert_int_equal(a.strategy, best.strategy);
    assert_int_equal(a.tile, best.tile);
    assert_int_equal(a.coarsen, best.coarsen);
    assert_int_equal(a.group_y, best.group_y);
    clconv_dataset_destroy(data);
    clconv_session_destroy(s);
}

static void candidates_start_with_the_default_and_have_no_duplicates(
    void **state)
{
    (void)state;
    for (int dims = 1; dims <= 3; ++dims) {
        clconv_problem p = support_problem(dims, 64, dims > 1 ? 64 : 1,
                                 dims > 2 ? 64 : 1, 3, 1, CLCONV_NAIVE);
        size_t n = clconv_tune_candidates(dev, &p, NULL, 0);
        assert_true(n > 4);
        clconv_tune_candidate *c = calloc(n, sizeof *c);
        assert_non_null(c);
        assert_int_equal(clconv_tune_candidates(dev, &p, c, n), n);
        clconv_problem d = p;
        clconv_pick_default(dev, &d);
        assert_int_equal(c[0].strategy, d.strategy);
        assert_int_equal(c[0].tile, d.tile);
        int strategies[CLCONV_STRATEGY_COUNT] = {0};
        for (size_t i = 0; i < n; ++i) {
            strategies[c[i].strategy] = 1;
            for (size_t j = 0; j < i; ++j)
                assert_false(memcmp(&c[i], &c[j], sizeof c[i]) == 0);
        }
        /* Every strategy whose kernel exists is searched. */
        for (int s = 0; s < CLCONV_STRATEGY_COUNT; ++s) {
            uint64_t h;
            int exists = clconv_kernel_hash((clconv_strategy)s, dims, &h) ==
                         CLCONV_OK;
            assert_int_equal(strategies[s], exists);
        }
        free(c);
    }
}

/* A budget cuts the slow candidates: after the default, every coarse and
 * vector candidate (one load per input) comes before any naive one (W^d),
 * for a mask of 5 where the model tells them far apart. */
static void candidates_after_the_default_run_cheapest_first(void **state)
{
    (void)state;
    for (int dims = 1; dims <= 3; ++dims) {
        clconv_problem p = support_problem(dims, 64, dims > 1 ? 64 : 1,
                                 dims > 2 ? 64 : 1, 5, 1, CLCONV_NAIVE);
        size_t n = clconv_tune_candidates(dev, &p, NULL, 0);
        clconv_tune_candidate *c = calloc(n, sizeof *c);
        assert_non_null(c);
        clconv_tune_candidates(dev, &p, c, n);
        size_t last_fast = 0, first_naive = n;
        for (size_t i = 1; i < n; ++i) {
            if (c[i].strategy == CLCONV_COARSE ||
                c[i].strategy == CLCONV_VECTOR)
                last_fast = i;
            if (c[i].strategy == CLCONV_NAIVE && first_naive == n)
                first_naive = i;
        }
        if (first_naive < n && last_fast > first_naive)
            fail_msg("%dD: naive candidate %zu before coarse/vector %zu",
                     dims, first_naive, last_fast);
        free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            size_class_is_the_power_of_two_bucket_of_the_element_count),
        cmocka_unit_test_setup(tuning_path_is_keyed_by_device_name_and_driver,
                               empty_cache),
        cmocka_unit_test_setup(tuning_file_round_trips, empty_cache),
        cmocka_unit_test_setup(
            entries_the_file_cannot_hold_are_refused_before_saving,
            empty_cache),
        cmocka_unit_test_setup(nearest_size_class_within_two_is_found,
                               empty_cache),
        cmocka_unit_test_setup(
            entries_are_kept_per_mask_shape_and_element_types, empty_cache),
        cmocka_unit_test_setup(
            an_entry_for_one_border_mode_is_not_used_for_another,
            empty_cache),
        cmocka_unit_test_setup(a_format_1_file_is_ignored_and_rewritten,
                               empty_cache),
        cmocka_unit_test_setup(a_format_2_file_is_ignored_and_rewritten,
                               empty_cache),
        cmocka_unit_test_setup(corrupt_tuning_files_are_ignored_with_a_reason,
                               empty_cache),
        cmocka_unit_test_setup(
            a_tuning_file_that_is_a_fifo_neither_blocks_nor_stays,
            empty_cache),
        cmocka_unit_test_setup(
            no_cache_folder_is_an_empty_tuning_without_complaint,
            empty_cache),
        cmocka_unit_test_setup(tuning_of_another_driver_is_stale, empty_cache),
        cmocka_unit_test_setup(entry_whose_kernel_changed_is_dropped,
                               empty_cache),
        cmocka_unit_test_setup(auto_config_uses_the_tuned_entry, empty_cache),
        cmocka_unit_test(
            candidates_start_with_the_default_and_have_no_duplicates),
        cmocka_unit_test(candidates_after_the_default_run_cheapest_first),
        cmocka_unit_test_setup(
            five_second_tune_ends_in_a_verified_choice_that_auto_uses,
            empty_cache),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
