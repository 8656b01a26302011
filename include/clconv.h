/* clconv: tiled 1D/2D/3D convolution in OpenCL C, on any vendor's device.
 *
 * The public API of libclconv. Every function returns a clconv_status; on
 * anything other than CLCONV_OK, clconv_last_error() holds one line that
 * says what went wrong (the OpenCL call and error name, the unsupported
 * limit, the build log...). Library code never prints and never exits.
 * A NULL where such a function wants an object or a place for its result
 * is CLCONV_EINVAL (unless the comment says it may be NULL). The functions
 * that return something else never crash on a NULL either: given one,
 * they return NULL for a pointer and 0 for a number unless their comment
 * names another value (clconv_plan_method, clconv_method_choose), and a
 * void function does nothing (a verification gives a failed verdict).
 * This holds in every header of include/; clconv_mpi.h states how its
 * collective calls take a NULL.
 *
 * Convolution here is correlation, as in the reference notes and in
 * scipy.ndimage.correlate:
 *   P[i] = sum_{j=0}^{W-1} N[i - (W/2 + origin) + j] * M[j]
 * per axis, with ghost cells (outside N) equal to 0 (the constant border
 * mode with cval 0; clconv_problem picks another mode, a per-axis mask,
 * an origin, or true convolution) and an output of the same size as the
 * input. Arrays are row-major, x fastest: element (x, y, z) is at
 * (z * ny + y) * nx + x; a mask of widths wx, wy, wz likewise. */
#ifndef CLCONV_H
#define CLCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLCONV_VERSION_STRING "0.1.0"

typedef enum clconv_status {
    CLCONV_OK = 0,
    CLCONV_EINVAL,      /* bad argument: even mask, zero size, ... */
    CLCONV_EUNSUPPORTED, /* does not fit the device; reason in last error */
    CLCONV_EOPENCL,     /* an OpenCL call failed */
    CLCONV_EBUILD,      /* a kernel failed to build (log in last error) */
    CLCONV_ENOPLATFORM, /* no OpenCL platform or device at all */
    CLCONV_ENOKERNELS,  /* kernel sources not found */
    CLCONV_ENOMEM,      /* host allocation failed */
    CLCONV_EIO,         /* reading or writing a file failed */
    CLCONV_EINTERNAL    /* a bug in clconv: a variant's launch geometry
                           disagrees with its compiled kernel */
} clconv_status;

/* The last error of this thread, one line, never NULL. */
const char *clconv_last_error(void);
/* A short name for a status ("unsupported", "OpenCL error", ...). */
const char *clconv_status_name(clconv_status st);
/* The name of an OpenCL error code ("CL_INVALID_WORK_GROUP_SIZE"), or
 * "unknown OpenCL error (N)". */
const char *clconv_cl_error_name(int cl_error);

/* ---- devices ---------------------------------------------------------- */

typedef enum clconv_device_kind {
    CLCONV_DEVICE_OTHER = 0,
    CLCONV_DEVICE_CPU,
    CLCONV_DEVICE_GPU,
    CLCONV_DEVICE_ACCELERATOR
} clconv_device_kind;

typedef struct clconv_device_info {
    unsigned platform_index; /* P of "P:D" */
    unsigned device_index;   /* D of "P:D" */
    char name[256];
    char vendor[256];
    char platform[256];
    char version[128];        /* CL_DEVICE_VERSION */
    char driver[128];         /* CL_DRIVER_VERSION */
    clconv_device_kind kind;
    unsigned compute_units;
    unsigned clock_mhz;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    uint64_t local_mem_bytes;
    uint64_t constant_mem_bytes;
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;
    void *opaque_device; /* the cl_device_id */
    void *opaque_platform; /* the cl_platform_id */
} clconv_device_info;

typedef struct clconv_device_list {
    clconv_device_info *devices;
    size_t count;
} clconv_device_list;

/* Enumerate every device of every platform. No platform at all is
 * CLCONV_ENOPLATFORM with advice on installing PoCL. */
clconv_status clconv_devices_discover(clconv_device_list *list);
void clconv_devices_free(clconv_device_list *list);
const char *clconv_device_kind_name(clconv_device_kind kind);

/* Select devices: a comma-separated list of "P:D", "all", "cpu", "gpu" or a
 * case-insensitive substring of name, vendor or platform. NULL means all;
 * an empty selector or an empty term ("", ",", "cpu,") is CLCONV_EINVAL
 * whatever the devices are (the syntax is checked first). Fills selected[] (room for list->count entries) with indices into
 * list->devices, without duplicates. A term that matches nothing is
 * CLCONV_EINVAL. */
clconv_status clconv_devices_select(const clconv_device_list *list,
                                    const char *selector, size_t *selected,
                                    size_t *nselected);

/* ---- problems and variants -------------------------------------------- */

