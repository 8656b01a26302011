"""The fast path of correlate and convolve: the common call straight to
the library, with its problem arguments made once per problem.

The common call: a NumPy float32 array (native byte order, C-contiguous,
aligned, 1-3 dimensions, not empty), a float32 or float64 mask with one
axis per axis of the array, every one wider than 1, ``axes=None``, one
border mode, a finite cval, and ``output`` None or a writeable float32
C-contiguous array of the input's shape apart from the input's memory.
That is exactly where the general path (_filters.py) merges nothing,
drops no mask axis, keeps the mask's axis order and hands the library
the input and the output as they are; the fast path passes the same
arguments (the mask converted to float32 the same way), so the results
are bit-identical. Anything else, and anything the library refuses, goes
the general path, which gives its result or its error.

Why it pays: after a call at 1920x1080 the host's caches hold the 16 MB
the device streamed, and the general path's argument handling, about 20
us when warm, took about 0.1 ms of a 0.7 ms call (bench/PERF.md, item
32). The fast path touches a few objects and one cached tuple.
"""
from __future__ import annotations

import math
from typing import Dict, Optional

import numpy as np

from . import _native
from ._checks import _DBL_EPSILON, _mask_args
from ._session import resolve

_F32 = np.dtype(np.float32)
_MASK_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_REFUSED = (_native.EINVAL, _native.EUNSUPPORTED)
MAX_PROBLEMS = 64  #: problems kept; one more empties the cache

# (shape, mask shape, mode, origin, convolution) -> problem_args. They
# hold neither a session nor data, so one entry serves every device.
_problems: Dict[tuple, tuple] = {}


def _origin_key(origin):
    """origin as part of a cache key: an int or a tuple of ints; None for
    anything else (the general path takes those)."""
    if type(origin) is int:
        return origin
    if type(origin) in (tuple, list) and all(type(o) is int for o in origin):
        return tuple(origin)
    return None


def _takes_input(x) -> bool:
    """Whether x is an array the library reads as it is."""
    return (type(x) is np.ndarray and x.dtype == _F32 and 1 <= x.ndim <= 3
            and x.flags.c_contiguous and x.flags.aligned and x.size > 0)


def _takes_mask(w, ndim: int) -> bool:
    """Whether w is a real mask over every axis, each wider than 1."""
    return (type(w) is np.ndarray and w.dtype in _MASK_DTYPES
            and w.ndim == ndim and min(w.shape) > 1)


def _takes_output(out, x: np.ndarray) -> bool:
    """Whether the library can write the result straight into out."""
    return out is None or (
        type(out) is np.ndarray and out.dtype == _F32
        and out.shape == x.shape and out.flags.c_contiguous
        and out.flags.aligned and out.flags.writeable
        and not np.may_share_memory(out, x))


def _problem(x: np.ndarray, w: np.ndarray, mode: str, origin, okey,
             convolution: bool) -> tuple:
    """The library's problem arguments for this call, from the cache or
    made and kept (SciPy's origin checks and errors on the first call)."""
    key = (x.shape, w.shape, mode, okey, convolution)
    problem = _problems.get(key)
    if problem is None:
        _, axes, origins = _mask_args(x.ndim, w, origin, None, convolution)
        problem = _native.problem_args(x.shape, w.shape, axes, origins, 1,
                                       _native.BORDERS[mode])
        if len(_problems) >= MAX_PROBLEMS:
            _problems.clear()
        _problems[key] = problem
    return problem


def _not_all_taps(w: np.ndarray) -> bool:
    """Whether some weight is NaN or nonzero within DBL_EPSILON of 0:
    weights SciPy's correlate drops (_checks._scipy_taps), which the
    general path then drops too."""
    a = np.abs(w)  # NaN counts as nonzero, and is not > DBL_EPSILON
    return np.count_nonzero(a) != np.count_nonzero(a > _DBL_EPSILON)


def _float32_mask(w: np.ndarray, convolution: bool) -> np.ndarray:
    """The mask as the library reads it: C-contiguous float32, flipped on
    every axis for a convolution (the general path's values: float32 and
    float64 convert to float32 alike through float64)."""
    if convolution:
        w = w[(slice(None, None, -1),) * w.ndim]
    if w.dtype == _F32 and w.flags.c_contiguous:
        return w
    return np.ascontiguousarray(w, dtype=_F32)


def correlate(input, weights, output, mode, cval, origin, axes, device,
              convolution: bool) -> Optional[np.ndarray]:
    """The result of the common call (correlate's or convolve's arguments),
    or None when this call is not one or the library refuses it: the
    general path then runs it."""
    if axes is not None or not _takes_input(input):
        return None
    if not _takes_mask(weights, input.ndim) or not _takes_output(output, input):
        return None
    okey = _origin_key(origin)
    if (okey is None or type(mode) is not str or mode not in _native.BORDERS
            or not isinstance(cval, (float, int))):
        return None
    if _not_all_taps(weights):
        return None  # SciPy drops NaN and tiny weights: the general path
    problem = _problem(input, weights, mode, origin, okey, convolution)
    cval = float(cval)
    if _native.BORDERS[mode] != 0:
        cval = 0.0  # read by the constant mode only
    elif not math.isfinite(cval):
        return None  # the general path pads on the host
    session = resolve(device)
    mask = _float32_mask(weights, convolution)
    out = np.empty(input.shape, _F32) if output is None else output
    status = session.native.correlate_prepared(problem, cval, input, mask,
                                               out)
    if status in _REFUSED:
        return None  # the general path meets the same refusal and pads
    _native.check(status)
    return out
