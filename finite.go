package udocc

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// checkFinite refuses a fitted model any of whose networks holds a value that is not a
// finite number (weights, BatchNorm statistics, center, radius), naming the member and
// the tensor: a fit whose losses and scores stayed finite can still leave one, and a
// model is never saved with it. The error wraps ErrDiverged (training.ErrPretrainDiverged
// for an autoencoder).
func (m *Model) checkFinite() error {
	layers := len(m.meta.Sizes) - 1
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
						k, m.meta.Members[k].Seed, role, name, v, sentinel)
				}
			}
		}
		return nil
	}
	for k, g := range m.nets {
		if err := check(g, k, models.RoleEncoder, []string{"enc"}, training.ErrDiverged); err != nil {
			return err
		}
	}
	for k, g := range m.aes {
		if err := check(g, k, models.RoleAutoencoder, []string{"enc", "dec"}, training.ErrPretrainDiverged); err != nil {
			return err
		}
	}
	return nil
}
