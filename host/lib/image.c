/* Images: PNG through libpng (from and to memory), and PGM/PPM (P2, P3,
 * P5, P6). Pixels are floats in 0..maxval; encoding rounds and clamps. */
#include <limits.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G',
                                               '\r', '\n', 0x1a, '\n'};

/* A deflate stream expands at most about 1032:1; a PNG whose raw rows
 * need more than this times the file's size cannot be valid, so it is
 * refused before anything is allocated. */
#define DEFLATE_MAX_RATIO 1100u
/* libpng's own limit on each side is 1,000,000; ours matches the
 * kernels' int indexing more than enough. */
#define IMAGE_MAX_SIDE 1000000u


const char *clconv_image_format_name(clconv_image_format f)
{
    return f == CLCONV_IMAGE_PNG ? "PNG" : clc_pnm_format_name(f);
}

void clconv_image_free(clconv_image *img)
{
    if (!img)
        return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

int clconv_image_sniff(const unsigned char *data, size_t len)
{
    if (!data)
        return 0;
    if (len >= 8 && memcmp(data, png_signature, 8) == 0)
        return 1;
    return len >= 3 && data[0] == 'P' &&
           (data[1] == '2' || data[1] == '3' || data[1] == '5' ||
            data[1] == '6') &&
           (data[2] == ' ' || data[2] == '\t' || data[2] == '\n' ||
            data[2] == '\r' || data[2] == '#');
}

unsigned clc_image_quantize(float v, unsigned maxval)
{
    if (!(v > 0.0f))
        return 0;
    if (v >= (float)maxval)
        return maxval;
    return (unsigned)floorf(v + 0.5f);
}

size_t clc_image_samples(size_t w, size_t h, int channels)
{
    if (w == 0 || h == 0 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE)
        return 0;
    size_t n = w * h; /* < 1e12, fits */
    if (n > SIZE_MAX / sizeof(float) / (size_t)channels)
        return 0;
    return n * (size_t)channels;
}

/* ---- PNG ---------------------------------------------------------------- */

typedef struct png_state {
    png_structp png;
    png_infop info;
    const unsigned char *data;
    size_t len, pos;
    unsigned char *raw;    /* decode: rows; encode: output buffer */
    size_t raw_cap;
    png_bytep *rows;
    char msg[200];
} png_state;

static void png_error_fn(png_structp png, png_const_charp msg)
{
    png_state *s = png_get_error_ptr(png);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    png_longjmp(png, 1);
}

/* Library code never prints: libpng's warnings are dropped. */
static void png_warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static void png_read_fn(png_structp png, png_bytep out, size_t n)
{
    png_state *s = png_get_io_ptr(png);
    if (n > s->len - s->pos)
        png_error(png, "file is truncated");
    memcpy(out, s->data + s->pos, n);
    s->pos += n;
}

/* Everything that may longjmp, in a function of its own so that the
 * caller's locals stay determinate; allocations live in *s. */
static int png_decode_steps(png_state *s, clconv_image *img)
{
    if (setjmp(png_jmpbuf(s->png)))
        return -1;
    png_set_user_limits(s->png, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
    png_set_read_fn(s->png, s, png_read_fn);
    png_read_info(s->png, s->info);
    png_uint_32 w = png_get_image_width(s->png, s->info);
    png_uint_32 h = png_get_image_height(s->png, s->info);
    int depth = png_get_bit_depth(s->png, s->info);
    int type = png_get_color_type(s->png, s->info);
    size_t src_rowbytes = png_get_rowbytes(s->png, s->info);
    if ((double)h * ((double)src_rowbytes + 1) >
        (double)DEFLATE_MAX_RATIO * (double)s->len) {
        snprintf(s->msg, sizeof s->msg,
                 "a %lux%lu image cannot be stored in %zu bytes",
                 (unsigned long)w, (unsigned long)h, s->len);
        return -1;
    }
    if (type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(s->png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(s->png);
    /* Transparency by a tRNS chunk (a palette's, or gray's and RGB's one
     * transparent value) as an alpha channel, so it is kept. */
    if (png_get_valid(s->png, s->info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(s->png);
    png_set_interlace_handling(s->png);
    png_read_update_info(s->png, s->info);
    int channels = png_get_channels(s->png, s->info);
    depth = png_get_bit_depth(s->png, s->info);
    size_t rowbytes = png_get_rowbytes(s->png, s->info);
    size_t n = clc_image_samples(w, h, channels);
    if (n == 0 || channels < 1 || channels > 4 ||
        (depth != 8 && depth != 16) ||
        rowbytes != (size_t)w * (size_t)channels * (size_t)(depth / 8)) {
        snprintf(s->msg, sizeof s->msg, "unexpected layout after expansion");
        return -1;
    }
    s->raw = malloc(rowbytes * h);
    s->rows = malloc(sizeof *s->rows * h);
    img->pixels = malloc(n * sizeof *img->pixels);
    if (!s->raw || !s->rows || !img->pixels) {
        snprintf(s->msg, sizeof s->msg, "out of memory");
        return -1;
    }
    for (size_t y = 0; y < h; ++y)
        s->rows[y] = s->raw + y * rowbytes;
    png_read_image(s->png, s->rows);
    png_read_end(s->png, NULL);
    for (size_t i = 0; i < n; ++i)
        img->pixels[i] = depth == 8 ? (float)s->raw[i]
                                    : (float)(s->raw[2 * i] << 8 |
                                              s->raw[2 * i + 1]);
    img->format = CLCONV_IMAGE_PNG;
    img->width = w;
    img->height = h;
    img->channels = channels;
    img->maxval = depth == 8 ? 255u : 65535u;
    return 0;
}

static clconv_status png_decode(const unsigned char *data, size_t len,
                                clconv_image *img)
{
    png_state s;
    memset(&s, 0, sizeof s);
    s.data = data;
    s.len = len;
    clconv_status st = CLCONV_OK;
    s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, png_error_fn,
                                   png_warning_fn);
    if (s.png)
        s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info)
        st = clc_fail(CLCONV_ENOMEM, "PNG: cannot create libpng structures");
    else if (png_decode_steps(&s, img) != 0)
        st = clc_fail(strcmp(s.msg, "out of memory") == 0 ? CLCONV_ENOMEM
                                                          : CLCONV_EINVAL,
                      "PNG: %s", s.msg);
    png_destroy_read_struct(s.png ? &s.png : NULL, s.info ? &s.info : NULL,
                            NULL);
    free(s.rows);
    free(s.raw);
    if (st != CLCONV_OK)
        clconv_image_free(img);
    return st;
}

static void png_write_fn(png_structp png, png_bytep in, size_t n)
{
    png_state *s = png_get_io_ptr(png);
    if (n > s->raw_cap - s->len) {
        size_t cap = s->raw_cap ? s->raw_cap : 65536;
        while (n > cap - s->len) {
            if (cap > SIZE_MAX / 2)
                png_error(png, "output too large");
            cap *= 2;
        }
        unsigned char *b = realloc(s->raw, cap);
        if (!b)
            png_error(png, "out of memory");
        s->raw = b;
        s->raw_cap = cap;
    }
    memcpy(s->raw + s->len, in, n);
    s->len += n;
}

static void png_flush_fn(png_structp png) { (void)png; }

static int png_encode_steps(png_state *s, const clconv_image *img)
{
    if (setjmp(png_jmpbuf(s->png)))
        return -1;
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY,
                                 PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    int depth = img->maxval == 255 ? 8 : 16;
    size_t bps = (size_t)depth / 8;
    size_t rowbytes = img->width * (size_t)img->channels * bps;
    png_set_write_fn(s->png, s, png_write_fn, png_flush_fn);
    png_set_IHDR(s->png, s->info, (png_uint_32)img->width,
                 (png_uint_32)img->height, depth, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s->png, s->info);
    s->rows = malloc(sizeof *s->rows); /* one row buffer, reused */
    unsigned char *row = malloc(rowbytes);
    if (!s->rows || !row) {
        free(row);
        snprintf(s->msg, sizeof s->msg, "out of memory");
        return -1;
    }
    s->rows[0] = row;
    for (size_t y = 0; y < img->height; ++y) {
        const float *src = img->pixels + y * img->width * (size_t)img->channels;
        for (size_t i = 0; i < img->width * (size_t)img->channels; ++i) {
            unsigned v = clc_image_quantize(src[i], img->maxval);
            if (depth == 8) {
                row[i] = (unsigned char)v;
            } else {
                row[2 * i] = (unsigned char)(v >> 8);
                row[2 * i + 1] = (unsigned char)v;
            }
        }
        png_write_row(s->png, row);
    }
    png_write_end(s->png, NULL);
    return 0;
}

static clconv_status png_encode(const clconv_image *img, unsigned char **buf,
                                size_t *len)
{
    if (img->maxval != 255 && img->maxval != 65535)
        return clc_fail(CLCONV_EINVAL,
                        "PNG: maxval must be 255 or 65535 (got %u)",
                        img->maxval);
    png_state s;
    memset(&s, 0, sizeof s);
    clconv_status st = CLCONV_OK;
    s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, png_error_fn,
                                    png_warning_fn);
    if (s.png)
        s.info = png_create_info_struct(s.png);
    if (!s.png || !s.info)
        st = clc_fail(CLCONV_ENOMEM, "PNG: cannot create libpng structures");
    else if (png_encode_steps(&s, img) != 0)
        st = clc_fail(CLCONV_EINVAL, "PNG: %s", s.msg);
    png_destroy_write_struct(s.png ? &s.png : NULL, s.info ? &s.info : NULL);
    if (s.rows)
        free(s.rows[0]);
    free(s.rows);
    if (st != CLCONV_OK) {
        free(s.raw);
        return st;
    }
    *buf = s.raw;
    *len = s.len;
    return CLCONV_OK;
}

/* ---- dispatch ----------------------------------------------------------- */

clconv_status clconv_image_decode(const unsigned char *data, size_t len,
                                  clconv_image *out)
{
    if (!data || !out)
        return clc_fail(CLCONV_EINVAL,
                        "no image data or nowhere to put it (NULL)");
    memset(out, 0, sizeof *out);
    if (len >= 8 && memcmp(data, png_signature, 8) == 0)
        return png_decode(data, len, out);
    if (len >= 2 && data[0] == 'P' && (data[1] == '1' || data[1] == '4'))
        return clc_fail(CLCONV_EINVAL,
                        "PBM (bitmap) images are not supported; use PGM");
    if (len >= 2 && data[0] == 'P' && data[1] == '7')
        return clc_fail(CLCONV_EINVAL, "PAM images are not supported");
    if (!clconv_image_sniff(data, len))
        return clc_fail(CLCONV_EINVAL,
                        "not a PNG, PGM or PPM image (unknown signature)");
    return clc_pnm_decode(data, len, out);
}

clconv_status clconv_image_encode(const clconv_image *img, unsigned char **buf,
                                  size_t *len)
{
    if (!img || !img->pixels || !buf || !len)
        return clc_fail(CLCONV_EINVAL,
                        "no image or nowhere to put it (NULL)");
    *buf = NULL;
    *len = 0;
    if (img->channels < 1 || img->channels > 4)
        return clc_fail(CLCONV_EINVAL, "images have 1 to 4 channels (got %d)",
                        img->channels);
    if (clc_image_samples(img->width, img->height, img->channels) == 0)
        return clc_fail(CLCONV_EINVAL, "image size %zux%zu is out of range",
                        img->width, img->height);
    if (img->format == CLCONV_IMAGE_PNG)
        return png_encode(img, buf, len);
    return clc_pnm_encode(img, buf, len);
}
