"""sobel, prewitt, laplace, gaussian_laplace and gaussian_gradient_magnitude
against scipy.ndimage: every mode (one, or one per axis), 1 to 4
dimensions with axes of size 1 and 2, every axis, integer and float
inputs and outputs, output arrays, SciPy's errors."""
import numpy as np
import pytest
from conftest import MODES, ndimage

import clconv

DTYPES = [np.float32, np.float64, np.uint8, np.int16, np.uint16, np.int32]
SHAPES = [(9,), (1,), (2,), (6, 7), (1, 5), (5, 2), (4, 5, 3), (3, 1, 2),
          (2, 3, 2, 3)]


def data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    return (rng.random(shape) * 2 - 1).astype(dtype)


def check(got, expected, x, passes):
    """Float results within float32 rounding of the passes' sums (each a
    few taps of weights up to 2 on data up to max |x|); integer results
    within one truncation step a pass (float32 against SciPy's float64
    can land on either side of an integer)."""
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    scale = 1.0 + float(np.abs(x.astype(np.float64)).max(initial=0))
    tol = 64 * np.finfo(np.float32).eps * scale * 4.0 ** passes
    if got.dtype.kind in "iu":
        tol += passes
    err = np.abs(g - e)
    assert not np.isnan(g).any()
    assert (err <= tol).all(), (err.max(), tol)


@pytest.mark.parametrize("func", ["sobel", "prewitt"])
@pytest.mark.parametrize("mode", MODES)
def test_sobel_prewitt_match_scipy_on_every_axis(func, mode, rng):
    for i, shape in enumerate(SHAPES):
        dtype = DTYPES[i % len(DTYPES)]
        x = data(rng, shape, dtype)
        for axis in range(-x.ndim, x.ndim):
            exp = getattr(ndimage, func)(x, axis, mode=mode, cval=1.5)
            got = getattr(clconv, func)(x, axis, mode=mode, cval=1.5)
            check(got, exp, x, x.ndim)


@pytest.mark.parametrize("mode", MODES)
def test_laplace_matches_scipy(mode, rng):
    for i, shape in enumerate(SHAPES):
        x = data(rng, shape, DTYPES[(i + 1) % len(DTYPES)])
        check(clconv.laplace(x, mode=mode, cval=-2.0),
              ndimage.laplace(x, mode=mode, cval=-2.0), x, x.ndim)


@pytest.mark.parametrize("mode", MODES)
def test_gaussian_laplace_and_gradient_magnitude_match_scipy(mode, rng):
    for i, shape in enumerate(SHAPES):
        x = data(rng, shape, DTYPES[i % len(DTYPES)])
        check(clconv.gaussian_laplace(x, 1.0, mode=mode, cval=0.5),
              ndimage.gaussian_laplace(x, 1.0, mode=mode, cval=0.5), x,
              x.ndim)
        # An integer output squares each derivative's truncated value in
        # its own type (wrapping), where one truncation step apart is far
        # apart: the magnitude into float64, as a user would ask for it.
        check(clconv.gaussian_gradient_magnitude(x, 1.0, np.float64,
                                                 mode=mode, cval=0.5),
              ndimage.gaussian_gradient_magnitude(x, 1.0, np.float64,
                                                  mode=mode, cval=0.5),
              x, x.ndim)


def test_per_axis_modes_outputs_and_gaussian_arguments(rng):
    x = data(rng, (6, 7, 5), np.float32)
    modes = ["wrap", "constant", "mirror"]
    check(clconv.sobel(x, 1, mode=modes, cval=2),
          ndimage.sobel(x, 1, mode=modes, cval=2), x, 3)
    out, ref = np.zeros(x.shape), np.zeros(x.shape)
    assert clconv.laplace(x, out, mode=modes) is out
    ndimage.laplace(x, ref, mode=modes)
    check(out, ref, x, 3)
    check(clconv.prewitt(x, 0, "float64"), ndimage.prewitt(x, 0, "float64"),
          x, 3)
    check(clconv.gaussian_laplace(x, [1, 2, 0.5], truncate=2.0),
          ndimage.gaussian_laplace(x, [1, 2, 0.5], truncate=2.0), x, 3)
    check(clconv.gaussian_gradient_magnitude(x, 1.5, radius=2, device="0:0"),
          ndimage.gaussian_gradient_magnitude(x, 1.5, radius=2), x, 3)
    # in place, as SciPy allows: the passes read the output they write
    y = x.copy()
    clconv.sobel(y, 0, y)
    check(y, ndimage.sobel(x, 0), x, 3)


def test_complex_and_0d_inputs(rng):
    x = data(rng, (5, 6), np.float64) + 1j * data(rng, (5, 6), np.float64)
    got, exp = clconv.sobel(x, 0), ndimage.sobel(x, 0)
    assert got.dtype == exp.dtype
    check(got.real, exp.real, x.real, 2)
    check(got.imag, exp.imag, x.imag, 2)
    z = np.float32(3)
    assert clconv.laplace(z) == ndimage.laplace(z)
    assert clconv.gaussian_gradient_magnitude(z, 1) == \
        ndimage.gaussian_gradient_magnitude(z, 1)


def test_float16_runs_in_its_own_type(rng):
    x = data(rng, (8, 9), np.float16)
    for func in (clconv.sobel, clconv.laplace):
        got = func(x)
        assert got.dtype == np.float16
        exp = getattr(ndimage, func.__name__)(x.astype(np.float32))
        assert np.abs(got.astype(np.float64) - exp).max() <= 0.02


@pytest.mark.parametrize("call", [
    lambda m, x: m.sobel(x, 2),
    lambda m, x: m.sobel(x, -3),
    lambda m, x: m.sobel(x, 1.0),
    lambda m, x: m.prewitt(np.float32(3)),
    lambda m, x: m.laplace(x, None, "bogus"),
    lambda m, x: m.sobel(x, 0, None, ["wrap"]),
    lambda m, x: m.gaussian_laplace(x, [1, 2, 3]),
    lambda m, x: m.gaussian_gradient_magnitude(x, 1, order=1),
    lambda m, x: m.laplace(np.array(["a", "b"])),
    lambda m, x: m.sobel(np.array([object(), object()])),
    lambda m, x: m.laplace(x, np.zeros((2, 2))),
], ids=["axis 2 of 2", "axis -3", "axis 1.0", "0-d sobel", "unknown mode",
        "short mode list", "long sigma list", "order twice",
        "string array", "object array", "output shape"])
def test_errors_as_scipy(call, rng):
    x = data(rng, (4, 5), np.float32)
    with pytest.raises(Exception) as want:
        call(ndimage, x)
    with pytest.raises(type(want.value)):
        call(clconv, x)
