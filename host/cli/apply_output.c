/* `clconv apply`'s outputs: OUT and --float checked before any work,
 * encoded in the format OUT's name asks for, and committed both or neither
 * (clconv_output_commit_all). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"

static int has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n >= e && strcasecmp(path + n - e, ext) == 0;
}

int apply_is_image_name(const char *path)
{
    return has_ext(path, ".png") || has_ext(path, ".pgm") ||
           has_ext(path, ".ppm") || has_ext(path, ".pnm");
}

/* The format an image is written in: the one OUT's extension names
 * (.png, .pgm, .ppm, .pnm), or the input's when OUT has none ("-", a
 * device); 0, or -1 with the error printed when the image does not fit
 * that format or the extension is not an image format. */
static int output_format(const char *out, const clconv_image *img,
                         clconv_image_format *fmt)
{
    const char *slash = strrchr(out, '/');
    const char *base = slash ? slash + 1 : out;
    const char *dot = strrchr(base, '.');
    int ascii = img->format == CLCONV_IMAGE_PGM_ASCII ||
                img->format == CLCONV_IMAGE_PPM_ASCII;
    int netpbm = has_ext(out, ".pnm") || has_ext(out, ".pgm") ||
                 has_ext(out, ".ppm");
    *fmt = img->format;
    if (!dot || dot == base || strcmp(out, "-") == 0) {
        return 0;
    } else if (has_ext(out, ".png")) {
        *fmt = CLCONV_IMAGE_PNG;
        if (img->maxval == 255 || img->maxval == 65535)
            return 0;
        cli_error("apply: '%s': a maxval of %u does not fit PNG's 8 or 16 "
                  "bits; write .pgm or .ppm",
                  out, img->maxval);
    } else if (netpbm && (img->channels == 1 || img->channels == 3) &&
               !(has_ext(out, ".pgm") && img->channels != 1) &&
               !(has_ext(out, ".ppm") && img->channels != 3)) {
        *fmt = img->channels == 1
                   ? (ascii ? CLCONV_IMAGE_PGM_ASCII : CLCONV_IMAGE_PGM)
                   : (ascii ? CLCONV_IMAGE_PPM_ASCII : CLCONV_IMAGE_PPM);
        if (img->maxval <= 65535)
            return 0;
    } else if (netpbm) {
        cli_error("apply: '%s': an image of %d channel(s) cannot be written "
                  "as %s (PGM: gray, PPM: RGB, no alpha); write .png",
                  out, img->channels, dot + 1);
    } else {
        cli_error("apply: '%s': images are written as .png, .pgm, .ppm or "
                  ".pnm, not %s",
                  out, dot);
    }
    return -1;
}

/* Do the file f (fstat'ed) and path name one file? */
static int same_file(const struct stat *f, const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_dev == f->st_dev &&
           sb.st_ino == f->st_ino;
}

/* Is out IN's file? NULL if not, else how ("": by its name). IN "-" is
 * the regular file standard input is redirected from (`< in.npy`), if
 * any: read whole first, as a named IN is, and refused as an OUT as a
 * named IN is. OUT "-" is IN when stdout is redirected to it (`>> in`),
 * as /dev/stdout is, and as `cat` refuses. */
static const char *is_input(const char *out, const char *in)
{
    struct stat si, so;
    const int out_dash = strcmp(out, "-") == 0;
    if (out_dash && (fstat(STDOUT_FILENO, &so) != 0 || !S_ISREG(so.st_mode)))
        return NULL;
    if (strcmp(in, "-") != 0) {
        if (out_dash)
            return cli_is_stdout(in) ? " (stdout is redirected to it)" : NULL;
        return strcmp(out, in) == 0 || clconv_file_same(out, in) ? "" : NULL;
    }
    if (fstat(STDIN_FILENO, &si) != 0 || !S_ISREG(si.st_mode))
        return NULL;
    if (out_dash)
        return so.st_dev == si.st_dev && so.st_ino == si.st_ino
                   ? " (stdin and stdout are redirected to one file)"
                   : NULL;
    return same_file(&si, out) ? " (stdin is redirected from it)" : NULL;
}

