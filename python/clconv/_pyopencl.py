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


def _unsupported(what: str):
    return _native.UnsupportedError(
        "on pyopencl arrays clconv runs float32 C-contiguous arrays of 1-3 "
        "dimensions with a finite cval; %s (pass a NumPy array for the rest)"
        % what)


def correlate(input, mask: np.ndarray, output, mode: str, cval: float,
              axes, origins):
    """The correlation of a pyopencl array on its queue with ``mask`` over
    its axes ``axes`` (increasing), SciPy's mode and origins (per mask
    axis); returns a pyopencl array (``output`` when one is given) of the
    same context."""
    import pyopencl.array as cla

    if input.dtype != np.float32 or not input.flags.c_contiguous:
        raise _unsupported("this array is %s%s" % (
            input.dtype, "" if input.flags.c_contiguous else ", not contiguous"))
    if not 1 <= input.ndim <= 3:
        raise _unsupported("this one has %d" % input.ndim)
    if mode not in ("constant", "grid-constant"):
        cval = 0.0  # read by the constant mode only
    elif not np.isfinite(cval):
        raise _unsupported("cval=%r" % (cval,))
    if output is None:
        output = cla.empty_like(input)
    elif (not is_cl_array(output) or output.shape != input.shape
          or output.dtype != np.float32 or not output.flags.c_contiguous
          or output.context != input.context):
        raise _unsupported("output must be a float32 C-contiguous pyopencl "
                           "array of the input's shape and context")
    if input.size == 0:
        return output
    session = _session(input.queue)
    waits = [e.int_ptr for e in list(input.events) + list(output.events)]
    done = session.enqueue(input.shape, np.ascontiguousarray(mask, np.float32),
                           axes, origins, _native.BORDERS[mode], cval,
                           input.base_data.int_ptr, input.offset,
                           output.base_data.int_ptr, output.offset, waits)
    if done:
        import pyopencl as cl
        output.add_event(cl.Event.from_int_ptr(done, retain=False))
    return output
