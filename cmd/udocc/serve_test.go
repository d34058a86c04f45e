package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/udocc/udocc/internal/pandascsv"
)

// TestServe runs udocc serve on a fitted model: a CSV body scores exactly as udocc score
// scores the file, the token is required, SIGHUP reloads (a JSON log line says so) and
// SIGTERM drains and exits 0.
func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 5)
	writeTable(t, filepath.Join(dir, "new.csv"), 37, 3, false, 6)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	mustUdocc(t, dir, "score", "--model", "fit/model", "--out", "scored", "--quiet", "new.csv")
	want := readCSV(t, filepath.Join(dir, "scored", "scores.csv")).col(t, "score")
	os.WriteFile(filepath.Join(dir, "token"), []byte("t0ken-0123456789abcdef\n"), 0o600)

	addr := freeAddr(t)
	cmd := exec.Command(udoccBin, "serve", "--model", "fit/model", "--addr", addr, "--token-file", "token", "--log-format", "json")
	cmd.Dir = dir
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := "http://" + addr
	waitUp(t, url)
	body, _ := os.ReadFile(filepath.Join(dir, "new.csv"))
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/score", bytes.NewReader(body))
	req.Header.Set("Content-Type", "text/csv")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %v %v", resp, err)
	}
	req, _ = http.NewRequest(http.MethodPost, url+"/v1/score", bytes.NewReader(body))
	req.Header.Set("Content-Type", "text/csv")
	req.Header.Set("Authorization", "Bearer t0ken-0123456789abcdef")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var out struct {
		Results []struct{ Score float64 }
	}
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != 200 || len(out.Results) != len(want) {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, b)
	}
	for i, r := range out.Results {
		if w, _ := strconv.ParseFloat(want[i], 64); r.Score != w {
			t.Fatalf("row %d: served score %v, udocc score %v", i+1, r.Score, w)
		}
	}

	cmd.Process.Signal(syscall.SIGHUP)
	for i := 0; !strings.Contains(logs.String(), `"msg":"model reloaded"`); i++ {
		if i == 200 {
			t.Fatalf("no reload logged after SIGHUP: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, logs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a log line that is not JSON: %q", line)
		}
	}
	if !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("no stopped line: %s", logs.String())
	}
}

// TestServeUsage checks serve's usage errors: exit 2, one line naming the flag.
func TestServeUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--model"},
		{[]string{"serve", "--model", "m", "--tls-cert", "c"}, "--tls-key"},
		{[]string{"serve", "--model", "m", "--max-rows", "0"}, "--max-rows"},
		{[]string{"serve", "--model", "m", "--timeout", "-1s"}, "--timeout"},
		{[]string{"serve", "--model", "m", "--log-format", "xml"}, "--log-format"},
		{[]string{"serve", "--model", "m", "extra"}, "no arguments"},
	} {
		oneErrorLine(t, inProcess(c.args...), 2, c.want)
	}
	oneErrorLine(t, inProcess("serve", "--model", filepath.Join(t.TempDir(), "none")), 1, "model.json")
}

// TestServeTLS serves HTTPS with --tls-cert and --tls-key in process, and checks that
// cancelling the context (what SIGTERM does) drains and returns exit status 0.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, false, 5)
	mustUdocc(t, dir, fitArgs("--out", "fit", "table.csv")...)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int)
	go func() {
		code <- runContext(ctx, []string{"serve", "--model", filepath.Join(dir, "fit", "model"), "--addr", addr,
			"--tls-cert", certFile, "--tls-key", keyFile, "--log-level", "error"}, io.Discard, io.Discard)
	}()
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for i := 0; ; i++ {
		resp, err := c.Get("https://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("/readyz over HTTPS: %d", resp.StatusCode)
			}
			break
		}
		if i == 300 {
			cancel()
			t.Fatalf("no HTTPS server: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if resp, err := http.Get("http://" + addr + "/readyz"); err == nil && resp.StatusCode == 200 {
		t.Error("plain HTTP was answered by the HTTPS server")
	}
	cancel()
	if got := <-code; got != 0 {
		t.Fatalf("exit status %d after the context ended, want 0", got)
	}
}

// freeAddr is a loopback address with a port free a moment ago, for a server to listen on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitUp waits until the server at url answers /healthz, for at most 15 s.
func waitUp(t *testing.T, url string) {
	t.Helper()
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			return
		}
		if i == 300 {
			t.Fatalf("the server did not come up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPythonClient runs clients/python/test_udocc.py against a live udocc serve: the
// client's Detector fits with the udocc command, serves the model, and scores, labels,
// explains and refuses as the Go handler does. It skips without python3.
func TestPythonClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3: the Python client is not tested")
	}
	script, err := filepath.Abs("../../clients/python/test_udocc.py")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "UDOCC="+udoccBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	if !strings.Contains(string(out), "OK") {
		t.Errorf("%s:\n%s", script, out)
	}
}

