/* clconv on the application's own OpenCL objects: a session on an existing
 * context, device and queue, and plans enqueued on caller-owned buffers
 * with event wait lists, never blocking. Part of libclconv; include it
 * after (or instead of) <CL/cl.h>.
 *
 * Ownership: clconv retains what it is given (clRetain*) and releases it
 * when the session is destroyed; the application keeps its own references
 * and may release them whenever it likes. */
#ifndef CLCONV_CL_H
#define CLCONV_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "clconv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A session on the application's context and device. queue may be NULL
 * (clconv makes its own in-order profiling queue on them); otherwise it
 * must belong to context and device, and clconv enqueues all its work
 * there (on an out-of-order queue the FFT's steps run on an in-order queue
 * of the session's after the wait list, and end with a marker on queue:
 * clFinish, markers and barriers enqueued on queue after cover them, a
 * barrier before does not order them). Timing (clconv_plan_execute's ms, clconv_plan_time) needs a
 * queue created with CL_QUEUE_PROFILING_ENABLE (else CLCONV_EINVAL
 * saying so, nothing run); enqueueing does not.
 * CLCONV_EINVAL when the device is not in the context or the queue is
 * another context's or device's. */
clconv_status clconv_session_create_from_cl(cl_context context,
                                            cl_device_id device,
                                            cl_command_queue queue,
                                            clconv_session **out);
/* The session's OpenCL objects (owned by the session; retain them to keep
 * them longer). */
cl_context clconv_session_cl_context(const clconv_session *s);
cl_command_queue clconv_session_cl_queue(const clconv_session *s);

/* A region of a caller-owned buffer holding a problem's array: element
 * (x, y, z) is the float at byte offset + z * slice_pitch + y * row_pitch +
 * x * 4. A pitch of 0 means dense (row_pitch = nx * 4, slice_pitch =
 * row_pitch * ny). Pitches smaller than the dense ones, a slice pitch
 * that is not a multiple of the row pitch (OpenCL's rectangle copies need
 * one) or a region past the buffer's end are CLCONV_EINVAL. */
typedef struct clconv_buffer {
    cl_mem mem;
    size_t offset;      /* bytes */
    size_t row_pitch;   /* bytes between rows (y), 0: dense */
    size_t slice_pitch; /* bytes between planes (z), 0: dense */
} clconv_buffer;

/* Enqueue the plan on in and out after the nwait events of wait, and
 * return in *done (may be NULL) an event that completes when out holds the
 * result; the caller releases it. Nothing blocks. A dense region whose
 * offset is 0 (or aligned to the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN)
 * is used in place; any other region goes through the plan's own buffers
 * with device-side rectangle copies (clEnqueueCopyBufferRect), still
 * without a host round trip, as is a region whose buffer's flags forbid
 * the kernel's access (a CL_MEM_WRITE_ONLY input, a CL_MEM_READ_ONLY
 * output). in and out may not overlap; an image is CLCONV_EINVAL. A
 * buffer, event or plan of another context is CLCONV_EINVAL with the
 * reason, and nothing is enqueued. A plan is used by one thread at a
 * time. Enqueues of one plan run one after another in the order they
 * were made, on out-of-order queues too (each waits for the one before:
 * they may share the plan's own buffers, passes and mask); the plan's
 * blocking calls (set_input, set_mask, execute, get_output) first wait
 * for its enqueued work.
 * Destroying a plan or the session waits for nothing, so it never waits
 * for the application's own work on its queue; OpenCL keeps what enqueued
 * work uses until it ends. */
clconv_status clconv_plan_enqueue(clconv_plan *plan, const clconv_buffer *in,
                                  const clconv_buffer *out, cl_uint nwait,
                                  const cl_event *wait, cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* CLCONV_CL_H */
