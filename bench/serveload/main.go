// Command serveload is the load generator of `udocc serve` (docs/serve.md): HTTP clients
// written for the purpose, run against a server started apart.
//
//	serveload load    -url URL -data TABLE [-batches 1,1000] [-clients 1,8,64] [-duration 10s]
//	serveload check   -url URL -data TABLE -scores SCORES.CSV
//	serveload reload  -url URL -data TABLE -dir SERVED -models A,B [-every 1s] [-for 30s]
//	serveload hostile -url URL -data TABLE [-pid PID] [-timeout 30s]
//
// load sends rows of TABLE as JSON arrays, batch rows a request, from each number of
// concurrent clients for the duration, and prints rows/s and the p50 and p99 latency of
// each cell (the clients run on the server's machine and share its cores). check scores
// every row of TABLE through the server and compares each score with the score column
// of `udocc score`'s scores.csv, bit for bit. reload copies the model folders A, B, … in
// turn into SERVED (the folder the server serves) every -every and asks the server to
// reload, while 8 clients score: every response must be a 200 whose scores are those of
// the model version it names; then a broken folder must be refused. hostile sends each
// class of bad request, a slow-loris body and a 1 GB body, and prints each status and
// time, and the server's peak RSS (VmHWM of -pid).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/torch"
)

func main() {
	// A program owns its process: it keeps the pages its fits free (the library never
	// sets malloc by itself; see torch.KeepFreedPages).
	torch.KeepFreedPages()
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: serveload load|check|reload|hostile [flags] (see the package comment)")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	var c config
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080", "the server's base URL")
	fs.StringVar(&c.data, "data", "", "the table whose rows are sent (.mat, .csv, …)")
	batches := fs.String("batches", "1,1000", "rows per request, comma-separated")
	clients := fs.String("clients", "1,8,64", "concurrent clients, comma-separated")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long each cell of load runs")
	fs.StringVar(&c.scores, "scores", "", "check: udocc score's scores.csv of the same table")
	fs.StringVar(&c.dir, "dir", "", "reload: the model folder the server serves")
	models := fs.String("models", "", "reload: model folders to copy into -dir in turn, comma-separated")
	fs.DurationVar(&c.every, "every", time.Second, "reload: time between reloads")
	fs.DurationVar(&c.reloadFor, "for", 30*time.Second, "reload: how long to reload under load")
	fs.IntVar(&c.pid, "pid", 0, "hostile: the server's process id, for its peak RSS")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "hostile: the server's --timeout")
	fs.IntVar(&digits, "digits", 64, "values written as the float64 of their float32 (64: up to 17 digits) or as the float32's\nshortest digits (32: what a client holding float32s writes); the server reads the same float32 either way")
	fs.Parse(os.Args[2:])
	if digits != 32 && digits != 64 {
		fmt.Fprintln(os.Stderr, "serveload: -digits: want 32 or 64")
		os.Exit(2)
	}
	c.batches, c.clients = ints(*batches), ints(*clients)
	if *models != "" {
		c.models = strings.Split(*models, ",")
	}
	ds, err := data.Load(c.data, data.LoadOptions{})
	if err != nil {
		fail(err)
	}
	c.ds = ds
	switch os.Args[1] {
	case "load":
		err = runLoad(c)
	case "check":
		err = runCheck(c)
	case "reload":
		err = runReload(c)
	case "hostile":
		err = runHostile(c)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

type config struct {
	url, data, scores, dir string
	models                 []string
	batches, clients       []int
	duration, every        time.Duration
	reloadFor, timeout     time.Duration
	pid                    int
	ds                     *data.Dataset
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "serveload:", err)
	os.Exit(1)
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		fmt.Sscan(f, &n)
		out = append(out, n)
	}
	return out
}

// digits is -digits: the bits of the float whose shortest digits write a value.
var digits = 64

// body is rows lo..lo+n-1 of ds (wrapping around) as a JSON score request, each value
// written exactly (the shortest digits of the float64 of the float32 it is held as, or of
// the float32 itself, by -digits), so that the server reads the same float32.
func body(ds *data.Dataset, lo, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for j, v := range ds.Row((lo + i) % ds.N) {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(strconv.AppendFloat(nil, float64(v), 'g', -1, digits))
		}
		b.WriteByte(']')
	}
	b.WriteString("]}")
	return b.Bytes()
}

// response is a score response.
type response struct {
	Model   string `json:"model"`
	Results []struct {
		Score float64 `json:"score"`
	} `json:"results"`
	Error *struct{ Code, Message string } `json:"error"`
}

// score posts b and decodes the answer; status is the HTTP status.
func score(c *http.Client, url string, b []byte) (int, response, error) {
	resp, err := c.Post(url+"/v1/score", "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, response{}, err
	}
	defer resp.Body.Close()
	var r response
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, r, err
	}
	return resp.StatusCode, r, json.Unmarshal(raw, &r)
}

func (r response) scores() []float64 {
	out := make([]float64, len(r.Results))
	for i, x := range r.Results {
		out[i] = x.Score
	}
	return out
}

// client is an HTTP client that keeps as many idle connections as there are clients.
func client(n int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxIdleConns: n}, Timeout: 5 * time.Minute}
}
