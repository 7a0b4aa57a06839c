/* tlbsim dump — the page table after a trace, level by level, in the form of
 * OSTEP's multilevel-paging homework: each table with its (simulated)
 * physical address, then its valid entries as `index: raw (decoded)`, so a
 * student can translate an address by hand from the dump alone. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/machine.h"

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
  fprintf(c->out, "%s table at %#llx: VA %#llx-%#llx, index VA[%u:%u], %u entries x %u B, %u valid\n", l->name,
          (unsigned long long)table_pa, (unsigned long long)va_base, (unsigned long long)s.last, s.hi, s.lo,
          nentries, l->entry_bytes, nvalid);
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
    explain_entry_text(&e, what, sizeof what);
    fprintf(c->out, "  %3u: 0x%016llx  %s\n", i, (unsigned long long)raw, what);
  }
}

int dump_pt(FILE *out, const machine *m) {
  const pt *t = machine_get_pt(m);
  const pt_format *f = pt_get_format(t);
  char buf[32];
  fprintf(out, "page table: format %s, %llu pages mapped, %s of tables\n", f->name,
          (unsigned long long)pt_mapped_pages(t), num_format_size(pt_total_bytes(t), buf, sizeof buf));
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

/* The page table as one JSON object (keys in README, "Page tables you can
 * see"); NULL when out of memory. at_label: the mark it stands at, or NULL. */
static json_object *dump_json(const machine *m, const char *at_label, unsigned long at_line) {
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

/* Record by record up to and including the first `mark LABEL`: its line, or 0 (diag). */
static unsigned long replay_to_mark(machine *m, trace_reader *r, const char *label, diag *d) {
  trace_record rec;
  int rc;
  while ((rc = trace_next(r, &rec, d)) == 1) {
    if (machine_apply(m, &rec, trace_get_path(r), d)) return 0;
    if (rec.kind == REC_MARK && !strcmp(rec.label, label)) return rec.line ? rec.line : 1;
  }
  if (rc == 0) diag_set(d, trace_get_path(r), 0, "no mark %s in the trace", label);
  return 0;
}

int cmd_dump(int argc, char **argv) {
  cli_config conf = {0};
  int trace_fmt = TRACE_AUTO;
  const char *at = NULL;
  int format = 0;
  uint64_t jobs = 0;
  static const char *const formats[] = {"text", "json", NULL};
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default: from the first bytes), native, lackey, din, binary, champsim or pinatrace"},
      {.name = "at-mark", .kind = OPT_TEXT, .dest = &at, .arg = "LABEL",
       .help = "stop at the first `mark LABEL` record and dump the table as it stands there"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &format, .arg = "F", .choices = formats,
       .help = "text (default) or json: levels[] of tables[], each with its valid_entries[]"},
      CLI_JOBS_OPT(&jobs),
  };
  const cli_spec spec = {
      .cmd = "dump", .usage = "[OPTIONS] TRACE|-", .operands = "TRACE", .min_operands = 1, .max_operands = 1,
      .about = "Replays TRACE through a machine (default preset x86-64) and prints the page table of\n"
               "the address space in use at its end, level by level: each table with its address and\n"
               "its valid entries as index: raw entry word (decoded fields). With --at-mark, the table\n"
               "as it stands at a mark of the trace.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine *m = cli_load_machine(&conf, "x86-64", &label, &d);
  if (!m) return cli_input_error(&d);
  trace_reader *r = trace_open_jobs(argv[first], (trace_format)trace_fmt, (unsigned)jobs, &d);
  rc = EXIT_INPUT;
  unsigned long line = 0;
  if (r && (at ? (line = replay_to_mark(m, r, at, &d)) != 0 : machine_replay(m, r, NULL, NULL, &d) == 0)) {
    if (format) {
      json_object *doc = dump_json(m, at, line);
      if (doc) {
        printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(doc);
        rc = EXIT_OK;
      }
    } else {
      if (at) printf("at mark %s (%s:%lu)\n", at, trace_get_path(r), line);
      if (dump_pt(stdout, m) == 0) rc = EXIT_OK;
    }
    if (rc) diag_set(&d, NULL, 0, "out of memory");
  }
  if (r) trace_close(r);
  if (rc) cli_input_error(&d);
  machine_destroy(m);
  return rc;
}
