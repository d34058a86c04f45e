package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// runHostile sends each class of bad request over raw connections and prints the status
// and the time to it; then the server's peak RSS.
func runHostile(c config) error {
	u, err := url.Parse(c.url)
	if err != nil {
		return err
	}
	row := string(body(c.ds, 0, 1))
	d := c.ds.D
	wrongNames := `{"rows":[{"no_such_column":1}]}`
	short := `{"rows":[[` + strings.Repeat("1,", d-2) + `1]]}`
	text := `{"rows":[["x"` + strings.Repeat(",1", d-1) + `]]}`
	csvHeader := func() string {
		h := make([]string, d)
		for j := range h {
			h[j] = fmt.Sprintf("x%d", j+1)
		}
		return strings.Join(h, ",") + "\n"
	}()
	nan := csvHeader + "NaN" + strings.Repeat(",1", d-1) + "\n"
	inf := csvHeader + "1e999" + strings.Repeat(",1", d-1) + "\n"
	fixed := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	cases := []struct {
		name, ct string
		length   int64 // -1: chunked
		body     func(io.Writer) error
	}{
		{"empty body", "application/json", 0, fixed("")},
		{"malformed JSON", "application/json", int64(len(row) - 3), fixed(row[:len(row)-3])},
		{"wrong column count", "application/json", int64(len(short)), fixed(short)},
		{"wrong column names", "application/json", int64(len(wrongNames)), fixed(wrongNames)},
		{"not a number", "application/json", int64(len(text)), fixed(text)},
		{"NaN (CSV)", "text/csv", int64(len(nan)), fixed(nan)},
		{"beyond float (CSV)", "text/csv", int64(len(inf)), fixed(inf)},
		{"1 GB body, Content-Length", "application/json", 1 << 30, spaces(1 << 30)},
		{"1 GB body, chunked", "application/json", -1, spaces(1 << 30)},
		{"slow-loris body (stalls after 20 bytes)", "application/json", int64(len(row)), stall(row[:20])},
		{"slow-loris body (a byte a second)", "application/json", int64(len(row)), trickle(row)},
	}
	fmt.Printf("| request | status | seconds |\n|---|---:|---:|\n")
	for _, k := range cases {
		code, took, err := rawPost(u.Host, k.ct, k.length, k.body, c.timeout+15*time.Second)
		if err != nil {
			fmt.Printf("| %s | %v | %.2f |\n", k.name, err, took.Seconds())
			continue
		}
		fmt.Printf("| %s | %d | %.2f |\n", k.name, code, took.Seconds())
	}
	// Slow-loris headers: the server's ReadHeaderTimeout closes the connection.
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	t0 := time.Now()
	io.WriteString(conn, "POST /v1/score HTTP/1.1\r\nHost: x\r\n")
	conn.SetReadDeadline(time.Now().Add(c.timeout + 15*time.Second))
	_, err = conn.Read(make([]byte, 1))
	conn.Close()
	fmt.Printf("| slow-loris headers (never finished) | closed (%v) | %.2f |\n", err, time.Since(t0).Seconds())
	if c.pid > 0 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.pid))
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "VmRSS") {
				fmt.Println(strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return nil
}

// rawPost posts a body over a connection of its own, written by write while the answer
// is read, and returns the status and the time to it.
func rawPost(host, ct string, length int64, write func(io.Writer) error, limit time.Duration) (int, time.Duration, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	t0 := time.Now()
	head := fmt.Sprintf("POST /v1/score HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\n", host, ct)
	if length >= 0 {
		head += fmt.Sprintf("Content-Length: %d\r\n\r\n", length)
	} else {
		head += "Transfer-Encoding: chunked\r\n\r\n"
	}
	if _, err := io.WriteString(conn, head); err != nil {
		return 0, 0, err
	}
	go func() {
		var w io.Writer = conn
		if length < 0 {
			cw := &chunked{conn}
			defer io.WriteString(conn, "0\r\n\r\n")
			w = cw
		}
		write(w)
	}()
	conn.SetReadDeadline(t0.Add(limit))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, time.Since(t0), err
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(t0), nil
}

// chunked writes each write as one HTTP/1.1 chunk.
type chunked struct{ w io.Writer }

func (c *chunked) Write(p []byte) (int, error) {
	if _, err := fmt.Fprintf(c.w, "%x\r\n", len(p)); err != nil {
		return 0, err
	}
	if _, err := c.w.Write(p); err != nil {
		return 0, err
	}
	_, err := io.WriteString(c.w, "\r\n")
	return len(p), err
}

// spaces writes {"rows":[[ and then spaces up to n bytes: a body that the reader skips
// through without end, so that only the size limit stops it.
func spaces(n int64) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, `{"rows":[[`); err != nil {
			return err
		}
		buf := []byte(strings.Repeat(" ", 1<<16))
		for left := n - 10; left > 0; left -= int64(len(buf)) {
			if _, err := w.Write(buf[:min(int64(len(buf)), left)]); err != nil {
				return err
			}
		}
		return nil
	}
}

// stall writes s and then nothing, holding the connection open.
func stall(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		time.Sleep(time.Hour)
		return err
	}
}

// trickle writes s a byte a second.
func trickle(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		for i := range len(s) {
			if _, err := w.Write([]byte{s[i]}); err != nil {
				return err
			}
			time.Sleep(time.Second)
		}
		return nil
	}
}
