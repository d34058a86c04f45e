package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// runLoad runs every cell of batch sizes × client counts for c.duration and prints a
// Markdown table.
func runLoad(c config) error {
	fmt.Printf("| rows/request | clients | requests | rows/s | p50 ms | p99 ms | failed |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, batch := range c.batches {
		bodies := make([][]byte, 16)
		for i := range bodies {
			bodies[i] = body(c.ds, i*batch*7, batch)
		}
		for _, n := range c.clients {
			lat, failed, err := cell(c, bodies, n)
			if err != nil {
				return err
			}
			slices.Sort(lat)
			q := func(p float64) float64 {
				if len(lat) == 0 {
					return 0
				}
				return lat[min(len(lat)-1, int(p*float64(len(lat))))].Seconds() * 1000
			}
			fmt.Printf("| %d | %d | %d | %.0f | %.2f | %.2f | %d |\n", batch, n, len(lat), float64(len(lat)*batch)/c.duration.Seconds(), q(0.5), q(0.99), failed)
		}
	}
	return nil
}

// cell runs n clients posting bodies in turn for c.duration; it returns the latency of
// every request answered 200 and the count of the others.
func cell(c config, bodies [][]byte, n int) ([]time.Duration, int, error) {
	hc := client(n)
	// One request each first: connections open, nothing timed.
	for k := range n {
		if _, _, err := score(hc, c.url, bodies[k%len(bodies)]); err != nil {
			return nil, 0, err
		}
	}
	var (
		mu     sync.Mutex
		all    []time.Duration
		failed int
		wg     sync.WaitGroup
	)
	end := time.Now().Add(c.duration)
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			bad := 0
			for i := k; time.Now().Before(end); i++ {
				t0 := time.Now()
				code, err := post(hc, c.url, bodies[i%len(bodies)])
				if err != nil || code != 200 {
					bad++
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all, failed = append(all, lat...), failed+bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	return all, failed, nil
}

// post posts b and reads the answer whole without decoding it (check compares scores;
// here the client's own work is kept small, for it shares the server's cores).
func post(c *http.Client, url string, b []byte) (int, error) {
	resp, err := c.Post(url+"/v1/score", "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}
