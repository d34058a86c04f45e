package udocc

import (
	"context"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/tool"
)

func init() {
	tool.Of = func(m any) tool.Model { return toolView{m.(*Model)} }
	tool.LoadHandler = func(opts any) (tool.Server, error) {
		h, err := loadHandler(opts.(HandlerOptions))
		if err != nil {
			return nil, err
		}
		return h, nil
	}
}

// toolView is a Model as package tool shows it to the udocc command and the bench.
type toolView struct{ m *Model }

func (v toolView) History() [][]tool.Epoch  { return v.m.historyCopy() }
func (v toolView) Members() []tool.Member   { return v.m.membersCopy() }
func (v toolView) Label(s []float64) []bool { return v.m.label(s) }
func (v toolView) ScoreMembers(ctx context.Context, rows [][]float64) ([]float64, [][]float64, error) {
	return v.m.scoreMembers(ctx, rows)
}
func (v toolView) Probability(score float64) float64 { return v.m.probability(score) }
func (v toolView) ThresholdFor(scores []float64, c tool.Cut) (float64, error) {
	return v.m.thresholdFor(scores, c)
}
func (v toolView) Recut(scores []float64, c tool.Cut) (float64, error) { return v.m.recut(scores, c) }
func (v toolView) TrainingFlagged() int                                { return v.m.trainingFlagged() }
func (v toolView) LabelColumn() (name, positive string)                { return v.m.labelColumn() }
func (v toolView) Medians() []float64                                  { return v.m.medians() }
func (v toolView) TrainingMissing() []int                              { return v.m.trainingMissing() }
func (v toolView) MatchColumns(ds *data.Dataset) (*data.Dataset, error) {
	return v.m.matchColumns(ds)
}
func (v toolView) Impute(ds *data.Dataset) ([]int, error) { return v.m.imputeMissing(ds) }
func (v toolView) Selection() data.Selection              { return v.m.selection() }
func (v toolView) Device() string                         { return v.m.device }
func (v toolView) Inputs() int                            { return v.m.inputs() }
func (v toolView) Components() int                        { return v.m.components() }
func (v toolView) GaussianWeight() float64                { return v.m.gaussianWeight() }
func (v toolView) Hidden() []int                          { return v.m.hiddenWidths() }
func (v toolView) ConstantColumns() []int                 { return v.m.constantColumns() }
func (v toolView) DistanceWeight() float64                { return v.m.distanceWeight() }
func (v toolView) DefaultExplainMethod() string           { return string(v.m.defaultExplainMethod()) }
func (v toolView) Normal() (median, spread []float64)     { return v.m.normal() }
