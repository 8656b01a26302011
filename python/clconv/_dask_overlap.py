"""clconv.dask's chunk plumbing: the whole array extended by a filter's
reach with SciPy's border mode, each chunk filtered with that reach as
``map_overlap``'s depth, the extension cropped (see clconv.dask)."""
from __future__ import annotations

import math
import numbers
from typing import Callable

import numpy as np

from . import _filters


def _extend(x, reach, modes, cval):
    """x extended on each axis a by reach[a] = (left, right) elements with
    SciPy's mode modes[a]."""
    import dask.array as da
    for a, (left, right) in enumerate(reach):
        if left == right == 0:
            continue
        width = [(0, 0)] * x.ndim
        width[a] = (left, right)
        pad = _filters.PAD_MODES[modes[a]]
        if pad == "constant":
            x = da.pad(x, width, mode="constant", constant_values=cval)
        elif max(left, right) < x.shape[a]:
            x = da.pad(x, width, mode=pad)  # slices, cheaper than a gather
        else:
            idx = _filters._extension_index(x.shape[a], left, right, modes[a])
            x = x[(slice(None),) * a + (idx,)]
    return x


def _merge_small(chunks, least):
    """Chunk sizes with every chunk at least `least` long (small ones merged
    into their neighbour)."""
    out = []
    for n in chunks:
        if out and (out[-1] < least or n < least):
            out[-1] += n
        else:
            out.append(n)
    if len(out) > 1 and out[-1] < least:
        out[-2] += out.pop()
    return out


def _exact_in(cval: float, dtype) -> bool:
    """Does dtype hold cval exactly (the extension is made in x's dtype)?"""
    kind = np.dtype(dtype).kind
    if kind == "c":
        return True
    if kind == "b":
        return cval in (0.0, 1.0)
    if kind not in "iu":
        return True
    info = np.iinfo(np.dtype(dtype))
    return float(cval).is_integer() and info.min <= cval <= info.max


def _result_dtype(dtype, complex_result: bool = False) -> np.dtype:
    """SciPy's dtype for the result of an input of ``dtype`` (no output
    given): the dtype's name, so in the host's byte order ('>f4' gives
    float32), or complex where the input or the weights are."""
    if complex_result:
        return np.promote_types(dtype, np.complex64)
    return np.dtype(np.dtype(dtype).name)


def _dask_array(x):
    """x as a Dask array whose chunk sizes are known (its extension and
    overlap are cut by them)."""
    import dask.array as da
    x = da.asarray(x)
    if any(math.isnan(n) for n in x.shape):
        raise ValueError("the chunk sizes of this Dask array are unknown "
                         "(shape %s): call x.compute_chunk_sizes() first"
                         % (x.shape,))
    return x


def _run(x, reach, modes, cval, block_fn: Callable, dtype):
    """block_fn on every chunk of x extended by reach with modes; it must
    return dtype (it gets float64 chunks where x's integer dtype cannot
    hold the constant mode's cval: SciPy extends with the float cval)."""
    import dask.array as da
    x = da.asarray(x)
    # A complex cval extends a complex array (as clconv.correlate takes it).
    if x.dtype.kind == "c" and isinstance(cval, numbers.Complex):
        cval = complex(cval)
    else:
        cval = _filters._check_cval(cval)
    if x.size == 0:  # as SciPy: an empty result (nothing to extend by)
        return da.zeros(x.shape, dtype=dtype, chunks=x.chunks)
    if any(_filters.PAD_MODES[m] == "constant" and r != (0, 0)
           for m, r in zip(modes, reach)) \
            and not _exact_in(cval, x.dtype):
        x = x.astype(np.float64)
    ext = _extend(x, reach, modes, cval)
    depth = {a: max(r) for a, r in enumerate(reach)}
    # The extension joins the edge chunks (as many blocks as x has), and
    # map_overlap needs every chunk at least as deep as the overlap.
    chunks = []
    for a, (left, right) in enumerate(reach):
        c = list(x.chunks[a])
        c[0] += left
        c[-1] += right
        if depth[a] and min(c) < depth[a]:
            c = _merge_small(c, depth[a])
        chunks.append(tuple(c))
    ext = ext.rechunk(tuple(chunks))
    y = ext.map_overlap(block_fn, depth=depth, boundary="none", dtype=dtype,
                        trim=True)
    return y[tuple(slice(left, left + n) for (left, _), n in zip(reach, x.shape))]
