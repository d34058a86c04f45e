package synth

import "fmt"

// Options tune the generator. The zero value of every field means its
// default, which DefaultOptions spells out.
type Options struct {
	// MaxComponents is the largest number of mixture components; BIC picks
	// K in 1…MaxComponents (ADBench: 1…9). 0 means 5.
	MaxComponents int
	// MaxFitRows caps the normal rows the mixture is fitted on, a
	// deterministic random subsample, which bounds the fit's time. 0 means
	// 2000.
	MaxFitRows int
	// MaxNormals caps the normal rows kept in every table, a deterministic
	// random subsample drawn once per Generator; the anomaly count follows
	// the kept rows. 0 keeps all normals.
	MaxNormals int
	// MaxIter caps the EM iterations of each fit. 0 means 100
	// (scikit-learn's max_iter).
	MaxIter int
	// Tol stops EM when the mean log-likelihood per row changes less. 0
	// means 1e-3 (scikit-learn's tol).
	Tol float64
	// Reg is the ridge added to every covariance diagonal, in standardised
	// units (each feature has unit variance). 0 means 1e-6 (scikit-learn's
	// reg_covar).
	Reg float64
	// Alpha scales every covariance of the mixture for local anomalies. 0
	// means 5 (ADBench's alpha).
	Alpha float64
	// Beta scales the mixture's means for clustered anomalies. 0 means 5
	// (ADBench's alpha, which it uses for both kinds).
	Beta float64
	// Widen is the fraction of each feature's range added on both sides of
	// the normals' bounding box for global anomalies. 0 means 0.1
	// (ADBench's percentage).
	Widen float64
	// Shift is how far, in standard deviations of the normals, a shifted anomaly's
	// chosen features move. 0 means 5.
	Shift float64
}

// DefaultOptions returns the options the zero value stands for.
func DefaultOptions() Options {
	return Options{
		MaxComponents: 5,
		MaxFitRows:    2000,
		MaxIter:       100,
		Tol:           1e-3,
		Reg:           1e-6,
		Alpha:         5,
		Beta:          5,
		Widen:         0.1,
		Shift:         5,
	}
}

// Validate reports negative fields.
func (o Options) Validate() error {
	switch {
	case o.MaxComponents < 0, o.MaxFitRows < 0, o.MaxNormals < 0, o.MaxIter < 0:
		return fmt.Errorf("synth: negative count in %+v: %w", o, ErrOptions)
	case !(o.Tol >= 0), !(o.Reg >= 0), !(o.Alpha >= 0), !(o.Beta >= 0), !(o.Widen >= 0), !(o.Shift >= 0):
		return fmt.Errorf("synth: negative or NaN value in %+v: %w", o, ErrOptions)
	}
	return nil
}

// withDefaults replaces zero fields by their defaults.
func (o Options) withDefaults() Options {
	def := DefaultOptions()
	if o.MaxComponents == 0 {
		o.MaxComponents = def.MaxComponents
	}
	if o.MaxFitRows == 0 {
		o.MaxFitRows = def.MaxFitRows
	}
	if o.MaxIter == 0 {
		o.MaxIter = def.MaxIter
	}
	if o.Tol == 0 {
		o.Tol = def.Tol
	}
	if o.Reg == 0 {
		o.Reg = def.Reg
	}
	if o.Alpha == 0 {
		o.Alpha = def.Alpha
	}
	if o.Beta == 0 {
		o.Beta = def.Beta
	}
	if o.Widen == 0 {
		o.Widen = def.Widen
	}
	if o.Shift == 0 {
		o.Shift = def.Shift
	}
	return o
}
