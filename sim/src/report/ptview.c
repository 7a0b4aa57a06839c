/* Page tables in words: one translation walked entry by entry (explain)
 * and a whole table level by level (dump), as text or JSON (ptview.h). */
#include "tlbsim/ptview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

/* --- dump: the tables level by level ------------------------------------------ */

typedef struct dump_ctx {
  FILE *out;
  const pt_format *f;
  int last_level;
} dump_ctx;

/* The VA bits a table of nentries at `level` indexes, and the last VA it covers. */
typedef struct table_span {
  unsigned lo, hi;
  uint64_t last;
} table_span;

static table_span span_of(const pt_level_format *l, uint64_t va_base, uint32_t nentries) {
  unsigned bits = 0;
  while ((UINT32_C(1) << bits) < nentries) bits++;
  table_span s = {.lo = l->shift + l->bits - bits}; /* a larger leaf's table indexes fewer, higher bits */
  s.hi = s.lo + bits - 1;
  s.last = va_base + (((uint64_t)nentries << s.lo) - 1);
  return s;
}

static void dump_table(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa, uint32_t nentries,
                       const pt_table_entry *valid, uint32_t nvalid) {
  dump_ctx *c = ctx;
  const pt_level_format *l = &c->f->level[level];
  if ((int)level != c->last_level) fprintf(c->out, "\nlevel %u (%s)\n", level, l->name);
  c->last_level = (int)level;
  table_span s = span_of(l, va_base, nentries);
  fprintf(c->out, "%s table at %#llx: VA %#llx-%#llx, index VA[%u:%u], %u %s x %u B, %u valid\n", l->name,
          (unsigned long long)table_pa, (unsigned long long)va_base, (unsigned long long)s.last, s.hi, s.lo,
          nentries, num_noun(nentries, "entry", "entries"), l->entry_bytes, nvalid);
  for (uint32_t k = 0; k < nvalid; k++) {
    uint32_t i = valid[k].index;
    uint64_t raw = valid[k].raw;
    pt_entry e;
    diag d;
    char what[160];
    if (pt_entry_decode(c->f, level, raw, &e, &d)) { /* never: the pt wrote it */
      fprintf(c->out, "  %3u: 0x%016llx  undecodable: %s\n", i, (unsigned long long)raw, d.msg);
      continue;
    }
    ptview_entry_text(&e, what, sizeof what);
    fprintf(c->out, "  %3u: 0x%016llx  %s\n", i, (unsigned long long)raw, what);
  }
}

int ptview_dump_text(FILE *out, const machine *m) {
  const pt *t = machine_get_pt(m);
  const pt_format *f = pt_get_format(t);
  char buf[32];
  uint64_t pages = pt_mapped_pages(t);
  fprintf(out, "page table: format %s, %llu %s mapped, %s of tables\n", f->name, (unsigned long long)pages,
          num_noun(pages, "page", "pages"), num_format_size(pt_total_bytes(t), buf, sizeof buf));
  fprintf(out, "entry = 0xFFAAAAAAAAAAAAAA: flags FF = V 0x01 | R 0x02 | W 0x04 | X 0x08 | L(leaf) 0x10 |"
               " leaf size k << 5; AAAA.. = next table, or the frame's address (frame = address / page size)\n");
  dump_ctx c = {.out = out, .f = f, .last_level = -1};
  return pt_each_table(t, dump_table, &c);
}

/* --- JSON: the same tables and entries as data ------------------------------------ */

typedef struct json_ctx {
  const pt_format *f;
  json_object *levels; /* one object per level, tables[] under each */
} json_ctx;

static void add_u64(json_object *o, const char *k, uint64_t v) { json_object_object_add(o, k, json_object_new_uint64(v)); }

static json_object *entry_json(const pt_format *f, unsigned level, uint32_t index, uint64_t raw) {
  json_object *o = json_object_new_object();
  char hex[24], p[4];
  snprintf(hex, sizeof hex, "0x%016llx", (unsigned long long)raw); /* 64 bits: more than a JSON number holds exactly */
  add_u64(o, "index", index);
  json_object_object_add(o, "raw", json_object_new_string(hex));
  pt_entry e;
  diag d;
  if (pt_entry_decode(f, level, raw, &e, &d)) return o; /* never: the pt wrote it */
  json_object_object_add(o, "leaf", json_object_new_boolean(e.leaf));
  if (!e.leaf) {
    add_u64(o, "next_table", e.addr);
    return o;
  }
  p[0] = e.prot & PT_R ? 'r' : '-', p[1] = e.prot & PT_W ? 'w' : '-', p[2] = e.prot & PT_X ? 'x' : '-', p[3] = '\0';
  json_object_object_add(o, "prot", json_object_new_string(p));
  add_u64(o, "page_size", UINT64_C(1) << e.page_shift);
  add_u64(o, "frame", e.frame);
  add_u64(o, "pa", e.addr);
  return o;
}

