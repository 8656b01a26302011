"""Every function against scipy.ndimage: every mode, random shapes
(size 1, masks wider than the data), dtypes, origins, axes, layouts."""
import itertools

import numpy as np
import pytest
from conftest import MODES, assert_close, bound, ndimage

import clconv

DTYPES = [np.float32, np.float64, np.int16, np.uint8, np.int32, np.int64]


def random_input(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "u":
        return rng.integers(0, 200, size=shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-100, 100, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return (rng.random(shape) * 2 - 1).astype(dtype)


def random_weights(rng, shape, nonnegative):
    w = rng.random(shape)
    return w if nonnegative else w * 2 - 1


def random_origin(rng, wshape):
    return [int(rng.integers(-(n // 2), (n - 1) // 2 + 1)) for n in wshape]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("func", ["correlate", "convolve"])
def test_matches_scipy_on_random_shapes_masks_dtypes_and_origins(func, ndim, mode, rng):
    for trial in range(6):
        shape = tuple(int(n) for n in rng.integers(1, 12 if ndim == 3 else 40, size=ndim))
        if trial == 0:
            shape = (1,) * ndim  # size 1 everywhere
        # Widths up to 5 (1D) or 3 (2D/3D) keep the number of distinct
        # kernels (each one a build on a cold cache) small.
        maxw = 5 if ndim == 1 else 3
        wshape = tuple(int(n) for n in rng.integers(1, maxw + 1, size=ndim))
        if trial == 1:
            shape = (2,) * ndim  # data narrower than the mask
            wshape = (maxw,) * ndim
        dtype = DTYPES[trial % len(DTYPES)]
        x = random_input(rng, shape, dtype)
        w = random_weights(rng, wshape, np.dtype(dtype).kind in "ub")
        origin = random_origin(rng, wshape)
        cval = float(rng.integers(-3, 4)) if mode == "constant" else 0.0
        expected = getattr(ndimage, func)(x, w, mode=mode, cval=cval, origin=origin)
        got = getattr(clconv, func)(x, w, mode=mode, cval=cval, origin=origin)
        wb = w[(slice(None, None, -1),) * ndim] if func == "convolve" else w
        ob = origin
        if func == "convolve":
            ob = [-o - (0 if n & 1 else 1) for o, n in zip(origin, wshape)]
        assert_close(got, expected, bound(x, wb, mode, cval, ob, expected.dtype.kind))


@pytest.mark.parametrize("mode", MODES)
def test_correlate1d_and_convolve1d_along_every_axis(mode, rng):
    x = random_input(rng, (7, 9, 11), np.float64)
    for axis, width in itertools.product([0, 1, 2, -1], [1, 2, 5, 6]):
        w = random_weights(rng, width, False)
        origin = random_origin(rng, [width])[0]
        for name in ["correlate1d", "convolve1d"]:
            expected = getattr(ndimage, name)(x, w, axis=axis, mode=mode, cval=0.5,
                                              origin=origin)
            got = getattr(clconv, name)(x, w, axis=axis, mode=mode, cval=0.5,
                                        origin=origin)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5 * width)


@pytest.mark.parametrize("mode", MODES)
def test_gaussian_filter_matches_scipy(mode, rng):
    x = random_input(rng, (19, 23, 6), np.float32)
    for sigma, order in [(1.0, 0), ((0.5, 2.0, 1.0), 0), (1.5, 1), (1.2, (0, 2, 1))]:
        expected = ndimage.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.25)
        got = clconv.gaussian_filter(x, sigma, order=order, mode=mode, cval=0.25)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)
    for radius in [0, 2, (1, 3, 0)]:
        expected = ndimage.gaussian_filter(x, 2.0, mode=mode, radius=radius)
        got = clconv.gaussian_filter(x, 2.0, mode=mode, radius=radius)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)
    expected = ndimage.gaussian_filter1d(x, 1.7, axis=1, order=2, mode=mode, truncate=3.0)
    got = clconv.gaussian_filter1d(x, 1.7, axis=1, order=2, mode=mode, truncate=3.0)
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)


def test_gaussian_filter_integer_input_keeps_scipy_intermediate_dtype(rng):
    x = random_input(rng, (30, 40), np.uint8)
    expected = ndimage.gaussian_filter(x, 1.5)
    got = clconv.gaussian_filter(x, 1.5)
    assert got.dtype == np.uint8
    # 1 per pass (python/README.md: each pass truncated to uint8)
    assert np.abs(got.astype(int) - expected.astype(int)).max() <= 2


@pytest.mark.parametrize("mode", MODES)
def test_uniform_filter_matches_scipy(mode, rng):
    x = random_input(rng, (17, 13, 5), np.float64)
    # sizes of 1 or less leave their axes alone, as SciPy's do
    for size, origin in [(3, 0), ((4, 1, 2), (1, 0, -1)), (6, -3), (1, 0),
                         (0, 0), ((0, 3, -2), (5, 1, 7))]:
        expected = ndimage.uniform_filter(x, size, mode=mode, cval=-1.0, origin=origin)
        got = clconv.uniform_filter(x, size, mode=mode, cval=-1.0, origin=origin)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    expected = ndimage.uniform_filter1d(x, 4, axis=0, mode=mode, origin=1)
    got = clconv.uniform_filter1d(x, 4, axis=0, mode=mode, origin=1)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


def full_weights(w, axes, ndim):
    """The SciPy (no axes=) equivalent of weights spanning `axes`."""
    order = np.argsort(axes)
    shape = [1] * ndim
    for i, a in enumerate(axes):
        shape[a] = w.shape[i]
    return np.transpose(w, order).reshape(shape)


@pytest.mark.parametrize("mode", MODES)
def test_axes_run_a_lower_dimensional_mask_over_a_batch(mode, rng):
    x = random_input(rng, (5, 6, 7, 4), np.float32)
    for axes in [(1, 2), (3, 0), (0, 2, 3), (-1,)]:
        naxes = [a % x.ndim for a in axes]
        w = random_weights(rng, tuple(int(n) for n in rng.integers(2, 4, size=len(axes))), False)
        origin = random_origin(rng, w.shape)
        full_origin = [0] * x.ndim
        for a, o in zip(naxes, origin):
            full_origin[a] = o
        fw = full_weights(w, naxes, x.ndim)
        expected = ndimage.correlate(x, fw, mode=mode, origin=full_origin)
        got = clconv.correlate(x, w, mode=mode, origin=origin, axes=axes)
        assert_close(got, expected, bound(x, fw, mode, 0.0, full_origin, "f"))
        # gaussian and uniform filters over those axes only
        expected = ndimage.gaussian_filter(x, [1.0 if a in naxes else 0 for a in range(4)],
                                           mode=mode)
        got = clconv.gaussian_filter(x, 1.0, mode=mode, axes=axes)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)
        expected = ndimage.uniform_filter(x, [3 if a in naxes else 1 for a in range(4)],
                                          mode=mode)
        got = clconv.uniform_filter(x, 3, mode=mode, axes=axes)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)


