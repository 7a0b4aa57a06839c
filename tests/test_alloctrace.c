/* Allocation-trace readers, the synthetic workload, and the fidelity of the
 * caching models against the snapshots in traces/torch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "tlbsim/alloctrace.h"
#include "tlbsim/vas.h"

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static alloctrace *open_text(const char *path, const char *text, alloctrace_format fmt, diag *d) {
  write_file(path, text);
  return alloctrace_open(path, fmt, -1, d);
}

/* Reads to the end; returns the error line (NULL if none) in d. */
static int drain(alloctrace *t, alloctrace_event *ev, int max, diag *d) {
  int n = 0, got;
  while (n < max && (got = alloctrace_next(t, &ev[n], d)) == 1) n++;
  return got < 0 ? -1 : n;
}

static const char *const SNAP =
    "{\"allocator_settings\": {\"expandable_segments\": false, \"max_split_size\": 8388608,\n"
    "  \"garbage_collection_threshold\": 0.6, \"roundup_power2_divisions\": {\"1\": 0, \"2\": 4}},\n"
    " \"capture\": {\"device_total_memory\": 1073741824},\n"
    " \"device_traces\": [[\n"
    "  {\"action\": \"segment_alloc\", \"addr\": 4096, \"size\": 2097152, \"stream\": 0, \"time_us\": 100},\n"
    "  {\"action\": \"alloc\", \"addr\": 4096, \"size\": 1000, \"stream\": 0, \"time_us\": 101},\n"
    "  {\"action\": \"alloc\", \"addr\": 5120, \"size\": 24, \"stream\": 7, \"time_us\": 102},\n"
    "  {\"action\": \"free_requested\", \"addr\": 4096, \"size\": 1000, \"stream\": 0, \"time_us\": 103},\n"
    "  {\"action\": \"snapshot\", \"addr\": 0, \"size\": 0, \"stream\": 0, \"time_us\": 104},\n"
    "  {\"action\": \"free_completed\", \"addr\": 4096, \"size\": 1000, \"stream\": 0, \"time_us\": 105},\n"
    "  {\"action\": \"free_completed\", \"addr\": 999, \"size\": 8, \"stream\": 0, \"time_us\": 106},\n"
    "  {\"action\": \"alloc\", \"addr\": 9999, \"size\": 50, \"stream\": 7, \"time_us\": 107},\n"
    "  {\"action\": \"segment_alloc\", \"addr\": 8000000, \"size\": 20971520, \"stream\": 0, \"time_us\": 108},\n"
    "  {\"action\": \"segment_free\", \"addr\": 8000000, \"size\": 20971520, \"stream\": 0, \"time_us\": 109},\n"
    "  {\"action\": \"oom\", \"addr\": 12345, \"size\": 99, \"stream\": 0, \"time_us\": 110}\n"
    "]]}\n";

