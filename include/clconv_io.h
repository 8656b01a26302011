/* clconv's file formats: NumPy .npy arrays, PNG/PGM/PPM images, mask specs
 * and output files. Part of libclconv.
 *
 * Every parser takes the whole file as a memory buffer and checks it
 * before trusting it (lengths, syntax, shape against data size, overflow);
 * anything it cannot read is CLCONV_EINVAL with one line in
 * clconv_last_error(), and so is a NULL where data or a result goes (what
 * the functions that return no status give for NULL: clconv.h's rule). The parsers never print, never exit, and bound what
 * they allocate by what the buffer can hold, so they can be fuzzed as is. */
#ifndef CLCONV_IO_H
#define CLCONV_IO_H

#include <stddef.h>

#include "clconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- arrays and .npy --------------------------------------------------- */

/* The element types a .npy may hold; every one is read as float32 by
 * clconv_npy_parse (f16 exactly; integers rounded to nearest beyond
 * 2^24, as NumPy's astype(float32); bool as 0 or 1), or kept as it is by
 * clconv_npy_parse_native. Named by their bits (I8 is int8, NumPy's
 * 'i1'); clconv_dtype_code gives NumPy's code. */
typedef enum clconv_dtype {
    CLCONV_DTYPE_F32 = 0,
    CLCONV_DTYPE_F64,
    CLCONV_DTYPE_I8,
    CLCONV_DTYPE_I16,
    CLCONV_DTYPE_I32,
    CLCONV_DTYPE_U8,
    CLCONV_DTYPE_U16,
    CLCONV_DTYPE_U32,
    CLCONV_DTYPE_F16, /* IEEE binary16 ('f2') */
    CLCONV_DTYPE_I64, /* NumPy's default integer ('i8') */
    CLCONV_DTYPE_U64, /* 'u8' */
    CLCONV_DTYPE_BOOL, /* '|b1': any byte but 0 is True */
    CLCONV_DTYPE_COUNT
} clconv_dtype;

/* NumPy's type code without byte order ("f4", "u2"...), and its size. */
const char *clconv_dtype_code(clconv_dtype t);
size_t clconv_dtype_size(clconv_dtype t);
/* The dtype of a .npy holding elements of t (f32 for an unknown one). */
clconv_dtype clconv_dtype_of_elem(clconv_elem t);

/* A C-order array of 1 to 3 dimensions, as float32. shape[] is in NumPy's
 * order (shape[0] varies slowest); entries from dims on are 1. In clconv's
 * x-fastest terms: size = {shape[dims-1], ..., shape[0]}. */
typedef struct clconv_array {
    int dims;
    size_t shape[3];
    float *data;
} clconv_array;

/* What a .npy header said, for callers that care (tests, messages). */
typedef struct clconv_npy_info {
    int major, minor;   /* format version: 1.0, 2.0 or 3.0 */
    clconv_dtype dtype;
    int big_endian;     /* byte order of the file's data */
    size_t data_offset; /* where the data starts */
    int fortran_order;  /* the file's data in Fortran order (2-3 dims) */
} clconv_npy_info;

/* Parse a .npy file: versions 1.0 to 3.0, C or Fortran order (returned in
 * C order either way), 1 to 3 dimensions,
 * every extent >= 1, a dtype of clconv_dtype in either byte order, and
 * exactly shape x itemsize bytes of data. out->data is malloc'ed (free
 * with clconv_array_free). info may be NULL. */
clconv_status clconv_npy_parse(const unsigned char *data, size_t len,
                               clconv_array *out, clconv_npy_info *info);
/* The same, keeping the file's element type: *data (malloc'ed) gets
 * shape x itemsize bytes in the host's byte order (a big-endian file's
 * elements swapped), dims and shape (NumPy order) as in clconv_array, the
 * dtype in info (required). For callers that upload narrow types as they
 * are (clconv apply). */
clconv_status clconv_npy_parse_native(const unsigned char *data, size_t len,
                                      int *dims, size_t shape[3],
                                      clconv_npy_info *info, void **out);
/* The size in bytes of the whole .npy file whose first len bytes (at least
 * the preamble and the header) are data, as its header declares it:
 * header plus shape x itemsize (the header alone for an empty array,
 * which clconv_npy_parse_nd reads). For reading a stream no further than
 * the file can be. */
clconv_status clconv_npy_declared_size(const unsigned char *data, size_t len,
                                       size_t *total);