def test_layouts_and_byte_orders_are_converted_never_misread(rng):
    base = random_input(rng, (20, 30, 8), np.float64)
    w = random_weights(rng, (3, 4, 2), False)
    expected = ndimage.correlate(base, w)
    views = {
        "fortran": np.asfortranarray(base),
        "big-endian": base.astype(">f8"),
        "big-endian float32": base.astype(">f4"),
        "strided": np.pad(base, 1)[1:-1, 1:-1, 1:-1],
        "reversed copy": base[::-1, :, ::-1][::-1, :, ::-1],
    }
    for name, v in views.items():
        got = clconv.correlate(v, w)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5, err_msg=name)
    step = base[::2, ::3, :]
    np.testing.assert_allclose(clconv.correlate(step, w), ndimage.correlate(step, w),
                               rtol=0, atol=1e-5)
    tr = base.transpose(2, 0, 1)
    np.testing.assert_allclose(clconv.correlate(tr, w), ndimage.correlate(tr, w),
                               rtol=0, atol=1e-5)
    # big-endian weights and a big-endian output array
    out = np.empty(base.shape, ">f4")
    r = clconv.correlate(base, w.astype(">f8"), output=out)
    assert r is out
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-5)


def test_output_dtype_and_output_array_as_scipy(rng):
    x = random_input(rng, (10, 12), np.int16)
    w = np.ones((3, 3))
    assert clconv.correlate(x, w).dtype == ndimage.correlate(x, w).dtype == np.int16
    for out in [np.float64, "float32", np.dtype(np.int32)]:
        expected = ndimage.correlate(x, w, output=out)
        got = clconv.correlate(x, w, output=out)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, atol=1e-3)
    out = np.zeros((10, 12), np.float64)
    assert clconv.correlate(x, w, output=out) is out
    # the output may be the input itself
    y = x.astype(np.float32)
    expected = ndimage.correlate(y, w)
    clconv.correlate(y, w, output=y)
    np.testing.assert_allclose(y, expected, atol=1e-4)
    b = rng.random((8, 9)) < 0.5
    assert_close(clconv.correlate(b, w), ndimage.correlate(b, w), 0)


