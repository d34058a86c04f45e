package method

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/parallel"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// Networks are a fitted model's networks: member k's encoder with its center and radius,
// and for the ensemble its pretraining autoencoder (nil for the paper's methods), each a
// single-member group as Load reads it from the file Save writes of it, so that a fitted
// model and a loaded one score rows by the same code on the same weights.
type Networks struct {
	Enc, AE []*torch.Group
	Seeds   []uint64
	Scaler  *scale.Scaler // the training rows' standardisation
	Sizes   []int         // the encoder's layer sizes, input first
}

// Close frees the networks; a second call does nothing.
func (nw *Networks) Close() {
	for _, g := range append(nw.Enc, nw.AE...) {
		g.Close()
	}
	nw.Enc, nw.AE = nil, nil
}

// takeNetworks moves the run's networks into Networks (autoencoders too for the
// ensemble), and refuses them where one holds a value that is not finite (CheckFinite).
func takeNetworks(run *training.Run, ensemble bool, sc *scale.Scaler, sizes []int) (*Networks, error) {
	nw := &Networks{Scaler: sc, Sizes: sizes}
	fail := func(err error) (*Networks, error) {
		nw.Close()
		return nil, fmt.Errorf("udocc: %w", err)
	}
	for k, r := range run.Results {
		g, err := run.Network(k)
		if err != nil {
			return fail(err)
		}
		nw.Enc = append(nw.Enc, g)
		nw.Seeds = append(nw.Seeds, r.Member.Seed)
		if ensemble {
			if g, err = run.Autoencoder(k); err != nil {
				return fail(err)
			}
			nw.AE = append(nw.AE, g)
		}
	}
	if err := nw.CheckFinite(); err != nil {
		nw.Close()
		return nil, err
	}
	return nw, nil
}

// memberFiles are the saved model's members of nw: their seeds and network files.
func (nw *Networks) memberFiles() []models.Member {
	out := make([]models.Member, len(nw.Enc))
	for k, s := range nw.Seeds {
		out[k] = models.Member{Seed: s, Network: fmt.Sprintf("member-%d.pt", s)}
		if nw.AE != nil {
			out[k].Autoencoder = fmt.Sprintf("autoencoder-%d.pt", s)
		}
	}
	return out
}

// CheckFinite refuses networks any of whose weights, BatchNorm statistics, center or
// radius holds a value that is not finite, naming the member and the tensor: a member
// that diverged (training.ErrDiverged; its autoencoder: training.ErrPretrainDiverged)
// would score every row NaN, and is not saved.
func (nw *Networks) CheckFinite() error {
	layers := len(nw.Sizes) - 1
	check := func(g *torch.Group, k int, role string, parts []string, sentinel error) error {
		var names []string
		for _, part := range parts {
			for i := range layers {
				for _, t := range []string{"weight", "running_mean", "running_var"} {
					names = append(names, fmt.Sprintf("%s.%d.%s", part, i, t))
				}
			}
		}
		if role == models.RoleEncoder {
			names = append(names, "center", "radius")
		}
		for _, name := range names {
			xs, err := g.Param(0, name)
			if err != nil {
				if errors.Is(err, torch.ErrNoTensor) && !strings.HasSuffix(name, ".weight") {
					continue // a layer without BatchNorm
				}
				return fmt.Errorf("udocc: member %d's %s: %w", k, role, err)
			}
			for _, v := range xs {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return fmt.Errorf("udocc: member %d (seed %d): its %s's %s holds %v, not saved: %w",
						k, nw.Seeds[k], role, name, v, sentinel)
				}
			}
		}
		return nil
	}
	for k, g := range nw.Enc {
		if err := check(g, k, models.RoleEncoder, []string{"enc"}, training.ErrDiverged); err != nil {
			return err
		}
	}
	for k, g := range nw.AE {
		if err := check(g, k, models.RoleAutoencoder, []string{"enc", "dec"}, training.ErrPretrainDiverged); err != nil {
			return err
		}
	}
	return nil
}