typedef enum clconv_strategy {
    CLCONV_NAIVE = 0,   /* one work-item per output, all from global */
    CLCONV_OUTPUT_TILE, /* strategy 1: group = output tile, halo in steps */
    CLCONV_INPUT_TILE,  /* strategy 2: group = input tile */
    CLCONV_CACHED_HALO, /* strategy 3: group = output tile, halo via cache */
    CLCONV_COARSE,      /* several outputs per work-item along the slowest
                           axis from a register window (3D: z-marching);
                           neighbours through the cache, no barrier */
    CLCONV_VECTOR,      /* float16 blocks of consecutive x outputs with
                           explicit vload16/vstore16 (SIMD within the
                           work-item, for CPUs); 2D/3D march along y/z */
    CLCONV_STRATEGY_COUNT
} clconv_strategy;

const char *clconv_strategy_name(clconv_strategy s);
/* One line on what the strategy does (for help texts and reports). */
const char *clconv_strategy_summary(clconv_strategy s);
/* Every strategy's name, in enum order, joined by ", " into buf (cut to
 * len); the length the whole list needs (buf NULL: that length only). */
size_t clconv_strategy_list(char *buf, size_t len);
/* Parse a strategy name; CLCONV_EINVAL if unknown. */
clconv_status clconv_strategy_parse(const char *name, clconv_strategy *out);

/* The default TILE_WIDTH of a strategy for dims on a device of 1024
 * work-items (the variant's preferred tile, 256, 16, 8 for the notes'
 * strategies in 1D, 2D, 3D, halved until the work-group fits). */
int clconv_default_tile(clconv_strategy s, int dims, int mask_width);

/* The tuning knobs of clconv_problem that strategy s reads for dims: an OR
 * of these bits (0: none). Coarse reads both; vector reads coarsen
 * (float16 blocks per work-item in 1D, rows or planes marched per
 * work-item in 2D and 3D). */
#define CLCONV_KNOB_COARSEN 1
#define CLCONV_KNOB_GROUP_Y 2
int clconv_strategy_knobs(clconv_strategy s, int dims);
/* The values a knob (one CLCONV_KNOB_ bit) accepts for strategy s on
 * dims; CLCONV_EINVAL when s does not read it there. */
clconv_status clconv_knob_range(clconv_strategy s, int dims, int knob,
                                int *min, int *max);
/* The smallest min and largest max of a knob over every strategy and dims
 * that reads it (0, 0 when none does): what a command line accepts.
 * Nothing is written unless both are given. */
void clconv_knob_bounds(int knob, int *min, int *max);

/* Where the kernel finds the mask. */
typedef enum clconv_mask_mode {
    CLCONV_MASK_AUTO = 0,  /* baked for coarse and vector on GPUs, argument
                              otherwise (CPUs, the notes' strategies) */
    CLCONV_MASK_ARGUMENT,  /* a __constant buffer argument, uploaded by
                              clconv_plan_set_mask: one program per shape */
    CLCONV_MASK_BAKED      /* the values compiled into the program as a
                              program-scope __constant array, so they
                              become constants: one program per mask */
} clconv_mask_mode;

const char *clconv_mask_mode_name(clconv_mask_mode m);
/* Parse "auto", "argument" or "baked"; CLCONV_EINVAL if unknown. */
clconv_status clconv_mask_mode_parse(const char *name, clconv_mask_mode *out);

/* What the input reads outside its bounds: scipy.ndimage's modes, with
 * OpenCV's equivalent in brackets (input a b c d). */
typedef enum clconv_border {
    CLCONV_BORDER_CONSTANT = 0, /* cval cval | a b c d | cval cval
                                   (BORDER_CONSTANT); cval 0 is the
                                   notes' ghost cells */
    CLCONV_BORDER_NEAREST,      /* a a | a b c d | d d (BORDER_REPLICATE) */
    CLCONV_BORDER_REFLECT,      /* b a | a b c d | d c (BORDER_REFLECT) */
    CLCONV_BORDER_MIRROR,       /* c b | a b c d | c b (BORDER_REFLECT_101) */
    CLCONV_BORDER_WRAP,         /* c d | a b c d | a b (BORDER_WRAP) */
    CLCONV_BORDER_COUNT
} clconv_border;

/* "constant", "nearest", "reflect", "mirror", "wrap". */
const char *clconv_border_name(clconv_border b);
/* Parse a border mode's name, or one of SciPy's aliases for filters
 * (grid-constant, grid-mirror, grid-wrap: constant, reflect, wrap);
 * CLCONV_EINVAL (naming them) if unknown. */
clconv_status clconv_border_parse(const char *name, clconv_border *out);
/* The index in [0, n) whose element index i of an axis of n elements
 * reads under border b: i itself inside, else the mode's fold (wrap,
 * reflect and mirror repeat for any distance; nearest clamps); -1 for
 * the constant mode's cval. For callers that assemble a part of an
 * array with its halo themselves (clconv_mpi.h's blocks). */
long long clconv_border_index(long long i, long long n, clconv_border b);
/* How a problem is computed (issue 17). The direct path computes W^d
 * taps per output with the problem's strategy; the separable path runs d
 * passes of a 1D filter (x, then y, then z) when the mask is an outer
 * product of 1D masks; the FFT path pads, multiplies spectra (VkFFT) and
 * crops. Auto picks the cheapest by the cost model of clconv_model.h
 * (clconv_method_predict) when the mask is known at plan time, and direct
 * otherwise. */