static void test_snapshot_events(void) {
  diag d;
  alloctrace *t = open_text("at_snap.json", SNAP, ALLOCTRACE_AUTO, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[16];
  CU_ASSERT_EQUAL_FATAL(drain(t, ev, 16, &d), 8);
  CU_ASSERT_EQUAL(ev[0].kind, AT_SEGMENT);
  CU_ASSERT_EQUAL(ev[0].size, 2097152);
  CU_ASSERT_EQUAL(ev[1].kind, AT_ALLOC);
  CU_ASSERT_EQUAL(ev[1].id, 0);
  CU_ASSERT_EQUAL(ev[1].size, 1000);
  CU_ASSERT_EQUAL(ev[1].time_us, 1);
  CU_ASSERT_EQUAL(ev[2].id, 1);
  CU_ASSERT_EQUAL(ev[2].stream, 1); /* stream 7 is the second one seen */
  CU_ASSERT_EQUAL(ev[3].kind, AT_FREE); /* free_completed, not free_requested */
  CU_ASSERT_EQUAL(ev[3].id, 0);
  CU_ASSERT_EQUAL(ev[3].index, 5);
  CU_ASSERT_EQUAL(ev[4].kind, AT_ALLOC); /* the unmatched free at 999 was skipped */
  CU_ASSERT_EQUAL(ev[4].id, 0);          /* id 0 was recycled */
  CU_ASSERT(ev[6].kind == AT_SEGMENT && ev[6].release);
  CU_ASSERT_EQUAL(ev[7].kind, AT_OOM);
  CU_ASSERT_EQUAL(ev[7].size, 99);
  const alloctrace_info *in = alloctrace_get_info(t);
  CU_ASSERT_EQUAL(in->format, ALLOCTRACE_SNAPSHOT);
  CU_ASSERT(in->has_settings && !in->expandable_segments);
  CU_ASSERT_EQUAL(in->max_split_size, 8388608);
  CU_ASSERT_STRING_EQUAL(in->unmodelled, "garbage_collection_threshold,roundup_power2_divisions");
  CU_ASSERT_EQUAL(in->device_total, 1073741824);
  CU_ASSERT_EQUAL(in->reserved_peak, 2097152 + 20971520);
  CU_ASSERT_EQUAL(in->reserved_end, 2097152);
  CU_ASSERT_EQUAL(in->segment_allocs, 2);
  CU_ASSERT_EQUAL(in->segment_frees, 1);
  CU_ASSERT_EQUAL(in->recorded_ooms, 1);
  CU_ASSERT_EQUAL(in->unmatched_frees, 1);
  CU_ASSERT_EQUAL(in->skipped, 1); /* the snapshot action */
  CU_ASSERT_EQUAL(in->allocs, 3);
  CU_ASSERT_EQUAL(alloctrace_id_limit(t), 2);
  alloctrace_close(t);
}

static void test_snapshot_gzip(void) {
  gzFile gz = gzopen("at_snap.json.gz", "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
  gzputs(gz, SNAP);
  gzclose(gz);
  diag d;
  alloctrace *t = alloctrace_open("at_snap.json.gz", ALLOCTRACE_AUTO, -1, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[16];
  CU_ASSERT_EQUAL(drain(t, ev, 16, &d), 8);
  alloctrace_close(t);
}

static void expect_error(const char *path, const char *text, alloctrace_format fmt, const char *want) {
  diag d = {""};
  alloctrace *t = open_text(path, text, fmt, &d);
  if (t) {
    alloctrace_event ev[8];
    CU_ASSERT_EQUAL(drain(t, ev, 8, &d), -1);
    alloctrace_close(t);
  }
  CU_ASSERT_STRING_EQUAL(d.msg, want);
}

static void test_snapshot_errors(void) {
  expect_error("at_e1.json", "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1}]]}", ALLOCTRACE_AUTO,
               "at_e1.json: device_traces[0][0]: missing 'size'");
  expect_error("at_e2.json",
               "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1, \"size\": 8},\n"
               "  {\"action\": \"alloc\", \"addr\": 2, \"size\": \"big\"}]]}",
               ALLOCTRACE_AUTO, "at_e2.json: device_traces[0][1]: non-integer 'size'");
  expect_error("at_e3.json", "{\"device_traces\": [[\n{\"action\": \"alloc\",,}]]}", ALLOCTRACE_SNAPSHOT,
               "at_e3.json:2: invalid JSON: quoted object property name expected");
  expect_error("at_e3b.json", "{\"device_traces\": [[\n\n{\"action\": \"alloc\"}", ALLOCTRACE_AUTO,
               "at_e3b.json:3: invalid JSON: unexpected end of input");
  expect_error("at_e4.json", "{\"segments\": []}", ALLOCTRACE_SNAPSHOT,
               "at_e4.json: not a memory snapshot with history: no 'device_traces' list (record it with "
               "torch.cuda.memory._record_memory_history())");
  expect_error("at_e5.json",
               "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1, \"size\": 8}],"
               " [{\"action\": \"alloc\", \"addr\": 1, \"size\": 8}]]}",
               ALLOCTRACE_AUTO, "at_e5.json: device_traces has events for devices 0 and 1: choose one with --device");
  expect_error("at_e6.json",
               "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1, \"size\": 8},"
               " {\"action\": \"alloc\", \"addr\": 1, \"size\": 8}]]}",
               ALLOCTRACE_AUTO, "at_e6.json: device_traces[0][1]: allocation 0x1 is live already");
  expect_error("at_e7.json", "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": -5, \"size\": 8}]]}",
               ALLOCTRACE_AUTO, "at_e7.json: device_traces[0][0]: addr: '-5' is out of range (0..18446744073709551614)");
  /* json-c clamps integers past 64 bits to UINT64_MAX (or INT64_MIN): a
   * clamped size was replayed as 2^64 - 1 bytes. */
  expect_error("at_e8.json",
               "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": 1, \"size\": 99999999999999999999999}]]}",
               ALLOCTRACE_AUTO,
               "at_e8.json: device_traces[0][0]: size: '18446744073709551615 or more' is out of range "
               "(0..18446744073709551614)");
  expect_error("at_e10.json",
               "{\"device_traces\": [[{\"action\": \"alloc\\u0000x\", \"addr\": 1, \"size\": 8}]]}",
               ALLOCTRACE_AUTO, "at_e10.json: device_traces[0][0]: action: a NUL character inside the string");
  expect_error("at_e9.json",
               "{\"device_traces\": [[{\"action\": \"alloc\", \"addr\": -99999999999999999999999, \"size\": 1}]]}",
               ALLOCTRACE_AUTO,
               "at_e9.json: device_traces[0][0]: addr: '-9223372036854775808 or less' is out of range "
               "(0..18446744073709551614)");
  diag d;
  CU_ASSERT_PTR_NULL(alloctrace_open("at_no_such_file.json", ALLOCTRACE_AUTO, -1, &d));
  CU_ASSERT_STRING_EQUAL(d.msg, "at_no_such_file.json: cannot open: No such file or directory");
  /* a device that exists by choice */
  write_file("at_dev.json", "{\"device_traces\": [[], [{\"action\": \"alloc\", \"addr\": 1, \"size\": 8}]]}");
  alloctrace *t = alloctrace_open("at_dev.json", ALLOCTRACE_AUTO, 1, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[2];
  CU_ASSERT_EQUAL(drain(t, ev, 2, &d), 1);
  alloctrace_close(t);
}

static void test_rmm(void) {
  diag d;
  alloctrace *t = open_text("at_log.csv",
                            "Thread,Time,Action,Pointer,Size,Stream\n"
                            "140,10:00:00:000100,allocate,0x7f0000000000,1024,0x0\n"
                            "140,10:00:00:000250,allocate,0x7f0000000400,2048,0x7f8a38001020\n"
                            "140,10:00:00:000300,free,0x7f0000000000,1024,0x0\n"
                            "\n"
                            "140,10:00:01:000000,allocate failure,(nil),99999999999,0x0\n"
                            "140,10:00:01:000001,deallocate,0x7f0000000400,2048,0x7f8a38001020\n",
                            ALLOCTRACE_AUTO, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[8];
  CU_ASSERT_EQUAL_FATAL(drain(t, ev, 8, &d), 5);
  CU_ASSERT_EQUAL(alloctrace_get_info(t)->format, ALLOCTRACE_RMM);
  CU_ASSERT(ev[0].kind == AT_ALLOC && ev[0].size == 1024 && ev[0].time_us == 0 && ev[0].index == 2);
  CU_ASSERT(ev[1].kind == AT_ALLOC && ev[1].stream == 1 && ev[1].time_us == 150);
  CU_ASSERT(ev[2].kind == AT_FREE && ev[2].id == ev[0].id);
  CU_ASSERT(ev[3].kind == AT_OOM && ev[3].size == 99999999999ull && ev[3].index == 6);
  CU_ASSERT(ev[4].kind == AT_FREE && ev[4].id == ev[1].id && ev[4].time_us == 1000000 - 100 + 1);
  alloctrace_close(t);
  expect_error("at_bad1.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,1.5,grow,0x10,8,0\n", ALLOCTRACE_RMM,
               "at_bad1.csv:2: Action: 'grow' is not allocate, free or allocate failure");
  expect_error("at_bad2.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,1.5,allocate,zz,8,0\n", ALLOCTRACE_RMM,
               "at_bad2.csv:2: Pointer: 'zz' is not hexadecimal");
  /* Times past 64 bits of microseconds (1e300 converted to an integer was
   * undefined behaviour), infinities and NaN. */
  expect_error("at_bad5.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,1e300,allocate,0x10,8,0\n", ALLOCTRACE_RMM,
               "at_bad5.csv:2: Time: '1e300' is out of range (0..1.8e+13)");
  expect_error("at_bad6.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,inf,allocate,0x10,8,0\n", ALLOCTRACE_RMM,
               "at_bad6.csv:2: Time: 'inf' is out of range (0..1.8e+13)");
  expect_error("at_bad7.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,nan,allocate,0x10,8,0\n", ALLOCTRACE_RMM,
               "at_bad7.csv:2: Time: 'nan' is not a number");
  expect_error("at_bad8.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,1,allocate,0x10,18446744073709551616,0\n",
               ALLOCTRACE_RMM, "at_bad8.csv:2: Size: '18446744073709551616' is out of range (0..18446744073709551615)");
  expect_error("at_bad9.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,10:60:00:000000,allocate,0x10,8,0\n",
               ALLOCTRACE_RMM, "at_bad9.csv:2: Time: '10:60:00:000000' is out of range (0:0:0:0..1000000:59:59:999999)");
  expect_error("at_bad3.csv", "Thread,Time,Action,Size\n", ALLOCTRACE_RMM,
               "at_bad3.csv:1: the header has no 'Pointer' column");
  expect_error("at_bad4.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,2,allocate\n", ALLOCTRACE_RMM,
               "at_bad4.csv:2: 3 fields, the header names more");
}

/* A NUL inside an RMM line cut it short and glued the next line on; a
 * line without end grew without bound. */
static void test_rmm_lines(void) {
  static const char nul[] = "Thread,Time,Action,Pointer,Size,Stream\n1,1,allocate,0x10,8\0,0\n";
  FILE *f = fopen("at_nul.csv", "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fwrite(nul, 1, sizeof nul - 1, f);
  fclose(f);
  diag d = {""};
  alloctrace *t = alloctrace_open("at_nul.csv", ALLOCTRACE_RMM, -1, &d);
  alloctrace_event ev[2];
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(drain(t, ev, 2, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "at_nul.csv:2: a NUL byte in the line");
  alloctrace_close(t);
  f = fopen("at_long.csv", "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("Thread,Time,Action,Pointer,Size,Stream\n1,1,allocate,0x10,", f);
  for (int i = 0; i < 70000; i++) fputc('1', f);
  fclose(f);
  t = alloctrace_open("at_long.csv", ALLOCTRACE_RMM, -1, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(drain(t, ev, 2, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "at_long.csv:2: line longer than 65536 bytes");
  alloctrace_close(t);
}

static void test_native(void) {
  diag d;
  alloctrace *t = open_text("at_native.trace",
                            "#tlbsim-trace 1\nalloc 7 4K\nalloc 9 2M align=64K stream=3\nr @7+16\nfree 7\nfree 9\n",
                            ALLOCTRACE_AUTO, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[8];
  CU_ASSERT_EQUAL_FATAL(drain(t, ev, 8, &d), 4);
  CU_ASSERT_EQUAL(alloctrace_get_info(t)->format, ALLOCTRACE_NATIVE);
  CU_ASSERT(ev[0].kind == AT_ALLOC && ev[0].size == 4096 && ev[0].index == 2);
  CU_ASSERT(ev[1].align == 65536 && ev[1].stream == 1 && ev[1].size == 2 << 20);
  CU_ASSERT(ev[2].kind == AT_FREE && ev[2].id == ev[0].id && ev[2].index == 5);
  CU_ASSERT_EQUAL(alloctrace_get_info(t)->skipped, 1);
  alloctrace_close(t);
  expect_error("at_native2.trace", "alloc 1 4K\nfree 2\n", ALLOCTRACE_NATIVE,
               "at_native2.trace:2: free of allocation 2, which is not live");
}

/* A capture's marks and meminfo samples come out only when asked for. */
static void test_native_marks(void) {
  static const char *const text = "alloc 1 4K va=0x7f0000000000 t=10\nmeminfo 100 200 t=11\n"
                                  "mark k grid=2 block=32 t=12 dur=5\nmark phase t=20\nfree 1 t=30\n";
  diag d;
  alloctrace *t = open_text("at_marks.trace", text, ALLOCTRACE_NATIVE, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev[8];
  CU_ASSERT_EQUAL(drain(t, ev, 8, &d), 2); /* alloc and free: the rest skipped */
  CU_ASSERT(ev[0].timed && ev[0].time_ns == 10 && ev[1].time_ns == 30);
  alloctrace_close(t);
  t = open_text("at_marks.trace", text, ALLOCTRACE_NATIVE, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_want_marks(t);
  CU_ASSERT_EQUAL_FATAL(drain(t, ev, 8, &d), 5);
  CU_ASSERT(ev[1].kind == AT_MEMINFO && ev[1].size == 100 && ev[1].total == 200 && ev[1].time_ns == 11);
  CU_ASSERT(ev[2].kind == AT_MARK && ev[2].kernel && ev[2].dur_ns == 5 && ev[2].time_ns == 12);
  CU_ASSERT(ev[3].kind == AT_MARK && !ev[3].kernel && ev[3].timed && ev[3].time_ns == 20);
  CU_ASSERT(ev[4].kind == AT_FREE && ev[4].id == ev[0].id);
  alloctrace_close(t);
}

/* --- synthetic -------------------------------------------------------------- */

static uint64_t synth_digest(const alloctrace_synth *s, uint64_t *allocs, uint64_t *frees, uint64_t *max_id) {
  diag d;
  alloctrace *t = alloctrace_open_synth(s, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev;
  uint64_t h = 1469598103934665603ull;
  *allocs = *frees = 0;
  while (alloctrace_next(t, &ev, &d) == 1) {
    h = (h ^ (ev.kind * 1000003ull + ev.size + (ev.id << 40))) * 1099511628211ull;
    if (ev.kind == AT_ALLOC) ++*allocs;
    else ++*frees;
  }
  *max_id = alloctrace_id_limit(t);
  alloctrace_close(t);
  return h;
}

static void test_synthetic(void) {
  alloctrace_synth s;
  alloctrace_synth_default(&s);
  diag d;
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "seed=5,requests=50,temps=4,keep_for=3,temp_min=1K,temp_max=1M", &d), 0);
  uint64_t a1, f1, m1, a2, f2, m2;
  uint64_t h1 = synth_digest(&s, &a1, &f1, &m1), h2 = synth_digest(&s, &a2, &f2, &m2);
  CU_ASSERT_EQUAL(h1, h2); /* seeded: the same bytes every time */
  CU_ASSERT_EQUAL(a1, 50 * (4 + 1));
  CU_ASSERT_EQUAL(f1, a1); /* everything is freed by the end */
  /* ids are recycled: at most keep_for outputs (the oldest is freed before
   * the new one comes) and two temporaries are live at once */
  CU_ASSERT_EQUAL(m1, 3 + 2);
  s.seed = 6;
  CU_ASSERT_NOT_EQUAL(synth_digest(&s, &a2, &f2, &m2), h1);
  /* sizes stay inside their ranges */
  alloctrace *t = alloctrace_open_synth(&s, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  alloctrace_event ev;
  bool inside = true;
  while (alloctrace_next(t, &ev, &d) == 1)
    if (ev.kind == AT_ALLOC) inside &= ev.size >= 1024 && ev.size <= (64u << 20);
  CU_ASSERT(inside);
  alloctrace_close(t);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "seed=1,bogus=3", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "unknown key 'bogus'"));
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "temp_min=2M,temp_max=1M", &d), -1);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "keep_for=0", &d), -1);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "requests", &d), -1);
  /* Bounded work: 2^64 - 1 requests ran for ever; a ring of 10^8 outputs
   * allocated gigabytes. */
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "requests=18446744073709551615", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "requests: '18446744073709551615' is out of range (0..100000000)");
  alloctrace_synth_default(&s);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "requests=100000000,temps=1", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "requests=100000000 with temps=1 is more than 100000000 allocations");
  alloctrace_synth_default(&s);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "keep_for=100000000", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "keep_for: '100000000' is out of range (1..1000000)");
  alloctrace_synth_default(&s);
  CU_ASSERT_EQUAL(alloctrace_synth_parse(&s, "temp_min=0", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "temp_min: '0' is out of range (1..18446744073709551615)");
}

/* --- fidelity ----------------------------------------------------------------- */

typedef struct fidelity {
  double reserved_error, segments_error;
  uint64_t recorded_peak, simulated_peak, recorded_segments, simulated_segments;
} fidelity;

/* Replays a snapshot through the policy its settings name, on the device it
 * was captured on, with its max_split_size. */
static fidelity replay(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/traces/torch/%s.json.gz", TLBSIM_SOURCE_DIR, name);
  diag d;
  alloctrace *t = alloctrace_open(path, ALLOCTRACE_AUTO, -1, &d);
  fidelity f = {.reserved_error = 1e9, .segments_error = 1e9};
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  const alloctrace_info *in = alloctrace_get_info(t);
  /* as tlbsim alloc does: the capture's device, else the h200 preset's memory */
  vas_config c = {.phys_capacity = in->device_total ? in->device_total : 143771ull << 20,
                  .max_split_size = in->max_split_size};
  vas *v = vas_create(in->expandable_segments ? "expandable" : "caching", &c, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  uint64_t *va = NULL, cap = 0;
  alloctrace_event ev;
  int got;
  while ((got = alloctrace_next(t, &ev, &d)) == 1) {
    if (alloctrace_id_limit(t) > cap) {
      cap = 2 * alloctrace_id_limit(t);
      va = realloc(va, cap * sizeof *va);
      CU_ASSERT_PTR_NOT_NULL_FATAL(va);
    }
    if (ev.kind == AT_ALLOC) CU_ASSERT_EQUAL_FATAL(vas_alloc(v, ev.size, 0, ev.stream, &va[ev.id], &d), VAS_OK);
    if (ev.kind == AT_FREE) CU_ASSERT_EQUAL_FATAL(vas_free(v, va[ev.id], &d), VAS_OK);
  }
  CU_ASSERT_EQUAL(got, 0);
  CU_ASSERT_EQUAL(in->unmatched_frees, 0);
  const vas_stats *s = vas_get_stats(v);
  f.recorded_peak = in->reserved_peak;
  f.simulated_peak = s->reserved_peak;
  f.recorded_segments = in->segment_allocs;
  f.simulated_segments = s->driver_allocs;
  f.reserved_error = ((double)s->reserved_peak - (double)in->reserved_peak) / (double)in->reserved_peak;
  f.segments_error = ((double)s->driver_allocs - (double)in->segment_allocs) / (double)in->segment_allocs;
  printf("\n    %-22s %-10s peak reserved %+.4f%%, segments %+.2f%% ", name,
         in->expandable_segments ? "expandable" : "caching", 100 * f.reserved_error, 100 * f.segments_error);
  free(va);
  vas_destroy(v);
  alloctrace_close(t);
  return f;
}

/* The claim (docs/ALLOC.md, "Fidelity"; the target was 3 % and 10 %):
 * the recorded peak reserved memory exactly, but in tf_train (a tie the
 * driver broke by address: the model's peak is 16 MiB lower, -0.98 %), and
 * the segment allocations exactly in all eight. The bound is the claim: the
 * replay is deterministic, no machine noise enters. */
static fidelity check(const char *name, uint64_t want_peak) {
  fidelity f = replay(name);
  CU_ASSERT_EQUAL(f.simulated_peak, want_peak ? want_peak : f.recorded_peak);
  CU_ASSERT_EQUAL(f.simulated_segments, f.recorded_segments);
  return f;
}

static void test_fidelity_reference(void) {
  /* The ground truth REFERENCE.md gives for the two reference snapshots. */
  CU_ASSERT_EQUAL(check("mlp_train", 0).recorded_peak, 2835349504ull);
  CU_ASSERT_EQUAL(check("mlp_train_expandable", 0).recorded_peak, 1858076672ull);
}

static void test_fidelity_captured(void) {
  static const char *const names[] = {"cnn_train", "cnn_train_expandable", "tf_infer", "tf_infer_expandable",
                                      "tf_train", "tf_train_expandable"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    check(names[i], strcmp(names[i], "tf_train") ? 0 : 1702887424ull);
}

static const test_case snapshot_cases[] = {{"events", test_snapshot_events},
                                           {"gzip", test_snapshot_gzip},
                                           {"errors", test_snapshot_errors},
                                           {NULL, NULL}};
static const test_case other_cases[] = {{"rmm", test_rmm}, {"rmm lines", test_rmm_lines}, {"native", test_native}, {"native marks", test_native_marks}, {"synthetic", test_synthetic}, {NULL, NULL}};
static const test_case fidelity_cases[] = {{"reference snapshots", test_fidelity_reference},
                                           {"captured snapshots", test_fidelity_captured},
                                           {NULL, NULL}};

int main(void) {
  /* The files these tests write go into the build tree, wherever ctest runs. */
  if (chdir(TLBSIM_BINARY_DIR "/tests")) return 1;
  static const test_suite suites[] = {{"alloctrace snapshot", snapshot_cases},
                                      {"alloctrace rmm native synthetic", other_cases},
                                      {"alloc fidelity", fidelity_cases},
                                      {NULL, NULL}};
  return harness_run(suites);
}
