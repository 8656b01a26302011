/* Images: PNG in every colour type and depth against libpng's own simplified
 * API (an independent encoder and decoder), PGM/PPM against hand-written
 * bytes, rounding and clamping on output, and damaged files refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <png.h>

#include "clconv_io.h"

static const png_uint_32 simplified_formats[5] = {
    0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};

/* A deterministic sample value for (i, channel) within maxval. */
static unsigned sample_of(size_t i, int c, unsigned maxval)
{
    return (unsigned)((i * 2654435761u + (unsigned)c * 40503u) % (maxval + 1u));
}

/* libpng's simplified writer stores 16-bit "linear" formats in host order
 * and converts; to keep values exact, write 16-bit files through the
 * simplified API only with PNG_FORMAT_FLAG_LINEAR and compare raw. */
static void png_written_by_libpng_decodes_to_the_same_samples(void **state)
{
    (void)state;
    for (int channels = 1; channels <= 4; ++channels)
        for (int wide = 0; wide <= 1; ++wide) {
            const size_t w = 13, h = 7, n = w * h * (size_t)channels;
            unsigned maxval = wide ? 65535u : 255u;
            png_image pi;
            memset(&pi, 0, sizeof pi);
            pi.version = PNG_IMAGE_VERSION;
            pi.width = (png_uint_32)w;
            pi.height = (png_uint_32)h;
            pi.format = simplified_formats[channels] |
                        (wide ? PNG_FORMAT_FLAG_LINEAR : 0);
            unsigned char *pix8 = malloc(n);
            uint16_t *pix16 = malloc(n * 2);
            for (size_t i = 0; i < w * h; ++i)
                for (int c = 0; c < channels; ++c) {
                    unsigned v = sample_of(i, c, maxval);
                    /* Linear formats with alpha are premultiplied: keep
                     * alpha opaque so colour samples stay exact. */
                    if (wide && (channels == 2 || channels == 4) &&
                        c == channels - 1)
                        v = 65535u;
                    pix8[i * (size_t)channels + (size_t)c] = (unsigned char)v;
                    pix16[i * (size_t)channels + (size_t)c] = (uint16_t)v;
                }
            png_alloc_size_t size = 0;
            const void *src = wide ? (const void *)pix16 : (const void *)pix8;
            assert_true(png_image_write_get_memory_size(pi, size, 0, src, 0, NULL));
            unsigned char *file = malloc(size);
            assert_true(png_image_write_to_memory(&pi, file, &size, 0, src, 0, NULL));
            clconv_image img;
            clconv_status st = clconv_image_decode(file, size, &img);
            if (st != CLCONV_OK)
                fail_msg("%d channels, %d bits: %s", channels, wide ? 16 : 8,
                         clconv_last_error());
            assert_int_equal(img.format, CLCONV_IMAGE_PNG);
            assert_int_equal(img.width, w);
            assert_int_equal(img.height, h);
            assert_int_equal(img.channels, channels);
            assert_int_equal(img.maxval, maxval);
            for (size_t i = 0; i < n; ++i) {
                float expect = wide ? pix16[i] : pix8[i];
                if (img.pixels[i] != expect)
                    fail_msg("%d channels, %d bits, sample %zu: got %g "
                             "expected %g",
                             channels, wide ? 16 : 8, i, img.pixels[i], expect);
            }
            clconv_image_free(&img);
            free(file);
            free(pix8);
            free(pix16);
        }
}

/* libpng's writer into a growing memory buffer. */
typedef struct membuf {
    unsigned char *data;
    size_t len, cap;
} membuf;

static void mem_write(png_structp png, png_bytep bytes, png_size_t n)
{
    membuf *m = png_get_io_ptr(png);
    if (m->len + n > m->cap) {
        m->cap = 2 * (m->len + n);
        m->data = realloc(m->data, m->cap);
        assert_non_null(m->data);
    }
    memcpy(m->data + m->len, bytes, n);
    m->len += n;
}

static void mem_flush(png_structp png) { (void)png; }

/* Gray and RGB PNGs (8 and 16 bits) whose tRNS chunk makes one value
 * transparent decode with an alpha channel: 0 where a pixel has that
 * value, the maximum elsewhere (the chunk was applied to palettes only,
 * and the transparency was lost). */
