package ldbind

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	out := []byte("      9209:\tbinding file /lib/x/libgdal.so.32 [0] to /lib/x/libxerces-c-3.2.so [0]: normal symbol `_ZN11xercesc_3_26XMLUni9fgZeroLenStrE'\n" +
		"      9209:\tbinding file lib/.order/libudocc_torch.so [0] to /lib/x/libc.so.6 [0]: normal symbol `malloc' [GLIBC_2.2.5]\n" +
		"      9209:\tsomething else\n" +
		"      9209:\tbinding file /tmp/p/probe [0] to /lib/x/libfoo.so [0]: protected symbol `bar'\n")
	got := Parse(out, map[string]string{"/tmp/p/probe": "PROBE"})
	want := []Binding{
		{"/lib/x/libgdal.so.32", "_ZN11xercesc_3_26XMLUni9fgZeroLenStrE", "/lib/x/libxerces-c-3.2.so"},
		{Shim, "malloc", "/lib/x/libc.so.6"},
		{"PROBE", "bar", "/lib/x/libfoo.so"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse:\n got %v\nwant %v", got, want)
	}
}
