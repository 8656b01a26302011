"""Bad arguments: SciPy's exception types and messages where SciPy raises,
the library's one-line message otherwise; never a crash."""
import warnings

import numpy as np
import pytest
from conftest import ndimage

import clconv

A = np.arange(12.0).reshape(3, 4)
W = np.ones((3, 3))


def _readonly(dtype=np.float32):
    out = np.zeros(A.shape, dtype)
    out.flags.writeable = False
    return out


CASES = {
    "read-only float32 output": lambda m: m.correlate(A.astype(np.float32), W, output=_readonly()),
    "read-only float64 output": lambda m: m.convolve(A, W, output=_readonly(np.float64)),
    "read-only output, correlate1d": lambda m: m.correlate1d(A, [1, 2], output=_readonly()),
    "read-only output, gaussian": lambda m: m.gaussian_filter(A, 1.0, output=_readonly()),
    "read-only output, uniform": lambda m: m.uniform_filter(A, 3, output=_readonly()),
    "mask with more dims than the input": lambda m: m.correlate(A, np.ones((3, 3, 3))),
    "mask with fewer dims": lambda m: m.correlate(A, np.ones(3)),
    "zero-width mask": lambda m: m.correlate(A, np.ones((0, 3))),
    "origin out of range": lambda m: m.correlate(A, W, origin=2),
    "origin out of range, negative": lambda m: m.correlate(A, W, origin=(0, -2)),
    "origin sequence too long": lambda m: m.correlate(A, W, origin=[0, 0, 0]),
    "unknown mode": lambda m: m.correlate(A, W, mode="foo"),
    "mode not a string": lambda m: m.correlate(A, W, mode=3),
    "sequence of modes": lambda m: m.correlate(A, W, mode=["reflect", "wrap"]),
    "object array": lambda m: m.correlate(A.astype(object), W),
    "string cval": lambda m: m.correlate(A, W, cval="x"),
    "complex cval, real input": lambda m: m.correlate(A, W + 0j, cval=1j),
    "output of another shape": lambda m: m.correlate(A, W, output=np.zeros((2, 2))),
    "real output for complex input": lambda m: m.correlate(A + 1j, W, output=np.zeros((3, 4))),
    "correlate1d without weights": lambda m: m.correlate1d(A, []),
    "correlate1d 2-D weights": lambda m: m.correlate1d(A, W),
    "correlate1d axis out of range": lambda m: m.correlate1d(A, [1, 2], axis=2),
    "correlate1d origin out of range": lambda m: m.correlate1d(A, [1, 2, 3], origin=2),
    "gaussian negative order": lambda m: m.gaussian_filter(A, 1.0, order=-1),
    "gaussian negative radius": lambda m: m.gaussian_filter(A, 1.0, radius=-1),
    "gaussian sigma sequence length": lambda m: m.gaussian_filter(A, [1.0, 1.0, 1.0]),
    "gaussian unknown mode": lambda m: m.gaussian_filter(A, 1.0, mode="bogus"),
    "uniform size 0 along one axis": lambda m: m.uniform_filter1d(A, 0),
    "uniform bad origin": lambda m: m.uniform_filter(A, 3, origin=2),
    # size 1 returned the input: SciPy checks the origin at every size
    "uniform_filter1d size 1, origin -1": lambda m: m.uniform_filter1d(A, 1, origin=-1),
    "uniform_filter1d sequence of modes": lambda m: m.uniform_filter1d(A, 3, mode=["wrap", "wrap"]),
    # SciPy checks size < 1, the output, the origin and the mode before
    # its C code wants integers: these raised TypeError (a float size or
    # origin) or "invalid origin" (before the output's shape)
    "uniform_filter1d size 0.5": lambda m: m.uniform_filter1d(A, 0.5),
    "uniform_filter1d size 1.5, origin -2": lambda m: m.uniform_filter1d(A, 1.5, origin=-2),
    "uniform_filter1d origin 5.5": lambda m: m.uniform_filter1d(A, 3, origin=5.5),
    "uniform_filter1d size 2.5, unknown mode": lambda m: m.uniform_filter1d(A, 2.5, mode="foo"),
    "uniform_filter1d bad origin, output of another shape": lambda m: m.uniform_filter1d(
        A, 3, origin=5, output=np.zeros((2, 2))),
    "uniform_filter origin 5.5": lambda m: m.uniform_filter(A, 3, origin=5.5),
    # SciPy checks an origin's range before its C code wants an integer,
    # and the mode and cval before that: these raised TypeError
    # gaussian_filter makes its output in the dtype asked for, complex
    # input or not, and its first pass refuses a real one (it was
    # promoted to complex)
    "gaussian complex input, float64 output": lambda m: m.gaussian_filter(A + 1j, 1.0, output=np.float64),
    "gaussian complex input, int16 output, a bad radius": lambda m: m.gaussian_filter(
        A + 1j, (0, 1.0), output=np.int16, radius=-1),
    # SciPy's C filters write no complex array: a real input and real
    # weights into a complex output (it was written)
    "complex output dtype, real input and weights": lambda m: m.correlate(A, W, output=np.complex128),
    "complex output array, real input and weights": lambda m: m.convolve(
        A.astype(np.int16), W, output=np.zeros(A.shape, np.complex64)),
    "correlate origin 1.0 beside a 2-wide mask": lambda m: m.correlate(A, np.ones((2, 2)), origin=1.0),
    "correlate origin 1.5": lambda m: m.correlate(A, W, origin=(0, 1.5)),
    "convolve origin -1.5": lambda m: m.convolve(A, W, origin=-1.5),
    "correlate float origin, unknown mode": lambda m: m.correlate(A, W, origin=0.5, mode="foo"),
    "correlate float origin, string cval": lambda m: m.correlate(A, W, origin=0.5, cval="x"),
    "correlate1d origin 1.5": lambda m: m.correlate1d(A, [1, 2, 3], origin=1.5),
    "convolve1d origin -2.0": lambda m: m.convolve1d(A, [1, 2, 3], origin=-2.0),
    "correlate1d float origin, unknown mode": lambda m: m.correlate1d(A, [1, 2, 3], origin=0.5, mode="foo"),
    "uniform_filter origin 5.5 on the second axis": lambda m: m.uniform_filter(A, 3, origin=[0, 5.5]),
    # size 1.5 is a 1-wide pass in SciPy, whose origin is checked (it was
    # taken as no pass at all)
    "uniform_filter size 1.5, origin 1": lambda m: m.uniform_filter(A, 1.5, origin=1),
    # These wrote the results' text into a string or object array.
    "object output dtype": lambda m: m.correlate(A, W, output=object),
    "string output array": lambda m: m.correlate(A, W, output=np.zeros(A.shape, "U5")),
    "object output array": lambda m: m.convolve(A, W, output=np.zeros(A.shape, object)),
    # SciPy's C code looks at the output array (read-only, its type) after
    # the Python checks: each raised "output array is read-only." or
    # "array type not supported" first
    "read-only output, unknown mode": lambda m: m.correlate(A, W, output=_readonly(), mode="foo"),
    "read-only output, sequence of modes": lambda m: m.convolve(
        A, W, output=_readonly(), mode=["wrap", "wrap"]),
    "read-only output, correlate1d origin out of range": lambda m: m.correlate1d(
        A, [1, 2, 3], output=_readonly(), origin=2),
    "read-only output, uniform_filter1d bad origin": lambda m: m.uniform_filter1d(
        A, 3, output=_readonly(), origin=2),
    "read-only output, uniform_filter unknown mode": lambda m: m.uniform_filter(
        A, 3, output=_readonly(), mode="foo"),
    "read-only output, gaussian_filter1d unknown mode": lambda m: m.gaussian_filter1d(
        A, 1.0, output=_readonly(), mode="foo"),
    "read-only real output, gaussian of complex input": lambda m: m.gaussian_filter(
        A + 1j, 1.0, output=_readonly(np.float64)),
    "read-only complex output, complex input, unknown mode": lambda m: m.correlate(
        A + 1j, W, output=_readonly(np.complex128), mode="foo"),
    "read-only complex output, complex weights, bad origin": lambda m: m.correlate1d(
        A, [1j, 2, 3], output=_readonly(np.complex128), origin=2),
    "read-only output, string cval": lambda m: m.correlate(A, W, output=_readonly(), cval="x"),
    "object output array, unknown mode": lambda m: m.correlate(
        A, W, output=np.zeros(A.shape, object), mode="foo"),
    "object output dtype, origin out of range": lambda m: m.uniform_filter(
        A, 3, output=object, origin=2),
    # SciPy reverses the weights as given (it was IndexError of a 0-d array)
    "convolve1d scalar weights": lambda m: m.convolve1d(A, 2.0),
    # an object array stays one when promoted to complex: SciPy's first
    # 1-D pass refuses it (it said "array type not supported")
    "uniform_filter of complex input, output=object": lambda m: m.uniform_filter(
        A + 1j, 3, output=object),
}


