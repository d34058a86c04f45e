package data

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Setting is a LoadOptions field, and the value it would take, that a refusal or a
// note names as its remedy. Field is the field's path in LoadOptions:
// "Selection.Drop", "Selection.DropText", "Selection.ID", "LabelColumn", "Positive",
// "Missing", "Header", "Delimiter" or "Decimal". Values are its value as text: the
// columns for Selection.Drop, one value for the others (a Missing or Header as its
// constant's value, a rune as its character). No Values: the field without a value.
type Setting struct {
	Field  string
	Values []string
}

// GoSetting spells s as a Go program sets it: LoadOptions.Missing = data.MissingKeep.
func GoSetting(s Setting) string {
	field := "LoadOptions." + s.Field
	if len(s.Values) == 0 {
		return field
	}
	v := s.Values[0]
	switch s.Field {
	case "Selection.Drop":
		return field + " = " + fmt.Sprintf("%#v", s.Values)
	case "Missing":
		return field + " = data." + map[Missing]string{MissingKeep: "MissingKeep", MissingDropRows: "MissingDropRows", MissingError: "MissingError"}[Missing(v)]
	case "Header":
		return field + " = data." + map[Header]string{HeaderYes: "HeaderYes", HeaderNo: "HeaderNo", HeaderAuto: "HeaderAuto"}[Header(v)]
	case "Delimiter", "Decimal":
		r, _ := utf8.DecodeRuneInString(v)
		return field + " = " + strconv.QuoteRune(r)
	}
	return field + " = " + strconv.Quote(v)
}

// setting is the Setting of field with values.
func setting(field string, values ...string) Setting { return Setting{Field: field, Values: values} }

// Remedy is a text that names LoadOptions settings: its parts are strings and
// Settings, in order. String spells the settings as Go does; Render as a caller does
// (the udocc command: as its flags).
type Remedy struct {
	parts []any
}

// remedy is the Remedy of parts, each a string or a Setting.
func remedy(parts ...any) Remedy { return Remedy{parts: parts} }

// Settings are the settings r names, in order.
func (r Remedy) Settings() []Setting {
	var out []Setting
	for _, p := range r.parts {
		if s, ok := p.(Setting); ok {
			out = append(out, s)
		}
	}
	return out
}

// Render is r's text with each setting spelled by spell.
func (r Remedy) Render(spell func(Setting) string) string {
	var b strings.Builder
	for _, p := range r.parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case Setting:
			b.WriteString(spell(p))
		}
	}
	return b.String()
}

func (r Remedy) String() string { return r.Render(GoSetting) }

// RemedyError is a refusal of a table that LoadOptions settings would avoid. Its text
// is Remedy's, spelled as Go does; errors.Is and errors.As see Err, the refusal's
// sentinel (ErrFormat, ErrLabel, ErrMissingValue, …).
type RemedyError struct {
	Remedy Remedy
	Err    error
}

func (e *RemedyError) Error() string { return e.Remedy.String() }

func (e *RemedyError) Unwrap() error { return e.Err }

// remedyError is the RemedyError of err whose text is parts and then ": " and err's.
func remedyError(err error, parts ...any) *RemedyError {
	return &RemedyError{Remedy: remedy(append(parts, ": "+err.Error())...), Err: err}
}