def test_bool_outputs_truncate_as_scipy():
    # SciPy stores a result in a bool output by a C cast to npy_bool
    # (unsigned char): 0.5 and -0.5 are False, 1.5 True; a uniform
    # filter of a bool image is True only where its mean reaches 1.
    b = np.array([0, 1, 1, 0, 0, 0, 1, 1, 1, 0], bool)
    x = np.array([0.25, 0.5, 1.5, -0.5, 2.5, 0.0])
    b2 = np.ones((5, 6), bool)
    b2[0, 0] = b2[3, 4] = False
    calls = [("correlate1d", (b, [0.5, 0.5]), {}),
             ("convolve1d", (b, [0.25, 0.5]), {}),
             ("correlate", (b, [0.3, 0.3, 0.3]), {}),
             ("uniform_filter1d", (b, 3), {}),
             ("gaussian_filter1d", (b, 1.0), {}),
             ("correlate1d", (x, [1.0]), {"output": bool}),
             ("correlate", (x, [1.0]), {"output": np.zeros(6, bool)}),
             ("uniform_filter", (b2, 3), {}),
             ("gaussian_filter", (b2, 0.7), {}),
             ("gaussian_filter", (b2, 1.0), {"order": (0, 1)}),
             ("uniform_filter", (b2.astype(np.float32) * 3, 2), {"output": bool})]
    for name, args, kw in calls:
        expected = getattr(ndimage, name)(*args, **kw)
        got = getattr(clconv, name)(*args, **kw)
        assert got.dtype == expected.dtype == np.bool_
        # SciPy's bytes may be 2 or more: compare truth values
        np.testing.assert_array_equal(got.view(np.uint8) != 0,
                                      expected.view(np.uint8) != 0,
                                      err_msg=name)


@pytest.mark.parametrize("mode", MODES)
def test_uniform_filter_non_finite_values_as_scipys_running_sum(mode, rng):
    # SciPy's box filter slides a running sum: a NaN that enters a line's
    # window makes the rest of the line NaN, an infinity is NaN once it
    # has left the window. clconv's sums were NaN only inside the window.
    def kinds(a):
        return np.where(np.isnan(a), 2, np.where(np.isinf(a), np.sign(a), 0))
    x = rng.standard_normal((6, 9))
    x[1, 2], x[3, 6], x[4, 1], x[4, 7] = np.nan, np.inf, -np.inf, np.inf
    cvals = [0.0, np.nan, np.inf] if mode == "constant" else [0.0]
    for cval, dtype, size, origin in itertools.product(
            cvals, [np.float64, np.float32], [3, (2, 4)], [0, (0, -1)]):
        xs = x.astype(dtype)
        for expected, got in [
                (ndimage.uniform_filter(xs, size, mode=mode, cval=cval, origin=origin),
                 clconv.uniform_filter(xs, size, mode=mode, cval=cval, origin=origin)),
                (ndimage.uniform_filter1d(xs, 3, axis=0, mode=mode, cval=cval, origin=1),
                 clconv.uniform_filter1d(xs, 3, axis=0, mode=mode, cval=cval, origin=1))]:
            np.testing.assert_array_equal(kinds(got), kinds(expected))
            finite = np.isfinite(expected)
            np.testing.assert_allclose(got[finite], expected[finite], atol=1e-5)


