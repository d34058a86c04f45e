package main

import (
	"reflect"
	"testing"
)

func TestParseBindings(t *testing.T) {
	out := []byte("      9209:\tbinding file /lib/x/libgdal.so.32 [0] to /lib/x/libxerces-c-3.2.so [0]: normal symbol `_ZN11xercesc_3_26XMLUni9fgZeroLenStrE'\n" +
		"      9209:\tbinding file lib/.order/libudocc_torch.so [0] to /lib/x/libc.so.6 [0]: normal symbol `malloc' [GLIBC_2.2.5]\n" +
		"      9209:\tsomething else\n" +
		"      9209:\tbinding file /lib/x/libfoo.so [0] to /lib/x/libfoo.so [0]: protected symbol `bar'\n")
	got := parseBindings(out)
	want := []binding{
		{"/lib/x/libgdal.so.32", "_ZN11xercesc_3_26XMLUni9fgZeroLenStrE", "/lib/x/libxerces-c-3.2.so"},
		{"SHIM", "malloc", "/lib/x/libc.so.6"},
		{"/lib/x/libfoo.so", "bar", "/lib/x/libfoo.so"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseBindings:\n got %v\nwant %v", got, want)
	}
}

// The heaviest library goes first unless a constraint says otherwise, and a light
// library that must precede a heavy one is lifted to just before it.
func TestOrder(t *testing.T) {
	weight := map[string]int{"openblas": 900, "blas": 10, "xerces": 500, "geos": 300, "tiny": 1}
	got, err := order(weight, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"openblas", "xerces", "geos", "blas", "tiny"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order without constraints: got %v, want %v", got, want)
	}
	before := map[string]map[string]bool{"blas": {"openblas": true}, "tiny": {"geos": true}}
	got, err = order(weight, before)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"blas", "openblas", "xerces", "tiny", "geos"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("order with constraints: got %v, want %v", got, want)
	}
	// A constraint naming a library that is not a candidate is ignored.
	if _, err := order(weight, map[string]map[string]bool{"libc": {"blas": true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := order(weight, map[string]map[string]bool{"blas": {"tiny": true}, "tiny": {"blas": true}}); err == nil {
		t.Fatal("a cycle of constraints gave an order")
	}
}

func TestMoved(t *testing.T) {
	base := []binding{{"a", "sgemm_", "blas"}, {"b", "x", "xerces"}}
	if _, differ := moved(base, base); differ {
		t.Fatal("identical bindings differ")
	}
	pairs, differ := moved(base, []binding{{"a", "sgemm_", "openblas"}, {"b", "x", "xerces"}})
	if !differ || !reflect.DeepEqual(pairs, [][2]string{{"blas", "openblas"}}) {
		t.Fatalf("moved: %v %v", pairs, differ)
	}
	// A binding gained or lost is a difference no constraint explains.
	if pairs, differ := moved(base, base[:1]); !differ || len(pairs) != 0 {
		t.Fatalf("a lost binding: %v %v", pairs, differ)
	}
	if pairs, differ := moved(base, append(base, binding{"c", "y", "z"})); !differ || len(pairs) != 0 {
		t.Fatalf("a new binding: %v %v", pairs, differ)
	}
}