typedef enum clconv_method {
    CLCONV_METHOD_AUTO = 0,
    CLCONV_METHOD_DIRECT,
    CLCONV_METHOD_SEPARABLE,
    CLCONV_METHOD_FFT,
    CLCONV_METHOD_COUNT
} clconv_method;

const char *clconv_method_name(clconv_method m);
/* Parse "auto", "direct", "separable" or "fft"; CLCONV_EINVAL if
 * unknown. */
clconv_status clconv_method_parse(const char *name, clconv_method *out);

/* Element types of the data (issue 17): the kernels read the input's
 * type, accumulate in float32 and write the output's type, rounded to
 * nearest (ties to even) and saturated for the integer types (OpenCV's
 * saturate_cast), rounded to nearest for f16 (beyond 65504: inf). f16
 * runs on the device where it has cl_khr_fp16 ($CLCONV_FP16=0|1
 * overrides, read when the session is made); elsewhere the plan converts
 * it to and from float32 on the host. */
typedef enum clconv_elem {
    CLCONV_ELEM_F32 = 0, /* float */
    CLCONV_ELEM_U8,      /* uint8_t */
    CLCONV_ELEM_U16,     /* uint16_t */
    CLCONV_ELEM_I16,     /* int16_t */
    CLCONV_ELEM_F16,     /* IEEE binary16, as uint16_t bits */
    CLCONV_ELEM_COUNT
} clconv_elem;

/* "f32", "u8", "u16", "i16", "f16". */
const char *clconv_elem_name(clconv_elem t);
/* Parse one of those names; CLCONV_EINVAL (naming the five) if unknown. */
clconv_status clconv_elem_parse(const char *name, clconv_elem *out);
/* Bytes per element: 4, 1, 2, 2, 2 (0 for an unknown type). */
size_t clconv_elem_size(clconv_elem t);
/* n floats as elements of t, in this host's byte order, as the kernels
 * store them (rounded to nearest, ties to even, and saturated; NaN to 0
 * for the integer types; f16 rounded to nearest): for callers that
 * compute in float32 and want the narrow type the device would write
 * (clconv-mpi's --out-dtype same). src or dst NULL: nothing. */
void clconv_elems_from_float(clconv_elem t, const float *src, size_t n,
                             void *dst);

typedef struct clconv_problem {
    int dims;          /* 1, 2 or 3 */
    size_t size[3];    /* nx, ny, nz; unused dimensions are 1 */
    int mask_width;    /* >= 1: the mask is mask_width^dims floats, unless
                          mask_size gives the widths per axis */
    int tile;          /* TILE_WIDTH of the variant (for coarse: the
                          work-group's x extent); 0: the largest default
                          that fits the device (clconv_default_tile_for) */
    clconv_strategy strategy;
    /* Tuning knobs (0: the variant's default; clconv_strategy_knobs says
     * which a strategy reads, the others ignore them; negative is EINVAL
     * for every strategy, past 64 and 1024 for those that read them).
     * coarsen: coarse's
     * outputs per work-item along y (2D), z (3D) or x (1D); vector's
     * float16 blocks (1D), rows (2D) or planes (3D) per work-item.
     * group_y: coarse's work-group y extent (2D/3D). */
    int coarsen;
    int group_y;
    clconv_mask_mode mask_mode; /* 0 (auto): the variant's default */
    /* Filter semantics (a zero-initialised field is the notes' behaviour:
     * correlation, ghost cells 0, centred cubic mask). */
    int mask_size[3];     /* widths along x, y, z (each >= 1, odd or even;
                             0: mask_width); the mask is
                             mask_size[0] * [1] * [2] floats, x fastest */
    int origin[3];        /* per axis, scipy.ndimage's origin:
                             -(W/2) <= origin <= (W-1)/2 */
    clconv_border border; /* border mode */
    double cval;          /* the constant mode's value (finite) */
    int flip;             /* 1: convolution, as scipy.ndimage.convolve (the
                             mask flipped on every axis, the origin
                             mirrored); 0: correlation */
    /* 0 (auto): chosen by the cost model when the plan is made with its
     * mask (direct without one). Separable with a mask that is not is
     * CLCONV_EINVAL; separable needs the mask when the plan is made
     * (clconv_plan_create_with_mask); the FFT takes it then or later
     * (clconv_plan_set_mask transforms it). strategy, tile and knobs
     * apply to the direct path only. */
    clconv_method method;
    /* Element types (0: float32, as the float entry points take). The
     * output is float32 or the input's type; the typed entry points
     * (clconv_plan_set_input_typed, clconv_convolve_typed) take arrays of
     * these types, the float ones need both float32. */
    clconv_elem in_dtype;
    clconv_elem out_dtype;
} clconv_problem;

