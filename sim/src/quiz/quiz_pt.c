/* Page-table exercises: translate addresses by hand from a dump (or name
 * the fault), and count the tables a mapping needs. */
#include <stdio.h>

#include "quiz_impl.h"

/* Addresses stay below 2^40 (2^va_bits on smaller machines): every level is
 * still indexed, and they stay in the lower half of a canonical space. */
#define QUIZ_VA_BITS 40
#define TRANSLATE_MAPS 3

static unsigned quiz_va_bits(const pt_format *f) { return f->va_bits > QUIZ_VA_BITS ? QUIZ_VA_BITS : f->va_bits; }

static bool range_free(const machine *m, uint64_t va, uint64_t size, uint64_t page) {
  pt_mapping seen;
  for (uint64_t a = va; a < va + size; a += page)
    if (pt_lookup(machine_get_pt(m), a, &seen)) return false;
  return true;
}

/* A page-aligned range of `pages` pages no mapping overlaps. */
static uint64_t free_range(const machine *m, rng *r, unsigned va_bits, uint64_t page, uint64_t pages) {
  uint64_t slots = (UINT64_C(1) << va_bits) / page - pages;
  for (;;) {
    uint64_t va = rng_below(r, slots) * page;
    if (range_free(m, va, pages * page, page)) return va;
  }
}

static void describe_format(char *buf, size_t len, const pt_format *f, const char *preset) {
  int n = snprintf(buf, len, "Machine: preset %s, format %s (%u-bit VA; levels", preset, f->name, f->va_bits);
  for (unsigned l = 0; l < f->nlevels && n > 0 && (size_t)n < len; l++)
    n += snprintf(buf + n, len - (size_t)n, " %s", f->level[l].name);
  if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ").\n");
}

static void translate_key(quiz_question *q, const quiz_seen *s, unsigned prot) {
  json_object *a = json_object_new_object();
  if (s->status == MMU_OK) {
    uint64_t offset = s->pa & ((UINT64_C(1) << s->page_shift) - 1);
    snprintf(q->key, sizeof q->key, "pa %#llx (frame %#llx, offset %#llx)", (unsigned long long)s->pa,
             (unsigned long long)(s->pa >> s->page_shift), (unsigned long long)offset);
    json_object_object_add(a, "pa", json_object_new_uint64(s->pa));
    json_object_object_add(a, "fault", NULL);
  } else {
    bool unmapped = s->status == MMU_FAULT_UNMAPPED;
    if (unmapped) snprintf(q->key, sizeof q->key, "fault: unmapped (the walk meets an entry that is not valid)");
    else snprintf(q->key, sizeof q->key, "fault: protection (the page is %s%s%s)", prot & PT_R ? "r" : "-",
                  prot & PT_W ? "w" : "-", prot & PT_X ? "x" : "-");
    json_object_object_add(a, "pa", NULL);
    json_object_object_add(a, "fault", json_object_new_string(unmapped ? "unmapped" : "protection"));
  }
  q->answer = a;
}

/* What the student translates: a read and a write that succeed, a write
 * to the read-only mapping, a read of unmapped memory; shuffled. */
typedef struct probe {
  trace_access kind;
  uint64_t va;
} probe;

