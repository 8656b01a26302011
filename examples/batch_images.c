/* A batch of images in one call: N grayscale images of the same size,
 * stacked as the planes of a 3D array, filtered by a 2D mask that is one
 * plane thick (mask_size {W, W, 1}), so each image is convolved on its own
 * and the whole batch runs as one launch instead of N.
 *
 *   cc batch_images.c $(pkg-config --cflags --libs clconv) -lm -o batch_images
 *   ./batch_images [DEVICE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clconv.h>

enum { NX = 320, NY = 240, N = 8, W = 5 };

/* Image k: a different pattern per image, so a filter that mixed the
 * images would be seen. */
static float pixel(size_t k, size_t x, size_t y)
{
    return (float)(k + 1) * (float)sin(0.07 * (double)x + 0.3 * (double)k) *
           (float)cos(0.05 * (double)y);
}

static float mask[W * W];

/* Output (x, y) of image k by hand, reflect mode (SciPy's default). */
static double by_hand(size_t k, long x, long y)
{
    double s = 0;
    for (long j = 0; j < W; ++j)
        for (long i = 0; i < W; ++i) {
            long xx = x + i - W / 2, yy = y + j - W / 2;
            xx = xx < 0 ? -xx - 1 : xx >= NX ? 2 * NX - xx - 1 : xx;
            yy = yy < 0 ? -yy - 1 : yy >= NY ? 2 * NY - yy - 1 : yy;
            s += (double)mask[j * W + i] * pixel(k, (size_t)xx, (size_t)yy);
        }
    return s;
}

int main(int argc, char **argv)
{
    clconv_device_list list = {0};
    clconv_session *s = NULL;
    size_t chosen[64], nchosen = 0;
    float *in = malloc(sizeof(float) * NX * NY * N);
    float *out = malloc(sizeof(float) * NX * NY * N);
    int rc = 1;
    if (!in || !out)
        goto out;
    for (size_t k = 0; k < N; ++k)
        for (size_t y = 0; y < NY; ++y)
            for (size_t x = 0; x < NX; ++x)
                in[(k * NY + y) * NX + x] = pixel(k, x, y);
    static const float binomial[W] = {1, 4, 6, 4, 1}; /* a 5x5 blur */
    for (int i = 0; i < W * W; ++i)
        mask[i] = binomial[i / W] * binomial[i % W] / 256.0f;
    if (clconv_devices_discover(&list) != CLCONV_OK || list.count > 64 ||
        clconv_devices_select(&list, argc > 1 ? argv[1] : NULL, chosen,
                              &nchosen) != CLCONV_OK ||
        !nchosen) {
        fprintf(stderr, "batch_images: %s\n", clconv_last_error());
        goto out;
    }
    const clconv_device_info *dev = &list.devices[chosen[0]];
    /* The batch is the slowest axis; the mask spans x and y only. */
    clconv_problem p = {.dims = 3, .size = {NX, NY, N},
                        .mask_size = {W, W, 1},
                        .border = CLCONV_BORDER_REFLECT};
    if (clconv_session_create(dev, &s) != CLCONV_OK ||
        clconv_convolve(s, &p, in, mask, out) != CLCONV_OK) {
        fprintf(stderr, "batch_images: %s\n", clconv_last_error());
        goto out;
    }
    double worst = 0;
    const long pts[][2] = {{0, 0}, {NX - 1, NY - 1}, {160, 120}, {2, 200}};
    for (size_t k = 0; k < N; ++k)
        for (size_t q = 0; q < 4; ++q) {
            long x = pts[q][0], y = pts[q][1];
            double e = fabs(out[(k * NY + (size_t)y) * NX + (size_t)x] -
                            by_hand(k, x, y));
            worst = e > worst ? e : worst;
        }
    printf("batch_images: %d images of %dx%d in one call on %s, worst error "
           "%.2g at 32 checked pixels\n", N, NX, NY, dev->name, worst);
    rc = worst <= 1e-5 * N ? 0 : 1;
    if (rc)
        fprintf(stderr, "batch_images: wrong result\n");
out:
    clconv_session_destroy(s);
    clconv_devices_free(&list);
    free(in);
    free(out);
    return rc;
}
