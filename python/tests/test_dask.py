"""clconv.dask on a dask.distributed LocalCluster of 2 workers over an
array chunked in every axis: equal to SciPy on the whole array."""
import numpy as np
import pytest
from conftest import MODES, ndimage

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import clconv.dask as cd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # Threads in this process: worker processes would each build the
    # kernels again on 2 shared cores.
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                       processes=False, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_every_worker_names_its_device(client):
    devs = clconv_devices()
    picks = client.run(cd.worker_device)
    assert len(picks) == 2
    assert set(picks.values()) <= {d.index for d in devs}


def clconv_devices():
    import clconv
    return clconv.devices()


@pytest.mark.parametrize("mode", MODES)
def test_dask_filters_equal_scipy_on_the_whole_array(client, mode):
    rng = np.random.default_rng(7)
    x = rng.random((23, 17, 12)).astype(np.float32)
    dx = da.from_array(x, chunks=(12, 9, 7))  # chunked in every axis
    w = rng.random((3, 2, 3)) - 0.5
    sigma, origin = (1.0, 2.0, 0.7), (0, 1, -1)
    got = dask.compute(
        cd.correlate(dx, w, mode=mode, cval=0.5, origin=(1, 0, -1)),
        cd.convolve(dx, w, mode=mode),
        cd.gaussian_filter(dx, sigma, mode=mode),
        cd.uniform_filter(dx, 3, mode=mode, origin=origin))
    expected = [ndimage.correlate(x, w, mode=mode, cval=0.5, origin=(1, 0, -1)),
                ndimage.convolve(x, w, mode=mode),
                ndimage.gaussian_filter(x, sigma, mode=mode),
                ndimage.uniform_filter(x, 3, mode=mode, origin=origin)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=0, atol=2e-5)


def test_dask_masks_wider_than_a_chunk_and_than_the_array(client):
    rng = np.random.default_rng(8)
    x = rng.random((9, 30)).astype(np.float32)
    dx = da.from_array(x, chunks=(2, 8))  # the mask is wider than a chunk on axis 0
    for mode in ["reflect", "wrap", "mirror"]:
        w = rng.random((3, 5))
        got = cd.correlate(dx, w, mode=mode).compute()
        np.testing.assert_allclose(got, ndimage.correlate(x, w, mode=mode), rtol=0, atol=2e-5)
    x1 = rng.random(4)
    got = cd.correlate(da.from_array(x1, chunks=2), np.ones(9), mode="wrap").compute()
    np.testing.assert_allclose(got, ndimage.correlate(x1, np.ones(9), mode="wrap"), atol=1e-5)


def test_dask_constant_mode_keeps_scipy_cval_and_intermediate(client):
    # An int16 array cannot hold cval 2.5: SciPy extends with the float;
    # a derivative of a Gaussian sums to 0, so each pass's own cval
    # (SciPy's) differs from a filtered extension in constant mode.
    rng = np.random.default_rng(9)
    xi = rng.integers(0, 100, (14, 15)).astype(np.int16)
    dxi = da.from_array(xi, chunks=(5, 7))
    w = np.ones((3, 5))  # a corner output reads 7 taps of cval
    got = cd.correlate(dxi, w, mode="constant", cval=2.5).compute()
    expected = ndimage.correlate(xi, w, mode="constant", cval=2.5)
    assert got.dtype == np.int16
    assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1
    xf = rng.random((14, 15)).astype(np.float32)
    got = cd.gaussian_filter(da.from_array(xf, chunks=(5, 7)), 1.2, order=(1, 0),
                             mode="constant", cval=2.0).compute()
    expected = ndimage.gaussian_filter(xf, 1.2, order=(1, 0), mode="constant", cval=2.0)
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5)


def test_dask_empty_arrays_give_empty_results_as_scipy(client):
    # An axis of length 0 (chunked or not): SciPy returns an empty array of
    # the input's shape and type; the extension raised IndexError here.
    for shape, chunks in [((0, 29), (1, 11)), ((5, 0), (2, 1)), ((0,), 4)]:
        x = np.zeros(shape, np.float32)
        dx = da.from_array(x, chunks=chunks)
        w = np.ones((3,) * len(shape))
        for got, want in [
                (cd.correlate(dx, w), ndimage.correlate(x, w)),
                (cd.convolve(dx, w, mode="wrap"), ndimage.convolve(x, w, mode="wrap")),
                (cd.gaussian_filter(dx, 1.0), ndimage.gaussian_filter(x, 1.0)),
                (cd.uniform_filter(dx, 3, mode="constant", cval=2.5),
                 ndimage.uniform_filter(x, 3, mode="constant", cval=2.5))]:
            got = got.compute()
            assert got.shape == want.shape and got.dtype == want.dtype


