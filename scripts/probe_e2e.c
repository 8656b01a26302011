/* Measuring tool (not a test): where a host-to-host call's time goes on a
 * device. For a 2D problem it prints the median of: the kernel alone
 * (profiling events), whole clconv_convolve calls on 4 KiB-aligned host
 * arrays, and on arrays 16 bytes past alignment (what malloc returns for
 * large blocks). Build: cc -O2 -Iinclude scripts/probe_e2e.c
 * build/libclconv.a -lOpenCL -lpng -lm -fopenmp
 * Usage: probe_e2e DEVICE NX NY W */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clconv.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_call(clconv_session *s, const clconv_problem *p,
                          const float *in, const float *m, float *out)
{
    double t[31];
    for (int r = 0; r < 31; ++r) {
        double t0 = now_ms();
        if (clconv_convolve(s, p, in, m, out) != CLCONV_OK) {
            fprintf(stderr, "probe_e2e: %s\n", clconv_last_error());
            exit(1);
        }
        t[r] = now_ms() - t0;
    }
    qsort(t, 31, sizeof *t, cmp);
    return t[15];
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: probe_e2e DEVICE NX NY W\n");
        return 2;
    }
    size_t nx = strtoul(argv[2], NULL, 10), ny = strtoul(argv[3], NULL, 10);
    int w = atoi(argv[4]);
    clconv_device_list l;
    size_t sel[64], n = 0;
    clconv_session *s;
    if (clconv_devices_discover(&l) || l.count > 64 ||
        clconv_devices_select(&l, argv[1], sel, &n) || !n ||
        clconv_session_create(&l.devices[sel[0]], &s)) {
        fprintf(stderr, "probe_e2e: %s\n", clconv_last_error());
        return 1;
    }
    clconv_problem p = {.dims = 2, .size = {nx, ny, 1}, .mask_width = w};
    clconv_pick_default(&l.devices[sel[0]], &p);
    size_t bytes = nx * ny * sizeof(float);
    float *ia = aligned_alloc(4096, bytes + 4096);
    float *oa = aligned_alloc(4096, bytes + 4096);
    float *m = malloc((size_t)w * (size_t)w * sizeof *m);
    if (!ia || !oa || !m)
        return 1;
    float *iu = ia + 4, *ou = oa + 4; /* 16 bytes past alignment */
    clconv_fill_random(ia, nx * ny + 4, 1);
    clconv_fill_random(m, (size_t)w * (size_t)w, 2);
    clconv_plan *pl;
    double k[21];
    if (clconv_plan_create_with_mask(s, &p, m, &pl) ||
        clconv_plan_set_input(pl, ia))
        return 1;
    for (int r = 0; r < 21; ++r)
        clconv_plan_execute(pl, &k[r]);
    qsort(k, 21, sizeof *k, cmp);
    for (int rep = 0; rep < 2; ++rep)
        printf("%s %zux%zu W=%d %s: kernel %.4f ms, call aligned %.4f ms, "
               "call 16 B off %.4f ms\n",
               l.devices[sel[0]].name, nx, ny, w,
               clconv_strategy_name(p.strategy), k[10],
               median_call(s, &p, ia, m, oa), median_call(s, &p, iu, m, ou));
    clconv_plan_destroy(pl);
    clconv_session_destroy(s);
    clconv_devices_free(&l);
    return 0;
}
