//go:build udocc_shimlib

// lazy_shimlib.c: with the build tag udocc_shimlib, bin/udocc and the test binaries do
// not link lib/libudocc_torch.so; they load it with dlopen, and every function of
// udocc_torch.h here calls the shim's through a pointer looked up at its first call.
// bin/udocc starts the load on a thread of its own first thing in main (torch.Preload,
// udocc_lazy_start); elsewhere the first call that needs the shim loads it.
//
// Why: loading libtorch runs its static constructors, which register its two thousand
// operators: about 0.17 s of one core on the project's machine, a third of a medium
// table's whole fit. Linked, they run before main; loaded beside main, they run while the
// program parses its flags, reads its table and prepares it, and a command that never
// trains (udocc version, a flag's error, a table's) does not wait for them at all. The
// first call that needs the shim waits for the load to finish (pthread_once).
//
// The shim is loaded RTLD_GLOBAL and RTLD_LAZY, as a linked library is: its lookup of
// oneDNN's sgemm in the process (dlsym(RTLD_DEFAULT, ...)) must find it, or the fast
// path's products would fall back to libtorch's mm; and its functions are bound at their
// first call, not all at the load. Its dependencies are found as when it was linked:
// through its own RUNPATH, and for libtorch's own libraries through bin/udocc's
// DT_RPATH (lib/inert). Where it cannot be loaded, or lacks a function, no call ends the
// process: each returns what lazy_table.h says, an error of code UDOCC_ERR_NOT_LOADED
// with the loader's message for the functions that return errors (torch.ErrNotLoaded in
// Go). lazy_table.h is generated from udocc_torch.h (tools/shimlink/lazygen).
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "udocc_keep_pages.h"
#include "udocc_torch.h"

static void *shim;
static const char *shim_error;
static char shim_error_buf[512];  // dlerror's text, which the loading thread's exit frees
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;
static int shim_done;        // the load has ended (atomic)
static long long shim_wait;  // ns the first call that found it loading waited (atomic)

static void shim_open(void) {
  shim = dlopen("libudocc_torch.so", RTLD_LAZY | RTLD_GLOBAL);
  if (shim == NULL) {
    const char *e = dlerror();
    snprintf(shim_error_buf, sizeof shim_error_buf, "%s", e ? e : "unknown error");
    shim_error = shim_error_buf;
  }
  __atomic_store_n(&shim_done, 1, __ATOMIC_RELEASE);
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// udocc_lazy_wait_ns is how long the first call that needed the shim before it was loaded
// waited for it, in nanoseconds (0: it was loaded by then).
long long udocc_lazy_wait_ns(void) { return __atomic_load_n(&shim_wait, __ATOMIC_ACQUIRE); }

// udocc_lazy_load loads the shim, once; a later call returns at once.
void udocc_lazy_load(void) { pthread_once(&shim_once, shim_open); }

static void *shim_loader(void *arg) {
  (void)arg;
  udocc_lazy_load();
  return NULL;
}

// udocc_lazy_start starts loading the shim on a thread of its own, not one of Go's (a
// goroutine's cgo call would hold one of the Go scheduler's threads for the load). The
// thread blocks every signal, so that the process's signals go to Go's threads. Where it
// cannot be started, the first call loads the shim.
void udocc_lazy_start(void) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_t t;
  if (pthread_attr_init(&attr) == 0) {
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, shim_loader, NULL);
    pthread_attr_destroy(&attr);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

// shim_sym is the shim's function name, loading the shim first where it is not loaded;
// NULL where it cannot be loaded or lacks name.
static void *shim_sym(const char *name) {
  if (!__atomic_load_n(&shim_done, __ATOMIC_ACQUIRE)) {  // loading, or not started: wait
    long long t0 = now_ns(), zero = 0;
    udocc_lazy_load();
    long long w = now_ns() - t0;
    __atomic_compare_exchange_n(&shim_wait, &zero, w > 0 ? w : 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
  return shim == NULL ? NULL : dlsym(shim, name);
}

// unloaded_block is an error as the shim lays it out (udocc_torch.cpp's ErrorBlock: the
// code, then the message), so that the shim's udocc_error_code and udocc_error_free
// read and free it where the shim is loaded but lacks a function.
struct unloaded_block {
  int code;
  char msg[1];
};

// unloaded_oom is the error where even the error cannot be allocated; never freed.
static struct {
  int code;
  char msg[sizeof "out of memory (while reporting that libudocc_torch.so is not loaded)"];
} unloaded_oom = {UDOCC_ERR_NOT_LOADED, "out of memory (while reporting that libudocc_torch.so is not loaded)"};

static struct unloaded_block *unloaded_block(const char *msg) {
  return (struct unloaded_block *)(msg - offsetof(struct unloaded_block, msg));
}

// unloaded_error is the error of the entry point name where the shim is not loaded or
// lacks it: code UDOCC_ERR_NOT_LOADED and the loader's message.
static char *unloaded_error(const char *name) {
  char msg[1024];
  if (shim == NULL) {
    snprintf(msg, sizeof msg,
             "cannot load libudocc_torch.so: %s (keep bin/ and lib/ together: bin/udocc loads ../lib/libudocc_torch.so and ../lib/inert beside it, and libtorch where the build found it)",
             shim_error ? shim_error : "unknown error");
  } else {
    snprintf(msg, sizeof msg, "libudocc_torch.so has no %s: the library is from another build of udocc", name);
  }
  size_t n = strlen(msg);
  struct unloaded_block *b = malloc(offsetof(struct unloaded_block, msg) + n + 1);
  if (b == NULL) {
    return unloaded_oom.msg;
  }
  b->code = UDOCC_ERR_NOT_LOADED;
  memcpy(b->msg, msg, n + 1);
  return b->msg;
}

// LAZY defines name as a call of the shim's name, looked up at the first call; where
// the shim is not loaded or lacks name, as the body unloaded.
#define LAZY(ret, name, params, args, unloaded)                         \
  static ret name##_unloaded params unloaded                            \
  ret name params {                                                     \
    static ret(*fn) params;                                             \
    ret(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);            \
    if (f == NULL) {                                                    \
      f = (ret(*) params)shim_sym(#name);                               \
      if (f == NULL) f = name##_unloaded;                               \
      __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                       \
    }                                                                   \
    return f args;                                                      \
  }

// LAZYV is LAZY for a function without a result.
#define LAZYV(name, params, args, unloaded)                             \
  static void name##_unloaded params unloaded                           \
  void name params {                                                    \
    static void(*fn) params;                                            \
    void(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);           \
    if (f == NULL) {                                                    \
      f = (void(*) params)shim_sym(#name);                              \
      if (f == NULL) f = name##_unloaded;                               \
      __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                       \
    }                                                                   \
    f args;                                                             \
  }

// udocc_keep_freed_pages is the shim's, here so that a program that makes the choice
// first thing (the udocc command does) does not wait for libtorch to make it.
void udocc_keep_freed_pages(void) { udocc_keep_pages(); }

#include "lazy_table.h"
