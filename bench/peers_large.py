#!/usr/bin/env python3
"""The peers of `clconv bench --suite large|large-quick` (issue 17): the
libraries a user picks for large masks, on the same problems (Gaussian
masks as clconv's gaussian:W, sigma W/6, normalised; random masks uniform
in [-1, 1]), as one JSON array of rows like bench_large's.

Peers (each skipped with a note on stderr when its module or device is
missing; Gaussian = separable problems, random = the others):
  cv2-sep        cv2.sepFilter2D (CPU), Gaussian 2D
  cv2-sep-umat   cv2.sepFilter2D on cv2.UMat (OpenCL), Gaussian 2D
  cv2-filter2d   cv2.filter2D (CPU; OpenCV switches to a DFT for large
                 masks), 2D
  cv2-filter2d-umat  cv2.filter2D on cv2.UMat, 2D
  scipy-sep      scipy.ndimage.correlate1d along each axis, Gaussian
  scipy-gauss    scipy.ndimage.gaussian_filter (sigma W/6, radius W//2)
  cupyx-sep      cupyx.scipy.ndimage.correlate1d along each axis, Gaussian
  cupyx-gauss    cupyx.scipy.ndimage.gaussian_filter, Gaussian
  cupyx-fft      cupyx.scipy.signal.fftconvolve (flipped mask, 'same')
  torch          torch.nn.functional.conv1d/2d/3d (cuDNN), padding W//2

Each peer is checked first on a small problem with the same mask against
a float64 FFT reference (scipy.signal.fftconvolve in float64, or a direct
sum without SciPy), bound 1e-4 relative to max|out|, and reported FAIL if
it disagrees. Timing: --warmup untimed calls, then --reps timed (CUDA
events on the GPU; perf_counter with synchronisation otherwise), median.

usage: bench/peers_large.py [--suite large|large-quick] [--peers a,b]
                            [--reps N] [--warmup N] [--seed S]
                            [--max-s S] [--dims D[,D]] [--json FILE]
--dims keeps the problems of those dimensions."""
import argparse
import json
import statistics
import sys
import time

# Mirrors host/lib/bench_suite.c (suite_large, suite_large_quick and
# masks_large): dims, extents (x first), W, mask kind.
SUITES = {
    "large": [(2, (8192, 8192), 31, "gaussian"),
              (2, (8192, 8192), 101, "gaussian"),
              (2, (8192, 8192), 31, "random"),
              (2, (8192, 8192), 63, "random"),
              (3, (512, 512, 512), 15, "gaussian"),
              (3, (512, 512, 512), 15, "random"),
              (1, (1 << 26,), 1001, "random")],
    "large-quick": [(2, (1024, 1024), 31, "gaussian"),
                    (2, (1024, 1024), 101, "gaussian"),
                    (2, (1024, 1024), 31, "random"),
                    (2, (1024, 1024), 63, "random"),
                    (3, (128, 128, 128), 15, "gaussian"),
                    (3, (128, 128, 128), 15, "random"),
                    (1, (1 << 20,), 1001, "random")],
}
CHECK = {1: (3000,), 2: (150, 130), 3: (40, 36, 34)}


def note(msg):
    print(f"peers_large: {msg}", file=sys.stderr, flush=True)


def gauss1d(np, w):
    o = np.arange(w) - w // 2
    g = np.exp(-o.astype(np.float64) ** 2 / (2.0 * (w / 6.0) ** 2))
    return g / g.sum()


def make(np, ext, w, dims, kind, seed):
    """Data (z, y, x order), the full mask, the 1D factor (or None)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=ext[::-1]).astype(np.float32)
    if kind == "gaussian":
        g = gauss1d(np, w)
        m = g
        for _ in range(dims - 1):
            m = np.multiply.outer(m, g)
        return x, m.astype(np.float32), g.astype(np.float32)
    return x, rng.uniform(-1, 1, size=(w,) * dims).astype(np.float32), None


def reference(np, x, m):
    """float64 correlation, zero borders, centred on W//2."""
    try:
        from scipy.signal import fftconvolve
        return fftconvolve(x.astype(np.float64),
                           m.astype(np.float64)[(slice(None, None, -1),)
                                                * m.ndim], mode="same")
    except ImportError:
        r = m.shape[0] // 2
        xp = np.pad(x.astype(np.float64), r)
        out = np.zeros(x.shape)
        for idx in np.ndindex(*m.shape):
            sl = tuple(slice(i, i + n) for i, n in zip(idx, x.shape))
            out += m[idx] * xp[sl]
        return out