static void json_table(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa, uint32_t nentries,
                       const pt_table_entry *valid, uint32_t nvalid) {
  json_ctx *c = ctx;
  const pt_level_format *l = &c->f->level[level];
  json_object *lv = json_object_array_get_idx(c->levels, level), *tables;
  json_object_object_get_ex(lv, "tables", &tables);
  table_span s = span_of(l, va_base, nentries);
  json_object *t = json_object_new_object(), *ents = json_object_new_array();
  add_u64(t, "table_pa", table_pa);
  add_u64(t, "va_first", va_base);
  add_u64(t, "va_last", s.last);
  add_u64(t, "index_hi", s.hi);
  add_u64(t, "index_lo", s.lo);
  add_u64(t, "entries", nentries);
  add_u64(t, "entry_bytes", l->entry_bytes);
  add_u64(t, "valid", nvalid);
  for (uint32_t k = 0; k < nvalid; k++) json_object_array_add(ents, entry_json(c->f, level, valid[k].index, valid[k].raw));
  json_object_object_add(t, "valid_entries", ents);
  json_object_array_add(tables, t);
}

json_object *ptview_dump_json(const machine *m, const char *at_label, unsigned long at_line) {
  const pt *t = machine_get_pt(m);
  const pt_format *f = pt_get_format(t);
  json_object *doc = json_object_new_object(), *levels = json_object_new_array();
  json_object_object_add(doc, "format", json_object_new_string(f->name));
  add_u64(doc, "va_bits", f->va_bits);
  add_u64(doc, "pages_mapped", pt_mapped_pages(t));
  add_u64(doc, "table_bytes", pt_total_bytes(t));
  json_object *mark = NULL;
  if (at_label) {
    mark = json_object_new_object();
    json_object_object_add(mark, "label", json_object_new_string(at_label));
    add_u64(mark, "line", at_line);
  }
  json_object_object_add(doc, "at_mark", mark);
  for (unsigned l = 0; l < f->nlevels; l++) {
    json_object *lv = json_object_new_object();
    add_u64(lv, "level", l);
    json_object_object_add(lv, "name", json_object_new_string(f->level[l].name));
    json_object_object_add(lv, "tables", json_object_new_array());
    json_object_array_add(levels, lv);
  }
  json_object_object_add(doc, "levels", levels);
  json_ctx c = {.f = f, .levels = levels};
  if (pt_each_table(t, json_table, &c)) {
    json_object_put(doc);
    return NULL;
  }
  return doc;
}

/* --- explain: one walk, entry by entry ---------------------------------------- */

static void print_bits(FILE *out, const pt_format *f, unsigned level, unsigned shift, uint64_t va) {
  unsigned bits = pt_format_index_bits(f, level, shift), lo = pt_format_index_shift(f, level, shift);
  fprintf(out, "  %-6s VA[%2u:%2u] = %-5llu", f->level[level].name, lo + bits - 1, lo,
          (unsigned long long)((va >> lo) & ((1ull << bits) - 1)));
}

/* Where the page would sit in each TLB array that holds its size. */
static void print_sets(FILE *out, const mmu_config *mc, uint64_t va, unsigned shift) {
  unsigned shown = 0;
  for (unsigned i = 0; i < mc->nlevels; i++)
    for (unsigned a = 0; a < mc->level[i].narrays; a++) {
      const tlb_geometry *g = &mc->level[i].array[a];
      bool holds = false;
      for (unsigned k = 0; k < g->npage_shifts; k++) holds |= g->page_shift[k] == shift;
      if (!holds) continue;
      uint64_t sets = g->entries / g->ways;
      shown++;
      uint64_t set = tlb_set_index(g, va, shift);
      fprintf(out, "  TLB %-6s set %llu of %llu (%u-way, %s index", mc->level[i].name, (unsigned long long)set,
             (unsigned long long)sets, g->ways, g->index == TLB_INDEX_XOR ? "xor-folded" : "modulo");
      if (g->index == TLB_INDEX_XOR && g->bank_bits)
        fprintf(out, ", bank %llu of %u", (unsigned long long)(set & ((1ull << g->bank_bits) - 1)), 1u << g->bank_bits);
      fprintf(out, ")\n");
    }
  if (!shown) fprintf(out, "  no TLB level holds pages of this size: every access walks\n");
}

