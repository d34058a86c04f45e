// Package serve puts a saved model behind HTTP: the routes of docs/serve.md (/v1 and the
// Open Inference Protocol's /v2), its metrics, and reloads of the model folder.
//
// The lifecycle is http.Server's:
//
//	s, err := serve.Open(serve.Options{Dir: "fit/model"})
//	if err != nil { … }
//	go http.ListenAndServe("127.0.0.1:8080", s) // s is an http.Handler
//	…
//	err = s.Reload() // after the folder was refitted: the new model serves
//	…
//	s.Close()        // requests in progress finish; the model is freed
//
// `udocc serve` is this package with flags, signals and TLS around it.
package serve

import (
	"net/http"

	"github.com/udocc/udocc/internal/detector"
)

// Options are a Server's limits and settings; the zero value serves with the defaults.
// Dir, the model folder, is required.
type Options = detector.HandlerOptions

// Info describes the model served: its version, columns, method, threshold and files.
type Info = detector.ModelInfo

// ErrNoModelDir reports Options without a model folder.
var ErrNoModelDir = detector.ErrNoModelDir

// The defaults of Options' limits.
const (
	DefaultMaxBodyBytes  = detector.DefaultMaxBodyBytes
	DefaultMaxRows       = detector.DefaultMaxRows
	DefaultMaxConcurrent = detector.DefaultMaxConcurrent
	DefaultTimeout       = detector.DefaultTimeout
)

// Server serves the model in a folder over HTTP. Open loads it; ServeHTTP answers
// requests; Reload loads the folder again and swaps the new model in; Close stops
// serving. Its methods are safe for concurrent use.
type Server struct{ h *detector.Server }

// Open loads the model in o.Dir (on o.Device, with o.Threads) and serves it.
func Open(o Options) (*Server, error) {
	h, err := detector.LoadHandler(o)
	if err != nil {
		return nil, err
	}
	return &Server{h}, nil
}

// ServeHTTP answers one request (docs/serve.md lists the routes). Paths are absolute:
// mount the Server at "/" or under http.StripPrefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }

// Reload loads the folder again and swaps the new model in. Requests that have begun
// finish on the model they began with, which is closed once they are done. A model that
// does not load is refused with an error and a log line; the one before keeps serving.
// POST /v1/reload does the same.
func (s *Server) Reload() (Info, error) { return s.h.Reload() }

// Info describes the model served now.
func (s *Server) Info() Info { return s.h.Info() }

// Close stops serving: later requests get 503. It returns once the requests in progress
// are done and every model the Server held is closed. A later call does nothing.
func (s *Server) Close() error { return s.h.Close() }
