/* NumPy .npy files: the writer (float32 or any dtype of clconv_dtype,
 * version 1.0, little-endian, C order, the data 64-byte aligned as NumPy
 * writes it); the reader is npy.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv_io.h"
#include "internal.h"

clconv_status clconv_npy_header(int dims, const size_t *shape,
                                unsigned char *buf, size_t cap, size_t *len)
{
    return clconv_npy_header_typed(dims, shape, CLCONV_DTYPE_F32, buf, cap,
                                   len);
}

clconv_status clconv_npy_header_typed(int dims, const size_t *shape,
                                      clconv_dtype t, unsigned char *buf,
                                      size_t cap, size_t *len)
{
    if (!shape || !buf || !len)
        return clc_fail(CLCONV_EINVAL,
                        ".npy: no shape or nowhere to put the header (NULL)");
    if (dims < 1 || dims > CLCONV_NPY_MAX_DIMS)
        return clc_fail(CLCONV_EINVAL, "arrays have 1 to %d dimensions (got %d)",
                        CLCONV_NPY_MAX_DIMS, dims);
    if ((unsigned)t >= CLCONV_DTYPE_COUNT)
        return clc_fail(CLCONV_EINVAL, "unknown dtype %d", (int)t);
    /* Each extent at most 20 digits and ", ": the tuple fits. */
    char dict[CLCONV_NPY_MAX_DIMS * 22 + 128], sh[CLCONV_NPY_MAX_DIMS * 22 + 8];
    size_t k = 0;
    sh[k++] = '(';
    for (int d = 0; d < dims; ++d)
        k += (size_t)snprintf(sh + k, sizeof sh - k, "%s%zu", d ? ", " : "",
                              shape[d]);
    snprintf(sh + k, sizeof sh - k, dims == 1 ? ",)" : ")");
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%c%s', 'fortran_order': False, 'shape': "
                     "%s, }",
                     clconv_dtype_size(t) == 1 ? '|' : '<', clconv_dtype_code(t),
                     sh);
    /* Pad with spaces and a newline so the data starts 64-byte aligned. */
    size_t hlen = (size_t)n + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    if (10 + hlen > cap)
        return clc_fail(CLCONV_EINVAL, ".npy header needs %zu bytes",
                        10 + hlen);
    memcpy(buf, clc_npy_magic, sizeof clc_npy_magic);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', hlen - (size_t)n - 1);
    buf[10 + hlen - 1] = '\n';
    *len = 10 + hlen;
    return CLCONV_OK;
}

clconv_status clconv_npy_encode(const clconv_array *a, unsigned char **buf,
                                size_t *len)
{
    if (!a || !buf || !len || (!a->data && clconv_array_elements(a)))
        return clc_fail(CLCONV_EINVAL,
                        ".npy: no array or nowhere to put it (NULL)");
    *buf = NULL;
    *len = 0;
    unsigned char head[CLCONV_NPY_HEADER_MAX];
    size_t hbytes = 0;
    clconv_status st = clconv_npy_header(a->dims, a->shape, head, sizeof head,
                                         &hbytes);
    if (st != CLCONV_OK)
        return st;
    size_t count = clconv_array_elements(a);
    if (count > (SIZE_MAX - hbytes) / 4)
        return clc_fail(CLCONV_EINVAL, "array too large");
    size_t total = hbytes + count * 4;
    unsigned char *b = malloc(total);
    if (!b)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", total);
    memcpy(b, head, hbytes);
    unsigned char *p = b + hbytes;
    for (size_t i = 0; i < count; ++i, p += 4) {
        uint32_t u;
        memcpy(&u, &a->data[i], 4);
        p[0] = (unsigned char)u;
        p[1] = (unsigned char)(u >> 8);
        p[2] = (unsigned char)(u >> 16);
        p[3] = (unsigned char)(u >> 24);
    }
    *buf = b;
    *len = total;
    return CLCONV_OK;
}

clconv_status clconv_npy_encode_typed(int dims, const size_t *shape,
                                      clconv_dtype t, const void *data,
                                      unsigned char **buf, size_t *len)
{
    if (!buf || !len)
        return clc_fail(CLCONV_EINVAL, ".npy: nowhere to put it (NULL)");
    *buf = NULL;
    *len = 0;
    unsigned char head[CLCONV_NPY_HEADER_MAX];
    size_t hbytes = 0;
    clconv_status st = clconv_npy_header_typed(dims, shape, t, head,
                                               sizeof head, &hbytes);
    if (st != CLCONV_OK)
        return st;
    const size_t isz = clconv_dtype_size(t);
    size_t count = 1;
    for (int d = 0; d < dims; ++d) {
        if (shape[d] && count > SIZE_MAX / isz / shape[d])
            return clc_fail(CLCONV_EINVAL, "array too large");
        count *= shape[d];
    }
    if (count > (SIZE_MAX - hbytes) / isz)
        return clc_fail(CLCONV_EINVAL, "array too large");
    if (count && !data)
        return clc_fail(CLCONV_EINVAL, ".npy: no data given (NULL)");
    const size_t total = hbytes + count * isz;
    unsigned char *b = malloc(total);
    if (!b)
        return clc_fail(CLCONV_ENOMEM, "out of memory for %zu bytes", total);
    memcpy(b, head, hbytes);
    if (count) /* an empty array's data may be NULL */
        memcpy(b + hbytes, data, count * isz);
    if (clc_host_big_endian())
        clc_swap_elements(b + hbytes, count, isz);
    *buf = b;
    *len = total;
    return CLCONV_OK;
}
