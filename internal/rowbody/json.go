package rowbody

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unsafe"
)

// maxToken bounds a number's bytes and maxString a string's (a key, an ignored id): a
// longer one is refused rather than buffered.
const (
	maxToken  = 128
	maxString = 4096
)

// jsonReader reads {"rows": [row, …]} where a row is [v1, …, vD] or {"name": v, …}.
type jsonReader struct {
	r     *bufio.Reader
	c     Columns
	idx   map[string]int // objects' keys; built at the first object
	texts map[string]textColumn
	seen  []bool
	ids   []string // the ids of the rows the last Next gave ("" for none); nil without an id column
	id    *string  // the current object's id, where it has one
	sawID bool     // a row of the body had an id
	state int      // 0 before "rows", 1 in it, 2 after it
	row   int      // rows read
	tok   []byte
	err   error // the first error, returned again by every later call
}

// NewJSON reads the JSON body r: an object whose one field "rows" is an array of rows,
// each an array of c.D numbers or an object with a number for each of c.Names (and any
// value for a name in c.Ignore).
func NewJSON(r io.Reader, c Columns) Reader {
	br := buffers.Get().(*bufio.Reader)
	br.Reset(r)
	j := &jsonReader{r: br, c: c, tok: make([]byte, 0, maxToken)}
	if c.HasID {
		j.ids = make([]string, 0, 64)
	}
	return j
}

// buffers are the JSON readers' 64 KiB buffers, each back in the pool once its reader
// has given its last rows or its error: a request of one row took a new 64 KiB buffer,
// and thousands of them a second kept the collector busy and the latency's tail long.
var buffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func (j *jsonReader) Next(x []float32) (int, error) {
	if j.err != nil {
		return 0, j.err
	}
	n, err := j.next(x)
	if err != nil && err != io.EOF {
		j.err = err
	}
	if err != nil && j.r != nil { // the last call that reads: the buffer goes back
		j.r.Reset(nil)
		buffers.Put(j.r)
		j.r = nil
	}
	return n, err
}

func (j *jsonReader) IDs() []string {
	if !j.sawID {
		return nil
	}
	return j.ids
}

