package bench

import (
	"context"

	"github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/method"
)

// fitTraced is udocc.FitDataset with the Trace of its fit (method.FitTraced): the
// screening's scores and per-epoch scores, the members' distances and reconstruction
// errors of every row, as the library's own fit computed them.
func fitTraced(ctx context.Context, ds *data.Dataset, opts udocc.Options) (*udocc.Model, *method.Trace, error) {
	m, tr, err := method.FitTraced(ctx, ds, opts)
	if err != nil {
		return nil, nil, err
	}
	return m.(*udocc.Model), tr, nil
}
