"""pyopencl arrays in and out on their own context, no host round trip."""
import numpy as np
import pytest
from conftest import ndimage

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")

import clconv  # noqa: E402


@pytest.fixture(scope="module")
def queue():
    platforms = cl.get_platforms()
    if not platforms:
        pytest.skip("no OpenCL platform for pyopencl")
    ctx = cl.Context([platforms[0].get_devices()[0]])
    return cl.CommandQueue(ctx)


def test_pyopencl_arrays_stay_on_their_context(queue):
    rng = np.random.default_rng(3)
    for shape, wshape, origin in [((1000,), (5,), 0), ((40, 50), (3, 4), (1, -1)),
                                  ((9, 10, 11), (3, 3, 3), 0)]:
        x = rng.random(shape).astype(np.float32)
        w = rng.random(wshape) - 0.5
        dx = cla.to_device(queue, x)
        for func in ["correlate", "convolve"]:
            dy = getattr(clconv, func)(dx, w, mode="constant", origin=origin)
            assert isinstance(dy, cla.Array)
            assert dy.context == queue.context
            expected = getattr(ndimage, func)(x, w, mode="constant", origin=origin)
            np.testing.assert_allclose(dy.get(), expected, rtol=0, atol=1e-5)
    # into a given output, offset views included
    big = cla.to_device(queue, rng.random(2000).astype(np.float32))
    out = cla.zeros(queue, 2000, np.float32)
    r = clconv.correlate(big[1000:], [1.0, 2.0, 3.0], output=out[1000:], mode="constant")
    np.testing.assert_allclose(r.get(), ndimage.correlate(big.get()[1000:], [1.0, 2.0, 3.0],
                                                          mode="constant"), atol=1e-5)
    assert not out.get()[:1000].any()


@pytest.mark.parametrize("mode", ["reflect", "mirror", "nearest", "wrap",
                                  "constant", "grid-wrap"])
def test_pyopencl_arrays_run_every_mode_and_axes_on_the_device(mode, queue):
    rng = np.random.default_rng(4)
    cval = -0.5 if "constant" in mode else 0.0
    x = rng.random((12, 9)).astype(np.float32)
    dx = cla.to_device(queue, x)
    w = rng.random((4, 3)) - 0.5
    for func in ["correlate", "convolve"]:
        dy = getattr(clconv, func)(dx, w, mode=mode, cval=cval, origin=(1, -1))
        expected = getattr(ndimage, func)(x, w, mode=mode, cval=cval, origin=(1, -1))
        np.testing.assert_allclose(dy.get(), expected, rtol=0, atol=1e-5)
    # a mask over one axis of the two: width 1 along the other
    dy = clconv.correlate(dx, w[:, 0], mode=mode, cval=cval, axes=(0,))
    expected = ndimage.correlate(x, w[:, :1], mode=mode, cval=cval)
    np.testing.assert_allclose(dy.get(), expected, rtol=0, atol=1e-5)


def test_pyopencl_arrays_refuse_what_needs_the_host(queue):
    dx = cla.to_device(queue, np.ones((8, 8), np.float32))
    with pytest.raises(clconv.UnsupportedError, match="cval=nan"):
        clconv.correlate(dx, np.ones((3, 3)), mode="constant", cval=np.nan)
    with pytest.raises(clconv.UnsupportedError, match="float64"):
        clconv.correlate(cla.to_device(queue, np.ones(8)), [1.0], mode="constant")
    with pytest.raises(RuntimeError, match="incorrect shape"):
        clconv.correlate(dx, np.ones(3), mode="constant")


@pytest.mark.parametrize("shape,axes,wshape", [
    ((3, 5, 6, 7), (1, 2, 3), (3, 2, 3)),     # a batch of volumes
    ((2, 3, 9, 10), (2, 3), (3, 4)),          # (N, C, H, W): one batch of 6
    ((4, 9, 10, 3), (1, 2), (3, 3)),          # (N, H, W, C): C one axis
    ((9, 2, 3, 10), (0, 3), (3, 5)),          # a run of two axes between
    ((2, 7, 2, 2, 8), (1, 4), (4, 3)),        # a batch and a run between
    ((5, 6, 3, 2), (0, 1), (2, 3)),           # a run after the last only
])
def test_pyopencl_arrays_of_more_dimensions_fold_into_three(shape, axes, wshape,
                                                            queue):
    rng = np.random.default_rng(5)
    x = rng.random(shape).astype(np.float32)
    w = rng.random(wshape) - 0.5
    dx = cla.to_device(queue, x)
    full = w.reshape([w.shape[axes.index(a)] if a in axes else 1
                      for a in range(len(shape))])
    for mode in ["reflect", "constant", "wrap"]:
        cval = -0.25 if mode == "constant" else 0.0
        for func in ["correlate", "convolve"]:
            dy = getattr(clconv, func)(dx, w, mode=mode, cval=cval, axes=axes,
                                       origin=[0, -1, 0][:len(axes)])
            assert isinstance(dy, cla.Array) and dy.shape == shape
            expected = getattr(ndimage, func)(
                x, full, mode=mode, cval=cval,
                origin=[([0, -1, 0][axes.index(a)] if a in axes else 0)
                        for a in range(len(shape))])
            np.testing.assert_allclose(dy.get(), expected, rtol=0, atol=1e-5)


def test_pyopencl_arrays_whose_axes_do_not_fold_are_refused(queue):
    dx = cla.to_device(queue, np.ones((3, 4, 5, 6, 7), np.float32))
    with pytest.raises(clconv.UnsupportedError, match="leave more than 3"):
        clconv.correlate(dx, np.ones((3, 3, 3)), axes=(0, 2, 4))


def test_pyopencl_output_over_the_input_is_unsupported(queue):
    # It raised the library's ValueError; the README promises
    # UnsupportedError for whatever the device path does not run.
    dx = cla.to_device(queue, np.ones((16, 16), np.float32))
    with pytest.raises(clconv.UnsupportedError, match="overlaps"):
        clconv.correlate(dx, np.ones((3, 3)), output=dx)


def test_pyopencl_arrays_refuse_complex_weights(queue):
    # The weights were cast to float64, their imaginary part dropped with
    # only NumPy's ComplexWarning: a float32 array where SciPy gives the
    # complex correlation.
    dx = cla.to_device(queue, np.ones((6, 7), np.float32))
    for func in ["correlate", "convolve"]:
        with pytest.raises(clconv.UnsupportedError, match="complex"):
            getattr(clconv, func)(dx, np.ones((3, 3)) + 1j)
    # SciPy's argument checks come first, as for real weights
    with pytest.raises(RuntimeError, match="incorrect shape"):
        clconv.correlate(dx, np.ones(3) + 1j)


def test_pyopencl_masks_past_the_library_and_arrays_without_a_queue(queue):
    dx = cla.to_device(queue, np.ones((4, 1100), np.float32))
    # The library's ValueError "mask width must be in 1..1023": SciPy
    # takes the mask (NumPy arrays run it in pieces on the host), so it
    # is one the device path does not run.
    with pytest.raises(clconv.UnsupportedError, match="this mask is 1024 wide"):
        clconv.correlate(dx, np.ones((1, 1024)))
    # An array without a queue: AttributeError ('NoneType' object has no
    # attribute 'context'); pyopencl's own ValueError and advice now.
    with pytest.raises(ValueError, match="with_queue"):
        clconv.correlate(dx.with_queue(None), np.ones((3, 3)))