func (j *jsonReader) next(x []float32) (int, error) {
	d := j.c.D
	if j.ids != nil {
		j.ids = j.ids[:0]
	}
	if d < 1 || len(x) < d {
		panic("rowbody: a buffer smaller than one row")
	}
	if j.state == 0 {
		if err := j.open(); err != nil {
			return 0, err
		}
		j.state = 1
	}
	if j.state == 2 {
		return 0, io.EOF
	}
	n := 0
	for (n+1)*d <= len(x) {
		b, err := j.skip()
		if err != nil {
			return n, j.cut(err)
		}
		if b == ']' {
			j.state = 2
			if err := j.close(); err != nil {
				return n, err
			}
			if j.row == 0 {
				return 0, &Error{Msg: `"rows" is an empty array`, Kind: ErrEmpty}
			}
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		if j.row > 0 {
			if b != ',' {
				return n, j.syntax(fmt.Sprintf("after row %d: want , or ] but found %s", j.row, show(b)))
			}
			if b, err = j.skip(); err != nil {
				return n, j.cut(err)
			}
		}
		j.row++
		row := x[n*d : (n+1)*d]
		switch b {
		case '[':
			err = j.array(row)
		case '{':
			err = j.object(row)
		default:
			err = &Error{Row: j.row, Msg: fmt.Sprintf("want an array or an object, found %s", show(b)), Kind: ErrSyntax}
		}
		if err != nil {
			return n, err
		}
		if allMissing(row) {
			return n, &Error{Row: j.row, Msg: "every value is null: nothing to score", Kind: ErrValue}
		}
		if j.ids != nil {
			id := ""
			if j.id != nil {
				id, j.id = *j.id, nil
			}
			j.ids = append(j.ids, id)
		}
		n++
	}
	return n, nil
}

// allMissing reports whether every value of row is missing (NaN, a null).
func allMissing(row []float32) bool {
	for _, v := range row {
		if v == v {
			return false
		}
	}
	return true
}

// open reads up to the "rows" array's '['.
func (j *jsonReader) open() error {
	b, err := j.skip()
	if err == io.EOF {
		return &Error{Msg: `empty body: want {"rows": [[…], …]}`, Kind: ErrEmpty}
	}
	if err != nil {
		return j.cut(err)
	}
	if b != '{' {
		return j.syntax(fmt.Sprintf(`want an object {"rows": […]}, found %s`, show(b)))
	}
	if b, err = j.skip(); err != nil {
		return j.cut(err)
	}
	if b == '}' {
		return &Error{Msg: `no "rows" in the body`, Kind: ErrEmpty}
	}
	if err := j.key(b, "rows"); err != nil {
		return err
	}
	if b, err = j.skip(); err != nil {
		return j.cut(err)
	}
	if b != '[' {
		return j.syntax(fmt.Sprintf(`"rows" must be an array, found %s`, show(b)))
	}
	return nil
}

// key reads the field name that starts with b and its ':', refusing any other name
// than want.
func (j *jsonReader) key(b byte, want string) error {
	if b != '"' {
		return j.syntax(fmt.Sprintf("want a field name, found %s", show(b)))
	}
	k, err := j.str()
	if err != nil {
		return err
	}
	if k != want {
		return j.syntax(fmt.Sprintf("unknown field %.60q: the body's one field is %q", k, want))
	}
	if b, err = j.skip(); err != nil {
		return j.cut(err)
	}
	if b != ':' {
		return j.syntax(fmt.Sprintf("want : after %q, found %s", k, show(b)))
	}
	return nil
}

// close reads what follows the rows' ']': the object's '}' and the end of the body.
func (j *jsonReader) close() error {
	b, err := j.skip()
	if err != nil {
		return j.cut(err)
	}
	if b == ',' {
		if b, err = j.skip(); err != nil {
			return j.cut(err)
		}
		if b != '"' {
			return j.syntax(fmt.Sprintf("want a field name, found %s", show(b)))
		}
		k, err := j.str()
		if err != nil {
			return err
		}
		if k == "rows" {
			return j.syntax(`the field "rows" twice`)
		}
		return j.syntax(fmt.Sprintf(`unknown field %.60q: the body's one field is "rows"`, k))
	}
	if b != '}' {
		return j.syntax(fmt.Sprintf("want } after the rows, found %s", show(b)))
	}
	if b, err = j.skip(); err != io.EOF {
		if err != nil {
			return j.cut(err)
		}
		return j.syntax(fmt.Sprintf("%s after the body's object", show(b)))
	}
	return nil
}

// array reads a row's values after its '['.
func (j *jsonReader) array(row []float32) error {
	if j.arrayBuffered(row) {
		return nil
	}
	d := len(row)
	b, err := j.skip()
	for k := 0; ; k++ {
		if err != nil {
			return j.cut(err)
		}
		if b == ']' {
			if k == d {
				return nil
			}
			return &Error{Row: j.row, Msg: fmt.Sprintf("%d values: the model takes %d columns", k, d), Kind: ErrColumns}
		}
		if k > 0 {
			if b != ',' {
				return &Error{Row: j.row, Msg: fmt.Sprintf("want , or ] after value %d, found %s", k, show(b)), Kind: ErrSyntax}
			}
			if b, err = j.skip(); err != nil {
				return j.cut(err)
			}
		}
		if k == d {
			return &Error{Row: j.row, Msg: fmt.Sprintf("more than %d values: the model takes %d columns", d, d), Kind: ErrColumns}
		}
		if row[k], err = j.value(b, k); err != nil {
			return err
		}
		b, err = j.skip()
	}
}

// arrayBuffered reads a row's values after its '[' straight from the reader's buffer, in
// one pass, where the whole row is in it and is what a row should be: d numbers, each a
// JSON number within float32's range, commas between, white space anywhere. Anything
// else (a row cut by the buffer's end, a string, a bad number, too few or too many values)
// consumes nothing and returns false, and array reads the row byte by byte, with its
// errors. Reading every byte through the bufio.Reader, and each number three times (its
// end, its grammar, its value), cost about 170 ns a number, the larger part of a
// 1,000-row request's cost.
func (j *jsonReader) arrayBuffered(row []float32) bool {
	buf, _ := j.r.Peek(j.r.Buffered())
	space := func(i int) int {
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t') {
			i++
		}
		return i
	}
	i := space(0)
	for k := 0; ; k++ {
		if i == len(buf) {
			return false
		}
		if buf[i] == ']' {
			if k != len(row) {
				return false
			}
			j.r.Discard(i + 1)
			return true
		}
		if k > 0 {
			if buf[i] != ',' {
				return false
			}
			if i = space(i + 1); i == len(buf) {
				return false
			}
		}
		if k == len(row) {
			return false
		}
		if v, n, ok := exactFloat(buf[i:]); ok && n <= maxToken {
			row[k] = v
			i = space(i + n)
			continue
		}
		start := i
		for i < len(buf) && numberByte(buf[i]) {
			i++
		}
		tok := buf[start:i]
		if i == len(buf) || len(tok) == 0 || len(tok) > maxToken || !jsonNumber(tok) {
			return false
		}
		v, msg := parseValue(unsafe.String(&tok[0], len(tok)))
		if msg != "" {
			return false
		}
		row[k] = v
		i = space(i)
	}
}

