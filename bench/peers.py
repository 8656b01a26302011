#!/usr/bin/env python3
"""Time the problems of a clconv bench suite with the libraries a user would
otherwise pick, and write the same JSON schema as `clconv bench --json`
(bench/README.md), so bench/plot shows the peers beside clconv.

Peers (each skipped with a note on stderr when its module or device is
missing):
  opencv-ocl   cv2.filter2D on cv2.UMat (OpenCL T-API), 2D only
  opencv-cpu   cv2.filter2D on numpy arrays, 2D only
  torch-cudnn  torch.nn.functional.conv1d/2d/3d on CUDA, padding=W//2
  torch-copy   (ceiling only) torch copy_ of a large CUDA tensor
  cupyx        cupyx.scipy.ndimage.correlate, mode='constant'
  scipy        scipy.ndimage.correlate, mode='constant' (CPU)

--dtype u8 times 8-bit data in and out (clconv's --dtype u8 --out-dtype
same): uint8 input, a mask of positive weights summing to 1, output uint8
rounded and saturated; only the OpenCV peers (CV_8U) take it, the others
are skipped with a note. Bytes per element become 2 instead of 8.

Every peer is first checked on a small problem against a float64 reference
(zero ghost cells, correlation as in clconv; for u8 the reference rounded
and saturated, within 1); a peer that disagrees is
reported as FAIL and not timed. Timings: --warmup untimed calls, then
--reps timed calls (CUDA events on the GPU, perf_counter with a
synchronisation on OpenCL and CPU), median/min/max.

usage: bench/peers.py [--suite full|quick] [--dims D --size X[xY[xZ]]
                      --mask W] [--peers a,b,...] [--reps N] [--warmup N]
                      [--seed S] [--dtype f32|u8] [--json FILE]"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

# Mirrors host/bench_suite.c (the C table is the source of truth; the
# problems are also listed in bench/README.md).
SUITES = {
    "full": [(1, (1 << 26,), 5), (1, (1 << 26,), 9), (1, (1 << 26,), 55),
             (2, (8192, 8192), 3), (2, (8192, 8192), 5), (2, (8192, 8192), 9),
             (3, (512, 512, 512), 3), (3, (512, 512, 512), 5)],
    # bench --end-to-end: host arrays in, host arrays out (NumPy shapes).
    "e2e": [(2, (1080, 1920), 3), (2, (1080, 1920), 5), (2, (1080, 1920), 9),
            (2, (8192, 8192), 3), (2, (8192, 8192), 5), (2, (8192, 8192), 9)],
    "quick": [(1, (1 << 22,), 5), (1, (1 << 22,), 9), (1, (1 << 22,), 55),
              (2, (1024, 1024), 3), (2, (1024, 1024), 5),
              (2, (1024, 1024), 9),
              (3, (128, 128, 128), 3), (3, (128, 128, 128), 5)],
}
# Small shapes for the correctness check of each peer.
CHECK = {1: (1000,), 2: (37, 45), 3: (13, 17, 19)}


def note(msg):
    print(f"peers: {msg}", file=sys.stderr, flush=True)


def version():
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"],
                              capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def rng_data(np, shape, w, dims, seed, dtype="f32"):
    rng = np.random.default_rng(seed)
    if dtype == "u8":  # 8-bit image, a smoothing mask (weights sum to 1)
        x = rng.integers(0, 256, size=shape[::-1], dtype=np.uint8)
        m = rng.uniform(0.5, 1.5, size=(w,) * dims).astype(np.float32)
        return x, m / m.sum(dtype=np.float32)
    x = rng.uniform(-1, 1, size=shape[::-1]).astype(np.float32)  # z, y, x
    m = rng.uniform(-1, 1, size=(w,) * dims).astype(np.float32)
    return x, m


def reference(np, x, m):
    """float64 correlation with zero ghost cells, same-size output."""
    w = m.shape[0]
    r = w // 2
    xp = np.pad(x.astype(np.float64), r)
    out = np.zeros(x.shape, np.float64)
    it = np.ndindex(*m.shape)
    for idx in it:
        sl = tuple(slice(i, i + n) for i, n in zip(idx, x.shape))
        out += m[idx] * xp[sl]
    return out


def close(np, got, x, m):
    ref = reference(np, x, m)
    if x.dtype == np.uint8:  # rounded and saturated: within 1 of it
        err = np.abs(np.asarray(got, np.float64) -
                     np.clip(np.rint(ref), 0, 255))
        return bool(got.dtype == np.uint8 and np.all(err <= 1)), \
            float(err.max())
    bound = 4 * m.size * np.finfo(np.float32).eps * \
        reference(np, np.abs(x), np.abs(m)) + 1e-30
    err = np.abs(np.asarray(got, np.float64) - ref)
    return bool(np.all(err <= bound)), float(err.max())


def summarize(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[0], ms[-1]


# ---- peers: each returns (prepare, supports) ----------------------------
# prepare(x, m) -> (run, fetch): run() launches once and waits, returning
# the elapsed ms (None: caller times with perf_counter); fetch() returns
# the output as a numpy array.

def peer_scipy(ctx):
    import numpy as np
    import scipy.ndimage as ndi

    def prepare(x, m):
        out = np.empty_like(x)

        def run():
            ndi.correlate(x, m, output=out, mode="constant", cval=0.0)
        return run, lambda: out

    def prepare_e2e(x, m):
        holder = {}

        def run():
            holder["out"] = ndi.correlate(x, m, mode="constant", cval=0.0)
        return run, lambda: holder["out"]
    import scipy
    return {"name": "scipy.ndimage.correlate", "api": "host",
            "device": ctx["cpu_name"], "dims": (1, 2, 3),
            "prepare": prepare, "prepare_e2e": prepare_e2e,
            "variant": "scipy",
            "driver": f"scipy {scipy.__version__}",
            "compute_units": os.cpu_count()}


def peer_opencv_cpu(ctx):
    import cv2
    import numpy as np

    def prepare(x, m):
        out = np.empty_like(x)

        def run():
            cv2.filter2D(x, -1, m, dst=out, borderType=cv2.BORDER_CONSTANT)
        return run, lambda: out

    def prepare_e2e(x, m):
        holder = {}

        def run():
            holder["out"] = cv2.filter2D(x, -1, m,
                                         borderType=cv2.BORDER_CONSTANT)
        return run, lambda: holder["out"]
    cv2.ocl.setUseOpenCL(False)
    return {"name": "cv2.filter2D", "api": "host", "device": ctx["cpu_name"],
            "dims": (2,), "prepare": prepare, "prepare_e2e": prepare_e2e,
            "variant": "opencv", "dtypes": ("f32", "u8"),
            "driver": cv2.__version__}


def peer_opencv_ocl(ctx):
    import cv2
    import numpy as np
    if not cv2.ocl.haveOpenCL():
        raise RuntimeError("OpenCV was built without OpenCL")
    cv2.ocl.setUseOpenCL(True)
    dev = cv2.ocl.Device.getDefault()

    def prepare(x, m):
        cv2.ocl.setUseOpenCL(True)
        src = cv2.UMat(x)
        dst = cv2.UMat(x.shape[0], x.shape[1],
                       cv2.CV_8U if x.dtype == np.uint8 else cv2.CV_32F)

        def run():
            cv2.filter2D(src, -1, m, dst=dst, borderType=cv2.BORDER_CONSTANT)
            cv2.ocl.finish()
        return run, lambda: dst.get()

    def prepare_e2e(x, m):
        holder = {}

        def run():  # the round trip: upload, filter, download
            cv2.ocl.setUseOpenCL(True)
            holder["out"] = cv2.filter2D(
                cv2.UMat(x), -1, m, borderType=cv2.BORDER_CONSTANT).get()
        return run, lambda: holder["out"]
    return {"name": "cv2.filter2D UMat", "api": "OpenCL",
            "device": dev.name(), "dims": (2,), "prepare": prepare,
            "prepare_e2e": prepare_e2e,
            "variant": "opencv_ocl", "dtypes": ("f32", "u8"),
            "driver": dev.driverVersion(),
            "vendor": dev.vendorName()}


def cuda_timer(torch):
    def timed(fn):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        return a.elapsed_time(b)
    return timed


def peer_torch(ctx):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch has no CUDA device")
    import torch.nn.functional as F
    torch.backends.cudnn.benchmark = True
    timed = cuda_timer(torch)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

    def prepare(x, m):
        dims = m.ndim
        xt = torch.from_numpy(x).cuda().reshape((1, 1) + x.shape)
        mt = torch.from_numpy(m).cuda().reshape((1, 1) + m.shape)
        holder = {}

        def run():
            def go():
                holder["out"] = conv[dims](xt, mt, padding=m.shape[0] // 2)
            return timed(go)
        return run, lambda: holder["out"].reshape(x.shape).cpu().numpy()

    def prepare_e2e(x, m):
        dims = m.ndim
        mt = torch.from_numpy(m).cuda().reshape((1, 1) + m.shape)
        holder = {}

        def run():  # from NumPy to NumPy, transfers included
            xt = torch.from_numpy(x).cuda().reshape((1, 1) + x.shape)
            holder["out"] = conv[dims](xt, mt, padding=m.shape[0] // 2) \
                .reshape(x.shape).cpu().numpy()
        return run, lambda: holder["out"]
    p = torch.cuda.get_device_properties(0)
    return {"name": "torch conv (cuDNN)", "api": "CUDA", "device": p.name,
            "dims": (1, 2, 3), "prepare": prepare,
            "prepare_e2e": prepare_e2e, "variant": "cudnn",
            "driver": f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
                      f"cuDNN {torch.backends.cudnn.version()}",
            "vendor": "NVIDIA", "compute_units": p.multi_processor_count,
            "copy_gbs": torch_copy_gbs(torch, timed)}


def torch_copy_gbs(torch, timed):
    """The peer's own copy bandwidth (read + write), 512 MiB, median."""
    n = (512 << 20) // 4
    a = torch.ones(n, device="cuda")
    b = torch.empty_like(a)
    for _ in range(2):
        b.copy_(a)
    ms = sorted(timed(lambda: b.copy_(a)) for _ in range(10))
    med = statistics.median(ms)
    return 2.0 * n * 4 / (med * 1e-3) / 1e9


