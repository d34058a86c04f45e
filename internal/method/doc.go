// Package method holds udocc's methods, one file each: the default ensemble
// (ensemble.go) and the paper's methods, proposed and its baselines oc, sb, otsu and tar
// (paper.go), behind one small interface, and the table of their names and what each
// takes (table.go: MethodNamed, a member's objective and selector). Fit trains a method's networks with package
// training on a Table, scores every row with them and fits what the method's score and
// threshold need (every scale a score uses is fitted here, at training time, and
// saved); it returns the Fitted state and a Trace of the fit. A Fitted scores rows, each
// row from its own networks' outputs alone, gives its threshold and writes itself into a
// saved model's description (Marshal); Load reads it back.
//
// It is not the library's API: package detector translates a fit's method and Options
// into a Config once,
// keeps the lifecycle (fit, save, load, close) and the column contract (imputation,
// matching columns by name), and hands the rows down here. The bench and the studies
// read a fit's Trace (the screening's scores, the members' distances) through
// detector.FitTraced.
//
// The types a caller starts from are Config, Table, Fitted and Trace.
package method
