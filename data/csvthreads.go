package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// textBlockSize is the bytes of a textBlock, but for a line longer than that.
const textBlockSize = 256 << 10

// textBlock is a run of whole lines of a text without double quotes, which one
// goroutine parses: its values straight into the table, its rows' label cells and ids
// aside, until its first bad row.
type textBlock struct {
	buf     []byte // its lines; the text's last line may lack its newline
	line    int    // the 1-based file line its first byte is on
	row     int    // the 0-based table row of its first record
	rows    int    // its records
	readErr error  // reading the text failed after these lines

	err    error       // the error of its first bad row, which ends its parse
	labels []labelCell // the label cells of the rows before that one, over buf
	ids    []string    // the ids of those rows
	done   chan struct{}
}

// labelCell is a row's label cell and the line it is on.
type labelCell struct {
	cell string
	line int
}

// threadedRows is readThreads' pipeline: one goroutine cuts the text into blocks (produce),
// workers parse them in any order (work), and the caller takes them in the file's order
// (consume). There are at most window blocks, each used again once taken, so sends on
// jobs, pending and free never block.
type threadedRows struct {
	t      *csvRows
	comma  byte
	rows   int // the rows x was sized for
	window int
	made   int // blocks allocated so far (produce's)

	jobs    chan *textBlock // to the workers
	pending chan *textBlock // to consume, in the file's order
	free    chan *textBlock // taken, to be used again
	stop    chan struct{}   // closed when consume is done
}

// readThreads adds the rows of src, text without double quotes from the given line on,
// to a table that a first pass sized (reserve): src is cut into blocks of whole lines,
// which up to threads goroutines parse straight into x, while the rows' labels, ids
// and errors are taken in the file's order. The table and the first error are the
// serial reader's (readRest) at any count. At most 2·threads blocks of about textBlockSize
// bytes are held at once, whatever the file's size.
func (t *csvRows) readThreads(src io.Reader, comma byte, line, threads int) error {
	d := len(t.ro.features)
	p := &threadedRows{t: t, comma: comma, rows: cap(t.x) / d, window: 2 * threads}
	p.jobs = make(chan *textBlock, p.window)
	p.pending = make(chan *textBlock, p.window)
	p.free = make(chan *textBlock, p.window)
	p.stop = make(chan struct{})
	first := len(t.x) / d
	t.x = t.x[:cap(t.x)]
	var wg sync.WaitGroup
	wg.Add(1 + threads)
	go func() {
		defer wg.Done()
		p.produce(src, line, first)
	}()
	for range threads {
		go func() {
			defer wg.Done()
			p.work()
		}()
	}
	rows, err := p.consume(first)
	close(p.stop)
	wg.Wait()
	if err != nil {
		return err
	}
	if rows > p.rows {
		return fmt.Errorf("%d data rows, where a first pass found %d: the file changed while it was read: %w", rows, p.rows, ErrFormat)
	}
	t.x = t.x[:rows*d]
	return nil
}

// stopped reports whether consume is done.
func (p *threadedRows) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// acquire returns a block to fill, emptied: a taken one, or a new one while fewer than
// window exist; nil once consume is done.
func (p *threadedRows) acquire() *textBlock {
	var b *textBlock
	select {
	case b = <-p.free:
	default:
		if p.made < p.window {
			p.made++
			b = &textBlock{}
		} else {
			select {
			case b = <-p.free:
			case <-p.stop:
				return nil
			}
		}
	}
	if p.stopped() {
		return nil
	}
	if cap(b.buf) > textBlockSize {
		b.buf = nil // grown for a long line: not kept
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, textBlockSize)
	}
	*b = textBlock{buf: b.buf[:0], labels: b.labels[:0], ids: b.ids[:0], done: make(chan struct{})}
	return b
}

