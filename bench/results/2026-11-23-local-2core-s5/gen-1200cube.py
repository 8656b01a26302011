import numpy as np
n = 1200
a = np.lib.format.open_memmap('/work/big/vol1200.npy', mode='w+', dtype=np.float32, shape=(n, n, n))
rng = np.random.default_rng(1)
for z in range(0, n, 50):
    a[z:z+50] = rng.random((min(50, n-z), n, n), dtype=np.float32)
a.flush()
