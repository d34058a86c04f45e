package detector

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// HandlerOptions are the limits and settings of Handler; the zero value serves with the
// defaults. They are the flags of `udocc serve` one to one.
type HandlerOptions struct {
	// MaxBodyBytes bounds a request's body (0: 64 MiB); a larger one is
	// refused with 413, from its Content-Length before it is read where it gives one.
	MaxBodyBytes int64
	// MaxRows bounds the rows of one score request (0: 100,000); more: 413.
	MaxRows int
	// MaxConcurrent bounds the score requests served at once (0: 64);
	// one more is refused at once with 429.
	MaxConcurrent int
	// Timeout bounds a score request (0: 30 s): its body must have arrived by then
	// (408 otherwise, where the server lets a handler set a read deadline, as net/http's
	// does), and its rows must have got their turn on the model (503 otherwise).
	Timeout time.Duration
	// Token, when not empty, is the bearer token that every request but /healthz and
	// /readyz must carry (Authorization: Bearer TOKEN); 401 otherwise.
	Token string
	// Dir is the folder the model was loaded from, "" where there is none: POST
	// /v1/reload loads it again, on Device ("" means "cpu") with
	// Threads (Model.SetThreads), and GET /v1/model gives its model.json's sha256.
	Dir     string
	Device  string
	Threads int
	// Logger hears every reload and every refused request; nil means slog.Default().
	Logger *slog.Logger
	// ModelName is the model's name in the Open Inference Protocol's paths
	// (/v2/models/{name}/infer); "" means "udocc".
	ModelName string
}

// withDefaults is o with every unset field at its default.
func (o HandlerOptions) withDefaults() HandlerOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Device == "" {
		o.Device = "cpu"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ModelName == "" {
		o.ModelName = "udocc"
	}
	return o
}

// Server serves a model over HTTP (Handler); it is the Server the udocc serve
// command drives. Its methods are safe for concurrent use.
type Server struct {
	opts     HandlerOptions
	slots    chan struct{} // one per score request in progress
	metrics  *handlerMetrics
	refusals refusalLog

	mu       sync.RWMutex
	cur      *served // nil once closed
	retiring sync.WaitGroup

	reloadMu sync.Mutex // one reload at a time
}

// served is one model as the handler serves it. Its requests hold a reference (refs),
// so that a model swapped out is closed only after the last of them is done.
type served struct {
	m    *Model
	info ModelInfo
	// jobs feed the model's scorer goroutine (scorer), which batches the requests
	// waiting into one call of the model. stopped is closed when it returns.
	jobs    chan *scoreJob
	stopped chan struct{}
	refs    sync.WaitGroup
}

// Handler serves m over HTTP with opts:
//
//	POST /v1/score   rows as JSON ({"rows": [[…], …]} or rows keyed by column name) or CSV
//	                 (Content-Type: text/csv, header required); per row the score, label
//	                 and confidence, and with ?explain=N its N leading features
//	GET  /v1/model   the model's metadata: columns, method, threshold, count and
//	                 interval, version, the sha256 of its files
//	POST /v1/reload  load opts.Dir again and swap it in; a model that does not load is
//	                 refused, and the one served before keeps serving
//	GET  /healthz    200 while the process serves
//	GET  /readyz     200 while a model is served
//	GET  /metrics    Prometheus metrics: requests by route and code, rows scored
//	                 and flagged, where scores fall among the training scores,
//	                 latency, the model's version, reloads
//	/v2/…            the Open Inference Protocol (handler_v2.go): health, model
//	                 metadata, infer
//
// Every refusal is a JSON {"error": {…}} with a 4xx status (docs/serve.md lists them).
// Paths are absolute: mount the handler at "/" or under http.StripPrefix. The handler
// takes m over: it closes m when a reload swaps another model in and the requests on m
// are done. It is also an io.Closer: Close stops serving (later requests get 503) and
// returns once the requests in progress are done and m is closed. It is safe for
// concurrent use. docs/serve.md shows it mounted on a service's own mux.
func Handler(m *Model, opts HandlerOptions) http.Handler {
	return newHandler(m, opts)
}

// newHandler is Handler's handler.
func newHandler(m *Model, opts HandlerOptions) *Server {
	opts = opts.withDefaults()
	h := &Server{opts: opts, slots: make(chan struct{}, opts.MaxConcurrent), metrics: newHandlerMetrics()}
	s := newServed(m, modelInfo(m, "", nil))
	h.cur = s
	h.metrics.setModel(nil, s.info)
	return h
}

func newServed(m *Model, info ModelInfo) *served {
	s := &served{m: m, info: info, jobs: make(chan *scoreJob, 256), stopped: make(chan struct{})}
	go s.scorer()
	return s
}

// retire closes s once its requests are done.
func (s *served) retire() {
	s.refs.Wait()
	close(s.jobs) // no request holds s: none sends
	<-s.stopped
	s.m.Close()
}

