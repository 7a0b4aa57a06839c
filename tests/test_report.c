/* Tests for the statistics schema, the run report and CSV fields: columns
 * come from the configuration, never from the data, and CSV is quoted and
 * split the RFC 4180 way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/csv.h"
#include "tlbsim/report.h"
#include "tlbsim/stats.h"

static const char ini[] =
    "[machine]\nformat = x86-64-4\npage_size = 4K\nphys_memory = 64M\n"
    "[tlb.l1d]\nentries = 8\nnext = stlb\n"
    "[tlb.stlb]\nentries = 32\nways = 4\n"
    "[pwc.PD]\nentries = 4\n";

static machine *make(machine_spec *spec) {
  FILE *f = fopen("report_test.ini", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(ini, f);
  fclose(f);
  cfg *c = cfg_create();
  diag d;
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, "report_test.ini", &d), 0);
  CU_ASSERT_EQUAL_FATAL(machine_spec_read(c, spec, &d), 0);
  cfg_destroy(c);
  machine *m = machine_create(spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  return m;
}

static int find(const stats_schema *sc, const char *name) {
  for (size_t i = 0; i < sc->n; i++)
    if (!strcmp(sc->col[i].name, name)) return (int)i;
  return -1;
}

static void touch(machine *m, uint64_t va) {
  trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = va, .size = 1, .line = 1};
  diag d;
  CU_ASSERT_EQUAL(machine_apply(m, &r, "t", &d), 0);
}

/* A walk cache no access reached still has its columns; every level has
 * its six; ratios divide the right counts. */
static void test_schema_from_configuration(void) {
  machine_spec spec;
  machine *m = make(&spec);
  stats_schema sc;
  stats_schema_build(&spec, &sc);
  CU_ASSERT(find(&sc, "pwc.PD.lookups") > 0);
  CU_ASSERT(find(&sc, "pwc.PD.hits") > 0);
  CU_ASSERT_EQUAL(find(&sc, "pwc.PT.hits"), -1);
  CU_ASSERT(find(&sc, "tlb.stlb.access_misses") > find(&sc, "tlb.l1d.accesses"));
  CU_ASSERT(find(&sc, "page_table.PML4.bytes_peak") > 0);
  CU_ASSERT(find(&sc, "tlb.l1d.evictions") > find(&sc, "tlb.l1d.access_misses"));
  touch(m, 0x1000);
  touch(m, 0x1008);
  touch(m, 0x5000);
  stats_snapshot snap;
  stats_snapshot_take(m, &snap);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "accesses")]), 3);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "tlb.stlb.accesses")]), 2);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "tlb.stlb.access_misses")]), 2);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "tlb.l1d.hits")]), 1);
  CU_ASSERT_DOUBLE_EQUAL(stats_ratio(&snap, &sc.col[find(&sc, "tlb.l1d.miss_ratio")]), 2.0 / 3, 1e-12);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "page_table.PT.tables")]), 1);
  CU_ASSERT_EQUAL(stats_count(&snap, &sc.col[find(&sc, "tlb.l1d.evictions")]), 0); /* 2 pages, 64 entries */
  machine_destroy(m);
}

static void csv_header(machine *m, char *out, size_t len) {
  json_object *doc = report_run_json(m, "t", "native", "c");
  FILE *f = fmemopen(out, len, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  report_write_csv(f, doc);
  fclose(f);
  json_object_put(doc);
  *strchr(out, '\n') = '\0';
}

/* Two runs of one configuration write the same columns, whatever they did;
 * an unused walk cache is an empty JSON object only when none exists. */
static void test_columns_do_not_depend_on_data(void) {
  machine_spec spec;
  machine *idle = make(&spec), *busy = make(&spec);
  for (uint64_t p = 0; p < 64; p++) touch(busy, p << 21);
  static char a[8192], b[8192];
  csv_header(idle, a, sizeof a);
  csv_header(busy, b, sizeof b);
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT_PTR_NOT_NULL(strstr(a, ",pwc.PD.lookups,pwc.PD.hits,"));
  machine_destroy(idle);
  machine_destroy(busy);
}

static void test_csv_fields(void) {
  char buf[256];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  csv_write_field(f, "plain");
  fputc(',', f);
  csv_write_field(f, "a,b");
  fputc(',', f);
  csv_write_field(f, "say \"hi\"");
  fputc(',', f);
  csv_write_field(f, "");
  fclose(f);
  CU_ASSERT_STRING_EQUAL(buf, "plain,\"a,b\",\"say \"\"hi\"\"\",");
  char *field[8];
  CU_ASSERT_EQUAL_FATAL(csv_split(buf, field, 8), 4);
  CU_ASSERT_STRING_EQUAL(field[1], "a,b");
  CU_ASSERT_STRING_EQUAL(field[2], "say \"hi\"");
  CU_ASSERT_STRING_EQUAL(field[3], "");
  char bad1[] = "\"open", bad2[] = "\"x\"y", many[] = "1,2,3";
  CU_ASSERT_EQUAL(csv_split(bad1, field, 8), -1);
  CU_ASSERT_EQUAL(csv_split(bad2, field, 8), -1);
  CU_ASSERT_EQUAL(csv_split(many, field, 2), -1);
}

int main(void) {
  static const test_case cases[] = {{"schema from configuration", test_schema_from_configuration},
                                    {"columns do not depend on data", test_columns_do_not_depend_on_data},
                                    {"csv fields", test_csv_fields},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"report", cases}, {NULL, NULL}};
  return harness_run(suites);
}
