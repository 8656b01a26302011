/* VkFFT's OpenCL backend behind three calls (fft.c uses them). VkFFT is
 * one header of static functions; it is compiled in this file alone, so
 * nothing else sees its names. Its configuration keeps pointers to the
 * device, context, queue, buffer and size: they live in clc_vkfft. */
#define VKFFT_BACKEND 3
#include "internal.h"

#include <stdlib.h>
#include <vkFFT.h>

struct clc_vkfft {
    VkFFTApplication app;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_mem buffer;
    uint64_t bytes;
    int initialized;
};

static clconv_status vk_fail(const char *what, VkFFTResult r)
{
    return clc_fail(r == VKFFT_ERROR_MALLOC_FAILED ? CLCONV_ENOMEM
                                                   : CLCONV_EUNSUPPORTED,
                    "VkFFT %s failed: error %d (see VkFFTResult in vkFFT.h)",
                    what, (int)r);
}

clconv_status clc_vkfft_create(clconv_session *s, cl_command_queue queue,
                               int dims,
                               const size_t len[3], cl_mem buffer,
                               clc_vkfft **out)
{
    *out = NULL;
    clc_vkfft *v = calloc(1, sizeof *v);
    if (!v)
        return clc_fail(CLCONV_ENOMEM, "out of memory");
    v->device = s->device;
    v->context = s->context;
    v->queue = queue;
    v->buffer = buffer;
    v->bytes = (uint64_t)(len[0] / 2 + 1) * 2 * len[1] * len[2] *
               sizeof(float);
    VkFFTConfiguration c = {0};
    c.FFTdim = (uint64_t)dims;
    for (int k = 0; k < 3; ++k)
        c.size[k] = len[k];
    c.performR2C = 1;
    c.device = &v->device;
    c.context = &v->context;
    c.commandQueue = &v->queue;
    c.buffer = &v->buffer;
    c.bufferSize = &v->bytes;
    VkFFTResult r = initializeVkFFT(&v->app, c);
    if (r != VKFFT_SUCCESS) {
        deleteVkFFT(&v->app);
        free(v);
        return vk_fail("initializeVkFFT", r);
    }
    v->initialized = 1;
    *out = v;
    return CLCONV_OK;
}

/* The widest x extent of a work-group among VkFFT's kernels of v, both
 * directions. */
size_t clc_vkfft_max_local_x(const clc_vkfft *v)
{
    size_t most = 0;
    const VkFFTPlan *plans[2] = {v->app.localFFTPlan,
                                 v->app.localFFTPlan_inverse};
    for (int d = 0; d < 2; ++d)
        for (int k = 0; plans[d] && k < 3; ++k)
            for (uint64_t j = 0; j < plans[d]->numAxisUploads[k] && j < 4; ++j) {
                const uint64_t x =
                    plans[d]->axes[k][j].specializationConstants.localSize[0];
                if (x > most)
                    most = (size_t)x;
            }
    return most;
}

clconv_status clc_vkfft_run(clc_vkfft *v, cl_mem buffer, int inverse)
{
    VkFFTLaunchParams lp = {0};
    lp.commandQueue = &v->queue;
    lp.buffer = &buffer;
    /* VkFFT's direction: -1 forward, 1 inverse (unnormalised). */
    VkFFTResult r = VkFFTAppend(&v->app, inverse ? 1 : -1, &lp);
    return r == VKFFT_SUCCESS ? CLCONV_OK : vk_fail("VkFFTAppend", r);
}

void clc_vkfft_destroy(clc_vkfft *v)
{
    if (!v)
        return;
    if (v->initialized)
        deleteVkFFT(&v->app);
    free(v);
}
