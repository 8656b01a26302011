"""The package's libclconv, loaded with ctypes, and its errors.

ctypes calls release the GIL for the duration of each foreign call, so
device work in one thread lets other Python threads run. Every struct is
filled on the C side (src/clconv_py.c); Python passes only numbers,
strings and pointers.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import List, NamedTuple, Optional

# clconv_status, in the order of include/clconv.h.
OK, EINVAL, EUNSUPPORTED, EOPENCL, EBUILD, ENOPLATFORM, ENOKERNELS, ENOMEM, EIO = range(9)


class ClconvError(RuntimeError):
    """Base of the errors the library reports; ``status`` is its code."""

    status = -1


class UnsupportedError(ClconvError):
    """The problem does not fit the device (the reason is the message)."""


class OpenCLError(ClconvError):
    """An OpenCL call failed, a kernel did not build, or there is no
    OpenCL platform or kernel folder."""


def _library_path() -> str:
    override = os.environ.get("CLCONV_PY_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib",
                        "libclconv_py.so")


try:
    _lib = ctypes.CDLL(_library_path())
except OSError as e:
    raise ImportError(
        "clconv's library could not be loaded (%s); a source checkout's "
        "python/clconv has none: install the package (pip install ./python) "
        "or set CLCONV_PY_LIBRARY to a built libclconv_py.so" % e) from e
_c_size_p = ctypes.POINTER(ctypes.c_size_t)
_c_float_p = ctypes.POINTER(ctypes.c_float)
_lib.clconvpy_last_error.restype = ctypes.c_char_p
_lib.clconvpy_devices.argtypes = [ctypes.c_char_p, ctypes.c_size_t, _c_size_p]
_lib.clconvpy_session_open.argtypes = [ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.c_void_p)]
_lib.clconvpy_session_close.argtypes = [ctypes.c_void_p]
_lib.clconvpy_session_close.restype = None
_lib.clconvpy_session_describe.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                           ctypes.c_size_t]
_lib.clconvpy_session_from_cl.argtypes = [ctypes.c_void_p] * 3 + [
    ctypes.POINTER(ctypes.c_void_p)]
_c_int_p = ctypes.POINTER(ctypes.c_int)
_problem_args = [ctypes.c_void_p, ctypes.c_int, _c_size_p, _c_int_p, _c_int_p,
                 ctypes.c_uint, ctypes.c_size_t, ctypes.c_int, ctypes.c_double]
_lib.clconvpy_correlate_ex.argtypes = _problem_args + [ctypes.c_int] + \
    [ctypes.c_void_p] * 3
_lib.clconvpy_enqueue.argtypes = _problem_args + [
    ctypes.c_void_p,
    ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
    ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_void_p)]


# NumPy dtypes (codes without byte order) that go to the device as they
# are -> the library's clconv_elem (include/clconv.h); float32 is 0.
ELEMS = {"u1": 1, "u2": 2, "i2": 3, "f2": 4}

MAX_MASK_WIDTH = 1023  # the library's widest mask along one axis (problem.c)

# scipy.ndimage's mode -> the library's clconv_border (include/clconv.h);
# SciPy's filters treat grid-mirror, grid-wrap and grid-constant as
# reflect, wrap and constant.
BORDERS = {"constant": 0, "grid-constant": 0, "nearest": 1, "reflect": 2,
           "grid-mirror": 2, "mirror": 3, "wrap": 4, "grid-wrap": 4}


def check(status: int) -> None:
    """Raise the exception of a clconv_status, with the library's line."""
    if status == OK:
        return
    message = _lib.clconvpy_last_error().decode("utf-8", "replace")
    if status == EINVAL:
        raise ValueError(message)
    if status == EUNSUPPORTED:
        err: ClconvError = UnsupportedError(message)
    elif status == ENOMEM:
        raise MemoryError(message)
    else:
        err = OpenCLError(message)
    err.status = status
    raise err


class Device(NamedTuple):
    """One OpenCL device, as ``clconv devices`` lists it."""

    index: str  #: "P:D", the selector that picks exactly this device
    name: str
    kind: str  #: clconv_device_kind_name: "CPU", "GPU", ...
    version: str  #: CL_DEVICE_VERSION
    compute_units: int
    max_work_group_size: int
    local_mem_bytes: int
    constant_mem_bytes: int
    global_mem_bytes: int
    vendor: str
    platform: str
    driver: str


def _parse_devices(text: str) -> List[Device]:
    out = []
    for line in text.splitlines():
        f = line.split("\t")
        out.append(Device(f[0], f[1], f[2], f[3], int(f[4]), int(f[5]),
                          int(f[6]), int(f[7]), int(f[8]), f[9], f[10], f[11]))
    return out


def devices() -> List[Device]:
    """Every OpenCL device of every platform (the list of ``clconv devices``).

    Returns
    -------
    list of Device
        In platform, device order; ``Device.index`` is the "P:D" selector.

    Raises
    ------
    OpenCLError
        No OpenCL platform at all (the message says how to install PoCL).
    """
    size = 1 << 16
    while True:
        buf = ctypes.create_string_buffer(size)
        count = ctypes.c_size_t()
        st = _lib.clconvpy_devices(buf, size, ctypes.byref(count))
        if st != ENOMEM:
            break
        size *= 4
    check(st)
    return _parse_devices(buf.value.decode("utf-8", "replace"))


