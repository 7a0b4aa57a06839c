/* The driver-time model (tlbsim/alloctime.h): its tables, what a policy's
 * work costs, and the two timelines, every figure worked out by hand from
 * docs/ALLOC.md, "What the allocations cost in time". */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/alloctime.h"

#define NEAR(x, y) CU_ASSERT(fabs((x) - (y)) < 1e-9)

static int read_ini(const char *text, alloctime_config *out, diag *d) {
  cfg *c = cfg_create();
  int rc = cfg_load_text(c, "t.ini", text, d) || alloctime_config_read(c, out, d) ? -1 : 0;
  cfg_destroy(c);
  return rc;
}

/* Linear in log2(size) between points, constant past the ends. */
static void test_table(void) {
  alloctime_config c;
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_ini("[driver]\nmalloc_map_us = 2M:10, 8M:30\n", &c, &d), 0);
  CU_ASSERT(c.given);
  NEAR(alloctime_table_us(&c.malloc_map, 1), 10);
  NEAR(alloctime_table_us(&c.malloc_map, 2u << 20), 10);
  NEAR(alloctime_table_us(&c.malloc_map, 4u << 20), 20); /* halfway in log2 */
  NEAR(alloctime_table_us(&c.malloc_map, 8u << 20), 30);
  NEAR(alloctime_table_us(&c.malloc_map, 1u << 30), 30);
  NEAR(alloctime_table_us(&c.free_small, 4096), 0); /* not given: free */
  CU_ASSERT_EQUAL_FATAL(read_ini("[other]\nx = 1\n", &c, &d), 0);
  CU_ASSERT(!c.given);
}

static void test_table_errors(void) {
  alloctime_config c;
  diag d;
  CU_ASSERT_EQUAL(read_ini("[driver]\nfree_us = 1K:1, 1K:2\n", &c, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.ini:2: driver.free_us: '1K:2': sizes must increase"));
  CU_ASSERT_EQUAL(read_ini("[driver]\nfree_us = 1K\n", &c, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "is not SIZE:US"));
  CU_ASSERT_EQUAL(read_ini("[driver]\nsync_us = -1\n", &c, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.ini:2: driver.sync_us"));
}

/* A cudaMalloc maps one range however many pages a policy counts; one
 * that maps nothing is costed by the bytes asked; VMM per piece. */
static void test_work(void) {
  alloctime_config c;
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_ini("[driver]\nmalloc_us = 1:1\nmalloc_map_us = 2M:10, 8M:30\nfree_us = 1:2\n"
                                 "free_unmap_us = 1:20\nvmm_map_us = 2M:5\nvmm_unmap_us = 2M:7\n",
                                 &c, &d),
                        0);
  alloctime_work w = {.request = 100, .allocs = 1};
  NEAR(alloctime_work_us(&c, &w), 1);
  w = (alloctime_work){.request = 5u << 20, .allocs = 1, .maps = 4, .mapped = 8u << 20}; /* 4 pages, one range */
  NEAR(alloctime_work_us(&c, &w), 30);
  w = (alloctime_work){.request = 100, .frees = 1};
  NEAR(alloctime_work_us(&c, &w), 2);
  CU_ASSERT(alloctime_work_waits(&w));
  w = (alloctime_work){.request = 100, .vmm = true, .allocs = 1, .maps = 3, .mapped = 6u << 20};
  NEAR(alloctime_work_us(&c, &w), 15);
  CU_ASSERT(!alloctime_work_waits(&w));
  w.unmaps = 1, w.unmapped = 2u << 20;
  NEAR(alloctime_work_us(&c, &w), 22);
  CU_ASSERT(alloctime_work_waits(&w));
}

/* Two kernels back to back (the second queued), a free that waited in the
 * recording: policy 0 frees through the driver (waits, 2 us), policy 1
 * from its cache. In us: the recording's alloc ends at 10 (its cost 1),
 * kernel A runs 20-120 (launched at 20 - launch 2 = 18), B is queued and
 * runs 121-171, the free's t is 172 (sync 1 after B): it waited, so the
 * host's work before it is hidden_us = 3. */
static void test_timelines(void) {
  alloctime_config c;
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_ini("[driver]\nmalloc_us = 1:1\nfree_us = 1:2\nsync_us = 1\nlaunch_us = 2\n"
                                 "queue_us = 1.5\nhidden_us = 3\n",
                                 &c, &d),
                        0);
  alloctime *a = alloctime_create(&c, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  alloctime_work rec = {.request = 64, .allocs = 1}, p[2] = {{.request = 64, .allocs = 1}, {.request = 64}};
  alloctime_call(a, true, 10000, false, &rec, p); /* host: 9 + 1 = 10 (0), 9 (1) */
  alloctime_kernel(a, "A", 20000, 100000);       /* host +8: 18 / 17; A 20-120 / 19-119 */
  alloctime_kernel(a, "B", 121000, 50000);       /* queued: host +3 (hidden): 21 / 20; B 121-171 / 120-170 */
  rec = (alloctime_work){.request = 64, .frees = 1};
  p[0] = rec, p[1] = (alloctime_work){.request = 64};
  alloctime_call(a, true, 172000, true, &rec, p); /* hidden 3: 24 / 23; 0 waits till 171 + 1, then 2 */
  alloctime_sum s0 = alloctime_get(a, 0), s1 = alloctime_get(a, 1);
  CU_ASSERT(s0.timed && s1.timed);
  NEAR(s0.wall_s, (174 - 10) * 1e-6); /* the window opens at the first record, t = 10 */
  NEAR(s0.driver_s, (1 + 148 + 2) * 1e-6);
  NEAR(s0.wait_s, 148e-6);
  NEAR(s1.wall_s, (170 - 10) * 1e-6);
  NEAR(s1.driver_s, 0);
  alloctime_destroy(a);
}

/* --between: the sums count from the begin mark's record to the end's. */
static void test_window(void) {
  alloctime_config c;
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_ini("[driver]\nmalloc_us = 1:5\n", &c, &d), 0);
  alloctime *a = alloctime_create(&c, 1);
  alloctime_window(a, "begin", "end");
  alloctime_work w = {.request = 8, .allocs = 1};
  bool ended;
  alloctime_call(a, true, 1000, false, &w, &w); /* before the window */
  CU_ASSERT(!alloctime_window_seen(a, &ended));
  alloctime_mark(a, "begin", 2000);
  alloctime_call(a, true, 10000, false, &w, &w);
  alloctime_mark(a, "end", 20000);
  alloctime_call(a, true, 30000, false, &w, &w); /* after */
  CU_ASSERT(alloctime_window_seen(a, &ended) && ended);
  alloctime_sum s = alloctime_get(a, 0);
  NEAR(s.driver_s, 5e-6);
  NEAR(s.wall_s, 18e-6);
  alloctime_destroy(a);
}

int main(void) {
  static const test_case cases[] = {{"table", test_table},         {"table errors", test_table_errors},
                                    {"work", test_work},           {"timelines", test_timelines},
                                    {"window", test_window},       {NULL, NULL}};
  static const test_suite suites[] = {{"alloctime", cases}, {NULL, NULL}};
  return harness_run(suites);
}
