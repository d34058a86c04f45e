// udocc_keep_pages.h: the one process-wide setting the shim offers
// (udocc_keep_freed_pages), shared by the shim and by the loader that stands in for it
// until libtorch is loaded (internal/torch/lazy_shimlib.c), so that a program making the
// choice first thing does not wait for libtorch.
#ifndef UDOCC_KEEP_PAGES_H
#define UDOCC_KEEP_PAGES_H

#include <limits.h>
#include <malloc.h>

// udocc_keep_pages stops glibc from handing freed pages back to the kernel: an epoch
// allocates and frees the same buffers thousands of times, and with glibc's defaults
// every large one is a fresh mmap whose pages fault in again (at 10^5 rows this was 40 %
// of a fine-tuning epoch). 32 MiB is the largest mmap threshold mallopt accepts on 64
// bits. Kept pages are kept per arena: the shim's work runs on its own long-lived threads
// (Pool), each with an arena of its own, one call after another on the same one. It is
// the host's choice, since it holds for every allocation in the process:
// udocc_keep_freed_pages applies it, and nothing here does unasked.
static inline void udocc_keep_pages(void) {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

#endif
