"""correlate and convolve's fast path (clconv/_fast.py): bit-identical to
the general path and as close to SciPy on every mode, never reused with
another call's mask, cval or origin, and out of the way of every call it
does not cover."""
import numpy as np
import pytest
from conftest import assert_close, bound, ndimage

import clconv
from clconv import _fast, _native

ALL_MODES = ["reflect", "mirror", "nearest", "wrap", "constant",
             "grid-mirror", "grid-wrap", "grid-constant"]
SHAPES = [((37,), (5,)), ((23, 31), (3, 3)), ((17, 20), (4, 5)),
          ((6, 7, 9), (3, 2, 3))]


@pytest.fixture
def fast_calls(monkeypatch):
    """The number of calls the fast path has sent to the library so far."""
    calls = []
    real = _native.NativeSession.correlate_prepared

    def counted(self, *args):
        calls.append(1)
        return real(self, *args)
    monkeypatch.setattr(_native.NativeSession, "correlate_prepared", counted)
    return calls


def general_path(func, *args, **kwargs):
    """func (correlate or convolve) through the general path only."""
    real = _fast.correlate
    _fast.correlate = lambda *a, **k: None
    try:
        return getattr(clconv, func)(*args, **kwargs)
    finally:
        _fast.correlate = real


def assert_same_bits(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))


@pytest.mark.parametrize("mode", ALL_MODES)
@pytest.mark.parametrize("func", ["correlate", "convolve"])
def test_the_fast_path_is_bit_identical_to_the_general_path_and_scipy_close(
        func, mode, rng, fast_calls):
    cval = 1.5 if "constant" in mode else 0.0
    for shape, wshape in SHAPES:
        x = (rng.random(shape) * 2 - 1).astype(np.float32)
        for wdtype in [np.float32, np.float64]:
            w = (rng.random(wshape) * 2 - 1).astype(wdtype)
            origin = [int(rng.integers(-(n // 2), (n - 1) // 2 + 1))
                      for n in wshape]
            kw = dict(mode=mode, cval=cval, origin=origin)
            taken = len(fast_calls)
            got = getattr(clconv, func)(x, w, **kw)
            out = np.full(shape, np.nan, np.float32)
            assert getattr(clconv, func)(x, w, output=out, **kw) is out
            assert len(fast_calls) == taken + 2
            expected = general_path(func, x, w, **kw)
            assert_same_bits(got, expected)
            assert_same_bits(out, expected)
            ref = getattr(ndimage, func)(x.astype(np.float64),
                                         w.astype(np.float64), **kw)
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5)


def test_a_cached_problem_never_keeps_another_calls_mask_cval_or_origin(
        rng, fast_calls):
    x = (rng.random((19, 23)) * 2 - 1).astype(np.float32)
    first = (rng.random((3, 3)) * 2 - 1).astype(np.float32)
    second = (rng.random((3, 3)) * 2 - 1).astype(np.float32)
    out = np.empty_like(x)
    for w in [first, second, first]:  # two masks of one shape, back to back
        clconv.correlate(x, w, output=out)
        assert_same_bits(out, general_path("correlate", x, w))
    w = first.copy()
    clconv.correlate(x, w, output=out)
    w[1, 1] += 1  # the same array, changed in place
    clconv.correlate(x, w, output=out)
    assert_same_bits(out, general_path("correlate", x, w))
    for cval in [0.0, 2.5, -1, 2.5]:  # two cvals, the same problem
        got = clconv.correlate(x, first, mode="constant", cval=cval)
        assert_same_bits(got, general_path("correlate", x, first,
                                           mode="constant", cval=cval))
    for origin in [0, -1, 1, (0, 1), [1, -1]]:
        got = clconv.correlate(x, first, origin=origin)
        assert_same_bits(got, general_path("correlate", x, first,
                                           origin=origin))
    got = clconv.convolve(x, first)  # correlate's problem, then convolve's
    assert_same_bits(got, general_path("convolve", x, first))
    other = (rng.random(x.shape) * 2 - 1).astype(np.float32)  # new data
    assert_same_bits(clconv.correlate(other, first),
                     general_path("correlate", other, first))
    assert len(fast_calls) == 16


def test_calls_outside_the_common_case_take_the_general_path(rng, fast_calls):
    x = (rng.random((24, 30)) * 2 - 1).astype(np.float32)
    w = (rng.random((3, 5)) * 2 - 1)

    def right(input, weights, **kw):
        expected = ndimage.correlate(np.asarray(input, np.float64),
                                     np.asarray(weights, np.float64),
                                     **{k: v for k, v in kw.items()
                                        if k != "output"})
        got = clconv.correlate(input, weights, **kw)
        assert_close(np.asarray(got, np.float64), expected,
                     bound(input, np.asarray(weights, np.float64),
                           kw.get("mode", "reflect"), 0.0, 0, "f") * 2)

    right(x[:, ::2], w)                             # not contiguous
    right(np.asfortranarray(x), w)                  # Fortran order
    right(x.astype(">f4"), w)                       # big-endian
    right(x.astype(np.float64), w)                  # float64
    right(x, w.astype(">f8"))                       # big-endian mask
    right(x, w.tolist())                            # a list
    right(x, w[:1])                                 # a mask axis of width 1
    right(x, (w * 10).astype(np.int64))            # integer mask
    right(x, w, output=x.copy())                    # distinct output: fast
    assert len(fast_calls) == 1
    y = x.copy()
    right(y, w, output=y)                           # the input as output
    big = np.zeros((24, 31), np.float32)
    big[:, :30] = x
    right(big[:, :30], w, output=np.empty((24, 30), np.float32))
    z = np.zeros(24 * 30 + 1, np.float32)
    z[:-1] = x.ravel()
    right(z[:-1].reshape(24, 30), w, output=z[1:].reshape(24, 30))  # overlap
    right(x, w, output=np.empty(x.shape, np.float64))  # float64 output
    right(x[None], w[None], mode="wrap")            # 3D, width-1 axis
    got = clconv.correlate(x, w[0], axes=[1])       # axes given
    np.testing.assert_allclose(got, ndimage.correlate1d(x, w[0], axis=1),
                               rtol=0, atol=1e-5)
    square = np.ascontiguousarray(w[:, 1:4])
    got = clconv.correlate(x, square, mode="constant", cval=np.nan)  # padded
    np.testing.assert_allclose(got, ndimage.correlate(x, square, cval=np.nan,
                                                      mode="constant"),
                               rtol=0, atol=1e-5)
    assert len(fast_calls) == 1  # none of these
    readonly = np.empty_like(x)
    readonly.flags.writeable = False
    assert _fast.correlate(x, w, readonly, "reflect", 0.0, 0, None, None,
                           False) is None


@pytest.mark.parametrize("call", [
    dict(origin=2),                        # invalid origin
    dict(origin=[0, 0, 0]),                # origin of the wrong length
    dict(mode="bogus"),
    dict(cval="1"),
    dict(cval=10 ** 400, mode="reflect"),  # float(cval) overflows
    dict(output=np.empty((3, 3), np.float32)),
    dict(device=3),
])
def test_the_fast_path_raises_the_general_paths_errors(call, rng):
    x = (rng.random((12, 14)) * 2 - 1).astype(np.float32)
    w = np.ones((3, 3), np.float32)
    with pytest.raises(Exception) as general:
        general_path("correlate", x, w, **call)
    for _ in range(2):  # a first call and one after it (nothing cached)
        with pytest.raises(general.type) as fast:
            clconv.correlate(x, w, **call)
        assert str(fast.value) == str(general.value)
