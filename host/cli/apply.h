/* `clconv apply`'s options and data, shared by apply.c (parse, plan,
 * convolve), apply_input.c (reading IN into planes) and apply_output.c
 * (checking and writing OUT). */
#ifndef CLCONV_CLI_APPLY_H
#define CLCONV_CLI_APPLY_H

#include "clconv_io.h"
#include "cli.h"

enum { CLI_NO_CHANNEL_AXIS = -1000 };

typedef struct apply_options {
    const char *in, *out, *float_out;
    const char *mask;
    const char *device;
    int strategy; /* -1: auto */
    int tile;     /* 0: the strategy's default */
    int verify;
    cli_filter filter; /* --mode, --cval, --origin (NumPy's order), ... */
    int channel_axis;  /* --channel-axis N (NumPy's axis, negative from
                          the end), CLI_NO_CHANNEL_AXIS: none */
    int dims3;         /* --dims 3: a 3-dimensional array is a volume */
    clconv_method method; /* default auto */
    int out_dtype;     /* --out-dtype: APPLY_OUT_* */
    int summary_stderr; /* OUT or --float is standard output (looked at
                           before anything is written) */
} apply_options;

/* --out-dtype: DEFAULT is the input's type for images (their depth),
 * float32 for .npy arrays; SAME the input's type; F32 float32. */
enum { APPLY_OUT_DEFAULT = 0, APPLY_OUT_SAME, APPLY_OUT_F32 };

/* The data as planes of one problem: an array is one plane; an image has
 * one plane per colour channel (alpha is copied, not convolved). */
typedef struct apply_data {
    int is_image;
    clconv_array array;
    clconv_image image;
    clconv_problem shape;
    int planes;       /* convolved planes */
    int plane_of[4];  /* image channel of each plane */
    /* A .npy array: its own shape (NumPy order, nd axes) and where each
     * plane lies in it. Element (x, y, z) of plane k is element
     * plane_base(k) + x step[0] + y step[1] + z step[2] of the array (C
     * order); plane k's base is k spelled over the batch axes, extents
     * bext and steps bstep (NumPy order, the last fastest): the channel
     * axis, or in an array of more than 3 axes those --axes leaves out. */
    int nd;
    size_t full[CLCONV_NPY_MAX_DIMS];
    int nbatch;
    size_t bext[CLCONV_NPY_MAX_DIMS], bstep[CLCONV_NPY_MAX_DIMS];
    size_t step[3];
    /* The element types on the device: elem what is uploaded (u8, u16,
     * i16, f16 for those .npy dtypes and for 8/16-bit images, else f32),
     * out_elem what comes back (elem, or f32: apply_choose_types). */
    clconv_elem elem, out_elem;
    /* A .npy of a narrow type: its elements as they are (host order);
     * array then has its shape, and data only once a float32 output
     * needs it (apply_plane_put). */
    void *raw;
    clconv_dtype file_dtype;
} apply_data;

/* apply_output.c: outputs that can be written and name the right kind of
 * file for the decoded input: 0, or -1 with the error printed (a usage
 * error). */
int apply_check_paths(const apply_options *o, const apply_data *d);
/* Encode OUT (and --float's unclamped image) and commit both or
 * neither: an exit code, the error printed. */
int apply_write_outputs(const apply_options *o, apply_data *d);
/* p (its dims and size set) with the mask's widths and the filter and
 * method options: 0, or -1 (error printed; also --method separable with
 * a mask that is not). */
int apply_filter_problem(const apply_options *o, const clconv_mask *mask,
                         clconv_problem *p);
/* Whether st, a failure of the FFT that --method auto chose for p (the
 * method resolved before the plan: clconv_method_choose_for_input),
 * falls back to the direct path, as a plan made on auto and
 * clconv_convolve do: VkFFT's transforms refused on this device
 * (CLCONV_EUNSUPPORTED, host/lib/fft.c). */
int apply_fft_falls_back(const apply_options *o, const clconv_problem *p,
                         clconv_status st);
/* Parse apply's arguments (argv[0] is "apply"). 0, or -1 (error
 * printed). */
