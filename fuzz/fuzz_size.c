/* Fuzz `--size X[xY[xZ]]` (cli_parse_size): the first byte picks dims, the
 * rest is the string. Accepted sizes must be what the parser promises. */
#include <stdio.h>

#include "../host/cli/cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int dims = 1 + data[0] % 3;
    char *s = fuzz_cstring(data + 1, size - 1);
    size_t v[3] = {7, 7, 7};
    if (cli_parse_size(s, dims, v) == 0) {
        for (int k = 0; k < 3; ++k) {
            if (k < dims && v[k] == 0)
                abort(); /* extents are >= 1 */
            if (k >= dims && v[k] != 1)
                abort(); /* unused extents are 1 */
        }
        /* Formatting and parsing again gives the same extents. */
        char buf[128];
        size_t w[3];
        cli_format_size(v, dims, buf, sizeof buf);
        if (cli_parse_size(buf, dims, w) != 0 || memcmp(v, w, sizeof v) != 0)
            abort();
    } else if (memcmp(v, (size_t[3]){7, 7, 7}, sizeof v) != 0) {
        abort(); /* a rejected size leaves the output alone */
    }
    free(s);
    return 0;
}