def peer_cupyx(ctx):
    import cupy as cp
    import cupyx.scipy.ndimage as cndi

    def prepare(x, m):
        xd = cp.asarray(x)
        md = cp.asarray(m)
        out = cp.empty_like(xd)

        def run():
            a = cp.cuda.Event()
            b = cp.cuda.Event()
            a.record()
            cndi.correlate(xd, md, output=out, mode="constant", cval=0.0)
            b.record()
            b.synchronize()
            return cp.cuda.get_elapsed_time(a, b)
        return run, lambda: cp.asnumpy(out)

    def prepare_e2e(x, m):
        md = cp.asarray(m)
        holder = {}

        def run():  # from NumPy to NumPy, transfers included
            holder["out"] = cp.asnumpy(cndi.correlate(
                cp.asarray(x), md, mode="constant", cval=0.0))
        return run, lambda: holder["out"]
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"]
    return {"name": "cupyx.scipy.ndimage.correlate", "api": "CUDA",
            "device": name.decode() if isinstance(name, bytes) else name,
            "dims": (1, 2, 3), "prepare": prepare,
            "prepare_e2e": prepare_e2e, "variant": "cupyx",
            "driver": f"cupy {cp.__version__}", "vendor": "NVIDIA",
            "compute_units": props.get("multiProcessorCount")}