# SciPy raises these from Python's own integer checks, whose wording
# differs between versions: the type must match.
TYPE_ONLY = {
    "uniform_filter1d origin sequence": lambda m: m.uniform_filter1d(A, 3, origin=(1, 0)),
    "uniform_filter1d float origin": lambda m: m.uniform_filter1d(A, 3, origin=1.5),
    "uniform_filter float origin": lambda m: m.uniform_filter(A, 3, origin=1.5),
    "correlate1d float axis": lambda m: m.correlate1d(A, [1, 2], axis=1.0),
    "convolve1d float axis": lambda m: m.convolve1d(A, [1, 2], axis=1.0),
    "uniform_filter1d float axis": lambda m: m.uniform_filter1d(A, 3, axis=1.0),
    # These ran as origin 0 or 1 (int() truncated them), and size 2.5 as 2.
    "correlate float origin": lambda m: m.correlate(A, W, origin=0.5),
    "correlate integral float origin": lambda m: m.correlate(A, W, origin=(1.0, 0)),
    "correlate bool origin": lambda m: m.correlate(A, W, origin=True),
    "convolve float origin": lambda m: m.convolve(A, W, origin=-0.7),
    "correlate1d float origin": lambda m: m.correlate1d(A, [1, 2, 3], origin=1.0),
    "convolve1d float origin": lambda m: m.convolve1d(A, [1, 2, 3], origin=0.7),
    "uniform_filter1d float size": lambda m: m.uniform_filter1d(A, 2.5),
    # A complex output of a real filter: SciPy 1.10's 1-D filters name
    # the dtype in the message (it was written)
    "correlate1d complex output": lambda m: m.correlate1d(A, [1, 2], output=np.complex64),
    "gaussian_filter1d complex output": lambda m: m.gaussian_filter1d(A, 1.0, output=np.complex128),
    "gaussian_filter complex output": lambda m: m.gaussian_filter(
        A, (0, 1.0), output=np.zeros(A.shape, np.complex64)),
    "uniform_filter complex output": lambda m: m.uniform_filter(A, (1, 3), output=np.complex64),
    "uniform_filter1d complex output": lambda m: m.uniform_filter1d(A, 3, output="complex64"),
    # SciPy's C code runs at size 1 too (the input was copied into it)
    "uniform_filter1d size 1, complex output": lambda m: m.uniform_filter1d(A, 1, output=np.complex64),
    "uniform_filter1d size 1, object output": lambda m: m.uniform_filter1d(A, 1, output=object),
    # SciPy's 1-D filters name the dtype in the message.
    "gaussian object output array": lambda m: m.gaussian_filter(
        A, 1.0, output=np.zeros(A.shape, object)),
    "uniform_filter1d string output dtype": lambda m: m.uniform_filter1d(
        A, 3, output=np.str_),
    "correlate1d object output array": lambda m: m.correlate1d(
        A, [1, 2], output=np.zeros(A.shape, object)),
}