/* Split a mask of p (Wx * Wy * Wz floats, per-axis widths) into dims 1D
 * masks, one after the other, x first: factors[j] along x, factors[Wx + j]
 * along y, factors[Wx + Wy + j] along z (for a cube a * W + j), so that
 * mask[z][y][x] equals
 * factors[Wx + Wy + z] * factors[Wx + y] * factors[x] within
 * CLCONV_SEPARABLE_TOL * FLT_EPSILON relative per element (a rank-1 test pivoting
 * on the largest element). Returns 1 if separable, 0 if not (factors may
 * then hold anything; 0 also for p or mask NULL, and for a p the library
 * does not take: dims outside 1..3, a width outside 1..1023 along an
 * axis); a 1D mask always is. factors may be NULL. */
#define CLCONV_SEPARABLE_TOL 16
int clconv_mask_separable(const clconv_problem *p, const float *mask,
                          float *factors);

/* Replace the 0 ("default") tile and knobs (the tile that fits dev, the
 * coarsen and group_y of the strategies that read them, every variant's
 * mask mode on dev) by the values the kernel will be built with (the
 * environment's measuring overrides included), so reports show what
 * really ran. With dev NULL the mask mode stays auto and
 * the tile fits 1024 work-items; p NULL: nothing. */
void clconv_problem_apply_defaults(const clconv_device_info *dev,
                                   clconv_problem *p);

/* Elements of the data (nx * ny * nz) and of the mask (wx * wy * wz);
 * 0 for p NULL, as are the mask width, largest width and left below. */
size_t clconv_problem_mask_elements(const clconv_problem *p);
size_t clconv_problem_elements(const clconv_problem *p);
/* The mask's width along axis 0..2 (x, y, z): mask_size[axis] or
 * mask_width, 1 beyond dims. */
int clconv_problem_mask_axis(const clconv_problem *p, int axis);
/* The largest of the mask's widths. */
int clconv_problem_mask_max(const clconv_problem *p);
/* The correlation the kernels compute along an axis: output i reads
 * inputs i - left .. i - left + W - 1, left = W/2 + origin, with the
 * origin mirrored (-origin, minus 1 for an even W) when p->flip. */
int clconv_problem_left(const clconv_problem *p, int axis);
/* scipy.ndimage's axes=: a mask over only the axes in the bit set `axes`
 * (bit 0 x, bit 1 y, bit 2 z, within p->dims). The mask's own widths and
 * origins (mask_size[j] or mask_width, origin[j] for its j-th axis, x
 * first) move onto the listed axes in increasing order; the others get
 * width 1 and origin 0, so each line or plane along them is filtered on
 * its own, all in one launch. The mask's floats keep their order.
 * CLCONV_EINVAL for an empty set or an axis beyond dims. */
clconv_status clconv_problem_on_axes(clconv_problem *p, unsigned axes);
/* A batch of `batch` problems of p's shape stacked along a new slowest
 * axis, computed in one launch: a 1D or 2D p becomes 2D or 3D with mask
 * width 1 and origin 0 along the new axis (the batch's arrays one after
 * another, in and out). batch 1 leaves p as it is; CLCONV_EINVAL for 0
 * or a 3D p. */
clconv_status clconv_problem_stack(clconv_problem *p, size_t batch);
/* Check the problem itself (not the device): dims, sizes, mask widths,
 * origins, border mode, cval, tile, overflow. CLCONV_EINVAL with the
 * reason. Each extent is at most INT_MAX; the elements of the whole may
 * exceed it (host arrays in and out stream such a problem in slabs), but
 * one launch (a plan, clconv_problem_fits) holds at most INT_MAX elements
 * and says CLCONV_EUNSUPPORTED beyond. */
clconv_status clconv_problem_validate(const clconv_problem *p);

/* A safe choice of strategy and tile for a device when nothing was tuned:
 * fills p->strategy and p->tile from p->dims and p->mask_width (p NULL:
 * nothing). */
void clconv_pick_default(const clconv_device_info *dev, clconv_problem *p);
/* The default TILE_WIDTH of p's strategy on dev: the largest tile, from
 * the variant's preferred one down by halving, whose work-group (size and
 * per-dimension sizes, with p's knobs, element types and the measuring
 * overrides of the environment, README "Environment") and local memory
 * fit the device. dev NULL: as clconv_default_tile. A problem with tile 0 gets this tile
 * when it is planned or given to clconv_problem_apply_defaults. 1 for p
 * NULL or an unknown strategy. */
int clconv_default_tile_for(const clconv_device_info *dev,
                            const clconv_problem *p);
/* Does p (tile 0: its default) fit dev's limits: work-group size and
 * per-dimension sizes, local memory, constant memory for the mask, maximum
 * allocation and global memory? CLCONV_OK, or CLCONV_EUNSUPPORTED with
 * the limit in clconv_last_error() (the check a plan makes before it
 * builds anything). */
clconv_status clconv_problem_fits(const clconv_device_info *dev,
                                  const clconv_problem *p);
/* The -D defines of p's kernel on dev (tile 0 and knobs 0 resolved, no
 * measuring override): " -D MASK_WIDTH=5 -D TILE_WIDTH=16 -D COARSEN=4
 * -D VEC_BLOCKS=2", into buf (cut to len). CLCONV_EINVAL for an invalid
 * problem, or buf NULL with len > 0. */
