package main

import (
	"errors"
	"strings"

	"github.com/udocc/udocc/data"
)

// flagSetting spells a LoadOptions setting that package data names as a remedy as the
// flag that sets it.
func flagSetting(s data.Setting) string {
	v := ""
	if len(s.Values) > 0 {
		v = s.Values[0]
	}
	switch s.Field {
	case "Selection.Drop":
		if len(s.Values) == 0 {
			return "--drop"
		}
		return "--drop " + strings.Join(data.ShowNames(s.Values), ",")
	case "Selection.DropText":
		return "--drop-text"
	case "Selection.ID":
		return "--id " + data.ShowName(v)
	case "LabelColumn":
		return "--label " + data.ShowName(v)
	case "Positive":
		return strings.TrimSpace("--positive " + v)
	case "Delimiter":
		return strings.TrimSpace("--delimiter " + v)
	case "Decimal":
		return "--decimal " + v
	case "Header":
		return "--header " + v
	case "Missing":
		switch data.Missing(v) {
		case data.MissingKeep:
			return "--missing impute"
		case data.MissingDropRows:
			return "--missing drop-rows"
		}
	}
	return data.GoSetting(s)
}

// withFlags is msg, the text of err, with the settings of a data.RemedyError in err
// spelled as flags.
func withFlags(msg string, err error) string {
	var re *data.RemedyError
	if errors.As(err, &re) {
		return strings.Replace(msg, re.Error(), re.Remedy.Render(flagSetting), 1)
	}
	return msg
}

// notesWithFlags are a table's notes, their settings spelled as flags.
func notesWithFlags(notes []data.Remedy) []string {
	var out []string
	for _, n := range notes {
		out = append(out, n.Render(flagSetting))
	}
	return out
}
