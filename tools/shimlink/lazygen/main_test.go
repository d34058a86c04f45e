package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestTableUpToDate checks that internal/torch/lazy_table.h is what lazygen writes from
// today's udocc_torch.h: a function added to the header and not to the table would be
// missing from every program that loads the shim at run time.
func TestTableUpToDate(t *testing.T) {
	src, err := os.ReadFile("../../../internal/torch/shim/udocc_torch.h")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Table(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../../internal/torch/lazy_table.h")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/torch/lazy_table.h is out of date: run go generate ./internal/torch")
	}
}

// TestTable checks the table of a small header: every declared function once, comments
// ignored, each result type's fallback, and the local function left out.
func TestTable(t *testing.T) {
	src := []byte(`/* int udocc_commented(void); */
int udocc_count(void);
char *udocc_make(const int64_t *sizes,
                 int n, udocc_group **out); // spans lines
void udocc_keep_freed_pages(void);
void udocc_close(udocc_group *g);
`)
	got, err := Table(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"LAZY(int, udocc_count, (void), (), { return 0; })\n",
		`LAZY(char *, udocc_make, (const int64_t *sizes, int n, udocc_group **out), (sizes, n, out), { return unloaded_error("udocc_make"); })` + "\n",
		"LAZYV(udocc_close, (udocc_group *g), (g), {  })\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"udocc_commented", "udocc_keep_freed_pages"} {
		if strings.Contains(string(got), absent) {
			t.Errorf("table has %s:\n%s", absent, got)
		}
	}
	if _, err := Table([]byte("int other(void);")); err == nil {
		t.Error("a header without udocc_ functions gave a table")
	}
}
