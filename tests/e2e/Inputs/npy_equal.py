"""Compares two .npy files byte for byte: prints their shapes, dtypes and the number of differing
bytes; exits 1 unless they are identical. Needs numpy (/usr/bin/python3 with python3-numpy)."""
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
same = a.shape == b.shape and a.dtype == b.dtype
n = int(np.count_nonzero(a.view(np.uint8) != b.view(np.uint8))) if same else a.nbytes
print("%s %s vs %s %s: %d differing bytes" % (a.shape, a.dtype, b.shape, b.dtype, n))
sys.exit(0 if same and n == 0 else 1)
