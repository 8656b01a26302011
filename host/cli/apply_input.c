/* `clconv apply`'s input: a .npy array or an image, as planes of one
 * problem. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

clconv_elem apply_elem_of(clconv_dtype t)
{
    switch (t) {
    case CLCONV_DTYPE_U8: return CLCONV_ELEM_U8;
    case CLCONV_DTYPE_U16: return CLCONV_ELEM_U16;
    case CLCONV_DTYPE_I16: return CLCONV_ELEM_I16;
    case CLCONV_DTYPE_F16: return CLCONV_ELEM_F16;
    default: return CLCONV_ELEM_F32;
    }
}

/* A .npy (the file name) of any rank: a narrow dtype kept as it is
 * (d->raw), any other as float32 (d->array.data). 0, or -1 (error
 * printed). */
static int load_npy(const char *name, const unsigned char *buf, size_t len,
                    apply_data *d, clconv_npy_info *info)
{
    void *raw = NULL;
    clconv_status st =
        clconv_npy_parse_nd(buf, len, &d->nd, d->full, info, &raw);
    if (st != CLCONV_OK) {
        cli_error("%s: %s", name, clconv_last_error());
        return -1;
    }
    d->file_dtype = info->dtype;
    d->elem = apply_elem_of(info->dtype);
    if (d->elem != CLCONV_ELEM_F32) { /* uploaded as it is */
        d->raw = raw;
        return 0;
    }
    if (info->dtype == CLCONV_DTYPE_F32) {
        d->array.data = raw;
        return 0;
    }
    const size_t n = apply_array_elements(d);
    float *f = malloc(n ? n * sizeof *f : 1); /* an empty array's too */
    if (!f) {
        free(raw);
        cli_error("%s: out of memory for %zu floats", name, n);
        return -1;
    }
    const clconv_npy_info host = clconv_npy_host_info(info->dtype);
    st = clconv_npy_convert(raw, n, &host, f); /* float64 past float32 */
    free(raw);
    if (st != CLCONV_OK) {
        free(f);
        cli_error("%s: %s", name, clconv_last_error());
        return -1;
    }
    d->array.data = f;
    return 0;
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
    const clconv_elem e = apply_elem_of(file_dtype);
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
 * --channel-axis, or along the axes --axes leaves out. An (H, W, 3|4)
 * array of any type (uint8 most of all: what image libraries return) is
 * neither an image nor a volume until the user says which. 0, or -1 with
 * one line printed. */
int apply_array_axes(const apply_options *o, int nd, const size_t *shape)
{
    const int ca = o->channel_axis;
    if (o->dims3 && nd != 3) {
        cli_error("--dims 3: %s is a %dD array", o->in, nd);
        return -1;
    }
    if (ca == CLI_NO_CHANNEL_AXIS && !o->dims3 && !o->filter.naxes && nd == 3 &&
        (shape[2] == 3 || shape[2] == 4)) {
        cli_error("apply: %s has shape (%zu, %zu, %zu), an image with %zu "
                  "channels or a volume? give --channel-axis 2 (each channel "
                  "filtered in 2D), --axes 0,1 (the same) or --dims 3 (one "
                  "3D filter)",
                  o->in, shape[0], shape[1], shape[2], shape[2]);
        return -1;
    }
    if (ca != CLI_NO_CHANNEL_AXIS && (ca < -nd || ca >= nd || nd < 2)) {
        cli_error("--channel-axis: %d is out of range for %s, a %dD "
                  "array (a channel axis and at least one more)",
                  ca, o->in, nd);
        return -1;
    }
    if (nd <= 3)
        return 0;
    int ax[3];
    if (ca != CLI_NO_CHANNEL_AXIS && nd > 4) {
        cli_error("--channel-axis: %s is a %dD array, which leaves %d axes to "
                  "filter (clconv filters 1 to 3): list them with --axes (the "
                  "others are taken slice by slice)",
                  o->in, nd, nd - 1);
        return -1;
    }
    if (ca == CLI_NO_CHANNEL_AXIS && !o->filter.naxes) {
        cli_error("apply: %s is a %dD array and clconv filters 1 to 3 axes: "
                  "list them with --axes (the others are taken slice by "
                  "slice), or give --channel-axis in a 4D array",
                  o->in, nd);
        return -1;
    }
    return ca == CLI_NO_CHANNEL_AXIS ? cli_filter_axes(&o->filter, nd, ax) : 0;
}

static int array_planes(const apply_options *o, apply_data *d)
{
    const int nd = d->nd;
    int ca = o->channel_axis;
    clconv_problem *p = &d->shape;
    if (apply_array_axes(o, nd, d->full))
        return -1;
    /* The axes the problem takes (NumPy order): all but the channel axis;
     * beyond 3 axes, those --axes lists. */
    int filtered[CLCONV_NPY_MAX_DIMS];
    for (int k = 0; k < nd; ++k)
        filtered[k] = 1;
    if (ca != CLI_NO_CHANNEL_AXIS) {
        ca = ca < 0 ? ca + nd : ca;
        filtered[ca] = 0;
    } else if (nd > 3) {
        int ax[3];
        cli_filter_axes(&o->filter, nd, ax); /* apply_array_axes checked */
        for (int k = 0; k < nd; ++k)
            filtered[k] = 0;
        for (int i = 0; i < o->filter.naxes; ++i)
            filtered[ax[i]] = 1;
    }
    size_t stride[CLCONV_NPY_MAX_DIMS], planes = 1;
    stride[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; --k)
        stride[k] = stride[k + 1] * d->full[k + 1];
    /* The problem's axes x (NumPy's last) first; the rest are planes. */
    p->dims = 0;
    for (int a = 0; a < 3; ++a) {
        p->size[a] = 1;
        d->step[a] = 0;
    }
    for (int k = nd - 1; k >= 0; --k)
        if (filtered[k]) {
            d->step[p->dims] = stride[k];
            p->size[p->dims++] = d->full[k];
        }
    d->nbatch = 0;
    for (int k = 0; k < nd; ++k)
        if (!filtered[k]) {
            d->bext[d->nbatch] = d->full[k];
            d->bstep[d->nbatch++] = stride[k];
            planes *= d->full[k];
        }
    if (ca != CLI_NO_CHANNEL_AXIS && planes > 4096) {
        cli_error("--channel-axis: %zu channels along axis %d (at most 4096)",
                  planes, ca);
        return -1;
    }
    if (planes > INT_MAX) {
        cli_error("apply: %s has %zu slices to filter one by one (at most %d)",
                  o->in, planes, INT_MAX);
        return -1;
    }
    d->planes = (int)planes;
    return 0;
}

int apply_load_input(const apply_options *o, apply_data *d)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    /* IN "-": standard input (as OUT "-" is standard output) */
    const int from_stdin = strcmp(o->in, "-") == 0;
    clconv_status st = clconv_input_read(o->in, SIZE_MAX / 2, &buf, &len);
    if (st != CLCONV_OK) {
        cli_error("%s", clconv_last_error());
        return -1;
    }
    memset(d, 0, sizeof *d);
    clconv_problem *p = &d->shape;
    if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        clconv_npy_info info;
        if (load_npy(o->in, buf, len, d, &info) || array_planes(o, d)) {
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

size_t apply_array_elements(const apply_data *d)
{
    size_t n = 1;
    for (int k = 0; k < d->nd; ++k)
        n *= d->full[k];
    return n;
}

/* Where plane k starts in the array (in elements). */
static size_t plane_base(const apply_data *d, int k)
{
    size_t base = 0, r = (size_t)k;
    for (int b = d->nbatch - 1; b >= 0; --b) {
        base += r % d->bext[b] * d->bstep[b];
        r /= d->bext[b];
    }
    return base;
}

/* Does plane k lie in one piece (C order over the problem's axes)? */
static int plane_contiguous(const apply_data *d)
{
    const clconv_problem *p = &d->shape;
    return d->step[0] == 1 && (p->dims < 2 || d->step[1] == p->size[0]) &&
           (p->dims < 3 || d->step[2] == p->size[0] * p->size[1]);
}

/* Copy plane k between the array's elements (es bytes each) and a plane
 * of its own (x fastest): into plane when get, else out of it. */
static void plane_copy(const apply_data *d, int k, unsigned char *arr,
                       unsigned char *plane, size_t es, int get)
{
    const clconv_problem *p = &d->shape;
    const size_t base = plane_base(d, k), nx = p->size[0];
    size_t i = 0;
    for (size_t z = 0; z < p->size[2]; ++z)
        for (size_t y = 0; y < p->size[1]; ++y, i += nx) {
            unsigned char *row =
                arr + (base + y * d->step[1] + z * d->step[2]) * es;
            if (d->step[0] == 1) {
                if (get)
                    memcpy(plane + i * es, row, nx * es);
                else
                    memcpy(row, plane + i * es, nx * es);
                continue;
            }
            for (size_t x = 0; x < nx; ++x) {
                unsigned char *e = row + x * d->step[0] * es;
                if (get)
                    memcpy(plane + (i + x) * es, e, es);
                else
                    memcpy(e, plane + (i + x) * es, es);
            }
        }
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
    unsigned char *base = d->raw ? (unsigned char *)d->raw
                                 : (unsigned char *)d->array.data;
    plane_copy(d, k, base, dst, clconv_elem_size(d->elem), 1);
}

const void *apply_plane_view(const apply_data *d, int k)
{
    if (d->is_image || !plane_contiguous(d))
        return NULL;
    const unsigned char *base = d->raw ? (const unsigned char *)d->raw
                                       : (const unsigned char *)d->array.data;
    return base + plane_base(d, k) * clconv_elem_size(d->elem);
}

/* A narrow array's float32 output: the array's own floats, made on the
 * first plane. 0, or -1 out of memory (error printed). */
static int float_output(apply_data *d)
{
    if (d->out_elem != CLCONV_ELEM_F32 || d->array.data)
        return 0;
    const size_t count = apply_array_elements(d);
    if (!(d->array.data = malloc(count * sizeof(float)))) {
        cli_error("out of memory for %zu floats", count);
        return -1;
    }
    return 0;
}

/* The array plane k's output goes to. */
static unsigned char *output_base(const apply_data *d)
{
    return d->out_elem == CLCONV_ELEM_F32 ? (unsigned char *)d->array.data
                                          : (unsigned char *)d->raw;
}

void *apply_plane_out_view(apply_data *d, int k, int *err)
{
    *err = 0;
    if (d->is_image || !plane_contiguous(d))
        return NULL;
    if (float_output(d)) {
        *err = -1;
        return NULL;
    }
    return output_base(d) + plane_base(d, k) * clconv_elem_size(d->out_elem);
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
    if (float_output(d))
        return -1;
    /* read back into place already (apply_plane_out_view) */
    unsigned char *base = output_base(d);
    if (src == base + plane_base(d, k) * clconv_elem_size(d->out_elem))
        return 0;
    plane_copy(d, k, base, (unsigned char *)src,
               clconv_elem_size(d->out_elem), 0);
    return 0;
}
