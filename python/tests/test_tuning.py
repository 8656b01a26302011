"""The package's calls take `clconv tune`'s entry of their own class: the
dims, the mask's shape, the border mode and the element types the library
receives (a uint8 array goes to the device as uint8, its output float32),
as `clconv run --strategy auto` and apply do. The tuning file is written
here in the format host/lib/tune_cache.c describes, in a cache folder of
the test's own."""
import os

import numpy as np
import pytest

import clconv

MASK64 = (1 << 64) - 1


def fnv1a64(data: bytes, h: int = 0xcbf29ce484222325) -> int:
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & MASK64
    return h


def kernel_hash(kernel_dir: str, stem: str) -> int:
    """clconv_kernel_hash: dtype.clh, common.clh and the variant's file."""
    h = 0xcbf29ce484222325
    for name in ("dtype.clh", "common.clh", stem + ".cl"):
        with open(os.path.join(kernel_dir, name), "rb") as f:
            h = fnv1a64(f.read(), h)
    return h


def write_tuning(cache_home: str, device, kernel_dir: str, entries) -> None:
    """The device's tuning file holding entries (dtype in, dtype out,
    strategy, tile) of one 2D class: 64x64, a 3x3 mask, constant mode."""
    text = "clconv tuning 3\ndevice\t%s\ndriver\t%s\nclconv\t%s\n" % (
        device.name, device.driver, clconv.__version__)
    for in_t, out_t, strategy, tile in entries:
        text += ("entry\t2\t3\t12\t%s\t%d\t0\t0\t1\t64x64x1\t%016x\t3x3x1\t"
                 "%s\t%s\tconstant\n"
                 % (strategy, tile,
                    kernel_hash(kernel_dir, "conv2d_" + strategy), in_t,
                    out_t))
    text += "checksum\t%016x\n" % fnv1a64(text.encode())
    key = fnv1a64(("%s\n%s" % (device.name, device.driver)).encode())
    folder = os.path.join(cache_home, "clconv")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tune-%016x.txt" % key), "w") as f:
        f.write(text)


def built_kernels(capfd, dtype) -> str:
    """What a fresh session builds for a 64x64 array of dtype (the build
    log's lines: each names the .cl file and its options)."""
    x = np.arange(64 * 64).reshape(64, 64).astype(dtype)
    with clconv.Session() as s:
        capfd.readouterr()
        clconv.correlate(x, np.ones((3, 3)), mode="constant", device=s)
        return capfd.readouterr().err


def test_a_uint8_call_takes_the_uint8_tuning_and_a_float32_call_the_float32_one(
        tmp_path, monkeypatch, capfd):
    kernel_dir = os.path.join(os.path.dirname(clconv.__file__), "cl")
    if not os.path.exists(os.path.join(kernel_dir, "common.clh")):
        pytest.skip("the package has no cl/ beside it: " + kernel_dir)
    monkeypatch.setenv("CLCONV_KERNEL_DIR", kernel_dir)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CLCONV_NO_CACHE", "1")  # every program built
    monkeypatch.setenv("CLCONV_BUILD_LOG", "1")
    with clconv.Session() as s:
        device = s.device
    write_tuning(str(tmp_path), device, kernel_dir,
                 [("u8", "f32", "naive", 8), ("f32", "f32", "output_tile", 8)])
    log = built_kernels(capfd, np.uint8)
    assert "conv2d_naive.cl" in log and "-D TILE_WIDTH=8" in log, log
    assert "conv2d_output_tile.cl" not in log, log
    log = built_kernels(capfd, np.float32)
    assert "conv2d_output_tile.cl" in log and "-D TILE_WIDTH=8" in log, log
    assert "conv2d_naive.cl" not in log, log
