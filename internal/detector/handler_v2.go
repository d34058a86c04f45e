package detector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The Open Inference Protocol (KServe's V2 protocol, which KServe, Seldon and Triton
// clients speak) beside /v1:
//
//	GET  /v2                                server metadata
//	GET  /v2/health/live, /v2/health/ready  liveness and readiness
//	GET  /v2/models/{name}                  model metadata: its input and outputs
//	GET  /v2/models/{name}/ready            model readiness
//	POST /v2/models/{name}/infer            score rows
//
// A path may name a version (/v2/models/{name}/versions/{v}/…): v must be the version
// served. An infer request sends either one tensor of shape [n, d] holding the rows,
// or one tensor per column, named by the column, of shape [n] or [n, 1]. The answer
// holds the outputs "score", "label" (BOOL) and "probability"; a request may ask for
// some of them by name. A refusal is {"error": "…"}, as the protocol has it.
// https://kserve.github.io/website/latest/modelserving/data_plane/v2_protocol/

// v2Outputs are the outputs an infer answer may hold.
var v2Outputs = []string{"score", "label", "probability"}

// maxV2Tensors bounds the tensors of one infer request, and of its outputs list.
const maxV2Tensors = 1 << 16

// routeV2 names a /v2 request's route for the metrics and picks its handler.
func (h *Server) routeV2(r *http.Request) (string, http.HandlerFunc) {
	get := func(f http.HandlerFunc) http.HandlerFunc { return h.v2Method(http.MethodGet, f) }
	switch r.URL.Path {
	case "/v2":
		return "v2_server", get(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"name": "udocc", "version": Version, "extensions": []string{}})
		})
	case "/v2/health/live":
		return "v2_live", get(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]bool{"live": true})
		})
	case "/v2/health/ready":
		return "v2_ready", get(func(w http.ResponseWriter, r *http.Request) {
			s := h.acquire()
			if s == nil {
				writeJSON(w, http.StatusServiceUnavailable, map[string]bool{"ready": false})
				return
			}
			s.refs.Done()
			writeJSON(w, http.StatusOK, map[string]bool{"ready": true})
		})
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v2/models/")
	if !ok {
		return "other", h.v2NotFound
	}
	parts := strings.Split(rest, "/")
	name, version := parts[0], ""
	if len(parts) >= 3 && parts[1] == "versions" {
		version, parts = parts[2], append(parts[:1], parts[3:]...)
	}
	var route, method string
	var f func(http.ResponseWriter, *http.Request, *served)
	switch {
	case len(parts) == 1:
		route, method, f = "v2_model", http.MethodGet, h.v2Metadata
	case len(parts) == 2 && parts[1] == "ready":
		route, method, f = "v2_model_ready", http.MethodGet, h.v2ModelReady
	case len(parts) == 2 && parts[1] == "infer":
		route, method, f = "v2_infer", http.MethodPost, h.v2Infer
	default:
		return "other", h.v2NotFound
	}
	return route, h.v2Method(method, func(w http.ResponseWriter, r *http.Request) {
		s := h.acquire()
		if s == nil {
			h.refuseV2(w, r, errClosed)
			return
		}
		defer s.refs.Done()
		if name != h.opts.ModelName || version != "" && version != s.info.Version {
			h.refuseV2(w, r, &httpError{http.StatusNotFound, "no_model",
				fmt.Sprintf("no model %.80q (version %.80q); this server serves %q, version %s", name, version, h.opts.ModelName, s.info.Version), 0, ""})
			return
		}
		f(w, r, s)
	})
}

func (h *Server) v2Method(method string, f http.HandlerFunc) http.HandlerFunc {
	return h.only(method, f, h.refuseV2)
}

func (h *Server) v2NotFound(w http.ResponseWriter, r *http.Request) {
	h.refuseV2(w, r, &httpError{http.StatusNotFound, "not_found", fmt.Sprintf("no route %.200s", r.URL.Path), 0, ""})
}

// v2Tensor is a tensor's metadata.
type v2Tensor struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

