"""scipy.ndimage's correlate, convolve, gaussian and uniform filters on
clconv's devices.

Every call reduces to the library's filter (clconv_problem's mask_size,
origin, border and cval): a float32 correlation of a dense array of 1 to
3 dimensions with a mask of any shape, SciPy's origins and border modes.
What SciPy's filters add is done around it on the host:

- axes and batches: runs of adjacent axes the mask does not span are
  merged (a reshape); a leading one is the library's batch
  (clconv_problem_stack) and the others are axes the mask leaves out
  (clconv_problem_on_axes: width 1 along them), so one launch covers the
  batch; where more than 3 axes remain, the mask's axes are moved last
  and the others folded into the batch, and a batch beside a 3-axis mask
  is one call per item on its slice of one array;
- mask axes of width 1 are dropped, so a (1, 5) mask is a 1D problem;
- a mask spanning more than 3 axes of width > 1 (SciPy takes any rank):
  the input padded on the host by each axis's mode, then one 3-axis
  correlation on the device per tap of the mask's leading axes, summed
  (_run_padded: as many launches as those taps);
- convolution: the mask flipped and the origin mirrored, as SciPy does;
- dtypes: uint8, uint16, int16 and float16 input goes to the device as
  it is (made C-contiguous in the host's byte order: 4x or 2x fewer bytes
  than float32), any other real input is converted to float32 (byte
  order and layout included); the device returns float32, cast to the
  output dtype as SciPy does (float to integer truncates); complex input
  or weights go through their real and imaginary parts, as in SciPy.

The input is padded on the host (NumPy's equivalent of the mode, then
the library's zero-border correlation with the mask and origins as they
are, the result cropped) only for a non-finite
cval in the constant mode (the library takes finite values) and for what
the library refuses.

The common call (float32 C-contiguous input, a mask over every axis, no
axes) goes straight to the library with its problem arguments kept from
an earlier call of the same problem (_fast.py); the same arguments as
here, so the same result.

pyopencl arrays stay on their device (see _pyopencl.py).
"""
from __future__ import annotations

import itertools
import numbers
import operator
import os
from typing import Optional, Sequence, Union

import numpy as np

from . import _fast, _native, _pyopencl
from ._checks import (PAD_MODES, AxisError, _check_cval, _check_input,
                      _check_mode, _check_real_output, _check_single_mode,
                      _get_output, _invalid_origin, _mask_args,
                      _normalize_axes, _normalize_sequence, _origin_types,
                      _output_writeable, _pass_arguments, _scipy_taps)
from ._session import DeviceArg, resolve

MAX_MASK_AXES = 3
MAX_MASK_WIDTH = _native.MAX_MASK_WIDTH

ArrayLike = Union[np.ndarray, Sequence, float]


# ---- the engine -----------------------------------------------------------

def _extension_index(n: int, left: int, right: int, mode: str) -> np.ndarray:
    """Indices into an axis of length n giving SciPy's extension of it by
    left and right elements (any widths, repeating as SciPy does)."""
    i = np.arange(-left, n + right)
    pad = PAD_MODES[mode]
    if pad == "wrap":
        return i % n
    if pad == "edge":
        return np.clip(i, 0, n - 1)
    if pad == "symmetric":  # SciPy's reflect: d c b a | a b c d | d c b a
        j = i % (2 * n)
        return np.where(j < n, j, 2 * n - 1 - j)
    if n == 1:  # SciPy's mirror of one element repeats it
        return np.zeros_like(i)
    j = i % (2 * n - 2)  # mirror: d c b | a b c d | c b a
    return np.where(j < n, j, 2 * n - 2 - j)


def _pad(x: np.ndarray, pads, modes, cval: float) -> np.ndarray:
    """Extend the trailing len(pads) axes of x by (left, right) elements,
    each axis with its mode."""
    lead = x.ndim - len(pads)
    if all(PAD_MODES[m] == "constant" for m in modes):
        return np.pad(x, [(0, 0)] * lead + list(pads), mode="constant",
                      constant_values=cval)
    for i, ((left, right), m) in enumerate(zip(pads, modes)):
        if left == right == 0:
            continue
        axis = lead + i
        n = x.shape[axis]
        if PAD_MODES[m] == "constant":
            width = [(0, 0)] * x.ndim
            width[axis] = (left, right)
            x = np.pad(x, width, mode="constant", constant_values=cval)
        elif max(left, right) < n:
            # numpy.pad is SciPy's extension when it reaches less than a
            # period, and copies slices instead of gathering.
            width = [(0, 0)] * x.ndim
            width[axis] = (left, right)
            x = np.pad(x, width, mode=PAD_MODES[m])
        else:
            x = np.take(x, _extension_index(n, left, right, m), axis=axis)
    return x


