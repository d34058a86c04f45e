package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular reports a path that is not a regular file (or a symbolic link to one).
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading and returns it with its FileInfo when it is a regular
// file, following symbolic links. The open itself never blocks: it is made with
// O_NONBLOCK, which a named pipe with no writer would otherwise wait on, and the kind of
// file is read from the open descriptor, so a name swapped between a check and the open
// cannot slip a device through.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is %s, %w", path, kind(st.Mode()), ErrNotRegular)
	}
	return f, st, nil
}

// ReadFile reads the regular file path whole, refusing, before reading a byte, one that
// is not regular or holds more than max bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d expected", path, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: grew past the %d bytes expected while it was read", path, max)
	}
	return b, nil
}

// kind names what a file that is not regular is, for an error.
func kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a folder"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