def test_dask_complex_input_takes_a_complex_cval_as_scipy(client):
    # The wrapper checked cval as a real number before extending the array.
    x = (np.arange(72.0).reshape(8, 9) + 1j * np.arange(72.0)[::-1].reshape(8, 9)
         ).astype(np.complex64)
    w = np.array([[1.0, 0.5, 0.0], [2.0, -1.0, 0.25], [0.0, 1.0, 3.0]])
    dx = da.from_array(x, chunks=4)
    for cval in [1 + 1j, 2.5, -3j]:
        got = cd.correlate(dx, w, mode="constant", cval=cval).compute()
        want = ndimage.correlate(x, w, mode="constant", cval=cval)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_dask_grid_constant_cval_and_sizes_as_scipy(client):
    # grid-constant's cval was cast into a uint8 extension (-4 as 252);
    # uniform_filter's size 0 raised where SciPy leaves the axis alone; a
    # NaN cval reached through zero weights; a 0-d array raised.
    a = np.array([10, 20, 30, 40, 50], np.uint8)
    da_a = da.from_array(a, chunks=2)
    for mode in ("grid-constant", "constant"):
        got = cd.correlate(da_a, [0.5, 1, 0], mode=mode, cval=-4).compute()
        np.testing.assert_array_equal(
            got, ndimage.correlate(a, [0.5, 1, 0], mode=mode, cval=-4))
        got = cd.uniform_filter(da_a, 3, mode=mode, cval=300).compute()
        np.testing.assert_array_equal(
            got, ndimage.uniform_filter(a, 3, mode=mode, cval=300))
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    np.testing.assert_array_equal(cd.uniform_filter(dx, 0).compute(),
                                  ndimage.uniform_filter(x, 0))
    w = [[0, 1, 0], [0, 1, 1]]
    for f in ("correlate", "convolve"):
        got = getattr(cd, f)(dx, w, mode="constant", cval=np.nan).compute()
        want = getattr(ndimage, f)(x, w, mode="constant", cval=np.nan)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert float(cd.correlate(da.from_array(np.array(2.0)),
                              np.array(3.0)).compute()) == 6.0


def test_dask_gaussian_bad_radius_and_order_raise_scipys_errors():
    # A negative radius reached dask as a negative extension ("Chunks do
    # not add up to shape"); SciPy's checks run before any graph is made.
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    for kw in [dict(radius=-1), dict(radius=1.5), dict(order=-1)]:
        with pytest.raises(ValueError) as want:
            ndimage.gaussian_filter(x, 1.0, **kw)
        with pytest.raises(ValueError) as got:
            cd.gaussian_filter(dx, 1.0, **kw)
        assert str(got.value) == str(want.value)
    got = cd.gaussian_filter(dx, 1.0, order=(1, 0), radius=(2, 3)).compute()
    want = ndimage.gaussian_filter(x, 1.0, order=(1, 0), radius=(2, 3))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)


def test_dask_uniform_filter_fractional_sizes_as_scipy():
    # SciPy filters an axis whose size is above 1 with int(size) taps: 1.5
    # is a 1-wide pass whose origin is checked (it was no pass at all).
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    with pytest.raises(ValueError, match="invalid origin"):
        ndimage.uniform_filter(x, 1.5, origin=1)
    with pytest.raises(ValueError, match="invalid origin"):
        cd.uniform_filter(dx, 1.5, origin=1)
    for size in (1.5, 2.5, (3.5, 1)):
        np.testing.assert_allclose(cd.uniform_filter(dx, size).compute(),
                                   ndimage.uniform_filter(x, size), rtol=1e-6)


