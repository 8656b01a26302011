/* `clconv apply`'s input: a .npy array or an image, as planes of one
 * problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

/* The problem and planes of a .npy array: one plane, or its slices along
 * --channel-axis. An (H, W, 3|4) float array is neither an image nor a
 * volume until the user says which. 0, or -1 with one line printed. */
static int array_planes(const apply_options *o, const clconv_npy_info *info,
                        apply_data *d)
{
    const clconv_array *a = &d->array;
    const int nd = a->dims;
    int ca = o->channel_axis;
    clconv_problem *p = &d->shape;
    if (o->dims3 && nd != 3) {
        cli_error("--dims 3: %s is a %dD array", o->in, nd);
        return -1;
    }
    if (ca == CLI_NO_CHANNEL_AXIS && !o->dims3 && !o->filter.naxes && nd == 3 &&
        (a->shape[2] == 3 || a->shape[2] == 4) &&
        (info->dtype == CLCONV_DTYPE_F32 || info->dtype == CLCONV_DTYPE_F64)) {
        cli_error("apply: %s has shape (%zu, %zu, %zu), an image with %zu "
                  "channels or a volume? give --channel-axis 2 (each channel "
                  "filtered in 2D), --axes 0,1 (the same) or --dims 3 (one "
                  "3D filter)",
                  o->in, a->shape[0], a->shape[1], a->shape[2], a->shape[2]);
        return -1;
    }
    d->planes = 1;
    d->inner = 0;
    if (ca != CLI_NO_CHANNEL_AXIS) {
        if (ca < -nd || ca >= nd || nd < 2) {
            cli_error("--channel-axis: %d is out of range for %s, a %dD "
                      "array (a channel axis and at least one more)",
                      ca, o->in, nd);
            return -1;
        }
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
    clconv_status st = clconv_input_read(o->in, SIZE_MAX / 2, &buf, &len);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    memset(d, 0, sizeof *d);
    clconv_problem *p = &d->shape;
    if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        clconv_npy_info info;
        st = clconv_npy_parse(buf, len, &d->array, &info);
        if (st == CLCONV_OK && array_planes(o, &info, d)) {
            free(buf);
            clconv_array_free(&d->array); /* refused after parsing */
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
        cli_error("%s: not a .npy array or a PNG, PGM or PPM image", o->in);
        return -1;
    }
    free(buf);
    if (st != CLCONV_OK) {
        cli_error("%s: %s", o->in, clconv_last_error());
        return -1;
    }
    return 0;
}

void apply_plane_get(const apply_data *d, int k, float *dst, size_t n)
{
    if (!d->is_image && d->inner) {
        const size_t c = (size_t)k, np = (size_t)d->planes, in = d->inner;
        for (size_t i = 0; i < n; ++i)
            dst[i] = d->array.data[(i / in * np + c) * in + i % in];
        return;
    }
    if (!d->is_image) {
        memcpy(dst, d->array.data, n * sizeof *dst);
        return;
    }
    size_t ch = (size_t)d->image.channels, c = (size_t)d->plane_of[k];
    for (size_t i = 0; i < n; ++i)
        dst[i] = d->image.pixels[i * ch + c];
}

void apply_plane_put(apply_data *d, int k, const float *src, size_t n)
{
    if (!d->is_image && d->inner) {
        const size_t c = (size_t)k, np = (size_t)d->planes, in = d->inner;
        for (size_t i = 0; i < n; ++i)
            d->array.data[(i / in * np + c) * in + i % in] = src[i];
        return;
    }
    if (!d->is_image) {
        memcpy(d->array.data, src, n * sizeof *src);
        return;
    }
    size_t ch = (size_t)d->image.channels, c = (size_t)d->plane_of[k];
    for (size_t i = 0; i < n; ++i)
        d->image.pixels[i * ch + c] = src[i];
}
