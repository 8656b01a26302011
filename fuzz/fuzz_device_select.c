/* Fuzz device selectors (clconv_devices_select) on a synthetic device list:
 * every accepted selection holds valid, distinct indices. */
#include "clconv.h"
#include "fuzz.h"

static void fill(clconv_device_info *d, unsigned p, unsigned q,
                 const char *name, const char *vendor, const char *platform,
                 clconv_device_kind kind)
{
    memset(d, 0, sizeof *d);
    d->platform_index = p;
    d->device_index = q;
    strncpy(d->name, name, sizeof d->name - 1);
    strncpy(d->vendor, vendor, sizeof d->vendor - 1);
    strncpy(d->platform, platform, sizeof d->platform - 1);
    d->kind = kind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clconv_device_info devs[4];
    fill(&devs[0], 0, 0, "pthread-skylake-avx512", "AuthenticAMD",
         "Portable Computing Language", CLCONV_DEVICE_CPU);
    fill(&devs[1], 1, 0, "NVIDIA H100 80GB HBM3", "NVIDIA Corporation",
         "NVIDIA CUDA", CLCONV_DEVICE_GPU);
    fill(&devs[2], 1, 1, "NVIDIA H200", "NVIDIA Corporation", "NVIDIA CUDA",
         CLCONV_DEVICE_GPU);
    fill(&devs[3], 2, 0, "", "", "", CLCONV_DEVICE_ACCELERATOR);
    const clconv_device_list list = {devs, 4};
    /* One slot more than the list, filled with a canary. */
    size_t sel[5] = {99, 99, 99, 99, 99}, n = 12345;
    char *s = fuzz_cstring(data, size);
    clconv_status st = clconv_devices_select(&list, s, sel, &n);
    if (st == CLCONV_OK) {
        if (n < 1 || n > list.count || sel[4] != 99)
            abort();
        for (size_t i = 0; i < n; ++i) {
            if (sel[i] >= list.count)
                abort();
            for (size_t j = 0; j < i; ++j)
                if (sel[i] == sel[j])
                    abort();
        }
    } else if (st != CLCONV_EINVAL || !*clconv_last_error()) {
        abort();
    }
    free(s);
    return 0;
}
