/* NumPy .npy files: the dtypes, arrays and a careful reader (versions
 * 1.0-3.0, 1 to 64 dimensions (clconv_array's readers 1 to 3), every dtype of clconv_dtype in either
 * byte order, C or Fortran order; the writer is npy_write.c). The format:
 * "\x93NUMPY", major, minor, a little-endian header length (2 bytes in
 * 1.0, 4 in 2.0/3.0), a Python dict literal {'descr': '<f4',
 * 'fortran_order': False, 'shape': (3, 4), } padded with spaces and a
 * newline, then the raw data. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

static const struct {
    clconv_dtype type;
    const char *code;
    size_t size;
} dtypes[CLCONV_DTYPE_COUNT] = {
    {CLCONV_DTYPE_F32, "f4", 4}, {CLCONV_DTYPE_F64, "f8", 8},
    {CLCONV_DTYPE_I8, "i1", 1},  {CLCONV_DTYPE_I16, "i2", 2},
    {CLCONV_DTYPE_I32, "i4", 4}, {CLCONV_DTYPE_U8, "u1", 1},
    {CLCONV_DTYPE_U16, "u2", 2}, {CLCONV_DTYPE_U32, "u4", 4},
    {CLCONV_DTYPE_F16, "f2", 2}, {CLCONV_DTYPE_I64, "i8", 8},
    {CLCONV_DTYPE_U64, "u8", 8}, {CLCONV_DTYPE_BOOL, "b1", 1},
};

const unsigned char clc_npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

const char *clconv_dtype_code(clconv_dtype t)
{
    return (unsigned)t < CLCONV_DTYPE_COUNT ? dtypes[t].code : "?";
}

size_t clconv_dtype_size(clconv_dtype t)
{
    return (unsigned)t < CLCONV_DTYPE_COUNT ? dtypes[t].size : 0;
}

clconv_dtype clconv_dtype_of_elem(clconv_elem t)
{
    switch (t) {
    case CLCONV_ELEM_U8: return CLCONV_DTYPE_U8;
    case CLCONV_ELEM_U16: return CLCONV_DTYPE_U16;
    case CLCONV_ELEM_I16: return CLCONV_DTYPE_I16;
    case CLCONV_ELEM_F16: return CLCONV_DTYPE_F16;
    default: return CLCONV_DTYPE_F32;
    }
}

size_t clconv_array_elements(const clconv_array *a)
{
    if (!a)
        return 0;
    size_t n = 1;
    for (int d = 0; d < a->dims; ++d)
        n *= a->shape[d];
    return n;
}

clconv_status clconv_array_alloc(clconv_array *a, int dims,
                                 const size_t shape[3])
{
    if (!a)
        return clc_fail(CLCONV_EINVAL, "nowhere to put the array (NULL)");
    memset(a, 0, sizeof *a);
    if (!shape)
        return clc_fail(CLCONV_EINVAL, "no shape given (NULL)");
    if (dims < 1 || dims > 3)
        return clc_fail(CLCONV_EINVAL, "arrays have 1 to 3 dimensions (got %d)",
                        dims);
    size_t n = 1;
    for (int d = 0; d < 3; ++d) {
        size_t e = d < dims ? shape[d] : 1;
        if (e == 0)
            return clc_fail(CLCONV_EINVAL, "array extent %d is 0", d);
        if (n > SIZE_MAX / sizeof(float) / e)
            return clc_fail(CLCONV_EINVAL, "array too large");
        n *= e;
        a->shape[d] = e;
    }
    a->data = malloc(n * sizeof(float));
    if (!a->data)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu floats", n);
    a->dims = dims;
    return CLCONV_OK;
}

void clconv_array_free(clconv_array *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- reading ------------------------------------------------------------ */

static uint64_t load(const unsigned char *p, size_t size, int big)
{
    uint64_t v = 0;
    for (size_t k = 0; k < size; ++k)
        v |= (uint64_t)p[big ? size - 1 - k : k] << (8 * k);
    return v;
}

static float f64_to_f32(double d)
{
    /* At or above FLT_MAX + half an ulp a cast would be undefined; IEEE
     * rounding gives infinity there. */
    if (fabs(d) >= 0x1.ffffffp127)
        return d > 0 ? INFINITY : -INFINITY;
    return (float)d;
}

