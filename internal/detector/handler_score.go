package detector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/udocc/udocc/internal/rowbody"
)

// scoreChunkRows are the most rows a score request parses and scores at a time (and at
// most 1 MiB of float32 values): a large body is never held whole.
const scoreChunkRows = 4096

// score answers POST /v1/score.
func (h *Server) score(w http.ResponseWriter, r *http.Request) {
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		h.refuse(w, r, &httpError{http.StatusTooManyRequests, "too_many_requests",
			fmt.Sprintf("%d score requests are in progress, the most this server takes at once; retry", cap(h.slots)), 0, ""})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout) // the body's deadline is ServeHTTP's
	defer cancel()
	if r.ContentLength > h.opts.MaxBodyBytes {
		h.refuse(w, r, tooLarge(h.opts.MaxBodyBytes))
		return
	}
	s := h.acquire()
	if s == nil {
		h.refuse(w, r, errClosed)
		return
	}
	defer s.refs.Done()
	explain, herr := explainParam(r, s.m.Inputs())
	if herr != nil {
		h.refuse(w, r, herr)
		return
	}
	rd, herr := rowReader(r, s.info, http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if herr != nil {
		h.refuse(w, r, herr)
		return
	}
	res, herr := h.scoreRows(ctx, s, rd, explain, r.ContentLength)
	if herr != nil {
		h.refuse(w, r, herr)
		return
	}
	writeBody(w, http.StatusOK, "application/json", res.json(s))
	h.metrics.rows.Add(float64(len(res.scores)))
	h.metrics.observeScores(s, res)
}

// explainParam is the request's ?explain=N, 0 without one, at most the d inputs.
func explainParam(r *http.Request, d int) (int, *httpError) {
	v := r.URL.Query().Get("explain")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > d {
		return 0, &httpError{http.StatusBadRequest, "bad_parameter", fmt.Sprintf("explain=%.20q: want a count of features from 0 to %d", v, d), 0, ""}
	}
	return n, nil
}

// rowReader reads the request's rows by its Content-Type: JSON (or none) or CSV.
func rowReader(r *http.Request, info ModelInfo, body io.Reader) (rowbody.Reader, *httpError) {
	cols := rowbody.Columns{D: info.Inputs, Names: info.Columns, Ignore: info.Ignored, Encoding: info.Encoding, ID: info.ID, HasID: info.HasID}
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return nil, &httpError{http.StatusUnsupportedMediaType, "unsupported_media_type",
			fmt.Sprintf("Content-Encoding %.40q: send the body uncompressed", ce), 0, ""}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
		return nil, &httpError{http.StatusUnsupportedMediaType, "unsupported_media_type",
			fmt.Sprintf("charset %.40q: send UTF-8", cs), 0, ""}
	}
	switch {
	case ct == "" || mt == "application/json":
		return rowbody.NewJSON(body, cols), nil
	case mt == "text/csv":
		return rowbody.NewCSV(body, cols), nil
	}
	return nil, &httpError{http.StatusUnsupportedMediaType, "unsupported_media_type",
		fmt.Sprintf("Content-Type %.60q: send application/json or text/csv", ct), 0, ""}
}

// scored are a request's results, row by row.
type scored struct {
	scores, conf []float64
	labels       []bool
	ids          []string    // each row's id, where the body carries the model's id column
	top          [][]int     // explain: each row's leading features
	parts        [][]float64 // and their parts of the score
	shares       [][]float64 // and their shares, as scores.csv's share_i
}