/* Arrays of any rank NumPy writes (1 to CLCONV_NPY_MAX_DIMS dimensions),
 * for callers that filter some axes and take the others slice by slice
 * (clconv apply): *data (malloc'ed) gets the elements in C order (a
 * Fortran-order file transposed) in the host's byte order and the file's
 * dtype; dims and shape[0..dims-1] in NumPy's order (the rest 1). An
 * extent may be 0 here, as in NumPy (an empty array: *data is then an
 * allocation holding no element); every other reader refuses it. */
#define CLCONV_NPY_MAX_DIMS 64
clconv_status clconv_npy_parse_nd(const unsigned char *data, size_t len,
                                  int *dims,
                                  size_t shape[CLCONV_NPY_MAX_DIMS],
                                  clconv_npy_info *info, void **out);
/* The header alone, for callers that map or stream the data: dims and
 * shape (NumPy order) and the info of a .npy whose first len bytes are
 * data (at least its preamble and header; the data need not be there).
 * A Fortran-order array of 2 or 3 dimensions is CLCONV_EINVAL here (its
 * rows do not lie in one piece), and so is an empty one (an extent of 0:
 * nothing to map): read those whole with the parsers above.
 * An array of more than 3 dimensions is CLCONV_EINVAL with *dims its
 * rank (so the caller can say what it takes); other failures set 0. */
clconv_status clconv_npy_header_parse(const unsigned char *data, size_t len,
                                      int *dims, size_t shape[3],
                                      clconv_npy_info *info);
/* The info of elements of type t as they lie in this host's memory (its
 * byte order), for clconv_npy_convert on native data. */
clconv_npy_info clconv_npy_host_info(clconv_dtype t);
/* count elements of a .npy's data (in the file's dtype and byte order,
 * as info says) into floats, as clconv_npy_parse converts them: a finite
 * float64 beyond float32's range is CLCONV_EINVAL (its index among the
 * count). For callers that read the data in parts. */
clconv_status clconv_npy_convert(const unsigned char *raw, size_t count,
                                 const clconv_npy_info *info, float *out);
/* The preamble and header of a little-endian float32 version 1.0 .npy of
 * this shape (what clconv_npy_encode writes before the data): at most
 * CLCONV_NPY_HEADER_MAX bytes into buf, the count in *len. dims 1 to
 * CLCONV_NPY_MAX_DIMS here and in clconv_npy_header_typed and
 * clconv_npy_encode_typed (shape[] holds dims extents). */
#define CLCONV_NPY_HEADER_MAX 2048
clconv_status clconv_npy_header(int dims, const size_t *shape,
                                unsigned char *buf, size_t cap, size_t *len);
/* The same for any dtype, little-endian ('|' for one-byte types, as NumPy
 * writes them). */
clconv_status clconv_npy_header_typed(int dims, const size_t *shape,
                                      clconv_dtype t, unsigned char *buf,
                                      size_t cap, size_t *len);
/* Encode dims/shape elements of dtype t at data (host byte order) as a
 * little-endian version 1.0 .npy; *buf is malloc'ed. An extent may be 0
 * (an empty array, the header alone; data may then be NULL). */
clconv_status clconv_npy_encode_typed(int dims, const size_t *shape,
                                      clconv_dtype t, const void *data,
                                      unsigned char **buf, size_t *len);
/* Encode a float32 array as a little-endian version 1.0 .npy; *buf is
 * malloc'ed. */
clconv_status clconv_npy_encode(const clconv_array *a, unsigned char **buf,
                                size_t *len);
/* Allocate data for dims/shape (elements checked for overflow). */
clconv_status clconv_array_alloc(clconv_array *a, int dims,
                                 const size_t shape[3]);
size_t clconv_array_elements(const clconv_array *a);
void clconv_array_free(clconv_array *a);

/* ---- images ------------------------------------------------------------- */

typedef enum clconv_image_format {
    CLCONV_IMAGE_PNG = 0,
    CLCONV_IMAGE_PGM, /* P5, binary gray */
    CLCONV_IMAGE_PPM, /* P6, binary RGB */
    CLCONV_IMAGE_PGM_ASCII, /* P2 */
    CLCONV_IMAGE_PPM_ASCII  /* P3 */
} clconv_image_format;

/* Pixels as floats in 0..maxval, interleaved: sample c of pixel (x, y) is
 * pixels[(y * width + x) * channels + c]. channels: 1 gray, 2 gray+alpha,
 * 3 RGB, 4 RGBA; the last channel of 2 and 4 is alpha. */
typedef struct clconv_image {
    clconv_image_format format;
    size_t width, height;
    int channels;
    unsigned maxval; /* PNG: 255 or 65535; PGM/PPM: the file's maxval */
    float *pixels;
} clconv_image;

