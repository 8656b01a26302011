"""clconv.correlate on an 8192x8192 uint8 array with a 3x3 mask (mode
reflect, SciPy's default) on one session (device argv[2], default cpu):
uint8 on the device against
CLCONV_PY_UPLOAD=f32 (the host's float32 conversion first), alternating
call by call after one untimed call of each; median, min, max of
3 x ROUNDS calls each."""
import os, statistics, sys, time
import numpy as np
import clconv

a = np.load(sys.argv[1])
w = np.full((3, 3), 1 / 9)
rounds = int(os.environ.get("ROUNDS", "3"))


def call(s, tag):
    if tag == "f32":
        os.environ["CLCONV_PY_UPLOAD"] = "f32"
    else:
        os.environ.pop("CLCONV_PY_UPLOAD", None)
    t0 = time.perf_counter()
    y = clconv.correlate(a, w, device=s)
    return y, (time.perf_counter() - t0) * 1e3


times = {"f32": [], "u8": []}
with clconv.Session(sys.argv[2] if len(sys.argv) > 2 else "cpu") as s:
    first = {tag: call(s, tag)[0] for tag in ("f32", "u8")}
    for _ in range(3 * rounds):
        for tag in ("f32", "u8"):
            times[tag].append(call(s, tag)[1])
print("outputs identical:", np.array_equal(first["f32"], first["u8"]),
      first["u8"].dtype)
for tag, ms in times.items():
    print(f"clconv.correlate uint8 8192^2 3x3 upload {tag}: median "
          f"{statistics.median(ms):.1f} min {min(ms):.1f} max {max(ms):.1f} ms "
          f"({len(ms)} calls)")
