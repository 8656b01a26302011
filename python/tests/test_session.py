"""Devices, sessions and the GIL."""
import os
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

import clconv


def test_devices_is_the_list_clconv_devices_prints():
    devs = clconv.devices()
    assert devs, "no device"
    cli = os.environ.get("CLCONV_CLI") or shutil.which("clconv")
    if cli and os.path.exists(cli):
        out = subprocess.run([cli, "devices"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[1:]
        assert [line.split()[0] for line in out] == [d.index for d in devs]
        for line, d in zip(out, devs):
            assert d.name[:20] in line


def test_device_selectors_pick_the_same_device():
    d = clconv.devices()[0]
    kind = d.kind.lower()
    for sel in [d.index, kind, d.name[:6]]:
        with clconv.Session(sel) as s:
            assert s.device.index == d.index
            y = clconv.correlate(np.ones((5, 5)), np.ones((3, 3)), device=s)
            assert y[2, 2] == 9
    np.testing.assert_array_equal(
        clconv.correlate(np.ones(4), [1, 1, 1], device=d.index), [3, 3, 3, 3])


def test_a_closed_session_refuses_work():
    s = clconv.Session()
    s.close()
    with pytest.raises(ValueError, match="closed"):
        clconv.correlate(np.ones(4), [1.0, 1.0, 1.0], device=s)


def test_the_gil_is_released_during_device_work():
    """While one thread is inside the library, another runs Python code:
    the counter advances a great deal during the call."""
    with clconv.Session() as s:
        x = np.random.default_rng(1).random(1 << 24, np.float32)
        m = np.ones(9, np.float32)
        s.native.correlate_ex(x, m, [0], [0], 0, 0.0)  # build once
        inside = threading.Event()
        done = threading.Event()
        t0 = [0.0]

        def work():
            inside.set()
            t0[0] = time.perf_counter()
            for _ in range(3):
                s.native.correlate_ex(x, m, [0], [0], 0, 0.0)
            t0[0] = time.perf_counter() - t0[0]
            done.set()

        t = threading.Thread(target=work)
        t.start()
        inside.wait()
        count = 0
        while not done.is_set():
            count += 1
        t.join()
    assert t0[0] > 0.05, "the device call was too short to tell"
    # Holding the GIL, the main thread could not count during the call.
    assert count > 20000, (count, t0[0])


def test_two_threads_on_two_sessions_both_finish_right():
    x = np.random.default_rng(2).random((256, 256))
    expected = clconv.correlate(x, np.ones((5, 5)))
    results = {}

    def work(i):
        with clconv.Session() as s:
            results[i] = clconv.correlate(x, np.ones((5, 5)), device=s)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(2):
        np.testing.assert_array_equal(results[i], expected)



def test_close_waits_for_a_call_in_flight_in_another_thread():
    # close() took no lock: it freed the library's session under a call
    # running in another thread, and the interpreter died of SIGSEGV (a
    # loop of calls in one thread, close() in another: 2 runs of 6). Now
    # it waits for the call (here: the lock such a call holds), and the
    # next call raises "closed".
    s = clconv.Session()
    clconv.correlate(np.ones(4), [1.0, 1.0], device=s)
    s.native.lock.acquire()
    closer = threading.Thread(target=s.close)
    closer.start()
    closer.join(0.5)
    waited = closer.is_alive()
    s.native.lock.release()
    closer.join(30)
    assert waited, "close() did not wait for the call in flight"
    assert not closer.is_alive()
    with pytest.raises(ValueError, match="closed"):
        clconv.correlate(np.ones(4), [1.0, 1.0], device=s)