static float convert(uint64_t v, clconv_dtype t)
{
    switch (t) {
    case CLCONV_DTYPE_F32: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    case CLCONV_DTYPE_F64: {
        double d;
        memcpy(&d, &v, sizeof d);
        return f64_to_f32(d);
    }
    case CLCONV_DTYPE_I8: return (float)(int8_t)(uint8_t)v;
    case CLCONV_DTYPE_I16: return (float)(int16_t)(uint16_t)v;
    case CLCONV_DTYPE_I32: return (float)(int32_t)(uint32_t)v;
    case CLCONV_DTYPE_U8: return (float)(uint8_t)v;
    case CLCONV_DTYPE_U16: return (float)(uint16_t)v;
    case CLCONV_DTYPE_U32: return (float)(uint32_t)v;
    case CLCONV_DTYPE_F16: return (float)clc_half_to_double((uint16_t)v);
    /* C's conversions round to nearest, as NumPy's astype(float32). */
    case CLCONV_DTYPE_I64: return (float)(int64_t)v;
    case CLCONV_DTYPE_U64: return (float)v;
    /* NumPy reads every byte but 0 as True. */
    case CLCONV_DTYPE_BOOL: return v ? 1.0f : 0.0f;
    case CLCONV_DTYPE_COUNT: break;
    }
    return NAN;
}

clconv_status clconv_npy_convert(const unsigned char *raw, size_t count,
                                 const clconv_npy_info *info, float *out)
{
    if (!info || (count && (!raw || !out)))
        return clc_fail(CLCONV_EINVAL,
                        ".npy: no data, info or output given (NULL)");
    if ((unsigned)info->dtype >= CLCONV_DTYPE_COUNT)
        return clc_fail(CLCONV_EINVAL, ".npy: unknown dtype %d",
                        (int)info->dtype);
    const size_t isz = dtypes[info->dtype].size;
    for (size_t i = 0; i < count; ++i, raw += isz) {
        uint64_t bits = load(raw, isz, info->big_endian);
        out[i] = convert(bits, info->dtype);
        double d;
        memcpy(&d, &bits, sizeof d);
        /* clconv computes in float32: a finite float64 beyond its range
         * would silently become inf. */
        if (info->dtype == CLCONV_DTYPE_F64 && isinf(out[i]) && isfinite(d))
            return clc_fail(CLCONV_EINVAL,
                            ".npy: element %zu is %g, beyond float32's range "
                            "(+-%g); clconv computes in float32",
                            i, d, (double)FLT_MAX);
    }
    return CLCONV_OK;
}

/* count elements of hd's dtype at p into out->data (allocated); frees it
 * on a refused element (clconv_npy_convert). */
static clconv_status convert_all(const unsigned char *p, size_t count,
                                 const clc_npy_header *hd, clconv_array *out)
{
    const clconv_npy_info info = {.dtype = hd->dtype, .big_endian = hd->big};
    clconv_status st = clconv_npy_convert(p, count, &info, out->data);
    if (st != CLCONV_OK)
        clconv_array_free(out);
    return st;
}

/* A reader given no place for what it reads. */
static clconv_status nowhere(void)
{
    return clc_fail(CLCONV_EINVAL, ".npy: nowhere to put the result (NULL)");
}

/* The preamble and header of a .npy: the dict in *hd, where the data
 * starts (*off) and how many bytes of it the shape declares (*bytes).
 * An extent of 0 (NumPy's empty arrays) is refused unless empty_ok: only
 * the callers that read an array whole can hand one back with nothing in
 * it; a mask, a clconv_array or a mapped file needs elements. */