// acquire returns the model now served, with a reference the caller releases
// (s.refs.Done); nil once the handler is closed.
func (h *Server) acquire() *served {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.cur != nil {
		h.cur.refs.Add(1)
	}
	return h.cur
}

// Swap serves m from now on: requests that have begun finish on the model they began
// with, which is closed once they are done. The handler takes m over. After Close, Swap
// closes m.
func (h *Server) Swap(m *Model) {
	h.swap(newServed(m, modelInfo(m, "", nil)))
}

func (h *Server) swap(s *served) {
	h.mu.Lock()
	old := h.cur
	if old == nil { // closed
		h.mu.Unlock()
		s.retire()
		return
	}
	h.cur = s
	h.retiring.Add(1)
	h.mu.Unlock()
	h.metrics.setModel(&old.info, s.info)
	go func() {
		defer h.retiring.Done()
		old.retire()
	}()
}

// Reload loads the model in HandlerOptions.Dir again and swaps it in (Swap), returning
// its metadata. A model that does not load, or a folder that changes while it is read,
// is refused with an error and a log line, and the model served before keeps serving.
func (h *Server) Reload() (ModelInfo, error) {
	if h.opts.Dir == "" {
		return ModelInfo{}, ErrNoModelDir
	}
	h.reloadMu.Lock()
	defer h.reloadMu.Unlock()
	log := h.opts.Logger
	m, info, err := loadServed(h.opts.Dir, h.opts.Device, h.opts.Threads)
	if err != nil {
		h.metrics.reloads.WithLabelValues("refused").Inc()
		log.Error("reload refused; the model served before keeps serving", "dir", h.opts.Dir, "err", err)
		return ModelInfo{}, err
	}
	old := h.Info()
	h.swap(newServed(m, info))
	h.metrics.reloads.WithLabelValues("ok").Inc()
	log.Info("model reloaded", "dir", h.opts.Dir, "version", info.Version, "previous", old.Version)
	return info, nil
}

// Info is the metadata of the model served now.
func (h *Server) Info() ModelInfo {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.cur == nil {
		return ModelInfo{}
	}
	return h.cur.info
}

// Close stops serving: later requests are refused with 503, and Close returns once the
// requests in progress are done and every model the handler held is closed. A later
// call does nothing; the error is nil (an io.Closer).
func (h *Server) Close() error {
	h.mu.Lock()
	old := h.cur
	h.cur = nil
	h.mu.Unlock()
	if old != nil {
		old.retire()
	}
	h.retiring.Wait()
	return nil
}

// ServeHTTP routes a request (Handler lists the routes).
func (h *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	route, serve := h.route(r)
	rec := &statusWriter{ResponseWriter: w}
	// Every request's body must arrive within the timeout, a refused one's too: net/http
	// reads what a handler left of a body before it answers. A server that cannot set
	// deadlines (ErrNotSupported) keeps its own timeouts.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(start.Add(h.opts.Timeout))
	rc.SetWriteDeadline(start.Add(2 * h.opts.Timeout))
	h.metrics.inFlight.Inc()
	defer func() {
		h.metrics.inFlight.Dec()
		code := rec.code
		if code == 0 {
			code = http.StatusOK
		}
		h.metrics.observe(route, code, time.Since(start))
	}()
	if h.opts.Token != "" && route != "healthz" && route != "readyz" && route != "v2_live" && route != "v2_ready" && !h.authorized(r) {
		rec.Header().Set("WWW-Authenticate", `Bearer realm="udocc"`)
		e := &httpError{http.StatusUnauthorized, "unauthorized", "a bearer token is required (Authorization: Bearer TOKEN)", 0, ""}
		if strings.HasPrefix(route, "v2") {
			h.refuseV2(rec, r, e)
		} else {
			h.refuse(rec, r, e)
		}
		return
	}
	serve(rec, r)
}

// route names a request's route for the metrics and picks its handler.
func (h *Server) route(r *http.Request) (string, http.HandlerFunc) {
	only := func(method string, f http.HandlerFunc) http.HandlerFunc { return h.only(method, f, h.refuse) }
	if r.URL.Path == "/v2" || strings.HasPrefix(r.URL.Path, "/v2/") {
		return h.routeV2(r)
	}
	switch r.URL.Path {
	case "/v1/score":
		return "score", only(http.MethodPost, h.score)
	case "/v1/model":
		return "model", only(http.MethodGet, h.model)
	case "/v1/reload":
		return "reload", only(http.MethodPost, h.reload)
	case "/healthz":
		return "healthz", only(http.MethodGet, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		})
	case "/readyz":
		return "readyz", only(http.MethodGet, h.ready)
	case "/metrics":
		return "metrics", only(http.MethodGet, h.metrics.serve)
	}
	return "other", func(w http.ResponseWriter, r *http.Request) {
		h.refuse(w, r, &httpError{http.StatusNotFound, "not_found", fmt.Sprintf("no route %s (routes: /v1/score, /v1/model, /v1/reload, /healthz, /readyz, /metrics, /v2/…)", r.URL.Path), 0, ""})
	}
}

