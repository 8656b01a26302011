"""SciPy's argument checks for the filters, with SciPy's exception types
and messages: modes, cval, origins, axes, the mask's shape and the output.
Shared by the general path (_filters.py) and the fast path (_fast.py), so
both raise the same errors.
"""
from __future__ import annotations

import numbers
import operator
from typing import Sequence

import numpy as np

try:
    from numpy.exceptions import AxisError  # NumPy >= 1.25
except ImportError:  # pragma: no cover
    from numpy import AxisError

# SciPy's mode -> numpy.pad's mode for the same extension.
PAD_MODES = {
    "reflect": "symmetric", "grid-mirror": "symmetric",
    "mirror": "reflect",
    "nearest": "edge",
    "wrap": "wrap", "grid-wrap": "wrap",
    "constant": "constant", "grid-constant": "constant",
}


def _check_mode(mode) -> str:
    if not isinstance(mode, str) or mode not in PAD_MODES:
        raise RuntimeError("boundary mode not supported")
    return mode


def _normalize_sequence(value, rank: int) -> list:
    """One value per axis, as SciPy 1.11+ reads a per-axis argument: a
    string or anything np.iterable calls not iterable (a number, a 0-d
    array) is every axis's value; any other iterable lists them."""
    if not isinstance(value, str) and np.iterable(value):
        out = list(value)
        if len(out) != rank:
            raise RuntimeError("sequence argument must have length equal to "
                               "input rank")
        return out
    return [value] * rank


def _check_cval(cval) -> float:
    """As SciPy's C code reads cval (float()): any real number, a 0-d
    array or a Decimal; TypeError for a string or a complex value."""
    if isinstance(cval, numbers.Real):
        return float(cval)
    if not isinstance(cval, (str, bytes)) and hasattr(cval, "__float__"):
        try:
            return float(cval)
        except (TypeError, ValueError):
            pass
    raise TypeError("must be real number, not %s" % type(cval).__name__)


def _check_origin(origin) -> int:
    """One origin of an n-D filter, an integer as SciPy's C code takes it
    (TypeError for 1.5, 1.0 and True)."""
    if isinstance(origin, (bool, np.bool_)):
        raise TypeError("an integer is required")
    return operator.index(origin)


# SciPy's NI_Correlate takes part only weights with |w| > DBL_EPSILON: a
# NaN weight, or one of 1e-17, is no tap at all.
_DBL_EPSILON = float(np.finfo(np.float64).eps)


def _scipy_taps(weights: np.ndarray) -> np.ndarray:
    """The float64 weights of correlate/convolve as SciPy uses them: NaN
    and |w| <= DBL_EPSILON set to 0 (the 1-D filters keep them, as
    SciPy's do)."""
    return np.where(np.abs(weights) > _DBL_EPSILON, weights, 0.0)


def _check_input(input) -> np.ndarray:
    a = np.asarray(input)
    if a.dtype.kind not in "biufc":
        raise RuntimeError("array type not supported")
    return a