// loadNetworks reads the networks of meta's members from dir onto device, each checked
// first against its role and hash in meta.Files, and its sizes against meta's.
func loadNetworks(meta *models.Meta, dir, device string) (*Networks, error) {
	if err := meta.CheckFiles(dir); err != nil {
		return nil, fmt.Errorf("udocc: load: %w", err)
	}
	nw := &Networks{Scaler: &meta.Scaler, Sizes: meta.Sizes}
	open := func(name string) (*torch.Group, error) {
		path := filepath.Join(dir, name)
		g, err := torch.Load(path, device)
		if err != nil {
			return nil, fmt.Errorf("udocc: network %s: %w", path, err)
		}
		if got := g.Sizes(); !slices.Equal(got, meta.Sizes) {
			g.Close()
			return nil, fmt.Errorf("udocc: %s: sizes %s, but the network file %s holds layers of sizes %s: one of them was changed", filepath.Join(dir, models.MetaFile), shortInts(meta.Sizes), path, shortInts(got))
		}
		return g, nil
	}
	for _, mem := range meta.Members {
		nw.Seeds = append(nw.Seeds, mem.Seed)
		g, err := open(mem.Network)
		if err != nil {
			nw.Close()
			return nil, err
		}
		nw.Enc = append(nw.Enc, g)
		if mem.Autoencoder != "" {
			if g, err = open(mem.Autoencoder); err != nil {
				nw.Close()
				return nil, err
			}
			nw.AE = append(nw.AE, g)
		}
	}
	return nw, nil
}

// scoreChunk is the rows outputs standardises and scores at a time: a buffer of a few
// MB, whatever the table's size, instead of a standardised copy of it.
const scoreChunk = 1 << 16

// outputs are every member's distances ||φ(x)−c||² of the rows of ds, standardised as
// the training rows were, and for the ensemble method its autoencoder's reconstruction
// errors. Training rows and new ones go through the same chunks, so the training rows
// score the same however they are given. Both stay float32 as the shim gives them:
// scoreCombined combines them widened, to the same numbers, and a caller widens each
// member's distances when it hands them out, so that the K members' float64 and float32
// copies never all stand at once (at 10^7 rows and five members, 400 MB of float64
// distances beside the combination's work). ctx is checked before every chunk. A value
// that is not finite once standardised is refused (ErrUnscorable). The caller sets the
// thread count (torch.WithThreads).
func (nw *Networks) outputs(ctx context.Context, ds *data.Dataset) (dist, rec [][]float32, err error) {
	return nw.outputsOf(ctx, ds, nw.AE)
}

// distances are outputs' distances alone: the encoders' pass, no autoencoder's.
func (nw *Networks) distances(ctx context.Context, ds *data.Dataset) ([][]float32, error) {
	dist, _, err := nw.outputsOf(ctx, ds, nil)
	return dist, err
}

// outputsOf is outputs with the autoencoders aes (nil: none).
func (nw *Networks) outputsOf(ctx context.Context, ds *data.Dataset, aes []*torch.Group) (dist, rec [][]float32, err error) {
	dist, rec = make([][]float32, len(nw.Enc)), make([][]float32, len(aes))
	for k := range dist {
		dist[k] = make([]float32, ds.N)
	}
	for k := range rec {
		rec[k] = make([]float32, ds.N)
	}
	buf := make([]float32, min(ds.N, scoreChunk)*ds.D)
	for lo := 0; lo < ds.N; lo += scoreChunk {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		hi := min(lo+scoreChunk, ds.N)
		x := buf[:(hi-lo)*ds.D]
		if err := standardiseRows(nw.Scaler, ds, lo, hi, x); err != nil {
			return nil, nil, err
		}
		// Every member's networks in one call of the shim (torch.ScoreGroups): one hop to
		// its threads a chunk, where a call a network took ten.
		d, r, err := torch.ScoreGroups(nw.Enc, aes, x, hi-lo, ds.D)
		if err != nil {
			return nil, nil, fmt.Errorf("udocc: rows %d to %d: %w", lo+1, hi, err)
		}
		for k := range dist {
			copy(dist[k][lo:hi], d[k])
		}
		for k := range rec {
			copy(rec[k][lo:hi], r[k])
		}
	}
	return dist, rec, nil
}

// standardiseRows standardises rows lo..hi of ds into x and checks them
// (checkStandardised), in blocks of rows on the process's threads: the values are the
// same whatever the threads, and the error is the first bad row's.
func standardiseRows(sc *scale.Scaler, ds *data.Dataset, lo, hi int, x []float32) error {
	const block = 4096
	d := ds.D
	errs := make([]error, (hi-lo+block-1)/block)
	parallel.For(len(errs), torch.NumThreads(), func(t int) {
		a, b := lo+t*block, min(lo+(t+1)*block, hi)
		part := x[(a-lo)*d : (b-lo)*d]
		sc.Standardise(part, ds.X[a*d:b*d])
		errs[t] = checkStandardised(sc, ds, a, part)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shortInts is xs for a message: at most its first 8, and how many there are.
func shortInts(xs []int) string {
	if len(xs) <= 8 {
		return fmt.Sprint(xs)
	}
	return fmt.Sprintf("%v… (%d in all)", xs[:8], len(xs))
}