// produce cuts src, whose first line is line and first record row, into blocks of whole
// lines, numbered, for the workers and for consume. It ends at the text's end, at a
// failure to read (the block's readErr, after its whole lines, which the serial reader
// reads first too), or when consume is done.
func (p *threadedRows) produce(src io.Reader, line, row int) {
	defer close(p.jobs)
	defer close(p.pending)
	var carry []byte // the unfinished line at the end of the last block
	for {
		b := p.acquire()
		if b == nil {
			return
		}
		buf, err := readBlock(src, append(b.buf, carry...))
		cut := len(buf)
		if !errors.Is(err, io.EOF) {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		b.buf, b.line, b.row = buf[:cut], line, row
		lines, rows := countRecords(b.buf, p.comma)
		b.rows = rows
		line, row = line+lines, row+rows
		if err != nil && !errors.Is(err, io.EOF) {
			b.readErr = err
		}
		p.pending <- b
		p.jobs <- b
		if err != nil {
			return
		}
	}
}

// readBlock reads src on into buf, up to its capacity, and past it until buf holds a
// newline (a line longer than a block); it returns early at src's end (io.EOF) or a
// failure.
func readBlock(src io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			if bytes.IndexByte(buf, '\n') >= 0 {
				return buf, nil
			}
			buf = slices.Grow(buf, cap(buf))
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			return buf, err
		}
	}
}

// nextLine cuts b's first line, without its newline, from the rest.
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// countRecords counts the lines of b and the records (plainRecord) among them.
func countRecords(b []byte, comma byte) (lines, records int) {
	for len(b) > 0 {
		var l []byte
		l, b = nextLine(b)
		lines++
		if _, ok := plainRecord(l, comma); ok {
			records++
		}
	}
	return lines, records
}

// work parses the blocks it is handed, until there are none.
func (p *threadedRows) work() {
	var fields []string
	var starts []int
	spare := make([]float32, len(p.t.ro.features)) // for rows past the table's end
	for b := range p.jobs {
		if !p.stopped() {
			fields, starts = p.parse(b, fields, starts, spare)
		}
		close(b.done)
	}
}

// parse reads block b's records as csvRows.add does: their values into the table (into
// spare past its end), their label cells and ids into b, until the first bad row, whose
// error it keeps. fields and starts are room for a row's cells, returned for the next
// call.
func (p *threadedRows) parse(b *textBlock, fields []string, starts []int, spare []float32) ([]string, []int) {
	t, d := p.t, len(spare)
	row := b.row
	for rest, line := b.buf, b.line; len(rest) > 0; line++ {
		var l []byte
		l, rest = nextLine(rest)
		l, ok := plainRecord(l, p.comma)
		if !ok {
			continue
		}
		fields, starts = appendFields(fields[:0], starts[:0], l, unsafe.String(&l[0], len(l)), p.comma)
		if b.err = t.checkCells(fields, line); b.err != nil {
			break
		}
		dst := spare
		if row < p.rows {
			dst = t.x[row*d : (row+1)*d]
		}
		if j, err := t.parseFeatures(fields, dst); err != nil {
			b.err = t.cellError(line, j, err)
			break
		}
		if t.label >= 0 {
			b.labels = append(b.labels, labelCell{fields[t.label], line})
		}
		if t.ro.id >= 0 {
			b.ids = append(b.ids, strings.Clone(fields[t.ro.id]))
		}
		row++
	}
	return fields, starts
}

// consume takes the blocks in the file's order as they are parsed, meeting their
// labels, ids and errors where the serial reader would, and hands each back for use
// again. It returns the rows the table then holds, from first on.
func (p *threadedRows) consume(first int) (int, error) {
	rows := first
	for b := range p.pending {
		<-b.done
		for _, c := range b.labels {
			if err := p.t.addLabel(c.cell, c.line); err != nil {
				return 0, err
			}
		}
		p.t.ids = append(p.t.ids, b.ids...)
		if b.err != nil {
			return 0, b.err
		}
		if b.readErr != nil {
			return 0, csvParseError(b.readErr)
		}
		rows = b.row + b.rows
		p.free <- b
	}
	return rows, nil
}