def test_dask_uniform_filter_checks_origins_as_scipy():
    # SciPy checks an origin's range, then the mode, then its type, and
    # only along the axes it filters: a float origin along a size-1 axis
    # runs, 1.5 along a filtered one is a TypeError (it was an IndexError
    # of dask's), 5.5 "invalid origin"
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    for kw in [dict(size=3, origin=1.5), dict(size=3, origin=5.5),
               dict(size=3, origin=1.5, mode="foo")]:
        with pytest.raises(Exception) as want:
            ndimage.uniform_filter(x, **kw)
        with pytest.raises(Exception) as got:
            cd.uniform_filter(dx, **kw)
        assert type(got.value) is type(want.value), (kw, got.value)
        if not isinstance(want.value, TypeError):
            assert str(got.value) == str(want.value)
    got = cd.uniform_filter(dx, [1, 3], origin=[1.5, 0]).compute()
    want = ndimage.uniform_filter(x, [1, 3], origin=[1.5, 0])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_dask_correlate_checks_origins_as_scipy():
    # SciPy: the range of an origin first (1.5 is "Invalid origin"), the
    # mode, then its type (0.5: TypeError, was dask's IndexError); a
    # convolution's True is -1
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    w = np.ones((3, 3))
    for f, kw in [("correlate", dict(origin=1.5)),
                  ("convolve", dict(origin=(0.5, 0))),
                  ("correlate", dict(origin=0.5, mode="foo")),
                  ("convolve", dict(origin=2.0, mode="foo"))]:
        with pytest.raises(Exception) as want:
            getattr(ndimage, f)(x, w, **kw)
        with pytest.raises(Exception) as got:
            getattr(cd, f)(dx, w, **kw)
        assert type(got.value) is type(want.value), (f, kw, got.value)
        if not isinstance(want.value, TypeError):
            assert str(got.value) == str(want.value)
    np.testing.assert_allclose(cd.convolve(dx, w, origin=True).compute(),
                               ndimage.convolve(x, w, origin=True), rtol=1e-6)


def test_dask_correlate_refuses_a_zero_width_mask_as_scipy():
    # SciPy counts the mask's axes wider than 0: "incorrect shape" (it was
    # "Invalid origin")
    x = np.arange(30.0).reshape(5, 6)
    for f in ("correlate", "convolve"):
        with pytest.raises(RuntimeError) as want:
            getattr(ndimage, f)(x, np.ones((0, 3)))
        with pytest.raises(RuntimeError) as got:
            getattr(cd, f)(da.from_array(x, chunks=2), np.ones((0, 3)))
        assert str(got.value) == str(want.value)


def test_dask_correlate_refuses_a_sequence_of_modes_as_scipy():
    x = np.arange(30.0).reshape(5, 6)
    dx = da.from_array(x, chunks=2)
    for f in ("correlate", "convolve"):
        with pytest.raises(RuntimeError) as want:
            getattr(ndimage, f)(x, np.ones((3, 3)), mode=["reflect", "wrap"])
        with pytest.raises(RuntimeError) as got:
            getattr(cd, f)(dx, np.ones((3, 3)), mode=["reflect", "wrap"])
        assert str(got.value) == str(want.value)


def test_dask_uniform_filter_with_nan_is_the_same_for_every_chunking():
    # A chunk cannot follow SciPy's running sum along the whole line past
    # a NaN (python/README.md); uniform_filter1d per chunk made the result
    # depend on the chunks.
    x = np.random.default_rng(7).standard_normal((9, 12))
    x[4, 5], x[2, 2] = np.nan, np.inf
    got = [cd.uniform_filter(da.from_array(x, chunks=c), 3).compute()
           for c in [(9, 12), (3, 4), (2, 5)]]
    for g in got[1:]:
        np.testing.assert_array_equal(g, got[0])
    finite = np.isfinite(x)
    want = ndimage.uniform_filter(np.where(finite, x, 0), 3)
    reached = ndimage.uniform_filter((~finite).astype(float), 3) > 0
    np.testing.assert_allclose(got[0][~reached], want[~reached], atol=1e-5)


