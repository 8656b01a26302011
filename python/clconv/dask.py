"""clconv's filters on Dask arrays (``dask.array``), chunk by chunk.

Each function extends the whole array by the filter's reach with SciPy's
border mode (so chunks at the array's edges see exactly what SciPy's
extension gives, masks wider than the data included), runs the filter on
every chunk with ``map_overlap`` (depth = the filter's reach on each axis,
no further boundary), and crops the extension: the result equals
``scipy.ndimage`` on the whole array. ``gaussian_filter`` and
``uniform_filter`` do so once per axis, one 1-D pass each, as SciPy runs
them (and ``sobel``, ``prewitt``, ``laplace``, ``gaussian_laplace`` and
``gaussian_gradient_magnitude``, whose terms are such passes) (each pass extended with its own ``cval``, its result in the output
dtype). An integer array whose dtype cannot hold ``cval`` is extended as
float64 (SciPy extends with the float value).

Devices on a ``dask.distributed`` cluster: every task runs on a device
chosen by its worker, by this rule:

1. ``device=`` when given (the same selector on every worker);
2. else ``CLCONV_DEVICE`` in the worker's environment, when set;
3. else the worker's index modulo the number of GPUs (all devices when
   there is no GPU): the worker's ``name`` when it is an integer
   (``LocalCluster`` names its workers 0, 1, ...; ``dask worker --name 3``),
   else a stable hash of its address. Outside a cluster, clconv's default
   device (the first GPU, else the first device).

The session of that device is opened once per worker process and reused
by all its tasks.
"""
from __future__ import annotations

import operator
import os
import zlib
from typing import Optional, Sequence

import numpy as np

from . import _filters
from ._dask_overlap import _dask_array, _result_dtype, _run
from ._native import devices as _devices
from ._session import DeviceArg

__all__ = ["convolve", "correlate", "gaussian_filter",
           "gaussian_gradient_magnitude", "gaussian_laplace", "laplace",
           "prewitt", "sobel", "uniform_filter", "worker_device"]


def worker_device() -> Optional[str]:
    """The selector of the device this worker uses (the module's rule);
    None outside a dask.distributed worker without ``CLCONV_DEVICE``."""
    env = os.environ.get("CLCONV_DEVICE")
    if env:
        return env
    try:
        from distributed import get_worker
        worker = get_worker()
    except (ImportError, ValueError):
        return None
    devs = _devices()
    gpus = [d for d in devs if d.kind == "GPU"] or devs
    name = worker.name
    if isinstance(name, (int, np.integer)) or (isinstance(name, str) and name.isdigit()):
        index = int(name)
    else:
        index = zlib.crc32(str(worker.address).encode())
    return gpus[index % len(gpus)].index


def _separable(x, axes, mode, cval, params, reach_of, pass_fn):
    """A separable filter as SciPy runs it: one 1-D pass per filtered axis,
    each extended by its own mode and cval and kept in the output dtype
    (so a constant mode's cval is the intermediate's, as in SciPy, and
    integers are truncated after each pass). reach_of(*per-axis params)
    gives an axis's (left, right) reach, None where the filter leaves the
    axis alone; pass_fn(block, axis, *per-axis params, dtype) filters a
    block along one axis."""
    x = _dask_array(x)
    axes_n = _filters._normalize_axes(axes, x.ndim)
    modes_n = _filters._normalize_sequence(mode, len(axes_n))
    per_axis = [_filters._normalize_sequence(p, len(axes_n)) for p in params]
    dtype = _result_dtype(x.dtype, x.dtype.kind == "c")
    y = x.astype(dtype)
    for i, a in enumerate(axes_n):
        args = tuple(p[i] for p in per_axis)
        reach = [(0, 0)] * x.ndim
        reach[a] = reach_of(*args)
        if reach[a] is None:
            continue
        modes = ["constant"] * x.ndim
        modes[a] = _filters._check_mode(modes_n[i])

        def block(b, a=a, args=args):
            return pass_fn(b, a, *args, dtype)

        y = _run(y, reach, modes, cval, block, dtype)
    return y


def _device_for(device: DeviceArg) -> DeviceArg:
    return device if device is not None else worker_device()


def _mask_reach(ndim, weights, axes, origin, convolution):
    """A function giving (left, right) per axis of the input for a mask
    spanning `axes`: SciPy's checks of the mask's shape and the origins'
    range now, of their integer types when it is called (SciPy's C code
    checks them after the mode and cval)."""
    wshape = np.shape(weights)
    axes = _filters._normalize_axes(axes, ndim)
    origins = _filters._normalize_sequence(origin, len(axes))
    # as SciPy, a 0-wide axis of the mask does not count
    if len([n for n in wshape if n > 0]) != len(axes):
        raise RuntimeError("filter weights array has incorrect shape.")
    if convolution:
        origins = [-o - (0 if n & 1 else 1) for n, o in zip(wshape, origins)]
    for n, o in zip(wshape, origins):
        if _filters._invalid_origin(o, n):
            raise ValueError("Invalid origin; origin must satisfy "
                             "-(weights.shape[k] // 2) <= origin[k] <= "
                             "(weights.shape[k]-1) // 2")

    def reach():
        out = [(0, 0)] * ndim
        for a, n, o in zip(axes, wshape, _filters._origin_types(origins)):
            c = n // 2 + o
            out[a] = (c, n - 1 - c)
        return out

    return reach


