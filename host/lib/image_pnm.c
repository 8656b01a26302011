/* PGM and PPM (netpbm), binary and ASCII: decoding with every length
 * checked before it is trusted, and encoding. Part of the image module
 * (image.c holds PNG and the dispatch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

#define IMAGE_MAX_SIDE 1000000u

/* The netpbm formats clconv reads and writes; [0] is a placeholder so an
 * index names no format when the magic matches none. */
static const struct {
    clconv_image_format format;
    const char *name;
    char magic;   /* the digit after 'P' */
    int channels; /* 1 or 3 */
    int ascii;
} formats[] = {
    {CLCONV_IMAGE_PNG, "PNG", 0, 0, 0},
    {CLCONV_IMAGE_PGM, "PGM", '5', 1, 0},
    {CLCONV_IMAGE_PPM, "PPM", '6', 3, 0},
    {CLCONV_IMAGE_PGM_ASCII, "PGM (ASCII)", '2', 1, 1},
    {CLCONV_IMAGE_PPM_ASCII, "PPM (ASCII)", '3', 3, 1},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const char *clc_pnm_format_name(clconv_image_format f)
{
    for (size_t k = 1; k < NFORMATS; ++k)
        if (formats[k].format == f)
            return formats[k].name;
    return "?";
}

typedef struct pnm_cursor {
    const unsigned char *d;
    size_t n, i;
} pnm_cursor;

static int pnm_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

/* Skip whitespace and, when comments, '#' comments (the header; an ASCII
 * raster's samples too). */
static void pnm_skip(pnm_cursor *c, int comments)
{
    while (c->i < c->n) {
        if (pnm_space(c->d[c->i])) {
            ++c->i;
        } else if (comments && c->d[c->i] == '#') {
            while (c->i < c->n && c->d[c->i] != '\n' && c->d[c->i] != '\r')
                ++c->i;
        } else {
            break;
        }
    }
}

/* A decimal number up to max; -1 if none or too large. */
static long pnm_number(pnm_cursor *c, long max)
{
    if (c->i >= c->n || c->d[c->i] < '0' || c->d[c->i] > '9')
        return -1;
    long v = 0;
    while (c->i < c->n && c->d[c->i] >= '0' && c->d[c->i] <= '9') {
        v = v * 10 + (c->d[c->i] - '0');
        if (v > max)
            return -1;
        ++c->i;
    }
    if (c->i < c->n && !pnm_space(c->d[c->i]) && c->d[c->i] != '#')
        return -1;
    return v;
}

/* The header of netpbm format f: width, height, maxval (v[0..2]) and
 * the sample count; c is left at the first sample, the byte count of the
 * samples checked against what is left. */
static clconv_status pnm_header(pnm_cursor *c, size_t f, long v[3], size_t *n)
{
    const char *name = formats[f].name;
    static const char *what[3] = {"width", "height", "maxval"};
    static const long max[3] = {IMAGE_MAX_SIDE, IMAGE_MAX_SIDE, 65535};
    for (int k = 0; k < 3; ++k) {
        pnm_skip(c, 1);
        v[k] = pnm_number(c, max[k]);
        if (v[k] < 1)
            return clc_fail(CLCONV_EINVAL,
                            "%s: bad %s in the header (an integer in 1..%ld)",
                            name, what[k], max[k]);
    }
    *n = clc_image_samples((size_t)v[0], (size_t)v[1], formats[f].channels);
    if (*n == 0)
        return clc_fail(CLCONV_EINVAL, "%s: image too large", name);
    const size_t len = c->n;
    if (formats[f].ascii) {
        /* Each sample takes a digit and a separator (but the last). */
        if (*n > (len - c->i + 1) / 2)
            return clc_fail(CLCONV_EINVAL,
                            "%s: %zu samples cannot fit in the %zu bytes left",
                            name, *n, len - c->i);
        return CLCONV_OK;
    }
    /* Exactly one whitespace byte, then the samples. */
    if (c->i >= len || !pnm_space(c->d[c->i]))
        return clc_fail(CLCONV_EINVAL, "%s: truncated header", name);
    ++c->i;
    size_t bps = v[2] < 256 ? 1 : 2;
    if (*n > (len - c->i) / bps)
        return clc_fail(CLCONV_EINVAL,
                        "%s: truncated: %zu samples need %zu bytes, %zu left",
                        name, *n, *n * bps, len - c->i);
    if (len - c->i != *n * bps)
        return clc_fail(CLCONV_EINVAL,
                        "%s: %zu bytes after the image (one image per file)",
                        name, len - c->i - *n * bps);
    return CLCONV_OK;
}

clconv_status clc_pnm_decode(const unsigned char *data, size_t len,
                             clconv_image *img)
{
    size_t f = 1;
    while (f < NFORMATS && formats[f].magic != (char)data[1])
        ++f;
    if (f == NFORMATS)
        return clc_fail(CLCONV_EINVAL, "not a PGM or PPM image");
    const char *name = formats[f].name;
    pnm_cursor c = {data, len, 2};
    long v[3];
    size_t n = 0;
    clconv_status st = pnm_header(&c, f, v, &n);
    if (st != CLCONV_OK)
        return st;
    const int channels = formats[f].channels;
    const unsigned maxval = (unsigned)v[2];
    float *px = malloc(n * sizeof *px);
    if (!px)
        return clc_fail(CLCONV_ENOMEM, "%s: out of memory", name);
    for (size_t i = 0; i < n; ++i) {
        long s;
        if (formats[f].ascii) {
            /* '#' comments may stand between samples too, as netpbm
             * reads them (after maxval, within the raster). */
            pnm_skip(&c, 1);
            s = pnm_number(&c, 65535);
            if (s < 0) {
                free(px);
                return clc_fail(CLCONV_EINVAL,
                                "%s: sample %zu is missing or not a number "
                                "in 0..%u",
                                name, i, maxval);
            }
        } else if (maxval < 256) {
            s = data[c.i++];
        } else {
            s = (long)data[c.i] << 8 | data[c.i + 1];
            c.i += 2;
        }
        if (s > (long)maxval) {
            free(px);
            return clc_fail(CLCONV_EINVAL,
                            "%s: sample %zu is %ld, above maxval %u", name, i,
                            s, maxval);
        }
        px[i] = (float)s;
    }
    if (formats[f].ascii) {
        pnm_skip(&c, 1);
        if (c.i != len) {
            free(px);
            return clc_fail(CLCONV_EINVAL,
                            "%s: unexpected bytes after the last sample", name);
        }
    }
    img->format = formats[f].format;
    img->width = (size_t)v[0];
    img->height = (size_t)v[1];
    img->channels = channels;
    img->maxval = maxval;
    img->pixels = px;
    return CLCONV_OK;
}

clconv_status clc_pnm_encode(const clconv_image *img, unsigned char **buf,
                             size_t *len)
{
    size_t f = 0;
    while (f < NFORMATS && formats[f].format != img->format)
        ++f;
    if (f == NFORMATS)
        return clc_fail(CLCONV_EINVAL, "unknown image format %d",
                        (int)img->format);
    const char *name = formats[f].name;
    if (img->channels != formats[f].channels)
        return clc_fail(CLCONV_EINVAL, "%s holds %d channel(s), not %d", name,
                        formats[f].channels, img->channels);
    if (img->maxval < 1 || img->maxval > 65535)
        return clc_fail(CLCONV_EINVAL, "%s: maxval %u is not in 1..65535",
                        name, img->maxval);
    size_t n = clc_image_samples(img->width, img->height, img->channels);
    if (n == 0)
        return clc_fail(CLCONV_EINVAL, "%s: image too large", name);
    size_t per = formats[f].ascii ? 6 : img->maxval < 256 ? 1 : 2;
    if (n > (SIZE_MAX - 64) / per)
        return clc_fail(CLCONV_EINVAL, "%s: image too large", name);
    size_t cap = 64 + n * per;
    unsigned char *b = malloc(cap);
    if (!b)
        return clc_fail(CLCONV_ENOMEM, "%s: out of memory", name);
    int h = snprintf((char *)b, 64, "P%c\n%zu %zu\n%u\n", formats[f].magic,
                     img->width, img->height, img->maxval);
    size_t o = (size_t)h;
    for (size_t i = 0; i < n; ++i) {
        unsigned q = clc_image_quantize(img->pixels[i], img->maxval);
        if (formats[f].ascii) {
            /* At most 10 samples of 5 digits per line: under 70 columns. */
            char end = (i + 1) % 10 == 0 || i + 1 == n ? '\n' : ' ';
            o += (size_t)snprintf((char *)b + o, cap - o, "%u%c", q, end);
        } else if (img->maxval < 256) {
            b[o++] = (unsigned char)q;
        } else {
            b[o++] = (unsigned char)(q >> 8);
            b[o++] = (unsigned char)q;
        }
    }
    *buf = b;
    *len = o;
    return CLCONV_OK;
}

