/* clconv inside an application that owns its OpenCL objects: the
 * application's context and queue, its own cl_mem holding an image with a
 * padded row pitch, and events ordering the work; nothing blocks until the
 * application reads its result.
 *
 *   cc own_context.c $(pkg-config --cflags --libs clconv) -lOpenCL -o own_context
 *   ./own_context [DEVICE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <clconv_cl.h>

enum { NX = 500, NY = 300, PITCH = 512 /* floats per row in the buffer */ };

static int fail(const char *what)
{
    fprintf(stderr, "own_context: %s: %s\n", what, clconv_last_error());
    return 1;
}

/* Pick a device the clconv way, then make our own context and queue. */
static int open_cl(const char *sel, clconv_device_list *list,
                   const clconv_device_info **dev, cl_context *ctx,
                   cl_command_queue *q)
{
    size_t chosen[64], n = 0;
    cl_int err;
    if (clconv_devices_discover(list) != CLCONV_OK || list->count > 64 ||
        clconv_devices_select(list, sel, chosen, &n) != CLCONV_OK || !n)
        return fail("no device");
    *dev = &list->devices[chosen[0]];
    cl_device_id d = (cl_device_id)(*dev)->opaque_device;
    *ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return fail("clCreateContext");
    *q = clCreateCommandQueue(*ctx, d, 0, &err);
    return err == CL_SUCCESS ? 0 : fail("clCreateCommandQueue");
}

int main(int argc, char **argv)
{
    clconv_device_list list = {0};
    const clconv_device_info *dev;
    cl_context ctx = NULL;
    cl_command_queue q = NULL;
    if (open_cl(argc > 1 ? argv[1] : NULL, &list, &dev, &ctx, &q))
        return 1;
    int rc = 1;
    cl_int err;
    float *host = calloc((size_t)PITCH * NY, sizeof *host);
    const size_t bytes = sizeof(float) * PITCH * NY;
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    clconv_session *s = NULL;
    clconv_plan *plan = NULL;
    cl_event uploaded = NULL, filtered = NULL;
    if (!host || !in || !out)
        goto out;
    for (size_t y = 0; y < NY; ++y) /* a vertical edge at x = 250 */
        for (size_t x = 0; x < NX; ++x)
            host[y * PITCH + x] = x < 250 ? 0.0f : 1.0f;

    /* A Sobel-x filter on the application's queue, after its upload. */
    const float sobel_x[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
    clconv_problem p = {.dims = 2, .size = {NX, NY, 1}, .mask_width = 3};
    clconv_pick_default(dev, &p);
    if (clconv_session_create_from_cl(ctx, dev->opaque_device, q, &s) ||
        clconv_plan_create_with_mask(s, &p, sobel_x, &plan)) {
        fail("plan");
        goto out;
    }
    if (clEnqueueWriteBuffer(q, in, CL_FALSE, 0, bytes, host, 0, NULL,
                             &uploaded) != CL_SUCCESS)
        goto out;
    const size_t pitch = PITCH * sizeof(float);
    clconv_buffer bin = {.mem = in, .row_pitch = pitch};
    clconv_buffer bout = {.mem = out, .row_pitch = pitch};
    if (clconv_plan_enqueue(plan, &bin, &bout, 1, &uploaded, &filtered)) {
        fail("enqueue");
        goto out;
    }
    /* The application's own read, ordered after clconv's event. */
    if (clEnqueueReadBuffer(q, out, CL_TRUE, 0, bytes, host, 1, &filtered,
                            NULL) != CL_SUCCESS)
        goto out;
    /* Sobel-x of a unit step: 4 on the two columns beside the edge. */
    float left = host[150 * PITCH + 249], right = host[150 * PITCH + 250];
    float flat = host[150 * PITCH + 100];
    printf("own_context: %s on %s: edge response %.1f %.1f, flat %.1f\n",
           clconv_strategy_name(p.strategy), dev->name, left, right, flat);
    rc = left == 4.0f && right == 4.0f && flat == 0.0f ? 0 : 1;
    if (rc)
        fprintf(stderr, "own_context: wrong result\n");
out:
    if (q) /* nothing in flight may outlive host or the buffers */
        clFinish(q);
    if (uploaded)
        clReleaseEvent(uploaded);
    if (filtered)
        clReleaseEvent(filtered);
    clconv_plan_destroy(plan);
    clconv_session_destroy(s);
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    clconv_devices_free(&list);
    free(host);
    return rc;
}
