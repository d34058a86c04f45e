// Package countlearn learns the count model that package count applies: ridge
// regression, a rule count or a gated count over a fit's features, every source group
// weighing alike, with intervals from leave-one-group-out residuals. It is the bench's:
// the product ships only the learned model.json.
package countlearn
