package main

import (
	"context"
	"errors"
	"io"
)

func (s *reviewSession) serveWeb(ctx context.Context, port int, stdout, stderr io.Writer) error {
	return errors.New("--web: not built yet")
}
