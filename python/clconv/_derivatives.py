"""scipy.ndimage's derivative filters on clconv's devices: sobel, prewitt,
laplace, gaussian_laplace and gaussian_gradient_magnitude.

Each is the composition SciPy documents, of this package's correlate1d
and gaussian_filter (every pass on the device), with SciPy's order of
passes and its intermediate results kept in the output's dtype:

- sobel / prewitt: the difference [-1, 0, 1] along ``axis`` into the
  output, then the output smoothed in place along every other axis
  ([1, 2, 1] / [1, 1, 1]);
- laplace / gaussian_laplace: the second derivative along the first axis
  into the output, each other axis's added to it (NumPy's ``+=`` in the
  output's dtype);
- gaussian_gradient_magnitude: the first derivatives squared and summed
  in the output, then its square root.

So an integer output holds each pass's truncated result, as in SciPy.
"""
from __future__ import annotations

import operator

import numpy as np

from ._checks import AxisError, _get_output, _normalize_sequence
from ._filters import ArrayLike, correlate1d, gaussian_filter
from ._session import DeviceArg


def _difference_then_smooth(input, smooth, axis, output, mode, cval, device):
    """sobel and prewitt: [-1, 0, 1] along axis, smooth along the others."""
    input = np.asarray(input)  # its type is correlate1d's to check
    axis = operator.index(axis)
    if not -input.ndim <= axis < input.ndim:
        raise AxisError(axis, input.ndim)
    axis %= input.ndim
    output = _get_output(output, input)
    modes = _normalize_sequence(mode, input.ndim)
    correlate1d(input, [-1, 0, 1], axis, output, modes[axis], cval, 0,
                device=device)
    for a in range(input.ndim):
        if a != axis:
            correlate1d(output, smooth, a, output, modes[a], cval, 0,
                        device=device)
    return output


def sobel(input: ArrayLike, axis: int = -1, output=None, mode="reflect",
          cval: float = 0.0, *, device: DeviceArg = None) -> np.ndarray:
    """Sobel derivative along ``axis``, as ``scipy.ndimage.sobel``.

    Parameters
    ----------
    input : array_like
        Input array.
    axis : int, optional
        The axis of the derivative. Default -1.
    output : ndarray or dtype, optional
        As :func:`correlate`; also holds the intermediate passes.
    mode : str or sequence of str, optional
        Border mode, one for all axes or one per axis. Default 'reflect'.
    cval, device
        As :func:`correlate`.

    Returns
    -------
    ndarray
        The result.
    """
    return _difference_then_smooth(input, [1, 2, 1], axis, output, mode,
                                   cval, device)


def prewitt(input: ArrayLike, axis: int = -1, output=None, mode="reflect",
            cval: float = 0.0, *, device: DeviceArg = None) -> np.ndarray:
    """Prewitt derivative along ``axis``, as ``scipy.ndimage.prewitt``.

    Parameters and result as :func:`sobel`.
    """
    return _difference_then_smooth(input, [1, 1, 1], axis, output, mode,
                                   cval, device)


def _sum_over_axes(input, derivative, output, mode, square):
    """SciPy's generic_laplace (square False) and
    generic_gradient_magnitude (square True): derivative(input, axis,
    output, mode) for each axis, summed in the output's dtype."""
    input = np.asarray(input)  # its type is the derivative's to check
    output = _get_output(output, input)
    if input.ndim == 0:
        output[...] = input[...]
        return output
    modes = _normalize_sequence(mode, input.ndim)
    derivative(input, 0, output, modes[0])
    if square:
        np.multiply(output, output, output)
    for a in range(1, input.ndim):
        t = derivative(input, a, output.dtype, modes[a])
        if square:
            np.multiply(t, t, t)
        output += t
    if square:
        np.sqrt(output, output, casting="unsafe")
    return output


def laplace(input: ArrayLike, output=None, mode="reflect", cval: float = 0.0,
            *, device: DeviceArg = None) -> np.ndarray:
    """Laplace filter of second differences [1, -2, 1] along every axis,
    summed, as ``scipy.ndimage.laplace``.

    Parameters and result as :func:`sobel` (without ``axis``).
    """
    def d2(x, axis, out, m):
        return correlate1d(x, [1, -2, 1], axis, out, m, cval, 0,
                           device=device)
    return _sum_over_axes(input, d2, output, mode, False)


def _gaussian_derivative(order, sigma, cval, kwargs):
    def derivative(x, axis, out, m):
        orders = [0] * np.ndim(x)
        orders[axis] = order
        return gaussian_filter(x, sigma, orders, out, m, cval, **kwargs)
    return derivative


def gaussian_laplace(input: ArrayLike, sigma, output=None, mode="reflect",
                     cval: float = 0.0, **kwargs) -> np.ndarray:
    """Laplace filter of Gaussian second derivatives, as
    ``scipy.ndimage.gaussian_laplace``.

    Parameters
    ----------
    input : array_like
        Input array.
    sigma : float or sequence of float
        Standard deviation of the Gaussian, one or one per axis.
    output, mode, cval
        As :func:`sobel`.
    **kwargs
        Passed to :func:`gaussian_filter` (``truncate``, ``radius``,
        ``device``).

    Returns
    -------
    ndarray
        The result.
    """
    return _sum_over_axes(input, _gaussian_derivative(2, sigma, cval, kwargs),
                          output, mode, False)


def gaussian_gradient_magnitude(input: ArrayLike, sigma, output=None,
                                mode="reflect", cval: float = 0.0,
                                **kwargs) -> np.ndarray:
    """Gradient magnitude of Gaussian first derivatives, as
    ``scipy.ndimage.gaussian_gradient_magnitude``.

    Parameters and result as :func:`gaussian_laplace`.
    """
    return _sum_over_axes(input, _gaussian_derivative(1, sigma, cval, kwargs),
                          output, mode, True)