def test_masks_wider_than_the_librarys_1023_taps_as_scipy(rng):
    # The library takes at most 1023 taps along an axis; SciPy any number
    # (gaussian_filter with sigma 300 is 2401 wide). Those raised
    # ValueError("mask width must be in 1..1023").
    x = rng.random((3, 40))
    w = rng.random(1100) - 0.5
    for mode, origin in [("wrap", 7), ("constant", -3), ("nearest", 0)]:
        expected = ndimage.correlate1d(x, w, mode=mode, cval=1.5, origin=origin)
        got = clconv.correlate1d(x, w, mode=mode, cval=1.5, origin=origin)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-3)
    expected = ndimage.gaussian_filter1d(x, 2.0, radius=520, mode="mirror")
    got = clconv.gaussian_filter1d(x, 2.0, radius=520, mode="mirror")
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
    w2 = rng.random((2, 1030))
    expected = ndimage.convolve(x, w2, mode="wrap", origin=(0, 5))
    got = clconv.convolve(x, w2, mode="wrap", origin=(0, 5))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-3)


def test_float32_output_is_written_in_place(rng, monkeypatch):
    """A float32 C-contiguous output= apart from the input receives the
    library's result directly: no array of clconv's own, no copy (np.copyto
    is never called); views, an output that is the input, and other dtypes
    still give SciPy's values."""
    import clconv._filters as filters
    x = rng.random((37, 45)).astype(np.float32)
    w = rng.random((3, 5))
    copies = []
    real_copyto = np.copyto
    monkeypatch.setattr(filters.np, "copyto",
                        lambda dst, src, **kw: (copies.append(dst.shape),
                                                real_copyto(dst, src, **kw)))
    for mode in MODES:
        expected = ndimage.correlate(x, w, mode=mode)
        out = np.full(x.shape, np.nan, np.float32)
        assert clconv.correlate(x, w, output=out, mode=mode) is out
        assert_close(out, expected, bound(x, w, mode, 0.0, 0, "f"))
    assert copies == []
    big = np.full((40, 50), np.nan, np.float32)
    view = big[1:38, 2:47]  # not contiguous: computed aside, then copied
    assert clconv.correlate(x, w, output=view) is view
    assert_close(view, ndimage.correlate(x, w), bound(x, w, "reflect", 0.0, 0, "f"))
    assert np.isnan(big[0, 0]) and np.isnan(big[39, 49]) and copies == [x.shape]
    y = x.copy()  # the input itself: never written while it is read
    clconv.correlate(y, w, output=y)
    assert_close(y, ndimage.correlate(x, w), bound(x, w, "reflect", 0.0, 0, "f"))


def test_complex_input_and_weights_as_scipy(rng):
    x = rng.random((9, 11)) + 1j * rng.random((9, 11))
    w = rng.random((3, 2)) - 1j * rng.random((3, 2))
    for func in ["correlate", "convolve"]:
        for xi, wi in [(x, w), (x, w.real), (x.real, w)]:
            expected = getattr(ndimage, func)(xi, wi, mode="wrap")
            got = getattr(clconv, func)(xi, wi, mode="wrap")
            assert got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, atol=1e-5)
    for func in ["correlate1d", "convolve1d"]:
        expected = getattr(ndimage, func)(x, w[:, 0], axis=0)
        got = getattr(clconv, func)(x, w[:, 0], axis=0)
        np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(clconv.gaussian_filter(x, 1.0),
                               ndimage.gaussian_filter(x, 1.0), atol=1e-5)
    np.testing.assert_allclose(clconv.uniform_filter(x, 3),
                               ndimage.uniform_filter(x, 3), atol=1e-5)


def test_complex_weights_on_integer_input_as_scipy():
    # The real and imaginary parts were computed in the input's dtype and
    # rounded and wrapped there (uint8: 236 for -20).
    cases = [(np.array([10, 20, 30, 40], np.uint8), np.array([1, -2, 1]) + 0.5j),
             (np.array([1, 2, 3, 4], np.int32), np.array([0.25, 0.25, 0.25]) + 0j),
             (np.arange(12, dtype=np.int16).reshape(3, 4) * 100,
              np.array([[1, -2], [0.5, 3]]) - 0.25j),
             (np.array([True, False, True, True]), np.array([0.5, -1.5]) + 2j)]
    for x, w in cases:
        funcs = ["correlate", "convolve"] + (["correlate1d", "convolve1d"] if w.ndim == 1 else [])
        for func in funcs:
            expected = getattr(ndimage, func)(x, w, mode="nearest")
            got = getattr(clconv, func)(x, w, mode="nearest")
            assert got.dtype == expected.dtype, func
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-3,
                                       err_msg="%s %s" % (func, x.dtype))