static clconv_status parse_head(const unsigned char *data, size_t len,
                                clc_npy_header *hd, size_t *off,
                                size_t *bytes, int empty_ok)
{
    const size_t magic = sizeof clc_npy_magic;
    if (!data)
        return clc_fail(CLCONV_EINVAL, ".npy: no data given (NULL)");
    if (len == 0 || memcmp(data, clc_npy_magic, len < magic ? len : magic))
        return clc_fail(CLCONV_EINVAL, "not a .npy file (no \\x93NUMPY magic)");
    if (len < 10)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: truncated in the preamble (%zu bytes of 10)",
                        len);
    int major = data[6], minor = data[7];
    if (major < 1 || major > 3 || minor != 0)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: format version %d.%d is not 1.0, 2.0 or 3.0",
                        major, minor);
    size_t start = major == 1 ? 10 : 12;
    if (len < start)
        return clc_fail(CLCONV_EINVAL, ".npy: truncated before the header");
    size_t hlen = major == 1 ? (size_t)load(data + 8, 2, 0)
                             : (size_t)load(data + 8, 4, 0);
    if (hlen > len - start)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: header length %zu runs past the end of the "
                        "%zu-byte file",
                        hlen, len);
    const char *h = (const char *)data + start;
    if (hlen == 0 || h[hlen - 1] != '\n')
        return clc_fail(CLCONV_EINVAL,
                        ".npy: header does not end with a newline");
    if (memchr(h, '\0', hlen))
        return clc_fail(CLCONV_EINVAL, ".npy: NUL byte in the header");
    memset(hd, 0, sizeof *hd);
    clconv_status st = clc_npy_parse_dict(h, hlen, hd);
    if (st != CLCONV_OK)
        return st;
    if (hd->dims == 0)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: a 0-dimensional (scalar) array; clconv takes 1 "
                        "or more dimensions");
    hd->fortran = hd->fortran && hd->dims > 1; /* 1-D: C order either way */
    size_t isz = dtypes[hd->dtype].size, count = 1;
    for (int d = 0; d < hd->dims; ++d) {
        if (hd->shape[d] == 0 && !empty_ok)
            return clc_fail(CLCONV_EINVAL,
                            ".npy: empty array (axis %d of %d has length 0); "
                            "clconv takes arrays of at least one element",
                            d, hd->dims);
        /* An axis of length 0 makes the count 0 whatever the others. */
        if (hd->shape[d] && count > SIZE_MAX / isz / hd->shape[d])
            return clc_fail(CLCONV_EINVAL, ".npy: shape overflows");
        count *= hd->shape[d];
    }
    *off = start + hlen;
    *bytes = count * isz;
    if (*bytes > SIZE_MAX - *off)
        return clc_fail(CLCONV_EINVAL, ".npy: shape overflows");
    return CLCONV_OK;
}

clconv_status clconv_npy_declared_size(const unsigned char *data, size_t len,
                                       size_t *total)
{
    if (!total)
        return nowhere();
    clc_npy_header hd;
    size_t off = 0, bytes = 0;
    clconv_status st = parse_head(data, len, &hd, &off, &bytes, 1);
    if (st == CLCONV_OK)
        *total = off + bytes;
    return st;
}

static void fill_info(const unsigned char *data, const clc_npy_header *hd,
                      size_t off, clconv_npy_info *info)
{
    info->major = data[6];
    info->minor = data[7];
    info->dtype = hd->dtype;
    info->big_endian = hd->big;
    info->data_offset = off;
    info->fortran_order = hd->fortran;
}

/* The data of a Fortran-order array (its first axis fastest) in C order
 * (its last axis fastest), elements of isz bytes: a new buffer, or NULL
 * and the error set. */
static unsigned char *c_order(const unsigned char *src,
                              const clc_npy_header *hd, size_t isz)
{
    const int nd = hd->dims;
    size_t count = 1, fstride[CLCONV_NPY_MAX_DIMS], idx[CLCONV_NPY_MAX_DIMS];
    for (int d = 0; d < nd; ++d) {
        fstride[d] = count; /* axis d's step in the Fortran data */
        idx[d] = 0;
        count *= hd->shape[d];
    }
    unsigned char *dst = malloc(count ? count * isz : 1); /* never NULL */
    if (!dst) {
        clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", count * isz);
        return NULL;
    }
    /* The C index idx walks the array in C order (last axis fastest);
     * f is its element's offset in the Fortran data. */
    size_t f = 0;
    for (size_t c = 0; c < count; ++c) {
        memcpy(dst + c * isz, src + f * isz, isz);
        for (int d = nd - 1; d >= 0; --d) {
            f += fstride[d];
            if (++idx[d] < hd->shape[d])
                break;
            f -= idx[d] * fstride[d];
            idx[d] = 0;
        }
    }
    return dst;
}

/* The readers of clconv_array's 1 to 3 dimensions refuse more. */
static clconv_status at_most_3(const clc_npy_header *hd)
{
    if (hd->dims > 3)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: more than 3 dimensions (%d): this reader takes "
                        "1 to 3",
                        hd->dims);
    return CLCONV_OK;
}

clconv_status clconv_npy_header_parse(const unsigned char *data, size_t len,
                                      int *dims, size_t shape[3],
                                      clconv_npy_info *info)
{
    if (!dims || !shape || !info)
        return nowhere();
    clc_npy_header hd;
    size_t off = 0, bytes = 0;
    clconv_status st = parse_head(data, len, &hd, &off, &bytes, 0);
    *dims = 0;
    if (st == CLCONV_OK && (st = at_most_3(&hd)) != CLCONV_OK)
        *dims = hd.dims; /* the caller may name its own limit */
    if (st != CLCONV_OK)
        return st;
    /* Its callers read the data in place, row by row. */
    if (hd.fortran)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: Fortran-order array, which is read only whole "
                        "(not mapped, streamed or split); save a C-order copy "
                        "(numpy.ascontiguousarray)");
    *dims = hd.dims;
    for (int d = 0; d < 3; ++d)
        shape[d] = d < hd.dims ? hd.shape[d] : 1;
    fill_info(data, &hd, off, info);
    return CLCONV_OK;
}