static void gray_and_rgb_transparency_becomes_alpha(void **state)
{
    (void)state;
    const size_t w = 5, h = 4;
    for (int rgb = 0; rgb <= 1; ++rgb)
        for (int depth = 8; depth <= 16; depth += 8) {
            const int ch = rgb ? 3 : 1, bps = depth / 8;
            const unsigned maxval = depth == 16 ? 65535u : 255u;
            png_structp png =
                png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL,
                                        NULL);
            png_infop info = png_create_info_struct(png);
            assert_non_null(png && info);
            membuf m = {0};
            png_set_write_fn(png, &m, mem_write, mem_flush);
            png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, depth,
                         rgb ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                         PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                         PNG_FILTER_TYPE_DEFAULT);
            png_color_16 trans = {0};
            trans.gray = trans.red = trans.green = trans.blue = 5;
            png_set_tRNS(png, info, NULL, 0, &trans);
            png_write_info(png, info);
            if (bps == 2)
                png_set_swap(png); /* rows below in host (little) order */
            unsigned char row[5 * 3 * 2];
            for (size_t y = 0; y < h; ++y) {
                for (size_t x = 0; x < w; ++x)
                    for (int c = 0; c < ch; ++c) {
                        /* value 5 on the diagonal (every channel), else
                         * 200 + x */
                        unsigned v = x == y ? 5u : 200u + (unsigned)x;
                        unsigned char *at = row + (x * ch + c) * bps;
                        at[0] = (unsigned char)(v & 0xff);
                        if (bps == 2)
                            at[1] = (unsigned char)(v >> 8);
                    }
                png_write_row(png, row);
            }
            png_write_end(png, NULL);
            png_destroy_write_struct(&png, &info);
            clconv_image img;
            if (clconv_image_decode(m.data, m.len, &img) != CLCONV_OK)
                fail_msg("%s %d bits with tRNS: %s", rgb ? "RGB" : "gray",
                         depth, clconv_last_error());
            assert_int_equal(img.channels, ch + 1);
            assert_int_equal(img.maxval, maxval);
            for (size_t y = 0; y < h; ++y)
                for (size_t x = 0; x < w; ++x) {
                    const float *px = img.pixels + (y * w + x) * (ch + 1);
                    const float v = x == y ? 5.0f : 200.0f + (float)x;
                    for (int c = 0; c < ch; ++c)
                        assert_true(px[c] == v);
                    if (px[ch] != (x == y ? 0.0f : (float)maxval))
                        fail_msg("%s %d bits: alpha at (%zu, %zu) is %g",
                                 rgb ? "RGB" : "gray", depth, x, y, px[ch]);
                }
            clconv_image_free(&img);
            free(m.data);
        }
}

static void png_written_by_clconv_reads_back_in_libpng(void **state)
{
    (void)state;
    for (int channels = 1; channels <= 4; ++channels)
        for (int wide = 0; wide <= 1; ++wide) {
            const size_t w = 9, h = 11, n = w * h * (size_t)channels;
            unsigned maxval = wide ? 65535u : 255u;
            clconv_image img = {CLCONV_IMAGE_PNG, w, h, channels, maxval, NULL};
            img.pixels = malloc(n * sizeof(float));
            for (size_t i = 0; i < w * h; ++i)
                for (int c = 0; c < channels; ++c)
                    img.pixels[i * (size_t)channels + (size_t)c] =
                        (float)sample_of(i, c, maxval);
            unsigned char *file;
            size_t len;
            assert_int_equal(clconv_image_encode(&img, &file, &len), CLCONV_OK);
            /* libpng reads the header: colour type and depth kept. */
            png_image pi;
            memset(&pi, 0, sizeof pi);
            pi.version = PNG_IMAGE_VERSION;
            assert_true(png_image_begin_read_from_memory(&pi, file, len));
            assert_int_equal(pi.width, w);
            assert_int_equal(pi.height, h);
            assert_int_equal(PNG_IMAGE_SAMPLE_CHANNELS(pi.format), channels);
            assert_int_equal(pi.format & PNG_FORMAT_FLAG_LINEAR,
                             wide ? PNG_FORMAT_FLAG_LINEAR : 0);
            if (!wide) {
                /* 8-bit samples come back as stored. */
                pi.format = simplified_formats[channels];
                unsigned char *back = malloc(PNG_IMAGE_SIZE(pi));
                assert_true(png_image_finish_read(&pi, NULL, back, 0, NULL));
                for (size_t i = 0; i < n; ++i)
                    assert_int_equal(back[i], (unsigned)img.pixels[i]);
                free(back);
            } else {
                png_image_free(&pi);
            }
            /* And our decoder agrees exactly, 16 bits included. */
            clconv_image again;
            assert_int_equal(clconv_image_decode(file, len, &again), CLCONV_OK);
            assert_int_equal(again.maxval, maxval);
            assert_memory_equal(again.pixels, img.pixels, n * sizeof(float));
            clconv_image_free(&again);
            clconv_image_free(&img);
            free(file);
        }
}