def test_more_than_three_dimensions_where_the_mask_spans_three(rng):
    x = random_input(rng, (3, 4, 5, 6, 2), np.float32)
    w = random_weights(rng, (3, 1, 2, 3, 1), False)
    expected = ndimage.correlate(x, w, mode="mirror")
    got = clconv.correlate(x, w, mode="mirror")
    assert_close(got, expected, bound(x, w, "mirror", 0.0, 0, "f"))
    np.testing.assert_allclose(clconv.gaussian_filter(x, 1.0),
                               ndimage.gaussian_filter(x, 1.0), atol=2e-5)


@pytest.mark.parametrize("shape,wshape,mode", [
    ((4, 5, 6, 7), (3, 3, 3, 3), "reflect"),
    ((4, 5, 6, 7), (3, 3, 3, 3), "grid-constant"),
    ((3, 4, 5, 6, 2), (2, 2, 2, 2, 1), "mirror"),
    ((5, 4, 6, 5), (2, 3, 1, 2), "wrap"),
    ((3, 4, 2, 5, 3), (3, 2, 2, 3, 2), "nearest"),
    ((2, 3, 2, 3, 2, 3), (2, 2, 2, 2, 2, 2), "constant"),
    ((2, 7, 3, 4), (3, 9, 2, 2), "grid-wrap"),  # wider than the data
    ((2, 7, 3, 4), (3, 9, 2, 2), "grid-mirror"),
])
def test_masks_spanning_more_than_three_axes(rng, mode, shape, wshape):
    """SciPy takes a mask of any rank: the leading axes' taps are summed as
    3-axis correlations on the device (_run_padded)."""
    for dtype in [np.float32, np.float64, np.uint8]:
        x = random_input(rng, shape, dtype)
        w = random_weights(rng, wshape, dtype == np.uint8)
        origin = random_origin(rng, wshape)
        for func in ["correlate", "convolve"]:
            kw = dict(mode=mode, cval=0.75, origin=origin)
            expected = getattr(ndimage, func)(x, w, **kw)
            got = getattr(clconv, func)(x, w, **kw)
            ref_origin = origin if func == "correlate" else None
            if ref_origin is None:
                # the bound's reference as a correlation with the flipped
                # mask (the origin as SciPy's convolve turns it)
                wf = w[(slice(None, None, -1),) * w.ndim]
                ref_origin = [-o - (1 - n % 2) for o, n in zip(origin, wshape)]
                assert_close(got, expected,
                             bound(x, wf, mode, 0.75, ref_origin,
                                   np.dtype(dtype).kind))
            else:
                assert_close(got, expected,
                             bound(x, w, mode, 0.75, origin,
                                   np.dtype(dtype).kind))
    out = np.full(shape, np.nan)
    assert clconv.correlate(x, w, out, mode=mode) is out
    np.testing.assert_allclose(
        out, ndimage.correlate(x, w, np.empty(shape), mode=mode), atol=1e-3)


def test_masks_over_four_axes_keep_scipys_nan_cval_and_zero_taps(rng):
    x = random_input(rng, (3, 4, 5, 6), np.float64)
    w = random_weights(rng, (2, 3, 2, 3), False)
    w[1] = 0  # a whole sub-mask of zeros: skipped, as SciPy skips zeros
    for cval in [np.nan, np.inf, 2.5]:
        expected = ndimage.correlate(x, w, mode="constant", cval=cval)
        got = clconv.correlate(x, w, mode="constant", cval=cval)
        assert (np.isnan(got) == np.isnan(expected)).all()
        fin = np.isfinite(expected)
        np.testing.assert_allclose(got[fin], expected[fin], atol=1e-5)
    zero = np.zeros((2, 2, 2, 2))
    np.testing.assert_array_equal(
        clconv.correlate(x, zero, mode="constant", cval=np.nan),
        ndimage.correlate(x, zero, mode="constant", cval=np.nan))


