package main

import (
	"reflect"
	"testing"
)

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
	base := []binding{{Requester: "a", Symbol: "sgemm_", Definer: "blas"}, {Requester: "b", Symbol: "x", Definer: "xerces"}}
	if _, differ := moved(base, base); differ {
		t.Fatal("identical bindings differ")
	}
	pairs, differ := moved(base, []binding{{Requester: "a", Symbol: "sgemm_", Definer: "openblas"}, {Requester: "b", Symbol: "x", Definer: "xerces"}})
	if !differ || !reflect.DeepEqual(pairs, [][2]string{{"blas", "openblas"}}) {
		t.Fatalf("moved: %v %v", pairs, differ)
	}
	// A binding gained or lost is a difference no constraint explains.
	if pairs, differ := moved(base, base[:1]); !differ || len(pairs) != 0 {
		t.Fatalf("a lost binding: %v %v", pairs, differ)
	}
	if pairs, differ := moved(base, append(base, binding{Requester: "c", Symbol: "y", Definer: "z"})); !differ || len(pairs) != 0 {
		t.Fatalf("a new binding: %v %v", pairs, differ)
	}
}
