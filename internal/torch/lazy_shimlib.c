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
// DT_RPATH (lib/inert). Where it cannot be loaded, the first call that needs it prints
// the loader's message and ends the process with status 127, as the loader did for a
// linked library that was missing.
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "udocc_keep_pages.h"
#include "udocc_torch.h"

static void *shim;
static const char *shim_error;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;
static int shim_done;        // the load has ended (atomic)
static long long shim_wait;  // ns the first call that found it loading waited (atomic)

static void shim_open(void) {
  shim = dlopen("libudocc_torch.so", RTLD_LAZY | RTLD_GLOBAL);
  if (shim == NULL) {
    shim_error = dlerror();
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

static void *shim_sym(const char *name) {
  if (!__atomic_load_n(&shim_done, __ATOMIC_ACQUIRE)) {  // loading, or not started: wait
    long long t0 = now_ns(), zero = 0;
    udocc_lazy_load();
    long long w = now_ns() - t0;
    __atomic_compare_exchange_n(&shim_wait, &zero, w > 0 ? w : 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  }
  if (shim == NULL) {
    fprintf(stderr, "udocc: cannot load libudocc_torch.so: %s\n", shim_error ? shim_error : "unknown error");
    exit(127);
  }
  void *f = dlsym(shim, name);
  if (f == NULL) {
    fprintf(stderr, "udocc: libudocc_torch.so has no %s: the library is from another build of udocc\n", name);
    exit(127);
  }
  return f;
}

// LAZY defines name as a call of the shim's name, looked up at the first call.
#define LAZY(ret, name, params, args)                                   \
  ret name params {                                                     \
    static ret(*fn) params;                                             \
    ret(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);            \
    if (f == NULL) {                                                    \
      f = (ret(*) params)shim_sym(#name);                               \
      __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                       \
    }                                                                   \
    return f args;                                                      \
  }

// LAZYV is LAZY for a function without a result.
#define LAZYV(name, params, args)                                       \
  void name params {                                                    \
    static void(*fn) params;                                            \
    void(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);           \
    if (f == NULL) {                                                    \
      f = (void(*) params)shim_sym(#name);                              \
      __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                       \
    }                                                                   \
    f args;                                                             \
  }

// udocc_keep_freed_pages is the shim's, here so that a program that makes the choice
// first thing (the udocc command does) does not wait for libtorch to make it.
void udocc_keep_freed_pages(void) { udocc_keep_pages(); }

LAZY(int, udocc_error_code, (const char *err), (err))
LAZYV(udocc_error_free, (char *err), (err))
LAZYV(udocc_free, (char *p), (p))
LAZYV(udocc_version, (char *buf, size_t len), (buf, len))
LAZY(int, udocc_cuda_compiled, (void), ())
LAZY(int, udocc_cuda_device_count, (void), ())
LAZY(char *, udocc_check_device, (const char *device), (device))
LAZYV(udocc_set_num_threads, (int n), (n))
LAZY(char *, udocc_group_new,
     (const int64_t *sizes, int nsizes, int k, int with_decoder, const char *device, const uint64_t *seeds,
      udocc_group **out),
     (sizes, nsizes, k, with_decoder, device, seeds, out))
LAZY(char *, udocc_group_from, (const udocc_group *src, const int *src_members, int k, udocc_group **out),
     (src, src_members, k, out))
LAZYV(udocc_group_close, (udocc_group *g), (g))
LAZY(char *, udocc_group_set_data, (udocc_group *g, const float *x, int64_t n, int64_t d), (g, x, n, d))
LAZY(char *, udocc_group_set_data_scaled,
     (udocc_group *g, const float *x, int64_t n, int64_t d, const double *mean, const double *scale),
     (g, x, n, d, mean, scale))
LAZY(char *, udocc_group_borrow_data,
     (udocc_group *g, const float *x, int64_t nx, int64_t d, const int32_t *rows, int64_t n, const double *mean,
      const double *scale, int *borrowed),
     (g, x, nx, d, rows, n, mean, scale, borrowed))
LAZY(char *, udocc_group_drop_data, (udocc_group *g), (g))
LAZY(char *, udocc_group_reset_adam, (udocc_group *g, int phase, const double *lr, const double *wd),
     (g, phase, lr, wd))
LAZY(char *, udocc_group_pretrain_epoch,
     (udocc_group *g, const int32_t *plan, const int32_t *counts, const uint8_t *flags, int64_t steps,
      int64_t width, double *loss, int64_t nloss),
     (g, plan, counts, flags, steps, width, loss, nloss))
LAZY(char *, udocc_group_init_center, (udocc_group *g, double eps), (g, eps))
LAZY(char *, udocc_group_train_epoch,
     (udocc_group *g, const int32_t *plan, const int32_t *counts, const int32_t *extra, const uint8_t *flags,
      int64_t steps, int64_t width, const uint8_t *soft, const double *nu, const uint8_t *update_r,
      double *loss, int64_t nloss, float *train_dist, int64_t ndist),
     (g, plan, counts, extra, flags, steps, width, soft, nu, update_r, loss, nloss, train_dist, ndist))
LAZY(char *, udocc_group_distances, (udocc_group *g, float *out, int64_t len), (g, out, len))
LAZY(char *, udocc_group_distances_of,
     (udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len), (g, x, m, d, out, len))
LAZY(char *, udocc_group_embeddings_of,
     (udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len), (g, x, m, d, out, len))
LAZY(char *, udocc_group_standardise_output, (udocc_group *g, const float *center, const float *s),
     (g, center, s))
LAZY(char *, udocc_group_residuals_of,
     (udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len), (g, x, m, d, out, len))
LAZY(char *, udocc_group_set_reconstruction_scale, (udocc_group *g, const float *center, const float *scale),
     (g, center, scale))
LAZY(char *, udocc_group_reconstruction, (udocc_group *g, float *out, int64_t len), (g, out, len))
LAZY(char *, udocc_group_reconstruction_member, (udocc_group *g, int k, float *out, int64_t len),
     (g, k, out, len))
LAZY(char *, udocc_group_reconstruction_of,
     (udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len), (g, x, m, d, out, len))
LAZY(char *, udocc_groups_score,
     (udocc_group *const *dist, int64_t nd, udocc_group *const *rec, int64_t nr, const float *x, int64_t m,
      int64_t d, float *dist_out, float *rec_out),
     (dist, nd, rec, nr, x, m, d, dist_out, rec_out))
LAZY(char *, udocc_group_attributions_of,
     (udocc_group *g, const float *x, int64_t m, int64_t d, const float *b, const float *alphas, int64_t steps,
      int part, float *out, int64_t len),
     (g, x, m, d, b, alphas, steps, part, out, len))
LAZY(char *, udocc_group_get_center, (const udocc_group *g, float *out, int64_t len), (g, out, len))
LAZY(char *, udocc_group_get_radius, (const udocc_group *g, float *out, int64_t len), (g, out, len))
LAZY(char *, udocc_group_set_radius, (udocc_group *g, const float *r, int64_t len), (g, r, len))
LAZY(char *, udocc_group_get_param,
     (const udocc_group *g, int k, const char *name, float *out, int64_t len, int64_t *n_out),
     (g, k, name, out, len, n_out))
LAZY(char *, udocc_group_serialize, (const udocc_group *g, int k, char **out, int64_t *len), (g, k, out, len))
LAZY(char *, udocc_group_load,
     (const char *data, int64_t len, const char *path, const char *device, udocc_group **out),
     (data, len, path, device, out))
LAZY(char *, udocc_group_extract, (const udocc_group *g, int k, udocc_group **out), (g, k, out))
LAZY(int, udocc_dist_gloo_compiled, (void), ())
LAZY(char *, udocc_dist_new,
     (const char *addr, int port, int rank, int world, const char *device, int64_t timeout_ms, udocc_dist **out),
     (addr, port, rank, world, device, timeout_ms, out))
LAZYV(udocc_dist_close, (udocc_dist *d), (d))
LAZY(char *, udocc_dist_allreduce, (udocc_dist *d, double *buf, int64_t n), (d, buf, n))
LAZY(char *, udocc_dist_allgather, (udocc_dist *d, const float *in, const int64_t *counts, float *out, int64_t len),
     (d, in, counts, out, len))
LAZY(char *, udocc_dist_barrier, (udocc_dist *d), (d))
LAZY(char *, udocc_group_set_dist, (udocc_group *g, udocc_dist *d), (g, d))
LAZYV(udocc_group_set_reference, (udocc_group *g, int on), (g, on))
LAZYV(udocc_group_info, (const udocc_group *g, int *k, int *nsizes, int64_t *sizes, int cap),
      (g, k, nsizes, sizes, cap))
LAZY(char *, udocc_gram, (const float *x, int64_t r, int64_t c, double *out, int64_t len), (x, r, c, out, len))
LAZY(char *, udocc_rows_product,
     (const float *x, int64_t n, int64_t k, const float *b, int64_t q, int tb, float *out, int64_t len),
     (x, n, k, b, q, tb, out, len))