def host_timer(run, sync=None):
    def timed():
        t0 = time.perf_counter()
        run()
        if sync:
            sync()
        return (time.perf_counter() - t0) * 1e3
    return timed


def peer_cv2(umat, sep):
    def make_peer(ctx):
        import cv2
        import numpy as np
        if umat and not cv2.ocl.haveOpenCL():
            raise RuntimeError("OpenCV was built without OpenCL")
        cv2.ocl.setUseOpenCL(umat)

        def prepare(x, m, g):
            cv2.ocl.setUseOpenCL(umat)
            src = cv2.UMat(x) if umat else x
            dst = cv2.UMat(x.shape[0], x.shape[1], cv2.CV_32F) if umat \
                else np.empty_like(x)
            b = cv2.BORDER_CONSTANT
            if sep:
                def call():
                    cv2.sepFilter2D(src, -1, g, g, dst=dst, borderType=b)
            else:
                def call():
                    cv2.filter2D(src, -1, m, dst=dst, borderType=b)
            run = host_timer(call, cv2.ocl.finish if umat else None)
            return run, (lambda: dst.get()) if umat else (lambda: dst)
        name = ("cv2.sepFilter2D" if sep else "cv2.filter2D") + \
            (" UMat" if umat else "")
        return {"name": name, "dims": (2,),
                "kinds": ("gaussian",) if sep else ("gaussian", "random"),
                "prepare": prepare, "device": "OpenCL" if umat else "CPU"}
    return make_peer


