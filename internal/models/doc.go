// Package models describes udocc's networks: the MLP architecture of the paper (Section
// V-A, implementation details) and its per-data-set presets.
//
// The encoder φ is, per hidden layer, a bias-free Linear → BatchNorm1d(eps 1e-4,
// affine=false) → LeakyReLU(0.01), and a bare bias-free Linear to the representation;
// the decoder of the pretraining autoencoder mirrors it. No biases and no affine
// BatchNorm keep Deep SVDD from the trivial solution φ ≡ c (Ruff et al., 2018). The
// tensor work lives in package torch; this package only names the shapes. Start from
// Preset and Sizes.
package models