// eightDigits is the value of b's first eight bytes where they are all ASCII digits,
// read in one 64-bit word (Lemire's SWAR: "Number Parsing at a Gigabyte per Second").
func eightDigits(b []byte) (uint64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(b)
	if (v&0xF0F0F0F0F0F0F0F0)|(((v+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4) != 0x3333333333333333 {
		return 0, false
	}
	const mask, mul1, mul2 = 0x000000FF000000FF, 0x000F424000000064, 0x0000271000000001
	v -= 0x3030303030303030
	v = v*10 + v>>8
	return ((v&mask)*mul1 + ((v>>16)&mask)*mul2) >> 32, true
}

// pow10 are the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat reads the JSON number at the start of b, in one pass, to the value
// strconv.ParseFloat gives it, narrowed to float32 as parseValue does, where it has at
// most 19 digits (leading zeros aside: they fit a uint64 exactly). At most 15 digits and a
// power of ten at most 22 either way take Clinger's fast path (one product or quotient of
// two exact float64s is correctly rounded); the others the Eisel–Lemire algorithm
// (eiselLemire64), as strconv itself does once its general reader has read the digits,
// which was most of a 1,000-row request's cost. n is the number's bytes. ok is false for
// a number with more digits, one the algorithm cannot decide, one beyond float32's range,
// one that breaks JSON's grammar, and one that runs to b's end or into another byte of a
// number ("1.5.2"): the caller then reads it the long way, with its errors.
func exactFloat(b []byte) (v float32, n int, ok bool) {
	i, neg := 0, false
	if i < len(b) && b[i] == '-' {
		i, neg = 1, true
	}
	var mant uint64
	digits, exp := 0, 0
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if digits++; digits > 19 {
				return 0, 0, false
			}
			mant = mant*10 + uint64(b[i]-'0')
		}
	default:
		return 0, 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if mant != 0 && digits <= 11 {
				if e8, ok := eightDigits(b[i:]); ok { // a float64's 17 digits: two loads, not 16 steps
					mant = mant*100000000 + e8
					digits += 8
					exp -= 8
					i += 7
					continue
				}
			}
			exp--
			if mant == 0 && b[i] == '0' {
				continue
			}
			if digits++; digits > 19 {
				return 0, 0, false
			}
			mant = mant*10 + uint64(b[i]-'0')
		}
		if i == start {
			return 0, 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		start, e := i, 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if e > 1000 {
				return 0, 0, false
			}
			e = e*10 + int(b[i]-'0')
		}
		if i == start {
			return 0, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i == len(b) || numberByte(b[i]) {
		return 0, 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
		if neg {
			f = -f
		}
	case digits <= 15 && exp >= 0 && exp <= 22:
		if f *= pow10[exp]; neg {
			f = -f
		}
	case digits <= 15 && exp < 0 && exp >= -22:
		if f /= pow10[-exp]; neg {
			f = -f
		}
	default:
		if f, ok = eiselLemire64(mant, exp, neg); !ok {
			return 0, 0, false
		}
	}
	v = float32(f)
	if math.IsInf(float64(v), 0) {
		return 0, 0, false
	}
	return v, i, true
}

// object reads a row's fields after its '{'.
func (j *jsonReader) object(row []float32) error {
	if j.c.Names == nil {
		return &Error{Row: j.row, Msg: "the model was trained on unnamed columns: send each row as an array of numbers", Kind: ErrColumns}
	}
	if j.idx == nil {
		j.idx, j.texts, j.seen = j.c.index(), j.c.texts(), make([]bool, j.c.D)
	}
	clear(j.seen)
	b, err := j.skip()
	for k := 0; ; k++ {
		if err != nil {
			return j.cut(err)
		}
		if b == '}' {
			break
		}
		if k > 0 {
			if b != ',' {
				return &Error{Row: j.row, Msg: fmt.Sprintf("want , or } after field %d, found %s", k, show(b)), Kind: ErrSyntax}
			}
			if b, err = j.skip(); err != nil {
				return j.cut(err)
			}
		}
		if err := j.field(b, row); err != nil {
			return err
		}
		b, err = j.skip()
	}
	var missing []string
	for p, ok := range j.seen {
		if !ok {
			missing = append(missing, j.c.Names[p])
		}
	}
	if len(missing) > 0 {
		return &Error{Row: j.row, Msg: fmt.Sprintf("missing column(s) %s", quoteList(missing, 5)), Kind: ErrColumns}
	}
	return nil
}

// field reads one field of an object row, whose first byte b was read, into row.
func (j *jsonReader) field(b byte, row []float32) error {
	if b != '"' {
		return &Error{Row: j.row, Msg: fmt.Sprintf("want a column name, found %s", show(b)), Kind: ErrSyntax}
	}
	name, err := j.str()
	if err != nil {
		return err
	}
	if b, err = j.skip(); err != nil {
		return j.cut(err)
	}
	if b != ':' {
		return &Error{Row: j.row, Msg: fmt.Sprintf("want : after %.60q, found %s", name, show(b)), Kind: ErrSyntax}
	}
	if b, err = j.skip(); err != nil {
		return j.cut(err)
	}
	pos, ok := j.idx[name]
	if t, text := j.texts[name]; text && !ok {
		return j.text(t, b, row)
	}
	switch {
	case !ok:
		return &Error{Row: j.row, Column: name, Msg: "the model has no such column", Kind: ErrColumns}
	case pos < 0 && j.c.HasID && name == j.c.ID:
		return j.idValue(b)
	case pos < 0:
		_, err := j.scalar(b, name, "an ignored column")
		return err
	case j.seen[pos]:
		return &Error{Row: j.row, Column: name, Msg: "named twice", Kind: ErrColumns}
	}
	j.seen[pos] = true
	row[pos], err = j.value(b, pos)
	return err
}

// text reads the value of text column t, which starts with b (a string, or null for a
// missing cell), and writes its encoded inputs into row.
func (j *jsonReader) text(t textColumn, b byte, row []float32) error {
	var cell string
	switch b {
	case '"':
		s, err := j.str()
		if err != nil {
			return err
		}
		cell = s
	case 'n':
		w, err := j.literal(b)
		if err != nil {
			return err
		}
		if w != "null" {
			return &Error{Row: j.row, Column: t.enc.Name(), Msg: w + " is not a text or null", Kind: ErrValue}
		}
	default:
		return &Error{Row: j.row, Column: t.enc.Name(), Msg: fmt.Sprintf("want a text (a string) or null, found %s", show(b)), Kind: ErrValue}
	}
	for p := t.off; p < t.off+t.enc.Width(); p++ {
		if j.seen[p] {
			return &Error{Row: j.row, Column: t.enc.Name(), Msg: "named twice, or with its encoded inputs", Kind: ErrColumns}
		}
		j.seen[p] = true
	}
	return t.encode(cell, row, j.row)
}

// value reads the number that starts with b, in input col (-1: an ignored column).
func (j *jsonReader) value(b byte, col int) (float32, error) {
	name := func() (string, int) {
		if col < 0 {
			return "", 0
		}
		return j.c.column(col), col + 1
	}
	bad := func(msg string) (float32, error) {
		c, i := name()
		return 0, &Error{Row: j.row, Column: c, Index: i, Msg: msg, Kind: ErrValue}
	}
	switch {
	case b == '-' || (b >= '0' && b <= '9'):
		tok, err := j.number(b)
		if err != nil {
			return 0, err
		}
		if len(tok) > maxToken {
			return bad(fmt.Sprintf("a number longer than %d bytes", maxToken))
		}
		if !jsonNumber(tok) {
			return bad(fmt.Sprintf("%.40q is not a JSON number", tok))
		}
		v, msg := parseValue(unsafe.String(&tok[0], len(tok)))
		if msg != "" {
			return bad(msg)
		}
		return v, nil
	case b == '"':
		s, err := j.str()
		if err != nil {
			return 0, err
		}
		return bad(fmt.Sprintf("the string %.40q is not a number", s))
	case b == 'n' || b == 't' || b == 'f':
		w, err := j.literal(b)
		if err != nil {
			return 0, err
		}
		if w == "null" { // a missing value, imputed as the model was fitted
			return float32(math.NaN()), nil
		}
		return bad(w + " is not a number")
	case b == '[' || b == '{':
		return bad("a nested array or object is not a number")
	}
	c, i := name()
	return 0, &Error{Row: j.row, Column: c, Index: i, Msg: fmt.Sprintf("want a number, found %s", show(b)), Kind: ErrSyntax}
}

// number reads the bytes of a number whose first byte b was read: from the reader's
// buffer where the number ends within it (the bytes are valid until the next read),
// else copied into j.tok, at most maxToken+1 of them.
func (j *jsonReader) number(b byte) ([]byte, error) {
	if buf, _ := j.r.Peek(j.r.Buffered()); len(buf) > 0 {
		k := 0
		for k < len(buf) && numberByte(buf[k]) {
			k++
		}
		if k < len(buf) {
			// j.r.UnreadByte puts b back in front of buf: the token is contiguous.
			if err := j.r.UnreadByte(); err == nil {
				tok, _ := j.r.Peek(k + 1)
				j.r.Discard(k + 1)
				return tok, nil
			}
		}
	}
	j.tok = append(j.tok[:0], b)
	for len(j.tok) <= maxToken {
		c, err := j.r.ReadByte()
		if err != nil {
			return nil, j.cut(err)
		}
		if !numberByte(c) {
			j.r.UnreadByte()
			break
		}
		j.tok = append(j.tok, c)
	}
	return j.tok, nil
}

// numberByte reports whether c may be part of a JSON number.
func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'
}