int apply_parse(int argc, char **argv, apply_options *o);
/* Read IN (.npy or image) into d: an array's channel axis split off as
 * planes, an image's colour channels. 0, or -1 (error printed). */
int apply_load_input(const apply_options *o, apply_data *d);
/* Is the array (nd axes of these extents, NumPy order) a volume, an image
 * with channels or a problem of fewer axes? --dims 3 only for 3D arrays,
 * --channel-axis within the array, a 3D array (of any type) of 3 or 4
 * along its last axis only with one of them (or --axes), and an array of
 * more than 3 axes only with --axes (at most 3, each once, in increasing
 * order) or a channel axis that leaves 3: 0, or -1 (error printed). */
int apply_array_axes(const apply_options *o, int nd, const size_t *shape);
/* The device's element types for this input and --out-dtype (elem,
 * out_elem): 0, or -1 (error printed: a type the device does not take
 * asked to stay as it is). */
int apply_choose_types(const apply_options *o, apply_data *d);
/* Copy plane k of the data into a contiguous plane of d->elem's type,
 * and a plane of d->out_elem's type back into the output (a .npy of
 * d->elem when out_elem is narrow, float32 otherwise; an image's float
 * pixels). apply_plane_put: 0, or -1 out of memory (error printed). */
void apply_plane_get(const apply_data *d, int k, void *dst, size_t n);
/* The input's elements themselves where plane k already lies in one
 * piece (an array of one plane, or slices along leading axes), else
 * NULL. */
const void *apply_plane_view(const apply_data *d, int k);
int apply_plane_put(apply_data *d, int k, const void *src, size_t n);
/* p's input (of p->in_dtype, n elements) as floats for the reference:
 * in itself for float32, else converted into buf. */
const float *apply_input_floats(const clconv_problem *p, const void *in,
                                float *buf, size_t n);
/* Where plane k's output lies in the output array, when it lies in one
 * piece there (apply_plane_view's planes), so the device's result can be
 * read back into it: the array of d->out_elem's type (a narrow array's
 * float32 output made here); NULL where it does not, or out of memory
 * (*err -1, error printed). */
void *apply_plane_out_view(apply_data *d, int k, int *err);
/* The .npy array's elements (all its planes). */
size_t apply_array_elements(const apply_data *d);
/* The device type a .npy dtype is uploaded as: the narrow types (u1, u2,
 * i2, f2) as they are, every other dtype as float32 (converted on the
 * host). */
clconv_elem apply_elem_of(clconv_dtype t);
/* OUT's element type for a .npy of file_dtype (--out-dtype same: the
 * file's where it has a device type, else said and -1; f32 otherwise). */
int apply_out_elem(const apply_options *o, clconv_dtype file_dtype,
                   clconv_elem *out);

/* apply_large.c: should IN go the mapped, chunked way (a little-endian
 * float32 .npy file too large to hold twice, or --device naming several
 * devices, or $CLCONV_APPLY_CHUNK_BYTES set)? 1 yes, 0 no, -1 (error
 * printed: a truncated file). */
int apply_large_wanted(const apply_options *o);
/* Does --device name several terms (`A,B`): the devices that share one
 * array on the mapped path? */
int apply_several_devices(const apply_options *o);
/* apply on it that way: the exit code (error printed). */
int apply_large_main(const apply_options *o);

/* apply_planes.c: what convolving the planes gave. */
typedef struct apply_result {
    double ms;
    clconv_verdict worst; /* the plane with the largest error */
    int verified_ok;
    size_t nonfinite, overflowed; /* summed over the planes */
    clconv_method method; /* the method that ran */
    size_t slabs; /* host to host (beyond one allocation): slabs, else 0 */
    int empty;    /* the array has no element: nothing ran */
} apply_result;

/* Every plane of d through plan (NULL: the host-to-host call in slabs),
 * out into d; verify: each plane against the double reference. On
 * failure the error is printed. */
clconv_status apply_convolve_planes(clconv_session *s, clconv_plan *plan,
                                    const clconv_problem *p,
                                    const clconv_mask *m, apply_data *d,
                                    int verify, apply_result *r);

/* Does path end in an image format's extension (.png, .pgm, .ppm, .pnm)? */
int apply_is_image_name(const char *path);

#endif
