package tool

// The explanations' settings (udocc.ExplainOptions, docs/explain.md).

// DefaultExplainSteps are the points of the midpoint rule with which the
// integrated-gradients method integrates the distance's gradient along the path from the
// baseline row (udocc.ExplainOptions.Steps).
const DefaultExplainSteps = 16

// MaxExplainSteps bounds udocc.ExplainOptions.Steps: each step is a pass of the networks over
// every row explained, and the midpoint rule's error at 1024 points is far below a
// float32 score's resolution.
const MaxExplainSteps = 1024

// ExactShapleyFeatures is the most active features (those off the baseline's value)
// whose Shapley values udocc's Explain computes exactly, over all 2^k coalitions, when
// udocc.ExplainOptions.Exact asks; beyond, it samples permutations (udocc.ExplainOptions.Samples).
const ExactShapleyFeatures = 12

// CheapExactShapleyFeatures is the most active features whose Shapley values udocc's Explain
// computes exactly by default: up to 2^5 = 32 coalitions, no more scored rows than the
// 8·(5−1) of DefaultShapleySamples permutations. Beyond, exact values cost more than
// sampled ones (2^10 = 1024 scored rows a row of 10 against 72) and are no more
// faithful: on the planted anomalies of the paper sets of at most 12 features both lead
// with the moved features on 94.1 % of rows (docs/explain.md).
const CheapExactShapleyFeatures = 5

// DefaultShapleySamples are the permutations, in antithetic pairs, from which the Shapley
// method estimates a row's values beyond ExactShapleyFeatures active features: 8·(k−1)
// scored rows a row of k. On the paper sets of at most 12 features, 8 name exact
// Shapley's top feature on 96.5 % of flagged rows, 16 on 97.9 % (docs/explain.md), at
// twice the cost.
const DefaultShapleySamples = 8

// ShapleyMaxFeatures is the most features of a model whose default explanation
// (udocc.ExplainOptions.Method "") is Shapley values; a wider model's is integrated gradients.
// Sampled Shapley values cost 8·(k−1) scored rows a row of k active features, integrated
// gradients about 50 whatever k (16 points, each a pass forward and back): on a table of
// 512 features 130 times less. On the shifted tables of the paper sets
// (docs/explain.md) Shapley values lead with the moved features more often than
// integrated gradients up to cardio's 21 features, the two are level (within 2.4
// points) from 30 to 36, and integrated gradients do as well from mnist's 100 on.
const ShapleyMaxFeatures = 40

// InteractionShare is the part of a row's rise over the baseline at which the
// interaction of its two leading features is reported (udocc.Attribution).
const InteractionShare = 0.25
