/* test_api.c — libtlbsim's facade (tlbsim/tlbsim.h), linked against the
 * shared library as a user's program is: machines from presets, files and
 * overrides; accesses and traces; statistics by column; reports; miss-ratio
 * curves; chase points; allocation replays; and every error as one located
 * line. Known values are those of `tlbsim run`, `tlbsim mrc`, `tlbsim chase`
 * and `tlbsim alloc` on the same input; the allocation summaries are also
 * compared byte for byte with what the tlbsim program (TLBSIM_PROGRAM)
 * prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tlbsim/tlbsim.h"

#define DEMO TLBSIM_SOURCE_DIR "/traces/samples/demo.trace"
#define STRIDE TLBSIM_SOURCE_DIR "/traces/samples/stride.lackey"
#define MLP TLBSIM_SOURCE_DIR "/traces/torch/mlp_train.json.gz"

static double stat(tlbsim_machine *m, const char *column) {
  char err[TLBSIM_ERROR_MAX];
  double v = -1;
  CU_ASSERT_EQUAL(tlbsim_stat(m, column, &v, err), 0);
  return v;
}

static void test_version(void) { CU_ASSERT_STRING_EQUAL(tlbsim_version(), TLBSIM_VERSION); }

static void test_size(void) {
  char err[TLBSIM_ERROR_MAX];
  uint64_t v;
  CU_ASSERT_EQUAL(tlbsim_size("2MiB", &v, err), 0);
  CU_ASSERT_EQUAL(v, 2u << 20);
  CU_ASSERT_EQUAL(tlbsim_size("0x1000", &v, err), 0);
  CU_ASSERT_EQUAL(v, 4096);
  CU_ASSERT_EQUAL(tlbsim_size("4Q", &v, err), -1);
  CU_ASSERT_EQUAL(strncmp(err, "tlbsim_size: '4Q' is not a size", 31), 0);
}

static void test_run_trace(void) {
  char err[TLBSIM_ERROR_MAX];
  tlbsim_machine *m = tlbsim_machine_create("x86-64", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL_FATAL(tlbsim_run_trace(m, DEMO, "native", err), 0);
  CU_ASSERT_EQUAL(stat(m, "accesses"), 46);
  CU_ASSERT_EQUAL(stat(m, "tlb.l1d.misses"), 24);
  CU_ASSERT_EQUAL(stat(m, "walks"), 24);
  CU_ASSERT_DOUBLE_EQUAL(stat(m, "cycles_per_access"), 18.3478, 1e-4);
  CU_ASSERT_EQUAL(tlbsim_stat(m, "tlb.l1d", &(double){0}, err), -1); /* an object, not a column */
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_stat: 'tlb.l1d' is not a numeric column of the report");
  CU_ASSERT_EQUAL(tlbsim_stat(m, "trace", &(double){0}, err), -1); /* a string column */
  char *csv = tlbsim_report(m, "csv", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
  CU_ASSERT_PTR_NOT_NULL(strstr(csv, "tlb.l1d.misses"));
  tlbsim_free(csv);
  CU_ASSERT_PTR_NULL(tlbsim_report(m, "xml", err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_report: the format is not json, csv or text");
  tlbsim_machine_destroy(m);
}

/* Overrides apply, and accesses one by one count as a trace's would. */
static void test_sets_and_access(void) {
  char err[TLBSIM_ERROR_MAX];
  const char *sets[] = {"tlb.l1d.entries=4", "tlb.l1d.ways=4"};
  tlbsim_machine *m = tlbsim_machine_create(NULL, NULL, sets, 2, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t p = 0; p < 5; p++) CU_ASSERT_EQUAL(tlbsim_access(m, 'R', p << 12, 8, err), 0);
  CU_ASSERT_EQUAL(stat(m, "accesses"), 10);
  CU_ASSERT_EQUAL(stat(m, "tlb.l1d.misses"), 10); /* 5 pages round 4 LRU entries: every access misses */
  CU_ASSERT_EQUAL(stat(m, "page_faults"), 5);
  CU_ASSERT_EQUAL(tlbsim_access(m, 'Q', 0, 8, err), -1);
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_access:11: kind 'Q' is not R, W or X");
  CU_ASSERT_EQUAL(tlbsim_access(m, 'R', 0, 0, err), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "tlbsim_access:12: size 0"));
  tlbsim_machine_destroy(m);
}

static void test_config_file(void) {
  char err[TLBSIM_ERROR_MAX], path[] = "/tmp/test_api_XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("[machine]\nformat = x86-64-4\n[tlb.l1d]\nentries = 8\nways = 8\npolicy = lru\n"
        "page_size = 4K\nnext = walk\nserves = data\nbogus = 1\n",
        f);
  fclose(f);
  CU_ASSERT_PTR_NULL(tlbsim_machine_create(NULL, path, NULL, 0, err));
  char want[600];
  snprintf(want, sizeof want, "%s:10: unknown key 'bogus' in [tlb.l1d]", path);
  CU_ASSERT_STRING_EQUAL(err, want);
  unlink(path);
  CU_ASSERT_PTR_NULL(tlbsim_machine_create("x86-64", path, NULL, 0, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_machine_create: a preset or a config file, not both");
  CU_ASSERT_PTR_NULL(tlbsim_machine_create("no-such-preset", NULL, NULL, 0, err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-preset"));
}

static void test_trace_errors(void) {
  char err[TLBSIM_ERROR_MAX];
  tlbsim_machine *m = tlbsim_machine_create(NULL, NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(tlbsim_run_trace(m, DEMO, "mp3", err), -1);
  CU_ASSERT_STRING_EQUAL(err, DEMO ": trace format 'mp3' is not known");
  CU_ASSERT_EQUAL(tlbsim_run_trace(m, "/nonexistent/trace", NULL, err), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/trace"));
  tlbsim_machine_destroy(m);
}

/* demo.trace fed as text in two halves (split at a line) counts what the
 * file does: the machine keeps its allocations and address spaces between
 * calls. Errors name the line within the call. */
static void test_feed(void) {
  char err[TLBSIM_ERROR_MAX], *text = malloc(1 << 16);
  FILE *f = fopen(DEMO, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t len = fread(text, 1, (1 << 16) - 1, f);
  fclose(f);
  text[len] = '\0';
  size_t half = (size_t)(strchr(text + len / 2, '\n') + 1 - text);
  tlbsim_machine *m = tlbsim_machine_create("x86-64", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL_FATAL(tlbsim_feed(m, text, half, NULL, err), 0);
  CU_ASSERT_EQUAL_FATAL(tlbsim_feed(m, text + half, len - half, "native", err), 0);
  CU_ASSERT_EQUAL(stat(m, "accesses"), 46);
  CU_ASSERT_EQUAL(stat(m, "tlb.l1d.misses"), 24);
  CU_ASSERT_EQUAL(stat(m, "walks"), 24);
  CU_ASSERT_DOUBLE_EQUAL(stat(m, "cycles_per_access"), 18.3478, 1e-4);
  const char bad[] = "r 0x1000 4\nr 0x2000 4 8\n";
  CU_ASSERT_EQUAL(tlbsim_feed(m, bad, strlen(bad), NULL, err), -1);
  CU_ASSERT_EQUAL(strncmp(err, "tlbsim_feed:2: ", 15), 0);
  CU_ASSERT_EQUAL(tlbsim_feed(m, bad, strlen(bad), "mp3", err), -1);
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_feed: trace format 'mp3' is not known");
  CU_ASSERT_EQUAL(tlbsim_feed(m, "", 0, NULL, err), 0); /* an empty trace */
  tlbsim_machine_destroy(m);
  free(text);
}

/* The labels of the phases a JSON report lists, joined by spaces. */
static void phase_labels(tlbsim_machine *m, char *out, size_t len) {
  char err[TLBSIM_ERROR_MAX], *json = tlbsim_report(m, "json", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(json);
  out[0] = '\0';
  for (const char *p = json; (p = strstr(p, "\"label\":\"")); ) {
    p += strlen("\"label\":\"");
    size_t n = strcspn(p, "\""), at = strlen(out);
    snprintf(out + at, len - at, "%s%.*s", at ? " " : "", (int)n, p);
  }
  tlbsim_free(json);
}

/* A report is a pure read: feed, report, feed, report gives every phase
 * once, the open one as it stands, and the counts of one replay. */
static void test_report_then_feed(void) {
  char err[TLBSIM_ERROR_MAX], labels[256];
  tlbsim_machine *m = tlbsim_machine_create("x86-64", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  const char one[] = "mark one\nr 0x1000 4\nmark two\nr 0x2000 4\n";
  const char two[] = "r 0x3000 4\nmark three\nr 0x1000 4\nmark four\nr 0x5000 4\n";
  CU_ASSERT_EQUAL_FATAL(tlbsim_feed(m, one, strlen(one), NULL, err), 0);
  phase_labels(m, labels, sizeof labels);
  CU_ASSERT_STRING_EQUAL(labels, "one two");
  CU_ASSERT_EQUAL(stat(m, "accesses"), 2);
  CU_ASSERT_EQUAL_FATAL(tlbsim_feed(m, two, strlen(two), NULL, err), 0);
  phase_labels(m, labels, sizeof labels);
  CU_ASSERT_STRING_EQUAL(labels, "one two three four");
  CU_ASSERT_EQUAL(stat(m, "accesses"), 5);
  CU_ASSERT_EQUAL(stat(m, "tlb.l1d.misses"), 4);
  char *json = tlbsim_report(m, "json", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(json);
  /* phase "two" holds 0x2000 and 0x3000, read in different calls */
  const char *two_at = strstr(json, "\"label\":\"two\"");
  CU_ASSERT_PTR_NOT_NULL_FATAL(two_at);
  CU_ASSERT_PTR_NOT_NULL(strstr(two_at, "\"accesses\":2"));
  tlbsim_free(json);
  tlbsim_machine_destroy(m);
}

/* The rows `tlbsim mrc --page-size 4K,2M --max-entries 64` prints. */
static void test_mrc(void) {
  char err[TLBSIM_ERROR_MAX];
  char *csv = tlbsim_mrc(STRIDE, NULL, "4K,2M", 64, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
  const char *head = "page_bytes,sets,ways,entries,accesses,misses,miss_ratio\n4096,1,1,1,256,256,1.0\n";
  CU_ASSERT_EQUAL(strncmp(csv, head, strlen(head)), 0);
  size_t rows = 0;
  for (const char *p = csv; (p = strchr(p, '\n')); p++) rows++;
  CU_ASSERT_EQUAL(rows, 55); /* the header, 7 fully associative and 20 set-associative rows per page size */
  tlbsim_free(csv);
  CU_ASSERT_PTR_NULL(tlbsim_mrc(STRIDE, NULL, "4K,3K", 0, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_mrc: page sizes '4K,3K': not a list of at most 8 distinct powers of two");
}

/* `tlbsim chase --preset h200 --footprint 64M --stride 2M`: 285 cycles. */
static void test_chase(void) {
  char err[TLBSIM_ERROR_MAX];
  tlbsim_machine *m = tlbsim_machine_create("h200", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  tlbsim_chase_result r;
  CU_ASSERT_EQUAL_FATAL(tlbsim_chase(m, 64u << 20, 2u << 20, 0, "seq", "contiguous", &r, err), 0);
  CU_ASSERT_EQUAL(r.nodes, 32);
  CU_ASSERT_EQUAL(r.footprint_bytes, 64u << 20);
  CU_ASSERT_DOUBLE_EQUAL(r.cycles_per_access, 285.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.walks_per_access, 0.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r.first_miss_ratio, 0.0, 1e-9);
  CU_ASSERT_EQUAL(tlbsim_chase(m, 64u << 20, 12, 0, NULL, NULL, &r, err), -1);
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_chase: stride 12 is not a multiple of 8 bytes");
  CU_ASSERT_EQUAL(tlbsim_chase(m, 64u << 20, 64, 0, "backwards", NULL, &r, err), -1);
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_chase: order 'backwards' is not seq or random");
  tlbsim_machine_destroy(m);
}

/* What `tlbsim ARGS` prints on stdout (malloc'd), NULL if it failed. */
static char *program_output(const char *args) {
  char cmd[1024], *text = NULL;
  size_t len = 0;
  snprintf(cmd, sizeof cmd, "'%s' %s", TLBSIM_PROGRAM, args);
  FILE *p = popen(cmd, "r"), *out = open_memstream(&text, &len);
  if (!p || !out) return NULL;
  for (int c; (c = fgetc(p)) != EOF;) fputc(c, out);
  fclose(out);
  if (pclose(p)) {
    free(text);
    return NULL;
  }
  return text;
}

/* tlbsim_chase_rows is `tlbsim chase --format csv`, byte for byte: the
 * same keys (tlb.NAME.miss_ratio, empty for a level never looked up). */
static void test_chase_rows(void) {
  char err[TLBSIM_ERROR_MAX];
  tlbsim_machine *m = tlbsim_machine_create("h200", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  const uint64_t fp[] = {128u << 20, 512u << 20, 512u << 20};
  char *rows = tlbsim_chase_rows(m, fp, 3, 2u << 20, 0, "random", NULL, err);
  char *cli = program_output("chase --preset h200 --footprint 128M,512M,512M --stride 2M --order random");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cli);
  CU_ASSERT_STRING_EQUAL(rows, cli);
  CU_ASSERT_PTR_NOT_NULL(strstr(rows, ",tlb.l1d.miss_ratio,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(rows, ",1,64,5,20480,20480,0,0.0,0,0,0,,0,0,0,,0.0,0.0\n"));
  tlbsim_free(rows);
  free(cli);
  CU_ASSERT_PTR_NULL(tlbsim_chase_rows(m, fp, 0, 2u << 20, 0, NULL, NULL, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_chase_rows: no footprint");
  tlbsim_machine_destroy(m);
}

#define TEACHING TLBSIM_SOURCE_DIR "/traces/samples/teaching.trace"

/* explain, dump, the per-access log, the quiz and sweep: each the very text
 * of its command. */
static void test_views(void) {
  char err[TLBSIM_ERROR_MAX];
  tlbsim_machine *m = tlbsim_machine_create("teaching", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  const uint64_t va[] = {0x1234, 0xffff};
  char *got = tlbsim_explain(m, va, 2, 0, "json", err), *want = program_output("explain --preset teaching --format json 0x1234 0xffff");
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  got = tlbsim_explain(m, va, 2, 0, NULL, err), want = program_output("explain --preset teaching 0x1234 0xffff");
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  const uint64_t wide[] = {0x10000};
  CU_ASSERT_PTR_NULL(tlbsim_explain(m, wide, 1, 0, NULL, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_explain: 0x10000 is beyond the 16-bit address space of teaching16");
  /* the log of the trace, then its table: run --log's lines, then dump's */
  got = tlbsim_log(m, TEACHING, NULL, 0, NULL, NULL, err), want = program_output("run --preset teaching --log " TEACHING);
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  CU_ASSERT_PTR_NOT_NULL_FATAL(want);
  CU_ASSERT_EQUAL(strncmp(want, got, strlen(got)), 0); /* the CLI's report follows its log */
  CU_ASSERT_PTR_NOT_NULL(strstr(got, "\n31: r 0x2400 1 | vpn 0x24 l1d set 0 miss, l2 set 4 miss;"));
  tlbsim_free(got), free(want);
  got = tlbsim_dump(m, NULL, err), want = program_output("dump --preset teaching " TEACHING);
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  got = tlbsim_log(m, NULL, "r 0x3000 4\n", 11, NULL, "json", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  const char *line = "{\"line\":1,\"record\":\"access\",";
  CU_ASSERT_EQUAL(strncmp(got, line, strlen(line)), 0);
  tlbsim_free(got);
  CU_ASSERT_PTR_NULL(tlbsim_dump(m, "xml", err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_dump: format 'xml' is not text or json");
  tlbsim_machine_destroy(m);
  got = tlbsim_quiz(7, NULL, 1, NULL, err), want = program_output("quiz --seed 7 --answers");
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  got = tlbsim_quiz(3, "tlb,alloc", 0, "json", err), want = program_output("quiz --seed 3 --kind tlb,alloc --format json");
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  CU_ASSERT_PTR_NULL(tlbsim_quiz(1, "tlb,maths", 0, NULL, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_quiz: 'maths' is not a kind (translate, tlb, pt-size, alloc, pool)");
  const char *vary[] = {"tlb.l1d.entries=16,64", "tlb.stlb.ways=6,12"}, *sets[] = {"latency.data_cycles=2"};
  got = tlbsim_sweep(STRIDE, NULL, "x86-64", NULL, sets, 1, vary, 2, err);
  want = program_output("sweep --preset x86-64 --set latency.data_cycles=2 --vary tlb.l1d.entries=16,64 "
                        "--vary tlb.stlb.ways=6,12 " STRIDE);
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  CU_ASSERT_STRING_EQUAL(got, want);
  tlbsim_free(got), free(want);
  const char *bad[] = {"tlb.l1.entries=16,32"};
  CU_ASSERT_PTR_NULL(tlbsim_sweep(STRIDE, NULL, NULL, NULL, NULL, 0, bad, 1, err));
  const char *no_l1 = "tlbsim_sweep:1: [tlb.l1]: no TLB level 'l1' in the configuration";
  CU_ASSERT_EQUAL(strncmp(err, no_l1, strlen(no_l1)), 0);
}

/* The object of `policy` in a summary: from its "policy" key on. */
static const char *policy_object(const char *doc, const char *policy) {
  char key[64];
  snprintf(key, sizeof key, "\"policy\":\"%s\"", policy);
  return strstr(doc, key);
}

/* A PyTorch snapshot through cuda and caching: the numbers of `tlbsim
 * alloc` and its very text, the recording beside caching's model. */
static void test_alloc_snapshot(void) {
  char err[TLBSIM_ERROR_MAX];
  const char *policies[] = {"cuda", "caching"};
  char *doc = tlbsim_alloc(MLP, NULL, policies, 2, NULL, 0, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
  char *cli = program_output("alloc --format json --policy cuda --policy caching " MLP);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cli);
  CU_ASSERT_STRING_EQUAL(doc, cli);
  const char *cuda = policy_object(doc, "cuda"), *caching = policy_object(doc, "caching");
  CU_ASSERT_FATAL(doc[0] == '[' && cuda && caching && cuda < caching);
  CU_ASSERT_PTR_NOT_NULL(strstr(cuda, "\"peak_reserved_bytes\":1746927616,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(cuda, "\"driver_allocs\":3965,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(caching, "\"peak_reserved_bytes\":2835349504,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(caching, "\"peak_allocated_bytes\":1746011136,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(caching, "\"driver_allocs\":78,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(caching, "\"live_regions_2m_end\":193,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(caching, "\"model\":\"caching\""));
  tlbsim_free(cli);
  tlbsim_free(doc);
}

/* Four 4 KiB blocks fill 16 KiB; freeing the first and third leaves 8 KiB
 * free in two pieces, so 8 KiB at line 7 fails for fragmentation. One
 * policy: one object, not an array. */
static void test_alloc_native_oom(void) {
  char err[TLBSIM_ERROR_MAX], path[] = "/tmp/test_api_XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("alloc 1 4K\nalloc 2 4K\nalloc 3 4K\nalloc 4 4K\nfree 1\nfree 3\nalloc 5 8K\n", f);
  fclose(f);
  const char *policies[] = {"first-fit"};
  char *doc = tlbsim_alloc(path, "native", policies, 1, NULL, 16384, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
  const char *head = "[\n  {\n    \"policy\":\"first-fit\",\n";
  CU_ASSERT_EQUAL(strncmp(doc, head, strlen(head)), 0);
  const char *want[] = {"\"capacity_bytes\":16384,", "\"peak_requested_bytes\":16384,", "\"ooms\":1,",
                        "\"first_oom_event\":7,", "\"first_oom_request_bytes\":8192,",
                        "\"first_oom_free_bytes\":8192,", "\"first_oom_largest_free_extent\":4096,",
                        "\"first_oom_reason\":\"fragmentation\",", "\"ooms_fragmentation\":1,",
                        "\"external_fragmentation_max\":0.5,", "\"live_buffers_end\":2,"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) CU_ASSERT_PTR_NOT_NULL(strstr(doc, want[i]));
  tlbsim_free(doc);
  f = fopen(path, "w");
  fputs("alloc 1 4K\nfree 9\n", f);
  fclose(f);
  CU_ASSERT_PTR_NULL(tlbsim_alloc(path, NULL, NULL, 0, NULL, 0, NULL, 0, err));
  char line[600];
  snprintf(line, sizeof line, "%s:2: free of allocation 9, which is not live", path);
  CU_ASSERT_STRING_EQUAL(err, line);
  unlink(path);
}

/* The generated workload, settings and a capacity: as `tlbsim alloc
 * --synthetic` prints it. */
static void test_alloc_synthetic(void) {
  char err[TLBSIM_ERROR_MAX];
  const char *policies[] = {"caching", "first-fit"}, *sets[] = {"vas.max_split_size=64M"};
  char *doc = tlbsim_alloc("requests=300,seed=3", "synthetic", policies, 2, NULL, 1u << 30, sets, 1, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
  char *cli = program_output("alloc --format json --synthetic=requests=300,seed=3 --policy caching "
                             "--policy first-fit --capacity 1G --set max_split_size=64M");
  CU_ASSERT_PTR_NOT_NULL_FATAL(cli);
  CU_ASSERT_STRING_EQUAL(doc, cli);
  CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"trace\":\"<synthetic>\""));
  tlbsim_free(cli);
  tlbsim_free(doc);
}

static void test_alloc_errors(void) {
  char err[TLBSIM_ERROR_MAX];
  const char *worst[] = {"worst-fit"}, *bad_set[] = {"max_split_size=1M", "nosuch=1"};
  CU_ASSERT_PTR_NULL(tlbsim_alloc(MLP, NULL, worst, 1, NULL, 0, NULL, 0, err));
  CU_ASSERT_EQUAL(strncmp(err, "tlbsim_alloc: unknown allocator policy 'worst-fit' (known: ", 59), 0);
  CU_ASSERT_PTR_NULL(tlbsim_alloc(MLP, NULL, NULL, 0, NULL, 0, bad_set, 2, err));
  CU_ASSERT_EQUAL(strncmp(err, "tlbsim_alloc:2: unknown allocator parameter 'nosuch'", 52), 0);
  CU_ASSERT_PTR_NULL(tlbsim_alloc(MLP, "mp3", NULL, 0, NULL, 0, NULL, 0, err));
  CU_ASSERT_STRING_EQUAL(err, MLP ": allocation input format 'mp3' is not known");
  CU_ASSERT_PTR_NULL(tlbsim_alloc("bogus=1", "synthetic", NULL, 0, NULL, 0, NULL, 0, err));
  CU_ASSERT_EQUAL(strncmp(err, "tlbsim_alloc: synthetic: ", 25), 0);
  CU_ASSERT_PTR_NULL(tlbsim_alloc("/nonexistent/trace.json", NULL, NULL, 0, NULL, 0, NULL, 0, err));
  CU_ASSERT_EQUAL(strncmp(err, "/nonexistent/trace.json", 23), 0);
  CU_ASSERT_PTR_NULL(tlbsim_alloc(NULL, "native", NULL, 0, NULL, 0, NULL, 0, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_alloc: no trace (NULL)");
  const char *seventeen[17] = {"cuda", "cuda", "cuda", "cuda", "cuda", "cuda", "cuda", "cuda", "cuda",
                               "cuda", "cuda", "cuda", "cuda", "cuda", "cuda", "cuda", "cuda"};
  CU_ASSERT_PTR_NULL(tlbsim_alloc(MLP, NULL, seventeen, 17, NULL, 0, NULL, 0, err));
  CU_ASSERT_STRING_EQUAL(err, "tlbsim_alloc: 17 policies: at most 16");
  CU_ASSERT_PTR_NULL(tlbsim_alloc(MLP, NULL, NULL, 0, "no-such-preset", 0, NULL, 0, err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-preset"));
}

/* Misuse: every argument of every call NULL or out of range, in turn (the
 * others valid), fails with the call's one line and changes nothing; the
 * machine still answers afterwards. */
#define WANT_ERR(call, text)                                                                                        \
  do {                                                                                                              \
    strcpy(err, "untouched");                                                                                       \
    CU_ASSERT_EQUAL((call), -1);                                                                                    \
    CU_ASSERT_STRING_EQUAL(err, text);                                                                              \
  } while (0)
#define WANT_NULL(call, text)                                                                                       \
  do {                                                                                                              \
    strcpy(err, "untouched");                                                                                       \
    CU_ASSERT_PTR_NULL((call));                                                                                     \
    CU_ASSERT_STRING_EQUAL(err, text);                                                                              \
  } while (0)

static void test_misuse(void) {
  char err[TLBSIM_ERROR_MAX];
  double v;
  uint64_t size;
  tlbsim_chase_result r;
  const char *sets[] = {"tlb.l1d.entries=16", NULL}, *policies[] = {"cuda", NULL};
  tlbsim_machine *m = tlbsim_machine_create("x86-64", NULL, NULL, 0, err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  WANT_NULL(tlbsim_machine_create(NULL, NULL, NULL, 2, err), "tlbsim_machine_create: sets is NULL with a count of 2");
  WANT_NULL(tlbsim_machine_create(NULL, NULL, sets, 2, err), "tlbsim_machine_create: sets[1] is NULL");
  WANT_NULL(tlbsim_machine_create(NULL, NULL, sets, SIZE_MAX, err), "tlbsim_machine_create: 18446744073709551615 "
                                                                   "sets: at most 65536");
  tlbsim_machine_destroy(NULL);
  WANT_ERR(tlbsim_access(NULL, 'R', 0x1000, 8, err), "tlbsim_access: the machine is NULL");
  WANT_ERR(tlbsim_access(m, 'Q', 0x1000, 8, err), "tlbsim_access:1: kind 'Q' is not R, W or X");
  WANT_ERR(tlbsim_access(m, 'R', 0x1000, 0, err), "tlbsim_access:2: size 0 at 0x1000 is not a range of the address "
                                                 "space");
  WANT_ERR(tlbsim_access(m, 'R', UINT64_MAX, 2, err), "tlbsim_access:3: size 2 at 0xffffffffffffffff is not a range "
                                                    "of the address space");
  WANT_ERR(tlbsim_run_trace(NULL, DEMO, NULL, err), "tlbsim_run_trace: the machine is NULL");
  WANT_ERR(tlbsim_run_trace(m, NULL, NULL, err), "tlbsim_run_trace: path is NULL");
  WANT_ERR(tlbsim_feed(NULL, "r 0x10\n", 7, NULL, err), "tlbsim_feed: the machine is NULL");
  WANT_ERR(tlbsim_feed(m, NULL, 5, NULL, err), "tlbsim_feed: text is NULL");
  WANT_ERR(tlbsim_feed(m, "r 0x10\n", SIZE_MAX, NULL, err), "tlbsim_feed: len 18446744073709551615 is more than the "
                                                           "1099511627776 bytes fed at once (replay a file instead)");
  CU_ASSERT_EQUAL(tlbsim_feed(m, NULL, 0, NULL, err), 0); /* nothing to replay */
  WANT_ERR(tlbsim_stat(NULL, "accesses", &v, err), "tlbsim_stat: the machine is NULL");
  WANT_ERR(tlbsim_stat(m, NULL, &v, err), "tlbsim_stat: column is NULL");
  WANT_ERR(tlbsim_stat(m, "accesses", NULL, err), "tlbsim_stat: out is NULL");
  WANT_NULL(tlbsim_report(NULL, "json", err), "tlbsim_report: the machine is NULL");
  WANT_NULL(tlbsim_report(m, NULL, err), "tlbsim_report: the format is not json, csv or text");
  WANT_NULL(tlbsim_mrc(NULL, NULL, NULL, 0, err), "tlbsim_mrc: trace is NULL");
  WANT_NULL(tlbsim_mrc(STRIDE, NULL, NULL, UINT32_MAX, err), "tlbsim_mrc: max_entries 4294967295 exceeds 1048576");
  WANT_ERR(tlbsim_chase(NULL, 1 << 20, 4096, 0, NULL, NULL, &r, err), "tlbsim_chase: the machine is NULL");
  WANT_ERR(tlbsim_chase(m, 1 << 20, 4096, 0, NULL, NULL, NULL, err), "tlbsim_chase: out is NULL");
  WANT_ERR(tlbsim_chase(m, 1 << 20, 4096, 3, NULL, NULL, &r, err), "tlbsim_chase: 3 is not a page size of x86-64-4");
  WANT_ERR(tlbsim_chase(m, UINT64_MAX, 8, 0, NULL, NULL, &r, err),
           "tlbsim_chase: footprint 18446744073709551615 at stride 8: more nodes than a point may have");
  WANT_NULL(tlbsim_alloc(MLP, NULL, NULL, 1, NULL, 0, NULL, 0, err), "tlbsim_alloc: policies is NULL with a count of 1");
  WANT_NULL(tlbsim_alloc(MLP, NULL, policies, 2, NULL, 0, NULL, 0, err), "tlbsim_alloc: policies[1] is NULL");
  WANT_NULL(tlbsim_alloc(MLP, NULL, NULL, 0, NULL, 0, NULL, 3, err), "tlbsim_alloc: sets is NULL with a count of 3");
  WANT_NULL(tlbsim_alloc(MLP, NULL, NULL, 0, NULL, 0, sets + 1, 1, err), "tlbsim_alloc: sets[0] is NULL");
  WANT_NULL(tlbsim_alloc(MLP, NULL, NULL, 0, NULL, UINT64_MAX, NULL, 0, err),
            "tlbsim_alloc: capacity 18446744073709551615 is out of range (0: the default, else 1..281474976710656)");
  WANT_ERR(tlbsim_size(NULL, &size, err), "tlbsim_size: text is NULL");
  WANT_ERR(tlbsim_size("4K", NULL, err), "tlbsim_size: out is NULL");
  CU_ASSERT_EQUAL(tlbsim_size(NULL, NULL, NULL), -1); /* err may be NULL */
  tlbsim_free(NULL);
  CU_ASSERT_EQUAL(stat(m, "accesses"), 0); /* the refused calls did nothing */
  tlbsim_machine_destroy(m);
}

int main(void) {
  static const test_case cases[] = {{"version", test_version},
                                    {"size", test_size},
                                    {"run_trace", test_run_trace},
                                    {"sets_and_access", test_sets_and_access},
                                    {"config_file", test_config_file},
                                    {"trace_errors", test_trace_errors},
                                    {"feed", test_feed},
                                    {"report_then_feed", test_report_then_feed},
                                    {"mrc", test_mrc},
                                    {"chase", test_chase},
                                    {"chase_rows", test_chase_rows},
                                    {"views", test_views},
                                    {"alloc_snapshot", test_alloc_snapshot},
                                    {"alloc_native_oom", test_alloc_native_oom},
                                    {"alloc_synthetic", test_alloc_synthetic},
                                    {"alloc_errors", test_alloc_errors},
                                    {"misuse", test_misuse},
                                    {NULL, NULL}};
  static const test_suite suites[] = {{"api", cases}, {NULL, NULL}};
  return harness_run(suites);
}
