package odds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrChecksum reports a file whose size or SHA-256 digest is not the
	// registry's.
	ErrChecksum = errors.New("SHA-256 mismatch")
	// ErrUnknownSet reports a data set name that is not in the registry.
	ErrUnknownSet = errors.New("unknown ODDS data set")
	// ErrOptions reports FetchOptions that cannot be used.
	ErrOptions = errors.New("invalid fetch options")
)

// FetchOptions controls Fetch. Dir is required; the zero value of every
// other field is a usable default.
type FetchOptions struct {
	// Dir is the directory the files are stored in; it is created if
	// missing.
	Dir string
	// BaseURL, if set, replaces the registry's links: each file is fetched
	// from BaseURL + "/" + File (a mirror of the ODDS files).
	BaseURL string
	// URLs overrides the link of single data sets, by name; it takes
	// precedence over BaseURL.
	URLs map[string]string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Names selects data sets by name; nil or empty means all ten.
	Names []string
	// Progress receives one line per step ("pima.mat: downloading …");
	// nil means silent.
	Progress io.Writer
}

// FetchResult says what Fetch did for one data set.
type FetchResult struct {
	Set Set
	// Path is the verified file.
	Path string
	// Downloaded is false when a verified file was already in Dir.
	Downloaded bool
}

// Fetch makes the selected ODDS files present and verified in opts.Dir.
//
// A file already in Dir (placed by hand or fetched before) is verified and
// kept without a download; one with the wrong digest is an error naming it,
// and it is left alone. A missing file is downloaded into File + ".part";
// an existing .part is resumed with an HTTP Range request (a server that
// ignores Range, answering 200, restarts it from zero). The .part is renamed
// into place only when its SHA-256 matches; a resumed download that fails
// the check is retried once from zero, and a fresh one that fails is
// removed. A download cut off midway leaves its .part for the next call.
//
// Fetch goes on to the other data sets after a failure and returns the
// results that succeeded with all the errors joined.
func Fetch(ctx context.Context, opts FetchOptions) ([]FetchResult, error) {
	return fetchSets(ctx, opts, oddsSets[:])
}

// fetchSets is Fetch over a given registry, so tests can serve their own
// files.
func fetchSets(ctx context.Context, opts FetchOptions, registry []Set) ([]FetchResult, error) {
	if opts.Dir == "" {
		return nil, fmt.Errorf("odds: fetch: no directory given: %w", ErrOptions)
	}
	sets := registry
	if len(opts.Names) > 0 {
		sets = nil
		for _, name := range opts.Names {
			i := -1
			for k, s := range registry {
				if s.Name == name {
					i = k
				}
			}
			if i < 0 {
				return nil, fmt.Errorf("odds: fetch: %q: %w", name, ErrUnknownSet)
			}
			sets = append(sets, registry[i])
		}
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("odds: fetch: %w", err)
	}
	f := fetcher{opts: opts, client: opts.Client, progress: opts.Progress}
	if f.client == nil {
		f.client = http.DefaultClient
	}
	if f.progress == nil {
		f.progress = io.Discard
	}
	var results []FetchResult
	var errs []error
	for _, s := range sets {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("odds: fetch %s: %w", s.File, err))
			break
		}
		r, err := f.one(ctx, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		results = append(results, r)
	}
	return results, errors.Join(errs...)
}

type fetcher struct {
	opts     FetchOptions
	client   *http.Client
	progress io.Writer
}

// url returns where set s is fetched from.
func (f *fetcher) url(s Set) string {
	if u, ok := f.opts.URLs[s.Name]; ok {
		return u
	}
	if f.opts.BaseURL != "" {
		return strings.TrimSuffix(f.opts.BaseURL, "/") + "/" + s.File
	}
	return s.URL
}

