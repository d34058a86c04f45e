package main

import (
	"github.com/spf13/pflag"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
)

// modelFlags are the flags of the commands that apply a saved model to one table, score
// and explain: the model, the table and how to read it, the device and where results go.
type modelFlags struct {
	model   string
	output  outputFlags
	input   inputFlags
	device  string
	threads int
	table   tableFlags
}

// addModelFlags declares the modelFlags; outHelp says what --out holds.
func addModelFlags(fs *pflag.FlagSet, f *modelFlags, outHelp string) {
	fs.StringVar(&f.model, "model", "", "saved model folder (the model/ folder that udocc fit wrote)")
	addOutputFlags(fs, &f.output, outHelp)
	addInputFlags(fs, &f.input)
	addDeviceFlags(fs, &f.device, &f.threads, usableCores())
	addTableFlags(fs, &f.table)
}

// check validates the parsed modelFlags and the one DATA argument.
func (f *modelFlags) check(fs *pflag.FlagSet) error {
	if f.model == "" {
		return usagef("--model is required")
	}
	if fs.NArg() != 1 {
		return usagef("want one DATA file, have %d arguments", fs.NArg())
	}
	if err := checkDevice(f.device); err != nil {
		return err
	}
	if err := checkThreads(f.threads); err != nil {
		return err
	}
	if err := f.input.check(); err != nil {
		return err
	}
	return f.table.check(f.output.json)
}

// open loads the model on its device and threads and reads DATA with the model's
// columns (openScored). The caller closes the model and removes the input.
func (f *modelFlags) open(fs *pflag.FlagSet) (*lib.Model, *input, *data.Dataset, error) {
	if err := deviceUsable(f.device); err != nil {
		return nil, nil, nil, err
	}
	f.table.threads = f.threads
	m, in, ds, err := openScored(fs, f.model, fs.Arg(0), f.device, f.input, f.table)
	if err != nil {
		return nil, nil, nil, err
	}
	m.SetThreads(f.threads)
	return m, in, ds, nil
}
