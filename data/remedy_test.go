package data

import (
	"errors"
	"strings"
	"testing"
)

// TestRemedyError checks that a refusal a setting would avoid names the setting as Go
// sets it, renders it another way on request, and is its sentinel to errors.Is.
func TestRemedyError(t *testing.T) {
	_, err := decodeCSV([]byte("a,b\n1,x\n2,y\n"), LoadOptions{})
	var re *RemedyError
	if !errors.As(err, &re) || !errors.Is(err, errNotNumeric) {
		t.Fatalf("%v: want a RemedyError that is errNotNumeric", err)
	}
	if !strings.Contains(err.Error(), `LoadOptions.Selection.Drop = []string{"b"}`) || !strings.Contains(err.Error(), "LoadOptions.Selection.DropText") {
		t.Errorf("%q: want the settings as Go sets them", err)
	}
	got := re.Remedy.Render(func(s Setting) string { return "<" + s.Field + ">" })
	if !strings.Contains(got, "<Selection.Drop>") || strings.Contains(got, "LoadOptions") {
		t.Errorf("rendered %q: want the caller's spelling", got)
	}
	if s := re.Remedy.Settings(); len(s) != 2 || s[0].Field != "Selection.Drop" || s[0].Values[0] != "b" || s[1].Field != "Selection.DropText" {
		t.Errorf("settings %+v", s)
	}
}
