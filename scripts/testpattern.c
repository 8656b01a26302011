/* Render clconv's sample image (assets/sample.png): a 256x256 RGB test
 * pattern with sharp edges, smooth gradients and fine detail, so that
 * blurring and edge detection show. Four quadrants: a Siemens star, a
 * colour checkerboard, three additive discs and a chirp (stripes whose
 * frequency rises), separated by white lines.
 *   build/testpattern OUT.png */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clconv_io.h"

#define SIDE 256
#define PI 3.14159265358979323846

static void star(int x, int y, float rgb[3])
{
    double dx = x - 64 + 0.5, dy = y - 64 + 0.5;
    double r = sqrt(dx * dx + dy * dy), a = atan2(dy, dx);
    float v = r > 56 ? 200.0f : (sin(16 * a) >= 0 ? 240.0f : 16.0f);
    rgb[0] = rgb[1] = rgb[2] = v;
}

static void checker(int x, int y, float rgb[3])
{
    static const float colours[2][3] = {{240, 140, 20}, {20, 40, 120}};
    const float *c = colours[((x / 16) + (y / 16)) % 2];
    for (int k = 0; k < 3; ++k)
        rgb[k] = c[k];
}

static void discs(int x, int y, float rgb[3])
{
    static const double centre[3][2] = {{48, 52}, {80, 52}, {64, 80}};
    for (int k = 0; k < 3; ++k) {
        double dx = x - centre[k][0], dy = y - centre[k][1];
        rgb[k] = dx * dx + dy * dy <= 30.0 * 30.0 ? 235.0f : 10.0f;
    }
}

static void chirp(int x, int y, float rgb[3])
{
    double t = x / 128.0;                 /* 0..1 across the quadrant */
    double phase = 2 * PI * (2 * t + 14 * t * t);
    double shade = 0.35 + 0.65 * (1.0 - y / 128.0);
    float v = (float)(128 + 110 * shade * sin(phase));
    rgb[0] = v;
    rgb[1] = v * 0.9f;
    rgb[2] = (float)(64 + y);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.png\n", argv[0]);
        return 2;
    }
    clconv_image img = {CLCONV_IMAGE_PNG, SIDE, SIDE, 3, 255, NULL};
    img.pixels = malloc(sizeof(float) * SIDE * SIDE * 3);
    if (!img.pixels) {
        fprintf(stderr, "testpattern: out of memory\n");
        return 1;
    }
    for (int y = 0; y < SIDE; ++y)
        for (int x = 0; x < SIDE; ++x) {
            float *px = img.pixels + ((size_t)y * SIDE + x) * 3;
            int qx = x % 128, qy = y % 128;
            if (qx < 2 || qy < 2 || x >= SIDE - 2 || y >= SIDE - 2) {
                px[0] = px[1] = px[2] = 255.0f;
            } else if (y < 128) {
                (x < 128 ? star : checker)(qx, qy, px);
            } else {
                (x < 128 ? discs : chirp)(qx, qy, px);
            }
        }
    unsigned char *buf = NULL;
    size_t len = 0;
    clconv_status st = clconv_image_encode(&img, &buf, &len);
    if (st == CLCONV_OK)
        st = clconv_file_write(argv[1], buf, len);
    free(buf);
    clconv_image_free(&img);
    if (st != CLCONV_OK) {
        fprintf(stderr, "testpattern: %s\n", clconv_last_error());
        return 1;
    }
    return 0;
}