def peer_scipy(gauss):
    def make_peer(ctx):
        import numpy as np
        import scipy.ndimage as ndi

        def prepare(x, m, g):
            out = np.empty_like(x)
            w = m.shape[0]
            if gauss:
                def call():
                    ndi.gaussian_filter(x, w / 6.0, output=out,
                                        mode="constant", radius=w // 2)
            else:
                def call():
                    t = x
                    for ax in range(x.ndim):
                        t = ndi.correlate1d(t, g, axis=ax, mode="constant")
                    out[...] = t
            return host_timer(call), lambda: out
        return {"name": "scipy.ndimage." + ("gaussian_filter" if gauss
                                            else "correlate1d x d"),
                "dims": (1, 2, 3), "kinds": ("gaussian",),
                "prepare": prepare, "device": "CPU"}
    return make_peer


def cuda_timed(cp, call):
    def run():
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        call()
        b.record()
        b.synchronize()
        return cp.cuda.get_elapsed_time(a, b)
    return run


def peer_cupyx(kind):
    def make_peer(ctx):
        import cupy as cp
        import cupyx.scipy.ndimage as cndi
        import cupyx.scipy.signal as csig

        def prepare(x, m, g):
            xd, md = cp.asarray(x), cp.asarray(m)
            gd = cp.asarray(g) if g is not None else None
            w = m.shape[0]
            box = {}
            if kind == "fft":
                flipped = md[(slice(None, None, -1),) * m.ndim].copy()

                def call():
                    box["o"] = csig.fftconvolve(xd, flipped, mode="same")
            elif kind == "gauss":
                def call():
                    box["o"] = cndi.gaussian_filter(xd, w / 6.0,
                                                    mode="constant",
                                                    truncate=(w // 2) /
                                                    (w / 6.0))
            else:
                def call():
                    t = xd
                    for ax in range(x.ndim):
                        t = cndi.correlate1d(t, gd, axis=ax,
                                             mode="constant")
                    box["o"] = t
            return cuda_timed(cp, call), lambda: cp.asnumpy(box["o"])
        names = {"fft": "cupyx.scipy.signal.fftconvolve",
                 "gauss": "cupyx.scipy.ndimage.gaussian_filter",
                 "sep": "cupyx.scipy.ndimage.correlate1d x d"}
        return {"name": names[kind], "dims": (1, 2, 3),
                "kinds": ("gaussian", "random") if kind == "fft"
                else ("gaussian",), "prepare": prepare, "device": "CUDA"}
    return make_peer


def peer_torch(ctx):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch has no CUDA device")
    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

    def prepare(x, m, g):
        xt = torch.from_numpy(x).cuda().reshape((1, 1) + x.shape)
        mt = torch.from_numpy(m).cuda().reshape((1, 1) + m.shape)
        box = {}

        def run():
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            box["o"] = conv[m.ndim](xt, mt, padding=m.shape[0] // 2)
            b.record()
            b.synchronize()
            return a.elapsed_time(b)
        return run, lambda: box["o"].reshape(x.shape).cpu().numpy()
    return {"name": "torch conv (cuDNN)", "dims": (1, 2, 3),
            "kinds": ("gaussian", "random"), "prepare": prepare,
            "device": "CUDA"}


PEERS = {"cv2-sep": peer_cv2(False, True), "cv2-sep-umat": peer_cv2(True, True),
         "cv2-filter2d": peer_cv2(False, False),
         "cv2-filter2d-umat": peer_cv2(True, False),
         "scipy-sep": peer_scipy(False), "scipy-gauss": peer_scipy(True),
         "cupyx-sep": peer_cupyx("sep"), "cupyx-gauss": peer_cupyx("gauss"),
         "cupyx-fft": peer_cupyx("fft"), "torch": peer_torch}


def check(np, peer, dims, w, kind, seed):
    x, m, g = make(np, CHECK[dims], w, dims, kind, seed)
    run, fetch = peer["prepare"](x, m, g)
    run()
    ref = reference(np, x, m)
    err = float(np.abs(np.asarray(fetch(), np.float64) - ref).max())
    return err <= 1e-4 * max(1.0, float(np.abs(ref).max())), err


def time_peer(run, warmup, reps, max_s):
    """Median of reps after warmup; one call only when the first call
    (untimed otherwise) took longer than max_s seconds."""
    t0 = time.perf_counter()
    first = run()
    if time.perf_counter() - t0 > max_s:
        return first, first, first, 1
    for _ in range(warmup - 1):
        run()
    ms = sorted(run() for _ in range(reps))
    return statistics.median(ms), ms[0], ms[-1], reps


def one_row(np, a, peer, pi, prob):
    dims, ext, w, kind = prob
    row = {"peer": peer["name"], "device": peer["device"], "problem": pi,
           "dims": dims, "size": "x".join(map(str, ext)), "mask": w,
           "mask_kind": kind, "status": "ok"}
    try:
        ok, err = check(np, peer, dims, w, kind, a.seed + 1)
        row["check_max_err"] = err
        if not ok:
            row.update(status="FAIL",
                       reason="disagrees with the float64 reference")
            return row
        x, m, g = make(np, ext, w, dims, kind, a.seed)
        run, _ = peer["prepare"](x, m, g)
        med, lo, hi, reps = time_peer(run, a.warmup, a.reps, a.max_s)
        row.update(median_ms=med, min_ms=lo, max_ms=hi, reps=reps)
    except Exception as e:  # out of memory, unsupported size...
        row.update(status="error", reason=f"{type(e).__name__}: {e}"[:300])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", choices=sorted(SUITES), default="large-quick")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-s", type=float, default=5.0)
    ap.add_argument("--dims", default="1,2,3")
    ap.add_argument("--json")
    a = ap.parse_args()
    try:
        dims = {int(d) for d in a.dims.split(",")}
    except ValueError:
        sys.exit(f"peers_large: --dims '{a.dims}' is not a list of 1, 2, 3")
    if not dims or not dims <= {1, 2, 3}:
        sys.exit(f"peers_large: --dims '{a.dims}' is not a list of 1, 2, 3")
    try:
        import numpy as np
    except ImportError:
        sys.exit("peers_large: numpy is missing")
    peers = []
    for key in a.peers.split(","):
        if key not in PEERS:
            sys.exit(f"peers_large: unknown peer '{key}' ({', '.join(PEERS)})")
        try:
            peers.append(PEERS[key]({}))
        except Exception as e:  # missing module or device: skip, say why
            note(f"{key} skipped: {type(e).__name__}: {e}")
    rows = []
    for pi, prob in enumerate(SUITES[a.suite]):
        if prob[0] not in dims:
            continue
        for peer in peers:
            if prob[0] not in peer["dims"] or prob[3] not in peer["kinds"]:
                continue
            row = one_row(np, a, peer, pi, prob)
            rows.append(row)
            note(f"{prob[0]}D {row['size']} {prob[3]} W={prob[2]} "
                 f"{peer['name']}: " +
                 (f"{row['median_ms']:.3f} ms" if "median_ms" in row
                  else row["status"] + " " + row.get("reason", "")))
    text = json.dumps({"suite": a.suite, "seed": a.seed, "rows": rows},
                      indent=1)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