static int translate_probes(quiz_exercise *x, machine *m, rng *r, const uint64_t map_va[], uint64_t page,
                            unsigned va_bits, diag *d) {
  probe p[4] = {
      {TRACE_READ, map_va[1] + rng_below(r, page)},
      {TRACE_WRITE, map_va[0] + rng_below(r, page)},
      {TRACE_READ, free_range(m, r, va_bits, page, 1) + rng_below(r, page)},
      {rng_below(r, 2) ? TRACE_WRITE : TRACE_READ, map_va[2] + rng_below(r, page)},
  };
  for (unsigned i = 3; i > 0; i--) {
    unsigned j = (unsigned)rng_below(r, i + 1);
    probe t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  for (unsigned i = 0; i < 4; i++) {
    quiz_seen s;
    pt_mapping at = {0};
    pt_lookup(machine_get_pt(m), p[i].va, &at);
    quiz_question *q = quiz_ask(x, "%s %#llx", p[i].kind == TRACE_WRITE ? "w" : "r", (unsigned long long)p[i].va);
    if (quiz_access(x, m, p[i].kind, p[i].va, &s, d)) return -1;
    translate_key(q, &s, at.prot);
  }
  return 0;
}

int quiz_translate(quiz_exercise *x, rng *r, const quiz_env *env, diag *d) {
  const char *preset = quiz_pick_preset(r);
  machine *m = env->build(env->ctx, preset, NULL, 0, d);
  if (!m) return -1;
  const pt_format *f = pt_get_format(machine_get_pt(m));
  uint64_t page = machine_default_page_size(m), map_va[TRANSLATE_MAPS];
  unsigned va_bits = quiz_va_bits(f);
  int rc = 0;
  for (unsigned i = 0; i < TRANSLATE_MAPS && !rc; i++) {
    uint64_t pages = 1 + rng_below(r, 2);
    map_va[i] = free_range(m, r, va_bits, page, pages);
    /* the first is read-only, so that a write to it faults */
    unsigned prot = i ? PT_R | PT_W : PT_R | (rng_below(r, 2) ? PT_X : 0);
    trace_record rec = {.kind = REC_MAP, .addr = map_va[i], .size = pages * page, .page_size = page, .prot = (uint8_t)prot};
    rc = quiz_record(x, m, &rec, d);
  }
  if (!rc) rc = quiz_show_pt(x, env, m, d);
  if (!rc) rc = translate_probes(x, m, r, map_va, page, va_bits, d);
  snprintf(x->title, sizeof x->title, "translate addresses by hand, format %s", f->name);
  char machine_line[256];
  describe_format(machine_line, sizeof machine_line, f, preset);
  snprintf(x->prompt, sizeof x->prompt,
           "%sThe trace's map records built this page table (tlbsim dump). Decode it by hand:\n"
           "give each access's physical address, or its fault (unmapped, or protection: a\n"
           "write to a page without w).",
           machine_line);
  snprintf(x->command, sizeof x->command, "tlbsim run --preset %s --log TRACE", preset);
  machine_destroy(m);
  return rc;
}

/* --- pt-size --------------------------------------------------------------------- */

/* A leaf size of at most 2 MiB, that the machine's memory holds 8 of. */
static unsigned pick_page_shift(const pt_format *f, uint64_t memory, rng *r) {
  unsigned shifts[PT_MAX_LEAVES] = {f->leaf[0].page_shift}, n = 0; /* no such leaf: the first */
  for (unsigned k = 0; k < f->nleaves; k++)
    if (f->leaf[k].page_shift <= 21 && (UINT64_C(8) << f->leaf[k].page_shift) <= memory) shifts[n++] = f->leaf[k].page_shift;
  return shifts[n ? rng_below(r, n) : 0];
}

/* `pages` pages at an address that often crosses from one leaf table into
 * the next: the span one leaf table covers, minus a few pages. */
static uint64_t crossing_va(const pt_format *f, unsigned shift, uint64_t pages, rng *r) {
  int level = pt_format_leaf_level(f, shift);
  unsigned span_shift = pt_format_index_shift(f, (unsigned)level, shift) + pt_format_index_bits(f, (unsigned)level, shift);
  unsigned va_bits = quiz_va_bits(f);
  uint64_t page = UINT64_C(1) << shift;
  if (span_shift + 1 >= va_bits) return rng_below(r, ((UINT64_C(1) << va_bits) >> shift) - pages + 1) * page;
  uint64_t span = UINT64_C(1) << span_shift, regions = (UINT64_C(1) << va_bits) >> span_shift;
  return (rng_below(r, regions - 1) + 1) * span - (1 + rng_below(r, pages)) * page;
}

static void level_key(quiz_question *q, const pt_level_usage *u, const char *name) {
  char b[32];
  snprintf(q->key, sizeof q->key, "%llu %s table%s, %s", (unsigned long long)u->tables, name, u->tables == 1 ? "" : "s",
           num_format_size(u->bytes, b, sizeof b));
  q->answer = json_object_new_object();
  json_object_object_add(q->answer, "tables", json_object_new_uint64(u->tables));
  json_object_object_add(q->answer, "bytes", json_object_new_uint64(u->bytes));
}

int quiz_pt_size(quiz_exercise *x, rng *r, const quiz_env *env, diag *d) {
  const char *preset = quiz_pick_preset(r);
  machine *m = env->build(env->ctx, preset, NULL, 0, d);
  if (!m) return -1;
  const pt_format *f = pt_get_format(machine_get_pt(m));
  unsigned shift = pick_page_shift(f, machine_get_spec(m)->phys_memory, r);
  uint64_t pages = 1 + rng_below(r, 6);
  trace_record rec = {.kind = REC_MAP, .addr = crossing_va(f, shift, pages, r), .size = pages << shift,
                      .page_size = UINT64_C(1) << shift, .prot = PT_R | PT_W};
  int rc = quiz_record(x, m, &rec, d);
  char machine_line[256], a[32], b[32];
  describe_format(machine_line, sizeof machine_line, f, preset);
  snprintf(x->title, sizeof x->title, "page-table pages and bytes of one mapping, format %s", f->name);
  snprintf(x->prompt, sizeof x->prompt,
           "%sThe address space is empty but for its root table. The trace maps %s at %#llx\n"
           "with %s pages. How many tables does each level hold then, and how many bytes\n"
           "do all tables take (tlbsim dump and formats show each level's entries and size)?",
           machine_line, num_format_size(rec.size, a, sizeof a), (unsigned long long)rec.addr,
           num_format_size(rec.page_size, b, sizeof b));
  snprintf(x->command, sizeof x->command, "tlbsim run --preset %s TRACE", preset);
  for (unsigned l = 0; l < f->nlevels && !rc; l++) {
    pt_level_usage u = machine_pt_usage(m, l);
    level_key(quiz_ask(x, "level %u (%s): tables and bytes?", l, f->level[l].name), &u, f->level[l].name);
  }
  if (!rc) {
    quiz_question *q = quiz_ask(x, "all tables: bytes?");
    uint64_t bytes = machine_pt_bytes(m);
    snprintf(q->key, sizeof q->key, "%llu bytes (%s)", (unsigned long long)bytes, num_format_size(bytes, a, sizeof a));
    q->answer = json_object_new_object();
    json_object_object_add(q->answer, "page_table_bytes", json_object_new_uint64(bytes));
  }
  machine_destroy(m);
  return rc;
}