def test_dask_results_of_byte_swapped_input_are_native_as_scipy():
    # SciPy's output of a '>f4' or '>u2' input is native float32 or
    # uint16 (zeros of the dtype's name); clconv.dask gave '>f4' and '>u2'
    # (its chunks' output dtype was the input's own).
    rng = np.random.default_rng(12)
    x = rng.random((9, 11)) * 100
    w = rng.random((3, 2)) - 0.5
    for dtype in [">f4", ">u2", ">i2", ">f8", ">c8"]:
        xs = x.astype(dtype)
        dx = da.from_array(xs, chunks=(4, 5))
        cval = np.nan if xs.dtype.kind in "fc" else 2.0  # (the NaN path too)
        for got, expected in [
                (cd.correlate(dx, w), ndimage.correlate(xs, w)),
                (cd.convolve(dx, w, mode="constant", cval=cval),
                 ndimage.convolve(xs, w, mode="constant", cval=cval)),
                (cd.gaussian_filter(dx, 1.0), ndimage.gaussian_filter(xs, 1.0)),
                (cd.uniform_filter(dx, 3), ndimage.uniform_filter(xs, 3))]:
            assert got.dtype == expected.dtype, dtype
            y = got.compute()
            assert y.dtype == expected.dtype, dtype
            np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1)


def test_dask_arrays_of_unknown_chunk_sizes_are_refused_with_advice():
    # A boolean-masked selection has chunks of unknown size (nan): each
    # filter failed deep inside with "arange: cannot compute length" (or
    # a bare AssertionError of dask's where the mask leaves the axis).
    a = np.arange(40.0).reshape(10, 4)
    x = da.from_array(a, chunks=3)
    y = x[x[:, 0] > 5]
    for build in [lambda: cd.correlate(y, np.ones((3, 3))),
                  lambda: cd.convolve(y, np.ones((1, 3))),
                  lambda: cd.gaussian_filter(y, 1.0),
                  lambda: cd.uniform_filter(y, 3)]:
        with pytest.raises(ValueError, match="compute_chunk_sizes"):
            build()
    expected = ndimage.uniform_filter(a[a[:, 0] > 5], 3)
    y.compute_chunk_sizes()
    np.testing.assert_allclose(cd.uniform_filter(y, 3).compute(), expected,
                               rtol=1e-6)


@pytest.mark.parametrize("mode", MODES + [["wrap", "constant", "mirror"]])
def test_dask_derivative_filters_equal_scipy_on_the_whole_array(client, mode):
    """Each pass extended by its own mode and cval (SciPy's sobel smooths
    its difference extended as the difference, not the input), chunks
    smaller than the overlap on one axis, an integer array's intermediate
    truncated as SciPy's."""
    rng = np.random.default_rng(11)
    x = (rng.random((9, 11, 6)) * 50).astype(np.float32)
    u = x.astype(np.uint8)
    dx = da.from_array(x, chunks=(4, 5, 3))
    du = da.from_array(u, chunks=(2, 6, 4))
    got = dask.compute(
        cd.sobel(dx, 1, mode=mode, cval=1.5), cd.prewitt(du, -1, mode=mode),
        cd.laplace(dx, mode=mode, cval=-2), cd.laplace(du, mode=mode),
        cd.gaussian_laplace(dx, 1.0, mode=mode, cval=2),
        cd.gaussian_gradient_magnitude(dx, [1.0, 0.5, 1.5], mode=mode,
                                       truncate=3.0))
    expected = [ndimage.sobel(x, 1, mode=mode, cval=1.5),
                ndimage.prewitt(u, -1, mode=mode),
                ndimage.laplace(x, mode=mode, cval=-2),
                ndimage.laplace(u, mode=mode),
                ndimage.gaussian_laplace(x, 1.0, mode=mode, cval=2),
                ndimage.gaussian_gradient_magnitude(x, [1.0, 0.5, 1.5],
                                                    mode=mode, truncate=3.0)]
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        atol = 3 if e.dtype.kind == "u" else 2e-3
        np.testing.assert_allclose(g.astype(float), e, rtol=0, atol=atol)


def test_dask_derivative_filters_raise_scipys_errors():
    dx = da.zeros((4, 5), chunks=2)
    for call, kind in [(lambda: cd.sobel(dx, 2), ValueError),  # AxisError
                       (lambda: cd.prewitt(dx, 0, mode="bogus"), RuntimeError),
                       (lambda: cd.laplace(dx, mode=["wrap"]), RuntimeError),
                       (lambda: cd.sobel(da.from_array(np.array([object()] * 4)),
                                         0), RuntimeError)]:
        with pytest.raises(kind):
            call()
