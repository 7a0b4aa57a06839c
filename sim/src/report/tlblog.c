/* The per-access log: a machine's MMU events, gathered per record through
 * its observer, written as one text or JSON line per record. */
#include "tlbsim/tlblog.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOOKUPS (MMU_MAX_LEVELS * MMU_MAX_ARRAYS)

/* One look-up of one translation, with the fill that followed a miss. */
typedef struct lookup {
  unsigned level, array;
  uint64_t set;
  bool hit, filled;
  tlb_victim victim;
} lookup;

/* What one record did, as its counters and events moved. */
typedef struct tally {
  uint64_t tables;          /* page-table nodes of every address space */
  uint64_t mapped;          /* leaves of the current address space */
  uint64_t shootdowns, dropped;
  uint64_t oom, page_faults;
  machine_uvm_stats uvm;    /* managed memory's counters */
} tally;

struct tlblog {
  machine *m;
  FILE *out;
  tlblog_format format;
  /* the translation in progress */
  lookup lk[MAX_LOOKUPS];
  unsigned nlk;
  unsigned walks, unmapped_walks, line_hits;
  int pwc_hit;
  uint64_t tables_before;   /* at the start of the translation in progress */
  /* the record in progress */
  unsigned translations;
  unsigned shootdown_events;
  json_object *obj, *levels, *pages; /* JSON: the record's object, its levels, its pages */
  uint64_t cycles, walk_refs;
  const char *fault;
  char text[4096];          /* text: the record's line so far */
  size_t len;
};

static uint64_t tables_now(const machine *m) {
  const pt_format *f = pt_get_format(machine_get_pt(m));
  uint64_t n = 0;
  for (unsigned l = 0; l < f->nlevels; l++) n += machine_pt_usage(m, l).tables;
  return n;
}