/* Paths that must not clash and must name the right kind of file. */
int apply_check_paths(const apply_options *o, const apply_data *d)
{
    const int is_image = d->is_image;
    const char *outs[2] = {o->out, o->float_out};
    for (int k = 0; k < 2; ++k) {
        const char *how = outs[k] ? is_input(outs[k], o->in) : NULL;
        if (how) {
            const int dash = strcmp(outs[k], "-") == 0;
            cli_error("apply: '%s' is the input%s; choose another output",
                      dash ? o->in : outs[k], how);
            return -1;
        }
    }
    if (o->float_out && (strcmp(o->float_out, o->out) == 0 ||
                         clconv_output_same(o->float_out, o->out))) {
        cli_error("apply: --float and OUT name the same file");
        return -1;
    }
    if (!is_image && o->float_out) {
        cli_error("apply: --float is for image inputs (a .npy output is "
                  "already float32)");
        return -1;
    }
    if (!is_image && apply_is_image_name(o->out)) {
        cli_error("apply: '%s': a .npy input writes a .npy output", o->out);
        return -1;
    }
    if (is_image && has_ext(o->out, ".npy")) {
        cli_error("apply: '%s': an image input writes an image of its own "
                  "format; use --float OUT.npy for the float result",
                  o->out);
        return -1;
    }
    /* Fail before any work when an output cannot be written. */
    for (int k = 0; k < 2; ++k) {
        if (outs[k] && clconv_output_check(outs[k]) != CLCONV_OK) {
            cli_error("apply: %s", clconv_last_error());
            return -1;
        }
    }
    if (o->float_out && !has_ext(o->float_out, ".npy")) {
        cli_error("apply: --float '%s' must end in .npy", o->float_out);
        return -1;
    }
    clconv_image_format fmt;
    return is_image ? output_format(o->out, &d->image, &fmt) : 0;
}

/* Encode every output, write them all, then commit both or neither. An
 * output that cannot be opened is a usage error (2), a failed write,
 * sync or rename an I/O error (3). */
int apply_write_outputs(const apply_options *o, apply_data *d)
{
    /* --float: the image's float pixels as they are, H x W (x C). */
    const clconv_array unclamped = {
        d->image.channels == 1 ? 2 : 3,
        {d->image.height, d->image.width, (size_t)d->image.channels},
        d->image.pixels};
    unsigned char *buf[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    const char *path[2] = {o->out, o->float_out};
    clconv_output *out[2] = {NULL, NULL};
    int nout = o->float_out ? 2 : 1;
    clconv_status st = CLCONV_OK;
    if (d->is_image && output_format(o->out, &d->image, &d->image.format))
        return CLI_EXIT_USAGE;
    /* --float makes the device return float32 (F.npy's unclamped values),
     * but OUT still rounds as --out-dtype same (the default of a 255 or
     * 65535 image) does on the device: to nearest, ties to even; the
     * encoder's host rounding (ties up) is --out-dtype f32's. */
    clconv_image enc = d->image;
    float *even = NULL;
    if (d->is_image && o->float_out && o->out_dtype != APPLY_OUT_F32 &&
        (d->image.maxval == 255 || d->image.maxval == 65535)) {
        const size_t n = d->image.width * d->image.height *
                         (size_t)d->image.channels;
        if (!(even = malloc(n * sizeof *even))) {
            cli_error("out of memory for %zu floats", n);
            return CLI_EXIT_UNSUPPORTED;
        }
        for (size_t i = 0; i < n; ++i)
            even[i] = rintf(d->image.pixels[i]); /* saturated by encoding */
        enc.pixels = even;
    }
    /* A .npy OUT on a little-endian host: its header, then the elements
     * written from where they lie (no copy of the whole array). */
    unsigned char head[CLCONV_NPY_HEADER_MAX];
    size_t hlen = 0;
    const void *body = NULL;
    size_t body_len = 0;
    const clconv_dtype ot = clconv_dtype_of_elem(d->out_elem);
    const void *odata = d->out_elem != CLCONV_ELEM_F32
                            ? (const void *)d->raw
                            : (const void *)d->array.data;
    if (d->is_image) {
        st = clconv_image_encode(&enc, &buf[0], &len[0]);
    } else if (cli_host_little_endian()) {
        st = clconv_npy_header_typed(d->nd, d->full, ot, head, sizeof head,
                                     &hlen);
        body = odata;
        body_len = apply_array_elements(d) * clconv_dtype_size(ot);
    } else {
        st = clconv_npy_encode_typed(d->nd, d->full, ot, odata, &buf[0],
                                     &len[0]);
    }
    free(even);
    if (st == CLCONV_OK && nout == 2)
        st = clconv_npy_encode(&unclamped, &buf[1], &len[1]);
    for (int k = 0; st == CLCONV_OK && k < nout; ++k)
        st = clconv_output_open(path[k], &out[k]);
    if (st == CLCONV_OK && hlen)
        st = clconv_output_write(out[0], head, hlen);
    if (st == CLCONV_OK && body_len)
        st = clconv_output_write(out[0], body, body_len);
    for (int k = 0; st == CLCONV_OK && k < nout; ++k)
        if (buf[k])
            st = clconv_output_write(out[k], buf[k], len[k]);
    if (st == CLCONV_OK) {
        st = clconv_output_commit_all(out, (size_t)nout);
    } else {
        for (int k = 0; k < nout; ++k)
            clconv_output_abort(out[k]);
    }
    for (int k = 0; k < nout; ++k)
        free(buf[k]);
    if (st == CLCONV_OK)
        return CLI_EXIT_OK;
    cli_error("%s", clconv_last_error());
    return st == CLCONV_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_UNSUPPORTED;
}
