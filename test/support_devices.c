/* Test helpers: the device fixture, and the first device to use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

int support_devices_open(support_devices *f)
{
    memset(f, 0, sizeof *f);
    if (clconv_devices_discover(&f->list) != CLCONV_OK) {
        snprintf(f->why, sizeof f->why, "%s", clconv_last_error());
        return -1;
    }
    const size_t room = f->list.count ? f->list.count : 1;
    f->sel = calloc(room, sizeof *f->sel);
    f->sessions = calloc(room, sizeof *f->sessions);
    int rc = f->sel && f->sessions ? 0 : -1;
    if (rc == 0 && (clconv_devices_select(&f->list, getenv("CLCONV_DEVICE"),
                                          f->sel, &f->n) != CLCONV_OK ||
                    f->n == 0))
        rc = -1;
    for (size_t d = 0; rc == 0 && d < f->n; ++d)
        if (clconv_session_create(support_device(f, d), &f->sessions[d]) !=
            CLCONV_OK)
            rc = -1;
    if (rc != 0) {
        char why[sizeof f->why];
        snprintf(why, sizeof why, "%s", clconv_last_error());
        support_devices_close(f);
        snprintf(f->why, sizeof f->why, "%s", why);
    }
    return rc;
}

const clconv_device_info *support_device(const support_devices *f, size_t k)
{
    return &f->list.devices[f->sel[k]];
}

void support_devices_close(support_devices *f)
{
    for (size_t d = 0; f->sessions && d < f->n; ++d)
        clconv_session_destroy(f->sessions[d]);
    free(f->sessions);
    free(f->sel);
    clconv_devices_free(&f->list);
    memset(f, 0, sizeof *f);
}

int support_devices_setup(void **state)
{
    support_devices *f = malloc(sizeof *f);
    if (!f || support_devices_open(f)) {
        if (f)
            fprintf(stderr, "test: no device to run on: %s\n", f->why);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

int support_devices_setup_or_skip(void **state)
{
    support_devices *f = malloc(sizeof *f);
    if (!f)
        return -1;
    support_devices_open(f);
    *state = f;
    return 0;
}

int support_devices_teardown(void **state)
{
    support_devices *f = *state;
    support_devices_close(f);
    free(f);
    return 0;
}

int support_first_device(clconv_device_list *devices,
                         const clconv_device_info **dev)
{
    if (clconv_devices_discover(devices) != CLCONV_OK)
        return -1;
    size_t sel[64], nsel = 0;
    if (devices->count > 64 ||
        clconv_devices_select(devices, getenv("CLCONV_DEVICE"), sel, &nsel) !=
            CLCONV_OK ||
        nsel == 0)
        return -1;
    *dev = &devices->devices[sel[0]];
    return 0;
}
