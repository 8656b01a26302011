/* `clconv apply`'s input: a .npy array or an image, as planes of one
 * problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

/* The device type a .npy dtype is uploaded as: the narrow types as they
 * are, every other dtype converted to float32 on the host. */
static clconv_elem elem_of(clconv_dtype t)
{
    switch (t) {
    case CLCONV_DTYPE_U8: return CLCONV_ELEM_U8;
    case CLCONV_DTYPE_U16: return CLCONV_ELEM_U16;
    case CLCONV_DTYPE_I16: return CLCONV_ELEM_I16;
    case CLCONV_DTYPE_F16: return CLCONV_ELEM_F16;
    default: return CLCONV_ELEM_F32;
    }
}

/* A .npy: a narrow dtype kept as it is (d->raw), any other converted to
 * float32. */
static clconv_status load_npy(const unsigned char *buf, size_t len,
                              apply_data *d, clconv_npy_info *info)
{
    clconv_status st = clconv_npy_parse_native(buf, len, &d->array.dims,
                                               d->array.shape, info, &d->raw);
    if (st != CLCONV_OK)
        return st;
    if (elem_of(info->dtype) != CLCONV_ELEM_F32) {
        d->file_dtype = info->dtype;
        d->elem = elem_of(info->dtype);
        return st;
    }
    free(d->raw);
    d->raw = NULL;
    d->file_dtype = info->dtype;
    d->elem = CLCONV_ELEM_F32;
    return clconv_npy_parse(buf, len, &d->array, info);
}

int apply_choose_types(const apply_options *o, apply_data *d)
{
    if (d->is_image) {
        const unsigned mv = d->image.maxval;
        d->elem = mv <= 255 ? CLCONV_ELEM_U8 : CLCONV_ELEM_U16;
        /* The device saturates at the type's range: only a full-range
         * image keeps its type; --float needs the unclamped floats. */
        d->out_elem = o->out_dtype != APPLY_OUT_F32 && !o->float_out &&
                              (mv == 255 || mv == 65535)
                          ? d->elem
                          : CLCONV_ELEM_F32;
        return 0;
    }
    return apply_out_elem(o, d->file_dtype, &d->out_elem);
}

int apply_out_elem(const apply_options *o, clconv_dtype file_dtype,
                   clconv_elem *out)
{
    const clconv_elem e = elem_of(file_dtype);
    *out = o->out_dtype == APPLY_OUT_SAME ? e : CLCONV_ELEM_F32;
    if (o->out_dtype == APPLY_OUT_SAME && e == CLCONV_ELEM_F32 &&
        file_dtype != CLCONV_DTYPE_F32) {
        cli_error("--out-dtype same: %s's dtype %s has no device type (u1, "
                  "u2, i2, f2 and f4 do); its output is float32 (leave "
                  "--out-dtype out)",
                  o->in, clconv_dtype_code(file_dtype));
        return -1;
    }
    return 0;
}

/* The problem and planes of a .npy array: one plane, or its slices along
 * --channel-axis. An (H, W, 3|4) float array is neither an image nor a
 * volume until the user says which. 0, or -1 with one line printed. */
int apply_array_axes(const apply_options *o, const clconv_array *a,
                     clconv_dtype t)
{
    const int nd = a->dims, ca = o->channel_axis;
    if (o->dims3 && nd != 3) {
        cli_error("--dims 3: %s is a %dD array", o->in, nd);
        return -1;
    }
    if (ca == CLI_NO_CHANNEL_AXIS && !o->dims3 && !o->filter.naxes && nd == 3 &&
        (a->shape[2] == 3 || a->shape[2] == 4) &&
        (t == CLCONV_DTYPE_F32 || t == CLCONV_DTYPE_F64 ||
         t == CLCONV_DTYPE_F16)) {
        cli_error("apply: %s has shape (%zu, %zu, %zu), an image with %zu "
                  "channels or a volume? give --channel-axis 2 (each channel "
                  "filtered in 2D), --axes 0,1 (the same) or --dims 3 (one "
                  "3D filter)",
                  o->in, a->shape[0], a->shape[1], a->shape[2], a->shape[2]);
        return -1;
    }
    if (ca != CLI_NO_CHANNEL_AXIS && (ca < -nd || ca >= nd || nd < 2)) {
        cli_error("--channel-axis: %d is out of range for %s, a %dD "
                  "array (a channel axis and at least one more)",
                  ca, o->in, nd);
        return -1;
    }
    return 0;
}

static int array_planes(const apply_options *o, const clconv_npy_info *info,
                        apply_data *d)
{
    const clconv_array *a = &d->array;
    const int nd = a->dims;
    int ca = o->channel_axis;
    clconv_problem *p = &d->shape;
    if (apply_array_axes(o, a, info->dtype))
        return -1;
    d->planes = 1;
    d->inner = 0;
    if (ca != CLI_NO_CHANNEL_AXIS) {
        ca = ca < 0 ? ca + nd : ca;
        if (a->shape[ca] > 4096) {
            cli_error("--channel-axis: %zu channels along axis %d (at most "
                      "4096)", a->shape[ca], ca);
            return -1;
        }
        d->planes = (int)a->shape[ca];
        d->inner = 1;
        for (int k = ca + 1; k < nd; ++k)
            d->inner *= a->shape[k];
    }
    /* The remaining axes, x (NumPy's last) first. */
    p->dims = 0;
    p->size[0] = p->size[1] = p->size[2] = 1;
    for (int k = nd - 1; k >= 0; --k)
        if (ca == CLI_NO_CHANNEL_AXIS || k != ca)
            p->size[p->dims++] = a->shape[k];
    return 0;
}

