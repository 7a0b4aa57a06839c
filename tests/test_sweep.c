/* The sweep module: the --vary grid, the replay window on records that are
 * not accesses, threads that change nothing, and the union of columns. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tlbsim/loader.h"
#include "tlbsim/sweep.h"

/* ---- the grid ------------------------------------------------------------- */

static void test_grid(void) {
  sweep_grid *g = calloc(1, sizeof *g);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  char why[256];
  CU_ASSERT_EQUAL(sweep_grid_count(g), 1);
  CU_ASSERT_EQUAL(sweep_grid_add(g, "tlb.l1d.entries=16,32", why, sizeof why), 0);
  CU_ASSERT_EQUAL(sweep_grid_add(g, "tlb.l1d:2M.ways=1,2,4", why, sizeof why), 0);
  CU_ASSERT_EQUAL(sweep_grid_count(g), 6);
  const char *v[SWEEP_MAX_AXES];
  sweep_grid_values(g, 0, v);
  CU_ASSERT_STRING_EQUAL(v[0], "16");
  CU_ASSERT_STRING_EQUAL(v[1], "1");
  sweep_grid_values(g, 4, v); /* the last axis fastest */
  CU_ASSERT_STRING_EQUAL(v[0], "32");
  CU_ASSERT_STRING_EQUAL(v[1], "2");
  CU_ASSERT_STRING_EQUAL(g->axis[1].key, "tlb.l1d:2M.ways");
  static const char *const refused[] = {"tlb.l1d.entries=1", "tlb.l1d.ways=", "tlb.l1d.ways=1,", "tlb.l1d.ways=,1",
                                        "=1", "ways=1", "tlb.l1d.ways", "tlb.l1d.ways=2,2", NULL};
  for (size_t i = 0; refused[i]; i++) {
    CU_ASSERT_EQUAL(sweep_grid_add(g, refused[i], why, sizeof why), -1);
    CU_ASSERT_EQUAL(g->naxes, 2);
  }
  CU_ASSERT_EQUAL(sweep_grid_add(g, "tlb.l1d.entries=1", why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "a key not varied before (tlb.l1d.entries is)"));
  free(g);
}

/* "KEY=1,2,...,n" */
static void numbered(char *out, size_t len, const char *key, int n) {
  int at = snprintf(out, len, "%s=1", key);
  for (int i = 2; i <= n; i++) at += snprintf(out + at, len - (size_t)at, ",%d", i);
}

static void test_grid_limits(void) {
  sweep_grid *g = calloc(1, sizeof *g);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  char why[256], arg[SWEEP_AXIS_TEXT];
  numbered(arg, sizeof arg, "machine.seed", 64);
  CU_ASSERT_EQUAL(sweep_grid_add(g, arg, why, sizeof why), 0);
  numbered(arg, sizeof arg, "latency.data_cycles", 65);
  CU_ASSERT_EQUAL(sweep_grid_add(g, arg, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "within 4096 configurations"));
  numbered(arg, sizeof arg, "latency.data_cycles", 64);
  CU_ASSERT_EQUAL(sweep_grid_add(g, arg, why, sizeof why), 0);
  CU_ASSERT_EQUAL(sweep_grid_count(g), SWEEP_MAX_CONFIGS);
  const char *v[SWEEP_MAX_AXES];
  sweep_grid_values(g, SWEEP_MAX_CONFIGS - 1, v);
  CU_ASSERT_STRING_EQUAL(v[0], "64");
  CU_ASSERT_STRING_EQUAL(v[1], "64");
  free(g);
}

/* ---- replays ---------------------------------------------------------------- */

/* The spec of the x86-64 preset with `sets` applied. */
static void spec_of(const char *const *sets, machine_spec *out) {
  cfg *c = cfg_create();
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  diag d;
  CU_ASSERT_EQUAL_FATAL(loader_load_preset(c, "x86-64", &d), 0);
  for (unsigned i = 0; sets && sets[i]; i++) CU_ASSERT_EQUAL_FATAL(cfg_set(c, sets[i], "--set", i + 1, &d), 0);
  CU_ASSERT_EQUAL_FATAL(machine_spec_read(c, out, &d), 0);
  cfg_destroy(c);
}

