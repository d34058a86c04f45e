package bench

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runChild is the process TestKillResume kills: it runs the tiny grid and, once its
// first group's lines are written, stops inside the second group's first fine-tuning
// epoch, creates the marker and waits to be killed. It exits 3 if the grid finishes.
func runChild(dataDir, out, marker string) int {
	testHookEpoch = func(written int) {
		if written > 0 {
			os.WriteFile(marker, nil, 0o644)
			time.Sleep(time.Minute)
		}
	}
	if _, err := Run(context.Background(), tinyOptions(dataDir, out)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 3
}

// TestKillResume runs the tiny grid in a child process, kills it with SIGKILL while its
// second group trains, tears the last line as a kill mid-write would, resumes the grid
// here and checks that every run is in the file exactly once, that the resumed session
// trained only the missing runs, and that their numbers match a grid trained run by run.
func TestKillResume(t *testing.T) {
	dataDir, out := tinyData(t), t.TempDir()
	killInSecondGroup(t, dataDir, out)
	path := filepath.Join(out, ResultsFile)
	killed, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(killed.Lines) != 4 || len(killed.Bad) != 0 {
		t.Fatalf("after the kill: %d lines, %d bad; want alpha's 4 and no bad line", len(killed.Lines), len(killed.Bad))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"dataset":"beta","method":"oc","se`) // a line torn mid-write
	f.Close()

	o := tinyOptions(dataDir, out)
	res := checkResumed(t, o, path)
	t.Run("same numbers as run by run", func(t *testing.T) { checkRunByRun(t, dataDir, res.Lines) })
	t.Run("two jobs in seed groups", func(t *testing.T) { checkSeedGroups(t, dataDir) })
	t.Run("new config retrains", func(t *testing.T) { checkNewConfig(t, o, path) })
}

// killInSecondGroup runs the tiny grid into out in a child process and kills it with
// SIGKILL once it trains its second group.
func killInSecondGroup(t *testing.T, dataDir, out string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "in-second-group")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childData+"="+dataDir, childOut+"="+out, childMarker+"="+marker)
	var stderr strings.Builder
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.After(45 * time.Second)
wait:
	for {
		select {
		case err := <-exited:
			t.Fatalf("the child ended before it was killed: %v\n%s", err, stderr.String())
		case <-deadline:
			child.Process.Kill()
			t.Fatalf("the child never reached its second group\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
			if _, err := os.Stat(marker); err == nil {
				break wait
			}
		}
	}
	if err := child.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited
}

// checkResumed resumes the killed grid o, whose results file path ends in a torn line,
// and checks that it trained only the missing runs, in a second session, and that its
// report tells of the torn line and the killed session; it returns the results.
func checkResumed(t *testing.T, o Options, path string) *Results {
	t.Helper()
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Planned != 8 || sum.Skipped != 4 || sum.Trained != 4 || sum.Failed != 0 {
		t.Errorf("resumed session: %+v, want 8 planned, 4 skipped, 4 trained, 0 failed", *sum)
	}
	res, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Bad) != 1 || res.Bad[0] != 5 {
		t.Errorf("unreadable lines %v, want the torn line 5 only", res.Bad)
	}
	checkOnce(t, res.Lines, o)
	sessions, err := ReadSessions(filepath.Join(o.Out, SessionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 2 || sessions[0].End != nil || sessions[0].Trained != 4 || sessions[1].End == nil || sessions[1].Trained != 4 {
		t.Errorf("sessions %+v: want a killed one that wrote 4 lines, then a finished one that wrote 4", sessions)
	}
	for _, l := range res.Lines {
		want := sessions[0].ID
		if l.Dataset == "beta" {
			want = sessions[1].ID
		}
		if l.Session != want {
			t.Errorf("%v trained by session %s, want %s", l.Key(), l.Session, want)
		}
	}
	report, err := os.ReadFile(filepath.Join(o.Out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "1 unreadable (lines 5:") || !strings.Contains(string(report), "killed") {
		t.Errorf("the report does not mention the torn line and the killed session")
	}
	return res
}

// checkRunByRun checks that lines have the numbers of the tiny grid trained run by run.
func checkRunByRun(t *testing.T, dataDir string, lines []Line) {
	alone := tinyOptions(dataDir, t.TempDir())
	alone.Group = GroupRun
	if _, err := Run(context.Background(), alone); err != nil {
		t.Fatal(err)
	}
	ref, err := ReadResults(filepath.Join(alone.Out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[Key]Line{}
	for _, l := range ref.Lines {
		byKey[l.Key()] = l
	}
	for _, l := range lines {
		r, ok := byKey[l.Key()]
		if !ok {
			t.Fatalf("%v: not in the run-by-run grid", l.Key())
		}
		if math.Abs(float64(l.ROCAUC-r.ROCAUC)) > 1e-3 || math.Abs(float64(l.PRAUC-r.PRAUC)) > 1e-3 {
			t.Errorf("%v: ROCAUC %.6f PRAUC %.6f, run alone %.6f %.6f", l.Key(), l.ROCAUC, l.PRAUC, r.ROCAUC, r.PRAUC)
		}
	}
}

// checkSeedGroups checks the tiny grid trained by two jobs in groups of one seed.
func checkSeedGroups(t *testing.T, dataDir string) {
	par := tinyOptions(dataDir, t.TempDir())
	par.Jobs, par.Group = 2, GroupSeed
	sum, err := Run(context.Background(), par)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(filepath.Join(par.Out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, got.Lines, par)
	if sum.Trained != 8 || len(got.Bad) != 0 {
		t.Errorf("%+v, %d bad lines; want 8 trained and none bad", *sum, len(got.Bad))
	}
	for _, l := range got.Lines {
		if l.Timing.GroupSize != 2 || l.Timing.GroupSeeds != 1 {
			t.Errorf("%v: group of %d members and %d seeds, want 2 and 1", l.Key(), l.Timing.GroupSize, l.Timing.GroupSeeds)
		}
	}
}

// checkNewConfig checks that the grid o, whose results are in path, trains every run
// again with another number of epochs, and that the report counts the old lines as
// superseded.
func checkNewConfig(t *testing.T, o Options, path string) {
	o.Train.Epochs = 3
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped != 0 || sum.Trained != 8 {
		t.Errorf("with 3 epochs: %+v, want nothing skipped and 8 trained", *sum)
	}
	res, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	var now []Line
	for _, l := range res.Lines {
		if l.Config.Epochs == 3 {
			now = append(now, l)
		}
	}
	checkOnce(t, now, o)
	rep := collect(res, nil)
	if rep.superseded != 8 {
		t.Errorf("report: %d superseded lines, want the 8 of 4 epochs", rep.superseded)
	}
}

// checkOnce checks that lines hold every run of o's grid exactly once.
func checkOnce(t *testing.T, lines []Line, o Options) {
	t.Helper()
	count := map[string]int{}
	keys := map[Key]int{}
	for _, l := range lines {
		count[fmt.Sprintf("%s/%s/%d", l.Dataset, l.Method, l.Seed)]++
		keys[l.Key()]++
	}
	for _, ds := range o.Datasets {
		for _, m := range o.Methods {
			for _, s := range o.Seeds {
				if c := count[fmt.Sprintf("%s/%s/%d", ds, m, s)]; c != 1 {
					t.Errorf("%s %s seed %d: %d lines, want 1", ds, m, s, c)
				}
			}
		}
	}
	if len(lines) != len(o.Datasets)*len(o.Methods)*len(o.Seeds) || len(keys) != len(lines) {
		t.Errorf("%d lines with %d distinct keys, want %d of each", len(lines), len(keys), len(o.Datasets)*len(o.Methods)*len(o.Seeds))
	}
}
