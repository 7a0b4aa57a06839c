/* Run results as a JSON document, rendered as JSON, CSV or text. */
#include "tlbsim/report.h"

#include <string.h>

int report_format_parse(const char *s, report_format *out) {
  if (!strcmp(s, "text")) *out = REPORT_TEXT;
  else if (!strcmp(s, "json")) *out = REPORT_JSON;
  else if (!strcmp(s, "csv")) *out = REPORT_CSV;
  else return -1;
  return 0;
}

static void put_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

static void put_ratio(json_object *o, const char *key, uint64_t num, uint64_t den) {
  json_object_object_add(o, key, json_object_new_double(den ? (double)num / (double)den : 0.0));
}

static json_object *tlb_json(const machine *m) {
  const mmu *u = machine_get_mmu(m);
  const mmu_config *mc = mmu_get_config(u);
  const machine_stats *s = machine_get_stats(m);
  json_object *levels = json_object_new_object();
  for (unsigned i = 0; i < mc->nlevels; i++) {
    mmu_level_stats ls = mmu_level_get_stats(u, i);
    json_object *lv = json_object_new_object();
    put_u64(lv, "accesses", ls.accesses);
    put_u64(lv, "hits", ls.hits);
    put_u64(lv, "misses", ls.misses);
    put_ratio(lv, "miss_rate", ls.misses, ls.accesses);
    put_u64(lv, "access_misses", s->access_misses[i]);
    json_object_object_add(levels, mc->level[i].name, lv);
  }
  return levels;
}

static json_object *page_table_json(const machine *m, json_object **pwc) {
  const pt_format *f = pt_get_format(machine_get_pt(m));
  const mmu_stats *ms = mmu_get_stats(machine_get_mmu(m));
  json_object *levels = json_object_new_object();
  *pwc = json_object_new_object();
  for (unsigned i = 0; i < f->nlevels; i++) {
    pt_level_usage u = machine_pt_usage(m, i);
    json_object *lv = json_object_new_object();
    put_u64(lv, "tables", u.tables);
    put_u64(lv, "bytes", u.bytes);
    put_u64(lv, "tables_peak", u.tables_peak);
    put_u64(lv, "bytes_peak", u.bytes_peak);
    json_object_object_add(levels, f->level[i].name, lv);
    if (ms->pwc_lookups[i]) {
      json_object *p = json_object_new_object();
      put_u64(p, "lookups", ms->pwc_lookups[i]);
      put_u64(p, "hits", ms->pwc_hits[i]);
      json_object_object_add(*pwc, f->level[i].name, p);
    }
  }
  return levels;
}

/* Each phase's own counts: the difference of consecutive snapshots. */
static json_object *phases_json(machine *m) {
  const machine_phase *ph;
  size_t n = machine_phases(m, &ph);
  const mmu_config *mc = mmu_get_config(machine_get_mmu(m));
  json_object *arr = json_object_new_array();
  static const machine_phase zero;
  for (size_t i = 0; i < n; i++) {
    const machine_phase *a = i ? &ph[i - 1] : &zero, *b = &ph[i];
    json_object *p = json_object_new_object();
    json_object_object_add(p, "label", json_object_new_string(b->label));
    put_u64(p, "accesses", b->accesses - a->accesses);
    json_object *misses = json_object_new_object();
    for (unsigned l = 0; l < mc->nlevels; l++) put_u64(misses, mc->level[l].name, b->misses[l] - a->misses[l]);
    json_object_object_add(p, "misses", misses);
    put_u64(p, "walks", b->walks - a->walks);
    put_u64(p, "faults", b->faults - a->faults);
    put_u64(p, "page_faults", b->page_faults - a->page_faults);
    put_u64(p, "cycles", b->cycles - a->cycles);
    put_ratio(p, "cycles_per_access", b->cycles - a->cycles, b->accesses - a->accesses);
    json_object_array_add(arr, p);
  }
  return arr;
}