def _merge_axes(shape, waxes):
    """Runs of adjacent axes the mask does not span merged into one (a
    reshape: their lines never see each other): the merged shape and the
    positions of the mask's axes in it."""
    out, at = [], []
    for a, n in enumerate(shape):
        if a in waxes:
            at.append(len(out))
            out.append(int(n))
        elif out and len(out) - 1 not in at and a - 1 not in waxes:
            out[-1] *= int(n)
        else:
            out.append(int(n))
    return out, at


def _sorted_mask(w: np.ndarray, waxes, origins):
    """The mask with its axes in the array's order, and their origins."""
    order = np.argsort(waxes)
    return (np.ascontiguousarray(np.transpose(w, order), dtype=np.float32),
            [int(origins[i]) for i in order])


def _run_library(session, x: np.ndarray, w: np.ndarray, waxes, mode: str,
                 cval: float, origins, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The library's own filter (mask shape, axes, origins, border mode,
    cval, batch): no padding on the host. Adjacent axes the mask does not
    span merge; a leading one is the library's batch (stacked, one
    launch), the others it filters along with mask width 1. Where more
    than 3 axes remain, the mask's axes are moved last and the others
    folded into the batch. A batch beside a 3-axis mask is one call per
    item, each on its slice of one array. ``out``, where it is a float32
    C-contiguous array of x's shape apart from x's memory, receives the
    result directly (no array of our own, no copy)."""
    border = _native.BORDERS[mode]
    if PAD_MODES[mode] != "constant":
        cval = 0.0  # read by the constant mode only
    mask, morigins = _sorted_mask(w, waxes, origins)
    shape, at = _merge_axes(x.shape, waxes)
    perm = None
    if len(shape) - (0 not in at) > MAX_MASK_AXES:
        rest = [a for a in range(x.ndim) if a not in waxes]
        perm = rest + sorted(waxes)
        x = np.transpose(x, perm)
        batch = int(np.prod(x.shape[:len(rest)], dtype=np.int64))
        shape, at = [batch] + list(x.shape[len(rest):]), list(range(1, len(waxes) + 1))
    batch = 1 if 0 in at else shape[0]
    if 0 not in at:
        shape, at = shape[1:], [a - 1 for a in at]
    data = _device_array(x).reshape([batch] + shape)
    if (out is not None and perm is None and out.dtype == np.float32
            and out.flags.c_contiguous and out.shape == x.shape
            and not np.may_share_memory(out, x)):
        y = out.reshape(data.shape)
    else:
        y = np.empty(data.shape, np.float32)
    if len(shape) == MAX_MASK_AXES and batch > 1:
        for b in range(batch):
            session.native.correlate_ex(data[b], mask, at, morigins, border,
                                        cval, out=y[b])
    else:
        session.native.correlate_ex(data, mask, at, morigins, border, cval,
                                    batched=True, out=y)
    y = y.reshape(x.shape)
    return y if perm is None else np.transpose(y, np.argsort(perm))


def _device_array(x: np.ndarray) -> np.ndarray:
    """x as the device reads it: uint8, uint16, int16 and float16 as they
    are (1 or 2 bytes per element; the kernels convert on load, exactly),
    C-contiguous in the host's byte order; anything else as float32.
    ``CLCONV_PY_UPLOAD=f32`` converts every type to float32 on the host
    (the earlier behaviour, kept to measure against)."""
    code = x.dtype.str[1:]
    if code in _native.ELEMS and os.environ.get("CLCONV_PY_UPLOAD") != "f32":
        return np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("="))
    return np.ascontiguousarray(x, dtype=np.float32)


def run_real(session, x: np.ndarray, weights: np.ndarray, waxes: Sequence[int],
             modes: Sequence[str], cval: float, origins: Sequence[int],
             out: Optional[np.ndarray] = None) -> np.ndarray:
    """Correlate a real array with real weights spanning axes ``waxes`` of x
    (SciPy's meaning of modes and origins); returns float32 of x's shape,
    which may be ``out`` itself (_run_library's condition)."""
    x = np.asarray(x)
    w = np.asarray(weights, dtype=np.float64)
    keep = [i for i in range(w.ndim) if w.shape[i] > 1]
    w = w.reshape([w.shape[i] for i in keep])
    waxes = [waxes[i] for i in keep]
    modes = [modes[i] for i in keep]
    origins = [int(origins[i]) for i in keep]
    k = len(keep)
    if x.size == 0:
        return np.zeros(x.shape, np.float32)
    if k == 0:  # an array, 0-d included (not a NumPy scalar)
        y = np.array(x, dtype=np.float32)
        y *= np.float32(w.reshape(()))
        return y
    # The library runs masks over at most MAX_MASK_AXES axes, one mode and
    # a finite cval (or another mode than constant); the host path the rest.
    if k <= MAX_MASK_AXES and len(set(modes)) == 1 and (
            np.isfinite(cval) or PAD_MODES[modes[0]] != "constant"):
        try:
            return _run_library(session, x, w, waxes, modes[0], cval, origins,
                                out)
        except (_native.UnsupportedError, ValueError):
            pass  # what the library refuses: the host path below
    return _run_padded(session, np.asarray(x, dtype=np.float32), w, waxes,
                       modes, cval, origins)


def _run_padded(session, x: np.ndarray, w: np.ndarray, waxes, modes, cval,
                origins) -> np.ndarray:
    """The host path, for per-axis modes, a non-finite cval, whatever the
    library refuses and masks spanning more than MAX_MASK_AXES axes (SciPy
    takes any): the input extended by the mask's reach with each axis's
    mode (the batch stacked along the first axis: each member's outputs
    reach only its own extension), a zero-border correlation with the mask
    and origins as they are, the result cropped. (No tap reads beyond the
    mask: a mask padded with zeros would turn a NaN cval's cells it
    reaches into NaN, as 0 * NaN is.) Beyond 3 axes, one 3-axis
    correlation per tap of the mask's leading axes, on the slice of the
    extension that tap reads, the results summed in float64; a sub-mask of
    zeros is skipped, as SciPy skips zero weights."""
    k = len(waxes)
    lead = max(0, k - MAX_MASK_AXES)
    rest = [a for a in range(x.ndim) if a not in waxes]
    perm = rest + list(waxes)
    xt = np.transpose(x, perm)
    bshape, dshape = xt.shape[:len(rest)], xt.shape[len(rest):]
    batch = int(np.prod(bshape, dtype=np.int64))
    centre = [w.shape[i] // 2 + origins[i] for i in range(k)]
    pads = [(centre[i], w.shape[i] - 1 - centre[i]) for i in range(k)]
    xp = _pad(xt.reshape((batch,) + dshape), pads, modes, cval)
    crop = (slice(None),) + tuple(slice(c, c + n) for c, n in
                                  zip(centre[lead:], dshape[lead:]))
    # Axes wider than the library's masks: pieces of MAX_MASK_WIDTH taps,
    # each a correlation (origin 0) of the slice of the extension it
    # reads, summed in float64 as the leading axes' taps are.
    pieces = list(itertools.product(*[range(0, n, MAX_MASK_WIDTH)
                                      for n in w.shape[lead:]]))
    y = None
    for t in np.ndindex(*w.shape[:lead]):
        if lead and not w[t].any():
            continue
        taps = (slice(None),) + tuple(slice(t[i], t[i] + dshape[i])
                                      for i in range(lead))
        for p in pieces:
            if len(pieces) == 1:  # the whole mask, with its origins
                sub = np.ascontiguousarray(w[t], dtype=np.float32)
                dev = np.ascontiguousarray(xp[taps])
                origin, at = list(origins[lead:]), crop
            else:
                sub = np.ascontiguousarray(w[t][tuple(
                    slice(a, a + MAX_MASK_WIDTH) for a in p)], dtype=np.float32)
                dev = np.ascontiguousarray(xp[taps + tuple(
                    slice(a, a + n + m - 1)
                    for a, n, m in zip(p, dshape[lead:], sub.shape))])
                origin = [0] * (k - lead)
                at = (slice(None),) + tuple(
                    slice(m // 2, m // 2 + n)
                    for m, n in zip(sub.shape, dshape[lead:]))
            ext = dev.shape[1 + lead:]
            part = session.native.correlate_ex(
                dev.reshape((-1,) + ext[1:]), sub, list(range(k - lead)),
                origin, 0, 0.0).reshape((-1,) + ext)[at]
            if not lead and len(pieces) == 1:
                y = part
            else:
                y = part.astype(np.float64) if y is None else y + part
    if y is None:  # every sub-mask zero
        y = np.zeros(xt.shape, np.float32)
    y = np.asarray(y, np.float32).reshape(xt.shape)
    return np.transpose(y, np.argsort(perm))


def _to_bool_bytes(y: np.ndarray) -> np.ndarray:
    """A float result as SciPy stores it in a bool output: its C cast to
    npy_bool (unsigned char) truncates, so 0.5 is False and 1.5 True
    (NumPy's float-to-bool cast would make every nonzero value True)."""
    return y.astype(np.uint8) if y.dtype.kind == "f" else y


def _store(output: Optional[np.ndarray], y: np.ndarray,
           input: np.ndarray) -> np.ndarray:
    """The result in the output array, or (output None) in the input's
    native dtype as SciPy returns it."""
    if (input.dtype if output is None else output.dtype).kind == "b":
        y = _to_bool_bytes(y)
    if output is None:
        return np.asarray(y, dtype=np.dtype(input.dtype.name), order="C")
    if (y.shape == output.shape and y.strides == output.strides
            and y.ctypes.data == output.ctypes.data):
        return output  # computed in place (run_real's out)
    np.copyto(output, y, casting="unsafe")
    return output


def _complex_parts(func, input, weights, output, cval, **kw):
    """SciPy's _complex_via_real_components: a complex correlation as a
    sum of real ones."""
    ci, cw = input.dtype.kind == "c", weights.dtype.kind == "c"
    # Into the output's real and imaginary views, as SciPy: each call
    # checks them (read-only) in SciPy's order
    if ci and cw:
        func(input.real, weights.real, output.real, cval=np.real(cval), **kw)
        output.real -= func(input.imag, weights.imag, None, cval=np.imag(cval), **kw)
        func(input.real, weights.imag, output.imag, cval=np.real(cval), **kw)
        output.imag += func(input.imag, weights.real, None, cval=np.imag(cval), **kw)
    elif ci:
        func(input.real, weights, output.real, cval=np.real(cval), **kw)
        func(input.imag, weights, output.imag, cval=np.imag(cval), **kw)
    else:
        if np.iscomplexobj(cval):
            raise ValueError("Cannot provide a complex-valued cval when the "
                             "input is real.")
        # Into the float views, as SciPy: a result in the input's own
        # (integer) dtype would be rounded and wrapped.
        func(input, weights.real, output.real, cval=cval, **kw)
        func(input, weights.imag, output.imag, cval=cval, **kw)
    return output


# ---- the public functions -------------------------------------------------

def _correlate_or_convolve(input, weights, output, mode, cval, origin, axes,
                           device, convolution):
    y = _fast.correlate(input, weights, output, mode, cval, origin, axes,
                        device, convolution)
    if y is not None:
        return y
    if _pyopencl.is_cl_array(input):
        weights = np.asarray(weights)
        complex_weights = weights.dtype.kind == "c"
        w, axes, origins = _mask_args(
            input.ndim, weights.real if complex_weights else weights, origin,
            axes, convolution, types=False)
        w = _scipy_taps(w)
        mode = _check_single_mode(mode)
        cval = _check_cval(cval)
        if complex_weights:  # SciPy's result is complex: the host's
            raise _pyopencl.unsupported("the weights are complex")
        mask, origins = _sorted_mask(w, axes, _origin_types(origins))
        return _pyopencl.correlate(input, mask, output, mode, cval,
                                   sorted(axes), origins)
    input = _check_input(input)
    weights = np.asarray(weights)
    if weights.dtype.kind == "O":
        weights = weights.astype(np.float64)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        if weights.dtype.kind == "c" and not convolution:
            weights = weights.conj()
        output = _get_output(output, input, complex_output=True)
        return _complex_parts(
            lambda i, w, o, cval: _correlate_or_convolve(
                i, w, o, mode, cval, origin, axes, device, convolution),
            input, weights, output, cval)
    weights, axes, origins = _mask_args(input.ndim, weights, origin, axes,
                                        convolution, types=False)
    output = _get_output(output, input, lazy=True)
    mode = _check_single_mode(mode)
    _output_writeable(output)  # SciPy's order of checks
    cval = _check_cval(cval)
    origins = _origin_types(origins)
    if input.size:  # SciPy's n-D filter looks at the types per element
        _check_real_output(output)
    weights = _scipy_taps(weights)
    session = resolve(device)
    if not np.isfinite(cval) and PAD_MODES[mode] == "constant":
        y = _non_finite_cval(
            lambda a, w, c: run_real(session, a, w, axes,
                                     [mode] * len(axes), c, origins),
            input, np.zeros(input.shape, np.float32), weights, cval)
        return _store(output, y, input)
    y = run_real(session, input, weights, axes, [mode] * len(axes), cval, origins,
                 out=output)
    return _store(output, y, input)


def _non_finite_cval(corr, x, zeros, weights: np.ndarray, cval: float):
    """The correlation of x with a NaN or Inf cval in the constant mode,
    as SciPy sums it: w * cval for each nonzero tap outside the array only
    (a zero weight's 0 * NaN is never taken). corr(array, weights, cval)
    correlates (NumPy or Dask arrays); zeros: an array of x's shape. x
    with cval 0, then where positive and negative weights reach out
    (zeros with cval 1): there NaN for a NaN cval; for +-Inf, cval times
    the sign of the weights that reach out, NaN where both signs do."""
    y = corr(x, weights, 0.0)
    y = y.astype(np.promote_types(y.dtype, np.float32))
    pos, neg = (corr(zeros, (sign * weights > 0).astype(np.float64), 1.0)
                > 0.5 for sign in (1, -1))
    nan = np.float32(np.nan)
    if np.isnan(cval):
        return np.where(pos | neg, nan, y)
    inf = np.float32(np.inf if cval > 0 else -np.inf)
    return np.where(pos & neg, nan,
                    np.where(pos, y + inf, np.where(neg, y - inf, y)))


def correlate(input: ArrayLike, weights: ArrayLike, output=None,
              mode: str = "reflect", cval: float = 0.0, origin=0, *,
              axes: Optional[Sequence[int]] = None,
              device: DeviceArg = None) -> np.ndarray:
    """Multidimensional correlation, as ``scipy.ndimage.correlate``.

    Parameters
    ----------
    input : array_like
        Any real or complex NumPy numeric array (any layout or byte order).
    weights : array_like
        The mask, with one axis per axis of ``axes`` (default: per axis of
        ``input``); at most 3 of its axes may be wider than 1.
    output : ndarray or dtype, optional
        Where to put the result, or its dtype (default: input's dtype).
    mode : {'reflect', 'constant', 'nearest', 'mirror', 'wrap'}, optional
        How the input is extended beyond its borders (SciPy's meaning;
        'grid-mirror', 'grid-constant' and 'grid-wrap' are accepted as
        SciPy's filters treat them). Default 'reflect'.
    cval : float, optional
        The value outside the input for mode 'constant'. Default 0.
    origin : int or sequence of int, optional
        Shift of the mask per axis, ``-(w // 2) <= origin <= (w - 1) // 2``.
    axes : sequence of int, optional
        The axes the mask spans (the others are filtered independently):
        the mask's axis i and ``origin[i]`` along ``axes[i]``, in the
        order given. (SciPy 1.15 takes the mask's axes in increasing
        order of ``axes`` whatever their order, and its origins as given:
        ``axes=(1, 0)`` differs; scipy/scipy#22576.)
    device : str or Session, optional
        A device selector ("P:D", "cpu", "gpu", a name substring) or a
        :class:`Session`; None: ``CLCONV_DEVICE`` or the first GPU, else the
        first device. Ignored for a ``pyopencl.array.Array`` input, which
        runs on its own queue and returns a pyopencl array of its context
        (float32, C-contiguous, every mode with a finite cval, a real
        mask up to 1023 taps along an axis, any origin, more than 3 dimensions where the mask spans at
        most 3 axes; an output over the input and others raise
        UnsupportedError).

    Returns
    -------
    ndarray
        The result (``output`` when an array was given).

    Raises
    ------
    RuntimeError, ValueError, TypeError
        Bad arguments, with SciPy's types and messages.
    clconv.UnsupportedError
        The problem does not fit the device.
    clconv.OpenCLError
        The device failed.

    Notes
    -----
    The device computes in float32: results agree with SciPy's float64
    computation to about ``1e-6 * sum(|weights| * |input|)``.
    """
    return _correlate_or_convolve(input, weights, output, mode, cval, origin,
                                  axes, device, False)


def convolve(input: ArrayLike, weights: ArrayLike, output=None,
             mode: str = "reflect", cval: float = 0.0, origin=0, *,
             axes: Optional[Sequence[int]] = None,
             device: DeviceArg = None) -> np.ndarray:
    """Multidimensional convolution, as ``scipy.ndimage.convolve``: the
    correlation with the mask flipped on every axis and the origin mirrored
    (even widths shift by one more, as in SciPy). Parameters as
    :func:`correlate`.

    Returns
    -------
    ndarray
        The result (``output`` when an array was given).
    """
    return _correlate_or_convolve(input, weights, output, mode, cval, origin,
                                  axes, device, True)


def correlate1d(input: ArrayLike, weights: ArrayLike, axis: int = -1,
                output=None, mode: str = "reflect", cval: float = 0.0,
                origin: int = 0, *, device: DeviceArg = None) -> np.ndarray:
    """1-D correlation along ``axis``, as ``scipy.ndimage.correlate1d``.

    Parameters
    ----------
    input : array_like
        Input array.
    weights : array_like
        1-D mask.
    axis : int, optional
        The axis to filter along. Default -1.
    output, mode, cval, device
        As :func:`correlate`.
    origin : int, optional
        ``-(len(weights) // 2) <= origin <= (len(weights) - 1) // 2``.

    Returns
    -------
    ndarray
        The result.
    """
    input = _check_input(input)
    weights = np.asarray(weights)
    if input.dtype.kind == "c" or weights.dtype.kind == "c":
        if weights.dtype.kind == "c":
            weights = weights.conj()
        output = _get_output(output, input, complex_output=True)
        return _complex_parts(
            lambda i, w, o, cval: correlate1d(i, w, axis, o, mode, cval,
                                              origin, device=device),
            input, weights, output, cval)
    output = _get_output(output, input, lazy=True)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] < 1:
        raise RuntimeError("no filter weights given")
    axis = operator.index(axis)  # SciPy: TypeError for 1.0
    if not -input.ndim <= axis < input.ndim:
        raise AxisError(axis, input.ndim)
    axis %= input.ndim
    if _invalid_origin(origin, len(weights)):  # the range first, as SciPy
        raise ValueError("Invalid origin; origin must satisfy "
                         "-(len(weights) // 2) <= origin <= "
                         "(len(weights)-1) // 2")
    mode = _check_mode(mode)
    cval, origin = _pass_arguments(output, cval, origin)
    y = run_real(resolve(device), input, weights, [axis], [mode], cval, [origin])
    return _store(output, y, input)


def convolve1d(input: ArrayLike, weights: ArrayLike, axis: int = -1,
               output=None, mode: str = "reflect", cval: float = 0.0,
               origin: int = 0, *, device: DeviceArg = None) -> np.ndarray:
    """1-D convolution along ``axis``, as ``scipy.ndimage.convolve1d``.
    Parameters as :func:`correlate1d`.

    Returns
    -------
    ndarray
        The result.
    """
    weights = np.asarray(weights[::-1])  # as SciPy: TypeError for 2.0
    origin = -origin
    if not len(weights) & 1:
        origin -= 1
    if weights.dtype.kind == "c":
        # correlate1d conjugates complex weights; convolution does not.
        weights = weights.conj()
    return correlate1d(input, weights, axis, output, mode, cval, origin,
                       device=device)


def _gaussian_kernel1d(sigma: float, order: int, radius: int) -> np.ndarray:
    """SciPy's 1-D Gaussian kernel (derivatives of order ``order``)."""
    if order < 0:
        raise ValueError("order must be non-negative")
    exponent_range = np.arange(order + 1)
    sigma2 = sigma * sigma
    x = np.arange(-radius, radius + 1)
    phi_x = np.exp(-0.5 / sigma2 * x ** 2)
    phi_x = phi_x / phi_x.sum()
    if order == 0:
        return phi_x
    q = np.zeros(order + 1)
    q[0] = 1
    D = np.diag(exponent_range[1:], 1)
    P = np.diag(np.ones(order) / -sigma2, -1)
    Q_deriv = D + P
    for _ in range(order):
        q = Q_deriv.dot(q)
    q = (x[:, None] ** exponent_range).dot(q)
    return q * phi_x


def _gaussian_weights(sigma, order, truncate, radius) -> np.ndarray:
    sd = float(sigma)
    lw = int(truncate * sd + 0.5)
    if radius is not None:
        lw = radius
    if not isinstance(lw, numbers.Integral) or lw < 0:
        raise ValueError("Radius must be a nonnegative integer.")
    return _gaussian_kernel1d(sigma, order, lw)[::-1]


def gaussian_filter1d(input: ArrayLike, sigma: float, axis: int = -1,
                      order: int = 0, output=None, mode: str = "reflect",
                      cval: float = 0.0, truncate: float = 4.0, *,
                      radius: Optional[int] = None,
                      device: DeviceArg = None) -> np.ndarray:
    """1-D Gaussian filter, as ``scipy.ndimage.gaussian_filter1d``.

    Parameters
    ----------
    input : array_like
        Input array.
    sigma : float
        Standard deviation of the Gaussian.
    axis : int, optional
        The axis to filter along. Default -1.
    order : int, optional
        0: the Gaussian; a positive order: its derivative of that order
        (SciPy's kernels).
    output, mode, cval, device
        As :func:`correlate`.
    truncate : float, optional
        The radius is ``round(truncate * sigma)`` unless ``radius`` is given.
    radius : int, optional
        The kernel's radius (width ``2 * radius + 1``).

    Returns
    -------
    ndarray
        The result.
    """
    weights = _gaussian_weights(sigma, order, truncate, radius)
    return correlate1d(input, weights, axis, output, mode, cval, 0,
                       device=device)


def _complex_input(func, input, output, cval, **kw):
    """A filter of real weights on complex input: its real and imaginary
    parts filtered apart (SciPy does the same)."""
    output = _get_output(output, input, complex_output=True)
    if output.dtype.kind != "c":  # output=object: SciPy's 1-D pass's check
        raise RuntimeError("output must have complex dtype")
    # into the output's views, as SciPy (each call checks them)
    func(input.real, output=output.real, cval=np.real(cval), **kw)
    func(input.imag, output=output.imag, cval=np.imag(cval), **kw)
    return output


def _running_sum(x: np.ndarray, y: np.ndarray, axis: int, size: int,
                 mode: str, cval: float, origin: int) -> np.ndarray:
    """y, the device's box filter of x along axis, with the NaN and
    infinities of SciPy's uniform_filter1d. SciPy slides a running sum
    (adds the value that enters, subtracts the one that leaves), so a NaN
    that enters a line's window makes every later output of the line NaN,
    and an infinity gives +-inf while in the window and NaN after it. A
    cumulative sum of the extended line has the same non-finite values;
    only lines whose result has a non-finite value are looked at."""
    with np.errstate(invalid="ignore", over="ignore"):
        if np.isfinite(np.sum(y, dtype=np.float64)):
            return y  # no non-finite value reached any output
    c = size // 2 + origin
    ext = _pad(np.moveaxis(np.asarray(x, np.float64), axis, -1),
               [(c, size - 1 - c)], [mode], cval)
    bad = ~np.isfinite(ext).all(axis=-1)
    if not bad.any():
        return y  # the device's sums overflowed, as SciPy's do
    with np.errstate(invalid="ignore", over="ignore"):
        s = np.cumsum(ext[bad], axis=-1)
        s = np.concatenate([np.zeros(s.shape[:-1] + (1,)), s], axis=-1)
        sums = s[..., size:] - s[..., :-size]
    y = np.array(np.moveaxis(y, axis, -1))
    lines = y[bad]
    y[bad] = np.where(np.isfinite(sums), lines, sums)
    return np.moveaxis(y, -1, axis)


def _separable(input, output, passes, cval, device):
    """Run 1-D passes (axis, weights, mode, origin, running) one after the
    other, the intermediate in the output's dtype as SciPy keeps it
    (float32 on the device for float outputs); running: a box filter,
    whose NaN and infinities follow SciPy's running sum."""
    if not passes:  # SciPy looks at no other argument then
        if output is None:
            return np.array(input, dtype=np.dtype(input.dtype.name), order="C")
        output[...] = input[...]
        return output
    session = resolve(device)
    cval = _check_cval(cval)
    y = input
    dtype = output.dtype if output is not None else np.dtype(input.dtype.name)
    # (a box filter's NaN and infinities: one look at the input, so finite
    # data costs one host pass over it, not one per filtered axis, and
    # filters without a box pass none)
    nonfinite = False
    if any(running for *_, running in passes):
        with np.errstate(invalid="ignore", over="ignore"):
            nonfinite = not np.isfinite(cval) or (
                input.dtype.kind == "f" and not np.isfinite(np.sum(
                    input, dtype=np.promote_types(input.dtype, np.float32))))
    for axis, weights, mode, origin, running in passes:
        x, y = y, run_real(session, y, weights, [axis], [mode], cval, [origin])
        if running and nonfinite and y.size:
            y = _running_sum(x, y, axis, len(weights), mode, cval, origin)
        if dtype.kind == "b":
            # SciPy keeps each pass's truncated bytes (a 2 stays 2).
            y = _to_bool_bytes(y)
        elif dtype.kind in "iu":
            y = y.astype(dtype)
    return _store(output, y, input)


def gaussian_filter(input: ArrayLike, sigma, order=0, output=None,
                    mode="reflect", cval: float = 0.0, truncate: float = 4.0,
                    *, radius=None, axes: Optional[Sequence[int]] = None,
                    device: DeviceArg = None) -> np.ndarray:
    """Multidimensional Gaussian filter, as ``scipy.ndimage.gaussian_filter``:
    1-D Gaussian passes along each axis (of ``axes``).

    Parameters
    ----------
    input : array_like
        Input array.
    sigma : float or sequence of float
        Standard deviation per axis (of ``axes``); axes with sigma <= 1e-15
        are not filtered.
    order : int or sequence of int, optional
        Derivative order per axis (0: the Gaussian itself).
    output : ndarray or dtype, optional
        As :func:`correlate`.
    mode : str or sequence of str, optional
        Border mode, one for all axes or one per axis. Default 'reflect'.
    cval, device
        As :func:`correlate`.
    truncate : float, optional
        Radius in sigmas (``round(truncate * sigma)``). Default 4.0.
    radius : int or sequence of int, optional
        Radius per axis, overriding ``truncate``.
    axes : sequence of int, optional
        The axes to filter (default: all).

    Returns
    -------
    ndarray
        The result.
    """
    input = _check_input(input)
    complex_input = input.dtype.kind == "c"
    # As SciPy: the output in the dtype asked for, complex input or not
    # (no promotion to complex, unlike the 1-D filters and uniform_filter)
    output = _get_output(output, input, lazy=not complex_input)
    axes = _normalize_axes(axes, input.ndim)
    orders = _normalize_sequence(order, len(axes))
    sigmas = _normalize_sequence(sigma, len(axes))
    modes = _normalize_sequence(mode, len(axes))
    radii = _normalize_sequence(radius, len(axes))
    if complex_input:
        if not any(s > 1e-15 for s in sigmas):
            output[...] = input[...]  # no pass (into a real output: NumPy's cast)
            return output
        if output.dtype.kind != "c":
            # SciPy's first pass checks its kernel, then refuses the output
            s, o, r = next((s, o, r) for s, o, r in zip(sigmas, orders, radii)
                           if s > 1e-15)
            _gaussian_weights(s, o, truncate, r)
            raise RuntimeError("output must have complex dtype")
        return _complex_input(gaussian_filter, input, output, cval, sigma=sigma,
                              order=order, mode=mode, truncate=truncate,
                              radius=radius, axes=axes, device=device)
    passes = []
    for a, s, o, m, r in zip(axes, sigmas, orders, modes, radii):
        if s > 1e-15:
            passes.append((a, _gaussian_weights(s, o, truncate, r),
                           _check_mode(m), 0, False))
            _pass_arguments(output, cval, 0)  # each pass's C code
    return _separable(input, output, passes, cval, device)


def uniform_filter1d(input: ArrayLike, size: int, axis: int = -1,
                     output=None, mode: str = "reflect", cval: float = 0.0,
                     origin: int = 0, *, device: DeviceArg = None) -> np.ndarray:
    """1-D box filter of ``size`` taps, as ``scipy.ndimage.uniform_filter1d``.

    Returns
    -------
    ndarray
        The result.
    """
    # SciPy's checks in SciPy's order: the axis, size < 1, the output, the
    # origin against the size as given (0.5 is "incorrect filter size",
    # 1.5 with origin -2 "invalid origin"), the mode, and only then its C
    # code's integers (TypeError for a size of 2.5 or an origin of 1.5).
    input = _check_input(input)
    axis = operator.index(axis)  # SciPy: TypeError for 1.0
    if not -input.ndim <= axis < input.ndim:
        raise AxisError(axis, input.ndim)
    if size < 1:
        raise RuntimeError("incorrect filter size")
    output = _get_output(output, input, lazy=True,
                         complex_output=input.dtype.kind == "c")
    if size // 2 + origin < 0 or size // 2 + origin >= size:
        raise ValueError("invalid origin")  # also at size 1, as SciPy
    mode = _check_mode(mode)  # one mode (uniform_filter takes a sequence)
    size = operator.index(size)  # SciPy: TypeError for 2.5
    if input.dtype.kind != "c":  # SciPy's C code, a pass of any size
        _pass_arguments(output, cval, origin)
    origin = operator.index(origin)  # one origin, an integer (TypeError)
    return uniform_filter(input, [size if a == axis % input.ndim else 1
                                  for a in range(input.ndim)],
                          output, mode, cval, origin, device=device)


def _uniform_taps(size, origin: int) -> int:
    """The taps of uniform_filter's pass along an axis of this size (0:
    no pass), as SciPy: an axis of size 1 or less is left alone; above 1
    the pass takes int(size) taps (1.5 is one) and checks its origin."""
    if not size > 1:
        return 0
    n = int(size)
    if n // 2 + origin < 0 or n // 2 + origin >= n:
        raise ValueError("invalid origin")
    return n


def uniform_filter(input: ArrayLike, size=3, output=None, mode="reflect",
                   cval: float = 0.0, origin=0, *,
                   axes: Optional[Sequence[int]] = None,
                   device: DeviceArg = None) -> np.ndarray:
    """Multidimensional box filter, as ``scipy.ndimage.uniform_filter``:
    1-D passes of ``size`` equal taps (``1 / size``) along each axis.

    Parameters
    ----------
    input : array_like
        Input array.
    size : int or sequence of int, optional
        Width per axis (of ``axes``); width 1 leaves an axis alone.
    output, cval, device
        As :func:`correlate`.
    mode : str or sequence of str, optional
        Border mode, one for all axes or one per axis.
    origin : int or sequence of int, optional
        Shift per axis: ``size // 2 + origin`` must lie in ``[0, size)``.
    axes : sequence of int, optional
        The axes to filter (default: all).

    Returns
    -------
    ndarray
        The result.
    """
    input = _check_input(input)
    if input.dtype.kind == "c":
        return _complex_input(uniform_filter, input, output, cval, size=size,
                              mode=mode, origin=origin, axes=axes, device=device)
    output = _get_output(output, input, lazy=True)
    axes = _normalize_axes(axes, input.ndim)
    sizes = _normalize_sequence(size, len(axes))
    origins = _normalize_sequence(origin, len(axes))
    modes = _normalize_sequence(mode, len(axes))
    passes = []
    for a, size_a, o, m in zip(axes, sizes, origins, modes):
        n = _uniform_taps(size_a, o)
        if n > 1:
            # SciPy checks an axis's origin only where it filters that
            # axis, its range before its type (5.5: "invalid origin"; 1.5:
            # TypeError; any origin along an axis of size 1)
            m = _check_mode(m)
            _, o = _pass_arguments(output, cval, o)  # each pass's C code
            passes.append((a, np.full(n, 1.0 / n), m, o, True))
    return _separable(input, output, passes, cval, device)
