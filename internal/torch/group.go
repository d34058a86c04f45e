package torch

/*
#include <stdlib.h>
#include "udocc_torch.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/udocc/udocc/internal/regfile"
)

// Group is K models of one architecture trained in lockstep; a single model is K = 1.
// Member k has its own initialisation seed, center c, radius R, BatchNorm statistics and
// Adam state.
type Group struct {
	p     *C.udocc_group
	k     int
	sizes []int
	n     int // rows of the data set on the device, 0 before SetData
	lent  *lent
	// cleanup lets go of lent if g is collected unclosed: a runtime.Pinner that is
	// collected still pinned panics the process, and a forgotten Close should cost
	// memory, not the program.
	cleanup runtime.Cleanup
}

// lent is a caller's table that the shim reads in place (BorrowData), pinned so that C
// may keep its address after the call, and so that it is not freed while C reads it.
// Groups derived from the one that borrowed it share it; the last of them to let it go
// unpins it.
type lent struct {
	pin  runtime.Pinner
	refs atomic.Int32
}

// release hands back one group's share of the table; the last unpins it.
func (l *lent) release() {
	if l.refs.Add(-1) == 0 {
		l.pin.Unpin()
	}
}

// share makes g one of the groups that read l.
func (g *Group) share(l *lent) {
	l.refs.Add(1)
	g.lent = l
	g.cleanup = runtime.AddCleanup(g, (*lent).release, l)
}

// letGo hands back g's share of a borrowed table.
func (g *Group) letGo() {
	if g.lent != nil {
		g.cleanup.Stop()
		g.lent.release()
	}
	g.lent = nil
}

// NewGroup makes k models with layer sizes (input first, representation last) and,
// when decoder is true, a mirrored decoder, on device ("cpu", "cuda", "cuda:N"); member
// i is initialised from seeds[i].
func NewGroup(sizes []int, k int, decoder bool, device string, seeds []uint64) (*Group, error) {
	if len(sizes) < 2 {
		return nil, fmt.Errorf("torch: need at least 2 layer sizes, have %d", len(sizes))
	}
	if k < 1 || len(seeds) != k {
		return nil, fmt.Errorf("torch: %d members need %d seeds, have %d", k, k, len(seeds))
	}
	cs := make([]C.int64_t, len(sizes))
	for i, s := range sizes {
		cs[i] = C.int64_t(s)
	}
	cseeds := make([]C.uint64_t, k)
	for i, s := range seeds {
		cseeds[i] = C.uint64_t(s)
	}
	dev := C.CString(device)
	defer C.free(unsafe.Pointer(dev))
	var p *C.udocc_group
	dec := C.int(0)
	if decoder {
		dec = 1
	}
	if err := errorOf(C.udocc_group_new(&cs[0], C.int(len(cs)), C.int(k), dec, dev, &cseeds[0], &p)); err != nil {
		return nil, err
	}
	return &Group{p: p, k: k, sizes: append([]int(nil), sizes...)}, nil
}

// Derive makes a new group whose member i copies the encoder, center and radius of this
// group's member members[i]; it shares this group's data and has no decoder or optimizer.
func (g *Group) Derive(members []int) (*Group, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if len(members) == 0 {
		return nil, fmt.Errorf("torch: derive needs at least one member")
	}
	cm := make([]C.int, len(members))
	for i, m := range members {
		cm[i] = C.int(m)
	}
	var p *C.udocc_group
	if err := errorOf(C.udocc_group_from(g.p, &cm[0], C.int(len(cm)), &p)); err != nil {
		return nil, err
	}
	ng := &Group{p: p, k: len(members), sizes: g.sizes, n: g.n}
	if g.lent != nil {
		ng.share(g.lent)
	}
	return ng, nil
}

// Close frees the group; it is safe to call more than once.
func (g *Group) Close() {
	if g.p != nil {
		C.udocc_group_close(g.p)
		g.p = nil
		g.letGo()
	}
}

// SetReference selects, on the CPU, the libtorch path (autograd over the stacked tensor
// ops) when on is true, or the fast path (the training step and scoring written out by
// hand over buffers reused at every step) when false, the default. Both give the same
// numbers to float rounding; the libtorch path is the reference the fast one is tested
// against and the only one on CUDA. UDOCC_REFERENCE=1 in the environment makes it the
// default of new groups; a derived group takes its source's.
func (g *Group) SetReference(on bool) {
	if g.p == nil {
		return
	}
	v := C.int(0)
	if on {
		v = 1
	}
	C.udocc_group_set_reference(g.p, v)
}

// K is the number of members.
func (g *Group) K() int { return g.k }

// Sizes are the layer sizes, input first.
func (g *Group) Sizes() []int { return append([]int(nil), g.sizes...) }

// N is the number of rows of the group's data.
func (g *Group) N() int { return g.n }

// SetData copies the n x d row-major matrix x to the group's device, once.
func (g *Group) SetData(x []float32, n, d int) error {
	if g.p == nil {
		return ErrClosed
	}
	if n < 1 || d < 1 || len(x) != n*d {
		return fmt.Errorf("torch: data of %d values is not %d x %d", len(x), n, d)
	}
	if err := errorOf(C.udocc_group_set_data(g.p, (*C.float)(&x[0]), C.int64_t(n), C.int64_t(d))); err != nil {
		return err
	}
	g.letGo()
	g.n = n
	return nil
}

// SetDataScaled is SetData with column j standardised as it is copied, as
// (x − mean[j]) / scale[j] in float64 rounded to float32 (scale.Scaler.Standardise's
// arithmetic), so that the caller's raw table is the only other copy.
func (g *Group) SetDataScaled(x []float32, n, d int, mean, scale []float64) error {
	if g.p == nil {
		return ErrClosed
	}
	if n < 1 || d < 1 || len(x) != n*d || len(mean) != d || len(scale) != d {
		return fmt.Errorf("torch: data of %d values, %d means and %d scales is not %d x %d", len(x), len(mean), len(scale), n, d)
	}
	if err := errorOf(C.udocc_group_set_data_scaled(g.p, (*C.float)(&x[0]), C.int64_t(n), C.int64_t(d),
		(*C.double)(&mean[0]), (*C.double)(&scale[0]))); err != nil {
		return err
	}
	g.letGo()
	g.n = n
	return nil
}

// BorrowData gives the group the rows rows (all nx rows when rows is nil) of the nx x d
// row-major matrix x, standardised as SetDataScaled standardises them when mean is not
// nil, without a copy where it can: on the CPU's fast path the group reads x in place,
// standardising every row as it reads it, so that a fit holds the caller's table and no
// standardised copy beside it. x must then stay unchanged until DropData or
// Close of this group and of every group derived from it; the group keeps it pinned
// (runtime.Pinner) until then. On CUDA, on the reference path or as a rank of a
// data-parallel run the rows are copied as SetDataScaled copies them. Either way the
// group reads the same numbers, to the bit. A failed BorrowData leaves the group
// without data.
func (g *Group) BorrowData(x []float32, nx, d int, rows []int32, mean, scale []float64) error {
	if g.p == nil {
		return ErrClosed
	}
	if nx < 1 || d < 1 || len(x) != nx*d {
		return fmt.Errorf("torch: data of %d values is not %d x %d", len(x), nx, d)
	}
	if (mean == nil) != (scale == nil) || (mean != nil && (len(mean) != d || len(scale) != d)) {
		return fmt.Errorf("torch: %d means and %d scales for %d columns", len(mean), len(scale), d)
	}
	n := nx
	var crows *C.int32_t
	if rows != nil {
		if n = len(rows); n < 1 {
			return fmt.Errorf("torch: an empty row list")
		}
		crows = (*C.int32_t)(&rows[0])
	}
	var cmean, cscale *C.double
	if mean != nil {
		cmean, cscale = (*C.double)(&mean[0]), (*C.double)(&scale[0])
	}
	l := &lent{}
	l.pin.Pin(&x[0])
	var kept C.int
	err := errorOf(C.udocc_group_borrow_data(g.p, (*C.float)(&x[0]), C.int64_t(nx), C.int64_t(d), crows,
		C.int64_t(n), cmean, cscale, &kept))
	g.letGo()
	g.n = 0
	if err != nil {
		l.pin.Unpin()
		C.udocc_error_free(C.udocc_group_drop_data(g.p))
		return err
	}
	if kept != 0 {
		g.share(l)
	} else {
		l.pin.Unpin()
	}
	g.n = n
	return nil
}

// DropData frees the group's copy of its data, or lets go of the table it borrowed,
// which groups derived from it share: the memory goes, or the table is unpinned, when
// the last of them drops it. Training and scoring the data fail after;
// the networks can still be saved, and score other rows.
func (g *Group) DropData() error {
	if g.p == nil {
		return ErrClosed
	}
	if err := errorOf(C.udocc_group_drop_data(g.p)); err != nil {
		return err
	}
	g.letGo()
	g.n = 0
	return nil
}

// ResetAdam starts fresh Adam states with per-member learning rates and L2 weight decay.
func (g *Group) ResetAdam(phase Phase, lr, wd []float64) error {
	if g.p == nil {
		return ErrClosed
	}
	if len(lr) != g.k || len(wd) != g.k {
		return fmt.Errorf("torch: adam needs %d learning rates and weight decays", g.k)
	}
	return errorOf(C.udocc_group_reset_adam(g.p, C.int(phase), (*C.double)(&lr[0]), (*C.double)(&wd[0])))
}

func planArgs(p *Plan) (*C.int32_t, *C.int32_t, *C.uint8_t) {
	if len(p.Counts) == 0 {
		var r C.int32_t
		var c C.int32_t
		var t C.uint8_t
		return &r, &c, &t
	}
	return (*C.int32_t)(&p.Rows[0]), (*C.int32_t)(&p.Counts[0]), (*C.uint8_t)(&p.Train[0])
}

// PretrainEpoch runs one autoencoder epoch (MSE) of the plan and returns each member's
// mean minibatch loss.
func (g *Group) PretrainEpoch(p *Plan) ([]float64, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if err := p.check(g.k); err != nil {
		return nil, err
	}
	if p.Extra != nil {
		return nil, fmt.Errorf("torch: pretraining takes no passengers")
	}
	loss := make([]float64, g.k)
	rows, counts, train := planArgs(p)
	err := errorOf(C.udocc_group_pretrain_epoch(g.p, rows, counts, train, C.int64_t(p.Steps),
		C.int64_t(p.Width), (*C.double)(&loss[0]), C.int64_t(len(loss))))
	return loss, err
}

// InitCenter sets every member's c to the mean eval-mode output over all rows, with
// components 0 < |c_j| < eps pushed to ±eps.
func (g *Group) InitCenter(eps float64) error {
	if g.p == nil {
		return ErrClosed
	}
	return errorOf(C.udocc_group_init_center(g.p, C.double(eps)))
}

// TrainEpoch runs one fine-tuning epoch of the plan and returns each member's mean
// minibatch loss. When trainDist is not nil (K x n) it receives the train-mode distance of
// every row the plan visits.
func (g *Group) TrainEpoch(p *Plan, obj Objective, trainDist []float32) ([]float64, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if err := p.check(g.k); err != nil {
		return nil, err
	}
	if len(obj.Soft) != g.k || len(obj.Nu) != g.k || len(obj.UpdateR) != g.k {
		return nil, fmt.Errorf("torch: objective must give %d members", g.k)
	}
	var td *C.float
	ntd := len(trainDist)
	if trainDist != nil {
		if len(trainDist) != g.k*g.n {
			return nil, fmt.Errorf("torch: train distances need %d values, have %d", g.k*g.n, len(trainDist))
		}
		td = (*C.float)(&trainDist[0])
	}
	loss := make([]float64, g.k)
	rows, counts, train := planArgs(p)
	var extra *C.int32_t
	if len(p.Extra) > 0 {
		extra = (*C.int32_t)(&p.Extra[0])
	}
	err := errorOf(C.udocc_group_train_epoch(g.p, rows, counts, extra, train, C.int64_t(p.Steps), C.int64_t(p.Width),
		(*C.uint8_t)(&obj.Soft[0]), (*C.double)(&obj.Nu[0]), (*C.uint8_t)(&obj.UpdateR[0]),
		(*C.double)(&loss[0]), C.int64_t(len(loss)), td, C.int64_t(ntd)))
	return loss, err
}

// SetLabels sets answers on the group's data rows (1 normal, -1 anomaly, 0 unlabelled):
// later TrainEpochs' one-class loss is then Deep SAD's (Ruff et al. 2020, Eq. (3)), a
// labelled normal row's term eta·d and a labelled anomaly's eta / (d + 1e-6). nil clears
// them. Set the data first.
func (g *Group) SetLabels(labels []int8, eta float64) error {
	if g.p == nil {
		return ErrClosed
	}
	if len(labels) == 0 {
		return errorOf(C.udocc_group_set_labels(g.p, nil, 0, 0))
	}
	return errorOf(C.udocc_group_set_labels(g.p, (*C.int8_t)(&labels[0]), C.int64_t(len(labels)), C.double(eta)))
}

// Distances returns the K x n eval-mode squared distances ||φ(x)−c||² (Eq. (3)), member
// after member, copied from the device in one copy.
func (g *Group) Distances() ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if g.n == 0 {
		return nil, fmt.Errorf("torch: no data: call SetData first")
	}
	out := make([]float32, g.k*g.n)
	return out, g.DistancesTo(out)
}

// DistancesTo is Distances into out (K x n), which a training loop reuses from epoch to
// epoch.
func (g *Group) DistancesTo(out []float32) error {
	if g.p == nil {
		return ErrClosed
	}
	if g.n == 0 {
		return fmt.Errorf("torch: no data: call SetData first")
	}
	if len(out) != g.k*g.n {
		return fmt.Errorf("torch: distances need %d values, have %d", g.k*g.n, len(out))
	}
	return errorOf(C.udocc_group_distances(g.p, (*C.float)(&out[0]), C.int64_t(len(out))))
}

// DistancesOf scores the m x d row-major matrix x, which is not the group's data.
func (g *Group) DistancesOf(x []float32, m, d int) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	out := make([]float32, g.k*m)
	return out, errorOf(C.udocc_group_distances_of(g.p, (*C.float)(&x[0]), C.int64_t(m), C.int64_t(d), (*C.float)(&out[0]), C.int64_t(len(out))))
}

// EmbeddingsOf returns the eval-mode encoder outputs φ(x) of the m x d row-major rows x:
// member after member, m x rep each (rep the last of Sizes).
func (g *Group) EmbeddingsOf(x []float32, m, d int) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	out := make([]float32, g.k*m*g.sizes[len(g.sizes)-1])
	return out, errorOf(C.udocc_group_embeddings_of(g.p, (*C.float)(&x[0]), C.int64_t(m), C.int64_t(d), (*C.float)(&out[0]), C.int64_t(len(out))))
}

// StandardiseOutput moves member k's center to center[k·rep:(k+1)·rep] (nil: keeps
// every center) and divides coordinate j of its representation by scale[k·rep+j]:
// column j of the last encoder layer and coordinate j of the center. Every distance
// afterwards, and every saved member, is Σ_j ((φ_j(x) − center_j) / scale_j)². Each
// scale must be finite and positive, each center finite.
func (g *Group) StandardiseOutput(center, scale []float32) error {
	if g.p == nil {
		return ErrClosed
	}
	rep := g.sizes[len(g.sizes)-1]
	if len(scale) != g.k*rep || (center != nil && len(center) != g.k*rep) {
		return fmt.Errorf("torch: %d output scales and %d centers for %d members of %d outputs", len(scale), len(center), g.k, rep)
	}
	var cp *C.float
	if center != nil {
		cp = (*C.float)(&center[0])
	}
	return errorOf(C.udocc_group_standardise_output(g.p, cp, (*C.float)(&scale[0])))
}

// ResidualsOf returns the eval-mode autoencoder residuals x − dec(enc(x)) of the m x d
// row-major rows x: member after member, m x d each. The group needs its decoder.
func (g *Group) ResidualsOf(x []float32, m, d int) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	out := make([]float32, g.k*m*d)
	return out, errorOf(C.udocc_group_residuals_of(g.p, (*C.float)(&x[0]), C.int64_t(m), C.int64_t(d), (*C.float)(&out[0]), C.int64_t(len(out))))
}

// SetReconstructionScale makes member k's reconstruction error the robust
//
//	(1/d) Σ_j log(1 + ((e_j − center[k·d+j]) / scale[k·d+j])²),  e = x − dec(enc(x)),
//
// instead of ‖e‖²/d: every later Reconstruction, ReconstructionTo and ReconstructionOf,
// and every member saved afterwards (Load reads it back). Each scale must be finite and
// positive, each center finite; both nil restores the squared error. The group needs its
// decoder.
func (g *Group) SetReconstructionScale(center, scale []float32) error {
	if g.p == nil {
		return ErrClosed
	}
	if center == nil && scale == nil {
		return errorOf(C.udocc_group_set_reconstruction_scale(g.p, nil, nil))
	}
	d := g.sizes[0]
	if len(scale) != g.k*d || len(center) != g.k*d {
		return fmt.Errorf("torch: %d reconstruction scales and %d centers for %d members of %d features", len(scale), len(center), g.k, d)
	}
	return errorOf(C.udocc_group_set_reconstruction_scale(g.p, (*C.float)(&center[0]), (*C.float)(&scale[0])))
}

// Reconstruction returns the K x n eval-mode autoencoder reconstruction errors
// ||x − dec(enc(x))||² / d of the group's rows (or the robust error SetReconstructionScale
// set), member after member. The group needs its decoder (a pretraining group).
func (g *Group) Reconstruction() ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if g.n == 0 {
		return nil, fmt.Errorf("torch: no data: call SetData first")
	}
	out := make([]float32, g.k*g.n)
	return out, errorOf(C.udocc_group_reconstruction(g.p, (*C.float)(&out[0]), C.int64_t(len(out))))
}

// ReconstructionTo writes member k's reconstruction errors of the group's rows (its part
// of Reconstruction's, the same numbers) into out (n). On the CPU's fast path only that
// member's are computed, so a caller need not hold every member's at once;
// elsewhere every member's are, and k's kept.
func (g *Group) ReconstructionTo(k int, out []float32) error {
	if g.p == nil {
		return ErrClosed
	}
	if g.n == 0 {
		return fmt.Errorf("torch: no data: call SetData first")
	}
	if k < 0 || k >= g.k || len(out) != g.n {
		return fmt.Errorf("torch: member %d of %d into %d values; the group has %d rows", k, g.k, len(out), g.n)
	}
	return errorOf(C.udocc_group_reconstruction_member(g.p, C.int(k), (*C.float)(&out[0]), C.int64_t(len(out))))
}

// ReconstructionOf is Reconstruction for the m x d row-major matrix x, which is not the
// group's data.
func (g *Group) ReconstructionOf(x []float32, m, d int) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	out := make([]float32, g.k*m)
	return out, errorOf(C.udocc_group_reconstruction_of(g.p, (*C.float)(&x[0]), C.int64_t(m), C.int64_t(d), (*C.float)(&out[0]), C.int64_t(len(out))))
}

// ScoreGroups scores the m x d row-major rows x, which are no group's data, with several
// groups in one call of the shim: dists[i] are dist[i]'s distances (DistancesOf's, K x m)
// and recs[i] rec[i]'s reconstruction errors (ReconstructionOf's). A model's members
// scored one group a call hopped to the shim's threads once a group; a request of one
// row paid more for the hops than for the rows.
func ScoreGroups(dist, rec []*Group, x []float32, m, d int) (dists, recs [][]float32, err error) {
	if m < 1 || d < 1 || len(x) != m*d {
		return nil, nil, fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	var pd, pr []*C.udocc_group
	nd, nr := 0, 0
	for _, g := range dist {
		if g.p == nil {
			return nil, nil, ErrClosed
		}
		pd = append(pd, g.p)
		nd += g.k * m
	}
	for _, g := range rec {
		if g.p == nil {
			return nil, nil, ErrClosed
		}
		pr = append(pr, g.p)
		nr += g.k * m
	}
	outD, outR := make([]float32, nd+1), make([]float32, nr+1) // +1: a first element to point at
	var cd, cr **C.udocc_group
	if len(pd) > 0 {
		cd = &pd[0]
	}
	if len(pr) > 0 {
		cr = &pr[0]
	}
	if err := errorOf(C.udocc_groups_score(cd, C.int64_t(len(pd)), cr, C.int64_t(len(pr)),
		(*C.float)(&x[0]), C.int64_t(m), C.int64_t(d), (*C.float)(&outD[0]), (*C.float)(&outR[0]))); err != nil {
		return nil, nil, err
	}
	for _, g := range dist {
		dists = append(dists, outD[:g.k*m:g.k*m])
		outD = outD[g.k*m:]
	}
	for _, g := range rec {
		recs = append(recs, outR[:g.k*m:g.k*m])
		outR = outR[g.k*m:]
	}
	return dists, recs, nil
}

// Center returns the K x rep centers.
func (g *Group) Center() ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	out := make([]float32, g.k*g.sizes[len(g.sizes)-1])
	return out, errorOf(C.udocc_group_get_center(g.p, (*C.float)(&out[0]), C.int64_t(len(out))))
}

// Radius returns the K radii R of the soft-boundary loss.
func (g *Group) Radius() ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	out := make([]float32, g.k)
	return out, errorOf(C.udocc_group_get_radius(g.p, (*C.float)(&out[0]), C.int64_t(len(out))))
}

// SetRadius sets the K radii R.
func (g *Group) SetRadius(r []float32) error {
	if g.p == nil {
		return ErrClosed
	}
	if len(r) != g.k {
		return fmt.Errorf("torch: need %d radii, have %d", g.k, len(r))
	}
	return errorOf(C.udocc_group_set_radius(g.p, (*C.float)(&r[0]), C.int64_t(len(r))))
}

// Param copies member k's tensor by name: "enc.I.weight" (in x out, row-major),
// "enc.I.running_mean", "enc.I.running_var", "dec.I...", "center" or "radius".
func (g *Group) Param(k int, name string) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	widest := 1
	for i := 0; i+1 < len(g.sizes); i++ {
		widest = max(widest, g.sizes[i]*g.sizes[i+1])
	}
	out := make([]float32, widest)
	var n C.int64_t
	if err := errorOf(C.udocc_group_get_param(g.p, C.int(k), cname, (*C.float)(&out[0]), C.int64_t(len(out)), &n)); err != nil {
		return nil, err
	}
	return out[:n], nil
}

// Save writes member k's whole state (encoder, decoder, BatchNorm buffers, center,
// radius, sizes) to path, replacing a file there. A failed write (a full disk) is an
// error, and removes what was written of the file.
func (g *Group) Save(k int, path string) error {
	b, err := g.Marshal(k)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// Marshal is member k's whole state as the bytes Save writes and LoadBytes reads.
func (g *Group) Marshal(k int) ([]byte, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	var buf *C.char
	var n C.int64_t
	if err := errorOf(C.udocc_group_serialize(g.p, C.int(k), &buf, &n)); err != nil {
		return nil, err
	}
	defer C.udocc_free(buf)
	return C.GoBytes(unsafe.Pointer(buf), C.int(n)), nil
}

// Extract makes a new group of one member on g's device holding member k's whole
// state, the group that Load would read from the file Save writes of member k, without
// the file; it shares nothing with g, which may be closed after.
func (g *Group) Extract(k int) (*Group, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	var p *C.udocc_group
	if err := errorOf(C.udocc_group_extract(g.p, C.int(k), &p)); err != nil {
		return nil, err
	}
	return &Group{p: p, k: 1, sizes: append([]int(nil), g.sizes...)}, nil
}

// MaxFileBytes bounds the network file Load reads: far more than any member holds.
const MaxFileBytes = 4 << 30

// Load reads a file written by Save into a new group of one member on device. Only a
// regular file is read (internal/regfile): a device or a named pipe is refused.
func Load(path, device string) (*Group, error) {
	b, err := regfile.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return LoadBytes(b, path, device)
}

// LoadBytes reads the bytes of a file written by Save (path names them in errors) into
// a new group of one member on device.
func LoadBytes(b []byte, path, device string) (*Group, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	cdev := C.CString(device)
	defer C.free(unsafe.Pointer(cdev))
	var p *C.udocc_group
	var data *C.char
	if len(b) > 0 {
		data = (*C.char)(unsafe.Pointer(&b[0]))
	}
	if err := errorOf(C.udocc_group_load(data, C.int64_t(len(b)), cpath, cdev, &p)); err != nil {
		return nil, err
	}
	runtime.KeepAlive(b)
	var k, ns C.int
	sizes := make([]C.int64_t, 64)
	C.udocc_group_info(p, &k, &ns, &sizes[0], C.int(len(sizes)))
	g := &Group{p: p, k: int(k)}
	for i := 0; i < int(ns) && i < len(sizes); i++ {
		g.sizes = append(g.sizes, int(sizes[i]))
	}
	return g, nil
}

// Part is the score an attribution explains: a member's distance or its autoencoder's
// reconstruction error.
type Part int

const (
	// DistancePart attributes the squared distance ||φ(x)−c||² by integrating its
	// gradient along the straight path from the baseline.
	DistancePart Part = 0
	// ReconstructionPart attributes the reconstruction error (the group needs its
	// decoder) exactly, feature by feature.
	ReconstructionPart Part = 1
	// DistanceOcclusion attributes the distance by occlusion: feature j's part is the
	// distance of the row less that of the row with feature j set to the baseline's.
	DistanceOcclusion Part = 2
	// ReconstructionOcclusion is DistanceOcclusion for the reconstruction error.
	ReconstructionOcclusion Part = 3
)

// AttributionsOf attributes every member's score of the m x d row-major rows x to the
// rows' features against the baseline row b (d values): member after member, m x d
// each. For DistancePart, a_j = (x_j − b_j) · mean over α in alphas of ∂D/∂x_j at
// b + α(x − b): integrated gradients with the caller's quadrature points in [0, 1] (Σ_j a_j
// approaches D(x) − D(b) as the points fill the path), or gradient × input with alphas
// {1} and b = 0. For ReconstructionPart alphas are unused, and a_j is feature j's term of
// the error at x less its term at b, so Σ_j a_j is the error of x less that of b to float
// rounding. For DistanceOcclusion and ReconstructionOcclusion alphas are unused, and a_j
// is the score of x less that of x with x_j set to b_j. The shim computes a block of rows
// in one call.
func (g *Group) AttributionsOf(x []float32, m, d int, b, alphas []float32, part Part) ([]float32, error) {
	if g.p == nil {
		return nil, ErrClosed
	}
	out := make([]float32, g.k*m*d)
	return out, g.AttributionsTo(out, x, m, d, b, alphas, part)
}

// AttributionsTo is AttributionsOf into out, which must hold K x m x d values.
func (g *Group) AttributionsTo(out, x []float32, m, d int, b, alphas []float32, part Part) error {
	if g.p == nil {
		return ErrClosed
	}
	if m < 1 || d < 1 || len(x) != m*d {
		return fmt.Errorf("torch: data of %d values is not %d x %d", len(x), m, d)
	}
	if len(b) != d {
		return fmt.Errorf("torch: a baseline of %d values for %d features", len(b), d)
	}
	if part == DistancePart && len(alphas) == 0 {
		return fmt.Errorf("torch: distance attributions need at least one path point")
	}
	var ca, co *C.float
	if len(alphas) > 0 {
		ca = (*C.float)(&alphas[0])
	}
	if len(out) > 0 {
		co = (*C.float)(&out[0])
	}
	return errorOf(C.udocc_group_attributions_of(g.p, (*C.float)(&x[0]), C.int64_t(m), C.int64_t(d),
		(*C.float)(&b[0]), ca, C.int64_t(len(alphas)), C.int(part), co, C.int64_t(len(out))))
}
