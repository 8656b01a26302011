/* Internal declarations shared by libclconv's files (prefix clc_). Not part
 * of the public API. */
#ifndef CLCONV_INTERNAL_H
#define CLCONV_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "clconv.h"
#include "clconv_io.h"

/* ---- error.c ---- */
#if defined(__GNUC__)
#define CLC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLC_PRINTF(a, b)
#endif

/* Set this thread's last error and return st. */
clconv_status clc_fail(clconv_status st, const char *fmt, ...) CLC_PRINTF(2, 3);

/* ---- clerr.c ---- */
/* Record a failed OpenCL call: "clFoo failed: CL_BAR (file:line)". */
clconv_status clc_cl_fail(const char *call, cl_int err, const char *file,
                          int line);

/* Check an OpenCL call in a function that returns clconv_status and owns
 * no objects. */
#define CLC_CHECK(call)                                                       \
    do {                                                                      \
        cl_int clc_err_ = (call);                                             \
        if (clc_err_ != CL_SUCCESS)                                           \
            return clc_cl_fail(#call, clc_err_, __FILE__, __LINE__);          \
    } while (0)

/* Check an OpenCL call in a function that releases its objects at `out:`;
 * sets the variable `st`. */
#define CLC_CHECK_GOTO(call)                                                  \
    do {                                                                      \
        cl_int clc_err_ = (call);                                             \
        if (clc_err_ != CL_SUCCESS) {                                         \
            st = clc_cl_fail(#call, clc_err_, __FILE__, __LINE__);            \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* Create an object with a call whose last argument is &err, in a function
 * that releases at `out:`; on failure the error names the call. */
#define CLC_CREATE_GOTO(lhs, call)                                            \
    do {                                                                      \
        (lhs) = (call);                                                       \
        if (err != CL_SUCCESS) {                                              \
            st = clc_cl_fail(#call, err, __FILE__, __LINE__);                 \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* Check a code the named call returned, once the caller has looked at it
 * (a code that is not an error there, a refusal reported otherwise). */
#define CLC_CHECK_CALL_GOTO(name, code)                                       \
    do {                                                                      \
        if ((code) != CL_SUCCESS) {                                           \
            st = clc_cl_fail(name, (code), __FILE__, __LINE__);               \
            goto out;                                                         \
        }                                                                     \
    } while (0)

/* ---- device.c ---- */
/* Read a device's name, limits and kind into d (indices left as they
 * are). */
clconv_status clc_device_info_read(cl_platform_id pid, cl_device_id did,
                                   clconv_device_info *d);

/* Floats of a local row of n elements padded as cl/common.clh's CLC_PAD
 * at COARSEN c (one float per c where c is even, none where odd), plus
 * one. */
static inline size_t clc_pad_len(size_t n, size_t c)
{
    return n + (c > 0 && c % 2 == 0 ? n / c : 0) + 1;
}

/* ---- variants.c and variant_*.c: the variant table ----
 * Each variant is one clc_variant (in its family's file): name, summary,
 * per dims its preferred tile, knobs with ranges and tuning grids, its
 * mask policy, and the functions for its defaults and launch geometry.
 * The -D defines come from the knobs' define names (clc_append_defines),
 * the kernel file from clc_kernel_stem. */
typedef struct clc_geometry {
    size_t local[3];     /* work-group size per dimension */
    size_t global[3];    /* global size per dimension */
    size_t local_floats; /* __local floats the kernel declares */
} clc_geometry;

/* The knobs a kernel may be built with. The first two are the public
 * clconv_problem knobs (bit 1 << id of clconv_strategy_knobs); the others
 * are internal, chosen by the variant (or a measuring override). */
enum {
    CLC_KNOB_COARSEN = 0,
    CLC_KNOB_GROUP_Y,
    CLC_KNOB_ROWS,       /* 3D coarse: adjacent y rows per work-item */
    CLC_KNOB_VEC_BLOCKS, /* vector 2D/3D: floatv blocks side by side */
    CLC_KNOB_VEC_WIDTH,  /* vector 2D/3D: floats per block, 8 or 16 */
    CLC_KNOB_MARCH,      /* 2D coarse: 1 unrolled, private mask; 2 rolled */
    CLC_KNOB_XV,         /* 2D/3D coarse: consecutive columns per work-item */
    CLC_KNOB_SPANS,      /* 1D coarse: spans per work-group, prefetched */
    CLC_KNOB_VEC_PEEL,   /* vector 2D/3D: 1 the march's ends peeled */
    CLC_KNOB_GROUP_Z,    /* 3D coarse: work-items along z in a work-group */
    CLC_KNOB_VEC_PREFETCH, /* vector 3D: planes ahead prefetched, 0 none */
    CLC_KNOB_COUNT,
    CLC_KNOB_PUBLIC = 2
};

typedef struct clc_ints {
    const int *v;
    size_t n;
} clc_ints;
/* A static list of ints: CLC_INTS(1, 2, 4). */
#define CLC_INTS(...)                                                         \
    {(const int[]){__VA_ARGS__},                                              \
     sizeof((const int[]){__VA_ARGS__}) / sizeof(int)}

/* One knob of a variant on one dims; define NULL: not read. */
typedef struct clc_knob {
    const char *define; /* "COARSEN": built with -D COARSEN=<value> */
    int min, max;       /* accepted values */
    clc_ints grid;      /* values clconv tune tries (user knobs only) */
} clc_knob;

typedef struct clc_variant_dims {
    int tile;        /* preferred default tile: the largest one tried */
    int bench_tiles; /* clconv tune tries the bench tiles, default knobs */
    clc_ints tiles;  /* and then every tile x knob value of these grids */
    clc_knob knob[CLC_KNOB_COUNT];
} clc_variant_dims;

/* Measuring overrides from the environment (0: unset), read once when a
 * session is created (clc_overrides_read) and reported by
 * clconv_session_overrides(). */
typedef struct clc_overrides {
    int coarse_rows;   /* $CLCONV_COARSE_ROWS, 1..8 */
    int vector_blocks; /* $CLCONV_VECTOR_BLOCKS, 1..4 */
    int vector_width;  /* $CLCONV_VECTOR_WIDTH, 8 or 16 */
    int vector_peel;   /* $CLCONV_VECTOR_PEEL: 0 unset, 1 (=0) off, 2 (=1) on */
    int vector_prefetch; /* $CLCONV_VECTOR_PREFETCH: 0 unset, else 1 + planes */
    int batch_loop;    /* $CLCONV_BATCH_LOOP=1: a batch loops in the kernel */
    int coarse_march;  /* $CLCONV_COARSE_MARCH, 1 to 3 (2D: 1 or 2) */
    int coarse_spans;  /* $CLCONV_COARSE_SPANS, 1..8, 16, 32 (1D) */
    int coarse_xv;     /* $CLCONV_COARSE_XV, 1, 2, 4, 8 or 16 (2D/3D coarse) */
    int coarse_gz;     /* $CLCONV_COARSE_GZ, 1..8 (3D coarse) */
    int sep_lanes;     /* $CLCONV_SEP_LANES, 1 (GPUs' form) or 16 (CPUs') */
    int sep_coarsen[2]; /* $CLCONV_SEP_COARSEN=X,Y, each 1..64 */
    int sep_tile[2];    /* $CLCONV_SEP_TILE=X,Y: powers of two, 1..1024 */
    int sep_group_a;    /* $CLCONV_SEP_GROUP_A: 1, 2, 4, 8, 16 or 32 */
    int sep_fuse;       /* $CLCONV_SEP_FUSE: 0 unset, 1 (=0) off, 2 (=1) on */
    int sep_fuse_geom[3]; /* $CLCONV_SEP_FUSE_GEOM=XB,ROWS,CHUNK */
    int fma_shape[2];   /* $CLCONV_FMA_SHAPE=C,S: FMA ceiling's chains, steps */
} clc_overrides;
void clc_overrides_read(clc_overrides *o);

/* CLCONV_EUNSUPPORTED where p's elements exceed what one launch indexes
 * (INT_MAX); clconv_problem_validate allows more for streamed calls. */
clconv_status clc_launch_check(const clconv_problem *p);

/* A problem resolved for one device: every default chosen. This is what
 * a plan builds and launches. */
typedef struct clc_config {
    clconv_problem p;         /* tile, coarsen, group_y, mask mode set */
    int knob[CLC_KNOB_COUNT]; /* every knob the kernel is built with */
    /* Problems of p stacked along launch dimension p.dims (1: none): a
     * problem whose slowest axes the mask spans 1 wide runs the kernel of
     * its lower-dimensional member (clc_config_resolve_batched). */
    size_t batch;
    /* The batch's members looped over inside each work-group (-D
     * CLCONV_BATCH_LOOP, $CLCONV_BATCH_LOOP=1) instead of one NDRange
     * dimension, for measuring (bench/PERF.md). */
    int batch_loop;
    /* Integer element types converted by bit arithmetic (-D
     * CLCONV_CVT_BITS=1, cl/dtype.clh): on PoCL's CPUs (clc_cvt_bits). */
    int cvt_bits;
} clc_config;
/* Whether dev converts integer elements by bit arithmetic: PoCL's CPUs,
 * where u8 -> u8 ran 1.2-1.4x faster; NVIDIA's H100 ran it 10% slower
 * (bench/PERF.md item 58); elsewhere not measured. */
int clc_cvt_bits(const clconv_device_info *dev);
/* dev is a CPU device of PoCL (the implementation most defaults were
 * measured on: variant_vector.c's widths and peel, clc_cvt_bits). */
int clc_pocl_cpu(const clconv_device_info *dev);

typedef struct clc_variant {
    clconv_strategy strategy;
    const char *name;    /* "output_tile": also the kernel file's stem */
    const char *summary; /* one line for --help and reports */
    clc_variant_dims dims[3]; /* [dims - 1] */
    /* Mask policy: auto means baked on devices other than CPUs (GPUs
     * fold the values into immediates), argument everywhere else. */
    int baked_off_cpu;
    /* Fill c->knob[] where the user gave 0 (dev and ov may be NULL: the
     * defaults of no particular device, no override). */
    void (*defaults)(const clconv_device_info *dev, const clc_overrides *ov,
                     clc_config *c);
    /* Launch geometry and local memory of a resolved problem. */
    void (*geometry)(const clc_config *c, clc_geometry *g);
    /* The default tile to start fitting from, given the knobs (NULL: the
     * dims row's tile). */
    int (*preferred_tile)(const clc_config *c);
    /* 3D kernels that take the volume's extents as build constants where
     * the mask is baked (the program is specific to the problem already)
     * and at least this wide along some axis (0: never): row and plane
     * offsets fold into the loads (bench/PERF.md item 63). */
    int extents_baked_3d;
    /* Rows of the slowest axis at whose multiples, counted from the
     * launch's first row, the kernel splits outputs' sums between
     * work-items (NULL: none split; clc_config_split_rows). */
    size_t (*split_rows)(const clc_config *c);
} clc_variant;

/* The families (variant_tiled.c, variant_coarse.c, variant_vector.c). */
extern const clc_variant clc_variant_naive, clc_variant_output_tile,
    clc_variant_input_tile, clc_variant_cached_halo, clc_variant_coarse,
    clc_variant_vector;

const clc_variant *clc_variant_get(clconv_strategy s);
/* The kernel of a strategy on dims: file cl/<stem>.cl, kernel <stem>
 * ("conv2d_output_tile"). 0, or -1 if it does not fit. */
int clc_kernel_stem(clconv_strategy s, int dims, char *buf, size_t len);
/* Resolve p on dev (NULL: no device; limits of 1024 work-items) with the
 * overrides ov (may be NULL): tile 0 becomes the largest default tile
 * that fits the device, knobs 0 their defaults, mask mode auto the
 * variant's policy (stays auto when dev is NULL). */
void clc_config_resolve(const clconv_device_info *dev,
                        const clc_overrides *ov, const clconv_problem *p,
                        clc_config *c);
/* Geometry of a resolved problem, and of a problem with defaults for no
 * particular device (the model's one-tile view). */
/* clc_config_resolve on p's batch member (clc_batch_member): c->p is the
 * member, c->batch the count; a member's tile and knobs are those of its
 * own dimensions. */
void clc_config_resolve_batched(const clconv_device_info *dev,
                                const clc_overrides *ov,
                                const clconv_problem *p, clc_config *c);
/* The problem whose copies make up p along its slowest axes where the
 * mask is 1 wide there (any border mode is then the same): member gets
 * the lower-dimensional problem; returns the number of copies (1: p
 * itself). Every member is computed exactly as it would be alone. */
size_t clc_batch_member(const clconv_problem *p, clconv_problem *member);
/* The settings c resolved (tile, coarsen, group_y, mask mode) into p, a
 * problem of any shape whose kernel c is (a batch's whole problem). */
void clc_config_settings_to(const clc_config *c, clconv_problem *p);
void clc_config_geometry(const clc_config *c, clc_geometry *g);
/* 1, or the rows of the slowest axis at whose multiples from the launch's
 * first row c's kernel splits an output's sum into partial sums from
 * different work-items: a launch over a part of a problem gives the whole
 * launch's bits only where the part's first row is a multiple of it into
 * the whole (stream.c aligns its slabs so). */
size_t clc_config_split_rows(const clc_config *c);
void clc_geometry_of(const clconv_problem *p, clc_geometry *g);
/* "-D MASK_WIDTH=.. -D TILE_WIDTH=.." and " -D NAME=value" for every knob
 * the variant reads on c's dims, into buf; its length (at most len - 1).
 * A define that the whole library adds (a problem field every kernel
 * reads) belongs here, once. */
/* The element types' defines (" -D CLCONV_IN_DTYPE=CLCONV_DTYPE_U8 ...",
 * nothing for float32) into buf; the length written. */
size_t clc_elem_defines(const clc_config *c, char *buf, size_t len);
size_t clc_config_defines(const clc_config *c, char *buf, size_t len);
/* program.c: the defines of the problem's filter: -D MASK_WIDTH (a
 * centred cube) or MASK_X/Y/Z, TILE_WIDTH, ORIGIN_*, CLCONV_MODE,
 * CLCONV_CVAL and VEC_MARCH as needed. Returns the length written. */
size_t clc_filter_defines(const clconv_problem *p, char *buf, size_t len);
/* The problem's mask mode on a device: auto resolved (stays auto when dev
 * is NULL). */
clconv_mask_mode clc_mask_mode_for(const clconv_device_info *dev,
                                   const clconv_problem *p);

/* ---- limits.c: does a geometry fit a device ---- */
/* 1 if the work-group (size, per-dimension sizes) and local memory fit d;
 * else 0 and, when why is not NULL, the limit it exceeds. */
int clc_geometry_check(const clconv_device_info *d, int dims,
                       const clc_geometry *g, char *why, size_t len);
/* clc_geometry_check, then the mask and buffers against constant memory,
 * maximum allocation and global memory: CLCONV_OK, or CLCONV_EUNSUPPORTED
 * with the reason. */
clconv_status clc_problem_fits(const clconv_device_info *d,
                               const clc_config *c, const clc_geometry *g);
/* The launch of an element-wise kernel over n (one work-item an element,
 * each kernel ignoring those past n): up to 64 work-items along x, halved
 * to n[0] and d's limits, 1 along y and z; global is n rounded up to it.
 * No launch leaves its work-group to the runtime: PoCL's own choice
 * aborts the process on a device whose maximum is below its preferred
 * multiple (POCL_MAX_WORK_GROUP_SIZE=7: pocl_local_size.c, upper_divisor,
 * "Assertion `limit > 0' failed"). */
void clc_flat_launch(const clconv_device_info *d, const size_t n[3],
                     size_t local[3], size_t global[3]);
/* The built kernel's limits against the planned launch: a compiled
 * reqd_work_group_size other than g's is CLCONV_EINTERNAL, local memory
 * or a work-group beyond what the kernel allows CLCONV_EUNSUPPORTED. */
clconv_status clc_kernel_limits_check(clconv_session *s, cl_kernel k,
                                      const char *stem, const clc_geometry *g);

/* ---- problem.c, reference.c: filter semantics ---- */
/* 1 if the mask has the same width along every axis of the data. */
int clc_mask_is_cubic(const clconv_problem *p);
/* 1 if p has 1 to 3 dims and its mask 1 to CLC_MASK_MAX_WIDTH taps along
 * each: a mask whose 1D factors fit CLC_MASK_MAX_WIDTH floats per axis
 * (clconv_mask_separable, clconv_fill_separable take problems no plan
 * has validated). */
int clc_mask_axes_fit(const clconv_problem *p);
/* The element that index i of an axis of n elements reads under border
 * mode b (i itself inside; -1 for the constant mode's ghost value). */
long clc_border_index(long i, long n, clconv_border b);

/* ---- program.c ---- */
typedef struct clc_program_cache clc_program_cache;
clc_program_cache *clc_program_cache_new(void);
void clc_program_cache_free(clc_program_cache *cache);
/* The -D options of a resolved problem, in a fixed order: MASK_WIDTH,
 * TILE_WIDTH, the variant's knobs, then the instrumentation and the baked
 * mask (malloc'd; NULL and the last error set when out of memory). mask
 * (W^dims floats) is compiled in as -D CLCONV_MASK_VALUES when the
 * problem's mask is baked. clc_program_get puts the session's -cl-std
 * first. */
char *clc_build_options(const clc_config *c, int count_loads,
                        const float *mask);
/* Write m floats as comma-separated OpenCL C literals that read back
 * exactly (at most 24 characters each, NUL-terminated); returns the
 * length. */
size_t clc_format_floats(char *buf, size_t len, const float *v, size_t m);
/* Build (or fetch from the session's cache) the program of cl/<stem>.cl
 * ("conv2d_output_tile") with the given options; the program stays owned by
 * the cache. Convolution kernels get cl/dtype.clh and cl/common.clh
 * prepended (with_common CLC_SRC_COMMON), the type conversions
 * (convert.cl) dtype.clh alone (CLC_SRC_TYPES); other kernels (bench
 * ceilings) are built from their own file alone (0). */
enum { CLC_SRC_ALONE = 0, CLC_SRC_COMMON = 1, CLC_SRC_TYPES = 2 };
clconv_status clc_program_get(clconv_session *s, const char *stem,
                              const char *options, int with_common,
                              cl_program *out);

/* ---- image.c and image_pnm.c ---- */
/* Round to nearest and clamp to 0..maxval; NaN becomes 0. */
unsigned clc_image_quantize(float v, unsigned maxval);
/* Samples of an image, or 0 when a side or the count is out of range. */
size_t clc_image_samples(size_t w, size_t h, int channels);
/* PGM/PPM (P2, P3, P5, P6): names, in and out. */
const char *clc_pnm_format_name(clconv_image_format f);
clconv_status clc_pnm_decode(const unsigned char *data, size_t len,
                             clconv_image *img);
clconv_status clc_pnm_encode(const clconv_image *img, unsigned char **buf,
                             size_t *len);

/* ---- stderr_capture.c: what a driver prints itself during a call ---- */
typedef struct clc_stderr_capture {
    int saved;
    FILE *tmp;
} clc_stderr_capture;
/* Send stderr (fd 2) to a temporary file until _end; one thread at a time
 * (the next waits in _begin until _end). Every _begin has its _end. */
void clc_stderr_capture_begin(clc_stderr_capture *c);
/* Restore stderr; what was written meanwhile (malloc'd), or NULL. */
char *clc_stderr_capture_end(clc_stderr_capture *c);

/* ---- fileio.c: hash and cache folder (and clconv_file_read/write of
 * clconv_io.h) ---- */
#define CLC_FNV1A64_INIT 0xcbf29ce484222325ULL
/* FNV-1a, 64 bits: continue hash h over n bytes. */
uint64_t clc_fnv1a64(uint64_t h, const void *data, size_t n);
/* $XDG_CACHE_HOME/clconv[/sub] (else $HOME/.cache/clconv[/sub]); with
 * create, made with its parents. CLCONV_EIO if there is no home or the
 * folder cannot be made. */
clconv_status clc_cache_dir(const char *sub, int create, char *buf,
                            size_t len);

/* Reading a file or a stream a piece at a time (clconv_file_read and
 * clconv_input_read are built on it). */
typedef struct clc_stream {
    int fd;
    const char *path;
    unsigned char *b; /* what was read, malloc'd (one byte spare for a NUL) */
    size_t n, cap;
    int eof;
} clc_stream;
/* Read until at least want bytes are held or the stream ends. */
clconv_status clc_stream_read(clc_stream *s, size_t want);
/* Read path whole (at most max_len bytes, else CLCONV_EINVAL; malloc'd,
 * NUL after the last byte); a path that is not a regular file goes to
 * stream(s, max_len) instead when it is not NULL, which reads into s as
 * far as it allows. */
clconv_status clc_read_path(const char *path, size_t max_len,
                            clconv_status (*stream)(clc_stream *s,
                                                    size_t max_len),
                            unsigned char **buf, size_t *len);
/* clc_read_path for the caches' files: a path that is not a regular file
 * (a FIFO, a device) is CLCONV_EIO, found without blocking. */
clconv_status clc_read_regular(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len);

/* ---- kernel_hash.c: clconv_kernel_hash, kept per variant while its
 * sources stay as they were ---- */
/* How many times this process read and hashed a variant's sources (the
 * others were answered from what it kept). */
unsigned long clc_kernel_hash_reads(void);

/* ---- tune_file.c: what a tuning file's entry line can hold ---- */
struct clconv_tuning;
/* Is every field of e within what an entry line holds and the reader
 * takes back (mask_size written out, as clconv_tune_put stores it)?
 * CLCONV_EINVAL naming the first field that is not. The one check of
 * clconv_tune_put (before anything is stored) and of the reader. */
clconv_status clc_tune_entry_check(const struct clconv_tuning *e);

/* ---- output_path.c: where an output path leads (output.c's rules) ---- */
struct stat;
/* The folder of path ("." when it has no slash); malloc'd. */
char *clc_dir_of(const char *path);
/* Follow symlinks: *target is the first path that is not a link
 * (malloc'd), or the path itself where open(2) would reach something
 * neither a regular file nor a folder (/dev/stdout into a pipe); *exists
 * says whether it exists, *sb is its stat. */
clconv_status clc_output_resolve(const char *path, char **target,
                                 int *exists, struct stat *sb);
/* Can a file be created in target's folder? CLCONV_EINVAL with the
 * reason (shown: the path as given) if not. */
clconv_status clc_output_check_folder(const char *shown, const char *target);
/* The descriptor of this process that holds the socket path leads to (sb
 * its stat: /dev/stdin, /dev/stdout, /dev/fd/N), which open(2) cannot
 * reach (ENXIO); -1 if none does. */
int clc_socket_fd(const char *path, const struct stat *sb);
/* The mode of a file replacing old (NULL: none): old's, or 0666 less the
 * umask. */
mode_t clc_output_replacing_mode(const struct stat *old);

/* ---- tempfiles.c: temporary files removed on SIGINT/TERM/HUP/PIPE ---- */
/* Register a path (a slot, or -1 when none is free: then a signal leaves
 * it behind); unregister once it is renamed or removed. */
int clc_temp_register(const char *path);
void clc_temp_unregister(int slot);
/* The handlers, once per process (also on the first registration): called
 * before OpenCL is first touched, so that an OpenCL compiler's own
 * handlers chain to them (tempfiles.c). */
void clc_temp_install(void);
/* templ's last 6 characters (XXXXXX) made random. */
void clc_temp_name(char *templ);
/* Create a new file (mode 0600) at templ with its XXXXXX made random,
 * registered before it exists, so that no signal can leave it behind: the
 * descriptor (*slot its registration), or -1 with errno set. */
int clc_temp_create(char *templ, int *slot);

/* ---- program_cache.c: the program binary cache. Best effort: a miss or a
 * doubtful entry never fails a build, it only costs the JIT. ---- */
/* The options a build really uses: options, then $CLCONV_BUILD_OPTIONS
 * (malloc'd; NULL when out of memory). */
char *clc_effective_options(const char *options);
/* The program binary cache is on unless $CLCONV_NO_CACHE is set (and not
 * "0"). */
int clc_program_disk_cache_enabled(void);
/* A program of these sources and options built from the cached binary, or
 * *out = NULL (a miss; a doubtful entry is deleted). */
void clc_program_disk_load(clconv_session *s, const char *const *parts,
                           size_t nparts, const char *options,
                           cl_program *out);
/* Save the binary of a program built from source (best effort). */
void clc_program_disk_store(clconv_session *s, const char *const *parts,
                            size_t nparts, const char *options,
                            cl_program prog);
/* What the binary cache did in this thread (tests, reports). */
typedef struct clc_program_disk_stats {
    unsigned long hits;     /* built from a cached binary */
    unsigned long misses;   /* no entry */
    unsigned long rejected; /* an entry existed but was not trusted */
    unsigned long stored;   /* entries written */
    unsigned long evicted;  /* entries deleted to keep the bound */
    unsigned long scans;    /* times the folder was added up for it */
    char last_reject[4400]; /* why the last rejected entry was rejected */
} clc_program_disk_stats;
void clc_program_disk_stats_get(clc_program_disk_stats *out);

/* The program cache's bound (cache_bound.c): $CLCONV_CACHE_MAX_MB MiB (a
 * decimal number; 0: no bound; unset or not a number:
 * CLC_CACHE_DEFAULT_MB), in bytes. */
#define CLC_CACHE_DEFAULT_MB 2048
uint64_t clc_cache_bound_bytes(void);
/* Mark the entry at path used now (its modification time). */
void clc_cache_touch(const char *path);
/* Above max_bytes (0: no bound) of regular files named *suffix in dir,
 * delete the least recently used (oldest modification time) until they
 * hold at most nine tenths of it, never `keep` (a name in dir, or NULL).
 * Returns how many this call deleted. */
long clc_cache_evict(const char *dir, const char *suffix, uint64_t max_bytes,
                     const char *keep);

/* ---- plan_cache.c: the session's plans for host-to-host calls ---- */
typedef struct clc_plan_cache clc_plan_cache;
clc_plan_cache *clc_plan_cache_new(void);
void clc_plan_cache_free(clc_plan_cache *c);
/* A plan of p holding mask, from the cache or made (owned by the cache:
 * valid until the session ends or CLC_PLAN_CACHE_SIZE other shapes
 * pass). */
clconv_status clc_plan_cache_get(clconv_session *s, const clconv_problem *p,
                                 const float *mask, clconv_plan **out);

/* ---- stream.c ---- */
/* Output rows [begin, end) of the slowest axis of p (whole arrays in and
 * out) in at least nslabs_min slabs (more where the device's allocation
 * limit needs), streamed with overlapped transfers; *nslabs gets how many
 * ran. part (NULL: p is the whole) places p in a larger problem
 * (clconv_convolve_part). */
/* CLCONV_EINVAL unless part (NULL: none) holds some of its whole's rows. */
clconv_status clc_part_check(const clconv_problem *p, const clconv_part *part);
clconv_status clc_stream_rows(clconv_session *s, const clconv_problem *p,
                              const clconv_part *part, const void *in,
                              const float *mask, void *out,
                              size_t begin, size_t end, size_t nslabs_min,
                              size_t *nslabs);

/* ---- staging.c: pinned host chunks between pageable arrays and a GPU ---- */
enum { CLC_STAGE_CHUNKS = 8 };
typedef struct clc_stage_chunk {
    cl_mem mem;     /* CL_MEM_ALLOC_HOST_PTR */
    void *ptr;      /* mapped for the session's life */
    cl_event ev;    /* its last transfer */
    char *copy_to;  /* a download it holds: the caller's bytes, or NULL */
    size_t copy_bytes;
} clc_stage_chunk;
typedef struct clc_staging {
    clc_stage_chunk c[CLC_STAGE_CHUNKS];
    size_t want_bytes;  /* a chunk's size ($CLCONV_PINNED_CHUNK_BYTES) */
    size_t chunk_bytes; /* 0 until first use */
    int next;           /* the ring's next chunk */
} clc_staging;
/* Upload bytes of src into dst at offset through the ring (after the
 * nwait events); *done: the last piece's write (the upload's end on the
 * in-order upload queue, s->xfer[0]). */
clconv_status clc_staged_write(clconv_session *s, cl_mem dst, size_t offset,
                               const void *src, size_t bytes, cl_uint nwait,
                               const cl_event *wait, cl_event *done);
/* Download bytes of src at offset into dst through the ring (on
 * s->xfer[1]); *done: the last piece's read (src may be reused after it);
 * dst holds them only after clc_staging_drain. */
clconv_status clc_staged_read(clconv_session *s, cl_mem src, size_t offset,
                              void *dst, size_t bytes, cl_uint nwait,
                              const cl_event *wait, cl_event *done);
/* Wait for every chunk and copy the downloads they hold out to the caller
 * (copy_out 0: after an error, drop them). */
clconv_status clc_staging_drain(clconv_session *s, int copy_out);
/* Read $CLCONV_PINNED_CHUNK_BYTES (CLCONV_EINVAL if malformed). */
clconv_status clc_staging_init(clconv_session *s);
/* Unmap and free the ring (at the session's end). */
void clc_staging_free(clconv_session *s);

/* The device buffers of streamed slabs kept between calls (slab_pipe.c):
 * two inputs, two outputs. */
typedef struct clc_slab_buffers {
    cl_mem mem[4];
    size_t bytes[4];
} clc_slab_buffers;

/* ---- session.c ---- */
#define CLC_FFT_REFUSED 4 /* refused FFT sizes a session remembers */
struct clconv_session {
    clconv_device_info dev;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;      /* kernels (and everything by default) */
    cl_command_queue xfer[2];    /* uploads, downloads of streamed slabs
                                    (made on first use) */
    /* An in-order queue for work that needs one (VkFFT's kernels follow
     * each other without events) where the queue is an application's
     * out-of-order one: made on first use (clc_session_ordered_queue). */
    cl_command_queue ordered;
    clc_program_cache *programs;
    clc_plan_cache *plans;
    /* The largest buffer clconv allocates: the device's maximum, or
     * $CLCONV_MAX_ALLOC_BYTES (read when the session is made) if smaller,
     * which forces small slabs for tests. */
    uint64_t alloc_limit;
    /* Host-to-host calls bind the caller's memory in place
     * (CL_MEM_USE_HOST_PTR): on CPU devices, unless $CLCONV_ZERO_COPY=0. */
    int zero_copy;
    /* Host-to-host calls without zero-copy move data through pinned
     * staging (staging.c): on devices other than CPUs, unless
     * $CLCONV_PINNED=0. */
    int pinned;
    clc_staging staging;
    clc_slab_buffers slab_buffers;
    clc_overrides overrides; /* measuring overrides, read at creation */
    char overrides_text[384]; /* "CLCONV_COARSE_ROWS=2", or "" */
    char overrides_ignored[384]; /* set to values they do not take */
    char cl_std[16];         /* "-cl-std=CL1.2", "-cl-std=CL1.1" or "" */
    /* The device's ceilings once measured on this session
     * (clconv_measure_ceilings), else 0: the cost model of the automatic
     * method then estimates them from the device's description. */
    double copy_gbs, fp32_gflops;
    /* f16 data on the device (vload_half/vstore_half): where the device
     * reports cl_khr_fp16, or as $CLCONV_FP16=0|1 says; else the plans
     * convert f16 to and from float32 on the host. */
    int fp16;
    /* Transform sizes (each problem's first) whose FFT plan this session
     * refused (host/lib/fft.c: wrong on an impulse, or work-groups too
     * wide for a CPU), the last CLC_FFT_REFUSED of them: clc_fft_fits
     * says no to them, so auto does not plan them again on each call. */
    size_t fft_refused[CLC_FFT_REFUSED][3];
    int fft_nrefused;
    /* Threads that share the session take turns in what changes the
     * above (its caches, staging, slab buffers, queues made on first
     * use): plan creation and the host-to-host calls hold the lock
     * (clc_session_lock). Recursive: a host-to-host call makes plans. */
    pthread_mutex_t lock;
    int lock_made;
};
/* The session's queue where it executes in order, else (an application's
 * out-of-order queue) an in-order queue of the same context, device and
 * profiling made on first use; NULL with the failure recorded. */
cl_command_queue clc_session_ordered_queue(clconv_session *s);
/* clFinish on the session's queue and on its in-order one if made: all
 * the session's work done. The first failure, or CL_SUCCESS. */
cl_int clc_session_finish(clconv_session *s);

/* The parts of a session both constructors share: caches and the
 * allocation limit (st is the error of a bad $CLCONV_MAX_ALLOC_BYTES). */
/* The session's lock (struct clconv_session): taken by clc_plan_create
 * and the host-to-host calls; nothing for s NULL. */
void clc_session_lock(clconv_session *s);
void clc_session_unlock(clconv_session *s);
clconv_status clc_session_init(clconv_session *s);



/* ---- dtype.c: element types and the host's conversions ---- */
int clc_elem_is_int(clconv_elem t);
/* x as type t holds it (rounded to nearest, saturated for integers). */
double clc_elem_round(clconv_elem t, double x);
double clc_half_to_double(uint16_t h);
uint16_t clc_half_from_double(double x);
/* Element i of an array of type t, exactly, as a double; and written. */
double clc_elem_get(clconv_elem t, const void *data, size_t i);
void clc_elem_set(clconv_elem t, void *data, size_t i, double x);
void clc_elem_to_float(clconv_elem t, const void *src, size_t n,
                        float *dst);
/* (and the public clconv_elems_from_float, clconv.h) */
/* f16 data on a device without it: v->q is p in float32, v->in and v->out
 * what to pass for in and out (float32 copies where p's are f16; the
 * input converted on open). Close converts elements [first, first +
 * count) of the output into out where the call succeeded (st), and frees
 * the copies. */
/* Does p hold f16 data that s's device lacks (converted on the host)? */
int clc_f16_on_host(const clconv_session *s, const clconv_problem *p);
typedef struct clc_f32_view {
    clconv_problem q;
    const void *in;
    void *out;
    float *fin, *fout;
} clc_f32_view;
clconv_status clc_f32_view_open(const clconv_problem *p, const void *in,
                                void *out, clc_f32_view *v);
void clc_f32_view_close(clc_f32_view *v, const clconv_problem *p, void *out,
                        size_t first, size_t count, clconv_status st);
/* clconv_convolve_typed of f16 data on a device without it: float32 on
 * the device, converted on the host. */
clconv_status clc_convolve_via_f32(clconv_session *s, const clconv_problem *p,
                                   const void *in, const float *mask,
                                   void *out, clconv_call_info *info);

/* ---- mask_spec.c, mask_named.c: masks from specs ---- */
/* Bounds that keep a mask sane and its allocation small. */
#define CLC_MASK_MAX_WIDTH 1023
#define CLC_MASK_MAX_ELEMENTS (1u << 24)
/* Allocate m's values for widths size[0..dims-1] (x first). */
clconv_status clc_mask_alloc(clconv_mask *m, int dims, const int size[3]);
/* Every value finite; if normalized, raw_sum (the sum the values were
 * divided by) finite and non-zero. */
clconv_status clc_mask_check(const char *spec, const clconv_mask *m,
                             int normalized, double raw_sum);
/* box:W, gaussian:W[:sigma], sobel-x, ... (spec starts with a letter). */
clconv_status clc_mask_parse_named(const char *spec, int dims,
                                   clconv_mask *out);
/* Does spec begin with a named mask's name (then ':', ',', ';' or its
 * end)? */
int clc_mask_names_one(const char *spec);

/* ---- npy_header.c: the header dict of a .npy ---- */
typedef struct clc_npy_header {
    clconv_dtype dtype;
    int big, fortran, dims;
    size_t shape[CLCONV_NPY_MAX_DIMS];
} clc_npy_header;
/* Parse the dict literal of n bytes (CLCONV_EINVAL with the reason). */
clconv_status clc_npy_parse_dict(const char *s, size_t n, clc_npy_header *h);
/* npy.c, shared with the writer (npy_write.c): the magic that opens a
 * .npy, and each of count elements of isz bytes byte-reversed in place. */
extern const unsigned char clc_npy_magic[6];
void clc_swap_elements(unsigned char *p, size_t count, size_t isz);
/* 1 on a big-endian host, 0 on a little-endian one. */
int clc_host_big_endian(void);

/* ---- separable.c: dims passes of a 1D filter (issue 17 item 1) ---- */
typedef struct clc_sep clc_sep;
/* The passes of p's mask, which must be separable (CLCONV_EINVAL with the
 * reason otherwise); kernels built now, intermediates on first launch. */
clconv_status clc_sep_create(clconv_session *s, const clconv_problem *p,
                             const float *mask, clc_sep **out);
void clc_sep_destroy(clc_sep *sp);
/* Whether the separable path runs p's x and y passes as one kernel on
 * dev by default (cl/sep_xy.cl: CPUs, y masks up to 128 taps). */
int clc_sep_fuses(const clconv_device_info *dev, const clconv_problem *p);
/* Enqueue the passes from in to out after the wait list; first and last
 * (may be NULL) get the first and last pass's events. */
clconv_status clc_sep_launch(clc_sep *sp, cl_mem in, cl_mem out,
                             cl_uint nwait, const cl_event *wait,
                             cl_event *first, cl_event *last);

/* ---- fft.c: pad, R2C, multiply spectra, C2R, crop (issue 17 item 2) */
typedef struct clc_fft clc_fft;
clconv_status clc_fft_create(clconv_session *s, const clconv_problem *p,
                             clc_fft **out);
void clc_fft_destroy(clc_fft *f);
/* Transform a mask (Wx * Wy * Wz floats, x fastest) into the path's mask
 * spectrum, placed for the problem's origin and flip. */
clconv_status clc_fft_set_mask(clc_fft *f, const float *mask);
clconv_status clc_fft_launch(clc_fft *f, cl_mem in, cl_mem out,
                             cl_uint nwait, const cl_event *wait,
                             cl_event *first, cl_event *last);
/* Elements of the padded transform (product of its sizes). */
double clc_fft_padded_elements(const clconv_problem *p);
/* The transform's size along each axis (1 beyond p's dims). */
void clc_fft_padded_sizes(const clconv_problem *p, size_t len[3]);
/* 1 where p's FFT arrays fit s's device and s has not refused its sizes. */
int clc_fft_fits(const clconv_session *s, const clconv_problem *p);
/* Bytes of p's padded array (its spectrum as many). */
uint64_t clc_fft_array_bytes(const clconv_problem *p);
/* 1 where p's padded array and its spectrum each fit one allocation of s
 * and the two with the data's buffers its device (whatever s refused). */
int clc_fft_fits_alloc(const clconv_session *s, const clconv_problem *p);

/* ---- fft_vkfft.c: VkFFT's OpenCL backend, in its own file ---- */
typedef struct clc_vkfft clc_vkfft;
/* An in-place R2C/C2R application of len[0..dims) reals on buffer (VkFFT's
 * padded layout: rows of 2 * (len[0] / 2 + 1) floats), on queue (of s's
 * context; in order: VkFFT's kernels follow each other without events). */
clconv_status clc_vkfft_create(clconv_session *s, cl_command_queue queue,
                               int dims,
                               const size_t len[3], cl_mem buffer,
                               clc_vkfft **out);
/* Enqueue the forward (inverse 0) or unnormalised inverse transform of
 * buffer, which has the layout the application was made for. */
clconv_status clc_vkfft_run(clc_vkfft *v, cl_mem buffer, int inverse);
/* The widest x extent of a work-group among v's kernels. */
size_t clc_vkfft_max_local_x(const clc_vkfft *v);
void clc_vkfft_destroy(clc_vkfft *v);

/* ---- path.c: a plan's separable or FFT path behind one interface ---- */
typedef struct clc_path clc_path;
/* The path of p->method (separable or FFT, resolved); mask may be NULL
 * for FFT (then set later). */
clconv_status clc_path_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, clc_path **out);
void clc_path_destroy(clc_path *path);
/* FFT: transform the new mask. Separable: the 1D masks are compiled in,
 * so another mask than the plan's is CLCONV_EINVAL. */
clconv_status clc_path_set_mask(clc_path *path, const float *mask);
clconv_status clc_path_launch(clc_path *path, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *first, cl_event *last);

/* ---- method.c: the cost model and the automatic choice ---- */
/* The method a plan of p runs on dev: auto resolved by the cost model
 * (separable only when mask is given and separable; FFT only with a
 * mask). */
clconv_method clc_method_choose(const clconv_session *s,
                                const clconv_problem *p, const float *mask);

/* ---- plan.c: instrumented plans (clconv model's counted loads) ---- */
/* Like clconv_plan_create; with count_loads the kernel is built with
 * -D CLCONV_COUNT_LOADS and counts its global loads of N and local reads. */
clconv_status clc_plan_create(clconv_session *s, const clconv_problem *p,
                              const float *mask, int count_loads,
                              clconv_plan **out);
/* Enqueue the plan's kernel on in and out after the wait list, without
 * waiting (ev may be NULL). A launch the driver refuses is
 * CLCONV_EUNSUPPORTED. */
clconv_status clc_plan_launch(clconv_plan *pl, cl_mem in, cl_mem out,
                              cl_uint nwait, const cl_event *wait,
                              cl_event *ev);
const clconv_problem *clc_plan_problem(const clconv_plan *pl);
clconv_session *clc_plan_session(const clconv_plan *pl);
/* The plan's own device buffers (input, output), made on first use. */
/* The type and bytes per element of the plan's device input (out 0) or
 * output (1);
 * whether it converts f16 on the host (a device without cl_khr_fp16). */
clconv_elem clc_plan_device_elem(const clconv_plan *pl, int out);
size_t clc_plan_elem_size(const clconv_plan *pl, int out);
int clc_plan_host_converts(const clconv_plan *pl);
clconv_status clc_plan_buffers(clconv_plan *pl, cl_mem *in, cl_mem *out);
/* A plan's enqueued work in order on any queue: its own buffers, passes
 * and mask are shared by every enqueue, so each waits for the one before.
 * clc_plan_after: the wait list of nwait events (wait) with the plan's
 * last event added, in *all (freed by the caller; NULL where nothing is
 * added, and then the caller's list stands; a last event that has ended,
 * completed or failed, is dropped). clc_plan_last: ev (retained)
 * is now the plan's last; NULL when the work before is known done. */
clconv_status clc_plan_after(clconv_plan *pl, cl_uint *nwait,
                             const cl_event **wait, cl_event **all);
void clc_plan_last(clconv_plan *pl, cl_event ev);
/* stream.c: in, or where [in, in + in_bytes) overlaps [out, out +
 * out_bytes) a copy of it in *copy (malloc; NULL when out of memory). */
const void *clc_unaliased(const void *in, size_t in_bytes, const void *out,
                          size_t out_bytes, void **copy);
/* Wait on the host for the plan's enqueued work (before a blocking call
 * replaces what it reads or writes). */
clconv_status clc_plan_drain(clconv_plan *pl);
/* CLCONV_OK where the plan's session can time its work (its queue
 * profiles), else CLCONV_EINVAL saying so. */
clconv_status clc_plan_timeable(const clconv_plan *pl);

/* The mask as the kernels read it: flipped on every axis for a
 * convolution (p->flip), else copied; m elements. */
void clc_mask_oriented(const clconv_problem *p, const float *mask, size_t m,
                       float *out);
/* The counters of the last execute: [0] global loads of N, [1] local reads. */
clconv_status clc_plan_counters(clconv_plan *plan, long long counts[2]);
#endif
