/* Helpers shared by the test programs (test/support_*.c is linked into
 * every one of them): a temporary cache home, the device fixture, the
 * problem builder, the skip helper. */
#ifndef CLCONV_TEST_SUPPORT_H
#define CLCONV_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clconv.h"

/* ---- files (support_files.c) ---------------------------------------------- */

/* A fresh temporary folder made from `pattern` (ending in XXXXXX), set as
 * $XDG_CACHE_HOME so clconv's disk caches stay inside it. 0, or -1. */
int support_cache_home_create(char *buf, size_t len, const char *pattern);
/* Remove a file or a folder and everything below it. */
void support_remove_tree(const char *path);

/* ---- devices (support_devices.c) ------------------------------------------- */

/* The device fixture: every device $CLCONV_DEVICE selects (all when
 * unset), with a session on each. */
typedef struct support_devices {
    clconv_device_list list;
    size_t *sel;               /* indices into list.devices */
    size_t n;                  /* selected devices */
    clconv_session **sessions; /* one per selected device */
    char why[512];             /* why there is none, when n is 0 */
} support_devices;

/* Open the fixture. 0, or -1 with the reason on stderr (no platform, a
 * selector that matches nothing, no device, a session that failed); the
 * fixture is then closed. */
int support_devices_open(support_devices *f);
const clconv_device_info *support_device(const support_devices *f, size_t k);
void support_devices_close(support_devices *f);
/* cmocka group setup and teardown holding a support_devices in *state.
 * The setup fails without a device; the _or_skip one leaves an empty
 * fixture whose tests skip (SUPPORT_SKIP_WITHOUT_DEVICES). */
int support_devices_setup(void **state);
int support_devices_setup_or_skip(void **state);
int support_devices_teardown(void **state);
/* Discover the devices and pick the first one $CLCONV_DEVICE selects (all
 * when unset). 0, or -1 when there is none. */
int support_first_device(clconv_device_list *devices,
                         const clconv_device_info **dev);

/* ---- problems (support_problem.c) ------------------------------------------- */

/* A problem with these fields and every other one zero (mask mode auto,
 * the strategy's default knobs). */
clconv_problem support_problem(int dims, size_t nx, size_t ny, size_t nz,
                               int mask, int tile, clconv_strategy s);

/* The seeds of a test program's random cases: the data's from
 * $CLCONV_SEED, else the time (a new draw each run); the masks' from
 * $CLCONV_MASK_SEED, else a constant, so that the masks are the same from
 * run to run and a device that builds them into its kernels (GPUs,
 * Oclgrind: CLCONV_MASK_BAKED) finds those programs in its caches the next
 * run instead of building hundreds anew. Prints both, with the line that
 * repeats the run, after `what`. */
uint64_t support_seeds(const char *what);
/* The mask seed support_seeds read (its constant before). */
uint64_t support_mask_seed(void);
/* clconv_dataset_create with the data from seed and the mask from
 * support_mask_seed(). */
clconv_status support_dataset(const clconv_problem *p, uint64_t seed,
                              clconv_dataset **out);

/* ---- skipping ---------------------------------------------------------------- */

/* Skip the running cmocka test, saying why on one line first (a test
 * that cannot run on this device is skipped, never passed). */
#define SUPPORT_SKIP(...)                                                     \
    do {                                                                      \
        printf("  skipped: ");                                                \
        printf(__VA_ARGS__);                                                  \
        printf("\n");                                                         \
        skip();                                                               \
    } while (0)

/* Skip the running test when the fixture has no device, with the reason. */
#define SUPPORT_SKIP_WITHOUT_DEVICES(f)                                       \
    do {                                                                      \
        if ((f)->n == 0)                                                      \
            SUPPORT_SKIP("no OpenCL device: %s", (f)->why);                   \
    } while (0)

#endif
