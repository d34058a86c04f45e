package bench

import (
	"context"

	"github.com/udocc/udocc/data"
	udocc "github.com/udocc/udocc/internal/detector"
	"github.com/udocc/udocc/internal/method"
)

// fitTraced is FitDataset with the Trace of its fit (detector.FitTraced): the
// screening's scores and per-epoch scores, the members' distances and reconstruction
// errors of every row, as the library's own fit computed them.
func fitTraced(ctx context.Context, ds *data.Dataset, m udocc.Method, opts udocc.Options) (*udocc.Model, *method.Trace, error) {
	return udocc.FitTraced(ctx, ds, m, opts)
}