def problem_args(shape, mask_shape, axes, origins, batch: int,
                 border: int) -> tuple:
    """clconvpy_correlate_ex's problem arguments between the session and
    cval (dims, size, mask size, origin, axes bits, batch, border), for
    ``batch`` arrays of ``shape`` (1-3 NumPy axes), a mask of
    ``mask_shape`` over NumPy axes ``axes`` (in increasing order, one per
    mask axis), SciPy's origins per mask axis and a clconv_border. They
    hold no session and no data: a call may keep them for the next one
    (the library only reads them)."""
    dims, k = len(shape), len(mask_shape)
    bits = sum(1 << (dims - 1 - a) for a in axes)
    return (dims,
            (ctypes.c_size_t * 3)(*(list(shape[::-1]) + [1] * (3 - dims))),
            (ctypes.c_int * 3)(*(list(mask_shape[::-1]) + [1] * (3 - k))),
            (ctypes.c_int * 3)(*(list(origins[::-1]) + [0] * (3 - k))),
            bits, batch, border)


class NativeSession:
    """A libclconv session (one device); closed by close() or on collection."""

    def __init__(self, selector: Optional[str] = None, *, cl_objects=None):
        handle = ctypes.c_void_p()
        if cl_objects is not None:
            ctx, dev, queue = cl_objects
            check(_lib.clconvpy_session_from_cl(ctx, dev, queue,
                                                ctypes.byref(handle)))
        else:
            sel = None if selector is None else str(selector).encode()
            check(_lib.clconvpy_session_open(sel, ctypes.byref(handle)))
        self._handle = handle.value
        # A session (its queue and plans) serves one thread at a time.
        self.lock = threading.Lock()
        buf = ctypes.create_string_buffer(4096)
        check(_lib.clconvpy_session_describe(self._handle, buf, 4096))
        self.device = _parse_devices(buf.value.decode("utf-8", "replace"))[0]

    def close(self) -> None:
        """Release the library's session once no call of another thread
        is inside it (its lock); later calls raise "closed"."""
        lock = getattr(self, "lock", None)
        if lock is not None:
            with lock:
                handle, self._handle = self._handle, None
        else:  # __init__ failed before the lock
            handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            _lib.clconvpy_session_close(handle)

    __del__ = close

    @property
    def handle(self) -> int:
        if not self._handle:
            raise ValueError("the clconv session is closed")
        return self._handle

    @staticmethod
    def _problem(shape, mask, axes, origins, batch, border, cval):
        """clconvpy_correlate_ex's problem arguments after the session's
        handle (see problem_args), cval last. (The handle is read under
        the lock, so a close() of another thread cannot free it under the
        call.)"""
        return problem_args(shape, mask.shape, axes, origins, batch,
                            border) + (cval,)

    def correlate_ex(self, data, mask, axes, origins, border: int, cval: float,
                     batched: bool = False, out=None):
        """The library's own filter of a C-contiguous array in the host's
        byte order, float32 or one of ELEMS (uint8, uint16, int16,
        float16: uploaded as they are): ``data`` of 1-3 axes, or with
        ``batched`` a stack of such arrays along its first axis (one
        launch); a float32 ``mask`` over ``data``'s axes ``axes``
        (increasing, not counting the batch), SciPy's origins per mask
        axis, border (clconv_border), cval; into ``out`` (C-contiguous
        float32, data's shape; default a new array), returned. Blocking,
        GIL released."""
        import numpy as np
        if out is None:
            out = np.empty(data.shape, np.float32)
        shape = data.shape[1:] if batched else data.shape
        batch = data.shape[0] if batched else 1
        args = self._problem(shape, mask, axes, origins, batch, border, cval)
        elem = ELEMS.get(data.dtype.str.lstrip("<>=|"), 0)
        if elem == 0 and data.dtype != np.float32 or not data.dtype.isnative:
            raise TypeError("correlate_ex takes float32 or %s in the host's "
                            "byte order, not %s" % (", ".join(ELEMS), data.dtype))
        with self.lock:
            check(_lib.clconvpy_correlate_ex(self.handle, *args, elem,
                                             data.ctypes.data,
                                             mask.ctypes.data, out.ctypes.data))
        return out

    def correlate_prepared(self, problem: tuple, cval: float, data, mask,
                           out) -> int:
        """clconvpy_correlate_ex with problem_args made earlier: float32
        ``data`` into float32 ``out`` (both C-contiguous, of the problem's
        shape) with a C-contiguous float32 ``mask``. Returns the
        clconv_status (OK or the failure, for the caller to raise with
        check or to go another way). Blocking, GIL released."""
        with self.lock:
            return _lib.clconvpy_correlate_ex(
                self.handle, *problem, cval, 0, data.ctypes.data,
                mask.ctypes.data, out.ctypes.data)

    def enqueue(self, shape, mask, axes, origins, border: int, cval: float,
                in_mem: int, in_offset: int, out_mem: int, out_offset: int,
                wait_events=(), batch: int = 1) -> int:
        """correlate_ex on device buffers (a stack of batch arrays of
        shape), after wait_events; returns the completion event (a
        cl_event handle, 0 if none)."""
        args = self._problem(shape, mask, axes, origins, batch, border, cval)
        nwait = len(wait_events)
        wait = (ctypes.c_void_p * max(1, nwait))(*wait_events)
        done = ctypes.c_void_p()
        with self.lock:
            check(_lib.clconvpy_enqueue(self.handle, *args, mask.ctypes.data,
                                        in_mem, in_offset, out_mem, out_offset,
                                        nwait, wait, ctypes.byref(done)))
        return done.value or 0
