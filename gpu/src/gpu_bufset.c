#include "gpu_bufset.h"

#include <stdlib.h>
#include <string.h>

typedef struct span {
  uint64_t lo, hi; /* region indices, inclusive */
} span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Regions in the union of the spans (n >= 1). Sorts s. */
static uint64_t union_regions(span *s, size_t n) {
  qsort(s, n, sizeof *s, cmp_span);
  uint64_t count = 0, lo = s[0].lo, hi = s[0].hi;
  for (size_t i = 1; i < n; i++) {
    if (s[i].lo <= hi) {
      if (s[i].hi > hi) hi = s[i].hi;
      continue;
    }
    count += hi - lo + 1;
    lo = s[i].lo;
    hi = s[i].hi;
  }
  return count + hi - lo + 1;
}

static uint64_t count_regions(const uint64_t *va, const uint64_t *size, size_t n, unsigned shift, span *tmp) {
  for (size_t i = 0; i < n; i++) {
    tmp[i].lo = va[i] >> shift;
    tmp[i].hi = size ? (va[i] + size[i] - 1) >> shift : tmp[i].lo;
  }
  return union_regions(tmp, n);
}

int gpu_bufset_stats_of(const uint64_t *va, const uint64_t *size, size_t n, gpu_bufset_stats *out, diag *d) {
  memset(out, 0, sizeof *out);
  if (!n) return diag_set(d, NULL, 0, "bufset: no buffers");
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (!size[i] || va[i] > UINT64_MAX - size[i])
      return diag_set(d, NULL, 0, "bufset: buffer %zu of %llu bytes at 0x%llx wraps", i, (unsigned long long)size[i],
                      (unsigned long long)va[i]);
    out->live_bytes += size[i];
    if (va[i] < lo) lo = va[i];
    if (va[i] + size[i] > hi) hi = va[i] + size[i];
  }
  span *tmp = malloc(n * sizeof *tmp);
  if (!tmp) return diag_set(d, NULL, 0, "bufset: out of memory for %zu buffers", n);
  out->buffers = n;
  out->va_min = lo;
  out->va_span = hi - lo;
  out->regions_2m = count_regions(va, size, n, GPU_REGION_2M_SHIFT, tmp);
  out->regions_32m = count_regions(va, size, n, GPU_REGION_32M_SHIFT, tmp);
  out->line_regions_2m = count_regions(va, NULL, n, GPU_REGION_2M_SHIFT, tmp);
  out->line_regions_32m = count_regions(va, NULL, n, GPU_REGION_32M_SHIFT, tmp);
  free(tmp);
  return 0;
}

int gpu_pool_carve(const uint64_t *size, size_t n, uint64_t align, uint64_t *offset, uint64_t *total, diag *d) {
  if (!is_pow2(align)) return diag_set(d, NULL, 0, "pool: alignment %llu is not a power of two", (unsigned long long)align);
  uint64_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (size[i] > UINT64_MAX - align || at > UINT64_MAX - ((size[i] + align - 1) & ~(align - 1)))
      return diag_set(d, NULL, 0, "pool: %zu buffers overflow 64 bits", n);
    offset[i] = at;
    at += (size[i] + align - 1) & ~(align - 1);
  }
  *total = at;
  return 0;
}
