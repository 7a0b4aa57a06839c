/* tests/test_rows.c — the declared row schema (tlbsim/rows.h): every kind's
 * columns, a row written through csv.h, the mapping names the GPU suite and
 * the simulator share; and the comma lists of num.h that both read options
 * with (num_parse_list, num_parse_real_list). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/num.h"
#include "tlbsim/rows.h"

static void test_columns(void) {
  size_t n;
  const char *const *c = rows_columns(ROWS_UVM, &n);
  CU_ASSERT_EQUAL(n, ROWS_UVM_COLUMNS);
  CU_ASSERT_STRING_EQUAL(c[0], "init");
  CU_ASSERT_STRING_EQUAL(c[ROWS_UVM_GATHER2_LPNS], "gather2_lpns");
  CU_ASSERT_STRING_EQUAL(rows_column(ROWS_CHASE, ROWS_CHASE_CYCLES), "cycles_per_access");
  CU_ASSERT_STRING_EQUAL(rows_column(ROWS_CHASE, ROWS_CHASE_REGION), "region");
  CU_ASSERT_STRING_EQUAL(rows_column(ROWS_GATHER, ROWS_GATHER_LOADS_PER_NS), "loads_per_ns");
  CU_ASSERT_STRING_EQUAL(rows_column(ROWS_EMBED, ROWS_EMBED_NS), "ns");
  CU_ASSERT_STRING_EQUAL(rows_column(ROWS_EMBED, 999), "?");
  /* Every kind declares every column once, no empty name, within ROWS_MAX_COLUMNS. */
  for (int k = 0; k < ROWS_KIND_COUNT; k++) {
    c = rows_columns((rows_kind)k, &n);
    CU_ASSERT(n > 0 && n <= ROWS_MAX_COLUMNS);
    for (size_t i = 0; i < n; i++) {
      CU_ASSERT_PTR_NOT_NULL_FATAL(c[i]);
      CU_ASSERT(*c[i]);
      for (size_t j = 0; j < i; j++) CU_ASSERT(strcmp(c[i], c[j]));
    }
  }
}

static void test_row_write(void) {
  FILE *f = tmpfile();
  diag d;
  CU_ASSERT_EQUAL(rows_header(f, ROWS_LAYOUT, &d), 0);
  rows_line l;
  rows_begin(&l, ROWS_LAYOUT);
  rows_text(&l, ROWS_LAYOUT_SOURCE, "a,\"b\"");
  rows_u64(&l, ROWS_LAYOUT_INDEX, 18446744073709551615ull);
  rows_hex(&l, ROWS_LAYOUT_ID, 0x7f00);
  rows_i64(&l, ROWS_LAYOUT_OFFSET, -4096);
  CU_ASSERT_EQUAL(rows_write(f, &l, true, &d), 0);
  rows_begin(&l, ROWS_LAYOUT);
  rows_real(&l, ROWS_LAYOUT_SIZE, "%.3f", 2.5);
  CU_ASSERT_EQUAL(rows_write(f, &l, false, &d), 0);
  rewind(f);
  char buf[512];
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  buf[got] = '\0';
  CU_ASSERT_STRING_EQUAL(buf, "source,case,index,id,size_bytes,offset_bytes\n"
                              "\"a,\"\"b\"\"\",,18446744073709551615,0x7f00,,-4096\n"
                              ",,,,2.500,\n");
  fclose(f);
}

static void test_mappings(void) {
  region_mapping m;
  CU_ASSERT_EQUAL(region_mapping_parse("cudamalloc", &m), 0);
  CU_ASSERT_EQUAL(m, REGION_CUDAMALLOC);
  CU_ASSERT_EQUAL(region_mapping_parse("managed", &m), 0);
  CU_ASSERT_EQUAL(m, REGION_MANAGED);
  CU_ASSERT_EQUAL(region_mapping_parse("pinned", &m), -1);
  int k = 0;
  while (region_mapping_names[k]) k++;
  CU_ASSERT_EQUAL(k, REGION_MAPPING_COUNT);
  CU_ASSERT(GPU_MAX_SMS >= 132);
}

static void test_num_lists(void) {
  uint64_t v[64];
  size_t n;
  CU_ASSERT_EQUAL(num_parse_list("4K,2M,64K..1M", NUM_SIZE, 1, v, 64, &n), 0);
  CU_ASSERT_EQUAL(n, 7);
  CU_ASSERT_EQUAL(v[0], 4096);
  CU_ASSERT_EQUAL(v[2], 65536);
  CU_ASSERT_EQUAL(v[6], 1u << 20);
  CU_ASSERT_EQUAL(num_parse_list("1G..2G", NUM_SIZE, 4, v, 64, &n), 0);
  CU_ASSERT_EQUAL(n, 5); /* 1, 1.19, 1.41, 1.68, 2 GiB */
  CU_ASSERT_EQUAL(v[2], 1518500250ull);
  CU_ASSERT_EQUAL(num_parse_list("32,64..2048", NUM_WHOLE, 1, v, 64, &n), 0);
  CU_ASSERT_EQUAL(n, 7);
  CU_ASSERT_EQUAL(v[6], 2048);
  const char *bad[] = {"", ",", "4K,", "x", "0..4", "8..4", "4K..x", "1..", "64K", "1,,2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CU_ASSERT_EQUAL(num_parse_list(bad[i], i == 8 ? NUM_WHOLE : NUM_SIZE, 1, v, 64, &n), -1);
  CU_ASSERT_EQUAL(num_parse_list("1..1024", NUM_WHOLE, 1, v, 4, &n), -1); /* more than max */
  double r[8];
  CU_ASSERT_EQUAL(num_parse_real_list("0,0.4,1.2", 0, 10, r, 8, &n), 0);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_DOUBLE_EQUAL(r[2], 1.2, 1e-12);
  CU_ASSERT_EQUAL(num_parse_real_list("0,11", 0, 10, r, 8, &n), -1);
  CU_ASSERT_EQUAL(num_parse_real_list("0,,1", 0, 10, r, 8, &n), -1);
  CU_ASSERT_EQUAL(num_parse_real_list("nan", 0, 10, r, 8, &n), -1);
}

int main(void) {
  static const test_case rows[] = {{"columns", test_columns},
                                   {"a row through csv.h", test_row_write},
                                   {"mapping names", test_mappings},
                                   {NULL, NULL}};
  static const test_case num[] = {{"comma lists", test_num_lists}, {NULL, NULL}};
  static const test_suite suites[] = {{"rows", rows}, {"num_lists", num}, {NULL, NULL}};
  return harness_run(suites);
}
