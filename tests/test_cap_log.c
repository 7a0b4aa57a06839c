/* test_cap_log.c — libtlbsim-capture's trace writing, without a GPU:
 * driver events in, the native trace read back with tlbsim's own reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cap_log.h"
#include "harness.h"
#include "tlbsim/pt.h"
#include "tlbsim/uvm.h"

#define MAX_RECS 256

static void temp_path(char path[64]) {
  snprintf(path, 64, "/tmp/tlbsim-cap-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
  unlink(path); /* a capture refuses an existing file */
}

/* The records of path (all of them, up to MAX_RECS). */
static size_t read_back(const char *path, trace_record *out) {
  diag d;
  trace_reader *r = trace_open(path, TRACE_NATIVE, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  size_t n = 0;
  int rc;
  while (n < MAX_RECS && (rc = trace_next(r, &out[n], &d)) == 1) n++;
  CU_ASSERT_EQUAL(rc, 0);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  trace_close(r);
  return n;
}

static cap_event ev(cap_kind k, uint64_t t) { return (cap_event){.kind = k, .t_ns = t, .device = 0}; }

static void add(cap_log *l, cap_event e) {
  diag d;
  CU_ASSERT_EQUAL(cap_log_add(l, &e, &d), 0);
}

/* Events given out of time order (activity records come late) come out
 * sorted, addresses name allocation IDs, handles and pools get numbers. */
static void test_order_and_names(void) {
  char path[64];
  temp_path(path);
  diag d;
  cap_log *l = cap_log_open(path, 1000, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  cap_event a = ev(CAP_ALLOC, 2000);
  a.va = 0x7f0000000000, a.size = 2 << 20, a.stream = 7, a.dur_ns = 30000;
  cap_event f = ev(CAP_FREE, 5000);
  f.va = a.va;
  add(l, f); /* the free's record came first */
  add(l, a);
  cap_event h = ev(CAP_HANDLE, 3000);
  h.handle = 0xdead0001, h.size = 2 << 20;
  cap_event m = ev(CAP_MAP, 3100);
  m.va = 0x7f5000000000, m.size = 2 << 20, m.handle = 0xdead0001;
  cap_event p = ev(CAP_PROTECT, 3200);
  p.va = m.va, p.size = m.size, p.prot = PT_R | PT_W;
  cap_event u = ev(CAP_UNMAP, 3300);
  u.va = m.va, u.size = m.size;
  cap_event rel = ev(CAP_RELEASE, 3400);
  rel.handle = h.handle;
  add(l, h), add(l, m), add(l, p), add(l, u), add(l, rel);
  cap_event k = ev(CAP_KERNEL, 2500);
  k.name = "_Z6vecaddPfS_S_i", k.grid[0] = 1024, k.grid[1] = k.grid[2] = 1, k.block[0] = 256, k.dur_ns = 5000;
  k.block[1] = k.block[2] = 1, k.stream = 7;
  add(l, k);
  cap_event ma = ev(CAP_ALLOC, 2600); /* from pool 0x7e00..., never created in the capture */
  ma.va = 0x7e0000000000, ma.size = 4096, ma.pool = 0x7e0000000000, ma.stream = 3;
  add(l, ma);
  cap_event mi = ev(CAP_MEMINFO, 2700);
  mi.size = 100, mi.total = 1000;
  add(l, mi);
  cap_counts c;
  CU_ASSERT_EQUAL_FATAL(cap_log_close(l, &c, &d), 0);
  trace_record r[MAX_RECS];
  size_t n = read_back(path, r);
  CU_ASSERT_EQUAL_FATAL(n, 11);
  CU_ASSERT_EQUAL(c.records, 11);
  CU_ASSERT_EQUAL(c.late, 0);
  CU_ASSERT_EQUAL(r[0].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[0].alloc_id, 1);
  CU_ASSERT_EQUAL(r[0].cap.va, 0x7f0000000000ull);
  CU_ASSERT_EQUAL(r[0].cap.time_ns, 1000); /* since t0 */
  CU_ASSERT_EQUAL(r[0].cap.dur_ns, 30000);
  CU_ASSERT_EQUAL(r[0].stream, 7);
  CU_ASSERT_EQUAL(r[1].kind, REC_MARK);
  CU_ASSERT_STRING_EQUAL(r[1].label, "_Z6vecaddPfS_S_i");
  CU_ASSERT_EQUAL(r[1].cap.grid[0], 1024);
  CU_ASSERT_EQUAL(r[1].cap.block[0], 256);
  CU_ASSERT_EQUAL(r[2].kind, REC_POOL); /* the pool, created where first used */
  CU_ASSERT_EQUAL(r[2].cap.op, TRACE_POOL_CREATE);
  CU_ASSERT_EQUAL(r[2].cap.va, 0x7e0000000000ull);
  CU_ASSERT_EQUAL(r[3].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[3].cap.pool, r[2].cap.pool);
  CU_ASSERT_EQUAL(r[4].kind, REC_MEMINFO);
  CU_ASSERT_EQUAL(r[4].cap.total, 1000);
  CU_ASSERT_EQUAL(r[5].kind, REC_HANDLE);
  CU_ASSERT_EQUAL(r[5].cap.handle, 1); /* numbered, not the driver's value */
  CU_ASSERT_EQUAL(r[6].kind, REC_MAP);
  CU_ASSERT_EQUAL(r[6].cap.handle, 1);
  CU_ASSERT_EQUAL(r[6].prot, 0);
  CU_ASSERT_EQUAL(r[7].kind, REC_PROTECT);
  CU_ASSERT_EQUAL(r[7].prot, PT_R | PT_W);
  CU_ASSERT_EQUAL(r[8].kind, REC_UNMAP);
  CU_ASSERT_EQUAL(r[9].kind, REC_RELEASE);
  CU_ASSERT_EQUAL(r[10].kind, REC_FREE);
  CU_ASSERT_EQUAL(r[10].alloc_id, 1);
  unlink(path);
}

/* A capture never overwrites a file, and leaves nothing behind when it
 * is abandoned. */
static void test_refuses_existing(void) {
  char path[64], part[80];
  temp_path(path);
  FILE *f = fopen(path, "w");
  fputs("mine\n", f);
  fclose(f);
  diag d;
  CU_ASSERT_PTR_NULL(cap_log_open(path, 0, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "exists"));
  unlink(path);
  cap_log *l = cap_log_open(path, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  cap_log_abandon(l);
  snprintf(part, sizeof part, "%s.part", path);
  CU_ASSERT_NOT_EQUAL(access(part, F_OK), 0);
  CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
}

/* What the driver's records can hold that the trace cannot: a free of an
 * address never seen, an allocation over a live one, a record later than
 * one written, a kernel name the label grammar refuses. */
static void test_oddities(void) {
  char path[64];
  temp_path(path);
  diag d;
  cap_log *l = cap_log_open(path, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  cap_event f = ev(CAP_FREE, 10);
  f.va = 0x1000;
  add(l, f);
  cap_event a = ev(CAP_ALLOC, 20);
  a.va = 0x2000, a.size = 64;
  add(l, a);
  a.t_ns = 30;
  add(l, a); /* the same address again: its free was missed */
  CU_ASSERT_EQUAL(cap_log_flush(l, &d), 0);
  cap_event k = ev(CAP_KERNEL, 25); /* older than the last written */
  k.name = "void at::native::(anonymous namespace)::f<float, int=4>(float*)";
  add(l, k);
  cap_event h = ev(CAP_RELEASE, 40);
  h.handle = 99;
  add(l, h);
  cap_counts c;
  CU_ASSERT_EQUAL_FATAL(cap_log_close(l, &c, &d), 0);
  CU_ASSERT_EQUAL(c.unknown_frees, 2);
  CU_ASSERT_EQUAL(c.replaced, 1);
  CU_ASSERT_EQUAL(c.late, 1);
  trace_record r[MAX_RECS];
  size_t n = read_back(path, r);
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_EQUAL(r[0].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[1].kind, REC_FREE);
  CU_ASSERT_EQUAL(r[1].alloc_id, 1);
  CU_ASSERT_EQUAL(r[2].alloc_id, 2);
  CU_ASSERT_EQUAL(r[3].kind, REC_MARK);
  CU_ASSERT_EQUAL(r[3].cap.time_ns, 30);
  CU_ASSERT_EQUAL(strlen(r[3].label), TRACE_LABEL_MAX - 1);
  CU_ASSERT_PTR_NULL(strchr(r[3].label, ' '));
  unlink(path);
}

/* CUPTI reports a mapped VMM range as an allocation too: inside a live
 * reservation it is left out (the map records stand for it), and its free
 * with it; outside one, after the reservation is gone, it is written. */
static void test_vmm_ranges(void) {
  char path[64];
  temp_path(path);
  diag d;
  cap_log *l = cap_log_open(path, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  cap_event r = ev(CAP_RESERVE, 1);
  r.va = 0x40000000, r.size = 1 << 30;
  cap_event a = ev(CAP_ALLOC, 2);
  a.va = 0x40200000, a.size = 2 << 20;
  cap_event f = ev(CAP_FREE, 3);
  f.va = a.va;
  cap_event u = ev(CAP_UNRESERVE, 4);
  u.va = r.va, u.size = r.size;
  cap_event b = ev(CAP_ALLOC, 5);
  b.va = a.va, b.size = 4096;
  add(l, r), add(l, a), add(l, f), add(l, u), add(l, b);
  cap_counts c;
  CU_ASSERT_EQUAL_FATAL(cap_log_close(l, &c, &d), 0);
  CU_ASSERT_EQUAL(c.vmm_allocs, 1);
  CU_ASSERT_EQUAL(c.unknown_frees, 0);
  trace_record rec[MAX_RECS];
  CU_ASSERT_EQUAL_FATAL(read_back(path, rec), 3);
  CU_ASSERT_EQUAL(rec[0].kind, REC_RESERVE);
  CU_ASSERT_EQUAL(rec[1].kind, REC_UNRESERVE);
  CU_ASSERT_EQUAL(rec[2].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(rec[2].size, 4096);
  unlink(path);
}

static void test_labels(void) {
  char out[TRACE_LABEL_MAX];
  cap_label("#x=y z", out);
  CU_ASSERT_STRING_EQUAL(out, "_x_y_z");
  cap_label("", out);
  CU_ASSERT_STRING_EQUAL(out, "?");
  cap_label(NULL, out);
  CU_ASSERT_STRING_EQUAL(out, "?");
}

static void test_meminfo_rate(void) {
  cap_rate r = {0};
  CU_ASSERT_TRUE(cap_rate_due(&r, 5, 1000));
  CU_ASSERT_FALSE(cap_rate_due(&r, 500, 1000));
  CU_ASSERT_FALSE(cap_rate_due(&r, 1004, 1000));
  CU_ASSERT_TRUE(cap_rate_due(&r, 1005, 1000));
}

/* Many allocations (200000, a million in the capture of a real program is
 * the same loop): the events held stay bounded, every free finds
 * its allocation, and the trace reads back whole. */
static void test_million(void) {
  char path[64];
  temp_path(path);
  diag d;
  cap_log *l = cap_log_open(path, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  const uint64_t n = 200000; /* three times the events held: the bound holds past the first flush */
  for (uint64_t i = 0; i < n; i++) {
    cap_event a = ev(CAP_ALLOC, 2 * i);
    a.va = 0x10000000 + (i % 4096) * 0x100000, a.size = 4096;
    cap_event f = ev(CAP_FREE, 2 * i + 1);
    f.va = a.va;
    if (cap_log_add(l, &a, &d) || cap_log_add(l, &f, &d)) break;
  }
  cap_counts c;
  CU_ASSERT_EQUAL_FATAL(cap_log_close(l, &c, &d), 0);
  CU_ASSERT_EQUAL(c.records, 2 * n);
  CU_ASSERT_EQUAL(c.pending_peak, CAP_PENDING_MAX);
  CU_ASSERT_EQUAL(c.unknown_frees + c.replaced + c.late, 0);
  trace_reader *r = trace_open(path, TRACE_NATIVE, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  trace_record rec;
  uint64_t got = 0;
  while (trace_next(r, &rec, &d) == 1) got++;
  CU_ASSERT_EQUAL(got, 2 * n);
  trace_close(r);
  unlink(path);
}

/* Records from several threads' buffers come out of order by up to a
 * buffer's worth: within half the events held, none is late. */
static void test_window(void) {
  char path[64];
  temp_path(path);
  diag d;
  cap_log *l = cap_log_open(path, 0, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  const uint64_t n = 4 * CAP_PENDING_MAX, lag = CAP_PENDING_MAX / 4;
  for (uint64_t i = 0; i < n; i++) {
    /* two streams of events, one lag behind the other */
    cap_event e = ev(CAP_MEMINFO, i % 2 ? i : (i > lag ? i - lag : 0));
    e.size = 1, e.total = 2;
    if (cap_log_add(l, &e, &d)) break;
  }
  cap_counts c;
  CU_ASSERT_EQUAL_FATAL(cap_log_close(l, &c, &d), 0);
  CU_ASSERT_EQUAL(c.records, n);
  CU_ASSERT_EQUAL(c.late, 0);
  unlink(path);
}

int main(void) {
  static const test_case cases[] = {{"order and names", test_order_and_names},
                                    {"refuses an existing file", test_refuses_existing},
                                    {"oddities", test_oddities},
                                    {"VMM ranges", test_vmm_ranges},
                                    {"labels", test_labels},
                                    {"meminfo rate", test_meminfo_rate},
                                    {"many allocations", test_million},
                                    {"records out of order within a window", test_window},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"cap_log", cases}, {NULL, NULL}};
  return harness_run(suites);
}
