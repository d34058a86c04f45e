package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A small client of the Chrome DevTools Protocol over its WebSocket (RFC 6455), enough
// to drive a headless Chromium as a user would: load a page, read the DOM, click at a
// button's place with the mouse. It keeps the test free of a browser-driving module.

// chromiumPath is Debian's chromium (or another Chromium found on PATH); "" where none
// is installed (./build.sh test installs Debian's where it runs as root).
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium showing one page, and the DevTools connection to it.
type browser struct {
	cmd     *exec.Cmd
	conn    net.Conn
	r       *bufio.Reader
	id      int
	profile string // the user-data-dir, removed by close once every process is gone
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://[^\s]+)`)

// startBrowser starts a headless Chromium on pageURL and connects to the page.
func startBrowser(t *testing.T, pageURL string) *browser {
	t.Helper()
	bin := chromiumPath()
	if bin == "" {
		t.Skip("no chromium on PATH: the web review is not clicked through (./build.sh test installs Debian's chromium as root)")
	}
	// The profile is not t.TempDir's: Chromium's helper processes may still write in it
	// for a moment after the browser is killed, which fails TempDir's removal.
	profile, err := os.MkdirTemp("", "udocc-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--remote-debugging-port=0",
		"--remote-allow-origins=*", "--user-data-dir="+profile, "--window-size=1200,2400", pageURL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers in its group, killed with it
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	b := &browser{cmd: cmd, profile: profile}
	t.Cleanup(b.close)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not say where DevTools listen")
	}
	u, err := url.Parse(wsURL)
	if err != nil {
		t.Fatal(err)
	}
	// The page's own target, from the list of targets.
	var targets []struct {
		Type, URL            string
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		page := ""
		for _, tg := range targets {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, pageURL) {
				page = tg.WebSocketDebuggerURL
			}
		}
		if page != "" {
			b.dial(t, page)
			return b
		}
		if i == 200 {
			t.Fatalf("no page target for %s: %v %+v", pageURL, err, targets)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) close() {
	if b.conn != nil {
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL) // the group: the browser and its helpers
		b.cmd.Wait()
	}
	for range 50 { // a helper may still be on its way out
		if os.RemoveAll(b.profile) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// dial opens the WebSocket at wsURL (ws://host/path): the HTTP upgrade of RFC 6455 §4.
func (b *browser) dial(t *testing.T, wsURL string) {
	t.Helper()
	u, err := url.Parse(wsURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("WebSocket upgrade at %s: %v %v", wsURL, resp, err)
	}
	b.conn, b.r = conn, r
}

// send writes one masked text frame (a client's frames are masked: RFC 6455 §5.3).
func (b *browser) send(payload []byte) error {
	hdr := []byte{0x81} // FIN, text
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	masked := make([]byte, len(payload))
	for i, c := range payload {
		masked[i] = c ^ mask[i%4]
	}
	_, err := b.conn.Write(append(hdr, masked...))
	return err
}

// receive reads one message, joining its fragments; control frames other than close
// are skipped.
func (b *browser) receive() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(b.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var e [2]byte
			if _, err := io.ReadFull(b.r, e[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(e[:]))
		case 127:
			var e [8]byte
			if _, err := io.ReadFull(b.r, e[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(e[:])
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(b.r, mask[:]); err != nil {
				return nil, err
			}
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(b.r, p); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range p {
				p[i] ^= mask[i%4]
			}
		}
		switch {
		case op == 8:
			return nil, errors.New("the browser closed the connection")
		case op >= 8: // ping, pong
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

// call sends a DevTools command and returns its result, skipping the events between.
func (b *browser) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	b.id++
	req, _ := json.Marshal(map[string]any{"id": b.id, "method": method, "params": params})
	b.conn.SetDeadline(time.Now().Add(60 * time.Second))
	if err := b.send(req); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		msg, err := b.receive()
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(msg, &resp) != nil || resp.ID != b.id {
			continue
		}
		if resp.Error != nil {
			t.Fatalf("%s: %s", method, resp.Error.Message)
		}
		return resp.Result
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	res := b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		t.Fatalf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			t.Fatalf("%s: %s: %v", expr, r.Result.Value, err)
		}
	}
}

// click presses and releases the left mouse button at the middle of the element with
// id, scrolled into view first: the events a user's click sends.
func (b *browser) click(t *testing.T, id string) {
	t.Helper()
	var at struct{ X, Y float64 }
	b.eval(t, fmt.Sprintf(`(() => { const e = document.getElementById(%q); if (!e) return {X: -1, Y: -1};
		e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, id), &at)
	if at.X < 0 {
		t.Fatalf("no element %q on the page", id)
	}
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		b.call(t, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1})
	}
}

// waitFor evaluates expr until it is true (JSON true), failing after a minute.
func (b *browser) waitFor(t *testing.T, what, expr string) {
	t.Helper()
	for i := 0; ; i++ {
		var ok bool
		b.eval(t, expr, &ok)
		if ok {
			return
		}
		if i == 600 {
			var html string
			b.eval(t, `document.body.innerText.slice(0, 2000)`, &html)
			t.Fatalf("the page never showed %s; it shows:\n%s", what, html)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
