package detector

import (
	"context"

	"github.com/udocc/udocc/data"
)

// The methods below are what the udocc command, the server and the bench read of a
// model beyond the door's API. The door does not export them.

// History is every member's per-epoch fine-tuning record, member by member in seed
// order (a copy); nil for a loaded model.
func (m *Model) History() [][]Epoch { return m.historyCopy() }

// Members are the model's members in seed order, with their training rows' scores and
// labels for a model that Fit returned (a copy).
func (m *Model) Members() []Member { return m.membersCopy() }

// Label labels scores by the model's threshold, true above it; nil for a model without
// one (oc).
func (m *Model) Label(s []float64) []bool { return m.label(s) }

// ScoreMembers is Score with each member's distances (Eq. (3)) beside the scores.
func (m *Model) ScoreMembers(ctx context.Context, rows [][]float64) ([]float64, [][]float64, error) {
	return m.scoreMembers(ctx, rows)
}

// Probability is Probabilities of one score.
func (m *Model) Probability(score float64) float64 { return m.probability(score) }

// ThresholdFor is the threshold, in score units, that cut c draws on scores: scores
// above it are flagged. It changes nothing. ErrNoRecut: it cannot be drawn.
func (m *Model) ThresholdFor(scores []float64, c Cut) (float64, error) {
	return m.thresholdFor(scores, c)
}

// Recut draws the threshold anew with c on the training scores (kept in model.json for
// a loaded model) and sets it. model.json's threshold rule follows at the next Save.
func (m *Model) Recut(scores []float64, c Cut) (float64, error) { return m.recut(scores, c) }

// TrainingFlagged is how many training rows the threshold flags: counted on a fitted
// model's scores, estimated from model.json's sketch for a loaded one; -1 where neither
// is kept.
func (m *Model) TrainingFlagged() int { return m.trainingFlagged() }

// LabelColumn is the training table's label column and its positive value; "" where it
// had none by name.
func (m *Model) LabelColumn() (name, positive string) { return m.labelColumn() }

// Medians are the training columns' medians, which Impute fills missing cells with (a
// copy).
func (m *Model) Medians() []float64 { return m.medians() }

// TrainingMissing are the training table's missing cells per column.
func (m *Model) TrainingMissing() []int { return m.trainingMissing() }

// MatchColumns reorders ds's columns by name to the model's, or refuses it with a
// ColumnsError.
func (m *Model) MatchColumns(ds *data.Dataset) (*data.Dataset, error) {
	return m.matchColumns(ds)
}

// Impute fills ds's missing cells with Medians and returns the count per column.
func (m *Model) Impute(ds *data.Dataset) ([]int, error) { return m.imputeMissing(ds) }

// Selection is how the training table's columns were chosen from its file; the zero
// Selection where every column was taken.
func (m *Model) Selection() data.Selection { return m.selection() }

// Device is the device the networks are on.
func (m *Model) Device() string { return m.device }

// Inputs is the number of columns the model takes.
func (m *Model) Inputs() int { return m.inputs() }

// Components are the principal components the networks read in place of the columns
// (Ensemble.Components); 0 when they read the columns.
func (m *Model) Components() int { return m.components() }

// GaussianWeight is the weight of a projected table's Gaussian in its score
// (Ensemble.Gaussian); 0 when there is none.
func (m *Model) GaussianWeight() float64 { return m.gaussianWeight() }

// Hidden are the encoder's widths after the input (a copy).
func (m *Model) Hidden() []int { return m.hiddenWidths() }

// ConstantColumns are the training columns that held one value throughout (a copy).
func (m *Model) ConstantColumns() []int { return m.constantColumns() }

// DistanceWeight is the ensemble's w, the distances' part of the score; NaN for the
// paper's methods.
func (m *Model) DistanceWeight() float64 { return m.distanceWeight() }

// DefaultExplainMethod is the explanation method "" gives on this model: Shapley for
// at most ShapleyMaxFeatures features, else integrated gradients.
func (m *Model) DefaultExplainMethod() string { return string(m.defaultExplainMethod()) }

// Normal is the explanations' baseline row (the training rows' medians) and the
// columns' spreads; nil for a model saved without them.
func (m *Model) Normal() (median, spread []float64) { return m.normal() }