/* The same as JSON: per array holding the size, its set and, for a modulo
 * index, the tag a textbook writes (TLBT: the VPN above the set bits). */
static json_object *sets_json(const mmu_config *mc, uint64_t va, unsigned shift) {
  json_object *arr = json_object_new_array();
  for (unsigned i = 0; i < mc->nlevels; i++)
    for (unsigned a = 0; a < mc->level[i].narrays; a++) {
      const tlb_geometry *g = &mc->level[i].array[a];
      bool holds = false;
      for (unsigned k = 0; k < g->npage_shifts; k++) holds |= g->page_shift[k] == shift;
      if (!holds) continue;
      uint64_t sets = g->entries / g->ways, vpn = (va >> shift) / g->sector_pages;
      json_object *x = json_object_new_object();
      json_object_object_add(x, "level", json_object_new_string(mc->level[i].name));
      json_object_object_add(x, "set", json_object_new_uint64(tlb_set_index(g, va, shift)));
      json_object_object_add(x, "sets", json_object_new_uint64(sets));
      json_object_object_add(x, "ways", json_object_new_uint64(g->ways));
      if (g->index == TLB_INDEX_MODULO) json_object_object_add(x, "tag", json_object_new_uint64(vpn / sets));
      json_object_array_add(arr, x);
    }
  return arr;
}

static const char *prot_text(unsigned prot, char buf[4]) {
  buf[0] = prot & PT_R ? 'r' : '-';
  buf[1] = prot & PT_W ? 'w' : '-';
  buf[2] = prot & PT_X ? 'x' : '-';
  buf[3] = 0;
  return buf;
}

void ptview_entry_text(const pt_entry *e, char *buf, size_t len) {
  char p[4], sz[32];
  if (!e->valid)
    snprintf(buf, len, "not valid");
  else if (e->leaf)
    snprintf(buf, len, "V %s leaf %s page, frame %#llx (pa %#llx)", prot_text(e->prot, p),
             num_format_size(1ull << e->page_shift, sz, sizeof sz), (unsigned long long)e->frame,
             (unsigned long long)e->addr);
  else
    snprintf(buf, len, "V next table %#llx", (unsigned long long)e->addr);
}

static char *hex(uint64_t v, char buf[24]) {
  snprintf(buf, 24, "0x%016llx", (unsigned long long)v);
  return buf;
}