static void samples_are_rounded_and_clamped_on_output(void **state)
{
    (void)state;
    static const float in[8] = {-3.0f, 0.49f, 0.5f, 254.4f,
                                254.6f, 300.0f, 1e30f, 0.0f};
    static const unsigned char expect[8] = {0, 0, 1, 254, 255, 255, 255, 0};
    float px[8];
    memcpy(px, in, sizeof px);
    px[7] = (float)NAN;
    clconv_image img = {CLCONV_IMAGE_PGM, 8, 1, 1, 255, px};
    unsigned char *file;
    size_t len;
    assert_int_equal(clconv_image_encode(&img, &file, &len), CLCONV_OK);
    static const char head[] = "P5\n8 1\n255\n";
    assert_int_equal(len, sizeof head - 1 + 8);
    assert_memory_equal(file, head, sizeof head - 1);
    assert_memory_equal(file + sizeof head - 1, expect, 8);
    free(file);
}

typedef struct pnm_case {
    const char *what;
    const char *bytes;
    size_t len;
    clconv_image_format format;
    int channels;
    unsigned maxval;
    float expect[6];
} pnm_case;

#define BYTES(s) s, sizeof s - 1
static const pnm_case pnm_cases[] = {
    {"P5 with a comment", BYTES("P5 # made by hand\n3 1\n255\n\x01\x80\xff"),
     CLCONV_IMAGE_PGM, 1, 255, {1, 128, 255}},
    {"P5 16-bit", BYTES("P5\n2 1\n1000\n\x03\xe8\x01\x02"), CLCONV_IMAGE_PGM, 1,
     1000, {1000, 258}},
    {"P6", BYTES("P6\n2 1\n255\n\x01\x02\x03\x04\x05\x06"), CLCONV_IMAGE_PPM, 3,
     255, {1, 2, 3, 4, 5, 6}},
    {"P2", BYTES("P2\n3 1\n15\n0 7\n15\n"), CLCONV_IMAGE_PGM_ASCII, 1, 15,
     {0, 7, 15}},
    {"P3", BYTES("P3 1 2\n# c\n65535 1 2 3\n 65535 0 9"), CLCONV_IMAGE_PPM_ASCII,
     3, 65535, {1, 2, 3, 65535, 0, 9}},
    /* netpbm reads '#' comments anywhere in an ASCII file: after maxval
     * and between samples (refused before: "sample 0 is missing"). */
    {"P2 with comments after maxval and between samples",
     BYTES("P2 3 1 15# max\n# GIMP\n0 # first\n7#x\n15 # end\n"),
     CLCONV_IMAGE_PGM_ASCII, 1, 15, {0, 7, 15}},
};

static void pgm_and_ppm_decode_and_encode_back_byte_for_byte(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof pnm_cases / sizeof pnm_cases[0]; ++k) {
        const pnm_case *c = &pnm_cases[k];
        clconv_image img;
        clconv_status st = clconv_image_decode((const unsigned char *)c->bytes,
                                               c->len, &img);
        if (st != CLCONV_OK)
            fail_msg("%s: %s", c->what, clconv_last_error());
        assert_int_equal(img.format, c->format);
        assert_int_equal(img.channels, c->channels);
        assert_int_equal(img.maxval, c->maxval);
        size_t n = img.width * img.height * (size_t)img.channels;
        for (size_t i = 0; i < n; ++i)
            assert_true(img.pixels[i] == c->expect[i]);
        unsigned char *file;
        size_t len;
        assert_int_equal(clconv_image_encode(&img, &file, &len), CLCONV_OK);
        clconv_image back;
        assert_int_equal(clconv_image_decode(file, len, &back), CLCONV_OK);
        assert_int_equal(back.format, c->format);
        assert_memory_equal(back.pixels, img.pixels, n * sizeof(float));
        free(file);
        clconv_image_free(&back);
        clconv_image_free(&img);
    }
}

typedef struct bad_image {
    const char *what;
    const char *bytes;
    size_t len;
    const char *expect;
} bad_image;

static const bad_image bad_images[] = {
    {"unknown signature", BYTES("GIF89a"), "unknown signature"},
    {"PBM", BYTES("P4\n1 1\n\x80"), "PBM"},
    {"PAM", BYTES("P7\nWIDTH 1\n"), "PAM"},
    {"no width", BYTES("P5\n\n"), "bad width"},
    {"zero height", BYTES("P5 1 0 255\n"), "bad height"},
    {"maxval too large", BYTES("P5 1 1 65536\n\x00\x00"), "bad maxval"},
    {"maxval zero", BYTES("P5 1 1 0\n\x00"), "bad maxval"},
    {"width with junk", BYTES("P5 1x 1 255\n\x00"), "bad width"},
    {"huge width", BYTES("P5 99999999999 1 255\n\x00"), "bad width"},
    {"truncated data", BYTES("P6 2 2 255\n\x01\x02\x03"), "truncated"},
    {"trailing data", BYTES("P5 1 1 255\n\x01\x02"), "after the image"},
    {"sample above maxval", BYTES("P5 2 1 100\n\x01\x65"), "above maxval"},
    {"16-bit above maxval", BYTES("P5 1 1 300\n\x01\x2d"), "above maxval"},
    {"ASCII missing sample", BYTES("P2 2 2 9\n1 2 3 x"), "not a number"},
    {"ASCII too few bytes", BYTES("P3 100 100 255\n1 2 3"), "cannot fit"},
    {"ASCII trailing junk", BYTES("P2 1 1 9\n1 2"), "after the last sample"},
    {"no header end", BYTES("P5 1 1 255"), "truncated header"},
};