clconv_status clconv_problem_defines(const clconv_device_info *dev,
                                     const clconv_problem *p, char *buf,
                                     size_t len);

/* ---- sessions and plans ------------------------------------------------ */

/* A session owns a context, a profiling queue and the in-process cache of
 * built programs for one device. Threads may share a session: its
 * host-to-host calls (clconv_convolve, _ex, _typed, _rows, _part) and plan
 * creation take turns on the session's lock; a plan is used by one
 * thread at a time (clconv_cl.h), and destroying the session waits for
 * no thread (destroy it after every call on it has returned). */
typedef struct clconv_session clconv_session;

clconv_status clconv_session_create(const clconv_device_info *dev,
                                    clconv_session **out);
/* Frees the session and what it owns (its programs, queues, buffers).
 * Destroy its plans first: a plan used after its session is gone reads
 * freed memory (destroying such a plan is still safe). */
void clconv_session_destroy(clconv_session *s);
/* The session's device (NULL for s NULL, as the overrides and -cl-std
 * below; the allocation limit is then 0). */
const clconv_device_info *clconv_session_device(const clconv_session *s);
/* The largest buffer the session allocates: the device's maximum, or
 * $CLCONV_MAX_ALLOC_BYTES when that is smaller (read when the session is
 * made; tests use it to force slabs on small data). */
uint64_t clconv_session_max_alloc(const clconv_session *s);
/* Whether a host-to-host call of p on s (clconv_convolve_typed) runs in
 * slabs because one launch cannot hold it: its input or its output, each
 * in its own type, beyond the session's allocation limit, the two beyond
 * 80% of the device's memory, more elements than one launch indexes
 * (INT_MAX), or with method fft its padded array (or spectrum) beyond the
 * allocation limit. A plan of such a problem is refused or exceeds the
 * limit: commands plan only what fits and call the host-to-host path for
 * the rest. 0 for s or p NULL. */
int clconv_session_needs_slabs(const clconv_session *s,
                               const clconv_problem *p);
/* The measuring overrides ($CLCONV_COARSE_ROWS, $CLCONV_VECTOR_BLOCKS)
 * read when the session was created and used by its plans, as
 * "CLCONV_COARSE_ROWS=2 CLCONV_VECTOR_BLOCKS=1"; "" when none is set. */
const char *clconv_session_overrides(const clconv_session *s);
/* The measuring overrides set to a value the knob does not take (so the
 * default applies), as "CLCONV_VECTOR_WIDTH=3"; "" when none. */
const char *clconv_session_overrides_ignored(const clconv_session *s);
/* The -cl-std option the session's programs are built with: "-cl-std=CL1.2"
 * on devices that compile OpenCL C 1.2 (every 1.2, 2.x and 3.0 device),
 * "-cl-std=CL1.1" on a 1.1 device, "" on older ones. */
const char *clconv_session_cl_std(const clconv_session *s);

/* A plan is one problem on one session: the built kernel, its launch
 * geometry and the device buffers. Creating it checks every device limit;
 * a variant that does not fit is CLCONV_EUNSUPPORTED with the reason. */
typedef struct clconv_plan clconv_plan;

clconv_status clconv_plan_create(clconv_session *s, const clconv_problem *p,
                                 clconv_plan **out);
/* The same with the mask known at plan time, required when the mask mode
 * resolves to baked (the values are compiled into the program); for the
 * argument mode it also uploads the mask. */
clconv_status clconv_plan_create_with_mask(clconv_session *s,
                                           const clconv_problem *p,
                                           const float *mask,
                                           clconv_plan **out);
void clconv_plan_destroy(clconv_plan *plan);
clconv_status clconv_plan_set_input(clconv_plan *plan, const float *in);
/* The same for any input type: in holds elements of p->in_dtype. */
clconv_status clconv_plan_set_input_typed(clconv_plan *plan, const void *in);
/* Upload the mask. A baked plan's mask is part of its program, and a
 * separable plan's 1D masks part of its passes (method separable, or
 * auto made with a separable mask): another mask than the one it was
 * created with is CLCONV_EINVAL (make a new plan). */
clconv_status clconv_plan_set_mask(clconv_plan *plan, const float *mask);
/* Fill the device output with NaN, so a kernel that skips an element
 * cannot pass verification. */
clconv_status clconv_plan_poison_output(clconv_plan *plan);
/* One launch, waited for. ms (may be NULL) gets the kernel time from
 * profiling events. */
clconv_status clconv_plan_execute(clconv_plan *plan, double *ms);
clconv_status clconv_plan_get_output(clconv_plan *plan, float *out);
/* The same for any output type: out gets elements of p->out_dtype. */
clconv_status clconv_plan_get_output_typed(clconv_plan *plan, void *out);
/* The geometry the plan launches: local and global work sizes (zeros for
 * plan NULL; local or global NULL: not written). */
void clconv_plan_geometry(const clconv_plan *plan, size_t local[3],
                          size_t global[3]);

