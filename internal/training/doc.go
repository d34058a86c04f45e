// Package training fits udocc's Deep SVDD models: autoencoder pretraining, the center c,
// and the fine-tuning loop of the one-class (OC) and soft-boundary (SB) losses, in which a
// per-member dynamics.Selector picks after every epoch the rows the next epoch trains on
// (paper Algorithm 1).
//
// It owns the policy the torch shim does not: minibatch order (each member shuffles with
// its own seed, so a member's numbers do not depend on the group it is trained in), which
// rows each epoch trains on, the soft-boundary warm-up, and the final labels. It is not
// for reading data or computing metrics, and it knows no method by name: a Member
// carries its objective and its selector (package method makes them). Start from Fit
// (one model) or FitGroup (several members trained in lockstep), configured by Config.
// With Config.Dist the fit is one rank of a data-parallel run over blocks of the rows
// (docs/distributed.md).
package training