int apply_load_input(const apply_options *o, apply_data *d)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    /* IN "-": standard input (as OUT "-" is standard output) */
    const int from_stdin = strcmp(o->in, "-") == 0;
    const char *path = from_stdin ? "/dev/stdin" : o->in;
    clconv_status st = clconv_input_read(path, SIZE_MAX / 2, &buf, &len);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    memset(d, 0, sizeof *d);
    clconv_problem *p = &d->shape;
    if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        clconv_npy_info info;
        st = load_npy(buf, len, d, &info);
        if (st == CLCONV_OK && array_planes(o, &info, d)) {
            free(buf);
            clconv_array_free(&d->array); /* refused after parsing */
            free(d->raw);
            d->raw = NULL;
            return -1;
        }
    } else if (o->channel_axis != CLI_NO_CHANNEL_AXIS || o->dims3) {
        free(buf);
        cli_error("apply: %s is an image: --channel-axis and --dims are for "
                  ".npy arrays (images are filtered per colour channel)",
                  o->in);
        return -1;
    } else if (clconv_image_sniff(buf, len) ||
               (len >= 2 && buf[0] == 'P' && buf[1] >= '1' && buf[1] <= '7')) {
        st = clconv_image_decode(buf, len, &d->image);
        if (st == CLCONV_OK) {
            d->is_image = 1;
            p->dims = 2;
            p->size[0] = d->image.width;
            p->size[1] = d->image.height;
            p->size[2] = 1;
            int colour = d->image.channels == 2 || d->image.channels == 4
                             ? d->image.channels - 1
                             : d->image.channels;
            for (int c = 0; c < colour; ++c)
                d->plane_of[d->planes++] = c;
        }
    } else {
        free(buf);
        cli_error("%s: %s a .npy array or a PNG, PGM or PPM image",
                  from_stdin ? "standard input" : o->in,
                  len ? "not" : "empty, not");
        return -1;
    }
    free(buf);
    if (st != CLCONV_OK) {
        cli_error("%s: %s", o->in, clconv_last_error());
        return -1;
    }
    return 0;
}

/* The image sample i * ch + c as an element of t (u8 or u16: the
 * decoder's floats are whole numbers within the type), and back. */
static void sample_get(const apply_data *d, size_t j, clconv_elem t,
                       void *dst, size_t i)
{
    const float v = d->image.pixels[j];
    if (t == CLCONV_ELEM_U8)
        ((unsigned char *)dst)[i] = (unsigned char)v;
    else if (t == CLCONV_ELEM_U16)
        ((unsigned short *)dst)[i] = (unsigned short)v;
    else
        ((float *)dst)[i] = v;
}

static void sample_put(apply_data *d, size_t j, clconv_elem t,
                       const void *src, size_t i)
{
    d->image.pixels[j] =
        t == CLCONV_ELEM_U8    ? (float)((const unsigned char *)src)[i]
        : t == CLCONV_ELEM_U16 ? (float)((const unsigned short *)src)[i]
                               : ((const float *)src)[i];
}

/* Where element i of plane k lies in the array (in elements). */
static size_t plane_index(const apply_data *d, int k, size_t i)
{
    if (!d->inner)
        return i;
    const size_t c = (size_t)k, np = (size_t)d->planes, in = d->inner;
    return (i / in * np + c) * in + i % in;
}

void apply_plane_get(const apply_data *d, int k, void *dst, size_t n)
{
    if (d->is_image) {
        const size_t ch = (size_t)d->image.channels,
                     c = (size_t)d->plane_of[k];
        for (size_t i = 0; i < n; ++i)
            sample_get(d, i * ch + c, d->elem, dst, i);
        return;
    }
    const size_t es = clconv_elem_size(d->elem);
    const unsigned char *base =
        d->raw ? (const unsigned char *)d->raw
               : (const unsigned char *)d->array.data;
    if (!d->inner) {
        memcpy(dst, base, n * es);
        return;
    }
    for (size_t i = 0; i < n; ++i)
        memcpy((unsigned char *)dst + i * es, base + plane_index(d, k, i) * es,
               es);
}

const void *apply_plane_view(const apply_data *d)
{
    if (d->is_image || d->inner || d->planes != 1)
        return NULL;
    return d->raw ? d->raw : (const void *)d->array.data;
}

int apply_plane_put(apply_data *d, int k, const void *src, size_t n)
{
    if (d->is_image) {
        const size_t ch = (size_t)d->image.channels,
                     c = (size_t)d->plane_of[k];
        for (size_t i = 0; i < n; ++i)
            sample_put(d, i * ch + c, d->out_elem, src, i);
        return 0;
    }
    /* A narrow array's float32 output: the array's own floats, made on
     * the first plane. */
    if (d->out_elem == CLCONV_ELEM_F32 && !d->array.data) {
        const size_t shape[3] = {d->array.shape[0], d->array.shape[1],
                                 d->array.shape[2]};
        if (clconv_array_alloc(&d->array, d->array.dims, shape) != CLCONV_OK) {
            cli_error("%s", clconv_last_error());
            return -1;
        }
    }
    const size_t es = clconv_elem_size(d->out_elem);
    unsigned char *base = d->out_elem == CLCONV_ELEM_F32
                              ? (unsigned char *)d->array.data
                              : (unsigned char *)d->raw;
    if (!d->inner) {
        memcpy(base, src, n * es);
        return 0;
    }
    for (size_t i = 0; i < n; ++i)
        memcpy(base + plane_index(d, k, i) * es,
               (const unsigned char *)src + i * es, es);
    return 0;
}
