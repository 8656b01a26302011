/* Fuzz mask specs (clconv_mask_spec_parse): the first byte picks dims, the
 * rest is the spec. An accepted mask has dims axes, each 1 or more wide
 * (odd or even, per axis: issue 15), and that many finite values.
 * Specs naming a .npy file are skipped: this target never opens files. */
#include <math.h>

#include "clconv_io.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int dims = 1 + data[0] % 3;
    char *s = fuzz_cstring(data + 1, size - 1);
    clconv_mask m;
    memset(&m, 0, sizeof m);
    if (!clconv_mask_spec_is_file(s) &&
        clconv_mask_spec_parse(s, dims, &m) == CLCONV_OK) {
        if (m.dims != dims || m.width < 1)
            abort();
        size_t n = 1;
        for (int d = 0; d < dims; ++d) {
            if (m.size[d] < 1 || m.size[d] > m.width)
                abort();
            n *= (size_t)m.size[d];
        }
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(m.values[i]))
                abort();
        clconv_mask_free(&m);
    }
    free(s);
    return 0;
}
