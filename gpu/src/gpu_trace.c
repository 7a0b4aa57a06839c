#include "gpu_trace.h"

#include "gpu_idmap.h"

#include <stdlib.h>
#include <string.h>

/* ---- what churn replays ------------------------------------------------ */

/* A record's options churn cannot honour, by the field that says it was
 * given: each set only when the option named something other than its
 * default (stream=0 and kind=device are what cudaMalloc does). */
static const char *refused_option(const trace_record *rec) {
  static const struct {
    uint64_t attr;
    const char *name;
  } cap[] = {{TRACE_HAS_POOL, "pool"}, {TRACE_HAS_VA, "va"}, {TRACE_HAS_DEV, "dev"},
             {TRACE_HAS_TIME, "t"},    {TRACE_HAS_DUR, "dur"}};
  if (rec->align) return "align";
  if (rec->stream) return "stream";
  if (rec->cap.mem != TRACE_MEM_DEVICE) return "kind";
  for (size_t i = 0; i < sizeof cap / sizeof cap[0]; i++)
    if (rec->cap.attrs & cap[i].attr) return cap[i].name;
  return NULL;
}

/* The op a record stands for: 0, or -1 with a diag for one churn cannot
 * replay. */
static int to_op(const trace_record *rec, const char *name, gpu_trace_op *op, diag *d) {
  static const char access_word[] = {[TRACE_READ] = 'r', [TRACE_WRITE] = 'w', [TRACE_EXEC] = 'x'};
  if (rec->kind == REC_ACCESS)
    return diag_set(d, name, rec->line, "record '%c' is not supported here (churn-gather replays alloc and free only)",
                    access_word[rec->access]);
  if (rec->kind != REC_ALLOC && rec->kind != REC_FREE)
    return diag_set(d, name, rec->line, "record '%s' is not supported here (churn-gather replays alloc and free only)",
                    trace_rec_kind_names[rec->kind]);
  const char *opt = refused_option(rec);
  if (opt)
    return diag_set(d, name, rec->line,
                    "option '%s=' is not supported here (churn-gather replays plain cudaMalloc and cudaFree)", opt);
  *op = (gpu_trace_op){rec->kind == REC_ALLOC ? GPU_TRACE_ALLOC : GPU_TRACE_FREE, rec->alloc_id, rec->size, 0,
                       rec->line};
  return 0;
}

/* ---- the plan ----------------------------------------------------------- */

typedef struct slot_info {
  uint64_t id, size;
  unsigned long line;  /* of the alloc record */
  int live;
} slot_info;

typedef struct builder {
  gpu_idmap ids;
  slot_info *slot;
  uint32_t *free_slots;
  size_t nslots, nfree, cap_slots;
  uint64_t live_bytes;
} builder;

static int take_slot(builder *b, uint32_t *out) {
  if (b->nfree) {
    *out = b->free_slots[--b->nfree];
    return 0;
  }
  if (b->nslots == UINT32_MAX) return -1;
  if (b->nslots == b->cap_slots) {
    size_t cap = b->cap_slots ? b->cap_slots * 2 : 1024;
    slot_info *s = realloc(b->slot, cap * sizeof *s);
    if (!s) return -1;
    b->slot = s;
    uint32_t *f = realloc(b->free_slots, cap * sizeof *f);
    if (!f) return -1;
    b->free_slots = f;
    b->cap_slots = cap;
  }
  *out = (uint32_t)b->nslots++;
  return 0;
}

static int apply_op(builder *b, gpu_trace *t, gpu_trace_op *op, const char *name, diag *d) {
  size_t at = gpu_idmap_find(&b->ids, op->id);
  if (op->kind == GPU_TRACE_FREE) {
    if (at == SIZE_MAX)
      return diag_set(d, name, op->line, "free of ID %llu, which is not live", (unsigned long long)op->id);
    op->slot = b->ids.val[at];
    gpu_idmap_erase(&b->ids, at);
    slot_info *s = &b->slot[op->slot];
    s->live = 0;
    b->live_bytes -= s->size;
    b->free_slots[b->nfree++] = op->slot;
    t->frees++;
    return 0;
  }
  if (at != SIZE_MAX)
    return diag_set(d, name, op->line, "alloc of ID %llu, which is live (allocated at line %lu)",
                    (unsigned long long)op->id, b->slot[b->ids.val[at]].line);
  if (take_slot(b, &op->slot) || gpu_idmap_put(&b->ids, op->id, op->slot))
    return diag_set(d, name, op->line, "out of memory");
  b->slot[op->slot] = (slot_info){op->id, op->size, op->line, 1};
  b->live_bytes += op->size;
  if (b->live_bytes > t->peak_live_bytes) t->peak_live_bytes = b->live_bytes;
  t->allocs++;
  return 0;
}

static int cmp_live_line(const void *a, const void *b) {
  const gpu_trace_live *x = a, *y = b;
  return (x->line > y->line) - (x->line < y->line);
}

/* The live set in allocation order (alloc lines increase with time). */
static int collect_live(const builder *b, gpu_trace *t, diag *d) {
  size_t n = 0;
  for (size_t s = 0; s < b->nslots; s++) n += (size_t)b->slot[s].live;
  t->live = malloc((n ? n : 1) * sizeof *t->live);
  if (!t->live) return diag_set(d, NULL, 0, "trace: out of memory");
  for (size_t s = 0; s < b->nslots; s++)
    if (b->slot[s].live) {
      const slot_info *si = &b->slot[s];
      t->live[t->nlive++] = (gpu_trace_live){si->id, si->size, (uint32_t)s, si->line};
    }
  qsort(t->live, t->nlive, sizeof *t->live, cmp_live_line);
  return 0;
}

static int push_op(gpu_trace *t, size_t *cap, const gpu_trace_op *op) {
  if (t->nops == *cap) {
    size_t ncap = *cap ? *cap * 2 : 4096;
    gpu_trace_op *v = realloc(t->ops, ncap * sizeof *v);
    if (!v) return -1;
    t->ops = v;
    *cap = ncap;
  }
  t->ops[t->nops++] = *op;
  return 0;
}

int gpu_trace_read(trace_reader *r, gpu_trace *t, diag *d) {
  memset(t, 0, sizeof *t);
  builder b;
  memset(&b, 0, sizeof b);
  const char *name = trace_get_path(r);
  size_t opcap = 0;
  trace_record rec;
  gpu_trace_op op;
  int rc = 0, got;
  while (!rc && (got = trace_next(r, &rec, d)) == 1) {
    if (to_op(&rec, name, &op, d) || apply_op(&b, t, &op, name, d)) rc = -1;
    else if (push_op(t, &opcap, &op)) rc = diag_set(d, name, rec.line, "out of memory");
  }
  if (!rc && got < 0) rc = -1;
  if (!rc) rc = collect_live(&b, t, d);
  t->slots = (uint32_t)b.nslots;
  gpu_idmap_free(&b.ids);
  free(b.slot);
  free(b.free_slots);
  if (rc) gpu_trace_free(t);
  return rc;
}

int gpu_trace_load(const char *path, gpu_trace *t, diag *d) {
  trace_reader *r = trace_open(path, TRACE_NATIVE, d);
  if (!r) return -1;
  int rc = gpu_trace_read(r, t, d);
  trace_close(r);
  return rc;
}

void gpu_trace_free(gpu_trace *t) {
  free(t->ops);
  free(t->live);
  memset(t, 0, sizeof *t);
}