func (f *fetcher) one(ctx context.Context, s Set) (FetchResult, error) {
	final := filepath.Join(f.opts.Dir, s.File)
	res := FetchResult{Set: s, Path: final}
	if _, err := os.Stat(final); err == nil {
		if err := verifyFile(final, s); err != nil {
			return res, fmt.Errorf("odds: fetch %s: the file already there: %w (remove it to download again)", s.File, err)
		}
		fmt.Fprintf(f.progress, "%s: present, sha256 verified\n", final)
		return res, nil
	}
	part := final + ".part"
	url := f.url(s)
	for attempt := 0; ; attempt++ {
		resumed, err := f.download(ctx, url, part, s, attempt == 0)
		if err != nil {
			return res, fmt.Errorf("odds: fetch %s from %s: %w", s.File, url, err)
		}
		if err := verifyFile(part, s); err != nil {
			os.Remove(part)
			if resumed && attempt == 0 {
				fmt.Fprintf(f.progress, "%s: resumed file failed verification (%v); downloading from the start\n", s.File, err)
				continue
			}
			return res, fmt.Errorf("odds: fetch %s from %s: %w", s.File, url, err)
		}
		if err := os.Rename(part, final); err != nil {
			return res, fmt.Errorf("odds: fetch %s: %w", s.File, err)
		}
		fmt.Fprintf(f.progress, "%s: downloaded, sha256 verified\n", final)
		res.Downloaded = true
		return res, nil
	}
}

// download brings part to s.Size bytes from url, resuming from the bytes
// already in part when resume is set. It reports whether old bytes were
// kept, so a failed check can retry from zero.
func (f *fetcher) download(ctx context.Context, url, part string, s Set, resume bool) (resumed bool, err error) {
	var offset int64
	if fi, err := os.Stat(part); err == nil && resume && fi.Size() <= s.Size {
		offset = fi.Size()
	}
	if offset == s.Size && offset > 0 {
		fmt.Fprintf(f.progress, "%s: %s is complete, verifying\n", s.File, part)
		return true, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	switch {
	case resp.StatusCode == http.StatusPartialContent && offset > 0 && rangeStart(resp.Header.Get("Content-Range")) == offset:
		flag = os.O_WRONLY | os.O_APPEND
		resumed = true
		fmt.Fprintf(f.progress, "%s: resuming at byte %d of %d from %s\n", s.File, offset, s.Size, url)
	case resp.StatusCode == http.StatusOK:
		if offset > 0 {
			fmt.Fprintf(f.progress, "%s: server ignored the range request; downloading from the start\n", s.File)
		} else {
			fmt.Fprintf(f.progress, "%s: downloading %d bytes from %s\n", s.File, s.Size, url)
		}
		offset = 0
	case offset > 0 && (resp.StatusCode == http.StatusPartialContent || resp.StatusCode == http.StatusRequestedRangeNotSatisfiable):
		// A range other than the one asked for, or none the server can
		// serve: start again from zero.
		fmt.Fprintf(f.progress, "%s: server answered the range request with %s %q; downloading from the start\n",
			s.File, resp.Status, resp.Header.Get("Content-Range"))
		os.Remove(part)
		return f.download(ctx, url, part, s, false)
	default:
		return false, fmt.Errorf("HTTP %s", resp.Status)
	}
	out, err := os.OpenFile(part, flag, 0o644)
	if err != nil {
		return false, err
	}
	// Never write more than one byte past the expected size: a server
	// sending too much fails the size check without filling the disk.
	n, err := io.Copy(out, io.LimitReader(resp.Body, s.Size-offset+1))
	if err == nil && offset+n < s.Size {
		err = fmt.Errorf("connection closed after %d of %d bytes", offset+n, s.Size)
	}
	if serr := out.Sync(); err == nil {
		err = serr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("%w (the partial file %s is kept for resuming)", err, part)
	}
	return resumed, nil
}

// rangeStart returns the first byte of a "bytes first-last/total"
// Content-Range value, or -1.
func rangeStart(v string) int64 {
	var first, last int64
	var total string
	if _, err := fmt.Sscanf(v, "bytes %d-%d/%s", &first, &last, &total); err != nil {
		return -1
	}
	return first
}

// verifyFile checks a file's size and SHA-256 digest against s.
func verifyFile(path string, s Set) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != s.Size || got != s.SHA256 {
		return fmt.Errorf("%s: %d bytes with sha256 %s, want %d bytes with sha256 %s: %w", path, n, got, s.Size, s.SHA256, ErrChecksum)
	}
	return nil
}