def _correlate_or_convolve(x, weights, mode, cval, origin, axes, device,
                           convolution):
    import dask.array as da
    x = _dask_array(x)
    weights = np.asarray(weights)
    reach = _mask_reach(x.ndim, weights, axes, origin, convolution)
    _filters._check_single_mode(mode)
    real_cval = (_filters._check_cval(cval)
                 if weights.dtype.kind != "c" and not np.iscomplexobj(cval)
                 else 0.0)
    reach = reach()
    if (not np.isfinite(real_cval)
            and _filters.PAD_MODES[mode] == "constant"):
        # As clconv.correlate takes a NaN or Inf cval (SciPy skips zero
        # weights), as a correlation of the flipped mask for convolve.
        w, axes, origins = _filters._mask_args(x.ndim, weights, origin, axes,
                                               convolution)
        y = _filters._non_finite_cval(
            lambda a, ww, c: _correlate_or_convolve(a, ww, mode, c, origins,
                                                    axes, device, False),
            x, da.zeros(x.shape, dtype=np.float32, chunks=x.chunks),
            _filters._scipy_taps(w), real_cval)
        return y.astype(_result_dtype(x.dtype))
    func = _filters.convolve if convolution else _filters.correlate
    dtype = _result_dtype(x.dtype, "c" in (x.dtype.kind, weights.dtype.kind))

    def block(b):
        # The borders are already in the block: constant 0 beyond them is
        # never read by the outputs map_overlap keeps.
        return func(b, weights, output=dtype, mode="constant", cval=0.0,
                    origin=origin, axes=axes, device=_device_for(device))

    return _run(x, reach, [mode] * x.ndim, cval, block, dtype)


def correlate(x, weights, mode: str = "reflect", cval: float = 0.0, origin=0,
              *, axes: Optional[Sequence[int]] = None, device: DeviceArg = None):
    """:func:`clconv.correlate` on a Dask array (lazy; call ``.compute()``).

    Parameters
    ----------
    x : dask.array.Array or array_like
        Input, chunked in any way.
    weights, mode, cval, origin, axes
        As :func:`clconv.correlate`.
    device : str, optional
        A selector for every worker; None: the module's worker rule.

    Returns
    -------
    dask.array.Array
        The result, chunked like ``x``.
    """
    return _correlate_or_convolve(x, weights, mode, cval, origin, axes,
                                  device, False)


