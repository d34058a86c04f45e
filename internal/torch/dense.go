package torch

/*
#include "udocc_torch.h"
*/
import "C"

import "fmt"

// Gram returns x·xᵀ (r × r, row-major) of the r × c row-major matrix x: single-precision
// products over blocks of columns on the shim's threads (SetNumThreads), their sums
// added in double precision in the columns' order. The result is the same bits at any
// thread count; on other CPUs (AVX2 against AVX-512) its last bits may differ, as the
// networks' do. The upper triangle is computed and the lower one is its mirror, so the
// result is symmetric bit for bit.
func Gram(x []float32, r, c int) ([]float64, error) {
	if r < 1 || c < 1 || len(x) != r*c {
		return nil, fmt.Errorf("torch: gram: %d values are not %d x %d", len(x), r, c)
	}
	out := make([]float64, r*r)
	return out, errorOf(C.udocc_gram((*C.float)(&x[0]), C.int64_t(r), C.int64_t(c), (*C.double)(&out[0]), C.int64_t(len(out))))
}

// RowsProduct returns x·bᵀ (bT: b is q × k) or x·b (b is k × q) for the n × k
// row-major matrix x, n × q row-major, in single precision. Rows go through in blocks
// of a fixed size, so that a row's values are a function of the row and b alone: the
// same bits whichever rows, and how many, a call holds, at any thread count.
func RowsProduct(x []float32, n, k int, b []float32, q int, bT bool) ([]float32, error) {
	if n < 1 || k < 1 || q < 1 || len(x) != n*k || len(b) != q*k {
		return nil, fmt.Errorf("torch: rows product: %d and %d values are not %d x %d and %d x %d", len(x), len(b), n, k, q, k)
	}
	tb := C.int(0)
	if bT {
		tb = 1
	}
	out := make([]float32, n*q)
	return out, errorOf(C.udocc_rows_product((*C.float)(&x[0]), C.int64_t(n), C.int64_t(k), (*C.float)(&b[0]), C.int64_t(q), tb, (*C.float)(&out[0]), C.int64_t(len(out))))
}
