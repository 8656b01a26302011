/* Fuzz image decoding (clconv_image_decode: PNG, PGM, PPM): an accepted
 * image has a sane shape and every sample within 0..maxval. */
#include "clconv_io.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clconv_image img;
    memset(&img, 0, sizeof img);
    (void)clconv_image_sniff(data, size);
    if (clconv_image_decode(data, size, &img) != CLCONV_OK)
        return 0;
    if (img.width < 1 || img.height < 1 || img.channels < 1 ||
        img.channels > 4 || img.maxval < 1 || img.maxval > 65535)
        abort();
    const size_t n = img.width * img.height * (size_t)img.channels;
    for (size_t i = 0; i < n; ++i)
        if (!(img.pixels[i] >= 0.0f && img.pixels[i] <= (float)img.maxval))
            abort();
    clconv_image_free(&img);
    return 0;
}