/* Host array in, host array out, blocking: the whole call users time.
 * A problem with only dims, size and mask_width set (the rest zero, which
 * reads as strategy naive with tile 0) gets the device's default variant
 * (clconv_pick_default); set a tile or a knob to run naive itself. This
 * holds for clconv_convolve, _ex, _rows and _split.
 * Plans are cached in the session (by problem, and by mask where it is
 * baked), so repeated calls build and allocate nothing; on CPU devices
 * the kernel works on the caller's memory (CL_MEM_USE_HOST_PTR); a
 * problem larger than the device can allocate or hold runs in slabs along
 * the slowest axis, each with its halo, and on GPUs a large one is split
 * so uploads, kernels and downloads overlap, in every border mode (the
 * slabs at wrap's ends, and reflect's or mirror's where a slab is thinner
 * than the halo, gather their halo rows from the whole axis). The result
 * is the same as one launch over the whole problem. out may be in, or
 * overlap it (in place): the input is read as it was, from a copy
 * (clconv_convolve_split the same; clconv_convolve_rows refuses it). */
clconv_status clconv_convolve(clconv_session *s, const clconv_problem *p,
                              const float *in, const float *mask, float *out);

/* What a host-to-host call did, for reports. */
typedef struct clconv_call_info {
    size_t slabs;   /* pieces the problem ran in (1: in one piece) */
    size_t devices; /* devices that shared it */
    int zero_copy;  /* the device worked on the caller's memory */
    int pinned;     /* data moved through pinned staging chunks */
} clconv_call_info;

/* clconv_convolve, saying what it did (info may be NULL). */
clconv_status clconv_convolve_ex(clconv_session *s, const clconv_problem *p,
                                 const float *in, const float *mask,
                                 float *out, clconv_call_info *info);

/* clconv_convolve for any element types: in holds elements of
 * p->in_dtype, out gets p->out_dtype's (info may be NULL). The float
 * entry points are this with both float32. */
clconv_status clconv_convolve_typed(clconv_session *s, const clconv_problem *p,
                                    const void *in, const float *mask,
                                    void *out, clconv_call_info *info);

/* Output rows [begin, end) of the slowest axis (z in 3D, y in 2D, x in
 * 1D) only, from the whole input: in and out are the whole arrays, and
 * only those rows of out are written; the input rows within the mask's
 * reach of them are read. The building block of out-of-core callers
 * (memory-mapped files, domain decomposition). Every border mode: rows at
 * an end read the whole axis' fold there (wrap's far end). in and out
 * may not overlap (CLCONV_EINVAL): a later call's rows would read this
 * call's outputs. */
clconv_status clconv_convolve_rows(clconv_session *s, const clconv_problem *p,
                                   const float *in, const float *mask,
                                   float *out, size_t begin, size_t end,
                                   clconv_call_info *info);

/* A part of a larger problem along its slowest axis, for callers that
 * hold only some of its rows (MPI ranks, chunks of a memory-mapped file):
 * the part's row 0 is row first_row of the whole problem, which has
 * whole_rows rows along that axis and is otherwise the part's problem.
 * first_row may be negative (a part holding halo rows from before the
 * whole's first, such as wrap's far end). */
typedef struct clconv_part {
    long long first_row;
    size_t whole_rows;
} clconv_part;

/* clconv_convolve_rows on a part of a larger problem: p is the part's
 * problem (its slowest axis the rows the caller holds, halos included;
 * they end where p ends, per p's border mode), in and out the part's
 * arrays, of p->in_dtype's and p->out_dtype's elements (float32 unless
 * the problem says otherwise; f16 on a device without it is converted on
 * the host, as clconv_convolve_typed does), [begin, end) rows of the
 * part. The rows are computed as one
 * launch over the whole problem computes them: the method and the
 * kernel's settings chosen for the whole (its size, not the part's) and
 * its work-groups' places along the axis, so parts computed this way
 * (ranks, chunks) give the whole problem's result bit for bit. A part
 * alone (clconv_convolve_rows on p) may differ from it in the last bit
 * where a kernel splits an output's sum between work-items (3D coarse
 * with several work-items along z, GPUs' default at masks 3-5 wide).
 * part NULL: p is the whole problem. */
clconv_status clconv_convolve_part(clconv_session *s, const clconv_problem *p,
                                   const clconv_part *part, const void *in,
                                   const float *mask, void *out,
                                   size_t begin, size_t end,
                                   clconv_call_info *info);

/* One problem over n devices at once: the output rows of the slowest axis
 * are split in proportion to weights[] (relative speeds, e.g. from
 * clconv_measure_weights), and each session computes its rows (streamed
 * in slabs with their halos) in its own thread. problems[i] is the
 * problem as device i runs it: the same dims, size and mask on every
 * device, the strategy and knobs of each (clconv_pick_default per device).
 * Each part equals what that device computes for those rows alone. in
 * and out hold elements of the problems' in_dtype and out_dtype (float32
 * unless they say otherwise; the same on every device). A failure on any
 * device is that device's name and error. */
clconv_status clconv_convolve_split(clconv_session *const *sessions, size_t n,
                                    const clconv_problem *problems,
                                    const double *weights, const void *in,
                                    const float *mask, void *out,
                                    clconv_call_info *info);
