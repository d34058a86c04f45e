// Package synth makes semi-synthetic anomaly-detection tables in the manner
// of ADBench (Han et al., "ADBench: Anomaly Detection Benchmark", NeurIPS
// 2022, Section 3.3, "realistic synthetic data"; their generator is
// adbench/datasets/data_generator.py): it keeps the normal rows of a real
// data set and injects anomalies of one of four kinds at a chosen ratio,
// anomalies/(normals+anomalies), with AnomalyCount =
// round(ratio·normals/(1−ratio)), at least 1. The rows are shuffled; the
// same seed gives the same table.
//
// The four kinds, with α = Alpha = 5, β = Beta = 5 and w = Widen = 0.1 by
// default:
//
//   - Local: a Gaussian mixture with full covariances is fitted to the
//     normals (K in 1…5 chosen by BIC; EM from a seeded k-means++ and
//     k-means start, at most 100 iterations, tolerance 1e-3 on the mean
//     log-likelihood, a 1e-6 ridge on every covariance, as scikit-learn's
//     GaussianMixture) and anomalies are drawn from it with every
//     covariance multiplied by α.
//   - Global: every feature uniform over [min − w·range, max + w·range] of
//     the normals. ADBench draws each feature uniform over [1.1·min,
//     1.1·max] of its synthetic normals, a box that depends on where the
//     origin lies (for positive values it is shifted, not widened); here
//     the box is widened by w·range on each side.
//   - Dependency: every feature drawn independently from a univariate
//     Gaussian KDE of that feature's normal values (a normal value picked
//     at random plus Gaussian noise of Scott's bandwidth σ̂·n^(−1/5)), so
//     the marginals match the normals' and the dependence between features
//     is gone. ADBench draws its anomalies the same way (copulas'
//     GaussianKDE per feature).
//   - Clustered: anomalies are drawn from the fitted mixture with every
//     component mean μ_k moved to lo + β·(μ_k − lo), where lo is the
//     normals' per-feature minimum. This is ADBench's μ_k·β taken after
//     min–max scaling the normals (so that the origin of the scaling is
//     fixed by the data, not by the units of the file). Centring on the
//     mean instead, m + β·(μ_k − m), would not move the anomalies at all
//     when BIC picks one component, as it can for small or
//     high-dimensional sets.
//
// A fifth kind, Shifted, is not ADBench's: a normal row with one to three of its
// non-constant features moved by ±Shift = 5 standard deviations, the moved features
// known (Generator.TableCauses), to check which features an explanation names.
//
// The mixture is fitted in standardised units (each feature's mean and
// population standard deviation of the normals), on at most MaxFitRows =
// 2000 normals drawn at random, and its samples are mapped back; a constant
// feature stays constant in every kind, so it never gives anomalies away.
// Unlike ADBench, which replaces the normals by samples of its fitted model
// (a mixture, or a vine copula for dependency anomalies), the normals are
// kept as they are, so a detector meets the real normal data; Options
// MaxNormals caps them to a random subsample to keep a benchmark fast.
//
// A caller starts from NewGenerator (or NewFromDataset for a data.Dataset),
// which measures the normals once and fits the mixture on first need, and
// calls Table (or Dataset) for every kind in Kinds and ratio in Ratios;
// Generate makes one table. The package is pure Go (gonum for the linear
// algebra); it does no detection and no scoring.
package synth