def _invalid_origin(origin: int, lenw: int) -> bool:
    return origin < -(lenw // 2) or origin > (lenw - 1) // 2


def _normalize_axes(axes, ndim: int) -> tuple:
    if axes is None:
        return tuple(range(ndim))
    if isinstance(axes, numbers.Integral):
        axes = (int(axes),)
    out = []
    for a in axes:
        if not isinstance(a, numbers.Integral):
            raise TypeError("axes must be integers")
        if not -ndim <= a < ndim:
            raise AxisError(int(a), ndim)
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError("axes must be unique")
    return tuple(out)


def _numeric(dtype, message: str) -> np.dtype:
    """dtype, where SciPy writes it (bool or a number): else SciPy's
    RuntimeError (a string or object output would take the results'
    text)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "biufc":
        raise RuntimeError(message)
    return dtype


def _get_output(output, input: np.ndarray, complex_output: bool = False,
                lazy: bool = False):
    """SciPy's _ni_support._get_output; with lazy, None stays None (the
    result array itself becomes the output: no zeroed array, no copy).
    What SciPy's C code checks of an output array (writeable, its type)
    is checked where it checks it: _output_writeable, _check_real_output."""
    shape = input.shape
    if output is None and lazy and not complex_output:
        return None
    if output is None:
        if not complex_output:
            return np.zeros(shape, dtype=input.dtype.name)
        return np.zeros(shape, dtype=np.promote_types(input.dtype, np.complex64))
    if isinstance(output, (type, np.dtype)):
        if complex_output and np.dtype(output).kind != "c":
            output = np.promote_types(output, np.complex64)
        return np.zeros(shape, dtype=output)
    if isinstance(output, str):
        output = np.dtype(output)
        if complex_output and output.kind != "c":
            raise RuntimeError("output must have complex dtype")
        return np.zeros(shape, dtype=_numeric(
            output, "output must have numeric dtype"))
    if not isinstance(output, np.ndarray):
        raise TypeError("output must be None, a dtype or a numpy.ndarray")
    if output.shape != shape:
        raise RuntimeError("output shape not correct")
    if complex_output and output.dtype.kind != "c":
        raise RuntimeError("output must have complex dtype")
    return output


def _output_writeable(output) -> None:
    """SciPy's C code takes the output array as it parses its arguments:
    after the Python checks (mask, origins' range, output shape, mode),
    before cval and the origins' types, ValueError for a read-only one."""
    if output is not None and not output.flags.writeable:
        raise ValueError("output array is read-only.")


def _check_real_output(output) -> None:
    """SciPy's C filters write bool and real numbers only: a complex,
    object or string output of a real input filtered with real weights is
    refused there, after every argument check (a complex input or complex
    weights go through their real and imaginary parts, each into a real
    view)."""
    if output is not None and output.dtype.kind not in "biuf":
        raise RuntimeError("array type not supported")


def _mask_args(ndim, weights, origin, axes, convolution, types=True):
    """SciPy's checks of a mask over `axes` of an ndim array: the float64
    weights (flipped for a convolution), the axes and their origins
    (types=False: their types not checked yet, as SciPy's C code checks
    them after the output, the mode and cval: _origin_types)."""
    axes = _normalize_axes(axes, ndim)
    origins = _normalize_sequence(origin, len(axes))
    weights = np.asarray(weights, dtype=np.float64)
    wshape = [n for n in weights.shape if n > 0]
    if len(wshape) != len(axes) or weights.ndim != len(axes):
        raise RuntimeError("filter weights array has incorrect shape.")
    # As SciPy: a convolution's origins mirrored, then every origin's
    # range checked as given, then (its C code) their integer types. So
    # 1.0 beside a 2-wide mask is "Invalid origin", not TypeError, and
    # convolve's True is -1.
    if convolution:
        weights = weights[(slice(None, None, -1),) * weights.ndim]
        origins = [-o - (0 if n & 1 else 1) for o, n in zip(origins, weights.shape)]
    for o, n in zip(origins, wshape):
        if _invalid_origin(o, n):
            raise ValueError("Invalid origin; origin must satisfy "
                             "-(weights.shape[k] // 2) <= origin[k] <= "
                             "(weights.shape[k]-1) // 2")
    return weights, axes, _origin_types(origins) if types else origins


def _origin_types(origins) -> list:
    """The origins as SciPy's C code takes them: integers (TypeError for
    1.5, 1.0 and True)."""
    return [_check_origin(o) for o in origins]


def _check_single_mode(mode) -> str:
    if not isinstance(mode, str) and isinstance(mode, (Sequence, np.ndarray)):
        raise RuntimeError("A sequence of modes is not supported")
    return _check_mode(mode)


def _pass_arguments(output, cval, origin):
    """SciPy's C code's checks of a 1-D pass (correlate1d, a Gaussian or
    box filter's pass), in its order: the output writeable, cval a real
    number, the origin an integer, then (its filter) the output's type.
    Returns cval and origin as the pass takes them."""
    _output_writeable(output)
    cval = _check_cval(cval)
    origin = operator.index(origin)  # TypeError for 1.0
    _check_real_output(output)
    return cval, origin
