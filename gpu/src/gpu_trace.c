#include "gpu_trace.h"

#include "gpu_idmap.h"

#include <stdlib.h>
#include <string.h>

/* ---- one line --------------------------------------------------------- */

#define MAX_FIELDS 8

/* Splits text at blanks into at most MAX_FIELDS fields (NUL-terminated in
 * buf), stopping at a field that starts with '#'. Returns the count, or
 * MAX_FIELDS + 1 when there are more. */
static int split_fields(char *buf, char **f) {
  int n = 0;
  char *p = buf;
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') return n;
    if (n == MAX_FIELDS) return MAX_FIELDS + 1;
    f[n++] = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (*p) *p++ = '\0';
  }
}

static int is_other_record(const char *w) {
  static const char *const other[] = {"r", "w", "x", "map", "unmap", "protect", "ctx", "mark"};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    if (!strcmp(w, other[i])) return 1;
  return 0;
}

/* "#tlbsim-trace V": only version 1 exists. */
static int check_version(const char *text, const char *name, unsigned long line, diag *d) {
  const char *tag = "#tlbsim-trace";
  size_t n = strlen(tag);
  while (*text == ' ' || *text == '\t') text++;
  if (strncmp(text, tag, n) || (text[n] != ' ' && text[n] != '\t')) return 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text + n);
  char *f[MAX_FIELDS + 1];
  int k = split_fields(buf, f);
  if (k != 1 || strcmp(f[0], "1"))
    return diag_set(d, name, line, "unsupported trace version line (only '#tlbsim-trace 1' exists)");
  return 0;
}

int gpu_trace_parse_line(const char *text, const char *name, unsigned long line, gpu_trace_op *op, diag *d) {
  if (strlen(text) > GPU_TRACE_LINE_MAX)
    return diag_set(d, name, line, "line longer than %d bytes", GPU_TRACE_LINE_MAX);
  if (check_version(text, name, line, d)) return -1;
  char buf[GPU_TRACE_LINE_MAX + 1];
  strcpy(buf, text);
  char *f[MAX_FIELDS + 1];
  int n = split_fields(buf, f);
  if (n == 0) return 0;
  int alloc = !strcmp(f[0], "alloc");
  if (!alloc && strcmp(f[0], "free")) {
    if (is_other_record(f[0]))
      return diag_set(d, name, line, "record '%s' is not supported here (churn-gather replays alloc and free only)",
                      f[0]);
    return diag_set(d, name, line, "unknown record '%s'", f[0]);
  }
  const char *usage = alloc ? "alloc ID SIZE" : "free ID";
  if (n < 2) return diag_set(d, name, line, "missing ID (usage: %s)", usage);
  memset(op, 0, sizeof *op);
  op->kind = alloc ? GPU_TRACE_ALLOC : GPU_TRACE_FREE;
  op->line = line;
  if (num_parse_whole(f[1], &op->id)) return diag_set(d, name, line, "bad ID '%s'", f[1]);
  if (alloc) {
    if (n < 3) return diag_set(d, name, line, "missing SIZE (usage: %s)", usage);
    if (num_parse_size(f[2], &op->size)) return diag_set(d, name, line, "bad SIZE '%s'", f[2]);
    if (!op->size) return diag_set(d, name, line, "SIZE must not be zero");
  }
  int used = alloc ? 3 : 2;
  if (n > used) {
    if (alloc && strchr(f[used], '='))
      return diag_set(d, name, line, "option '%s' is not supported here (cudaMalloc takes no alignment or stream)",
                      f[used]);
    return diag_set(d, name, line, "extra field '%s' (usage: %s)", n > MAX_FIELDS ? "..." : f[used], usage);
  }
  return 1;
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

/* Reads one line into *buf (getline), without its LF and a CR before it.
 * Returns its length, or -1 at the end of the file. */
static long read_line(FILE *f, char **buf, size_t *cap) {
  ssize_t n = getline(buf, cap, f);
  if (n < 0) return -1;
  if (n && (*buf)[n - 1] == '\n') (*buf)[--n] = '\0';
  if (n && (*buf)[n - 1] == '\r') (*buf)[--n] = '\0';
  return (long)n;
}

int gpu_trace_read(FILE *f, const char *name, gpu_trace *t, diag *d) {
  memset(t, 0, sizeof *t);
  builder b;
  memset(&b, 0, sizeof b);
  char *buf = NULL;
  size_t bufcap = 0, opcap = 0;
  int rc = 0;
  unsigned long line = 0;
  while (!rc && read_line(f, &buf, &bufcap) >= 0) {
    gpu_trace_op op;
    int k = gpu_trace_parse_line(buf, name, ++line, &op, d);
    if (k < 0 || (k > 0 && apply_op(&b, t, &op, name, d))) rc = -1;
    else if (k > 0 && push_op(t, &opcap, &op)) rc = diag_set(d, name, line, "out of memory");
  }
  if (!rc && ferror(f)) rc = diag_set(d, name, 0, "read error");
  if (!rc) rc = collect_live(&b, t, d);
  t->slots = (uint32_t)b.nslots;
  free(buf);
  gpu_idmap_free(&b.ids);
  free(b.slot);
  free(b.free_slots);
  if (rc) gpu_trace_free(t);
  return rc;
}

void gpu_trace_free(gpu_trace *t) {
  free(t->ops);
  free(t->live);
  memset(t, 0, sizeof *t);
}