/* clconv_convolve_split on a part of a larger problem (clconv_part,
 * clconv_convolve_part): every row of the part, each device's as the
 * whole problem's launch on that device computes it. part NULL: the
 * problems are whole. */
clconv_status clconv_convolve_split_part(clconv_session *const *sessions,
                                         size_t n,
                                         const clconv_problem *problems,
                                         const clconv_part *part,
                                         const double *weights,
                                         const void *in, const float *mask,
                                         void *out, clconv_call_info *info);
/* Relative speeds of n sessions on their problems, from timed calls on a
 * sample of the rows of in (the problems' in_dtype; the fastest of three,
 * after an untimed one that builds): weights[i] = 1 / seconds. */
clconv_status clconv_measure_weights(clconv_session *const *sessions,
                                     size_t n, const clconv_problem *problems,
                                     const void *in, const float *mask,
                                     double *weights);

/* ---- reference, verification, timing ------------------------------------ */

/* Double-precision CPU reference. out gets the result; abs_sum (may be
 * NULL) gets sum |N*M| per output, the scale of the error bound. */
clconv_status clconv_reference(const clconv_problem *p, const float *in,
                               const float *mask, double *out,
                               double *abs_sum);

/* The same at count chosen outputs: out[k] (and abs_sum[k], may be NULL)
 * for the element index[k] of the output. */
clconv_status clconv_reference_at(const clconv_problem *p, const float *in,
                                  const float *mask, const size_t *index,
                                  size_t count, double *out, double *abs_sum);

typedef struct clconv_verdict {
    int ok;              /* every element within its bound, no NaN */
    size_t failures;     /* elements outside their bound */
    size_t worst_index;  /* element with the largest error / bound ratio */
    double worst_got;
    double worst_expected;
    double max_err;      /* largest |got - expected| (inf for NaN) */
    size_t nonfinite;    /* elements whose reference is NaN or Inf (the
                            input or mask holds them): matched by class */
    size_t overflowed;   /* finite references beyond float32's range that
                            got as inf of their sign (not failures) */
} clconv_verdict;

/* Per-element bound: 4 * W^dims * FLT_EPSILON * sum|N*M| + a tiny floor.
 * NaN in got never passes unless expected is NaN too, which the double
 * reference of finite data never is (nonfinite counts those elements); an
 * exact result beyond FLT_MAX (within the bound) passes as inf of its
 * sign. p, got, expected or abs_sum NULL: a failed verdict (ok 0,
 * max_err inf) and the reason in clconv_last_error(); v NULL: nothing. */
void clconv_verify(const clconv_problem *p, const float *got,
                   const double *expected, const double *abs_sum,
                   clconv_verdict *v);

/* The bound of each method (issue 17; doc/methods.md derives them):
 * |got - expected| <= scale * FLT_EPSILON * abs_sum[i] + floor, with
 *   direct:    scale = 4 W^d, floor = 0 (clconv_verify);
 *   separable: scale = 4 (Wx + Wy + Wz + CLCONV_SEPARABLE_TOL): a pass of
 *              W-term sums per axis (4 (d W + ..) for a cube), plus the
 *              factorisation's tolerance;
 *   FFT:       scale = 4 W^d and floor = CLCONV_FFT_BOUND * log2(L) *
 *              FLT_EPSILON * max|in| * sum|mask|, L the padded transform's
 *              elements, max|in| also covering |cval| in constant mode:
 *              the FFT's error follows the padded data's range, not each
 *              output's terms.
 * in and mask are only read for the FFT (may be NULL otherwise). p NULL:
 * scale and floor 0; scale or floor NULL: nothing. */
#define CLCONV_FFT_BOUND 8
void clconv_verify_bound(const clconv_problem *p, clconv_method m,
                         const float *in, const float *mask, double *scale,
                         double *floor);
/* clconv_verify with a given bound (NULL as clconv_verify). */
void clconv_verify_with(const clconv_problem *p, const float *got,
                        const double *expected, const double *abs_sum,
                        double scale, double floor, clconv_verdict *v);
/* clconv_verify_with for an output of p->out_dtype (got holds its
 * elements): for the rounded types, got must lie between the type's
 * rounding of expected - bound and of expected + bound (0.5 ulp of the
 * type plus the float bound; a saturated result equals the saturated
 * reference); never NaN where the reference has none. */
void clconv_verify_typed(const clconv_problem *p, const void *got,
                         const double *expected, const double *abs_sum,
                         double scale, double floor, clconv_verdict *v);
/* The method the automatic choice takes for p (the whole problem) and
 * mask on s: p->method itself unless auto. Callers that split a problem
 * (slabs on several processes) set it once for the whole, so every part
 * runs the method one process would. Direct for p NULL, and for auto
 * without a session (nothing measured the others). */
