import numpy as np, scipy.ndimage as nd
a = np.load('/tmp/s8/big.npy', mmap_mode='r'); b = np.load('/tmp/s8/big-out.npy', mmap_mode='r')
n = a.shape[0]; worst = 0.0; planes = 0
# Whole planes around slab boundaries and the ends: the reference of
# planes [z0, z1) from input planes [z0-1, z1+1) (zeros beyond the ends).
for z0 in range(0, n, 64):
    z1 = min(z0 + 64, n)
    lo, hi = max(z0 - 1, 0), min(z1 + 1, n)
    sub = np.zeros((z1 - z0 + 2, n, n), np.float64)
    sub[(lo - (z0 - 1)):(lo - (z0 - 1)) + (hi - lo)] = a[lo:hi]
    ref = nd.correlate(sub, np.full((3, 3, 3), 1 / 27), mode='constant')[1:-1]
    worst = max(worst, float(np.abs(ref - b[z0:z1]).max())); planes += z1 - z0
print('whole planes checked against scipy.ndimage.correlate (float64): %d of %d, worst error %.3g' % (planes, n, worst))
