/* Tests for the per-access log: lines whose hits, misses and victims are
 * known by hand (a 2-entry fully associative LRU TLB of 4 KiB pages),
 * JSON lines that parse and add up to the MMU's counters, and no events
 * once the log is gone. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/tlblog.h"

static const char ini[] = "[machine]\nformat = x86-64-4\npage_size = 4K\nphys_memory = 64M\n"
                          "[latency]\ndata_cycles = 1\nwalk_ref_cycles = 10\n"
                          "[tlb.l1d]\nentries = 2\npolicy = lru\nlatency = 0\n";

static machine *make(void) {
  FILE *f = fopen("tlblog_test.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(ini, f);
  fclose(f);
  cfg *c = cfg_create();
  diag d;
  machine_spec spec;
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "tlblog_test.ini", &d), 0);
  CU_ASSERT_EQUAL_FATAL(machine_spec_read(c, &spec, &d), 0);
  cfg_destroy(c);
  machine *m = machine_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  return m;
}

/* Pages 1, 2, 1 (hit), 3 (evicts 2, the least recently used), 2 (evicts 1). */
static const uint64_t pages[] = {1, 2, 1, 3, 2};
#define NPAGES (sizeof pages / sizeof pages[0])

static void replay(tlblog *l) {
  for (unsigned i = 0; i < NPAGES; i++) {
    trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = pages[i] << 12 | 0x10, .size = 4,
                      .line = i + 1};
    diag d;
    CU_ASSERT_EQUAL(tlblog_apply(l, &r, "t", &d), 0);
  }
}

static void read_lines(FILE *f, char lines[][1024], unsigned max, unsigned *n) {
  rewind(f);
  *n = 0;
  while (*n < max && fgets(lines[*n], 1024, f)) (*n)++;
}

static void test_text_lines(void) {
  machine *m = make();
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  diag d;
  tlblog *l = tlblog_create(m, f, TLBLOG_TEXT, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  replay(l);
  char lines[8][1024];
  unsigned n;
  read_lines(f, lines, 8, &n);
  CU_ASSERT_EQUAL_FATAL(n, NPAGES);
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[0], "1: r 0x1010 4 | vpn 0x1 l1d set 0 miss; walk refs 5 "));
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[0], " page-fault; pfn "));
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[2], "3: r 0x1010 4 | vpn 0x1 l1d set 0 hit; pfn "));
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[2], "; cycles 1\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[3], "vpn 0x3 l1d set 0 miss evict 0x2; walk"));
  CU_ASSERT_PTR_NOT_NULL(strstr(lines[4], "vpn 0x2 l1d set 0 miss evict 0x1; walk"));
  CU_ASSERT_PTR_NULL(strstr(lines[1], "evict"));
  CU_ASSERT_EQUAL(mmu_level_get_stats(system_agent_mmu(machine_get_system(m), 0), 0).evictions, 2);
  /* Gone: its observer is cleared, and nothing more is written. */
  tlblog_destroy(l);
  long size = ftell(f);
  fseek(f, 0, SEEK_END);
  CU_ASSERT_EQUAL(ftell(f), size);
  trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = 0x5000, .size = 1, .line = 9};
  CU_ASSERT_EQUAL(machine_apply(m, &r, "t", &d), 0);
  fflush(f);
  fseek(f, 0, SEEK_END);
  CU_ASSERT_EQUAL(ftell(f), size);
  fclose(f);
  machine_destroy(m);
}

static uint64_t get_u64(json_object *o, const char *key) {
  json_object *v;
  CU_ASSERT_FATAL(json_object_object_get_ex(o, key, &v));
  return json_object_get_uint64(v);
}

static void test_json_lines_add_up(void) {
  machine *m = make();
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  diag d;
  tlblog *l = tlblog_create(m, f, TLBLOG_JSON, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  replay(l);
  tlblog_destroy(l);
  char lines[8][1024];
  unsigned n;
  read_lines(f, lines, 8, &n);
  CU_ASSERT_EQUAL_FATAL(n, NPAGES);
  static const int64_t victim[NPAGES] = {-1, -1, -1, 2, 1}; /* -1: none */
  uint64_t cycles = 0, refs = 0, hits = 0, evictions = 0;
  for (unsigned i = 0; i < n; i++) {
    json_object *o = json_tokener_parse(lines[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(get_u64(o, "line"), i + 1);
    CU_ASSERT_EQUAL(get_u64(o, "va"), pages[i] << 12 | 0x10);
    cycles += get_u64(o, "cycles");
    refs += get_u64(o, "walk_refs");
    json_object *levels, *pa;
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "levels", &levels));
    CU_ASSERT_EQUAL_FATAL(json_object_array_length(levels), 1);
    json_object *lv = json_object_array_get_idx(levels, 0), *v;
    CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_object_get(lv, "name")), "l1d");
    CU_ASSERT_EQUAL(get_u64(lv, "set"), 0);
    hits += json_object_get_boolean(json_object_object_get(lv, "hit"));
    CU_ASSERT_FATAL(json_object_object_get_ex(lv, "victim", &v));
    CU_ASSERT_EQUAL(v ? (int64_t)json_object_get_uint64(v) : -1, victim[i]);
    evictions += v != NULL;
    CU_ASSERT(json_object_object_get_ex(o, "pa", &pa) && pa && (json_object_get_uint64(pa) & 0xfff) == 0x10);
    json_object_put(o);
  }
  const mmu *u = system_agent_mmu(machine_get_system(m), 0);
  CU_ASSERT_EQUAL(cycles, mmu_get_stats(u)->cycles);
  CU_ASSERT_EQUAL(refs, mmu_get_stats(u)->walk_refs);
  CU_ASSERT_EQUAL(hits, 1);
  CU_ASSERT_EQUAL(hits, mmu_level_get_stats(u, 0).hits);
  CU_ASSERT_EQUAL(evictions, mmu_level_get_stats(u, 0).evictions);
  fclose(f);
  machine_destroy(m);
}

int main(void) {
  static const test_case cases[] = {{"text lines", test_text_lines},
                                    {"json lines add up", test_json_lines_add_up},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"tlblog", cases}, {NULL, NULL}};
  return harness_run(suites);
}
