/* Run results as a JSON document, rendered as JSON, CSV or text. */
#include "tlbsim/report.h"

#include "tlbsim/csv.h"
#include "tlbsim/num.h"
#include "tlbsim/stats.h"

#include <math.h>
#include <string.h>

const char *const report_format_names[] = {[REPORT_TEXT] = "text", [REPORT_JSON] = "json", [REPORT_CSV] = "csv", NULL};

int report_format_parse(const char *s, report_format *out) {
  for (int i = 0; report_format_names[i]; i++)
    if (!strcmp(s, report_format_names[i])) return *out = (report_format)i, 0;
  return -1;
}

json_object *report_real(double v) {
  if (!isfinite(v)) return NULL;
  char buf[NUM_REAL_MAX];
  return json_object_new_double_s(v, num_format_real(v, buf, sizeof buf));
}

json_object *report_ratio(uint64_t num, uint64_t den) { return den ? report_real((double)num / (double)den) : NULL; }

static void put_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

static void put_ratio(json_object *o, const char *key, uint64_t num, uint64_t den) {
  json_object_object_add(o, key, report_ratio(num, den));
}

/* The object a dotted name's last part goes in: "tlb.l1d.misses" →
 * doc.tlb.l1d, created on first use; *leaf gets "misses". */
static json_object *parent_of(json_object *doc, const char *name, char *buf, size_t len, const char **leaf) {
  snprintf(buf, len, "%s", name);
  json_object *at = doc;
  char *part = buf;
  for (char *dot; (dot = strchr(part, '.')); part = dot + 1) {
    *dot = '\0';
    json_object *next;
    if (!json_object_object_get_ex(at, part, &next)) {
      next = json_object_new_object();
      json_object_object_add(at, part, next);
    }
    at = next;
  }
  *leaf = part;
  return at;
}

/* Each phase's own counts: the difference of consecutive snapshots. */
static json_object *phases_json(const machine *m) {
  size_t n = machine_phase_count(m);
  const mmu_config *mc = &machine_get_spec(m)->sys.mmu;
  json_object *arr = json_object_new_array();
  machine_phase a = {0}, b;
  for (size_t i = 0; i < n; i++, a = b) {
    machine_phase_get(m, i, &b);
    json_object *p = json_object_new_object();
    json_object_object_add(p, "label", json_object_new_string(b.label));
    put_u64(p, "accesses", b.accesses - a.accesses);
    json_object *misses = json_object_new_object();
    for (unsigned l = 0; l < mc->nlevels; l++) put_u64(misses, mc->level[l].name, b.misses[l] - a.misses[l]);
    json_object_object_add(p, "misses", misses);
    put_u64(p, "walks", b.walks - a.walks);
    put_u64(p, "faults", b.faults - a.faults);
    put_u64(p, "page_faults", b.page_faults - a.page_faults);
    put_u64(p, "allocs", b.allocs - a.allocs);
    put_u64(p, "frees", b.frees - a.frees);
    put_u64(p, "maps", b.maps - a.maps);
    put_u64(p, "unmaps", b.unmaps - a.unmaps);
    put_u64(p, "shootdowns", b.shootdowns - a.shootdowns);
    put_u64(p, "cycles", b.cycles - a.cycles);
    put_ratio(p, "cycles_per_access", b.cycles - a.cycles, b.accesses - a.accesses);
    json_object_array_add(arr, p);
  }
  return arr;
}

/* The columns of sc into doc from snap (only the agent columns with
 * label NULL): the dotted names become nested objects. */
static void add_columns(json_object *doc, const stats_schema *sc, const stats_snapshot *snap,
                        const char *const *label) {
  for (size_t i = 0; i < sc->n; i++) {
    const stats_column *c = &sc->col[i];
    if (!label && !c->agent) continue;
    char buf[STATS_NAME_MAX];
    const char *leaf;
    json_object *at = parent_of(doc, c->name, buf, sizeof buf, &leaf), *v;
    if (c->kind == STATS_GROUP && json_object_object_get_ex(at, leaf, NULL)) continue;
    if (c->kind == STATS_GROUP) v = json_object_new_object();
    else if (c->kind == STATS_LABEL) v = json_object_new_string(label[c->at]);
    else if (c->kind == STATS_COUNT) v = json_object_new_uint64(stats_count(snap, c));
    else v = report_ratio(stats_count(snap, c), stats_denominator(snap, c));
    json_object_object_add(at, leaf, v);
  }
}