func (h *Server) v2Metadata(w http.ResponseWriter, r *http.Request, s *served) {
	d := int64(s.info.Inputs)
	out := []v2Tensor{{"score", "FP64", []int64{-1}}}
	if s.info.Threshold != nil {
		out = append(out, v2Tensor{"label", "BOOL", []int64{-1}}, v2Tensor{"probability", "FP64", []int64{-1}})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name": h.opts.ModelName, "versions": []string{s.info.Version}, "platform": "udocc",
		"inputs":  []v2Tensor{{"input", "FP64", []int64{-1, d}}},
		"outputs": out,
		// Not in the protocol: the columns, in the order of the input's second axis,
		// which also name the per-column tensors an infer request may send.
		"columns": s.info.Columns,
	})
}

func (h *Server) v2ModelReady(w http.ResponseWriter, r *http.Request, s *served) {
	writeJSON(w, http.StatusOK, map[string]any{"name": h.opts.ModelName, "ready": true})
}

// v2Request is an infer request: its rows (n of d values, float32 as the model reads
// them), id, and the outputs asked for (all where none is named).
type v2Request struct {
	id      string
	x       []float32
	n       int
	outputs []string
}

func (h *Server) v2Infer(w http.ResponseWriter, r *http.Request, s *served) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		h.refuseV2(w, r, tooLarge(h.opts.MaxBodyBytes))
		return
	}
	body := http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes)
	req, herr := readV2Request(body, s.info.Columns, s.info.Inputs, h.opts.MaxRows, s.info.Ignored)
	if herr != nil {
		h.refuseV2(w, r, herr)
		return
	}
	if len(req.outputs) > 0 && s.info.Threshold == nil && !slices.Equal(req.outputs, []string{"score"}) {
		h.refuseV2(w, r, &httpError{http.StatusBadRequest, "no_threshold", "this model has no threshold: it answers only the output \"score\"", 0, ""})
		return
	}
	d := s.info.Inputs
	res := &scored{}
	chunk := max(1, min(scoreChunkRows, (1<<18)/d))
	for a := 0; a < req.n; a += chunk {
		b := min(req.n, a+chunk)
		if herr := s.scoreChunk(r.Context(), res, req.x[a*d:b*d], b-a, d, 0); herr != nil {
			h.refuseV2(w, r, herr)
			return
		}
	}
	res.labels = s.m.Label(res.scores)
	res.conf = confidence(s.m, res.scores)
	h.metrics.rows.Add(float64(req.n))
	h.metrics.observeScores(s, res)
	writeBody(w, http.StatusOK, "application/json", res.v2JSON(h.opts.ModelName, s.info.Version, req))
}

// v2JSON is the infer answer: each output asked for, a tensor of shape [n].
func (res *scored) v2JSON(name, version string, req *v2Request) []byte {
	outs := req.outputs
	if len(outs) == 0 {
		outs = v2Outputs[:1]
		if res.conf != nil {
			outs = v2Outputs
		}
	}
	n := len(res.scores)
	b := make([]byte, 0, 128+n*(24+6+24)) // a guess; append grows it
	b = append(b, `{"model_name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"model_version":`...)
	b = strconv.AppendQuote(b, version)
	if req.id != "" {
		b = append(b, `,"id":`...)
		b = strconv.AppendQuote(b, req.id)
	}
	b = append(b, `,"outputs":[`...)
	for k, o := range outs {
		if k > 0 {
			b = append(b, ',')
		}
		dt := "FP64"
		if o == "label" {
			dt = "BOOL"
		}
		b = fmt.Appendf(b, `{"name":%q,"datatype":%q,"shape":[%d],"data":[`, o, dt, n)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			switch o {
			case "score":
				b = appendNumber(b, res.scores[i])
			case "label":
				b = strconv.AppendBool(b, res.labels[i])
			case "probability":
				b = appendNumber(b, res.conf[i])
			}
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}\n"...)
}

