// Package detector is what the door, package udocc, wraps: the model's lifecycle (fit,
// score, explain, cut, review, save, load, close), the column contract, and the HTTP
// handler. The udocc command, the server and the bench use it directly: beside the
// door's API it exports what they read of a model (Model) and FitTraced, which the
// bench's studies measure. A Go user of the library starts from package udocc.
package detector