// scoreRows reads and scores the rows of rd a chunk at a time.
func (h *Server) scoreRows(ctx context.Context, s *served, rd rowbody.Reader, explain int, length int64) (*scored, *httpError) {
	d := s.m.Inputs()
	chunk := max(1, min(scoreChunkRows, (1<<18)/d))
	if length > 0 { // each value takes two bytes at least ("0,"): a small body, a small buffer
		chunk = int(min(int64(chunk), length/int64(2*d)+1))
	}
	buf := make([]float32, chunk*d)
	res := &scored{}
	for {
		n, err := rd.Next(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if len(res.scores)+n > h.opts.MaxRows {
			return nil, &httpError{http.StatusRequestEntityTooLarge, "too_many_rows",
				fmt.Sprintf("more than %d rows, the most one request may send", h.opts.MaxRows), 0, ""}
		}
		if ids := rd.IDs(); ids != nil {
			for len(res.ids) < len(res.scores) { // earlier rows carried none
				res.ids = append(res.ids, "")
			}
			res.ids = append(res.ids, ids...)
		}
		if herr := s.scoreChunk(ctx, res, buf[:n*d], n, d, explain); herr != nil {
			return nil, herr
		}
	}
	res.labels = s.m.Label(res.scores)
	res.conf = confidence(s.m, res.scores)
	return res, nil
}

// scoreChunk scores the n rows x, appending to res.
func (s *served) scoreChunk(ctx context.Context, res *scored, x []float32, n, d, explain int) *httpError {
	j, err := s.score(ctx, x, n, explain > 0)
	var nv *NoValuesError
	switch {
	case err != nil:
		return &httpError{http.StatusServiceUnavailable, "timeout",
			"the request ran past its timeout waiting for the model; retry, or send fewer rows", 0, ""}
	case j.bad != nil:
		// The value and the training center stay out of the answer and the log.
		what := "a value"
		if j.bad.Column != "" {
			what = fmt.Sprintf("column %.80q", j.bad.Column)
		}
		return &httpError{http.StatusUnprocessableEntity, "unscorable",
			what + " lies too far outside the training range to be scored in float32; remove the row or correct the value",
			len(res.scores) + j.bad.Row, j.bad.Column}
	case errors.As(j.err, &nv):
		return &httpError{http.StatusBadRequest, "bad_value", "every cell of the row is missing: nothing to score", len(res.scores) + nv.Row + 1, ""}
	case j.err != nil && explain > 0:
		return &httpError{http.StatusUnprocessableEntity, "cannot_explain", j.err.Error(), 0, ""}
	case j.err != nil:
		return &httpError{http.StatusInternalServerError, "internal", j.err.Error(), 0, ""}
	}
	res.scores = append(res.scores, j.scores...)
	for _, a := range j.att {
		top := a.Top(explain)
		parts, shares, all := make([]float64, len(top)), make([]float64, len(top)), a.Shares()
		for i, k := range top {
			parts[i], shares[i] = a.Features[k], all[k]
		}
		res.top, res.parts, res.shares = append(res.top, top), append(res.parts, parts), append(res.shares, shares)
	}
	return nil
}

// bodyError is the refusal for a body that could not be read as rows.
func bodyError(err error) *httpError {
	var be *rowbody.Error
	var me *http.MaxBytesError
	switch {
	case errors.As(err, &be):
		code := map[error]string{rowbody.ErrEmpty: "empty_body", rowbody.ErrSyntax: "malformed_body",
			rowbody.ErrColumns: "columns", rowbody.ErrValue: "bad_value"}[be.Kind]
		return &httpError{http.StatusBadRequest, code, err.Error(), be.Row, be.Column}
	case errors.As(err, &me):
		return tooLarge(me.Limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &httpError{http.StatusRequestTimeout, "body_timeout", "the body did not arrive within the request's timeout", 0, ""}
	}
	return &httpError{http.StatusBadRequest, "body_read", err.Error(), 0, ""}
}

func tooLarge(limit int64) *httpError {
	return &httpError{http.StatusRequestEntityTooLarge, "body_too_large",
		fmt.Sprintf("the body is larger than %d bytes, the most one request may send", limit), 0, ""}
}

// json is the response body: the model's version, the flagged count and threshold,
// and per row its score, label and confidence (null where the method has no threshold)
// and, where asked, its leading features and their parts of the score.
func (res *scored) json(s *served) []byte {
	// About 80 bytes a row and 40 an explained feature; append grows it past a guess.
	parts := 0
	for _, t := range res.top {
		parts += len(t)
	}
	b := make([]byte, 0, 256+80*len(res.scores)+40*parts)
	b = append(b, `{"model":"`...)
	b = append(b, s.info.Version...)
	b = append(b, `","rows":`...)
	b = strconv.AppendInt(b, int64(len(res.scores)), 10)
	b = append(b, `,"flagged":`...)
	if res.labels == nil {
		b = append(b, "null"...)
	} else {
		k := 0
		for _, l := range res.labels {
			if l {
				k++
			}
		}
		b = strconv.AppendInt(b, int64(k), 10)
	}
	b = append(b, `,"threshold":`...)
	b = appendNumber(b, s.m.Threshold())
	b = append(b, `,"results":[`...)
	var names [][]byte
	if res.top != nil {
		for j := range s.m.Inputs() {
			name := fmt.Sprintf("x%d", j+1)
			if cols := s.info.Columns; j < len(cols) {
				name = cols[j]
			}
			q, _ := json.Marshal(name)
			names = append(names, q)
		}
	}
	for i, v := range res.scores {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if i < len(res.ids) {
			q, _ := json.Marshal(res.ids[i])
			b = append(b, `"id":`...)
			b = append(b, q...)
			b = append(b, ',')
		}
		b = append(b, `"score":`...)
		b = appendNumber(b, v)
		b = append(b, `,"label":`...)
		switch {
		case res.labels == nil:
			b = append(b, "null"...)
		default:
			b = strconv.AppendBool(b, res.labels[i])
		}
		// probability, as scores.csv names it; confidence, its earlier name, beside it.
		for _, key := range []string{`,"probability":`, `,"confidence":`} {
			b = append(b, key...)
			if res.conf == nil {
				b = append(b, "null"...)
			} else {
				b = appendNumber(b, res.conf[i])
			}
		}
		if res.top != nil {
			b = append(b, `,"top":[`...)
			for k, j := range res.top[i] {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"column":`...)
				b = append(b, names[j]...)
				b = append(b, `,"part":`...)
				b = appendNumber(b, res.parts[i][k])
				b = append(b, `,"share":`...)
				b = appendNumber(b, res.shares[i][k])
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendNumber appends v as a JSON number, exact to the bit (strconv's shortest form),
// or null where JSON has none (±Inf, NaN).
func appendNumber(b []byte, v float64) []byte {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
