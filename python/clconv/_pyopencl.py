"""pyopencl.array.Array in and out, on the array's own context and queue,
without a host round trip (libclconv's clconv_session_create_from_cl and
clconv_plan_enqueue)."""
from __future__ import annotations

import threading

import numpy as np

from . import _native

_sessions: dict = {}
_lock = threading.Lock()


def is_cl_array(x) -> bool:
    return type(x).__module__.startswith("pyopencl")


def _session(queue) -> "_native.NativeSession":
    key = (queue.context.int_ptr, queue.int_ptr)
    with _lock:
        hit = _sessions.get(key)
        if hit is None:
            s = _native.NativeSession(cl_objects=(
                queue.context.int_ptr, queue.device.int_ptr, queue.int_ptr))
            hit = _sessions[key] = (queue, s)  # the queue outlives its key
        return hit[1]


def unsupported(what: str):
    return _native.UnsupportedError(
        "on pyopencl arrays clconv runs float32 C-contiguous arrays of 1-3 "
        "dimensions, or more where the mask spans at most 3 axes and the "
        "others fold into a batch and at most 3 axes, with real weights (at "
        "most %d along an axis) and a finite cval; %s (pass a NumPy array "
        "for the rest)" % (_native.MAX_MASK_WIDTH, what))


def _fold(shape, axes):
    """A C-contiguous array of more than 3 axes as the library sees it:
    (batch, shape of at most 3 axes, the mask's axes in that shape). The
    axes before the mask's first are a batch (stacked arrays, one
    launch); after it, each run of axes the mask does not span is one
    axis (their elements are contiguous, and the mask is 1 wide along
    it). None when more than 3 axes are left."""
    batch = 1
    for n in shape[:axes[0]]:
        batch *= n
    folded, where = [], []
    for a in range(axes[0], len(shape)):
        if a in axes:
            where.append(len(folded))
            folded.append(shape[a])
        elif a - 1 in axes:
            folded.append(shape[a])
        else:
            folded[-1] *= shape[a]
    return (batch, tuple(folded), where) if len(folded) <= 3 else None


def correlate(input, mask: np.ndarray, output, mode: str, cval: float,
              axes, origins):
    """The correlation of a pyopencl array on its queue with ``mask`` over
    its axes ``axes`` (increasing), SciPy's mode and origins (per mask
    axis; more than 3 axes fold, see _fold); returns a pyopencl array
    (``output`` when one is given) of the
    same context."""
    import pyopencl.array as cla

    if input.queue is None:  # as pyopencl's own operations
        raise ValueError("this pyopencl array has no queue, which clconv "
                         "runs on: pass array.with_queue(queue)")
    if input.dtype != np.float32 or not input.flags.c_contiguous:
        raise unsupported("this array is %s%s" % (
            input.dtype, "" if input.flags.c_contiguous else ", not contiguous"))
    batch, shape = 1, input.shape
    if input.ndim > 3:
        folded = _fold(input.shape, axes)
        if folded is None:
            raise unsupported("the mask's axes %s of this array of %d "
                              "leave more than 3" % (tuple(axes), input.ndim))
        batch, shape, axes = folded
    elif input.ndim < 1:
        raise unsupported("this one has 0 dimensions")
    if mode not in ("constant", "grid-constant"):
        cval = 0.0  # read by the constant mode only
    elif not np.isfinite(cval):
        raise unsupported("cval=%r" % (cval,))
    if output is None:
        output = cla.empty_like(input)
    elif (not is_cl_array(output) or output.shape != input.shape
          or output.dtype != np.float32 or not output.flags.c_contiguous
          or output.context != input.context):
        raise unsupported("output must be a float32 C-contiguous pyopencl "
                          "array of the input's shape and context")
    if input.size == 0:
        return output
    if max(mask.shape, default=1) > _native.MAX_MASK_WIDTH:
        raise unsupported("this mask is %d wide" % max(mask.shape))
    if output.base_data == input.base_data and \
            output.offset < input.offset + input.nbytes and \
            input.offset < output.offset + output.nbytes:
        raise unsupported("the output overlaps the input (pass another "
                          "array)")
    session = _session(input.queue)
    waits = [e.int_ptr for e in list(input.events) + list(output.events)]
    import pyopencl as cl
    mask = np.ascontiguousarray(mask, np.float32)
    # The library stacks 1D and 2D problems in one launch; volumes one by
    # one, each at its offset.
    launches, step = (batch, 4 * int(np.prod(shape))) if len(shape) == 3 \
        else (1, 0)
    if launches > 1:
        batch = 1
    for k in range(launches):
        done = session.enqueue(shape, mask, axes, origins,
                               _native.BORDERS[mode], cval,
                               input.base_data.int_ptr, input.offset + k * step,
                               output.base_data.int_ptr,
                               output.offset + k * step, waits, batch)
        if done:
            output.add_event(cl.Event.from_int_ptr(done, retain=False))
    return output