def test_a_string_output_dtype_name_is_refused():
    # SciPy 1.15's message; older SciPy raised KeyError from sctypeDict.
    with pytest.raises(RuntimeError, match="output must have numeric dtype"):
        clconv.correlate(A, W, output="U5")


def _raised(call):
    """The exceptions call raises with SciPy's module, then with ours."""
    with pytest.raises(Exception) as scipy_err:
        call(ndimage)
    with pytest.raises(Exception) as ours:
        call(clconv)
    assert type(ours.value) is type(scipy_err.value), (ours.value, scipy_err.value)
    return scipy_err.value, ours.value


@pytest.mark.parametrize("case", sorted(TYPE_ONLY))
def test_non_integer_axes_and_origins_raise_scipys_type(case):
    # They were taken (a sequence's last entry, 1.5 as 1, 1.0 as 1).
    _raised(TYPE_ONLY[case])


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_arguments_raise_what_scipy_raises(case):
    scipy_err, ours = _raised(CASES[case])
    assert str(ours) == str(scipy_err)


def test_uniform_filter_takes_any_origin_along_an_axis_it_leaves_alone():
    # SciPy checks an origin only along an axis it filters (size > 1):
    # a float origin there raised TypeError
    for size, origin in [([1, 3], [1.5, 0]), ([3, 1], [0, 0.5]),
                         ([3, 0.5], [-1, 7.25])]:
        expected = ndimage.uniform_filter(A, size, origin=origin)
        got = clconv.uniform_filter(A, size, origin=origin)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-5)


