/* Reading an input file for clconv_npy_parse or clconv_image_decode. A
 * regular file is read whole. Anything else (a FIFO, /dev/stdin, a
 * device) has no size to trust, so it is read only as far as the format
 * its first bytes show can reach: a .npy exactly as far as its header
 * declares, a PNG or PGM/PPM as far as its header's width, height and
 * depth allow; anything else (/dev/zero) is refused after those bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

#define HEAD_BYTES 4096
#define NPY_MAX_HEADER ((size_t)1 << 20)
#define PNM_MAX_HEADER ((size_t)1 << 20)
/* Room beyond the pixels for ancillary chunks, comments and separators. */
#define SLACK_BYTES ((size_t)64 << 20)

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* a * b + c, or SIZE_MAX on overflow. */
static size_t mul_add(size_t a, size_t b, size_t c)
{
    if (b && a > (SIZE_MAX - c) / b)
        return SIZE_MAX;
    return a * b + c;
}

/* PNG: the raw rows IHDR declares, twice, and room for other chunks. */
static size_t png_limit(const unsigned char *b, size_t n)
{
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    if (n < 33 || memcmp(b + 12, "IHDR", 4) != 0 || b[25] > 6 ||
        !channels[b[25]])
        return 0;
    size_t w = be32(b + 16), h = be32(b + 20), depth = b[24];
    size_t bits = mul_add(w, (size_t)channels[b[25]] * depth, 7);
    size_t raw = mul_add(h, bits / 8 + 1, 0);
    return raw == SIZE_MAX || bits == SIZE_MAX ? SIZE_MAX
                                               : mul_add(raw, 2, SLACK_BYTES);
}

/* PGM/PPM: the samples the header declares (binary: exactly; ASCII: at
 * most 6 characters each) after a header that must fit in b; 0 if it
 * does not, with *more set when b ends before the header does. */
static size_t pnm_limit(const unsigned char *b, size_t n, int *more)
{
    size_t v[3] = {0, 0, 0}, i = 2;
    *more = 0;
    for (int k = 0; k < 3; ++k) {
        while (i < n && ((b[i] && strchr(" \t\r\n\v\f", b[i])) ||
                         b[i] == '#'))
            if (b[i++] == '#')
                while (i < n && b[i] != '\n' && b[i] != '\r')
                    ++i;
        if (i == n) {
            *more = 1;
            return 0;
        }
        if (b[i] < '0' || b[i] > '9')
            return 0;
        while (i < n && b[i] >= '0' && b[i] <= '9' && v[k] < 100000000)
            v[k] = v[k] * 10 + (size_t)(b[i++] - '0');
    }
    if (i == n) { /* maxval's digits may go on */
        *more = 1;
        return 0;
    }
    int ascii = b[1] == '2' || b[1] == '3';
    size_t per = ascii ? 6 : v[2] > 255 ? 2 : 1;
    size_t ch = b[1] == '3' || b[1] == '6' ? 3 : 1;
    size_t samples = mul_add(mul_add(v[0], v[1], 0), ch, 0);
    return mul_add(samples, per, i + 1 + (ascii ? SLACK_BYTES : 0));
}

/* How far the stream may go, from what it starts with; 0 (error set) when
 * the format is not one clconv reads. */
static clconv_status limit_of(clc_stream *s, size_t *limit)
{
    static const unsigned char npy[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    *limit = 0;
    if (s->n >= 12 && memcmp(s->b, npy, 6) == 0) {
        size_t start = s->b[6] == 1 ? 10 : 12;
        /* Little-endian: 2 bytes in version 1.0, 4 after. */
        size_t hlen = (size_t)s->b[8] | (size_t)s->b[9] << 8;
        if (s->b[6] != 1)
            hlen |= (size_t)s->b[10] << 16 | (size_t)s->b[11] << 24;
        if (hlen > NPY_MAX_HEADER)
            return clc_fail(CLCONV_EINVAL, "%s: .npy header of %zu bytes",
                            s->path, hlen);
        clconv_status st = clc_stream_read(s, start + hlen);
        if (st == CLCONV_OK)
            st = clconv_npy_declared_size(s->b, s->n, limit);
        return st == CLCONV_OK ? st : clc_fail(st, "%s: %s", s->path,
                                               clconv_last_error());
    }
    if (clconv_image_sniff(s->b, s->n) && s->b[0] != 'P') {
        *limit = png_limit(s->b, s->n);
    } else if (clconv_image_sniff(s->b, s->n)) {
        /* A PGM/PPM header longer than the first bytes (long comments):
         * read on, up to PNM_MAX_HEADER; at the end of the stream the
         * decoder says what is wrong with what came. */
        int more = 0;
        while ((*limit = pnm_limit(s->b, s->n, &more)) == 0 && more &&
               !s->eof && s->n < PNM_MAX_HEADER) {
            clconv_status st = clc_stream_read(s, s->n * 2);
            if (st != CLCONV_OK)
                return st;
        }
        if (*limit == 0 && more && s->eof)
            *limit = s->n;
    }
    if (*limit == 0)
        return clc_fail(CLCONV_EINVAL,
                        "%s: not a .npy array or a PNG, PGM or PPM image "
                        "(read no further: it is not a regular file)",
                        s->path);
    return CLCONV_OK;
}

static clconv_status read_stream(clc_stream *s, size_t max_len)
{
    clconv_status st = clc_stream_read(s, HEAD_BYTES);
    size_t limit = 0;
    if (st != CLCONV_OK || s->eof)
        return st;
    if ((st = limit_of(s, &limit)) != CLCONV_OK)
        return st;
    /* Refused as soon as what the header declares passes max_len, before
     * the bytes it declares are read. */
    if (limit > max_len)
        return clc_fail(CLCONV_EINVAL,
                        "%s: its header declares more than %zu bytes",
                        s->path, max_len);
    if ((st = clc_stream_read(s, limit + 1)) != CLCONV_OK)
        return st;
    if (s->n > limit)
        return clc_fail(CLCONV_EINVAL,
                        "%s: longer than its header allows (%zu bytes)",
                        s->path, limit);
    return CLCONV_OK;
}

clconv_status clconv_input_read(const char *path, size_t max_len,
                                unsigned char **buf, size_t *len)
{
    return clc_read_path(path, max_len, read_stream, buf, len);
}
