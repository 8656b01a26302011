"""Shared helpers: SciPy is the reference; skip cleanly without it."""
import numpy as np
import pytest

ndimage = pytest.importorskip("scipy.ndimage")

MODES = ["reflect", "mirror", "nearest", "wrap", "constant"]


def bound(input, weights, mode, cval, origin, output_kind):
    """The error float32 arithmetic may make: 4 * taps * FLT_EPSILON *
    sum |input * weights| per element (the library's own bound), plus 1
    for integer outputs (float-to-integer truncation at a boundary)."""
    taps = max(1, np.count_nonzero(weights))
    absref = ndimage.correlate(np.abs(np.asarray(input, np.float64)),
                               np.abs(weights), mode=mode, cval=abs(cval),
                               origin=origin)
    b = 4 * taps * np.finfo(np.float32).eps * absref + 1e-30
    if output_kind in "iub":
        b = b + 1
    return b


def assert_close(got, expected, bnd):
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    g = got.astype(np.float64)
    e = expected.astype(np.float64)
    err = np.abs(g - e)
    bad = ~(err <= bnd) & ~(np.isnan(g) & np.isnan(e))
    if bad.any():
        idx = np.argwhere(bad)[:5]
        detail = ", ".join("%s: got %r expected %r" % (tuple(i), g[tuple(i)], e[tuple(i)])
                           for i in idx)
        pytest.fail("%d of %d elements outside the bound; %s"
                    % (bad.sum(), bad.size, detail))


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(20261123)
