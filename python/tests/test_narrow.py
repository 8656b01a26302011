"""uint8, uint16, int16 and float16 input goes to the device as it is (1 or
2 bytes per element, not 4), and every function returns exactly what it
returned when the host converted it to float32 first (CLCONV_PY_UPLOAD=f32
selects that path): SciPy's output dtype and cast. Big-endian and
non-contiguous narrow inputs included."""
import numpy as np
import pytest
from conftest import MODES, assert_close, bound, ndimage

import clconv
from clconv import _native

NARROW = [np.uint8, np.uint16, np.int16, np.float16]


def narrow_input(rng, shape, dtype):
    if dtype == np.float16:
        return (rng.random(shape) * 8 - 4).astype(np.float16)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True,
                        dtype=dtype)


@pytest.fixture
def uploads(monkeypatch):
    """The dtype of every array the library's filter receives."""
    seen = []
    real = _native.NativeSession.correlate_ex

    def spy(self, data, *args, **kw):
        seen.append(data.dtype)
        return real(self, data, *args, **kw)
    monkeypatch.setattr(_native.NativeSession, "correlate_ex", spy)
    return seen


def float32_upload(monkeypatch, func, *args, **kw):
    with monkeypatch.context() as m:
        m.setenv("CLCONV_PY_UPLOAD", "f32")
        return func(*args, **kw)


@pytest.mark.parametrize("dtype", NARROW)
@pytest.mark.parametrize("mode", MODES)
def test_narrow_input_is_uploaded_as_it_is_and_gives_the_same_result(
        dtype, mode, rng, monkeypatch, uploads):
    x = narrow_input(rng, (23, 31), dtype)
    w = rng.random((3, 5)) * 2 - 1
    got = clconv.correlate(x, w, mode=mode, cval=2.0)
    assert [np.dtype(d) for d in uploads] == [np.dtype(dtype)]
    old = float32_upload(monkeypatch, clconv.correlate, x, w, mode=mode, cval=2.0)
    assert uploads[1] == np.float32
    assert got.dtype == old.dtype == dtype
    assert np.array_equal(got, old, equal_nan=True)
    if dtype != np.float16:  # SciPy takes no float16
        expected = ndimage.correlate(x, w, mode=mode, cval=2.0)
        assert_close(got, expected, bound(x, w, mode, 2.0, [0, 0], "i"))


@pytest.mark.parametrize("dtype", NARROW)
def test_big_endian_and_non_contiguous_narrow_input(dtype, rng, monkeypatch, uploads):
    base = narrow_input(rng, (20, 27, 4), dtype)
    w = rng.random((3, 3))
    w /= w.sum()  # within the type's range: SciPy's cast does not wrap
    views = {"big-endian": base.astype(np.dtype(dtype).newbyteorder(">")),
             "strided": base[::2, ::3, :],
             "transposed": base.transpose(2, 0, 1),
             "big-endian strided": base.astype(np.dtype(dtype).newbyteorder(">"))[1::2, :, ::2]}
    for name, v in views.items():
        got = clconv.correlate(v, w[..., None], mode="mirror")
        old = float32_upload(monkeypatch, clconv.correlate, v, w[..., None], mode="mirror")
        assert np.array_equal(got, old, equal_nan=True), name
        if dtype == np.float16:  # SciPy takes no float16
            ref = ndimage.correlate(v.astype(np.float64), w[..., None], mode="mirror")
            np.testing.assert_allclose(got.astype(np.float64), ref, rtol=2e-3,
                                       atol=1e-3, err_msg=name)
        else:
            expected = ndimage.correlate(v, w[..., None], mode="mirror")
            assert_close(got, expected, bound(v, w[..., None], "mirror", 0.0,
                                              [0, 0, 0], "i"))
    assert all(np.dtype(d).itemsize < 4 for d in uploads[::2])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16])
def test_separable_filters_on_narrow_input_as_before(dtype, rng, monkeypatch, uploads):
    x = narrow_input(rng, (25, 30), dtype)
    calls = [(clconv.correlate1d, ndimage.correlate1d, (x, [1.0, -2.0, 0.5]), {"axis": 0}),
             (clconv.uniform_filter, ndimage.uniform_filter, (x, 3), {}),
             (clconv.gaussian_filter, ndimage.gaussian_filter, (x, 1.2), {})]
    for func, ref, args, kw in calls:
        got = func(*args, mode="nearest", **kw)
        old = float32_upload(monkeypatch, func, *args, mode="nearest", **kw)
        expected = ref(*args, mode="nearest", **kw)
        assert got.dtype == old.dtype == expected.dtype
        assert np.array_equal(got, old), func.__name__
        assert np.abs(got.astype(np.int64) - expected.astype(np.int64)).max() <= 1
    assert np.dtype(dtype) in [np.dtype(d) for d in uploads]
