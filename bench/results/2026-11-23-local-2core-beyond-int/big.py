import numpy as np, sys, itertools
n = int(sys.argv[1]); path = sys.argv[2]
if sys.argv[3] == 'make':
    a = np.lib.format.open_memmap(path, mode='w+', dtype=np.float32, shape=(n, n, n))
    r = np.random.default_rng(1)
    for z in range(0, n, 50):
        a[z:z + 50] = r.random((min(50, n - z), n, n), dtype=np.float32)
    a.flush()
else:
    a = np.load(path, mmap_mode='r'); b = np.load(sys.argv[4], mmap_mode='r')
    assert b.shape == a.shape and b.dtype == np.float32, (b.shape, b.dtype)
    worst = 0.0
    pts = [(0, 0, 0), (n // 2, n // 3, n - 1), (n - 1, n - 1, n - 1), (1, n // 2, 3), (n - 2, 5, n // 2)]
    r = np.random.default_rng(2)
    pts += [tuple(int(v) for v in r.integers(0, n, 3)) for _ in range(200)]
    for (z, y, x) in pts:
        s = sum(float(a[z + i, y + j, x + k]) for i, j, k in itertools.product((-1, 0, 1), repeat=3)
                if 0 <= z + i < n and 0 <= y + j < n and 0 <= x + k < n) / 27
        worst = max(worst, abs(s - float(b[z, y, x])))
    print('spot check of %d outputs against float64 sums: worst error %.3g' % (len(pts), worst))
    sys.exit(0 if worst < 1e-5 else 1)