// jsonNumber reports whether b follows JSON's number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func jsonNumber(b []byte) bool {
	i := 0
	digits := func() int {
		k := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - k
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// idValue reads the id column's value, a string, number or literal, as the row's id.
func (j *jsonReader) idValue(b byte) error {
	id, err := j.scalar(b, j.c.ID, "the id")
	if err != nil {
		return err
	}
	j.id, j.sawID = &id, true
	return nil
}

// scalar reads a value that is a number, a string or a literal, and returns its text:
// a string's decoded, a number's token, "" for null. column and what name the value in
// the error of any other.
func (j *jsonReader) scalar(b byte, column, what string) (string, error) {
	switch {
	case b == '"':
		return j.str()
	case b == 'n' || b == 't' || b == 'f':
		w, err := j.literal(b)
		if w == "null" {
			w = ""
		}
		return w, err
	case b == '-' || (b >= '0' && b <= '9'):
		tok, err := j.number(b)
		if err != nil {
			return "", err
		}
		if len(tok) > maxToken || !jsonNumber(tok) {
			return "", &Error{Row: j.row, Column: column, Msg: what + " is not a JSON number, string or literal", Kind: ErrSyntax}
		}
		return string(tok), nil
	}
	return "", &Error{Row: j.row, Column: column, Msg: fmt.Sprintf("%s holds %s: want a number, a string or a literal", what, show(b)), Kind: ErrSyntax}
}

// literal reads null, true or false, whose first byte b was read.
func (j *jsonReader) literal(b byte) (string, error) {
	want := map[byte]string{'n': "null", 't': "true", 'f': "false"}[b]
	for i := 1; i < len(want); i++ {
		c, err := j.r.ReadByte()
		if err != nil {
			return "", j.cut(err)
		}
		if c != want[i] {
			return "", j.syntax(fmt.Sprintf("want %s, found %s", want, show(c)))
		}
	}
	return want, nil
}

// str reads a string after its opening quote and decodes its escapes.
func (j *jsonReader) str() (string, error) {
	buf := []byte{'"'}
	escaped := false
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return "", j.cut(err)
		}
		if len(buf) > maxString {
			return "", j.syntax(fmt.Sprintf("a string longer than %d bytes", maxString))
		}
		buf = append(buf, c)
		switch {
		case c < 0x20:
			return "", j.syntax("a control character in a string")
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			if !bytes.Contains(buf, []byte{'\\'}) {
				return string(buf[1 : len(buf)-1]), nil
			}
			var s string
			if err := json.Unmarshal(buf, &s); err != nil {
				return "", j.syntax(fmt.Sprintf("a string: %v", err))
			}
			return s, nil
		}
	}
}