def test_convolve_takes_a_bool_origin_as_scipy():
    # SciPy's convolve mirrors the origin (-True is -1) before its C code
    # wants integers, so True runs there (it raised TypeError)
    for w, origin in [(W, True), (W, [True, False]), (np.ones((3, 2)), (False, 0))]:
        expected = ndimage.convolve(A, w, origin=origin)
        np.testing.assert_allclose(clconv.convolve(A, w, origin=origin),
                                   expected, rtol=1e-6, atol=1e-5)


def test_gaussian_filter_of_complex_input_without_a_pass_casts_as_scipy():
    # No sigma above 1e-15: SciPy copies the input into the output in the
    # dtype asked for (NumPy's cast: the real part); it was complex
    x = (A * (1 + 2j)).astype(np.complex64)
    for out in [np.float32, bool, np.zeros(A.shape)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's ComplexWarning
            expected = ndimage.gaussian_filter(x, 0, output=out)
            got = clconv.gaussian_filter(x, 0, output=out)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_filters_without_a_pass_copy_into_a_complex_output_as_scipy():
    # SciPy refuses a complex output only where a pass runs, and its n-D
    # correlate only where there is an element (empty arrays run)
    empty = np.zeros((0, 4))
    for name, x, arg in [("gaussian_filter", A, 0), ("uniform_filter", A, 1),
                         ("correlate", empty, W), ("convolve", empty, W)]:
        expected = getattr(ndimage, name)(x, arg, output=np.complex64)
        got = getattr(clconv, name)(x, arg, output=np.complex64)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_nan_cval_fills_the_border_with_nan_as_scipy():
    expected = ndimage.correlate(A, W, mode="constant", cval=np.nan)
    got = clconv.correlate(A, W, mode="constant", cval=np.nan)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[~np.isnan(got)], expected[~np.isnan(expected)])


@pytest.mark.parametrize("shape,origin", [((3, 5), 0), ((5, 3), (1, -1)),
                                          ((2, 4), (0, 1)), ((1, 6), 0),
                                          ((3, 1, 5), (0, 0, -2)),
                                          ((4, 2, 3), (-2, 0, 1))])
def test_nan_cval_reaches_only_as_far_as_the_mask(shape, origin):
    # A NaN cval makes NaN exactly the outputs whose mask meets the outside:
    # no tap beyond a non-square mask's own may read it (0 * NaN is NaN).
    rng = np.random.default_rng(len(shape) * 10 + shape[0])
    x = rng.standard_normal((9, 11, 7)[3 - len(shape):]).astype(np.float32)
    w = rng.standard_normal(shape).astype(np.float32)
    expected = ndimage.correlate(x, w, mode="constant", cval=np.nan,
                                 origin=origin)
    got = clconv.correlate(x, w, mode="constant", cval=np.nan, origin=origin)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_allclose(got[~np.isnan(got)],
                               expected[~np.isnan(expected)], rtol=0, atol=1e-5)