// readV2Request reads an infer request's body with columns (the model's, "" where
// unnamed), d inputs and at most maxRows rows. It walks the JSON token by token, so
// that the rows cost four bytes a value and nothing of the body is held twice.
// Tensors named after an ignored column (the label, the id, the columns the fit
// dropped) are skipped.
func readV2Request(body io.Reader, columns []string, d, maxRows int, ignored []string) (*v2Request, *httpError) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	bad := func(format string, a ...any) *httpError {
		return &httpError{http.StatusBadRequest, "malformed_body", fmt.Sprintf(format, a...), 0, ""}
	}
	req := &v2Request{}
	type tensor struct {
		name  string
		shape []int64
		data  []float32
	}
	var tensors []tensor
	limit := int64(maxRows) * int64(d)
	var values int64
	err := walkObject(dec, func(key string) error {
		switch key {
		case "id":
			return dec.Decode(&req.id)
		case "inputs":
			return walkArray(dec, func(int) error {
				if len(tensors) == maxV2Tensors {
					return fmt.Errorf("more than %d inputs", maxV2Tensors)
				}
				var t tensor
				err := walkObject(dec, func(key string) error {
					switch key {
					case "name":
						return dec.Decode(&t.name)
					case "shape":
						return dec.Decode(&t.shape)
					case "datatype":
						var dt string
						if err := dec.Decode(&dt); err != nil {
							return err
						}
						if dt == "BYTES" {
							return fmt.Errorf("input %.80q: datatype BYTES: the model reads numbers", t.name)
						}
						return nil
					case "data":
						// Where the shape came first, as it mostly does, room for its values (up
						// to a million: a shape is only a claim; append grows past it).
						if size := shapeSize(t.shape); size > 0 && size <= limit-values {
							t.data = make([]float32, 0, min(size, 1<<20))
						}
						return readNumbers(dec, func(v float64) error {
							if values++; values > limit {
								return &httpError{http.StatusRequestEntityTooLarge, "too_many_rows",
									fmt.Sprintf("more than %d rows of %d values, the most one request may send", maxRows, d), 0, ""}
							}
							if math.Abs(v) > math.MaxFloat32 {
								return &httpError{http.StatusBadRequest, "bad_value",
									fmt.Sprintf("input %.80q: value %d lies outside the float32 range", t.name, len(t.data)+1), 0, ""}
							}
							t.data = append(t.data, float32(v))
							return nil
						})
					}
					return skipValue(dec)
				})
				tensors = append(tensors, t)
				return err
			})
		case "outputs":
			return walkArray(dec, func(i int) error {
				if i == len(v2Outputs) {
					return fmt.Errorf("more than %d outputs", len(v2Outputs))
				}
				var o struct{ Name string }
				if err := dec.Decode(&o); err != nil {
					return err
				}
				if !slices.Contains(v2Outputs, o.Name) {
					return fmt.Errorf("output %.80q: the outputs are %v", o.Name, v2Outputs)
				}
				req.outputs = append(req.outputs, o.Name)
				return nil
			})
		}
		return skipValue(dec)
	})
	if err != nil {
		var herr *httpError
		var me *http.MaxBytesError
		switch {
		case errors.As(err, &herr):
			return nil, herr
		case errors.As(err, &me):
			return nil, tooLarge(me.Limit)
		}
		return nil, bad("%.300v", err)
	}
	switch {
	case len(tensors) == 0:
		return nil, bad("no inputs")
	case len(tensors) == 1 && len(tensors[0].shape) == 2 && tensors[0].shape[1] == int64(d) && !slices.Contains(columns, tensors[0].name):
		t := tensors[0]
		if t.shape[0] < 0 || t.shape[0]*int64(d) != int64(len(t.data)) {
			return nil, bad("input %.80q: shape %v holds %d values, data %d", t.name, t.shape, max(0, t.shape[0])*int64(d), len(t.data))
		}
		req.x, req.n = t.data, int(t.shape[0])
		return req, nil
	case len(tensors) == 1 && !slices.Contains(columns, tensors[0].name):
		return nil, bad("input %.80q: shape %v; want [n, %d] (the model's %d inputs), or one input per column named by it", tensors[0].name, tensors[0].shape, d, d)
	}
	// One tensor per column.
	if len(columns) != d {
		return nil, bad("the model's columns have no names: send one input of shape [n, %d]", d)
	}
	n := -1
	byColumn := make([][]float32, d)
	for _, t := range tensors {
		j := slices.Index(columns, t.name)
		switch {
		case j < 0 && slices.Contains(ignored, t.name):
			continue
		case j < 0:
			return nil, &httpError{http.StatusBadRequest, "columns", fmt.Sprintf("input %.80q is no column of the model", t.name), 0, t.name}
		case byColumn[j] != nil:
			return nil, &httpError{http.StatusBadRequest, "columns", fmt.Sprintf("input %.80q sent twice", t.name), 0, t.name}
		case !(len(t.shape) == 1 || len(t.shape) == 2 && t.shape[1] == 1) || t.shape[0] != int64(len(t.data)):
			return nil, &httpError{http.StatusBadRequest, "columns", fmt.Sprintf("input %.80q: shape %v with %d values; want [n] or [n, 1]", t.name, t.shape, len(t.data)), 0, t.name}
		case n >= 0 && len(t.data) != n:
			return nil, &httpError{http.StatusBadRequest, "columns", fmt.Sprintf("input %.80q: %d rows, the inputs before it %d", t.name, len(t.data), n), 0, t.name}
		}
		n, byColumn[j] = len(t.data), t.data
	}
	for j, c := range byColumn {
		if c == nil {
			return nil, &httpError{http.StatusBadRequest, "columns", fmt.Sprintf("no input for column %.80q", columns[j]), 0, columns[j]}
		}
	}
	req.n, req.x = n, make([]float32, n*d)
	for j, c := range byColumn {
		for i, v := range c {
			req.x[i*d+j] = v
		}
	}
	return req, nil
}