/* Does the buffer start like an image clconv reads (PNG, P2, P3, P5, P6)? */
int clconv_image_sniff(const unsigned char *data, size_t len);
/* Decode PNG (gray, gray+alpha, RGB, RGBA at 8 or 16 bits; palette and
 * 1/2/4-bit gray are expanded to 8-bit RGB(A)/gray) or PGM/PPM (binary or
 * ASCII, maxval 1..65535). */
clconv_status clconv_image_decode(const unsigned char *data, size_t len,
                                  clconv_image *out);
/* Encode in img->format with img->channels and maxval (PNG: 8 bits for
 * maxval 255, 16 for 65535), each sample rounded to nearest and clamped
 * to 0..maxval (NaN becomes 0). *buf is malloc'ed. */
clconv_status clconv_image_encode(const clconv_image *img, unsigned char **buf,
                                  size_t *len);
const char *clconv_image_format_name(clconv_image_format f);
void clconv_image_free(clconv_image *img);

/* ---- masks -------------------------------------------------------------- */

/* A mask of size[0] * size[1] * size[2] floats, x fastest (as
 * clconv_convolve takes it; size[] x first, 1 beyond dims); width is the
 * largest of them (the width of a square or cubic mask). */
typedef struct clconv_mask {
    int dims;
    int width;
    float *values;
    int size[3];
} clconv_mask;

/* Parse a mask for data of dims dimensions from a spec string:
 *   named:  box:W, gaussian:W[:sigma], sobel-x, sobel-y, sobel-z,
 *           laplacian, sharpen, emboss (3 wide; defined for any dims the
 *           axis exists in); box and gaussian also take one width per
 *           axis in NumPy's order, box:5x3 being np.ones((5, 3)) / 15
 *           (5 rows of 3); widths odd or even, gaussian's odd;
 *   inline: W^dims numbers separated by ',' (any W >= 1), or in 2D rows
 *           separated by ';' (R rows of C numbers: an R x C mask).
 * A spec naming a .npy file is not handled here (see clconv_mask_load). */
clconv_status clconv_mask_spec_parse(const char *spec, int dims,
                                     clconv_mask *out);
/* A mask from an array of any shape (each extent 1..1023) with as many
 * dimensions as the data (dims). */
clconv_status clconv_mask_from_array(const clconv_array *a, int dims,
                                     clconv_mask *out);
/* Does the spec name a file (ends in ".npy")? */
int clconv_mask_spec_is_file(const char *spec);
/* Any spec: a .npy file is read and checked, anything else is parsed. */
clconv_status clconv_mask_load(const char *spec, int dims, clconv_mask *out);
void clconv_mask_free(clconv_mask *m);

/* ---- files -------------------------------------------------------------- */

/* Read a whole file (at most max_len bytes, else CLCONV_EINVAL); *buf is
 * malloc'ed with a NUL after the last byte (not counted in *len). A FIFO or
 * a device is read until its end or until max_len is passed, never
 * further. Path "-" is standard input, read from where it stands (it
 * stays open); a regular file there is read as a file. */
clconv_status clconv_file_read(const char *path, size_t max_len,
                               unsigned char **buf, size_t *len);
/* Read an input for clconv_npy_parse or clconv_image_decode (at most
 * max_len bytes). A regular file is read whole, as clconv_file_read does.
 * Anything else (a FIFO, /dev/stdin, a device) has no size to trust and is
 * read only as far as the format its first bytes show can reach: a .npy
 * exactly to the size its header declares, a PNG or PGM/PPM as far as its
 * header's width, height and depth allow (CLCONV_EINVAL when the stream
 * goes on beyond, or at once when that is more than max_len); a stream in
 * no such format (/dev/zero) is refused after its first 4096 bytes. A
 * regular file larger than max_len is refused before it is read. */
clconv_status clconv_input_read(const char *path, size_t max_len,
                                unsigned char **buf, size_t *len);
/* Do two paths name the same existing file? */
int clconv_file_same(const char *a, const char *b);

