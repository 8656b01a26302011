"""clconv: scipy.ndimage's convolution filters on any OpenCL device.

The functions take SciPy's arguments with SciPy's defaults and meanings
(``mode='reflect'``) and a ``device=`` selector or :class:`Session`::

    import numpy as np, clconv
    y = clconv.correlate(np.random.rand(512, 512), np.ones((5, 5)) / 25)
    g = clconv.gaussian_filter(volume, sigma=2.0, device="gpu")

See ``clconv.devices()`` for the devices, ``clconv.dask`` for Dask arrays.
"""
from ._derivatives import (gaussian_gradient_magnitude, gaussian_laplace,
                           laplace, prewitt, sobel)
from ._filters import (convolve, convolve1d, correlate, correlate1d,
                       gaussian_filter, gaussian_filter1d, uniform_filter,
                       uniform_filter1d)
from ._native import (ClconvError, Device, OpenCLError, UnsupportedError,
                      devices)
from ._session import Session

__version__ = "0.1.0"
__all__ = [
    "ClconvError", "Device", "OpenCLError", "Session", "UnsupportedError",
    "convolve", "convolve1d", "correlate", "correlate1d", "devices",
    "gaussian_filter", "gaussian_filter1d", "gaussian_gradient_magnitude",
    "gaussian_laplace", "laplace", "prewitt", "sobel", "uniform_filter",
    "uniform_filter1d",
]