// shapeSize is the number of values a shape holds; 0 for none, or a negative axis.
func shapeSize(shape []int64) int64 {
	if len(shape) == 0 {
		return 0
	}
	n := int64(1)
	for _, k := range shape {
		if k < 0 || k > 1<<40 {
			return 0
		}
		n *= k
		if n > 1<<40 {
			return 0
		}
	}
	return n
}

// walkObject reads a JSON object, calling f with each key; f reads its value.
func walkObject(dec *json.Decoder, f func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if err := f(tok.(string)); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// walkArray reads a JSON array, calling f for each element's index; f reads it.
func walkArray(dec *json.Decoder, f func(i int) error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if err := f(i); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ']'
	return err
}

// readNumbers reads a number, or arrays of numbers nested to any depth (the protocol's
// data, flat or row-major nested), calling f with each; true and false read as 1 and 0.
func readNumbers(dec *json.Decoder, f func(float64) error) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' {
				depth++
			} else if t == ']' {
				depth--
			} else {
				return fmt.Errorf("data: an object where numbers belong")
			}
		case json.Number:
			v, err := strconv.ParseFloat(string(t), 64)
			if err != nil {
				return fmt.Errorf("data: %.40q is no number", t)
			}
			if err := f(v); err != nil {
				return err
			}
		case bool:
			v := 0.0
			if t {
				v = 1
			}
			if err := f(v); err != nil {
				return err
			}
		case nil: // a missing value, imputed with the training median as /v1 and udocc score do
			if err := f(math.NaN()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("data: %.40v where numbers belong", tok)
		}
		if depth == 0 {
			return nil
		}
	}
}

// skipValue reads past one JSON value token by token, holding none of it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '[' || d == '{' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("%.40v where %q belongs", tok, want)
	}
	return nil
}

// refuseV2 writes e as the protocol's {"error": "…"} and logs it as refuse does.
func (h *Server) refuseV2(w http.ResponseWriter, r *http.Request, e *httpError) {
	if e.status == http.StatusTooManyRequests || e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, e.status, map[string]string{"error": e.message})
	h.logRefusal(r, e)
}