/* One object per CPU (agent) that made accesses, for a trace that names
 * threads (each thread a CPU): NULL otherwise. The same keys as the
 * report's own for what an agent has alone (its TLB levels, walks,
 * faults, cycles), counted by that agent. In CSV, columns cpus.ID.*: they
 * follow the trace, not the configuration, so they are `run`'s alone (a
 * sweep's columns come from its configurations). */
static json_object *cpus_json(const machine *m, const stats_schema *sc) {
  uint64_t seen = machine_agents(m);
  if (!seen) return NULL;
  json_object *all = json_object_new_array();
  for (unsigned a = 0; a < TRACE_THREAD_MAX; a++) {
    if (!(seen >> a & 1)) continue;
    stats_snapshot snap;
    stats_snapshot_agent(m, a, &snap);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "cpu", json_object_new_uint64(a));
    add_columns(o, sc, &snap, NULL);
    json_object_array_add(all, o);
  }
  return all;
}

json_object *report_run_json(const machine *m, const char *trace, const char *format_name, const char *config) {
  stats_schema sc;
  stats_snapshot snap;
  stats_schema_build(machine_get_spec(m), &sc);
  stats_snapshot_take(m, &snap);
  const char *label[STATS_NLABELS] = {[STATS_TRACE] = trace, [STATS_TRACE_FORMAT] = format_name,
                                      [STATS_CONFIG] = config,
                                      [STATS_PAGE_TABLE_FORMAT] = machine_get_spec(m)->format.name};
  json_object *doc = json_object_new_object();
  add_columns(doc, &sc, &snap, label);
  json_object *cpus = cpus_json(m, &sc);
  if (cpus) json_object_object_add(doc, "cpus", cpus);
  json_object_object_add(doc, "phases", phases_json(m));
  return doc;
}

void report_mark_partial(json_object *doc) { json_object_object_add(doc, "partial", json_object_new_boolean(1)); }

/* --- CSV: the document flattened ------------------------------------------ */

static uint64_t get_u64(json_object *o, const char *key);
static void flatten(json_object *o, const char *prefix, FILE *out, bool header, bool *first);

/* One CPU's object under prefix, without its "cpu" (the prefix says it). */
static void flatten_cpu(json_object *cpu, const char *prefix, FILE *out, bool header, bool *first) {
  json_object *copy = NULL;
  json_object_deep_copy(cpu, &copy, NULL);
  json_object_object_del(copy, "cpu");
  flatten(copy, prefix, out, header, first);
  json_object_put(copy);
}

