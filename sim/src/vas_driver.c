/* The driver under every policy: VA placement and mappings, counted.
 *
 * Page-table cost rule (docs/ALLOC.md): building a mapping of S bytes with
 * pages of P bytes writes S/P PTEs; tearing it down clears S/P PTEs and
 * costs one TLB shootdown (the driver invalidates the range once). */
#include "vas_impl.h"

int vdrv_map(vdrv *dv, uint64_t va, uint64_t size, unsigned shift, diag *d) {
  vas_stats *st = dv->st;
  if (size > vdrv_unreserved(dv)) return VAS_OOM;
  if (dv->hooks.map && dv->hooks.map(dv->hooks.ctx, va, size, shift, d)) return VAS_OOM;
  st->reserved_bytes += size;
  if (st->reserved_bytes > st->reserved_peak) st->reserved_peak = st->reserved_bytes;
  st->maps++;
  st->pte_writes += size >> shift;
  return VAS_OK;
}

void vdrv_unmap(vdrv *dv, uint64_t va, uint64_t size, unsigned shift) {
  vas_stats *st = dv->st;
  if (dv->hooks.unmap) dv->hooks.unmap(dv->hooks.ctx, va, size, shift);
  st->reserved_bytes -= size;
  st->unmaps++;
  st->pte_writes += size >> shift;
  st->shootdowns++;
}

int vdrv_reserve(vdrv *dv, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  int rc = vext_take(&dv->va, VEXT_FIRST, size, align, va);
  if (rc < 0) return vas_err_nomem(d);
  return rc ? VAS_OK : VAS_OOM;
}

int vdrv_release(vdrv *dv, uint64_t va, uint64_t size, diag *d) {
  return vext_add(&dv->va, va, size) ? vas_err_nomem(d) : VAS_OK;
}
