package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// runReload reloads the server every c.every for c.reloadFor, a new model folder each
// time, while 8 clients score 100 rows a request; then it offers a broken folder.
func runReload(c config) error {
	if c.dir == "" || len(c.models) < 2 {
		return fmt.Errorf("reload needs -dir and at least two -models")
	}
	hc := client(8)
	b := body(c.ds, 0, 100)
	ref := map[string][]float64{} // each version's scores of b
	for _, m := range c.models {
		if err := install(m, c.dir); err != nil {
			return err
		}
		if code, msg := reload(hc, c.url); code != 200 {
			return fmt.Errorf("reload of %s: status %d %s", m, code, msg)
		}
		code, r, err := score(hc, c.url, b)
		if err != nil || code != 200 {
			return fmt.Errorf("score with %s: status %d, %v", m, code, err)
		}
		ref[r.Model] = r.scores()
	}
	if len(ref) != len(c.models) {
		return fmt.Errorf("%d models gave %d versions", len(c.models), len(ref))
	}
	var ok, failed, mixed atomic.Int64
	var mu sync.Mutex
	byVersion := map[string]int{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, r, err := score(hc, c.url, b)
				switch {
				case err != nil || code != 200:
					failed.Add(1)
				case !slices.Equal(r.scores(), ref[r.Model]):
					mixed.Add(1)
				default:
					ok.Add(1)
					mu.Lock()
					byVersion[r.Model]++
					mu.Unlock()
				}
			}
		}()
	}
	reloads, refused := 0, 0
	end := time.Now().Add(c.reloadFor)
	for i := 0; time.Now().Before(end); i++ {
		time.Sleep(c.every)
		if err := install(c.models[i%len(c.models)], c.dir); err != nil {
			return err
		}
		if code, _ := reload(hc, c.url); code == 200 {
			reloads++
		} else {
			refused++
		}
	}
	close(stop)
	wg.Wait()
	fmt.Printf("reload under load: %d reloads (%d refused) in %s; %d responses: %d whole and right for their version, %d failed, %d not their version's scores; by version %v\n",
		reloads, refused, c.reloadFor, ok.Load()+failed.Load()+mixed.Load(), ok.Load(), failed.Load(), mixed.Load(), byVersion)

	// A broken folder: the first model with a network file cut short.
	before := version(hc, c.url)
	if err := install(c.models[0], c.dir); err != nil {
		return err
	}
	pts, _ := filepath.Glob(filepath.Join(c.dir, "*.pt"))
	if len(pts) == 0 {
		return fmt.Errorf("%s holds no .pt file", c.dir)
	}
	if err := os.WriteFile(pts[0], []byte("broken"), 0o644); err != nil {
		return err
	}
	code, msg := reload(hc, c.url)
	after := version(hc, c.url)
	sc, r, err := score(hc, c.url, b)
	fmt.Printf("broken folder: reload status %d (%s); version %s before, %s after; a score request then: status %d, %v, scores the served version's: %v\n",
		code, strings.TrimSpace(msg), before, after, sc, err, slices.Equal(r.scores(), ref[r.Model]))
	if failed.Load() > 0 || mixed.Load() > 0 || code == 200 || before != after || sc != 200 {
		return fmt.Errorf("reload check failed")
	}
	return nil
}

// install copies the files of the model folder src into dst, swapped in by rename.
func install(src, dst string) error {
	tmp := dst + ".new"
	os.RemoveAll(tmp)
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	old := dst + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dst, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// reload asks the server to reload; it returns the status and the body.
func reload(c *http.Client, url string) (int, string) {
	resp, err := c.Post(url+"/v1/reload", "", nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// version is the version of the model the server serves.
func version(c *http.Client, url string) string {
	resp, err := c.Get(url + "/v1/model")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var info struct{ Version string }
	json.NewDecoder(resp.Body).Decode(&info)
	return info.Version
}
