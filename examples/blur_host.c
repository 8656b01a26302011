/* The shortest use of clconv: blur a float image that lives in host
 * memory, on the first device found, and check one pixel by hand.
 *
 *   cc blur_host.c $(pkg-config --cflags --libs clconv) -lm -o blur_host
 *   ./blur_host [DEVICE]      (DEVICE: a selector as in `clconv devices`)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clconv.h>

enum { NX = 640, NY = 480, W = 5 };

/* A smooth test image: the mean of a 5x5 box over it is easy to check. */
static float pixel(size_t x, size_t y)
{
    return (float)(sin(0.05 * (double)x) * cos(0.03 * (double)y));
}

int main(int argc, char **argv)
{
    const char *selector = argc > 1 ? argv[1] : NULL;
    int rc = 1;
    clconv_device_list list = {0};
    clconv_session *s = NULL;
    float *image = malloc(sizeof(float) * NX * NY);
    float *out = malloc(sizeof(float) * NX * NY);
    float mask[W * W];
    size_t chosen[64], nchosen = 0;
    if (!image || !out)
        goto out;
    for (size_t y = 0; y < NY; ++y)
        for (size_t x = 0; x < NX; ++x)
            image[y * NX + x] = pixel(x, y);
    for (int i = 0; i < W * W; ++i)
        mask[i] = 1.0f / (W * W);

    if (clconv_devices_discover(&list) != CLCONV_OK ||
        list.count > 64 ||
        clconv_devices_select(&list, selector, chosen, &nchosen) !=
            CLCONV_OK ||
        nchosen == 0) {
        fprintf(stderr, "blur_host: %s\n", clconv_last_error());
        goto out;
    }
    const clconv_device_info *dev = &list.devices[chosen[0]];
    clconv_problem p = {.dims = 2, .size = {NX, NY, 1}, .mask_width = W};
    clconv_pick_default(dev, &p);
    if (clconv_session_create(dev, &s) != CLCONV_OK ||
        clconv_convolve(s, &p, image, mask, out) != CLCONV_OK) {
        fprintf(stderr, "blur_host: %s\n", clconv_last_error());
        goto out;
    }
    /* An interior pixel by hand: the mean of its 5x5 neighbourhood. */
    size_t cx = 100, cy = 200;
    double want = 0;
    for (int j = -W / 2; j <= W / 2; ++j)
        for (int i = -W / 2; i <= W / 2; ++i)
            want += pixel(cx + (size_t)i, cy + (size_t)j) / (W * W);
    double got = out[cy * NX + cx];
    printf("blur_host: %s on %s: pixel (%zu,%zu) = %.6f, expected %.6f\n",
           clconv_strategy_name(p.strategy), dev->name, cx, cy, got, want);
    rc = fabs(got - want) <= 1e-5 ? 0 : 1;
    if (rc)
        fprintf(stderr, "blur_host: wrong result\n");
out:
    clconv_session_destroy(s);
    clconv_devices_free(&list);
    free(image);
    free(out);
    return rc;
}