@pytest.mark.parametrize("cval", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_non_finite_cval_reaches_only_the_nonzero_taps_as_scipy(cval, dtype):
    # SciPy's correlate skips zero weights: an output whose mask meets the
    # outside only by zeros stays finite. It was NaN (0 * cval).
    x = np.arange(1.0, 36.0).reshape(5, 7).astype(dtype)
    for w, origin in [([[1.0, 1.0, 0.0]], 0), ([[0, 1], [0, 1]], 0),
                      ([[0, 0, 0], [2, 1, 0], [0, 0, 0]], (1, -1)),
                      ([[0, 0, 0, 0], [0, 1, -2, 0]], (0, 1))]:
        w = np.asarray(w, dtype)
        for f in ("correlate", "convolve"):
            got = getattr(clconv, f)(x, w, mode="constant", cval=cval,
                                     origin=origin)
            want = getattr(ndimage, f)(x, w, mode="constant", cval=cval,
                                       origin=origin)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5,
                                       err_msg=f"{f} {w.tolist()} {origin}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_and_tiny_weights_are_no_taps_as_in_scipy(dtype):
    # SciPy's correlate and convolve take part only |w| > DBL_EPSILON: a
    # NaN weight made every output NaN here; its 1-D filters keep them.
    rng = np.random.default_rng(31)
    x = rng.standard_normal((6, 9)).astype(dtype)
    for w in [np.array([[1.0, np.nan], [2.0, 3.0]]),
              np.array([[np.nan, 1.0, 2.0], [1e-17, 3.0, -1.0]]),
              np.full((2, 3), 1e-17)]:
        w = w.astype(dtype) if dtype == np.float64 else w.astype(np.float32)
        for f in ("correlate", "convolve"):
            want = getattr(ndimage, f)(x, w)
            got = getattr(clconv, f)(x, w)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    w1 = np.array([1.0, np.nan, 1.0])
    assert np.isnan(clconv.correlate1d(x, w1)).all()
    assert np.isnan(ndimage.correlate1d(x, w1)).all()


def test_zero_d_arrays_and_scalar_like_cvals_as_scipy():
    # A 0-d input with an output given raised AttributeError (a NumPy
    # scalar has no ctypes); a 0-d array or Decimal cval was a TypeError.
    from decimal import Decimal
    for output in (np.float64, np.float32, np.zeros((), np.float64)):
        got = clconv.correlate(np.array(2.0), np.array(3.0), output=output)
        assert float(got) == 6.0 and np.ndim(got) == 0
    assert float(clconv.convolve(np.array(2.0), np.array(-1.0))) == -2.0
    x = np.arange(6.0)
    for cval in (np.array(1.5), Decimal("1.5"), np.float32(1.5)):
        np.testing.assert_allclose(
            clconv.correlate(x, [1, 2, 3], mode="constant", cval=cval),
            ndimage.correlate(x, [1, 2, 3], mode="constant", cval=1.5))


def test_per_axis_arguments_as_scipy_reads_them():
    # SciPy 1.11+ takes a 0-d array as every axis's sigma, size or origin
    # and any iterable as one value per axis (np.iterable); clconv raised
    # TypeError for the first (iteration over a 0-d array) and took only
    # sequences and arrays for the second.
    x = np.random.default_rng(29).random((9, 11))
    np.testing.assert_allclose(clconv.gaussian_filter(x, np.array(1.5)),
                               ndimage.gaussian_filter(x, 1.5),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        clconv.gaussian_filter(x, (s for s in (1.0, 2.0))),
        ndimage.gaussian_filter(x, [1.0, 2.0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        clconv.uniform_filter(x, np.array(3), origin=np.array(1)),
        ndimage.uniform_filter(x, 3, origin=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        clconv.correlate(x, np.ones((3, 2)), origin=range(0, -2, -1)),
        ndimage.correlate(x, np.ones((3, 2)), origin=[0, -1]),
        rtol=1e-5, atol=1e-6)


def test_library_errors_are_python_exceptions_with_its_message():
    with pytest.raises(ValueError, match="matches no device|no device|match"):
        clconv.Session("no-such-device-xyz")
    with pytest.raises(TypeError, match="device must be"):
        clconv.correlate(A, W, device=3)
    assert issubclass(clconv.UnsupportedError, clconv.ClconvError)
    assert issubclass(clconv.OpenCLError, clconv.ClconvError)


def test_filters_without_a_pass_look_at_no_cval_as_scipy():
    # No pass, no C code: SciPy copies the input without reading cval (a
    # string cval raised TypeError)
    for got, expected in [
            (clconv.gaussian_filter(A, 0, cval="x"), ndimage.gaussian_filter(A, 0, cval="x")),
            (clconv.uniform_filter(A, 1, cval="x"), ndimage.uniform_filter(A, 1, cval="x"))]:
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
