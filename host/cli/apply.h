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
} apply_options;

/* The data as planes of one problem: an array is one plane; an image has
 * one plane per colour channel (alpha is copied, not convolved). */
typedef struct apply_data {
    int is_image;
    clconv_array array;
    clconv_image image;
    clconv_problem shape;
    int planes;       /* convolved planes */
    int plane_of[4];  /* image channel of each plane */
    /* --channel-axis: the array's planes are its slices along that axis:
     * element i of plane c at data[(i / inner * planes + c) * inner +
     * i % inner]. */
    size_t inner;
} apply_data;

/* apply_output.c: outputs that can be written and name the right kind of
 * file for the decoded input: 0, or -1 with the error printed (a usage
 * error). */
int apply_check_paths(const apply_options *o, const apply_data *d);
/* Encode OUT (and --float's unclamped image) and commit both or
 * neither: an exit code, the error printed. */
int apply_write_outputs(const apply_options *o, apply_data *d);
/* Parse apply's arguments (argv[0] is "apply"). 0, or -1 (error
 * printed). */
int apply_parse(int argc, char **argv, apply_options *o);
/* Read IN (.npy or image) into d: an array's channel axis split off as
 * planes, an image's colour channels. 0, or -1 (error printed). */
int apply_load_input(const apply_options *o, apply_data *d);
/* Copy plane k of the data into/out of a contiguous float plane. */
void apply_plane_get(const apply_data *d, int k, float *dst, size_t n);
void apply_plane_put(apply_data *d, int k, const float *src, size_t n);

/* apply_large.c: should IN go the mapped, chunked way (a little-endian
 * float32 .npy file too large to hold twice, or --device naming several
 * devices, or $CLCONV_APPLY_CHUNK_BYTES set)? 1 yes, 0 no, -1 (error
 * printed: a truncated file). */
int apply_large_wanted(const apply_options *o);
/* apply on it that way: the exit code (error printed). */
int apply_large_main(const apply_options *o);

#endif
