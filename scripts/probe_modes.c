/* Measuring tool (not a test): what each border mode costs against
 * constant, in one process. One plan per mode (the device's default
 * strategy, or STRATEGY), built before anything is timed, all on the same
 * random input and mask; then ROUNDS rounds, each timing every plan (one
 * untimed launch, then REPS launches with profiling events, median) in an
 * order rotated by one each round, so that no mode always runs first or
 * after the same neighbour. Prints each round's medians, then per mode the
 * median over rounds and its ratio to constant's; constant's own spread
 * over rounds is the noise the ratios sit in. Correctness is the test
 * matrix's job: nothing is verified here.
 * Build: cc -O2 -std=c11 -Iinclude scripts/probe_modes.c build/libclconv.a
 *        -lOpenCL -lpng -lm -fopenmp -o build/probe_modes
 * Usage: probe_modes DEVICE DIMS NX[xNY[xNZ]] W ROUNDS REPS [STRATEGY] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clconv.h"

#define MODES CLCONV_BORDER_COUNT
#define MAX_ROUNDS 64

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static int fail(const char *what)
{
    fprintf(stderr, "probe_modes: %s: %s\n", what, clconv_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 7 || argc > 8) {
        fprintf(stderr, "usage: probe_modes DEVICE DIMS NX[xNY[xNZ]] W "
                        "ROUNDS REPS [STRATEGY]\n");
        return 2;
    }
    clconv_problem p = {.dims = atoi(argv[2]), .size = {1, 1, 1},
                        .mask_width = atoi(argv[4])};
    const int rounds = atoi(argv[5]), reps = atoi(argv[6]);
    if (sscanf(argv[3], "%zux%zux%zu", &p.size[0], &p.size[1],
               &p.size[2]) != p.dims || p.dims < 1 || p.dims > 3 ||
        p.mask_width < 1 || rounds < 1 || rounds > MAX_ROUNDS || reps < 1) {
        fprintf(stderr, "probe_modes: bad arguments\n");
        return 2;
    }
    clconv_device_list l;
    size_t sel[64], n = 0;
    clconv_session *s = NULL;
    if (clconv_devices_discover(&l) || l.count > 64 ||
        clconv_devices_select(&l, argv[1], sel, &n) || !n ||
        clconv_session_create(&l.devices[sel[0]], &s))
        return fail("device");
    clconv_pick_default(&l.devices[sel[0]], &p);
    if (argc == 8 && clconv_strategy_parse(argv[7], &p.strategy))
        return fail("strategy");
    size_t elems = p.size[0] * p.size[1] * p.size[2], taps = 1;
    for (int a = 0; a < p.dims; ++a)
        taps *= (size_t)p.mask_width;
    float *in = malloc(elems * sizeof *in), *m = malloc(taps * sizeof *m);
    if (!in || !m)
        return 1;
    clconv_fill_random(in, elems, 1);
    clconv_fill_random(m, taps, 2);
    clconv_plan *plan[MODES] = {0};
    for (int k = 0; k < MODES; ++k) {
        clconv_problem q = p;
        q.border = (clconv_border)k;
        if (clconv_plan_create_with_mask(s, &q, m, &plan[k]) ||
            clconv_plan_set_input(plan[k], in))
            return fail(clconv_border_name(q.border));
    }
    static double ms[MODES][MAX_ROUNDS];
    printf("%s %dD %s W=%d %s, %d rounds of %d launches\n",
           l.devices[sel[0]].name, p.dims, argv[3], p.mask_width,
           clconv_strategy_name(p.strategy), rounds, reps);
    for (int r = 0; r < rounds; ++r) {
        printf("round %d:", r + 1);
        for (int i = 0; i < MODES; ++i) {
            const int k = (r + i) % MODES;
            clconv_timing t;
            if (clconv_plan_time(plan[k], 1, reps, &t))
                return fail("time");
            ms[k][r] = t.median_ms;
            printf(" %s %.3f", clconv_border_name((clconv_border)k),
                   t.median_ms);
        }
        printf("\n");
    }
    const double c = median_of(ms[0], rounds);
    double lo = ms[0][0], hi = ms[0][0];
    for (int r = 1; r < rounds; ++r) {
        lo = ms[0][r] < lo ? ms[0][r] : lo;
        hi = ms[0][r] > hi ? ms[0][r] : hi;
    }
    printf("summary %dD %s W=%d: constant %.3f ms (rounds %.2f-%.2f of it)",
           p.dims, argv[3], p.mask_width, c, lo / c, hi / c);
    for (int k = 1; k < MODES; ++k)
        printf("; %s %.2f", clconv_border_name((clconv_border)k),
               median_of(ms[k], rounds) / c);
    printf("\n");
    for (int k = 0; k < MODES; ++k)
        clconv_plan_destroy(plan[k]);
    clconv_session_destroy(s);
    clconv_devices_free(&l);
    free(in);
    free(m);
    return 0;
}
