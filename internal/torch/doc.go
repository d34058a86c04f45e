// Package torch is udocc's only cgo package: a thin, typed Go wrapper over the C header
// of a small libtorch shim (udocc_torch.h) that runs whole epochs of Deep SVDD work.
//
// It is for tensor work only: building K stacked MLP models (a Group), pretraining their
// autoencoders, setting the centers c, one fine-tuning epoch of the one-class or the
// soft-boundary loss, and eval-mode distances copied to the host in one copy. It is not
// for policy: which rows a member trains on, in which order and with which loss is decided
// by the caller (package training) and handed over as a Plan.
//
// Two paths run the same numbers (to float rounding): on the CPU a fast path written out
// by hand in the shim (udocc_fast.cpp: sgemm calls and fused loops over buffers reused at
// every step), and the libtorch path (autograd over stacked tensor ops), which CUDA uses
// and which is the reference the fast one is tested against; Group.SetReference or
// UDOCC_REFERENCE=1 selects it on the CPU.
//
// Besides the networks, two dense products serve the host's own linear algebra (the wide
// tables' Gaussian, package project): Gram (x·xᵀ) and RowsProduct (rows times a
// matrix), on the fast path's sgemm, in shapes fixed by their sizes so that results do
// not depend on the thread count, nor a row's on the rows beside it.
//
// Threads: the fast path's thread count is udocc's own (libtorch's, OpenMP's and Go's are
// not touched) and is set here only: WithThreads for one call of the library (the
// detector's Fit, Score and Explain, which put back the count from before when they
// return), SetNumThreads for a program; results do not depend on it. Calls on different
// Groups may run concurrently. On one Group, the calls that score given rows
// (DistancesOf, ReconstructionOf, ScoreGroups) only read it and may run concurrently;
// every other call needs the Group to itself.
// The shim runs each call on one of its own threads, kept for the life of the process
// (the calling goroutine's thread waits), and the call's parallel tasks on more of them:
// libtorch's thread-local state (grad mode) never leaks between calls, no
// runtime.LockOSThread is needed, and each of those threads keeps a malloc arena of its
// own, so threads computing at once never wait on one arena's lock (udocc_torch.cpp, Pool).
//
// Data-parallel runs: a Dist is one rank's handle on a c10d process group (Gloo on the
// CPU, NCCL on CUDA); Group.SetDist makes a group a rank of it, whose gradients, radii,
// BatchNorm statistics and center are then averaged over the ranks (docs/distributed.md).
//
// Data: Group.BorrowData is how a fit hands over its table. On the CPU's fast path the
// shim keeps the address of the caller's rows and standardises each row as it reads it
// (bit for bit the rows SetDataScaled would have copied), so that a fit holds one table,
// not the caller's and a standardised copy; the rows stay pinned (runtime.Pinner) until
// the last group sharing them lets go (DropData, Close). It is the one place where C
// keeps a Go buffer after a call; everywhere else buffers are only used during the call.
//
// Every C handle has one owner and an explicit, idempotent Close. Every C++ exception in
// the shim becomes an *Error with the shim's code (ErrNoTensor, ErrLibtorch,
// ErrOutOfMemory by errors.Is), never an abort.
//
// A guest in its host's process: the shim exports only its udocc_ C ABI (built with
// -fvisibility=hidden), defines no BLAS symbol, installs nothing at load time, and the
// one process-wide setting it offers, KeepFreedPages (glibc's malloc thresholds), is the
// host's to make. A plain go build compiles the shim from package shim; build.sh's builds load
// lib/libudocc_torch.so instead (the build tag udocc_shimlib), with dlopen; bin/udocc
// starts the load on a thread of its own first thing in main (Preload), so that
// libtorch's constructors run while it reads its table (lazy_shimlib.c).
package torch

// lazy_table.h, the entry points lazy_shimlib.c loads at run time, follows udocc_torch.h.
//go:generate go run ../../tools/shimlink/lazygen -header shim/udocc_torch.h -out lazy_table.h