// TestServeOneContract checks that serve takes what udocc score takes with the same
// model (issue 65; hostile round 4, L11): the training table's label and dropped columns
// are ignored, blank and NA cells are imputed, and every row scores as udocc score
// scores it, with its probability.
func TestServeOneContract(t *testing.T) {
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "table.csv"), 200, 3, true, 48)
	mustUdocc(t, dir, fitArgs("--out", "f", "--label", "y", "--drop", "c", "table.csv")...)
	// New rows as a user has them: the label, the dropped column, blanks and NA.
	body := "a,y,b,c\n0.1,0,0.2,5\n,1,9,\n3,0,NA,1\n"
	if err := os.WriteFile(filepath.Join(dir, "new.csv"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	mustUdocc(t, dir, "score", "--model", "f/model", "--out", "s", "--explain", "0", "new.csv")
	want := readCSV(t, filepath.Join(dir, "s/scores.csv"))
	url := serveModel(t, dir, "f/model")
	resp, err := http.Post(url+"/v1/score", "text/csv", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Results []struct {
			Score       float64 `json:"score"`
			Probability float64 `json:"probability"`
		} `json:"results"`
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("serve refused what udocc score took: %d %s", resp.StatusCode, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	scores, probs := want.floats(t, "score"), want.floats(t, "probability")
	if len(got.Results) != len(scores) {
		t.Fatalf("%d results, udocc score %d rows", len(got.Results), len(scores))
	}
	for i, r := range got.Results {
		if r.Score != scores[i] || math.Abs(r.Probability-probs[i]) > 5e-5 { // scores.csv prints 4 digits
			t.Errorf("row %d: serve %v (%v), udocc score %v (%v)", i+1, r.Score, r.Probability, scores[i], probs[i])
		}
	}
}

// TestServeTextColumns serves a model fitted on a table with text columns (a category,
// a many-valued category, a date, pandas' unnamed index): CSV and JSON rows that carry
// the text columns as they are score as udocc score scores the same rows, an unseen
// category included.
func TestServeTextColumns(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "visits.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pandascsv.Write(f, 200, 2, false); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mustUdocc(t, dir, fitArgs("--label", "label", "--out", "f", "visits.csv")...)
	body := ",clinic,doctor,visit_date,age,cost,label\n0,Q,dr03,2024-05-01,44,98.5,0\n1,Z,dr03,2024-05-02,,1000,1\n2,east,,2024-05-03,50,99,0\n"
	writeText(t, dir, "new.csv", body)
	mustUdocc(t, dir, "score", "--model", "f/model", "--out", "s", "new.csv")
	want := readCSV(t, filepath.Join(dir, "s", "scores.csv")).floats(t, "score")
	url := serveModel(t, dir, "f/model")
	jsonBody := `{"rows":[{"clinic":"Q","doctor":"dr03","visit_date":"2024-05-01","age":44,"cost":98.5},` +
		`{"clinic":"Z","doctor":"dr03","visit_date":"2024-05-02","age":null,"cost":1000},` +
		`{"clinic":"east","doctor":null,"visit_date":"2024-05-03","age":50,"cost":99}]}`
	for _, c := range []struct{ kind, body string }{{"text/csv", body}, {"application/json", jsonBody}} {
		resp, err := http.Post(url+"/v1/score", c.kind, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Results []struct {
				ID    *string `json:"id"`
				Score float64 `json:"score"`
			} `json:"results"`
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &got) != nil || len(got.Results) != len(want) {
			t.Fatalf("%s: %d %s", c.kind, resp.StatusCode, b)
		}
		for i, r := range got.Results {
			if r.Score != want[i] {
				t.Errorf("%s, row %d: serve %v, udocc score %v", c.kind, i+1, r.Score, want[i])
			}
			// The CSV's index (the fit's id) comes back as each row's id; the JSON rows
			// carry none.
			if wantID := fmt.Sprint(i); c.kind == "text/csv" && (r.ID == nil || *r.ID != wantID) || c.kind != "text/csv" && r.ID != nil {
				t.Errorf("%s, row %d: id %v", c.kind, i+1, r.ID)
			}
		}
	}
	// A date in another layout is refused, naming the row and the column.
	resp, err := http.Post(url+"/v1/score", "text/csv", strings.NewReader(",clinic,doctor,visit_date,age,cost\n0,east,dr01,05/01/2024,40,100\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "visit_date") || !strings.Contains(string(b), "not a date") {
		t.Errorf("a bad date: %d %s", resp.StatusCode, b)
	}
}

// serveModel starts `udocc serve` of the model folder model (relative to dir) on a free
// address, stopped when the test ends, and returns its URL once it answers.
func serveModel(t *testing.T, dir, model string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(udoccBin, "serve", "--model", model, "--addr", addr)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "http://" + addr
	waitUp(t, url)
	return url
}
