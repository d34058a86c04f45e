package main

import (
	"reflect"
	"testing"

	"github.com/udocc/udocc/tools/shimlink/internal/ldbind"
)

// A library that the shim reaches only through a root is stood in for, with the root;
// one it also reaches another way (libz, libtbb) is kept, and so is everything the kept
// ones name.
func TestStoodIn(t *testing.T) {
	needed := map[string][]string{
		"libtorch_cpu.so":          {"libc.so.6", "libopencv_core.so.406", "libavcodec.so.59", "libz.so.1", "libtbb.so.12"},
		"libc.so.6":                nil,
		"libopencv_core.so.406":    {"libgdal.so.32", "libz.so.1", "libtbb.so.12"},
		"libavcodec.so.59":         {"libx265.so.199", "libz.so.1"},
		"libgdal.so.32":            {"libQt5Core.so.5", "libtbb.so.12"},
		"libQt5Core.so.5":          {"libc.so.6"},
		"libx265.so.199":           nil,
		"libz.so.1":                nil,
		"libtbb.so.12":             nil,
		"libopencv_imgproc.so.406": {"libopencv_core.so.406"},
	}
	// The shim names libgdal itself (as linkorder names the libraries it binds in): it
	// still goes, as no library the shim needs names it.
	// It binds no symbol in libgdal; were it to, the probe's bindings would differ and
	// check would refuse the stand-ins.
	top := []string{"libtorch_cpu.so", "libgdal.so.32"}
	got := stoodIn(top, needed)
	want := []string{"libQt5Core.so.5", "libavcodec.so.59", "libgdal.so.32", "libopencv_core.so.406", "libopencv_imgproc.so.406", "libx265.so.199"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stoodIn:\n got %v\nwant %v", got, want)
	}
	if got := stoodIn([]string{"libtorch_cpu.so"}, map[string][]string{"libtorch_cpu.so": {"libc.so.6"}, "libc.so.6": nil}); len(got) != 0 {
		t.Fatalf("no root: got %v, want none", got)
	}
}

func TestRoots(t *testing.T) {
	for so, want := range map[string]bool{
		"libopencv_core.so.406": true, "libopencv_ximgproc.so.406": true, "libavcodec.so.59": true,
		"libswresample.so.4": true, "libavutil.so": true, "libtorch_cpu.so.1.13": false,
		"libavahi-client.so.3": false, "libswscale-extra.so": false, "libopencl.so.1": false,
	} {
		if got := roots.MatchString(so); got != want {
			t.Errorf("roots.MatchString(%q) = %v, want %v", so, got, want)
		}
	}
}

// The checks on the probe's bindings: what the stood-in libraries request may go, lookups
// on no library's behalf may only become fewer, and a reference may move only from a weak
// definition in a stood-in library to a weak definition elsewhere.
func TestCompare(t *testing.T) {
	const cv, dnnl, libc, vdso = "/l/libopencv_videoio.so.406", "/l/libdnnl.so.2", "/l/libc.so.6", "/l/linux-vdso.so.1"
	standing := map[string]bool{cv: true}
	isWeak := func(path, symbol string) bool { return symbol == "_ZNSt6vectorIiSaIiEE7reserveEm" }
	none := func(string, string) bool { return false } // every definition strong
	base := []ldbind.Binding{
		{Requester: dnnl, Symbol: "malloc", Definer: libc},
		{Requester: cv, Symbol: "malloc", Definer: libc},
		{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
		{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
		{Requester: vdso, Symbol: "__vdso_time", Definer: vdso},
		{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: cv},
	}
	for _, c := range []struct {
		name    string
		after   []ldbind.Binding
		weak    func(path, symbol string) bool
		differ  bool
		rebound int
	}{
		{"weak definition rebound, the stood-in's own and on-behalf lookups gone", []ldbind.Binding{
			{Requester: dnnl, Symbol: "malloc", Definer: libc},
			{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
			{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: dnnl},
		}, isWeak, false, 1},
		{"a kept library's binding moved", []ldbind.Binding{
			{Requester: dnnl, Symbol: "malloc", Definer: dnnl},
			{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: dnnl},
		}, isWeak, true, 1},
		{"a kept library's binding lost", []ldbind.Binding{
			{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: dnnl},
		}, isWeak, true, 1},
		{"more lookups on no library's behalf", []ldbind.Binding{
			{Requester: dnnl, Symbol: "malloc", Definer: libc},
			{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
			{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
			{Requester: "PROBE", Symbol: "pthread_create", Definer: libc},
			{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: dnnl},
		}, isWeak, true, 1},
		{"a strong definition rebound", []ldbind.Binding{
			{Requester: dnnl, Symbol: "malloc", Definer: libc},
			{Requester: dnnl, Symbol: "_ZNSt6vectorIiSaIiEE7reserveEm", Definer: dnnl},
		}, none, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			differ, rebound := compare(base, c.after, standing, c.weak)
			if (len(differ) > 0) != c.differ || rebound != c.rebound {
				t.Fatalf("compare: differ %q, rebound %d; want differences %v, rebound %d", differ, rebound, c.differ, c.rebound)
			}
		})
	}
}
