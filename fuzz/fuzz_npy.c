/* Fuzz .npy parsing (clconv_npy_parse, clconv_npy_parse_nd): an accepted
 * file re-encodes and parses back to the same shape and bits; the N-D
 * reader accepts what the 3-axis one does, with the same shape. */
#include "clconv_io.h"
#include "fuzz.h"

/* The N-D reader: 0 rejected, 1 accepted (and its round trip checked);
 * its dims in *nd. */
static int parse_nd_round_trip(const uint8_t *data, size_t size, int *nd,
                               size_t shape[CLCONV_NPY_MAX_DIMS])
{
    clconv_npy_info info;
    void *raw = NULL;
    if (clconv_npy_parse_nd(data, size, nd, shape, &info, &raw) != CLCONV_OK)
        return 0;
    if (*nd < 1 || *nd > CLCONV_NPY_MAX_DIMS || info.data_offset > size)
        abort();
    size_t n = 1;
    for (int d = 0; d < *nd; ++d)
        n *= shape[d];
    unsigned char *buf = NULL;
    size_t len = 0;
    if (clconv_npy_encode_typed(*nd, shape, info.dtype, raw, &buf, &len) !=
        CLCONV_OK)
        abort();
    int nd2 = 0;
    size_t shape2[CLCONV_NPY_MAX_DIMS];
    void *raw2 = NULL;
    if (clconv_npy_parse_nd(buf, len, &nd2, shape2, &info, &raw2) !=
            CLCONV_OK ||
        nd2 != *nd || memcmp(shape, shape2, sizeof shape2) != 0 ||
        memcmp(raw, raw2, n * clconv_dtype_size(info.dtype)) != 0)
        abort();
    free(raw2);
    free(buf);
    free(raw);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int nd = 0;
    size_t shape[CLCONV_NPY_MAX_DIMS];
    const int nd_ok = parse_nd_round_trip(data, size, &nd, shape);
    clconv_array a;
    clconv_npy_info info;
    memset(&a, 0, sizeof a);
    if (clconv_npy_parse(data, size, &a, &info) != CLCONV_OK)
        return 0;
    if (a.dims < 1 || a.dims > 3 || info.data_offset > size || !nd_ok ||
        nd != a.dims || memcmp(a.shape, shape, sizeof a.shape) != 0)
        abort();
    size_t n = clconv_array_elements(&a);
    unsigned char *buf = NULL;
    size_t len = 0;
    if (clconv_npy_encode(&a, &buf, &len) != CLCONV_OK)
        abort();
    clconv_array b;
    memset(&b, 0, sizeof b);
    if (clconv_npy_parse(buf, len, &b, NULL) != CLCONV_OK || b.dims != a.dims ||
        memcmp(a.shape, b.shape, sizeof a.shape) != 0 ||
        memcmp(a.data, b.data, n * sizeof *a.data) != 0)
        abort();
    free(buf);
    clconv_array_free(&b);
    clconv_array_free(&a);
    return 0;
}
