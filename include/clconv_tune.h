/* clconv tuning: search variant x tile x coarsening x work-group shape per
 * device and problem class, keep the best in a per-device cache file, and
 * pick a configuration automatically (`--strategy auto`).
 *
 * The tuning cache is one text file per device under
 * $XDG_CACHE_HOME/clconv/ (else ~/.cache/clconv/), named after a hash of
 * the device name and driver version. It starts with the device name,
 * CL_DRIVER_VERSION and clconv's version, and ends with a checksum line; a
 * file whose header does not match the device or this clconv, or whose
 * checksum is wrong, is ignored as a whole. Each entry also records a hash
 * of the kernel source it was measured with, so an entry whose .cl file
 * changed since is ignored on its own. Library code never prints: callers
 * learn why a file was ignored from clconv_tune_load(). */
#ifndef CLCONV_TUNE_H
#define CLCONV_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "clconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- problem classes ---------------------------------------------------- */

/* The size class of a problem: floor(log2(element count)), so 1024x1024
 * and 1M-element 1D problems are class 20. A problem class is (dims, the
 * mask's width along each axis, the input and output element types, the
 * border mode, size class): a 9x3 mask, a mask along one axis (--axes),
 * uint8 data or mode reflect is not tuned by a 9x9 float32 constant-mode
 * entry. */
int clconv_size_class(const clconv_problem *p);

/* ---- the tuning cache ----------------------------------------------------- */

/* One tuned configuration: the best verified one of its problem class. */
typedef struct clconv_tuning {
    /* the key within a device's file, with mask_size and the types below
     * (clconv_tune_class) */
    int dims, mask_width, size_class;
    clconv_strategy strategy;
    int tile, coarsen, group_y;
    double ms;         /* median kernel time when tuned */
    size_t size[3];    /* the problem it was measured on */
    uint64_t kernel_hash; /* FNV-1a/64 of the variant's sources then */
    /* the mask's width along each axis, x first, 1 beyond dims (0: taken
     * as mask_width within dims, as clconv_problem does) */
    int mask_size[3];
    clconv_elem in_dtype, out_dtype; /* the element types */
    clconv_border border;            /* the border mode (0: constant) */
} clconv_tuning;

typedef struct clconv_tune_table {
    clconv_tuning *entries;
    size_t count, cap;
    size_t stale; /* entries dropped on load: their kernel changed since */
    /* Entries skipped on load because the planner would refuse them (a
     * hand edit with knobs out of range, a work-group beyond the device);
     * the first one's "file:line: reason". */
    size_t invalid;
    char invalid_reason[512];
} clconv_tune_table;

/* The path of a device's tuning file (the folder is not created). */
clconv_status clconv_tune_path(const clconv_device_info *dev, char *buf,
                               size_t len);
/* Load a device's tuning file into t (which is emptied first). No file,
 * or no cache folder to hold one, is CLCONV_OK with an empty table. A file that cannot be read, is corrupt,
 * or belongs to another driver or clconv version leaves the table empty
 * and returns CLCONV_EIO with the reason in clconv_last_error(): callers
 * treat that as "not tuned" and may say so once. */
clconv_status clconv_tune_load(const clconv_device_info *dev,
                               clconv_tune_table *t);
/* Merge the table into the device's tuning file, creating the folder:
 * under an flock(2) on "<file>.lock" the file is read again, t's entries
 * replace those of their problem class, and the result is written
 * atomically (clconv_file_write). Entries that other processes saved
 * since t was loaded survive; keep in t only what this process tuned. */
clconv_status clconv_tune_save(const clconv_device_info *dev,
                               const clconv_tune_table *t);
/* Set e's problem class (dims, mask_width, mask_size, in_dtype,
 * out_dtype, border, size_class) from p; the other fields are left as
 * they are (p or e NULL: nothing). */
void clconv_tune_class(const clconv_problem *p, clconv_tuning *e);
/* Add an entry, replacing the one of the same problem class. An entry
 * the tuning file cannot hold (dims outside 1..3, a mask width outside
 * 1..1023 or mask_size not consistent with it, a size class outside
 * 0..63, tile outside 1..65536, a knob outside 0..65536, an unknown
 * strategy, element type or border mode, a negative or NaN time, a size
 * of 0) is CLCONV_EINVAL naming the field, and t is left as it was. */
