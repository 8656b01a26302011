/* Fuzz .npy parsing (clconv_npy_parse): an accepted file re-encodes and
 * parses back to the same shape and bits. */
#include "clconv_io.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clconv_array a;
    clconv_npy_info info;
    memset(&a, 0, sizeof a);
    if (clconv_npy_parse(data, size, &a, &info) != CLCONV_OK)
        return 0;
    if (a.dims < 1 || a.dims > 3 || info.data_offset > size)
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