static void damaged_netpbm_files_are_refused_with_their_reason(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad_images / sizeof bad_images[0]; ++k) {
        const bad_image *c = &bad_images[k];
        clconv_image img;
        clconv_status st =
            clconv_image_decode((const unsigned char *)c->bytes, c->len, &img);
        if (st != CLCONV_EINVAL || !strstr(clconv_last_error(), c->expect))
            fail_msg("%s: status %d, '%s', expected '%s'", c->what, (int)st,
                     clconv_last_error(), c->expect);
        assert_null(img.pixels);
    }
}

/* A valid PNG written by libpng, then every truncation and every single
 * flipped byte: decoding may fail (one line) or succeed, never crash or
 * leak (run under ASan/valgrind to see). */
static void damaged_pngs_are_refused_or_decoded_without_harm(void **state)
{
    (void)state;
    unsigned char pix[6 * 5 * 3];
    for (size_t i = 0; i < sizeof pix; ++i)
        pix[i] = (unsigned char)(i * 7);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = 6;
    pi.height = 5;
    pi.format = PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    assert_true(png_image_write_get_memory_size(pi, size, 0, pix, 0, NULL));
    unsigned char *file = malloc(size);
    assert_true(png_image_write_to_memory(&pi, file, &size, 0, pix, 0, NULL));
    size_t refused = 0;
    for (size_t n = 0; n < size; ++n) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, file, n);
        clconv_image img;
        if (clconv_image_decode(copy, n, &img) == CLCONV_EINVAL) {
            ++refused;
            assert_null(strchr(clconv_last_error(), '\n'));
        }
        clconv_image_free(&img);
        free(copy);
    }
    /* IEND carries no data, but every shorter file lacks it. */
    assert_int_equal(refused, size);
    for (size_t i = 0; i < size; ++i) {
        unsigned char *copy = malloc(size);
        memcpy(copy, file, size);
        copy[i] ^= 0x55;
        clconv_image img;
        clconv_status st = clconv_image_decode(copy, size, &img);
        assert_true(st == CLCONV_OK || st == CLCONV_EINVAL);
        clconv_image_free(&img);
        free(copy);
    }
    free(file);
}

/* The PNG chunk CRC (CRC-32, reflected, polynomial 0xedb88320). */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
            c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
    }
    return c ^ 0xffffffffu;
}

/* An IHDR that claims 100000 x 100000 in a file of a few dozen bytes is
 * refused before anything is allocated. */
static void png_claiming_more_pixels_than_its_size_allows_is_refused(void **state)
{
    (void)state;
    unsigned char pix[3] = {1, 2, 3};
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = 1;
    pi.height = 1;
    pi.format = PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    assert_true(png_image_write_get_memory_size(pi, size, 0, pix, 0, NULL));
    unsigned char *file = malloc(size);
    assert_true(png_image_write_to_memory(&pi, file, &size, 0, pix, 0, NULL));
    /* IHDR data at 16..28; patch width/height and recompute the CRC. */
    static const unsigned char big[8] = {0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0};
    memcpy(file + 16, big, 8);
    uint32_t crc = crc32_of(file + 12, 17);
    for (int k = 0; k < 4; ++k)
        file[29 + k] = (unsigned char)(crc >> (24 - 8 * k));
    clconv_image img;
    assert_int_equal(clconv_image_decode(file, size, &img), CLCONV_EINVAL);
    assert_non_null(strstr(clconv_last_error(), "cannot be stored"));
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(png_written_by_libpng_decodes_to_the_same_samples),
        cmocka_unit_test(png_written_by_clconv_reads_back_in_libpng),
        cmocka_unit_test(gray_and_rgb_transparency_becomes_alpha),
        cmocka_unit_test(samples_are_rounded_and_clamped_on_output),
        cmocka_unit_test(pgm_and_ppm_decode_and_encode_back_byte_for_byte),
        cmocka_unit_test(damaged_netpbm_files_are_refused_with_their_reason),
        cmocka_unit_test(damaged_pngs_are_refused_or_decoded_without_harm),
        cmocka_unit_test(png_claiming_more_pixels_than_its_size_allows_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
