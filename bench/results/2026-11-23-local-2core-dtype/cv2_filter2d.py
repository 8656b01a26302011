"""cv2.filter2D on 8192x8192 CV_8U and CV_32F with a 3x3 float mask
(BORDER_CONSTANT, as clconv's default): median, min, max ms of 10 calls
after one untimed call, on every thread OpenCV uses."""
import time

import cv2
import numpy as np

rng = np.random.default_rng(1)
mask = (rng.random((3, 3)) + 0.5).astype(np.float32)
mask /= mask.sum()
for name, img in (("u8", rng.integers(0, 256, (8192, 8192), np.uint8)),
                  ("f32", rng.random((8192, 8192), np.float32))):
    cv2.filter2D(img, -1, mask, borderType=cv2.BORDER_CONSTANT)
    ms = []
    for _ in range(10):
        t0 = time.perf_counter()
        cv2.filter2D(img, -1, mask, borderType=cv2.BORDER_CONSTANT)
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    print(f"cv2.filter2D {name}->{name} threads {cv2.getNumThreads()} "
          f"median {ms[5]:.2f} min {ms[0]:.2f} max {ms[-1]:.2f} ms")