/* Replays text through specs; returns sweep_trace's result. */
static int replay(const char *text, const machine_spec *specs, size_t n, sweep_window w, unsigned jobs,
                  stats_snapshot *out, diag *d) {
  char path[] = "sweep-XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
  trace_reader *r = trace_open(path, TRACE_NATIVE, d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  int rc = sweep_trace(specs, n, r, &w, jobs, out, d);
  trace_close(r);
  unlink(path);
  return rc;
}

/* A mapping, then ten reads of it: the map applies even when skipped over. */
static const char ten_reads[] = "r 0x10000 8\nmap 0x20000 64K\nr 0x20000 8\nr 0x21000 8\nr 0x22000 8\n"
                                "r 0x20000 8\nr 0x23000 8\nr 0x20008 8\nr 0x24000 8\nr 0x25000 8\nr 0x20000 8\n";

static void test_window(void) {
  static const char *const off[] = {"machine.demand_paging=off", NULL};
  machine_spec spec;
  spec_of(off, &spec);
  stats_snapshot all, s;
  diag d;
  CU_ASSERT_EQUAL(replay(ten_reads, &spec, 1, (sweep_window){0}, 1, &all, &d), 0);
  CU_ASSERT_EQUAL(all.machine.accesses, 10);
  CU_ASSERT_EQUAL(all.machine.faults, 1); /* the read before the map */
  CU_ASSERT_EQUAL(replay(ten_reads, &spec, 1, (sweep_window){.skip = 3}, 1, &s, &d), 0);
  CU_ASSERT_EQUAL(s.machine.accesses, 7);
  CU_ASSERT_EQUAL(s.machine.maps, 1);
  CU_ASSERT_EQUAL(s.machine.faults, 0);
  CU_ASSERT_EQUAL(replay(ten_reads, &spec, 1, (sweep_window){.warmup = 4}, 1, &s, &d), 0);
  CU_ASSERT_EQUAL(s.machine.accesses, 6);
  CU_ASSERT_EQUAL(s.machine.faults, 0);
  CU_ASSERT_EQUAL(s.mmu.walks + 4, all.mmu.walks); /* pages 0x10, 0x20, 0x21, 0x22 walked in the warm-up */
  CU_ASSERT_EQUAL(s.table_bytes, all.table_bytes); /* a level, not a count */
  CU_ASSERT_EQUAL(replay(ten_reads, &spec, 1, (sweep_window){.warmup = 11}, 1, &s, &d), 0);
  CU_ASSERT_EQUAL(s.machine.accesses, 0); /* the trace ended in the warm-up */
  CU_ASSERT_EQUAL(s.mmu.walks, 0);
  CU_ASSERT_EQUAL(replay(ten_reads, &spec, 1, (sweep_window){.skip = 1, .warmup = 1, .max = 3}, 1, &s, &d), 0);
  CU_ASSERT_EQUAL(s.machine.accesses, 2);
  CU_ASSERT_EQUAL(s.machine.records, 2);
}

/* --interval: the calls' counts add up to the whole replay's. */
typedef struct iv_sum {
  uint64_t calls, accesses, walks, maps, records, last_end;
  bool ordered;
} iv_sum;

static void add_interval(void *ctx, const sweep_interval *iv) {
  iv_sum *s = ctx;
  s->ordered = s->ordered && iv->index == s->calls && iv->accesses_end > s->last_end && iv->n == 1;
  s->calls++;
  s->last_end = iv->accesses_end;
  s->accesses += iv->snap[0].machine.accesses;
  s->walks += iv->snap[0].mmu.walks;
  s->maps += iv->snap[0].machine.maps;
  s->records += iv->snap[0].machine.records;
}

static void test_intervals(void) {
  static const char *const off[] = {"machine.demand_paging=off", NULL};
  machine_spec spec;
  spec_of(off, &spec);
  static const sweep_window windows[] = {{0}, {.skip = 1}, {.warmup = 2}, {.skip = 1, .warmup = 1, .max = 7}};
  for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++)
    for (uint64_t every = 1; every <= 12; every++) {
      stats_snapshot whole, s;
      diag d;
      CU_ASSERT_EQUAL_FATAL(replay(ten_reads, &spec, 1, windows[k], 1, &whole, &d), 0);
      iv_sum sum = {.ordered = true};
      sweep_window w = windows[k];
      w.interval = every;
      w.on_interval = add_interval;
      w.ctx = &sum;
      CU_ASSERT_EQUAL_FATAL(replay(ten_reads, &spec, 1, w, 2, &s, &d), 0);
      CU_ASSERT(memcmp(&s, &whole, sizeof s) == 0); /* intervals change nothing else */
      CU_ASSERT(sum.ordered);
      CU_ASSERT_EQUAL(sum.accesses, whole.machine.accesses);
      CU_ASSERT_EQUAL(sum.walks, whole.mmu.walks);
      CU_ASSERT_EQUAL(sum.maps, whole.machine.maps);
      CU_ASSERT_EQUAL(sum.records, whole.machine.records);
      uint64_t counted = whole.machine.accesses;
      CU_ASSERT_EQUAL(sum.calls, (counted + every - 1) / every); /* full ones, then the rest */
    }
}

