#!/usr/bin/python3
"""Write the small files of data/testdata that independent writers made.

Run from data/: /usr/bin/python3 testdata/gen.py (Debian bookworm:
python3-scipy 1.10.1, python3-numpy 1.24.2). Not run by the tests; the
expected values are repeated as literals in independent_test.go. The MAT
files are named .mat5, not .mat, because the repository ignores *.mat (no
data sets in git); the test copies them to a .mat name before loading.
"""
import numpy as np
import scipy.io

X = (np.arange(12).reshape(3, 4) - 5) / 4.0  # -1.25 … 1.5, row-major
y = np.array([0, 1, 0])

# MAT v5, uncompressed: double X, uint8 y (scipy keeps the numpy dtype as
# the MATLAB class).
scipy.io.savemat("testdata/scipy_plain.mat5", {"X": X, "y": y.astype(np.uint8).reshape(3, 1)},
                 do_compression=False, oned_as="column", appendmat=False)
# MAT v5, compressed: int16 X (4·X is integral), double y as a row, and a
# char variable and a struct that the reader must skip.
scipy.io.savemat("testdata/scipy_zlib.mat5",
                 {"note": "skip me", "s": {"a": 1.0}, "X": (4 * X).astype(np.int16),
                  "y": y.astype(float).reshape(1, 3)},
                 do_compression=True, appendmat=False)
# NumPy: Fortran-ordered float32 X alone; npz with int64 X and bool y;
# compressed npz with float64 X and (n, 1) float64 y.
np.save("testdata/numpy_fortran_f4.npy", np.asfortranarray(X.astype(np.float32)))
np.savez("testdata/numpy_int.npz", X=(4 * X).astype(np.int64), y=y.astype(bool))
np.savez_compressed("testdata/numpy_f8.npz", X=X, y=y.astype(float).reshape(3, 1))
