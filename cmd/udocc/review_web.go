package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// reviewPage is --web's page: plain HTML and JavaScript, no outside assets.
//
//go:embed review.html
var reviewPage []byte

// webRow is a labels file's line as the page shows it.
type webRow struct {
	Row      int               `json:"row"`
	ID       string            `json:"id,omitempty"`
	Rank     int               `json:"rank"`
	Score    float64           `json:"score"`
	Round    int               `json:"round"`
	Answer   *int              `json:"answer"` // null until answered, else 1 or 0
	Values   []webValue        `json:"values"`
	Features []webFeatureShare `json:"features"`
}

type webValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type webFeatureShare struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

// webEstimate is the count and the cut as the page shows them.
type webEstimate struct {
	Count     float64 `json:"count"`
	N         int     `json:"n"`
	Share     float64 `json:"share"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Cut       int     `json:"cut"`
	Threshold float64 `json:"threshold"`
	Target    string  `json:"target"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Answers   int     `json:"answers"`
	Anomalies int     `json:"anomalies"`
	Text      string  `json:"text"`
	CutText   string  `json:"cut_text"`
}

// webState is GET /api/state's answer, and every POST's.
type webState struct {
	Data     string       `json:"data"`
	Labels   string       `json:"labels"`
	Model    string       `json:"model"`
	N        int          `json:"n"`
	IDName   string       `json:"id_name,omitempty"`
	Rows     []webRow     `json:"rows"`
	Pending  int          `json:"pending"`
	Estimate *webEstimate `json:"estimate"`
	NoCount  string       `json:"no_count,omitempty"`
	Error    string       `json:"error,omitempty"`
}

// reviewServer serves a review on the web: the page and its JSON API. Every request
// holds mu, as the model and the labels file are one user's.
type reviewServer struct {
	mu   sync.Mutex
	s    *reviewSession
	ctx  context.Context
	host string // the Host a request must name: 127.0.0.1:port
	done chan struct{}
	once sync.Once
}

// serveWeb serves the review on 127.0.0.1:port (any free port for 0) until ctx ends
// (Ctrl-C) or the page's Done button; it prints the URL. It asks the first round unless
// rows are waiting for an answer already.
func (s *reviewSession) serveWeb(ctx context.Context, port int, stdout, stderr io.Writer) error {
	if _, _, pending := s.lf.counts(); pending == 0 {
		if _, err := s.ask(ctx); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("--web: %w", err)
	}
	rs := &reviewServer{s: s, ctx: ctx, host: ln.Addr().String(), done: make(chan struct{})}
	srv := &http.Server{Handler: rs.routes(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "udocc review: answer in your browser at http://%s/ (answers are saved in %s as you give them; Ctrl-C or Done to stop)\n", rs.host, s.lf.path)
	select {
	case <-ctx.Done():
	case <-rs.done:
	case err := <-errc:
		return err
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	answers, anomalies, pending := s.lf.counts()
	fmt.Fprintf(stdout, "udocc review: %d answers (%d anomalies) in %s, %d rows waiting\n", answers, anomalies, s.lf.path, pending)
	s.printEstimate(context.Background(), stdout)
	return nil
}

// routes are the page and its API:
//
//	GET  /             the page
//	GET  /api/state    the rows and the estimate (webState)
//	POST /api/answer   {"row": R, "anomaly": true|false}: answer row R (1-based, as in the file)
//	POST /api/next     ask the next round's rows
//	POST /api/done     stop serving
//
// A request must name the server's own Host (127.0.0.1:port), and a POST carry a JSON
// body, so that another site's page in the browser cannot answer for the user.
func (rs *reviewServer) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
		w.Write(reviewPage)
	})
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		rs.reply(w, nil)
	})
	mux.HandleFunc("POST /api/answer", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Row     int   `json:"row"`
			Anomaly *bool `json:"anomaly"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || req.Anomaly == nil {
			http.Error(w, `want {"row": R, "anomaly": true or false}`, http.StatusBadRequest)
			return
		}
		a := 0
		if *req.Anomaly {
			a = 1
		}
		rs.mu.Lock()
		err := rs.s.answer(rs.ctx, req.Row, a)
		rs.mu.Unlock()
		rs.reply(w, err)
	})
	mux.HandleFunc("POST /api/next", func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		_, err := rs.s.ask(rs.ctx)
		rs.mu.Unlock()
		rs.reply(w, err)
	})
	mux.HandleFunc("POST /api/done", func(w http.ResponseWriter, r *http.Request) {
		rs.reply(w, nil)
		rs.once.Do(func() { close(rs.done) })
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != rs.host {
			http.Error(w, "this review answers at "+rs.host+" only", http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			http.Error(w, "want a JSON body (Content-Type: application/json)", http.StatusUnsupportedMediaType)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// reply writes the state, with err's message where the request failed (the state is
// still the file's).
func (rs *reviewServer) reply(w http.ResponseWriter, err error) {
	rs.mu.Lock()
	st := rs.state()
	rs.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		st.Error = err.Error()
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	json.NewEncoder(w).Encode(st)
}

// state is the review as the page shows it.
func (rs *reviewServer) state() webState {
	s := rs.s
	st := webState{Data: s.data, Labels: s.lf.path, Model: s.f.model, N: s.ds.N, Rows: []webRow{}}
	if s.ds.IDs != nil {
		st.IDName = s.idColumn()
	}
	_, _, st.Pending = s.lf.counts()
	for _, l := range s.lf.lines {
		r := webRow{Row: l.row, Rank: l.rank, Score: l.score, Round: l.round, Values: []webValue{}, Features: []webFeatureShare{}}
		if s.ds.IDs != nil {
			r.ID = l.cells[s.idColumn()]
		}
		if l.answered() {
			a := l.answer
			r.Answer = &a
		}
		for j := range s.ds.D {
			name := featureName(s.ds.Features, j)
			r.Values = append(r.Values, webValue{name, l.cells[name]})
		}
		for q := 1; q <= s.explain; q++ {
			name := l.cells[fmt.Sprintf("feature_%d", q)]
			if name == "" {
				continue
			}
			v, _ := strconv.ParseFloat(l.cells[fmt.Sprintf("share_%d", q)], 64)
			r.Features = append(r.Features, webFeatureShare{name, v})
		}
		st.Rows = append(st.Rows, r)
	}
	c, err := s.estimate(rs.ctx)
	if err != nil {
		st.NoCount = err.Error()
		return st
	}
	st.Estimate = &webEstimate{Count: c.Count, N: c.N, Share: c.Share, Low: c.Low, High: c.High, Cut: c.Cut,
		Threshold: c.Threshold, Target: c.Target, Precision: c.Precision, Recall: c.Recall, F1: c.F1,
		Answers: c.Answers, Anomalies: c.Anomalies, Text: countLine(c), CutText: cutLine(c)}
	return st
}