json_object *report_run_json(machine *m, const char *trace, const char *format_name, const char *config) {
  const machine_stats *s = machine_get_stats(m);
  const mmu_stats *ms = mmu_get_stats(machine_get_mmu(m));
  json_object *doc = json_object_new_object();
  json_object_object_add(doc, "trace", json_object_new_string(trace));
  json_object_object_add(doc, "trace_format", json_object_new_string(format_name));
  json_object_object_add(doc, "config", json_object_new_string(config));
  json_object_object_add(doc, "page_table_format",
                         json_object_new_string(pt_get_format(machine_get_pt(m))->name));
  put_u64(doc, "accesses", s->accesses);
  put_u64(doc, "reads", s->accesses_by_kind[ACC_READ]);
  put_u64(doc, "writes", s->accesses_by_kind[ACC_WRITE]);
  put_u64(doc, "fetches", s->accesses_by_kind[ACC_EXEC]);
  put_u64(doc, "translations", ms->translations);
  put_u64(doc, "straddles", s->straddles);
  json_object_object_add(doc, "tlb", tlb_json(m));
  put_u64(doc, "walks", ms->walks);
  put_u64(doc, "walk_refs", ms->walk_refs);
  json_object *pwc;
  json_object *levels = page_table_json(m, &pwc);
  json_object_object_add(doc, "pwc", pwc);
  put_u64(doc, "page_faults", s->page_faults);
  put_u64(doc, "faults", s->faults);
  put_u64(doc, "faults_unmapped", ms->faults_unmapped);
  put_u64(doc, "faults_protection", ms->faults_prot);
  put_u64(doc, "shootdowns", ms->shootdowns);
  put_u64(doc, "entries_invalidated", ms->entries_invalidated);
  put_u64(doc, "page_table_bytes", machine_pt_bytes(m));
  json_object_object_add(doc, "page_table", levels);
  put_u64(doc, "phys_used_bytes", phys_used(machine_get_phys(m)));
  put_u64(doc, "phys_used_peak_bytes", phys_used_peak(machine_get_phys(m)));
  put_u64(doc, "allocs", s->allocs);
  put_u64(doc, "frees", s->frees);
  put_u64(doc, "maps", s->maps);
  put_u64(doc, "unmaps", s->unmaps);
  put_u64(doc, "context_switches", s->context_switches);
  put_u64(doc, "ooms", s->oom);
  put_u64(doc, "cycles", ms->cycles);
  put_ratio(doc, "cycles_per_access", ms->cycles, s->accesses);
  json_object_object_add(doc, "phases", phases_json(m));
  return doc;
}

/* --- CSV: the document flattened ------------------------------------------ */