/* One address's walk in the final table, as text or as a JSON object. */
static void explain_one(FILE *out, const pt *t, const mmu_config *mc, unsigned shift, uint64_t va, json_object *arr) {
  const pt_format *f = pt_get_format(t);
  pt_walk w;
  uint64_t raw[PT_MAX_LEVELS];
  pt_walk_va(t, va, &w);
  pt_walk_raw(t, va, raw);
  if (w.mapped) shift = w.map.page_shift;
  uint64_t page = 1ull << shift, off = va & (page - 1);
  char buf[32], h[24], what[160];
  json_object *o = NULL, *ents = NULL;
  if (arr) {
    o = json_object_new_object();
    ents = json_object_new_array();
    json_object_object_add(o, "va", json_object_new_uint64(va));
    uint64_t pa = w.mapped ? w.map.pa + off : 0;
    json_object_object_add(o, "pa", w.mapped ? json_object_new_uint64(pa) : NULL);
    json_object_object_add(o, "page_size", json_object_new_uint64(page));
    json_object_object_add(o, "mapped", json_object_new_boolean(w.mapped));
    uint64_t low = f->va_bits < 64 ? va & ((1ull << f->va_bits) - 1) : va; /* the bits a walk indexes */
    json_object_object_add(o, "vpn", json_object_new_uint64(low >> shift));
    json_object_object_add(o, "entries", ents);
    json_object_object_add(o, "tlb", sets_json(mc, va, shift));
    json_object_array_add(arr, o);
  } else {
    fprintf(out, "VA %#llx, format %s, %s page\n", (unsigned long long)va, f->name, num_format_size(page, buf, sizeof buf));
  }
  for (unsigned i = 0; i < w.nsteps; i++) {
    const pt_step *s = &w.step[i];
    pt_entry e;
    diag d;
    if (pt_entry_decode(f, s->level, raw[i], &e, &d)) e = (pt_entry){.raw = raw[i]}; /* never: pt wrote it */
    if (!arr) {
      ptview_entry_text(&e, what, sizeof what);
      print_bits(out, f, s->level, shift, va);
      fprintf(out, " entry %#llx (table %#llx + %u x %u B) = %s %s\n", (unsigned long long)s->entry_pa,
             (unsigned long long)s->table_pa, s->index, f->level[s->level].entry_bytes, hex(e.raw, h), what);
      continue;
    }
    json_object *x = json_object_new_object();
    char p[4];
    json_object_object_add(x, "level", json_object_new_string(f->level[s->level].name));
    json_object_object_add(x, "index", json_object_new_uint64(s->index));
    unsigned bits = pt_format_index_bits(f, s->level, shift), lo = pt_format_index_shift(f, s->level, shift);
    json_object *range = json_object_new_array_ext(2); /* the VA bits the index is, high and low */
    json_object_array_add(range, json_object_new_uint64(lo + bits - 1));
    json_object_array_add(range, json_object_new_uint64(lo));
    json_object_object_add(x, "va_bits", range);
    json_object_object_add(x, "table", json_object_new_uint64(s->table_pa));
    json_object_object_add(x, "entry_address", json_object_new_uint64(s->entry_pa));
    json_object_object_add(x, "raw", json_object_new_string(hex(e.raw, h)));
    json_object_object_add(x, "valid", json_object_new_boolean(e.valid));
    if (e.valid) json_object_object_add(x, "leaf", json_object_new_boolean(e.leaf));
    if (e.leaf) {
      json_object_object_add(x, "prot", json_object_new_string(prot_text(e.prot, p)));
      json_object_object_add(x, "page_size", json_object_new_uint64(1ull << e.page_shift));
      json_object_object_add(x, "frame", json_object_new_uint64(e.frame));
      json_object_object_add(x, "frame_address", json_object_new_uint64(e.addr));
    } else if (e.valid) {
      json_object_object_add(x, "next_table", json_object_new_uint64(e.addr));
    }
    json_object_array_add(ents, x);
  }
  if (arr) return;
  fprintf(out, "  offset VA[%2u: 0] = %#llx\n", shift - 1, (unsigned long long)off);
  uint64_t frame_pa = w.mapped ? w.map.pa : 0, pa = frame_pa + off, frame = frame_pa >> shift;
  if (w.mapped)
    fprintf(out, "  PA %#llx (frame %#llx at %#llx + offset); %u %s read\n", (unsigned long long)pa,
           (unsigned long long)frame, (unsigned long long)frame_pa, w.nsteps, num_noun(w.nsteps, "entry", "entries"));
  else
    fprintf(out, "  not mapped: an access faults; %u %s read\n", w.nsteps, num_noun(w.nsteps, "entry", "entries"));
  print_sets(out, mc, va, shift);
}

int ptview_explain(FILE *out, const machine_spec *ms, unsigned shift, const uint64_t *va, size_t n, bool json,
                   bool touch, diag *d) {
  const pt_format *f = &ms->format;
  machine_spec s = *ms;
  s.page_size = 1ull << shift;
  s.demand = DEMAND_ON; /* a textbook machine does not demand-page a trace; explain maps what it touches */
  machine *m = machine_create(&s, d);
  if (!m) return -1;
  int rc = 0;
  for (size_t i = 0; touch && rc == 0 && i < n; i++) {
    trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = va[i], .size = 1, .line = (unsigned long)i + 1};
    rc = machine_apply(m, &r, "explain", d);
  }
  if (rc == 0) {
    json_object *doc = json ? json_object_new_object() : NULL, *arr = json ? json_object_new_array() : NULL;
    if (json) {
      json_object_object_add(doc, "format", json_object_new_string(f->name));
      json_object_object_add(doc, "addresses", arr);
    }
    for (size_t i = 0; i < n; i++) explain_one(out, machine_get_pt(m), &s.sys.mmu, shift, va[i], arr);
    if (json) {
      fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
      json_object_put(doc);
    }
  }
  machine_destroy(m);
  return rc;
}