def test_empty_arrays_and_scalar_masks(rng):
    x = np.zeros((0, 5))
    assert clconv.correlate(x, np.ones((3, 3))).shape == (0, 5)
    y = random_input(rng, (4, 5), np.float64)
    np.testing.assert_allclose(clconv.correlate(y, [[2.5]]), ndimage.correlate(y, [[2.5]]))


def test_results_are_new_c_contiguous_arrays_of_the_native_dtype(rng):
    x = random_input(rng, (6, 7, 8), np.float32)
    for v in [x, x.transpose(2, 0, 1), x.astype(">f4"), np.asfortranarray(x)]:
        for y in [clconv.correlate(v, np.ones((3, 1, 2)), mode="constant"),
                  clconv.correlate(v, np.ones((3, 3, 3))),
                  clconv.correlate1d(v, [1.0, 2.0], axis=0),
                  clconv.gaussian_filter(v, 1.0), clconv.uniform_filter(v, 1)]:
            assert y.flags.c_contiguous and y.dtype == np.float32
            assert not np.shares_memory(y, v)


ALL_MODES = MODES + ["grid-mirror", "grid-wrap", "grid-constant"]


@pytest.fixture
def no_host_padding(monkeypatch):
    """Fail any call that would extend the input on the host: the library's
    own border modes must serve it."""
    from clconv import _filters

    def refuse(*args, **kwargs):
        raise AssertionError("the input was padded on the host")
    monkeypatch.setattr(_filters, "_run_padded", refuse)


@pytest.mark.parametrize("mode", ALL_MODES)
def test_every_mode_and_alias_runs_in_the_library_without_host_padding(
        mode, rng, no_host_padding):
    cval = 1.5 if "constant" in mode else 0.0
    for shape, wshape in [((7, 9), (3, 2)), ((2, 3), (5, 4)), ((1,), (3,))]:
        x = random_input(rng, shape, np.float64)
        w = random_weights(rng, wshape, False)
        origin = random_origin(rng, wshape)
        for func in ["correlate", "convolve"]:
            expected = getattr(ndimage, func)(x, w, mode=mode, cval=cval,
                                              origin=origin)
            got = getattr(clconv, func)(x, w, mode=mode, cval=cval, origin=origin)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5,
                                       err_msg="%s %s %s" % (func, shape, wshape))


@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_batches_run_in_the_library_without_host_padding(mode, rng, no_host_padding):
    # 1-D passes over a 2D array (the other axis a batch, merged), a 2-axis
    # mask over 4D (two batch axes between and after: moved and folded)
    # and a 3-axis mask beside a batch (one call per item).
    x = random_input(rng, (12, 10), np.float32)
    np.testing.assert_allclose(clconv.gaussian_filter(x, 1.0, mode=mode),
                               ndimage.gaussian_filter(x, 1.0, mode=mode),
                               rtol=0, atol=2e-5)
    np.testing.assert_allclose(clconv.uniform_filter1d(x, 3, axis=0, mode=mode),
                               ndimage.uniform_filter1d(x, 3, axis=0, mode=mode),
                               rtol=0, atol=2e-5)
    x = random_input(rng, (3, 4, 5, 6), np.float32)
    w = random_weights(rng, (3, 2), False)
    expected = ndimage.correlate(x, full_weights(w, [0, 2], 4), mode=mode)
    got = clconv.correlate(x, w, mode=mode, axes=(0, 2))
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)
    x = random_input(rng, (3, 2, 4, 5, 2), np.float32)
    w = random_weights(rng, (2, 3, 2), False)
    expected = ndimage.correlate(x, full_weights(w, [0, 2, 4], 5), mode=mode)
    got = clconv.correlate(x, w, mode=mode, axes=(0, 2, 4))
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)


def test_a_non_finite_cval_takes_the_host_path_as_scipy(rng):
    x = random_input(rng, (6, 7), np.float64)
    w = random_weights(rng, (3, 3), False)
    for cval in [np.nan, np.inf]:
        expected = ndimage.correlate(x, w, mode="constant", cval=cval)
        got = clconv.correlate(x, w, mode="constant", cval=cval)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)
