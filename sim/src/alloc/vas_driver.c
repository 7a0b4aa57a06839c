/* The driver under every policy: VA placement and mappings, counted.
 *
 * Page-table cost rule (docs/ALLOC.md): building a mapping of S bytes with
 * pages of P bytes writes S/P PTEs; tearing it down clears S/P PTEs and
 * costs one TLB shootdown (the driver invalidates the range once). */
#include <stdlib.h>

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

static int take(vext *x, vext_fit fit, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  int rc = vext_take(x, fit, size, align, va);
  if (rc < 0) return vas_err_nomem(d);
  return rc ? VAS_OK : VAS_OOM;
}

/* take() from the whole managed range, noting a refusal (an OOM's reason). */
static int take_va(vdrv *dv, vext_fit fit, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  int rc = take(&dv->va, fit, size, align, va, d);
  if (rc == VAS_OOM) dv->va_refused = true;
  return rc;
}

static int new_chunk(vdrv *dv, uint64_t size, uint64_t align, vchunk **out, diag *d) {
  vchunk *c = calloc(1, sizeof *c);
  if (!c) return vas_err_nomem(d);
  c->size = round_up(size > dv->chunk ? size : dv->chunk, align > dv->chunk ? align : dv->chunk);
  int rc = take_va(dv, VEXT_TOP, c->size, align > dv->chunk ? align : dv->chunk, &c->base, d);
  if (rc == VAS_OK && vext_add(&c->free, c->base, c->size)) rc = vas_err_nomem(d);
  if (rc != VAS_OK) {
    free(c);
    return rc;
  }
  *dv->chunks_tail = c;
  dv->chunks_tail = &c->next;
  *out = c;
  return VAS_OK;
}

int vdrv_reserve(vdrv *dv, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  if (!dv->chunk) return take_va(dv, VEXT_FIRST, size, align, va, d);
  for (vchunk *c = dv->chunks; c; c = c->next)
    if (c->free.free_bytes >= size) {
      int rc = take(&c->free, VEXT_FIRST, size, align, va, d);
      if (rc != VAS_OOM) return rc;
    }
  vchunk *c = NULL;
  int rc = new_chunk(dv, size, align, &c, d);
  return rc == VAS_OK ? take(&c->free, VEXT_FIRST, size, align, va, d) : rc;
}

int vdrv_reserve_below(vdrv *dv, uint64_t limit, uint64_t size, uint64_t align, uint64_t *va, diag *d) {
  int rc = vext_take_below(&dv->va, limit, size, align, va);
  if (rc < 0) return vas_err_nomem(d);
  return rc ? VAS_OK : take_va(dv, VEXT_TOP, size, align, va, d);
}

int vdrv_release(vdrv *dv, uint64_t va, uint64_t size, diag *d) {
  vext *home = &dv->va;
  for (vchunk *c = dv->chunks; c; c = c->next)
    if (va >= c->base && va - c->base < c->size) home = &c->free;
  return vext_add(home, va, size) ? vas_err_nomem(d) : VAS_OK;
}

void vdrv_fini(vdrv *dv) {
  while (dv->chunks) {
    vchunk *c = dv->chunks;
    dv->chunks = c->next;
    vext_clear(&c->free);
    free(c);
  }
  dv->chunks_tail = &dv->chunks;
  vext_clear(&dv->va);
}