/* ---- output files ----------------------------------------------------------
 * Every file clconv writes (apply's outputs, bench's reports, the tuning
 * file) goes through this, as coreutils treats what it writes:
 *   - a regular file or a new path is replaced atomically: the bytes go to
 *     a temporary file ".clconv-XXXXXX" in the same folder (short, so a
 *     name near NAME_MAX works), which is fsync'ed and renamed over the
 *     target on commit; a replaced file keeps its mode (and owner where
 *     allowed); on any error, or SIGINT/SIGTERM/SIGHUP/SIGPIPE, the
 *     temporary file is removed and the old file stays;
 *   - a symlink is followed and its target replaced that way (the link
 *     stays a link; a dangling link gets its target created);
 *   - a FIFO, character or block device or socket is never replaced: it
 *     is opened and written straight through, streaming, and a failed
 *     write is reported (CLCONV_EIO with strerror: "No space left on
 *     device"); a socket, which open(2) cannot reach, through a copy of
 *     the standard output or error (or the N of /dev/fd/N) that holds it
 *     (/dev/stdout of a service), and one that none holds is CLCONV_EINVAL;
 *   - "-" is standard output, written straight through.
 * A path that cannot be written at all (its folder is missing or not
 * writable, it is a folder) is CLCONV_EINVAL, found by clconv_output_check
 * before any work and again by clconv_output_open; failed writes, syncs
 * and renames are CLCONV_EIO. */
typedef struct clconv_output clconv_output;

/* Would clconv_output_open(path) succeed? Checks without creating
 * anything (run it before hours of work). */
clconv_status clconv_output_check(const char *path);
/* Where clconv_output_open(path) puts its bytes: *target (malloc'd, the
 * caller frees it) is path with its symlinks followed; *stream says
 * whether it is written through ("-", a FIFO, device or socket; *target
 * is then that file, or "-") rather than replaced; *mode (may be NULL) is
 * the mode a replacing file takes: the old file's, or 0666 less the
 * umask. For writers that fill a file in place themselves (clconv-mpi's
 * ranks). Errors as clconv_output_check's. */
clconv_status clconv_output_target(const char *path, char **target,
                                   unsigned *mode, int *stream);
/* Do two output paths lead to the same file: the same existing one (as
 * clconv_file_same), or the same name in the same folder once their
 * symlinks are followed, where neither exists yet (a new path and a
 * dangling link to it)? "-" is the file standard output is open on. */
int clconv_output_same(const char *a, const char *b);
clconv_status clconv_output_open(const char *path, clconv_output **out);
/* Buffered; a stream receives the bytes at the latest on commit. */
clconv_status clconv_output_write(clconv_output *o, const void *data,
                                  size_t n);
clconv_status clconv_output_printf(clconv_output *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Is it written straight through (FIFO, device, socket, "-")? */
int clconv_output_is_stream(const clconv_output *o);
/* Put the bytes in place; frees o whatever the result (on an error the
 * temporary file is removed and the old file stays). */
clconv_status clconv_output_commit(clconv_output *o);
/* Commit n (at most 8) outputs as one: every file is replaced, or none.
 * Streams are finished first (their bytes are gone when they fail, and
 * then no file is replaced); then each temporary file is renamed over its
 * target, a hard link to the old target kept aside; if a rename fails,
 * the targets already replaced get their old file back (or are removed
 * when they did not exist). Only a file system without hard links, or a
 * signal in the middle of the renames, can leave the first replaced and
 * not the second. Frees every o. A NULL among them is CLCONV_EINVAL and
 * none is committed (the others are freed all the same). */
clconv_status clconv_output_commit_all(clconv_output **outs, size_t n);
/* Drop what was written: the temporary file is removed, the target left
 * as it was (a stream keeps what it already received). Frees o; NULL is
 * fine. */
void clconv_output_abort(clconv_output *o);
/* open + write + commit of one buffer. */
clconv_status clconv_file_write(const char *path, const void *data, size_t n);

/* A temporary file for a caller that writes it in place itself (as
 * clconv-mpi's ranks do, each at its offset) and then renames it over its
 * target: a new file (mode 0600) at templ, whose last six characters
 * (XXXXXX) are made random, removed as clconv's own temporary files are
 * when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the process before
 * clconv_temp_release. The descriptor (*handle set), or -1 with errno
 * set (EINVAL for templ or handle NULL). */
int clconv_temp_create(char *templ, int *handle);
/* A temporary file that several processes watch (clconv-mpi's ranks):
 * clconv_temp_name makes templ's last six characters (XXXXXX) random, as
 * clconv_temp_create does; clconv_temp_watch has path (whoever creates
 * it, and whether it exists yet) removed by SIGINT, SIGTERM, SIGHUP or
 * SIGPIPE as clconv_temp_create's are, until clconv_temp_release: the
 * handle, or -1 (a path too long, or too many files watched). */
void clconv_temp_name(char *templ);
int clconv_temp_watch(const char *path);
/* Once the file is renamed or removed: a signal no longer removes it. */
void clconv_temp_release(int handle);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_IO_H */