/* clconv_method_choose for this input, n elements of p->in_dtype at in
 * (the problem's data, or more: several planes of one array). A Fourier
 * transform spreads each NaN or Inf of its input to every output (the
 * direct and separable paths keep it where scipy.ndimage does), so on
 * input holding one auto takes the best other method and an asked-for
 * FFT is CLCONV_EUNSUPPORTED saying why; so on finite input whose range
 * (or |cval| in constant mode) times the padded elements times sum|M|
 * would overflow the transform's float32 sums. The input is read only where the
 * choice would be the FFT. The host-to-host calls (clconv_convolve*, and
 * clconv_convolve_rows over all rows) choose so; a plan's FFT, and
 * clconv_convolve_rows's on some rows (it reads only those within their
 * reach), on such data give NaN across the transform. */
clconv_status clconv_method_choose_for_input(const clconv_session *s,
                                             const clconv_problem *p,
                                             const float *mask, const void *in,
                                             size_t n, clconv_method *out);
clconv_method clconv_method_choose(const clconv_session *s,
                                   const clconv_problem *p,
                                   const float *mask);
/* The method a plan runs (auto resolved when it was made); auto for plan
 * NULL. */
clconv_method clconv_plan_method(const clconv_plan *plan);

/* A mask of p that is an outer product of dims random 1D masks (values in
 * [-1, 1] from seed), rounded to float; nothing written for a p whose
 * dims or mask widths the library does not take (as
 * clconv_mask_separable). */
void clconv_fill_separable(const clconv_problem *p, float *mask,
                           uint64_t seed);
/* Deterministic uniform values in [-1, 1] from a seed (splitmix64). Both
 * fill nothing where given NULL. */
void clconv_fill_random(float *x, size_t n, uint64_t seed);

typedef struct clconv_timing {
    double median_ms, min_ms, max_ms;
    int reps;
} clconv_timing;

/* Seconds on the monotonic clock (an arbitrary origin): the one clock of
 * wall times, budgets and progress, in the library and the CLI. */
double clconv_now_s(void);

/* Median, min and max of n >= 1 samples in ms (sorted in place): the one
 * summary of every timing. No samples (ms NULL, n < 1): all 0; t NULL:
 * nothing. */
void clconv_timing_of(double *ms, int n, clconv_timing *t);

/* Warm up (warmup launches, untimed), then time reps launches with
 * profiling events. */
clconv_status clconv_plan_time(clconv_plan *plan, int warmup, int reps,
                               clconv_timing *t);

/* ---- run: verify then time, the unit of work of the CLI and tests ------ */

/* Random input and mask of one problem shape, with their reference: made
 * once, shared by every device and variant that runs that shape. */
typedef struct clconv_dataset {
    clconv_problem shape; /* dims, size, mask_width (tile/strategy unused) */
    uint64_t seed;
    float *in;       /* elements, uniform in [-1, 1]; for another
                        shape.in_dtype, in_typed's values as floats */
    float *mask;     /* W^dims, uniform in [-1, 1] */
    double *ref;     /* double-precision reference */
    double *abs_sum; /* sum |N*M| per output */
    /* shape.in_dtype's elements, or NULL for float32 (in is the input):
     * u8, u16, i16 uniform over the type's range, f16 in [-2, 2]; with an
     * integer input the mask is random around 1 / W^d, summing to 1, so
     * outputs span the type's range and saturate at times at both ends. */
    void *in_typed;
} clconv_dataset;

clconv_status clconv_dataset_create(const clconv_problem *shape, uint64_t seed,
                                    clconv_dataset **out);
/* The same with the mask from a seed of its own (clconv_dataset_create's
 * is derived from seed): data that change from run to run with masks that
 * do not, so that a device which builds the mask into its kernels (GPUs,
 * CLCONV_MASK_BAKED) finds them in the program cache the next time. */
clconv_status clconv_dataset_create_seeds(const clconv_problem *shape,
                                          uint64_t seed, uint64_t mask_seed,
                                          clconv_dataset **out);
void clconv_dataset_destroy(clconv_dataset *d);
/* Recompute the reference after the caller changed d->in or d->mask. */
clconv_status clconv_dataset_update(clconv_dataset *d);

typedef struct clconv_result {
    clconv_status status;   /* OK, EUNSUPPORTED, EOPENCL, EBUILD, ... */
    char reason[1024];      /* for anything but OK: the first line of it */
    clconv_verdict verdict; /* valid when status == OK */
    clconv_timing timing;   /* valid when status == OK and reps > 0 */
    clconv_method method;   /* the method that ran (auto resolved) */
} clconv_result;

/* Plan (checking every limit), poison the output, run once and verify
 * against the dataset's reference; if that passed and reps > 0, time
 * warmup + reps launches. status is the plan's or launch's status: a
 * verification failure is status OK with verdict.ok == 0. The function's
 * return value equals res->status. */
clconv_status clconv_run_verified(clconv_session *s, const clconv_problem *p,
                                  const clconv_dataset *data, int warmup,
                                  int reps, clconv_result *res);

/* ---- kernel sources ----------------------------------------------------- */

/* The folder holding the .cl sources: $CLCONV_KERNEL_DIR, then next to the
 * executable (../cl, ../share/clconv/cl), then $(PREFIX)/share/clconv/cl.
 * CLCONV_ENOKERNELS names every path tried. */
clconv_status clconv_kernel_dir(const char **dir);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_H */