static void add(tlblog *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(tlblog *l, const char *fmt, ...) {
  if (l->len >= sizeof l->text - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(l->text + l->len, sizeof l->text - l->len, fmt, ap);
  va_end(ap);
  if (n > 0) l->len += (size_t)n;
  if (l->len >= sizeof l->text - 1) { /* a record of many pages: the line ends in "..." */
    l->len = sizeof l->text - 4;
    memcpy(l->text + l->len, "...", 4);
    l->len += 3;
  }
}

static void put_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

static const char *size_name(uint64_t bytes, char *buf, size_t len) { return num_format_size(bytes, buf, len); }

static const char *level_name(const tlblog *l, const lookup *k, char *buf, size_t len) {
  return mmu_array_name(&machine_get_spec(l->m)->sys.mmu.level[k->level], k->array, buf, len);
}

/* --- observer ------------------------------------------------------------ */

static void on_lookup(void *ctx, const mmu_lookup_event *e) {
  tlblog *l = ctx;
  if (l->nlk == 0 && l->walks == 0) l->tables_before = tables_now(l->m);
  if (l->nlk < MAX_LOOKUPS) l->lk[l->nlk++] = (lookup){e->level, e->array, e->set, e->hit, false, {0}};
}

static void on_fill(void *ctx, const mmu_fill_event *e) {
  tlblog *l = ctx;
  for (unsigned i = l->nlk; i-- > 0;)
    if (l->lk[i].level == e->level && l->lk[i].array == e->array && !l->lk[i].hit) {
      l->lk[i].filled = true;
      l->lk[i].victim = e->victim;
      return;
    }
}

static void on_walk(void *ctx, uint64_t va, const walker_result *w) {
  tlblog *l = ctx;
  (void)va;
  if (l->nlk == 0 && l->walks == 0) l->tables_before = tables_now(l->m);
  if (l->walks == 0) l->pwc_hit = w->pwc_hit;
  l->walks++;
  l->unmapped_walks += !w->walk.mapped;
  l->line_hits += w->line_hits;
}

static void on_shootdown(void *ctx, uint64_t va, unsigned page_shift, unsigned dropped) {
  tlblog *l = ctx;
  (void)va, (void)page_shift, (void)dropped;
  l->shootdown_events++;
}

static const char *status_name(mmu_status s) {
  return s == MMU_FAULT_UNMAPPED ? "unmapped" : s == MMU_FAULT_PROT ? "protection" : NULL;
}

static void on_translated(void *ctx, uint64_t va, const mmu_outcome *o) {
  tlblog *l = ctx;
  const pt_format *f = pt_get_format(machine_get_pt(l->m));
  uint64_t tables = l->walks ? tables_now(l->m) : 0;
  uint64_t new_tables = tables > l->tables_before ? tables - l->tables_before : 0;
  bool demand = l->unmapped_walks && o->status == MMU_OK;
  const char *fault = status_name(o->status);
  uint64_t page = machine_default_page_size(l->m);
  unsigned shift = o->page_shift ? o->page_shift : (unsigned)__builtin_ctzll(page);
  char buf[64];
  l->cycles += o->cycles;
  l->walk_refs += o->walk_refs;
  if (fault && !l->fault) l->fault = fault;
  if (l->format == TLBLOG_TEXT) {
    add(l, "%s vpn %#llx", l->translations ? " +" : " |", (unsigned long long)(va >> shift));
    for (unsigned i = 0; i < l->nlk; i++) {
      const lookup *k = &l->lk[i];
      add(l, "%s %s set %llu %s", i ? "," : "", level_name(l, k, buf, sizeof buf), (unsigned long long)k->set,
          k->hit ? "hit" : "miss");
      if (k->filled && k->victim.evicted)
        add(l, " evict %#llx", (unsigned long long)(k->victim.va >> k->victim.page_shift));
    }
    if (l->walks) {
      add(l, "; walk refs %u pwc %s lines %u", o->walk_refs, l->pwc_hit >= 0 ? f->level[l->pwc_hit].name : "-",
          l->line_hits);
      if (new_tables) add(l, " tables +%llu", (unsigned long long)new_tables);
      if (demand) add(l, " page-fault");
    }
    if (fault) add(l, "; fault %s", fault);
    else {
      if (1ull << o->page_shift != page)
        add(l, "; page %s", size_name(1ull << o->page_shift, buf, sizeof buf));
      add(l, "; pfn %#llx pa %#llx", (unsigned long long)(o->pa >> o->page_shift), (unsigned long long)o->pa);
    }
    add(l, "; cycles %llu", (unsigned long long)o->cycles);
  } else {
    json_object *p = json_object_new_object();
    put_u64(p, "va", va);
    put_u64(p, "vpn", va >> shift);
    json_object *lv = json_object_new_array();
    for (unsigned i = 0; i < l->nlk; i++) {
      const lookup *k = &l->lk[i];
      json_object *e = json_object_new_object();
      json_object_object_add(e, "name", json_object_new_string(level_name(l, k, buf, sizeof buf)));
      put_u64(e, "set", k->set);
      json_object_object_add(e, "hit", json_object_new_boolean(k->hit));
      json_object_object_add(e, "victim", k->filled && k->victim.evicted
                                              ? json_object_new_uint64(k->victim.va >> k->victim.page_shift)
                                              : NULL);
      json_object_array_add(lv, json_object_get(e));
      json_object_array_add(l->levels, e);
    }
    json_object_object_add(p, "levels", lv);
    json_object *w = NULL;
    if (l->walks) {
      w = json_object_new_object();
      put_u64(w, "walks", l->walks);
      put_u64(w, "refs", o->walk_refs);
      json_object_object_add(w, "pwc_hit", l->pwc_hit >= 0 ? json_object_new_string(f->level[l->pwc_hit].name) : NULL);
      put_u64(w, "line_hits", l->line_hits);
      put_u64(w, "tables_created", new_tables);
      json_object_object_add(w, "page_fault", json_object_new_boolean(demand));
    }
    json_object_object_add(p, "walk", w);
    put_u64(p, "walk_refs", o->walk_refs);
    json_object_object_add(p, "fault", fault ? json_object_new_string(fault) : NULL);
    json_object_object_add(p, "pa", fault ? NULL : json_object_new_uint64(o->pa));
    json_object_object_add(p, "pfn", fault ? NULL : json_object_new_uint64(o->pa >> o->page_shift));
    json_object_object_add(p, "page_size", o->page_shift ? json_object_new_uint64(1ull << o->page_shift) : NULL);
    put_u64(p, "cycles", o->cycles);
    json_object_array_add(l->pages, p);
  }
  l->translations++;
  l->nlk = 0;
  l->walks = l->unmapped_walks = l->line_hits = 0;
  l->pwc_hit = -1;
}

/* --- records -------------------------------------------------------------- */

tlblog *tlblog_create(machine *m, FILE *out, tlblog_format f, diag *d) {
  tlblog *l = calloc(1, sizeof *l);
  if (!l) return diag_set(d, NULL, 0, "out of memory"), NULL;
  l->m = m;
  l->out = out;
  l->format = f;
  l->pwc_hit = -1;
  const mmu_observer o = {.ctx = l,
                          .lookup = on_lookup,
                          .fill = on_fill,
                          .walk = on_walk,
                          .shootdown = on_shootdown,
                          .translated = on_translated};
  machine_set_observer(m, &o);
  return l;
}

void tlblog_destroy(tlblog *l) {
  if (!l) return;
  machine_set_observer(l->m, NULL);
  free(l);
}

static tally take(const machine *m) {
  mmu_stats ms;
  system_stats(machine_get_system(m), &ms);
  const machine_stats *st = machine_get_stats(m);
  return (tally){tables_now(m), pt_mapped_pages(machine_get_pt(m)), ms.shootdowns, ms.entries_invalidated, st->oom,
                 st->page_faults, st->uvm};
}

static const char access_chars[] = "rwx";

static void prot_text(unsigned prot, char out[4]) {
  out[0] = prot & PT_R ? 'r' : '-';
  out[1] = prot & PT_W ? 'w' : '-';
  out[2] = prot & PT_X ? 'x' : '-';
  out[3] = '\0';
}

/* The record as the trace wrote it (native syntax), after "LINE: ". */
static void record_text(tlblog *l, const trace_record *r) {
  char p[4];
  add(l, "%lu: ", r->line);
  switch (r->kind) {
  case REC_ACCESS:
    if (r->relative)
      add(l, "%c @%llu+%#llx %llu", access_chars[r->access], (unsigned long long)r->alloc_id,
          (unsigned long long)r->addr, (unsigned long long)r->size);
    else
      add(l, "%c %#llx %llu", access_chars[r->access], (unsigned long long)r->addr, (unsigned long long)r->size);
    break;
  case REC_ALLOC: add(l, "alloc %llu %llu", (unsigned long long)r->alloc_id, (unsigned long long)r->size); break;
  case REC_FREE: add(l, "free %llu", (unsigned long long)r->alloc_id); break;
  case REC_MAP:
  case REC_UNMAP:
  case REC_PROTECT:
    add(l, "%s %#llx %#llx", trace_rec_kind_names[r->kind], (unsigned long long)r->addr, (unsigned long long)r->size);
    if (r->kind == REC_MAP && r->page_size) add(l, " page=%llu", (unsigned long long)r->page_size);
    if (r->kind != REC_UNMAP) prot_text(r->prot, p), add(l, " prot=%s", p);
    break;
  case REC_CTX: add(l, "ctx %u", r->asid); break;
  case REC_MARK: add(l, "mark %s", r->label); break;
  case REC_THREAD: add(l, "thread %u", r->thread); break;
  default: add(l, "%s", trace_rec_kind_names[r->kind]); break; /* a capture's driver bookkeeping: no effect here */
  }
}

/* Page-table pages a record created (or, net, freed). */
static void add_tables(tlblog *l, const tally *t0, const tally *t1) {
  if (t1->tables > t0->tables) add(l, " tables +%llu", (unsigned long long)(t1->tables - t0->tables));
  if (t1->tables < t0->tables) add(l, " tables -%llu", (unsigned long long)(t0->tables - t1->tables));
}

static void put_tables(json_object *o, const tally *t0, const tally *t1) {
  put_u64(o, "tables_created", t1->tables > t0->tables ? t1->tables - t0->tables : 0);
  put_u64(o, "tables_freed", t1->tables < t0->tables ? t0->tables - t1->tables : 0);
}

/* Where a layout record acts, found before it is applied (free, unmap,
 * protect) or after (alloc, map). */
typedef struct range {
  bool known;
  uint64_t va, size;
  unsigned page_shift; /* 0: none mapped there */
} range;

static range range_of(const tlblog *l, const trace_record *r) {
  range g = {0};
  machine_alloc a;
  switch (r->kind) {
  case REC_ALLOC:
  case REC_FREE:
    if (machine_alloc_find(l->m, r->alloc_id, &a) == 0) g = (range){true, a.va, a.size, 0};
    break;
  case REC_MAP:
  case REC_UNMAP:
  case REC_PROTECT: g = (range){true, r->addr, r->size, 0}; break;
  default: return g;
  }
  pt_mapping mp;
  if (g.known && pt_lookup(machine_get_pt(l->m), g.va, &mp)) g.page_shift = mp.page_shift;
  return g;
}

static void layout_line(tlblog *l, const trace_record *r, range g, const tally *t0, const tally *t1) {
  uint64_t cleared = r->kind == REC_PROTECT ? 0 : l->shootdown_events;
  uint64_t written = r->kind == REC_PROTECT ? l->shootdown_events : t1->mapped + cleared - t0->mapped;
  uint64_t shootdowns = t1->shootdowns - t0->shootdowns, dropped = t1->dropped - t0->dropped;
  bool oom = t1->oom != t0->oom;
  char buf[32];
  if (l->format == TLBLOG_TEXT) {
    if (g.known) {
      uint64_t end = g.va + g.size;
      add(l, " | va %#llx-%#llx", (unsigned long long)g.va, (unsigned long long)end);
      if (g.page_shift) add(l, " page %s", size_name(1ull << g.page_shift, buf, sizeof buf));
    }
    if (oom) add(l, " | oom");
    add(l, " | ptes +%llu -%llu", (unsigned long long)written, (unsigned long long)cleared);
    add_tables(l, t0, t1);
    add(l, " | shootdowns %llu entries %llu", (unsigned long long)shootdowns, (unsigned long long)dropped);
    return;
  }
  json_object *o = l->obj;
  json_object_object_add(o, "va", g.known ? json_object_new_uint64(g.va) : NULL);
  json_object_object_add(o, "end", g.known ? json_object_new_uint64(g.va + g.size) : NULL);
  json_object_object_add(o, "page_size", g.page_shift ? json_object_new_uint64(1ull << g.page_shift) : NULL);
  json_object_object_add(o, "oom", json_object_new_boolean(oom));
  put_u64(o, "ptes_written", written);
  put_u64(o, "ptes_cleared", cleared);
  put_tables(o, t0, t1);
  put_u64(o, "shootdowns", shootdowns);
  put_u64(o, "entries_shot_down", dropped);
}

static void access_end(tlblog *l, const trace_record *r, const tally *t0, const tally *t1) {
  if (l->format == TLBLOG_TEXT) {
    if (!l->translations) add(l, r->cap.op == UVM_HOST ? " | the host's" : " | not simulated");
    return;
  }
  json_object *o = l->obj;
  json_object_object_add(o, "kind", json_object_new_string((char[]){access_chars[r->access], 0}));
  put_u64(o, "size", r->size);
  if (r->relative) put_u64(o, "alloc", r->alloc_id), put_u64(o, "offset", r->addr);
  json_object *first = l->translations ? json_object_array_get_idx(l->pages, 0) : NULL;
  json_object *va = NULL, *pa = NULL;
  if (first) json_object_object_get_ex(first, "va", &va), json_object_object_get_ex(first, "pa", &pa);
  json_object_object_add(o, "va", r->relative ? json_object_get(va) : json_object_new_uint64(r->addr));
  json_object_object_add(o, "pa", json_object_get(pa));
  json_object_object_add(o, "levels", json_object_get(l->levels));
  put_u64(o, "walk_refs", l->walk_refs);
  json_object_object_add(o, "fault", l->fault ? json_object_new_string(l->fault) : NULL);
  put_u64(o, "page_faults", t1->page_faults - t0->page_faults);
  put_tables(o, t0, t1);
  put_u64(o, "cycles", l->cycles);
  put_u64(o, "translations", l->translations);
  if (l->translations > 1) {
    json_object_object_add(o, "pages", json_object_get(l->pages));
    return;
  }
  if (!first) return;
  /* One page: its own keys beside the record's. */
  json_object_object_foreach(first, key, val)
    if (!json_object_object_get_ex(o, key, NULL)) json_object_object_add(o, key, json_object_get(val));
}

/* What the record did to managed memory, when anything: " | uvm NAME +N
 * ..." in text, a "uvm" object of every counter's change in JSON. */
static void uvm_changes(tlblog *l, const tally *t0, const tally *t1) {
  if (!memcmp(&t0->uvm, &t1->uvm, sizeof t0->uvm)) return;
  json_object *o = l->format == TLBLOG_JSON ? json_object_new_object() : NULL;
  if (!o) add(l, " | uvm");
  for (const machine_uvm_field *f = machine_uvm_fields; f->name; f++) {
    uint64_t a = *(const uint64_t *)(const void *)((const char *)&t0->uvm + f->offset);
    uint64_t b = *(const uint64_t *)(const void *)((const char *)&t1->uvm + f->offset);
    if (o) put_u64(o, f->name, b - a);
    else if (b != a) add(l, " %s +%llu", f->name, (unsigned long long)(b - a));
  }
  if (o) json_object_object_add(l->obj, "uvm", o);
}

int tlblog_apply(tlblog *l, const trace_record *r, const char *file, diag *d) {
  l->len = 0;
  l->text[0] = '\0';
  l->translations = l->shootdown_events = 0;
  l->nlk = l->walks = l->unmapped_walks = l->line_hits = 0;
  l->pwc_hit = -1;
  l->cycles = l->walk_refs = 0;
  l->fault = NULL;
  if (l->format == TLBLOG_TEXT) record_text(l, r);
  else {
    l->obj = json_object_new_object();
    l->levels = json_object_new_array();
    l->pages = json_object_new_array();
    put_u64(l->obj, "line", r->line);
    json_object_object_add(l->obj, "record", json_object_new_string(trace_rec_kind_names[r->kind]));
  }
  bool before = r->kind == REC_FREE || r->kind == REC_UNMAP || r->kind == REC_PROTECT;
  range g = before ? range_of(l, r) : (range){0};
  tally t0 = take(l->m);
  int rc = machine_apply(l->m, r, file, d);
  tally t1 = take(l->m);
  if (r->kind == REC_ALLOC || r->kind == REC_MAP) g = range_of(l, r);
  switch (r->kind) {
  case REC_ACCESS: access_end(l, r, &t0, &t1); break;
  case REC_ALLOC:
  case REC_FREE:
  case REC_MAP:
  case REC_UNMAP:
  case REC_PROTECT: layout_line(l, r, g, &t0, &t1); break;
  case REC_CTX:
    if (l->format == TLBLOG_TEXT) {
      if (t1.tables != t0.tables) add(l, " |"), add_tables(l, &t0, &t1);
    } else {
      put_u64(l->obj, "asid", r->asid);
      put_tables(l->obj, &t0, &t1);
    }
    break;
  case REC_MARK:
    if (l->format == TLBLOG_JSON) json_object_object_add(l->obj, "label", json_object_new_string(r->label));
    break;
  case REC_THREAD:
    if (l->format == TLBLOG_JSON) put_u64(l->obj, "thread", r->thread);
    break;
  default: break;
  }
  uvm_changes(l, &t0, &t1);
  if (l->format == TLBLOG_TEXT) {
    fprintf(l->out, "%s\n", l->text);
  } else {
    if (rc) json_object_object_add(l->obj, "error", json_object_new_string(d ? d->msg : "error"));
    const int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
    fprintf(l->out, "%s\n", json_object_to_json_string_ext(l->obj, flags));
    json_object_put(l->obj);
    json_object_put(l->levels);
    json_object_put(l->pages);
    l->obj = l->levels = l->pages = NULL;
  }
  return rc;
}