static void flatten(json_object *o, const char *prefix, FILE *out, bool header, bool *first) {
  json_object_object_foreach(o, key, val) {
    char name[256];
    snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
    if (json_object_is_type(val, json_type_object)) {
      flatten(val, name, out, header, first);
      continue;
    }
    if (json_object_is_type(val, json_type_array)) { /* cpus: a column group per CPU; phases: JSON and text only */
      for (size_t i = 0; !strcmp(key, "cpus") && i < json_object_array_length(val); i++) {
        json_object *cpu = json_object_array_get_idx(val, i);
        char at[300];
        snprintf(at, sizeof at, "%s.%llu", name, (unsigned long long)get_u64(cpu, "cpu"));
        flatten_cpu(cpu, at, out, header, first);
      }
      continue;
    }
    fputs(*first ? "" : ",", out);
    *first = false;
    if (header) csv_write_field(out, name);
    else if (json_object_is_type(val, json_type_string)) csv_write_field(out, json_object_get_string(val));
    else if (val) fputs(json_object_to_json_string(val), out); /* null: an empty field */
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

/* A real of the document as the text report shows it: 3 decimals, or "-"
 * for null (a ratio of nothing). */
static const char *real_text(json_object *v, char *buf, size_t len) {
  if (!v) return "-";
  snprintf(buf, len, "%.3f", json_object_get_double(v));
  return buf;
}

static void write_phases_text(FILE *out, json_object *phases) {
  size_t n = phases ? json_object_array_length(phases) : 0;
  if (!n) return;
  fprintf(out, "\n%-20s %10s", "phase", "accesses");
  json_object_object_foreach(get_obj(json_object_array_get_idx(phases, 0), "misses"), lname, unused) {
    (void)unused;
    fprintf(out, " %10.10s", lname);
  }
  fprintf(out, " %8s %8s %8s %7s %7s %9s %12s\n", "walks", "faults", "pgfaults", "allocs", "frees", "shootdown",
          "cycles/acc");
  for (size_t i = 0; i < n; i++) {
    json_object *p = json_object_array_get_idx(phases, i);
    fprintf(out, "%-20.20s %10llu", json_object_get_string(get_obj(p, "label")),
            (unsigned long long)get_u64(p, "accesses"));
    json_object_object_foreach(get_obj(p, "misses"), name, miss) {
      (void)name;
      fprintf(out, " %10llu", (unsigned long long)json_object_get_uint64(miss));
    }
    uint64_t built = get_u64(p, "allocs") + get_u64(p, "maps"), torn = get_u64(p, "frees") + get_u64(p, "unmaps");
    char per[32];
    fprintf(out, " %8llu %8llu %8llu %7llu %7llu %9llu %12s\n", (unsigned long long)get_u64(p, "walks"),
            (unsigned long long)get_u64(p, "faults"), (unsigned long long)get_u64(p, "page_faults"),
            (unsigned long long)built, (unsigned long long)torn, (unsigned long long)get_u64(p, "shootdowns"),
            real_text(get_obj(p, "cycles_per_access"), per, sizeof per));
  }
  fprintf(out, "(misses per TLB level; faults: faulting accesses, pgfaults: pages mapped on first touch; allocs:\n"
               " alloc and map records, frees: free and unmap records)\n");
}

static void write_cpus_text(FILE *out, json_object *cpus) {
  size_t n = cpus ? json_object_array_length(cpus) : 0;
  if (!n) return;
  fprintf(out, "\n%-10s %14s", "cpu", "accesses");
  json_object_object_foreach(get_obj(json_object_array_get_idx(cpus, 0), "tlb"), lname, unused) {
    (void)unused;
    if (!strchr(lname, ':')) fprintf(out, " %14.14s", lname); /* every CPU has the same levels */
  }
  fprintf(out, " %14s %14s\n", "walks", "faults");
  for (size_t i = 0; i < n; i++) {
    json_object *c = json_object_array_get_idx(cpus, i);
    fprintf(out, "%-10llu %14llu", (unsigned long long)get_u64(c, "cpu"), (unsigned long long)get_u64(c, "accesses"));
    json_object_object_foreach(get_obj(c, "tlb"), name, lv)
      if (!strchr(name, ':')) fprintf(out, " %14llu", (unsigned long long)get_u64(lv, "misses"));
    fprintf(out, " %14llu %14llu\n", (unsigned long long)get_u64(c, "walks"), (unsigned long long)get_u64(c, "faults"));
  }
  fprintf(out, "(misses per TLB level; each CPU its own TLBs but for levels shared_by several)\n");
}

/* Each level's misses by the kind of access (reads, writes, fetches with
 * a miss there), as Dinero and cachegrind break them down. */
static void write_kinds_text(FILE *out, json_object *levels) {
  fprintf(out, "\n%-10s %14s %14s %14s   (accesses with a miss at the level, by kind)\n", "misses", "reads",
          "writes", "fetches");
  json_object_object_foreach(levels, name, lv) {
    if (strchr(name, ':')) continue; /* an array of a level: the level says it */
    fprintf(out, "%-10s %14llu %14llu %14llu\n", name, (unsigned long long)get_u64(lv, "read_misses"),
            (unsigned long long)get_u64(lv, "write_misses"), (unsigned long long)get_u64(lv, "fetch_misses"));
  }
}

static void write_text(FILE *out, json_object *doc) {
  fprintf(out, "trace     %s (%s)\n", json_object_get_string(get_obj(doc, "trace")),
          json_object_get_string(get_obj(doc, "trace_format")));
  if (get_obj(doc, "partial")) fprintf(out, "partial   interrupted: the counts are of the records read before it\n");
  fprintf(out, "config    %s, page table %s\n", json_object_get_string(get_obj(doc, "config")),
          json_object_get_string(get_obj(doc, "page_table_format")));
  uint64_t reads = get_u64(doc, "reads"), writes = get_u64(doc, "writes"), fetches = get_u64(doc, "fetches");
  uint64_t straddles = get_u64(doc, "straddles");
  fprintf(out, "accesses  %llu (%llu %s, %llu %s, %llu %s; %llu %s pages)\n",
          (unsigned long long)get_u64(doc, "accesses"), (unsigned long long)reads, num_noun(reads, "read", "reads"),
          (unsigned long long)writes, num_noun(writes, "write", "writes"), (unsigned long long)fetches,
          num_noun(fetches, "fetch", "fetches"), (unsigned long long)straddles,
          num_noun(straddles, "straddles", "straddle"));
  fprintf(out, "\n%-10s %14s %14s %14s %9s %14s %14s\n", "TLB", "lookups", "hits", "misses", "miss %", "evictions",
          "fills");
  json_object_object_foreach(get_obj(doc, "tlb"), name, lv) {
    const char *array = strchr(name, ':'); /* one array of a level split by page size */
    if (array) {
      fprintf(out, "  %-8s %14s %14llu %14s %9s %14llu %14llu\n", array, "", (unsigned long long)get_u64(lv, "hits"),
              "", "", (unsigned long long)get_u64(lv, "evictions"), (unsigned long long)get_u64(lv, "fills"));
      continue;
    }
    uint64_t acc = get_u64(lv, "accesses"), miss = get_u64(lv, "misses");
    char pct[16] = "-"; /* a level never looked up has no miss ratio */
    if (acc) snprintf(pct, sizeof pct, "%.3f%%", 100.0 * (double)miss / (double)acc);
    fprintf(out, "%-10s %14llu %14llu %14llu %9s %14llu\n", name, (unsigned long long)acc,
            (unsigned long long)get_u64(lv, "hits"), (unsigned long long)miss, pct,
            (unsigned long long)get_u64(lv, "evictions"));
  }
  write_kinds_text(out, get_obj(doc, "tlb"));
  fprintf(out, "\nwalks     %llu (%llu page-table references)\n", (unsigned long long)get_u64(doc, "walks"),
          (unsigned long long)get_u64(doc, "walk_refs"));
  json_object_object_foreach(get_obj(doc, "pwc"), lname, p) {
    uint64_t lookups = get_u64(p, "lookups");
    fprintf(out, "  walk cache %-6s %llu of %llu %s hit\n", lname, (unsigned long long)get_u64(p, "hits"),
            (unsigned long long)lookups, num_noun(lookups, "lookup", "lookups"));
  }
  uint64_t pf = get_u64(doc, "page_faults"), faults = get_u64(doc, "faults");
  fprintf(out, "faults    %llu demand-paging %s, %llu faulting %s\n", (unsigned long long)pf,
          num_noun(pf, "fault", "faults"), (unsigned long long)faults, num_noun(faults, "access", "accesses"));
  uint64_t sd = get_u64(doc, "shootdowns"), inv = get_u64(doc, "entries_invalidated");
  fprintf(out, "shootdown %llu %s, %llu %s invalidated\n", (unsigned long long)sd, num_noun(sd, "request", "requests"),
          (unsigned long long)inv, num_noun(inv, "entry", "entries"));
  fprintf(out, "page table %llu bytes now:", (unsigned long long)get_u64(doc, "page_table_bytes"));
  json_object_object_foreach(get_obj(doc, "page_table"), tname, t)
    fprintf(out, " %s %llu", tname, (unsigned long long)get_u64(t, "tables"));
  fprintf(out, " tables\n");
  uint64_t al = get_u64(doc, "allocs"), fr = get_u64(doc, "frees"), mp = get_u64(doc, "maps");
  uint64_t um = get_u64(doc, "unmaps"), ooms = get_u64(doc, "ooms");
  if (al || mp)
    fprintf(out, "layout    %llu %s, %llu %s, %llu %s, %llu %s, %llu %s\n", (unsigned long long)al,
            num_noun(al, "alloc", "allocs"), (unsigned long long)fr, num_noun(fr, "free", "frees"), (unsigned long long)mp,
            num_noun(mp, "map", "maps"), (unsigned long long)um, num_noun(um, "unmap", "unmaps"),
            (unsigned long long)ooms, num_noun(ooms, "OOM", "OOMs"));
  char per[32];
  fprintf(out, "cycles    %llu predicted, %s per access\n", (unsigned long long)get_u64(doc, "cycles"),
          real_text(get_obj(doc, "cycles_per_access"), per, sizeof per));
  write_cpus_text(out, get_obj(doc, "cpus"));
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
