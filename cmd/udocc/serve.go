package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/regfile"
	server "github.com/udocc/udocc/serve"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	lib "github.com/udocc/udocc/internal/detector"
)

// serveFlags are the flags of udocc serve.
type serveFlags struct {
	model, addr, device       string
	threads                   int
	opts                      lib.HandlerOptions
	tokenFile, tlsCert, tlsKy string
	logFormat, logLevel       string
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "--model DIR [flags]", "Serve a saved model over HTTP (docs/serve.md): POST /v1/score, GET /v1/model, POST /v1/reload,\n/healthz, /readyz, /metrics, and the Open Inference Protocol under /v2. SIGHUP reloads the model folder; SIGTERM drains the requests in\nprogress and exits 0.", stdout)
	var f serveFlags
	fs.StringVar(&f.model, "model", "", "the model folder (udocc fit's model/, or Model.Save's)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "host:port to listen on; localhost unless told otherwise (then set --token-file)")
	addDeviceFlags(fs, &f.device, &f.threads, usableCores())
	fs.Int64Var(&f.opts.MaxBodyBytes, "max-body-bytes", lib.DefaultMaxBodyBytes, "the largest request body; larger: 413")
	fs.IntVar(&f.opts.MaxRows, "max-rows", lib.DefaultMaxRows, "the most rows one score request may send; more: 413")
	fs.IntVar(&f.opts.MaxConcurrent, "max-concurrent", lib.DefaultMaxConcurrent, "the most score requests served at once; more: 429")
	fs.DurationVar(&f.opts.Timeout, "timeout", lib.DefaultTimeout, "a score request's body must arrive (408) and its rows get their turn on the model (503) within it")
	fs.StringVar(&f.opts.ModelName, "model-name", "udocc", "the model's name in the Open Inference Protocol's paths (/v2/models/NAME/infer)")
	fs.StringVar(&f.tokenFile, "token-file", "", "a file holding the bearer token every request but /healthz and /readyz must carry")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate (chain) to serve HTTPS with; needs --tls-key")
	fs.StringVar(&f.tlsKy, "tls-key", "", "PEM private key of --tls-cert")
	fs.StringVar(&f.logFormat, "log-format", "text", "log lines on stderr as text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(fs); err != nil {
		return err
	}
	log, err := f.logger(stderr)
	if err != nil {
		return err
	}
	f.opts.Dir, f.opts.Device, f.opts.Threads, f.opts.Logger = f.model, f.device, f.threads, log
	if f.tokenFile != "" {
		if f.opts.Token, err = readToken(f.tokenFile); err != nil {
			return err
		}
	}
	srv := &http.Server{
		ReadHeaderTimeout: min(f.opts.Timeout, 10*time.Second), // slow-loris headers
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKy)
		if err != nil {
			return fmt.Errorf("--tls-cert %s, --tls-key %s: %w", f.tlsCert, f.tlsKy, err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	h, err := server.Open(f.opts)
	if err != nil {
		return libError(err)
	}
	defer h.Close()
	srv.Handler = h
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	return serve(ctx, srv, ln, h, f, log)
}

// serve serves on ln until ctx ends (SIGINT, SIGTERM), then drains the requests in
// progress; SIGHUP reloads the model meanwhile.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, h *server.Server, f serveFlags, log *slog.Logger) error {
	if !loopback(ln.Addr()) && f.opts.Token == "" {
		log.Warn("listening beyond localhost without --token-file: anyone who reaches the address can score and reload", "addr", ln.Addr().String())
	}
	info := h.Info()
	log.Info("serving", "addr", ln.Addr().String(), "tls", f.tlsCert != "", "model", f.model, "version", info.Version,
		"method", info.Method, "columns", info.Inputs, "max_body_bytes", f.opts.MaxBodyBytes, "max_rows", f.opts.MaxRows,
		"max_concurrent", f.opts.MaxConcurrent, "timeout", f.opts.Timeout.String())
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	errc := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			ln = tls.NewListener(ln, srv.TLSConfig)
		}
		errc <- srv.Serve(ln)
	}()
	for {
		select {
		case <-hup:
			log.Info("SIGHUP: reloading the model", "dir", f.model)
			h.Reload() // a refusal is logged, and the model before keeps serving
		case err := <-errc:
			return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
		case <-ctx.Done():
			log.Info("shutting down: draining the requests in progress")
			drain, cancel := context.WithTimeout(context.Background(), drainWindow(f.opts.Timeout))
			defer cancel()
			if err := srv.Shutdown(drain); err != nil {
				// A client that stopped reading past every deadline: its connection
				// is closed, and the server has stopped as asked.
				log.Warn("draining: closing the connections still open", "err", err)
				srv.Close()
			}
			if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			h.Close()
			log.Info("stopped")
			return nil
		}
	}
}

// minToken is the shortest bearer token --token-file may hold, in bytes.
const minToken = 16

// readToken reads the bearer token of --token-file path: a regular file of at most
// 4 KiB (not a device, which could be read without end) holding one token, at least
// minToken bytes, without spaces; surrounding spaces and line ends are dropped.
func readToken(path string) (string, error) {
	b, err := regfile.ReadFile(path, 4<<10)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", fmt.Errorf("--token-file %s is empty: write one token into it", path)
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", fmt.Errorf("--token-file %s: want one token, without spaces", path)
	case len(tok) < minToken:
		return "", fmt.Errorf("--token-file %s: a token of %d bytes; want at least %d (e.g. openssl rand -hex 16)", path, len(tok), minToken)
	}
	return tok, nil
}

// drainWindow is how long a shutdown waits for the requests in progress, timeout each:
// past a request's write deadline (twice its timeout, udocc.Handler), so that a
// request ends by its own deadlines before the server gives up on it.
func drainWindow(timeout time.Duration) time.Duration {
	return 2*timeout + 5*time.Second
}

// check refuses flags that cannot be used.
func (f *serveFlags) check(fs interface{ NArg() int }) error {
	switch {
	case fs.NArg() > 0:
		return usagef("serve takes no arguments, only flags")
	case f.model == "":
		return usagef("--model is required")
	case f.opts.MaxBodyBytes < 1:
		return usagef("--max-body-bytes %d: want at least 1", f.opts.MaxBodyBytes)
	case f.opts.MaxRows < 1:
		return usagef("--max-rows %d: want at least 1", f.opts.MaxRows)
	case f.opts.MaxConcurrent < 1:
		return usagef("--max-concurrent %d: want at least 1", f.opts.MaxConcurrent)
	case f.opts.Timeout <= 0:
		return usagef("--timeout %s: want a positive duration", f.opts.Timeout)
	case (f.tlsCert == "") != (f.tlsKy == ""):
		return usagef("--tls-cert and --tls-key go together")
	case f.logFormat != "text" && f.logFormat != "json":
		return usagef("--log-format %q: want text or json", f.logFormat)
	}
	if err := checkThreads(f.threads); err != nil {
		return err
	}
	return checkDevice(f.device)
}

// logger is the structured logger the flags ask for, on w.
func (f *serveFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	o := &slog.HandlerOptions{Level: level}
	if f.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return slog.New(slog.NewTextHandler(w, o)), nil
}

// loopback reports whether addr is a loopback address.
func loopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