clconv_status clconv_tune_put(clconv_tune_table *t, const clconv_tuning *e);
/* The entry of p's problem class; if there is none, the entry of the same
 * dims, mask shape, element types and border mode whose size class is
 * nearest, within 2 (a factor of 4 in elements); NULL if none. */
const clconv_tuning *clconv_tune_find(const clconv_tune_table *t,
                                      const clconv_problem *p);
void clconv_tune_table_free(clconv_tune_table *t);

/* FNV-1a/64 of the sources a strategy builds for dims (cl/dtype.clh,
 * cl/common.clh and cl/conv<D>d_<strategy>.cl). CLCONV_ENOKERNELS if the
 * variant's file does not exist (a strategy this build's kernel folder
 * does not have). The process keeps it while the three files stay as they
 * were (same inode, size, modification and change times) and reads them
 * again when one changes. */
clconv_status clconv_kernel_hash(clconv_strategy s, int dims, uint64_t *hash);

/* Fill p->strategy, tile, coarsen and group_y from the device's tuning
 * cache (*tuned = 1), else from clconv_pick_default() with coarsen and
 * group_y 0 (*tuned = 0). p->dims, size and mask_width must be set. An
 * unreadable or corrupt cache is "not tuned", not an error (call
 * clconv_tune_load() to learn why); only an invalid problem is an error. */
clconv_status clconv_auto_config(const clconv_device_info *dev,
                                 clconv_problem *p, int *tuned);

/* ---- the search ----------------------------------------------------------- */

typedef struct clconv_tune_candidate {
    clconv_strategy strategy;
    int tile, coarsen, group_y;
} clconv_tune_candidate;

/* The bounded candidate list of a problem on a device, in the order the
 * search tries them: the default pick first, then the rest (each strategy
 * at its default tile, the notes' strategies at the bench tiles, each
 * variant's knob grid) ordered by predicted cost, cheapest first, so a
 * budget cuts off the slow ones: predicted global loads per output from
 * the notes' model (W^d / reduction; naive W^d; coarse and vector 1),
 * times 4.5 for the local-memory strategies on CPUs (their barrier). Strategies whose kernel file does not exist are left
 * out; shapes the device cannot run are left to the plan, which reports
 * them unsupported before building anything. Writes at most max entries
 * (none for out NULL), returns how many there are (0 for p NULL). */
size_t clconv_tune_candidates(const clconv_device_info *dev,
                              const clconv_problem *p,
                              clconv_tune_candidate *out, size_t max);

/* What the search reports after each candidate. */
typedef struct clconv_tune_event {
    const clconv_tune_candidate *candidate;
    const clconv_result *result; /* status, verdict and timing */
    size_t index, count;         /* candidate index (0-based) of count */
    int phase;                   /* 1: screening, 2: re-timing the best */
    double elapsed_s, budget_s;
    const clconv_tune_candidate *best; /* best so far, NULL if none */
    double best_ms;
} clconv_tune_event;

typedef void (*clconv_tune_progress)(void *user, const clconv_tune_event *ev);

typedef struct clconv_tune_options {
    double budget_s; /* stop starting candidates after this many seconds */
    int warmup, reps; /* per candidate when screening (re-timing: 3x reps) */
    int finalists;    /* how many of the best to re-time (0: none) */
    clconv_tune_progress progress; /* may be NULL */
    void *user;
} clconv_tune_options;

typedef struct clconv_tune_outcome {
    int found;                 /* a verified, timed candidate exists */
    clconv_tune_candidate best;
    double best_ms;            /* its median */
    double default_ms;         /* the default pick's median, 0 if not run */
    size_t tried, verified, failed, unsupported, errors, not_tried;
    int out_of_time;           /* the budget ended the search */
} clconv_tune_outcome;

/* Try the candidates of data's problem on the session's device: each is
 * planned, run once and verified against the dataset's reference, then
 * timed (clconv_run_verified). A candidate that fails verification is
 * counted in failed and never chosen. Stops starting candidates when the
 * budget is spent. Returns CLCONV_OK even when nothing was found (see
 * found); errors only for invalid arguments or memory. */
clconv_status clconv_tune_problem(clconv_session *s,
                                  const clconv_dataset *data,
                                  const clconv_tune_options *opt,
                                  clconv_tune_outcome *out);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_TUNE_H */