/* Plain when safe, else quoted with quotes doubled (RFC 4180). */
static void write_csv_string(FILE *out, const char *s) {
  if (!s[strcspn(s, ",\"\n\r")]) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void flatten(json_object *o, const char *prefix, FILE *out, bool header, bool *first) {
  json_object_object_foreach(o, key, val) {
    char name[256];
    snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (json_object_is_type(val, json_type_object)) {
      flatten(val, name, out, header, first);
      continue;
    }
    if (json_object_is_type(val, json_type_array)) continue; /* phases: JSON and text only */
    fputs(*first ? "" : ",", out);
    *first = false;
    if (header) fputs(name, out);
    else if (json_object_is_type(val, json_type_string)) write_csv_string(out, json_object_get_string(val));
    else fputs(json_object_to_json_string(val), out);
  }
}

void report_write_csv_row(FILE *out, json_object *doc, bool header) {
  bool first = true;
  if (header) {
    flatten(doc, "", out, true, &first);
    fputc('\n', out);
    first = true;
  }
  flatten(doc, "", out, false, &first);
  fputc('\n', out);
}

void report_write_csv(FILE *out, json_object *doc) { report_write_csv_row(out, doc, true); }

/* --- text ------------------------------------------------------------------- */

static uint64_t get_u64(json_object *o, const char *key) {
  json_object *v;
  return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 0;
}

static json_object *get_obj(json_object *o, const char *key) {
  json_object *v;
  return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void write_phases_text(FILE *out, json_object *phases) {
  size_t n = phases ? json_object_array_length(phases) : 0;
  if (!n) return;
  fprintf(out, "\n%-20s %10s", "phase", "accesses");
  json_object_object_foreach(get_obj(json_object_array_get_idx(phases, 0), "misses"), lname, unused) {
    (void)unused;
    fprintf(out, " %10.10s", lname);
  }
  fprintf(out, " %8s %8s %12s\n", "walks", "faults", "cycles/acc");
  for (size_t i = 0; i < n; i++) {
    json_object *p = json_object_array_get_idx(phases, i);
    fprintf(out, "%-20.20s %10llu", json_object_get_string(get_obj(p, "label")),
            (unsigned long long)get_u64(p, "accesses"));
    json_object_object_foreach(get_obj(p, "misses"), name, miss) {
      (void)name;
      fprintf(out, " %10llu", (unsigned long long)json_object_get_uint64(miss));
    }
    fprintf(out, " %8llu %8llu %12.3f\n", (unsigned long long)get_u64(p, "walks"),
            (unsigned long long)get_u64(p, "faults"), json_object_get_double(get_obj(p, "cycles_per_access")));
  }
  fprintf(out, "(misses per TLB level)\n");
}

static void write_text(FILE *out, json_object *doc) {
  json_object *v;
  fprintf(out, "trace     %s (%s)\n", json_object_get_string(get_obj(doc, "trace")),
          json_object_get_string(get_obj(doc, "trace_format")));
  fprintf(out, "config    %s, page table %s\n", json_object_get_string(get_obj(doc, "config")),
          json_object_get_string(get_obj(doc, "page_table_format")));
  fprintf(out, "accesses  %llu (%llu reads, %llu writes, %llu fetches; %llu straddle pages)\n",
          (unsigned long long)get_u64(doc, "accesses"), (unsigned long long)get_u64(doc, "reads"),
          (unsigned long long)get_u64(doc, "writes"), (unsigned long long)get_u64(doc, "fetches"),
          (unsigned long long)get_u64(doc, "straddles"));
  fprintf(out, "\n%-10s %14s %14s %14s %9s\n", "TLB", "lookups", "hits", "misses", "miss %");
  json_object_object_foreach(get_obj(doc, "tlb"), name, lv) {
    uint64_t acc = get_u64(lv, "accesses"), miss = get_u64(lv, "misses");
    fprintf(out, "%-10s %14llu %14llu %14llu %8.3f%%\n", name, (unsigned long long)acc,
            (unsigned long long)get_u64(lv, "hits"), (unsigned long long)miss,
            acc ? 100.0 * (double)miss / (double)acc : 0.0);
  }
  fprintf(out, "\nwalks     %llu (%llu page-table references)\n", (unsigned long long)get_u64(doc, "walks"),
          (unsigned long long)get_u64(doc, "walk_refs"));
  json_object_object_foreach(get_obj(doc, "pwc"), lname, p)
    fprintf(out, "  walk cache %-6s %llu of %llu lookups hit\n", lname, (unsigned long long)get_u64(p, "hits"),
            (unsigned long long)get_u64(p, "lookups"));
  fprintf(out, "faults    %llu demand-paging faults, %llu faulting accesses\n",
          (unsigned long long)get_u64(doc, "page_faults"), (unsigned long long)get_u64(doc, "faults"));
  fprintf(out, "shootdown %llu requests, %llu entries invalidated\n", (unsigned long long)get_u64(doc, "shootdowns"),
          (unsigned long long)get_u64(doc, "entries_invalidated"));
  fprintf(out, "page table %llu bytes now:", (unsigned long long)get_u64(doc, "page_table_bytes"));
  json_object_object_foreach(get_obj(doc, "page_table"), tname, t)
    fprintf(out, " %s %llu", tname, (unsigned long long)get_u64(t, "tables"));
  fprintf(out, " tables\n");
  if (get_u64(doc, "allocs") || get_u64(doc, "maps"))
    fprintf(out, "layout    %llu allocs, %llu frees, %llu maps, %llu unmaps, %llu OOMs\n",
            (unsigned long long)get_u64(doc, "allocs"), (unsigned long long)get_u64(doc, "frees"),
            (unsigned long long)get_u64(doc, "maps"), (unsigned long long)get_u64(doc, "unmaps"),
            (unsigned long long)get_u64(doc, "ooms"));
  v = get_obj(doc, "cycles_per_access");
  fprintf(out, "cycles    %llu predicted, %.3f per access\n", (unsigned long long)get_u64(doc, "cycles"),
          v ? json_object_get_double(v) : 0.0);
  write_phases_text(out, get_obj(doc, "phases"));
}

void report_write(FILE *out, report_format f, json_object *doc) {
  switch (f) {
  case REPORT_JSON:
    fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE), out);
    fputc('\n', out);
    break;
  case REPORT_CSV: report_write_csv(out, doc); break;
  case REPORT_TEXT: write_text(out, doc); break;
  }
}
