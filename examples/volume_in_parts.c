/* A volume filtered in parts held apart, as MPI ranks or an out-of-core
 * program hold it: each part is a run of planes with the halo planes its
 * outputs reach on either side (past the volume's ends, the planes the
 * border mode reads there), and clconv_convolve_part is told where the
 * part sits in the whole. The parts together give one call's result on
 * the whole volume bit for bit; this program checks that they do.
 *
 *   cc volume_in_parts.c $(pkg-config --cflags --libs clconv) -o parts
 *   ./parts [DEVICE]      (DEVICE: a selector as in `clconv devices`)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clconv.h>

enum { NX = 96, NY = 64, NZ = 100, W = 5, PARTS = 3 };

/* Output planes [begin, end) of p from a part holding planes begin - lo
 * to end + hi of the whole (each the plane the border mode reads there),
 * into the whole's out. */
static clconv_status part(clconv_session *s, const clconv_problem *p,
                          const float *volume, const float *mask, float *out,
                          size_t begin, size_t end)
{
    const size_t plane = (size_t)NX * NY;
    const long long lo = clconv_problem_left(p, 2),
                    hi = clconv_problem_mask_axis(p, 2) - 1 - lo;
    const long long first = (long long)begin - lo;
    const size_t n = (size_t)((long long)end + hi - first);
    float *in = malloc(n * plane * sizeof *in);
    float *res = malloc(n * plane * sizeof *res);
    clconv_status st = CLCONV_ENOMEM;
    if (in && res) {
        for (size_t i = 0; i < n; ++i) {
            const long long src =
                clconv_border_index(first + (long long)i, NZ, p->border);
            memcpy(in + i * plane, volume + (size_t)src * plane,
                   plane * sizeof *in);
        }
        clconv_problem local = *p;
        local.size[2] = n;
        const clconv_part where = {first, NZ};
        st = clconv_convolve_part(s, &local, &where, in, mask, res,
                                  (size_t)lo, (size_t)lo + (end - begin),
                                  NULL);
        if (st == CLCONV_OK)
            memcpy(out + begin * plane, res + (size_t)lo * plane,
                   (end - begin) * plane * sizeof *out);
    }
    free(in);
    free(res);
    return st;
}

int main(int argc, char **argv)
{
    const char *selector = argc > 1 ? argv[1] : NULL;
    const size_t n = (size_t)NX * NY * NZ;
    int rc = 1;
    clconv_device_list list = {0};
    clconv_session *s = NULL;
    float *volume = malloc(n * sizeof *volume);
    float *whole = malloc(n * sizeof *whole);
    float *parts = malloc(n * sizeof *parts);
    float mask[W * W * W];
    size_t chosen[64], nchosen = 0;
    if (!volume || !whole || !parts)
        goto out;
    clconv_fill_random(volume, n, 1);
    clconv_fill_random(mask, W * W * W, 2);
    if (clconv_devices_discover(&list) != CLCONV_OK || list.count > 64 ||
        clconv_devices_select(&list, selector, chosen, &nchosen) !=
            CLCONV_OK ||
        nchosen == 0) {
        fprintf(stderr, "volume_in_parts: %s\n", clconv_last_error());
        goto out;
    }
    const clconv_device_info *dev = &list.devices[chosen[0]];
    clconv_problem p = {.dims = 3, .size = {NX, NY, NZ}, .mask_width = W,
                        .border = CLCONV_BORDER_REFLECT,
                        .method = CLCONV_METHOD_DIRECT};
    clconv_pick_default(dev, &p);
    if (clconv_session_create(dev, &s) != CLCONV_OK ||
        clconv_convolve(s, &p, volume, mask, whole) != CLCONV_OK) {
        fprintf(stderr, "volume_in_parts: %s\n", clconv_last_error());
        goto out;
    }
    /* Parts of uneven sizes: 0-33, 33-67, 67-100. */
    for (size_t k = 0; k < PARTS; ++k)
        if (part(s, &p, volume, mask, parts, k * NZ / PARTS,
                 (k + 1) * NZ / PARTS) != CLCONV_OK) {
            fprintf(stderr, "volume_in_parts: %s\n", clconv_last_error());
            goto out;
        }
    size_t differ = 0;
    for (size_t i = 0; i < n; ++i)
        differ += memcmp(&whole[i], &parts[i], sizeof *parts) != 0;
    printf("volume_in_parts: %s on %s: %d parts, %zu of %zu outputs differ "
           "from one call\n",
           clconv_strategy_name(p.strategy), dev->name, PARTS, differ, n);
    rc = differ ? 1 : 0;
out:
    clconv_session_destroy(s);
    clconv_devices_free(&list);
    free(volume);
    free(whole);
    free(parts);
    return rc;
}
