"""Sessions: one device each, plans cached across calls."""
from __future__ import annotations

import os
import threading
from typing import Dict, Optional, Union

from . import _native
from ._native import Device


class Session:
    """A device and its cached plans, reused by every call given it.

    Parameters
    ----------
    device : str, optional
        A clconv device selector: ``"P:D"``, ``"cpu"``, ``"gpu"``, ``"all"``
        or a case-insensitive substring of the device's name, vendor or
        platform; the first device it matches is used. None: the
        ``CLCONV_DEVICE`` environment variable when set, else the first
        GPU, else the first device.

    Notes
    -----
    The library caches built programs and plans (by problem and mask) in
    the session, so repeated calls of the same shape build and allocate
    nothing. A session serves one call at a time (calls from several
    threads take turns); use one session per thread to run them at once.
    Use it as a context manager, or call :meth:`close`.

    Examples
    --------
    >>> import numpy as np, clconv
    >>> with clconv.Session("cpu") as s:
    ...     y = clconv.correlate(np.ones((4, 4)), np.ones((3, 3)), device=s)
    """

    def __init__(self, device: Optional[str] = None, *, _native_session=None):
        if _native_session is not None:
            self._native = _native_session
        else:
            if device is None:
                device = os.environ.get("CLCONV_DEVICE") or None
            self._native = _native.NativeSession(device)

    @property
    def device(self) -> Device:
        """The session's device."""
        return self._native.device

    @property
    def native(self) -> "_native.NativeSession":
        return self._native

    def close(self) -> None:
        """Release the session's OpenCL objects and plans (after a call
        another thread is making on it; later calls raise ValueError)."""
        self._native.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        d = self.device
        return "clconv.Session(%r)  # %s (%s)" % (d.index, d.name, d.kind)


_defaults: Dict[Optional[str], Session] = {}
_defaults_lock = threading.Lock()

DeviceArg = Union[None, str, Session]


def resolve(device: DeviceArg) -> Session:
    """The session a ``device=`` argument names: a Session as is; a
    selector string (or None) opens a session on first use and keeps it for
    the process, so later calls reuse its plans."""
    if isinstance(device, Session):
        return device
    if device is not None and not isinstance(device, str):
        raise TypeError("device must be None, a selector string or a "
                        "clconv.Session, not %s" % type(device).__name__)
    key = device if device is not None else (os.environ.get("CLCONV_DEVICE") or None)
    with _defaults_lock:
        s = _defaults.get(key)
        if s is None:
            s = Session(key)
            _defaults[key] = s
        return s