def convolve(x, weights, mode: str = "reflect", cval: float = 0.0, origin=0,
             *, axes: Optional[Sequence[int]] = None, device: DeviceArg = None):
    """:func:`clconv.convolve` on a Dask array; parameters as
    :func:`correlate`.

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _correlate_or_convolve(x, weights, mode, cval, origin, axes,
                                  device, True)


def gaussian_filter(x, sigma, order=0, mode="reflect", cval: float = 0.0,
                    truncate: float = 4.0, *, radius=None,
                    axes: Optional[Sequence[int]] = None,
                    device: DeviceArg = None):
    """:func:`clconv.gaussian_filter` on a Dask array: the overlap on each
    axis is the Gaussian's radius there.

    Returns
    -------
    dask.array.Array
        The result.
    """
    def reach(s, o, r):
        if s <= 1e-15:
            return None
        # SciPy's checks of sigma, order and radius (its errors, raised
        # here rather than as a chunking error of dask's)
        lw = len(_filters._gaussian_weights(s, o, truncate, r)) // 2
        return (lw, lw)

    def one_pass(b, axis, s, o, r, dtype):
        return _filters.gaussian_filter1d(b, s, axis=axis, order=o,
                                          output=dtype, mode="constant",
                                          truncate=truncate, radius=r,
                                          device=_device_for(device))

    return _separable(x, axes, mode, cval, (sigma, order, radius), reach,
                      one_pass)


def uniform_filter(x, size=3, mode="reflect", cval: float = 0.0, origin=0, *,
                   axes: Optional[Sequence[int]] = None, device: DeviceArg = None):
    """:func:`clconv.uniform_filter` on a Dask array.

    Returns
    -------
    dask.array.Array
        The result.
    """
    def reach(size_a, o, m):
        n = _filters._uniform_taps(size_a, o)  # SciPy's checks, its taps
        if n <= 1:
            return None
        # then, as SciPy, the mode and the origin's type (TypeError for
        # 1.5 where its range allows it)
        _filters._check_mode(m)
        o = operator.index(o)
        return (n // 2 + o, n - 1 - (n // 2 + o))

    def one_pass(b, axis, n, o, m, dtype):
        # uniform_filter1d's pass as a correlation: a chunk cannot follow
        # SciPy's running sum of the whole line past a NaN or an infinity
        # (_filters._running_sum), and this keeps the result the same for
        # every chunking.
        n = int(n)
        return _filters.correlate1d(b, np.full(n, 1.0 / n), axis=axis,
                                    output=dtype, mode="constant", origin=o,
                                    device=_device_for(device))

    return _separable(x, axes, mode, cval, (size, origin, mode), reach,
                      one_pass)


def _derivative_dtype(x) -> np.dtype:
    """The result dtype of a derivative filter of x, with SciPy's errors
    for the dtypes it refuses (its output array is made first)."""
    dtype = np.zeros(0, dtype=x.dtype.name).dtype  # TypeError: strings
    _filters._check_input(np.zeros(0, dtype))  # RuntimeError: objects
    return dtype


def _passes_3(x, passes, cval, device, dtype):
    """3-tap 1-D passes (axis, weights, mode) one after the other, each
    extended by its own mode and cval and kept in dtype (the result's,
    _derivative_dtype), as SciPy's sobel and prewitt run them over their
    output."""
    y = x.astype(dtype)
    for a, w, m in passes:
        reach = [(0, 0)] * x.ndim
        reach[a] = (1, 1)
        modes = ["constant"] * x.ndim
        modes[a] = m

        def block(b, a=a, w=w):
            return _filters.correlate1d(b, w, axis=a, output=dtype,
                                        mode="constant",
                                        device=_device_for(device))

        y = _run(y, reach, modes, cval, block, dtype)
    return y


def _difference_then_smooth(x, smooth, axis, mode, cval, device):
    x = _dask_array(x)
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise _filters.AxisError(axis, x.ndim)
    axis %= x.ndim
    dtype = _derivative_dtype(x)  # after the axis, as SciPy's output
    modes = [_filters._check_mode(m)
             for m in _filters._normalize_sequence(mode, x.ndim)]
    passes = [(axis, [-1, 0, 1], modes[axis])]
    passes += [(a, smooth, modes[a]) for a in range(x.ndim) if a != axis]
    return _passes_3(x, passes, cval, device, dtype)


def sobel(x, axis: int = -1, mode="reflect", cval: float = 0.0, *,
          device: DeviceArg = None):
    """:func:`clconv.sobel` on a Dask array (each pass over the chunks with
    its own overlap, as SciPy extends each pass's input).

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _difference_then_smooth(x, [1, 2, 1], axis, mode, cval, device)


def prewitt(x, axis: int = -1, mode="reflect", cval: float = 0.0, *,
            device: DeviceArg = None):
    """:func:`clconv.prewitt` on a Dask array.

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _difference_then_smooth(x, [1, 1, 1], axis, mode, cval, device)


def _sum_over_axes(x, derivative, mode, square):
    """SciPy's generic_laplace (square False) and
    generic_gradient_magnitude (square True) on a Dask array: one
    derivative(x, axis, mode, dtype) per axis, summed in the result dtype."""
    x = _dask_array(x)
    dtype = _derivative_dtype(x)
    if x.ndim == 0:
        return x.astype(dtype)
    modes = _filters._normalize_sequence(mode, x.ndim)
    y = None
    for a in range(x.ndim):
        t = derivative(x, a, modes[a], dtype)
        if square:
            t = t * t
        y = t if y is None else y + t
    if not square:
        return y
    import dask.array as da
    # NumPy's square root for y's dtype (float16 for 8-bit integers), cast
    # back, as SciPy's in-place sqrt with casting="unsafe"
    return da.sqrt(y).astype(dtype)


def laplace(x, mode="reflect", cval: float = 0.0, *, device: DeviceArg = None):
    """:func:`clconv.laplace` on a Dask array.

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _sum_over_axes(
        x, lambda b, a, m, dtype: _passes_3(
            b, [(a, [1, -2, 1], _filters._check_mode(m))], cval, device, dtype),
        mode, False)


def _gaussian_term(order, sigma, cval, kwargs):
    def term(x, a, m, dtype):  # gaussian_filter keeps x's own result dtype
        orders = [0] * x.ndim
        orders[a] = order
        return gaussian_filter(x, sigma, orders, m, cval, **kwargs)
    return term


def gaussian_laplace(x, sigma, mode="reflect", cval: float = 0.0, **kwargs):
    """:func:`clconv.gaussian_laplace` on a Dask array; ``kwargs`` as
    :func:`gaussian_filter` takes them (``truncate``, ``radius``,
    ``device``).

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _sum_over_axes(x, _gaussian_term(2, sigma, cval, kwargs), mode,
                          False)


def gaussian_gradient_magnitude(x, sigma, mode="reflect", cval: float = 0.0,
                                **kwargs):
    """:func:`clconv.gaussian_gradient_magnitude` on a Dask array.

    Returns
    -------
    dask.array.Array
        The result.
    """
    return _sum_over_axes(x, _gaussian_term(1, sigma, cval, kwargs), mode,
                          True)