static void test_jobs(void) {
  static const char *const sets[][3] = {{"tlb.l1d.entries=4", "tlb.l1d.ways=1", NULL},
                                        {"tlb.l1d.entries=8", "pwc.PD.entries=0", NULL},
                                        {"tlb.l1d.entries=16", NULL, NULL},
                                        {"tlb.stlb.entries=96", "tlb.stlb.ways=6", NULL},
                                        {"latency.data_cycles=1", NULL, NULL}};
  enum { N = sizeof sets / sizeof sets[0] };
  machine_spec spec[N];
  for (size_t i = 0; i < N; i++) spec_of(sets[i], &spec[i]);
  char *text = malloc(40 * 30000);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  size_t at = 0;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 30000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    at += (size_t)sprintf(text + at, "%c 0x%llx 8\n", "rw"[x & 1], (unsigned long long)(x >> 40 & ~7ull));
  }
  stats_snapshot one[N], many[N];
  diag d;
  sweep_window w = {.skip = 5000, .warmup = 9000, .max = 20000};
  CU_ASSERT_EQUAL(replay(text, spec, N, w, 1, one, &d), 0);
  for (unsigned jobs = 2; jobs <= 8; jobs += 3) {
    CU_ASSERT_EQUAL(replay(text, spec, N, w, jobs, many, &d), 0);
    CU_ASSERT(memcmp(one, many, sizeof one) == 0);
  }
  CU_ASSERT_EQUAL(one[0].machine.accesses, 11000);
  CU_ASSERT(one[0].level[0].misses > one[2].level[0].misses); /* 4 entries miss more than 16 */
  free(text);
}

static void test_errors(void) {
  machine_spec spec[3];
  static const char *const small[] = {"tlb.l1d.entries=4", NULL};
  spec_of(NULL, &spec[0]);
  spec_of(small, &spec[1]);
  spec_of(NULL, &spec[2]);
  stats_snapshot s[3];
  diag d;
  CU_ASSERT_EQUAL(replay("r 0x1000 8\nr 0x1000000000000 8\n", spec, 3, (sweep_window){0}, 2, s, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":2: address 0x1000000000000 is beyond the 48-bit"));
  CU_ASSERT_EQUAL(replay("r 0x1000 8\nr 0x2000 eight\n", spec, 3, (sweep_window){0}, 3, s, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":2:"));
}

/* ---- columns ------------------------------------------------------------- */

static void test_columns(void) {
  static const char *const no_pd[] = {"pwc.PD.entries=0", NULL};
  machine_spec spec[2];
  spec_of(no_pd, &spec[0]);
  spec_of(NULL, &spec[1]);
  sweep_columns *u = malloc(sizeof *u);
  CU_ASSERT_PTR_NOT_NULL_FATAL(u);
  diag d;
  CU_ASSERT_EQUAL(sweep_columns_build(spec, 2, u, &d), 0);
  stats_schema sc;
  stats_schema_build(&spec[1], &sc);
  size_t kept = 0;
  for (size_t i = 0; i < sc.n; i++) {
    if (sc.col[i].kind == STATS_GROUP || !strcmp(sc.col[i].name, "trace")) /* config stays, as in run */
      continue;
    CU_ASSERT_STRING_EQUAL(u->col[kept].name, sc.col[i].name); /* the full schema's order */
    kept++;
  }
  CU_ASSERT_EQUAL(u->n, kept);
  CU_ASSERT_EQUAL(sweep_columns_build(spec, 1, u, &d), 0);
  CU_ASSERT_EQUAL(u->n, kept - 2); /* no pwc.PD.lookups, pwc.PD.hits */
  free(u);
}

int main(void) {
  static const test_case grid[] = {{"grid", test_grid}, {"grid_limits", test_grid_limits}, {NULL, NULL}};
  static const test_case run[] = {{"window", test_window}, {"intervals", test_intervals},
                                  {"jobs", test_jobs}, {"errors", test_errors},
                                  {"columns", test_columns}, {NULL, NULL}};
  static const test_suite suites[] = {{"sweep_grid", grid}, {"sweep_run", run}, {NULL, NULL}};
  return harness_run(suites);
}