PEERS = {"opencv-ocl": peer_opencv_ocl, "opencv-cpu": peer_opencv_cpu,
         "torch-cudnn": peer_torch, "cupyx": peer_cupyx,
         "scipy": peer_scipy}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "host CPU"


def time_one(run, warmup, reps):
    for _ in range(warmup):
        run()
    ms = []
    for _ in range(reps):
        t0 = time.perf_counter()
        t = run()
        t1 = time.perf_counter()
        ms.append(t if t is not None else (t1 - t0) * 1e3)
    return summarize(ms)


def main():
    ap = argparse.ArgumentParser(
        description="time peer libraries on clconv's bench problems")
    ap.add_argument("--suite", choices=sorted(SUITES), default=None)
    ap.add_argument("--dims", type=int, choices=(1, 2, 3))
    ap.add_argument("--size")
    ap.add_argument("--mask", type=int)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtype", choices=("f32", "u8"), default="f32",
                    help="element type in and out (u8: the OpenCV peers "
                         "on CV_8U, as clconv --dtype u8 --out-dtype same)")
    ap.add_argument("--json")
    ap.add_argument("--end-to-end", action="store_true",
                    help="whole calls from host NumPy arrays to host NumPy "
                         "arrays, transfers included (suite e2e by default)")
    a = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        sys.exit("peers: numpy is missing")
    if a.reps < 10:
        sys.exit("peers: --reps must be >= 10")
    if a.dims:
        if not a.size or not a.mask or a.mask % 2 == 0 or a.suite:
            sys.exit("peers: a custom problem needs --dims, --size and an "
                     "odd --mask (and no --suite)")
        ext = tuple(int(s) for s in a.size.lower().split("x"))
        if len(ext) == 1:
            ext = ext * a.dims
        if len(ext) != a.dims:
            sys.exit(f"peers: --size {a.size} does not have {a.dims} extents")
        problems, suite = [(a.dims, ext, a.mask)], "custom"
    else:
        suite = a.suite or ("e2e" if a.end_to_end else "quick")
        problems = SUITES[suite]

    ctx = {"cpu_name": cpu_name()}
    devices, rows = [], []
    peers = []
    for key in a.peers.split(","):
        if key not in PEERS:
            sys.exit(f"peers: unknown peer '{key}' ({', '.join(PEERS)})")
        try:
            peer = PEERS[key](ctx)
        except Exception as e:  # missing module or device: skip with a note
            note(f"{key} skipped: {type(e).__name__}: {e}")
            continue
        if a.dtype not in peer.get("dtypes", ("f32",)):
            note(f"{key} skipped: float32 only (--dtype {a.dtype})")
            continue
        peers.append(peer)
    for peer in peers:
        d = {"index": len(devices), "id": peer["variant"],
             "api": peer["api"], "implementation": peer["name"],
             "name": peer["device"], "vendor": peer.get("vendor", ""),
             "platform": peer["api"], "driver": peer.get("driver", ""),
             "opencl_version": None, "type": "GPU" if peer["api"] != "host"
             else "CPU", "compute_units": peer.get("compute_units"),
             "clock_mhz": None, "copy_gbs": peer.get("copy_gbs"),
             "fp32_gflops": None}
        devices.append(d)
        peer["index"] = d["index"]
        if d["copy_gbs"]:
            note(f"{peer['name']}: copy {d['copy_gbs']:.1f} GB/s on "
                 f"{d['name']}")

    ebytes = 2 if a.dtype == "u8" else 8  # bytes per output: read + write
    out_problems = []
    for pi, (dims, ext, w) in enumerate(problems):
        size = list(ext) + [1] * (3 - len(ext))
        n = 1
        for e in ext:
            n *= e
        out_problems.append({
            "index": pi, "dims": dims, "size": size, "mask": w,
            "elements": n, "bytes": ebytes * n, "flops": 2 * w ** dims * n,
            "intensity": 2 * w ** dims * n / (ebytes * n),
            "dtype": a.dtype, "out_dtype": a.dtype})
    checked = {}
    for pi, (dims, ext, w) in enumerate(problems):
        x, m = rng_data(np, ext, w, dims, a.seed, a.dtype)
        p = out_problems[pi]
        for peer in peers:
            if dims not in peer["dims"]:
                continue
            row = {"device": peer["index"], "problem": pi,
                   "implementation": peer["name"],
                   "variant": peer["variant"], "tile": None,
                   "status": "ok", "max_err": None, "reps": 0,
                   "median_ms": None, "min_ms": None, "max_ms": None,
                   "gbs": None, "gflops": None, "floor_ms": None,
                   "roofline_pct": None, "model_reduction": None}
            try:
                key = (peer["variant"], dims, w)
                if key not in checked:
                    cx, cm = rng_data(np, CHECK[dims], w, dims, a.seed + 1,
                                      a.dtype)
                    run, fetch = peer["prepare"](cx, cm)
                    run()
                    checked[key] = close(np, fetch(), cx, cm)
                ok, err = checked[key]
                row["max_err"] = err
                if not ok:
                    row["status"] = "FAIL"
                    row["reason"] = "disagrees with the float64 reference"
                else:
                    prep = peer["prepare_e2e" if a.end_to_end else "prepare"]
                    run, fetch = prep(x, m)
                    med, lo, hi = time_one(run, a.warmup, a.reps)
                    row.update(reps=a.reps, median_ms=med, min_ms=lo,
                               max_ms=hi,
                               gbs=p["bytes"] / (med * 1e-3) / 1e9,
                               gflops=p["flops"] / (med * 1e-3) / 1e9)
            except Exception as e:  # out of memory, unsupported size...
                row["status"] = "error"
                row["reason"] = f"{type(e).__name__}: {e}"[:500]
            rows.append(row)
            msg = (f"{row['median_ms']:.4f} ms" if row["median_ms"]
                   else row["status"] + ": " + row.get("reason", ""))
            note(f"{p['dims']}D {'x'.join(map(str, ext))} W={w} "
                 f"{peer['name']}: {msg}")

    best = []
    for pi in range(len(out_problems)):
        for d in devices:
            cands = [(r["median_ms"], i) for i, r in enumerate(rows)
                     if r["problem"] == pi and r["device"] == d["index"]
                     and r["median_ms"]]
            if cands:
                best.append({"problem": pi, "device": d["index"],
                             "row": min(cands)[1]})
    doc = {"schema": "clconv-bench-1", "clconv_version": version(),
           "end_to_end": a.end_to_end,
           "date": datetime.datetime.now(datetime.timezone.utc)
           .strftime("%Y-%m-%dT%H:%M:%SZ"),
           "suite": suite, "seed": a.seed, "warmup": a.warmup,
           "reps": a.reps, "devices": devices, "problems": out_problems,
           "rows": rows, "best": best}
    text = json.dumps(doc, indent=1)
    if a.json:
        with open(a.json, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
