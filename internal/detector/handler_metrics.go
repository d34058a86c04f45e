package detector

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// handlerMetrics are a Server's Prometheus metrics, in a registry of its own (so
// that several handlers, or a host's own metrics, never collide), with the Go runtime's
// and the process's collectors beside them.
type handlerMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // by route and status code
	latency  *prometheus.HistogramVec // by route
	rows     prometheus.Counter
	flagged  prometheus.Counter
	position prometheus.Histogram // each scored row's place among the training scores
	inFlight prometheus.Gauge
	model    *prometheus.GaugeVec // 1 for the version served
	reloads  *prometheus.CounterVec
	handler  http.Handler
}

func newHandlerMetrics() *handlerMetrics {
	m := &handlerMetrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "udocc_http_requests_total", Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "udocc_http_request_duration_seconds", Help: "Time from a request's arrival to its answer, by route.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		rows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "udocc_rows_scored_total", Help: "Rows scored and answered.",
		}),
		flagged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "udocc_rows_flagged_total", Help: "Rows scored and answered that the threshold flags.",
		}),
		position: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "udocc_score_training_quantile",
			Help: "Each scored row's score as a quantile of the training rows' scores (0.5 at or below their median). " +
				"Rows like the training rows put a share 1-b of the rows above bucket b; more above the top buckets is drift.",
			Buckets: trainingQuantiles,
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "udocc_http_requests_in_flight", Help: "Requests being served.",
		}),
		model: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "udocc_model_info", Help: "1 for the model served: its version (ModelInfo.Version), method and udocc.",
		}, []string{"version", "method", "udocc"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "udocc_model_reloads_total", Help: "Model reloads, by result (ok, refused).",
		}, []string{"result"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.rows, m.flagged, m.position, m.inFlight, m.model, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range []string{"ok", "refused"} {
		m.reloads.WithLabelValues(r)
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// observe counts a request of route answered with code after d.
func (m *handlerMetrics) observe(route string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// setModel marks info's model as the one served, old's (when not nil) as no longer.
func (m *handlerMetrics) setModel(old *ModelInfo, info ModelInfo) {
	if old != nil {
		m.model.DeleteLabelValues(old.Version, string(old.Method), old.Udocc)
	}
	m.model.WithLabelValues(info.Version, string(info.Method), info.Udocc).Set(1)
}

func (m *handlerMetrics) serve(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// trainingQuantiles are the buckets of udocc_score_training_quantile.
var trainingQuantiles = []float64{0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

// observeScores counts res's flagged rows and places each score among the training
// scores of s's model (its sketch, models.Tail; none for a model without one).
func (m *handlerMetrics) observeScores(s *served, res *scored) {
	flagged := 0
	for _, l := range res.labels {
		if l {
			flagged++
		}
	}
	m.flagged.Add(float64(flagged))
	if t := s.m.meta.Tail; t != nil {
		for _, v := range res.scores {
			m.position.Observe(1 - t.TopShare(v))
		}
	}
}
