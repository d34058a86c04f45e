package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// processT0 is when the udocc process started (processStart), set by main; zero where
// the commands run inside another program (the tests), whose start is not theirs.
var processT0 time.Time

// userHZ is the unit of /proc's clock ticks (USER_HZ), 100 on every Linux architecture
// the kernel ABI names.
const userHZ = 100

// processStart is when this process started, from /proc (the kernel's start time of the
// process against the system's uptime, to 10 ms): before the dynamic loader mapped
// libtorch's libraries and ran their initialisers, which take about half a second of a
// small fit (bench/notes/cost.md). ok is false where /proc does not say.
func processStart(now time.Time) (start time.Time, ok bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return time.Time{}, false
	}
	// Fields after the command name, which is in parentheses and may hold spaces: the
	// state is field 3, the start time (ticks after boot) field 22.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, false
	}
	f := strings.Fields(string(up))
	if len(f) == 0 {
		return time.Time{}, false
	}
	uptime, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return time.Time{}, false
	}
	age := uptime - float64(ticks)/userHZ
	if age < 0 || age > 365*24*3600 {
		return time.Time{}, false
	}
	return now.Add(-time.Duration(age * float64(time.Second))), true
}