clconv_status clconv_npy_parse(const unsigned char *data, size_t len,
                               clconv_array *out, clconv_npy_info *info)
{
    if (!out)
        return nowhere();
    memset(out, 0, sizeof *out);
    clc_npy_header hd;
    size_t off = 0, bytes = 0;
    clconv_status st = parse_head(data, len, &hd, &off, &bytes, 0);
    if (st == CLCONV_OK)
        st = at_most_3(&hd);
    if (st != CLCONV_OK)
        return st;
    size_t isz = dtypes[hd.dtype].size, count = bytes / isz;
    size_t have = len - off;
    if (have != bytes)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: shape needs %zu bytes of %s data, the file has "
                        "%zu",
                        bytes, dtypes[hd.dtype].code, have);
    if ((st = clconv_array_alloc(out, hd.dims, hd.shape)) != CLCONV_OK)
        return st;
    unsigned char *c = NULL;
    if (hd.fortran && !(c = c_order(data + off, &hd, isz))) {
        clconv_array_free(out);
        return CLCONV_ENOMEM;
    }
    st = convert_all(c ? c : data + off, count, &hd, out);
    free(c);
    if (st != CLCONV_OK)
        return st;
    if (info)
        fill_info(data, &hd, off, info);
    return CLCONV_OK;
}

clconv_npy_info clconv_npy_host_info(clconv_dtype t)
{
    return (clconv_npy_info){.major = 1, .dtype = t,
                             .big_endian = clc_host_big_endian()};
}

void clc_swap_elements(unsigned char *p, size_t count, size_t isz)
{
    for (size_t i = 0; isz > 1 && i < count; ++i, p += isz)
        for (size_t k = 0; k < isz / 2; ++k) {
            unsigned char t = p[k];
            p[k] = p[isz - 1 - k];
            p[isz - 1 - k] = t;
        }
}

/* The data of a parsed header as it lies in this host's memory, C order:
 * *out malloc'ed. */
static clconv_status native_data(const unsigned char *data, size_t len,
                                 const clc_npy_header *hd, size_t off,
                                 size_t bytes, void **out)
{
    if (len - off != bytes)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: shape needs %zu bytes of %s data, the file has "
                        "%zu",
                        bytes, dtypes[hd->dtype].code, len - off);
    const size_t isz = dtypes[hd->dtype].size;
    unsigned char *b = hd->fortran ? c_order(data + off, hd, isz)
                                   : malloc(bytes ? bytes : 1);
    if (!b)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", bytes);
    if (!hd->fortran)
        memcpy(b, data + off, bytes);
    if (hd->big != clc_host_big_endian())
        clc_swap_elements(b, bytes / isz, isz);
    *out = b;
    return CLCONV_OK;
}

clconv_status clconv_npy_parse_native(const unsigned char *data, size_t len,
                                      int *dims, size_t shape[3],
                                      clconv_npy_info *info, void **out)
{
    if (!dims || !shape || !info || !out)
        return nowhere();
    *out = NULL;
    clc_npy_header hd;
    size_t off = 0, bytes = 0;
    clconv_status st = parse_head(data, len, &hd, &off, &bytes, 0);
    if (st == CLCONV_OK)
        st = at_most_3(&hd);
    if (st == CLCONV_OK)
        st = native_data(data, len, &hd, off, bytes, out);
    if (st != CLCONV_OK)
        return st;
    *dims = hd.dims;
    for (int d = 0; d < 3; ++d)
        shape[d] = d < hd.dims ? hd.shape[d] : 1;
    fill_info(data, &hd, off, info);
    return CLCONV_OK;
}

clconv_status clconv_npy_parse_nd(const unsigned char *data, size_t len,
                                  int *dims,
                                  size_t shape[CLCONV_NPY_MAX_DIMS],
                                  clconv_npy_info *info, void **out)
{
    if (!dims || !shape || !info || !out)
        return nowhere();
    *out = NULL;
    clc_npy_header hd;
    size_t off = 0, bytes = 0;
    clconv_status st = parse_head(data, len, &hd, &off, &bytes, 1);
    if (st == CLCONV_OK)
        st = native_data(data, len, &hd, off, bytes, out);
    if (st != CLCONV_OK)
        return st;
    *dims = hd.dims;
    for (int d = 0; d < CLCONV_NPY_MAX_DIMS; ++d)
        shape[d] = d < hd.dims ? hd.shape[d] : 1;
    fill_info(data, &hd, off, info);
    return CLCONV_OK;
}