// skip returns the next byte that is not white space.
func (j *jsonReader) skip() (byte, error) {
	for {
		b, err := j.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\n' && b != '\r' && b != '\t' {
			return b, nil
		}
	}
}

// at is the row a syntax error is in: the row being read, 0 outside the rows.
func (j *jsonReader) at() int {
	if j.state == 1 {
		return j.row
	}
	return 0
}

func (j *jsonReader) syntax(msg string) error {
	return &Error{Row: j.at(), Msg: msg, Kind: ErrSyntax}
}

// cut is the error of a read that failed: the body's end where more was due, or the
// body's own error (a size limit, a deadline) wrapped.
func (j *jsonReader) cut(err error) error {
	if errors.Is(err, io.EOF) {
		return &Error{Row: j.at(), Msg: "the body ends before its JSON does", Kind: ErrSyntax}
	}
	return fmt.Errorf("reading the body: %w", err)
}

// show quotes a byte found where another was wanted.
func show(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return fmt.Sprintf("%q", rune(b))
	}
	return fmt.Sprintf("byte 0x%02x", b)
}

// quoteList quotes up to n names (each to 80 bytes), saying how many more there are.
func quoteList(names []string, n int) string {
	q := make([]string, 0, n)
	for _, s := range names[:min(n, len(names))] {
		q = append(q, fmt.Sprintf("%.80q", s))
	}
	out := strings.Join(q, ", ")
	if len(names) > n {
		out += fmt.Sprintf(" and %d more", len(names)-n)
	}
	return out
}
