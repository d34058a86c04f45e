package detector

import (
	"context"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/tool"
)

// The methods below are what the udocc command, the server and the bench read of a
// model beyond the door's API (tool.Model documents each); the door does not export
// them.

func (m *Model) History() [][]tool.Epoch  { return m.historyCopy() }
func (m *Model) Members() []tool.Member   { return m.membersCopy() }
func (m *Model) Label(s []float64) []bool { return m.label(s) }
func (m *Model) ScoreMembers(ctx context.Context, rows [][]float64) ([]float64, [][]float64, error) {
	return m.scoreMembers(ctx, rows)
}
func (m *Model) Probability(score float64) float64 { return m.probability(score) }
func (m *Model) ThresholdFor(scores []float64, c tool.Cut) (float64, error) {
	return m.thresholdFor(scores, c)
}
func (m *Model) Recut(scores []float64, c tool.Cut) (float64, error) { return m.recut(scores, c) }
func (m *Model) TrainingFlagged() int                                { return m.trainingFlagged() }
func (m *Model) LabelColumn() (name, positive string)                { return m.labelColumn() }
func (m *Model) Medians() []float64                                  { return m.medians() }
func (m *Model) TrainingMissing() []int                              { return m.trainingMissing() }
func (m *Model) MatchColumns(ds *data.Dataset) (*data.Dataset, error) {
	return m.matchColumns(ds)
}
func (m *Model) Impute(ds *data.Dataset) ([]int, error) { return m.imputeMissing(ds) }
func (m *Model) Selection() data.Selection              { return m.selection() }
func (m *Model) Device() string                         { return m.device }
func (m *Model) Inputs() int                            { return m.inputs() }
func (m *Model) Components() int                        { return m.components() }
func (m *Model) GaussianWeight() float64                { return m.gaussianWeight() }
func (m *Model) Hidden() []int                          { return m.hiddenWidths() }
func (m *Model) ConstantColumns() []int                 { return m.constantColumns() }
func (m *Model) DistanceWeight() float64                { return m.distanceWeight() }
func (m *Model) DefaultExplainMethod() string           { return string(m.defaultExplainMethod()) }
func (m *Model) Normal() (median, spread []float64)     { return m.normal() }
