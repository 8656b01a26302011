/* Shared by the libFuzzer targets: the entry point's prototype (the build
 * uses -Wmissing-prototypes) and a NUL-terminated copy of the input. */
#ifndef CLCONV_FUZZ_H
#define CLCONV_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string (malloc'ed: ASan sees reads past its end). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
