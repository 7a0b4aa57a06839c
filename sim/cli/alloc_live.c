/* The live set at the end of an alloc replay: its regions and its layout. */
#include "alloc_live.h"

#include <stdbool.h>
#include <stdlib.h>

#include "tlbsim/csv.h"

/* The regions tlbsim-gpu counts: a 2 MiB page, and the 32 MiB one entry
 * of the H200's TLB covers with 2 MiB pages (gpu/README.md). */
#define SHIFT_2M 21
#define SHIFT_32M 25

static int by_va(const void *a, const void *b) {
  uint64_t x = ((const live_buf *)a)->va, y = ((const live_buf *)b)->va;
  return (x > y) - (x < y);
}

/* Distinct 2^shift regions of buffers sorted by address: the ranges they
 * cover only move upwards, so each adds the regions past the last one. */
static uint64_t regions(const live_buf *b, size_t n, unsigned shift) {
  uint64_t count = 0, last = 0;
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    if (!b[i].size) continue;
    uint64_t lo = b[i].va >> shift, hi = (b[i].va + b[i].size - 1) >> shift;
    if (any && lo <= last) lo = last + 1;
    if (any && hi <= last) continue;
    count += hi - lo + 1;
    last = hi;
    any = true;
  }
  return count;
}

void live_measure(live_buf *b, size_t n, live_stats *out) {
  *out = (live_stats){.buffers = n};
  if (!n) return;
  qsort(b, n, sizeof *b, by_va);
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++)
    if (b[i].va + b[i].size > end) end = b[i].va + b[i].size;
  out->va_span = end - b[0].va;
  out->regions_2m = regions(b, n, SHIFT_2M);
  out->regions_32m = regions(b, n, SHIFT_32M);
}

void live_layout_header(FILE *f) { fprintf(f, "source,case,index,id,size_bytes,offset_bytes\n"); }

void live_layout_rows(FILE *f, const char *source, const char *policy, const live_buf *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    csv_write_field(f, source);
    fputc(',', f);
    csv_write_field(f, policy);
    /* two's complement: buffers below the first one have negative offsets */
    uint64_t delta = b[i].va - b[0].va;
    long long offset = delta > INT64_MAX ? -(long long)(~delta) - 1 : (long long)delta;
    fprintf(f, ",%zu,%llu,%llu,%lld\n", i, (unsigned long long)b[i].name, (unsigned long long)b[i].size, offset);
  }
}
