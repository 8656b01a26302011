/* `clconv apply`'s input: a .npy array or an image, as planes of one
 * problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

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
        st = clconv_npy_parse(buf, len, &d->array, NULL);
        if (st == CLCONV_OK) {
            p->dims = d->array.dims;
            for (int k = 0; k < 3; ++k)
                p->size[k] = k < p->dims ? d->array.shape[p->dims - 1 - k] : 1;
            d->planes = 1;
        }
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
    if (!d->is_image) {
        memcpy(d->array.data, src, n * sizeof *src);
        return;
    }
    size_t ch = (size_t)d->image.channels, c = (size_t)d->plane_of[k];
    for (size_t i = 0; i < n; ++i)
        d->image.pixels[i * ch + c] = src[i];
}