// only serves r with f where r's method is method (GET also takes HEAD), and refuses it
// otherwise with 405 and an Allow header, through refuse (/v1's body or /v2's).
func (h *Server) only(method string, f http.HandlerFunc, refuse func(http.ResponseWriter, *http.Request, *httpError)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			refuse(w, r, &httpError{http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, method), 0, ""})
			return
		}
		f(w, r)
	}
}

// authorized reports whether r carries the bearer token.
func (h *Server) authorized(r *http.Request) bool {
	// The scheme is matched without regard to case (RFC 7235, section 2.1).
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(h.opts.Token)) == 1
}

func (h *Server) ready(w http.ResponseWriter, r *http.Request) {
	s := h.acquire()
	if s == nil {
		h.refuse(w, r, errClosed)
		return
	}
	defer s.refs.Done()
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "version": s.info.Version})
}

func (h *Server) model(w http.ResponseWriter, r *http.Request) {
	s := h.acquire()
	if s == nil {
		h.refuse(w, r, errClosed)
		return
	}
	defer s.refs.Done()
	writeJSON(w, http.StatusOK, s.info)
}

func (h *Server) reload(w http.ResponseWriter, r *http.Request) {
	info, err := h.Reload()
	switch {
	case errors.Is(err, ErrNoModelDir):
		h.refuse(w, r, &httpError{http.StatusConflict, "no_model_folder", err.Error(), 0, ""})
	case err != nil:
		// The reason names the server's files: Reload logs it, the client is not told.
		h.refuse(w, r, &httpError{http.StatusUnprocessableEntity, "reload_refused", "the new model was refused and the model served before keeps serving; the server's log says why", 0, ""})
	default:
		writeJSON(w, http.StatusOK, info)
	}
}

// httpError is a refusal: its status and the JSON body {"error": {…}}.
type httpError struct {
	status  int
	code    string
	message string
	row     int    // 1-based row of the request; 0 for none
	column  string // the column, "" for none
}

var errClosed = &httpError{http.StatusServiceUnavailable, "closed", "the handler is closed", 0, ""}

func (e *httpError) Error() string { return e.message }

// refuse writes e and logs it.
func (h *Server) refuse(w http.ResponseWriter, r *http.Request, e *httpError) {
	body := struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Row     int    `json:"row,omitempty"`
			Column  string `json:"column,omitempty"`
		} `json:"error"`
	}{}
	body.Error.Code, body.Error.Message, body.Error.Row, body.Error.Column = e.code, e.message, e.row, e.column
	if e.status == http.StatusTooManyRequests || e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.status, body)
	h.logRefusal(r, e)
}

// logRefusal logs refusal e of r, at most refusalLines a second.
func (h *Server) logRefusal(r *http.Request, e *httpError) {
	unlogged, ok := h.refusals.take(time.Now())
	if !ok {
		return
	}
	// The code, row and column only: a message may quote the request's cells.
	// The server's own failures and reload refusals are the operator's to read.
	args := []any{"method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr, "status", e.status, "code", e.code}
	if e.row > 0 {
		args = append(args, "row", e.row)
	}
	if e.column != "" {
		args = append(args, "column", fmt.Sprintf("%.80s", e.column))
	}
	if e.status >= 500 || e.code == "no_model_folder" {
		args = append(args, "err", e.message)
	}
	if unlogged > 0 {
		args = append(args, "unlogged_before", unlogged)
	}
	h.opts.Logger.Info("request refused", args...)
}

// refusalLog bounds the log lines of refused requests to refusalLines a second, so
// that a flood of them (bad tokens, say) does not flood the log: the refusals left
// out are counted in the next line written (and every refusal in the metrics).
type refusalLog struct {
	mu       sync.Mutex
	second   time.Time // the start of the current second
	lines    int       // lines written in it
	unlogged int       // refusals left out since the last line
}

const refusalLines = 10

// take reports whether a refusal at now is logged, and how many were left out before it.
func (l *refusalLog) take(now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.second) >= time.Second {
		l.second, l.lines = now, 0
	}
	if l.lines >= refusalLines {
		l.unlogged++
		return 0, false
	}
	l.lines++
	n := l.unlogged
	l.unlogged = 0
	return n, true
}

// writeJSON writes v as the JSON body of a response with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"encoding the response"}}`)
	}
	writeBody(w, status, "application/json", append(b, '\n'))
}

func writeBody(w http.ResponseWriter, status int, contentType string, b []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer beneath, for its deadlines.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
