/* test_trace_bin.c — the binary format, the writers and the codecs: every
 * record kind round-trips through every format that holds it, compressed or
 * not; bad binary input ends in one FILE:RECORD error; what a text format
 * cannot hold is refused with the record's line; the line parsers' fast
 * paths agree with the general ones. Inputs are temp files in the working
 * directory (the build tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lzma.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "champsim_record.h"
#include "harness.h"
#include "tlbsim/pt.h"
#include "tlbsim/trace.h"

#define MAX_RECS 64

static void temp_name(char path[32]) {
  strcpy(path, "tbin-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
}

static void write_bytes(const void *p, size_t n, char path[32]) {
  temp_name(path);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_FATAL(fwrite(p, 1, n, f) == n);
  fclose(f);
}

/* Every record of path: the count (-1 on error, with d). */
static long read_all(const char *path, trace_format fmt, trace_record *rec, size_t max, diag *d) {
  trace_reader *r = trace_open(path, fmt, d);
  if (!r) return -1;
  long n = 0;
  int k;
  trace_record one;
  while ((k = trace_next(r, (size_t)n < max ? &rec[n] : &one, d)) == 1) n++;
  trace_close(r);
  return k < 0 ? -1 : n;
}

/* Writes recs with a writer into a temp file. */
static int write_records(const trace_record *recs, size_t n, trace_format fmt, trace_codec codec, char path[32],
                         diag *d) {
  temp_name(path);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  trace_writer *w = trace_writer_open(f, path, fmt, codec, d);
  CU_ASSERT_FATAL(w != NULL);
  for (size_t i = 0; i < n; i++)
    if (trace_write(w, &recs[i], "in.trace", d)) {
      trace_writer_free(w);
      fclose(f);
      return -1;
    }
  int rc = trace_writer_finish(w, d);
  fclose(f);
  return rc;
}

/* One of every kind, with the fields a round trip must keep. */
static const char every_kind[] = "r 0x1000 8\n"
                                 "w 0x1008 8\n"
                                 "x 0x400000 4\n"
                                 "r 0x0fff 2\n"
                                 "r 0xfffffffffffffff0 16\n"
                                 "w 0x10 3\n"
                                 "alloc 7 1M align=4096 stream=3\n"
                                 "r @7+0x40 8\n"
                                 "free 7\n"
                                 "map 0x200000 2M page=2M prot=r-x\n"
                                 "map 0x600000 4K prot=none\n"
                                 "protect 0x200000 2M prot=r\n"
                                 "unmap 0x200000 2M\n"
                                 "ctx 4294967295\n"
                                 "mark phase-2\n"
                                 "r 0x7fff0000 100000\n";

static void read_every_kind(trace_record *recs, long *n) {
  char path[32];
  write_bytes(every_kind, strlen(every_kind), path);
  diag d;
  *n = read_all(path, TRACE_NATIVE, recs, MAX_RECS, &d);
  CU_ASSERT_EQUAL_FATAL(*n, 16);
  unlink(path);
}

/* Records equal field by field but for their source line (a writer's
 * input keeps its own). */
static bool same_record(const trace_record *x, const trace_record *y) {
  return x->kind == y->kind && x->access == y->access && x->relative == y->relative && x->prot == y->prot &&
         x->asid == y->asid && x->stream == y->stream && x->alloc_id == y->alloc_id && x->addr == y->addr &&
         x->size == y->size && x->align == y->align && x->page_size == y->page_size && x->frame == y->frame &&
         x->has_frame == y->has_frame && x->thread == y->thread && !strcmp(x->label, y->label) &&
         !memcmp(&x->cap, &y->cap, sizeof x->cap);
}

static void check_same(const trace_record *a, const trace_record *b, long n) {
  for (long i = 0; i < n; i++) {
    CU_ASSERT_TRUE(same_record(&a[i], &b[i]));
    if (!same_record(&a[i], &b[i])) fprintf(stderr, "\n  record %ld differs\n", i);
  }
}

static void round_trip(trace_format fmt, trace_codec codec) {
  trace_record in[MAX_RECS], out[MAX_RECS];
  long n;
  read_every_kind(in, &n);
  char path[32];
  diag d;
  CU_ASSERT_EQUAL_FATAL(write_records(in, (size_t)n, fmt, codec, path, &d), 0);
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT_EQUAL(trace_get_format(r), fmt);
  trace_close(r);
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, out, MAX_RECS, &d), n);
  check_same(in, out, n);
  for (long i = 0; fmt == TRACE_BINARY && i < n; i++) CU_ASSERT_EQUAL(out[i].line, (unsigned long)i + 1);
  unlink(path);
}

/* A capture (traces/samples/capture.trace: every captured record and
 * option) through both tlbsim formats, every codec. */
static void test_capture_round_trips(void) {
  char src[512];
  snprintf(src, sizeof src, "%s/traces/samples/capture.trace", TLBSIM_SOURCE_DIR);
  trace_record in[MAX_RECS], out[MAX_RECS];
  diag d;
  long n = read_all(src, TRACE_NATIVE, in, MAX_RECS, &d);
  CU_ASSERT_EQUAL_FATAL(n, 26);
  for (trace_codec c = TRACE_PLAIN; c <= TRACE_ZSTD; c++)
    for (int f = 0; f < 2; f++) {
      char path[32];
      trace_format fmt = f ? TRACE_BINARY : TRACE_NATIVE;
      CU_ASSERT_EQUAL_FATAL(write_records(in, (size_t)n, fmt, c, path, &d), 0);
      CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, out, MAX_RECS, &d), n);
      check_same(in, out, n);
      unlink(path);
    }
  /* a writer refuses what would not read back: records out of time order */
  trace_record late[2] = {in[1], in[0]};
  char path[32];
  CU_ASSERT_EQUAL(write_records(late, 2, TRACE_NATIVE, TRACE_PLAIN, path, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "time order"));
  unlink(path);
}

static void test_round_trips(void) {
  for (trace_codec c = TRACE_PLAIN; c <= TRACE_ZSTD; c++) {
    round_trip(TRACE_BINARY, c);
    round_trip(TRACE_NATIVE, c);
  }
}

/* The exact bytes of a few records: the format as traces/FORMAT.md says. */
static void test_binary_bytes(void) {
  const trace_record recs[] = {
      {.kind = REC_ACCESS, .access = TRACE_READ, .addr = 0x1000, .size = 8},
      {.kind = REC_ACCESS, .access = TRACE_WRITE, .addr = 0x1008, .size = 8},
      {.kind = REC_ACCESS, .access = TRACE_READ, .addr = 0x1010, .size = 8},
      {.kind = REC_ACCESS, .access = TRACE_EXEC, .addr = 0x1000, .size = 3},
      {.kind = REC_CTX, .asid = 300},
  };
  static const uint8_t want[] = {0x89, 'T', 'L', 'B', 'T', 'R', 'C', 1,
                                 0x0c, 0x80, 0x40,      /* r, size code 3, delta +0x1000 zigzag 0x2000 */
                                 0x0d, 0x10,            /* w, size 8, delta +8 (zigzag 16) */
                                 0x2c,                  /* r, size 8, repeat */
                                 0x1e, 0x1f, 3,         /* x, size varint, delta -0x10 (zigzag 31), size 3 */
                                 0x1b, 0xac, 0x02};     /* code 6 (ctx), 300 */
  char path[32];
  diag d;
  CU_ASSERT_EQUAL_FATAL(write_records(recs, 5, TRACE_BINARY, TRACE_PLAIN, path, &d), 0);
  uint8_t got[64];
  FILE *f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  size_t n = fread(got, 1, sizeof got, f);
  fclose(f);
  CU_ASSERT_EQUAL(n, sizeof want);
  CU_ASSERT_EQUAL(memcmp(got, want, sizeof want), 0);
  unlink(path);
}

typedef struct bad_bin {
  uint8_t bytes[24];
  size_t n;
  unsigned long record;
  const char *what;
} bad_bin;

static void test_binary_errors(void) {
  static const bad_bin cases[] = {
      {{0x0c, 0x80}, 2, 1, "cut off"},
      {{0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 14, 2, "longer than 64 bits"},
      {{0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 13, 2, "longer than 64 bits"},
      {{0x40, 0x00}, 2, 1, "reserved tag bits"},
      {{0x53}, 1, 1, "unknown record code"},
      {{0x23, 0x40}, 2, 1, "a thread id beyond 63"},
      {{0x1c, 0x00, 0x00}, 3, 1, "a size of 0"},
      {{0x1c, 0x01, 0x02}, 3, 1, "wraps past the top"},
      {{0x1f, 0x05, 0x80}, 3, 1, "cut off"},
      {{0x1f, 0x00}, 2, 1, "mark label of 0"},
      {{0x1f, 0x02, 'a', 0x01}, 4, 1, "not printable"},
      /* the native reader's label grammar: no blank, '=', non-ASCII byte or leading '#' */
      {{0x1f, 0x02, 'a', ' '}, 4, 1, "not printable ASCII (or is a blank)"},
      {{0x1f, 0x02, 'a', 0xc3}, 4, 1, "not printable ASCII"},
      {{0x1f, 0x03, 'a', '=', 'b'}, 5, 1, "a mark label with '='"},
      {{0x1f, 0x02, '#', 'a'}, 4, 1, "starts with '#'"},
      /* map VA 0 SIZE 100 page=4096: whole pages, as native's page= requires */
      {{0x0f, 0x00, 0x64, 0x80, 0x20, 0x03}, 6, 1, "not a multiple of its page size"},
      {{0x0f, 0x00, 0x01, 0x00, 0x10}, 5, 1, "beyond r, w and x"},
      {{0x07, 0x01, 0x10, 0x03, 0x00}, 5, 1, "not a power of two"},
      {{0x1b, 0x80, 0x80, 0x80, 0x80, 0x10}, 6, 1, "beyond 32 bits"},
      {{0x03, 0x03, 0x00, 0x00, 0x01}, 5, 1, "access kind beyond 2"},
      /* a capture's records and their attributes prefix (code 9) */
      {{0x27, 0x80, 0x20}, 3, 1, "an attribute flag beyond bit 11"},
      {{0x27, 0x01, 0x05, 0x00, 0x08}, 5, 1, "attributes not followed by a record that takes them"},
      {{0x27, 0x01, 0x05, 0x27, 0x01, 0x05, 0x0b, 0x01}, 8, 1, "attributes not followed"},
      {{0x27, 0x04, 0x10, 0x0b, 0x01}, 5, 1, "an attribute the record that follows does not take"},
      {{0x27, 0x01, 0x05}, 3, 1, "cut off"},
      {{0x27, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x0b, 0x01, 0x27, 0x01, 0x01, 0x0b, 0x02},
       19, 2, "a time past 2^64 ns"},
      {{0x3f, 0x05, 0x01}, 3, 1, "FREE is more than its TOTAL"},
      {{0x2b, 0x01, 0x03, 0x00}, 4, 1, "a pool operation beyond 2"},
      /* KEEP is native's keep=, which flag 10 says is there: a create keeping 5 has no native line */
      {{0x2b, 0x01, 0x00, 0x05}, 4, 1, "a pool record's KEEP without the keep attribute"},
      {{0x2b, 0x01, 0x01, 0x05}, 4, 1, "KEEP without the keep attribute"},
      {{0x47, 0x00, 0x01, 0x09}, 4, 1, "an advice beyond 8"},
      {{0x43, 0x00, 0x01, 0x02}, 4, 1, "a prefetch target beyond 1"},
      {{0x37, 0x01, 0x00}, 3, 1, "a size of 0"},
      {{0x27, 0x80, 0x01, 0x00, 0x01, 0x01, 0x1f, 0x01, 'k'}, 9, 1, "a launch dimension outside"},
      {{0x27, 0x20, 0x01, 0x0f, 0x00, 0x80, 0x80, 0x80, 0x01, 0x00, 0x0b, 0x00}, 12, 1, "frame= or handle=, not both"},
      {{0x27, 0x80, 0x10, 0x04, 0x07, 0x01, 0x01, 0x00, 0x00}, 9, 1, "a memory kind outside 1..3"},
      {{0x27, 0x80, 0x10, 0x01, 0x0b, 0x01}, 6, 1, "does not take"},
      /* the host's accesses (codes 18 and 19) */
      {{0x4b, 0x03, 0x00, 0x01}, 4, 1, "access kind beyond 2"},
      {{0x4b, 0x00, 0x00, 0x00}, 4, 1, "a size of 0"},
      {{0x4f, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02}, 14, 1, "wraps past the top"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint8_t buf[64];
    memcpy(buf, "\x89TLBTRC\x01", 8);
    memcpy(buf + 8, cases[i].bytes, cases[i].n);
    char path[32], prefix[64];
    write_bytes(buf, 8 + cases[i].n, path);
    trace_record recs[4];
    diag d;
    CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, recs, 4, &d), -1);
    snprintf(prefix, sizeof prefix, "%s:%lu: ", path, cases[i].record);
    CU_ASSERT_EQUAL(strncmp(d.msg, prefix, strlen(prefix)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, cases[i].what));
    if (strncmp(d.msg, prefix, strlen(prefix)) || !strstr(d.msg, cases[i].what))
      fprintf(stderr, "\n  case %zu: wanted %s...%s, got %s\n", i, prefix, cases[i].what, d.msg);
    unlink(path);
  }
  /* the header: another version, and a text file read as binary */
  char path[32];
  trace_record rec;
  diag d;
  write_bytes("\x89TLBTRC\x02\x00", 9, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, &rec, 1, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "unsupported binary trace version 2 (tlbsim reads 1)"));
  unlink(path);
  write_bytes("r 0x10\n", 7, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_BINARY, &rec, 1, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not a binary trace"));
  unlink(path);
}

/* Enough records to cross many buffer refills and blocks, with the other
 * kinds among them, read back the same whatever the codec. */
static void test_binary_long(void) {
  enum { N = 300000 };
  char path[32];
  temp_name(path);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  diag d;
  trace_writer *w = trace_writer_open(f, path, TRACE_BINARY, TRACE_ZSTD, &d);
  CU_ASSERT_FATAL(w != NULL);
  uint64_t x = 1;
  for (unsigned long i = 0; i < N; i++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    trace_record rec = {.kind = REC_ACCESS, .access = (trace_access)(i % 3), .addr = i % 7 ? i * 8 : x >> 1,
                        .size = 1 + i % 9, .line = i + 1};
    if (i % 1000 == 999) rec = (trace_record){.kind = REC_MARK, .label = "m", .line = i + 1};
    CU_ASSERT_EQUAL_FATAL(trace_write(w, &rec, "gen", &d), 0);
  }
  CU_ASSERT_EQUAL_FATAL(trace_writer_finish(w, &d), 0);
  fclose(f);
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_record rec;
  unsigned long i = 0, bad = 0;
  x = 1;
  while (trace_next(r, &rec, &d) == 1) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    bool mark = i % 1000 == 999;
    if (rec.line != i + 1 || (mark ? rec.kind != REC_MARK : rec.addr != (i % 7 ? i * 8 : x >> 1) || rec.size != 1 + i % 9))
      bad++;
    i++;
  }
  trace_close(r);
  CU_ASSERT_EQUAL(i, N);
  CU_ASSERT_EQUAL(bad, 0);
  unlink(path);
}

/* What lackey and din cannot hold is refused with the record's line. */
static void test_writer_refusals(void) {
  trace_record recs[MAX_RECS];
  long n;
  read_every_kind(recs, &n);
  char path[32];
  diag d;
  CU_ASSERT_EQUAL(write_records(recs, (size_t)n, TRACE_DIN, TRACE_PLAIN, path, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "in.trace:1: din holds no sizes, and this access is longer than 1 byte (convert to "
                                "lackey, native or binary)");
  unlink(path);
  CU_ASSERT_EQUAL(write_records(recs, (size_t)n, TRACE_LACKEY, TRACE_PLAIN, path, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "in.trace:7: lackey holds accesses to addresses only"));
  unlink(path);
  /* What a writer writes reads back as the record, or the record is refused:
   * a label or a map range neither reader takes, a field no format holds. */
  static const struct {
    trace_record rec;
    trace_format fmt;
    const char *msg;
  } unheld[] = {
      {{.kind = REC_MARK, .label = "a b", .line = 4}, TRACE_NATIVE,
       "in.trace:4: native cannot hold this record: it would read back as an error (unexpected field 'b'"},
      {{.kind = REC_MARK, .label = "a b", .line = 4}, TRACE_BINARY,
       "in.trace:4: binary cannot hold this record: it would read back as an error (binary record 1: a mark label "
       "byte that is not printable ASCII (or is a blank))"},
      {{.kind = REC_MARK, .label = "x=1", .line = 5}, TRACE_NATIVE, "in.trace:5: native cannot hold this record"},
      {{.kind = REC_MAP, .addr = 0, .size = 100, .page_size = 4096, .prot = 3, .line = 6}, TRACE_NATIVE,
       "in.trace:6: native cannot hold this record: it would read back as an error (map VA 0x0 and SIZE 0x64 must be "
       "multiples of page=4096)"},
      {{.kind = REC_MAP, .addr = 0, .size = 100, .page_size = 4096, .prot = 3, .line = 6}, TRACE_BINARY,
       "in.trace:6: binary cannot hold this record: it would read back as an error (binary record 1: a map whose VA"},
      {{.kind = REC_ACCESS, .addr = 0x10, .size = 1, .prot = 3, .line = 7}, TRACE_BINARY,
       "in.trace:7: binary cannot hold this record: it would read back as another record"},
      {{.kind = REC_ACCESS, .addr = 0x10, .size = 1, .asid = 2, .line = 7}, TRACE_LACKEY,
       "in.trace:7: lackey cannot hold this record: it would read back as another record"},
  };
  for (size_t i = 0; i < sizeof unheld / sizeof unheld[0]; i++) {
    CU_ASSERT_EQUAL(write_records(&unheld[i].rec, 1, unheld[i].fmt, TRACE_PLAIN, path, &d), -1);
    CU_ASSERT_EQUAL(strncmp(d.msg, unheld[i].msg, strlen(unheld[i].msg)), 0);
    if (strncmp(d.msg, unheld[i].msg, strlen(unheld[i].msg)))
      fprintf(stderr, "\n  case %zu: wanted %s, got %s\n", i, unheld[i].msg, d.msg);
    unlink(path);
  }
  /* what they hold, they keep */
  trace_record acc[2] = {{.kind = REC_ACCESS, .access = TRACE_WRITE, .addr = 0xabc, .size = 1, .line = 1},
                         {.kind = REC_ACCESS, .access = TRACE_EXEC, .addr = 0x400000, .size = 1, .line = 2}},
               back[2];
  for (trace_format fmt = TRACE_LACKEY; fmt <= TRACE_DIN; fmt++) {
    CU_ASSERT_EQUAL_FATAL(write_records(acc, 2, fmt, TRACE_GZIP, path, &d), 0);
    CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, back, 2, &d), 2);
    check_same(acc, back, 2);
    unlink(path);
  }
}

/* gzip members and zstd frames back to back read as one stream; input cut
 * inside one, or anything else after one, is an error. */
static void test_codecs(void) {
  char path[32];
  temp_name(path);
  gzFile gz = gzopen(path, "wb");
  gzputs(gz, "r 0x10\n");
  gzclose(gz);
  FILE *f = fopen(path, "rb");
  uint8_t member[128];
  size_t m = fread(member, 1, sizeof member, f);
  fclose(f);
  uint8_t two[256];
  memcpy(two, member, m);
  memcpy(two + m, member, m);
  unlink(path);
  write_bytes(two, 2 * m, path);
  trace_record rec[4];
  diag d;
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, rec, 4, &d), 2);
  unlink(path);
  memcpy(two + m, "junk", 4);
  write_bytes(two, m + 4, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, rec, 4, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "data after the end of the gzip stream"));
  unlink(path);

  uint8_t z[128];
  size_t zn = ZSTD_compress(z, sizeof z, "r 0x10\nw 0x20\n", 14, 3);
  CU_ASSERT_FATAL(!ZSTD_isError(zn));
  memcpy(two, z, zn);
  memcpy(two + zn, z, zn);
  write_bytes(two, 2 * zn, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, rec, 4, &d), 4);
  CU_ASSERT_EQUAL(rec[3].addr, 0x20);
  CU_ASSERT_EQUAL(rec[3].line, 4);
  unlink(path);
  write_bytes(z, zn - 3, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, rec, 4, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "cannot read input"));
  CU_ASSERT_EQUAL(strncmp(d.msg, path, strlen(path)), 0);
  unlink(path);
}

/* text repeated REPEATS times into a temp file: the lines at the start are
 * read by the formats' scans (many bytes follow them), the last ones by
 * the line parsers. */
#define REPEATS 40
static void write_repeated(const char *text, char path[32]) {
  size_t len = strlen(text);
  char *all = malloc(len * REPEATS);
  CU_ASSERT_FATAL(all != NULL);
  for (int i = 0; i < REPEATS; i++) memcpy(all + len * (size_t)i, text, len);
  write_bytes(all, len * REPEATS, path);
  free(all);
}

/* din and lackey lines in every shape near the fast paths' edges: 1 and 16
 * digits, upper case, a 17th (zero) digit, blanks and 0x, each read as
 * the general parse reads it, by the scans and by the line parsers. */
static void test_fast_paths(void) {
  static const char din[] = "0 1\n"
                            "1 ffffffffffffffff\n"
                            "2 ABCdef0123456789\n"
                            "0 0ffffffffffffffff\n"
                            "1 0x10\n"
                            "0  20\n"
                            "0\t30\n"
                            "3 40 # misc\n"
                            "0 50 \n";
  static const uint64_t din_addr[] = {1, UINT64_MAX, 0xABCdef0123456789, UINT64_MAX, 0x10, 0x20, 0x30, 0x40, 0x50};
  static const trace_access din_kind[] = {TRACE_READ, TRACE_WRITE, TRACE_EXEC, TRACE_READ, TRACE_WRITE,
                                          TRACE_READ, TRACE_READ,  TRACE_READ, TRACE_READ};
  char path[32];
  trace_record rec[9 * REPEATS];
  diag d;
  write_repeated(din, path);
  CU_ASSERT_EQUAL_FATAL(read_all(path, TRACE_DIN, rec, 9 * REPEATS, &d), 9 * REPEATS);
  for (int i = 0; i < 9 * REPEATS; i++) {
    CU_ASSERT_EQUAL(rec[i].addr, din_addr[i % 9]);
    CU_ASSERT_EQUAL(rec[i].access, din_kind[i % 9]);
    CU_ASSERT_EQUAL(rec[i].size, 1);
    CU_ASSERT_EQUAL(rec[i].line, (unsigned long)i + 1);
  }
  unlink(path);
  static const char lackey[] = " L 0,1\n"
                               " S ffffffffffffff00,256\n"
                               "I  ABCdef01,15\n"
                               " M 00000000000000010,8\n"
                               " L 10,123456789\n"
                               " L 10,1234567890\n"
                               "  L 20,8\n";
  static const uint64_t lk_addr[] = {0, 0xffffffffffffff00, 0xABCdef01, 0x10, 0x10, 0x10, 0x20};
  static const uint64_t lk_size[] = {1, 256, 15, 8, 123456789, 1234567890, 8};
  static const trace_access lk_kind[] = {TRACE_READ, TRACE_WRITE, TRACE_EXEC, TRACE_WRITE,
                                         TRACE_READ, TRACE_READ,  TRACE_READ};
  write_repeated(lackey, path);
  CU_ASSERT_EQUAL_FATAL(read_all(path, TRACE_LACKEY, rec, 7 * REPEATS, &d), 7 * REPEATS);
  for (int i = 0; i < 7 * REPEATS; i++) {
    CU_ASSERT_EQUAL(rec[i].addr, lk_addr[i % 7]);
    CU_ASSERT_EQUAL(rec[i].size, lk_size[i % 7]);
    CU_ASSERT_EQUAL(rec[i].access, lk_kind[i % 7]);
    CU_ASSERT_EQUAL(rec[i].line, (unsigned long)i + 1);
  }
  unlink(path);
  /* an error after lines the scans took is still at its line */
  write_repeated(" L 10,8\n", path);
  FILE *f = fopen(path, "ab");
  CU_ASSERT_FATAL(f != NULL);
  fputs(" L 10,0\n L 20,8\n", f);
  fclose(f);
  CU_ASSERT_EQUAL(read_all(path, TRACE_LACKEY, rec, 7 * REPEATS, &d), -1);
  char want[64];
  snprintf(want, sizeof want, "%s:%d: size: '0' is out of range", path, REPEATS + 1);
  CU_ASSERT_EQUAL(strncmp(d.msg, want, strlen(want)), 0);
  unlink(path);
  /* a bad digit anywhere in a long address is still the general error */
  write_bytes("0 12345678g\n", 12, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_DIN, rec, 16, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":1: bad hex address"));
  unlink(path);
  write_bytes(" L 1234567890abcdefg,4\n", 23, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_LACKEY, rec, 16, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":1: expected ',SIZE' after the address"));
  unlink(path);
}

/* ---- ChampSim and pinatrace ---------------------------------------------- */

/* Three instructions as ChampSim's tracer writes them: a plain one, one
 * with two loads and a store (zero slots between), a taken branch. */
static void write_champsim(const char *path, const char *compress) {
  struct input_instr in[3] = {{.ip = 0x401000},
                              {.ip = 0x401004,
                               .source_memory = {0x7ffd0010, 0, 0x601040, 0},
                               .destination_memory = {0, 0x7ffd0020},
                               .source_registers = {3, 4},
                               .destination_registers = {5}},
                              {.ip = 0x401008, .is_branch = 1, .branch_taken = 1}};
  char cmd[128];
  snprintf(cmd, sizeof cmd, "%s > %s", compress, path);
  FILE *f = popen(cmd, "w");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_FATAL(fwrite(in, sizeof in[0], 3, f) == 3);
  CU_ASSERT_FATAL(pclose(f) == 0);
}

static void test_champsim(void) {
  static const char *const compressors[] = {"cat", "xz -c", "gzip -c", "zstd -q -c"};
  for (size_t c = 0; c < sizeof compressors / sizeof compressors[0]; c++) {
    char path[32];
    temp_name(path);
    write_champsim(path, compressors[c]);
    trace_record rec[16];
    diag d;
    trace_reader *r = trace_open(path, TRACE_AUTO, &d);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_EQUAL(trace_get_format(r), TRACE_CHAMPSIM);
    trace_close(r);
    CU_ASSERT_EQUAL_FATAL(read_all(path, TRACE_AUTO, rec, 16, &d), 6);
    static const trace_access kind[] = {TRACE_EXEC, TRACE_EXEC, TRACE_READ, TRACE_READ, TRACE_WRITE, TRACE_EXEC};
    static const uint64_t addr[] = {0x401000, 0x401004, 0x7ffd0010, 0x601040, 0x7ffd0020, 0x401008};
    static const unsigned long line[] = {1, 2, 2, 2, 2, 3};
    for (int i = 0; i < 6; i++) {
      CU_ASSERT_EQUAL(rec[i].access, kind[i]);
      CU_ASSERT_EQUAL(rec[i].addr, addr[i]);
      CU_ASSERT_EQUAL(rec[i].size, 1);
      CU_ASSERT_EQUAL(rec[i].line, line[i]);
    }
    unlink(path);
  }
  /* a record cut off, and a byte no input_instr has */
  char path[32];
  temp_name(path);
  write_champsim(path, "head -c 150");
  trace_record rec[16];
  diag d;
  CU_ASSERT_EQUAL(read_all(path, TRACE_CHAMPSIM, rec, 16, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":3: ChampSim record 3 is cut off: the input ends 22 bytes into its 64"));
  unlink(path);
  uint8_t bad[64] = {0x10, 0, 0, 0, 0, 0, 0, 0, 2};
  write_bytes(bad, sizeof bad, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_CHAMPSIM, rec, 16, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":1: ChampSim record 1: is_branch and branch_taken must be 0 or 1"));
  unlink(path);
}

/* A multi-megabyte ChampSim trace, plain and xz'd in one block and in many
 * (as xz -T2 --block-size=1MiB writes it): each replays the same records,
 * read on one decode thread and on two (trace_open_jobs).
 * Records carry 1 to 7 accesses, so blocks fill to every count short of
 * full: the reader once took a block with no room for the next record's
 * seven as a reason to read more, which on a full buffer read nothing
 * (plain input looped; xz stopped with "a cut-off xz stream"). */
#define BIG_RECORDS 65536u /* 4 MiB */

typedef struct tally {
  uint64_t records, by_kind[3], digest;
} tally;

static void big_champsim(struct input_instr *in) {
  uint64_t x = 88172645463325252ull; /* xorshift64: the same trace every run */
  for (unsigned i = 0; i < BIG_RECORDS; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i] = (struct input_instr){.ip = 0x400000 + 4ull * (i % 4096)};
    for (unsigned k = 0; k < 4; k++)
      if (x >> (k + 8) & 1) in[i].source_memory[k] = 0x10000000 + ((x >> 16) % (1u << 20)) * 64 + k * 8;
    for (unsigned k = 0; k < 2; k++)
      if (x >> (k + 12) & 1) in[i].destination_memory[k] = 0x20000000 + ((x >> 32) % (1u << 16)) * 64 + k * 8;
  }
}

/* What a replay of path sees, block by block, decoded on `jobs` threads. */
static tally replay_tally(const char *path, unsigned jobs) {
  tally t = {0};
  diag d;
  trace_reader *r = trace_open_jobs(path, TRACE_AUTO, jobs, &d);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT_EQUAL(trace_get_format(r), TRACE_CHAMPSIM);
  trace_block *b = malloc(sizeof *b);
  CU_ASSERT_FATAL(b != NULL);
  int got;
  while ((got = trace_read_block(r, b, &d)) == 1)
    for (size_t i = 0; i < b->n; i++) {
      t.by_kind[b->acc[i].kind]++;
      t.records = b->line[i];
      t.digest = (t.digest ^ b->acc[i].addr ^ (uint64_t)b->line[i] << 48) * 0x100000001b3ull;
    }
  CU_ASSERT_EQUAL(got, 0);
  if (got) fprintf(stderr, "\n  %s: %s\n", path, d.msg);
  free(b);
  trace_close(r);
  return t;
}

/* bytes xz'd into path: one block (lzma_easy_encoder), or 1 MiB blocks
 * from two threads (lzma_stream_encoder_mt, what xz -T2 does). */
static void write_xz(const uint8_t *bytes, size_t n, bool blocks, char path[32]) {
  lzma_stream z = LZMA_STREAM_INIT;
  lzma_mt mt = {.threads = 2, .block_size = 1u << 20, .preset = 0, .check = LZMA_CHECK_CRC64};
  CU_ASSERT_FATAL((blocks ? lzma_stream_encoder_mt(&z, &mt) : lzma_easy_encoder(&z, 0, LZMA_CHECK_CRC64)) == LZMA_OK);
  size_t cap = n / 2 + 4096;
  uint8_t *out = malloc(cap);
  CU_ASSERT_FATAL(out != NULL);
  z.next_in = bytes, z.avail_in = n, z.next_out = out, z.avail_out = cap;
  lzma_ret rc;
  while ((rc = lzma_code(&z, LZMA_FINISH)) == LZMA_OK) CU_ASSERT_FATAL(z.avail_out > 0);
  CU_ASSERT_FATAL(rc == LZMA_STREAM_END);
  write_bytes(out, cap - z.avail_out, path);
  lzma_end(&z);
  free(out);
}

static void test_champsim_big(void) {
  struct input_instr *in = malloc(BIG_RECORDS * sizeof *in);
  CU_ASSERT_FATAL(in != NULL);
  big_champsim(in);
  tally want = {.records = BIG_RECORDS, .by_kind = {0, 0, BIG_RECORDS}};
  for (unsigned i = 0; i < BIG_RECORDS; i++) {
    want.digest = (want.digest ^ in[i].ip ^ (uint64_t)(i + 1) << 48) * 0x100000001b3ull;
    for (unsigned k = 0; k < 4; k++)
      if (in[i].source_memory[k]) {
        want.by_kind[TRACE_READ]++;
        want.digest = (want.digest ^ in[i].source_memory[k] ^ (uint64_t)(i + 1) << 48) * 0x100000001b3ull;
      }
    for (unsigned k = 0; k < 2; k++)
      if (in[i].destination_memory[k]) {
        want.by_kind[TRACE_WRITE]++;
        want.digest = (want.digest ^ in[i].destination_memory[k] ^ (uint64_t)(i + 1) << 48) * 0x100000001b3ull;
      }
  }
  char plain[32], one[32], many[32];
  write_bytes(in, BIG_RECORDS * sizeof *in, plain);
  write_xz((const uint8_t *)in, BIG_RECORDS * sizeof *in, false, one);
  write_xz((const uint8_t *)in, BIG_RECORDS * sizeof *in, true, many);
  free(in);
  const char *paths[] = {plain, one, many};
  for (int p = 0; p < 3; p++) {
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
      tally t = replay_tally(paths[p], jobs);
      CU_ASSERT_EQUAL(t.records, want.records);
      for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL(t.by_kind[k], want.by_kind[k]);
      CU_ASSERT_EQUAL(t.digest, want.digest);
    }
    unlink(paths[p]);
  }
}

/* Thread ids: native thread= becomes REC_THREAD records where the thread
 * changes; binary and native keep them, din refuses them; the reader's
 * default thread names the records of a trace without ids. */
static void test_threads(void) {
  static const char text[] = "r 0x1000\nr 0x2000 thread=3\nw 0x2000 4 thread=3\nx 0x10\nr 0x1 thread=0\n";
  static const trace_rec_kind kind[] = {REC_ACCESS, REC_THREAD, REC_ACCESS, REC_ACCESS, REC_THREAD, REC_ACCESS,
                                        REC_ACCESS};
  static const uint32_t thread[] = {0, 3, 0, 0, 0, 0, 0};
  static const unsigned long line[] = {1, 2, 2, 3, 4, 4, 5};
  char path[32], out[32];
  write_bytes(text, strlen(text), path);
  trace_record in[MAX_RECS], back[MAX_RECS];
  diag d;
  CU_ASSERT_EQUAL_FATAL(read_all(path, TRACE_NATIVE, in, MAX_RECS, &d), 7);
  for (int i = 0; i < 7; i++) {
    CU_ASSERT_EQUAL(in[i].kind, kind[i]);
    CU_ASSERT_EQUAL(in[i].thread, thread[i]);
    CU_ASSERT_EQUAL(in[i].line, line[i]);
  }
  CU_ASSERT_EQUAL(in[3].addr, 0x2000);
  CU_ASSERT_EQUAL(in[3].size, 4);
  for (trace_format fmt = TRACE_NATIVE; fmt <= TRACE_BINARY; fmt += TRACE_BINARY - TRACE_NATIVE) {
    CU_ASSERT_EQUAL_FATAL(write_records(in, 7, fmt, TRACE_PLAIN, out, &d), 0);
    CU_ASSERT_EQUAL(read_all(out, TRACE_AUTO, back, MAX_RECS, &d), 7);
    check_same(in, back, 7);
    unlink(out);
  }
  CU_ASSERT_EQUAL(write_records(in, 7, TRACE_DIN, TRACE_PLAIN, out, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "in.trace:2: din holds no thread ids (convert to native or binary to keep them)");
  unlink(out);
  /* a default thread: a REC_THREAD first, and lines without thread= are its */
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_set_thread(r, 5);
  static const uint32_t by_default[] = {5, 0, 3, 0, 0, 5, 0, 0, 0};
  for (int i = 0; i < 9; i++) {
    CU_ASSERT_EQUAL_FATAL(trace_next(r, &in[i], &d), 1);
    CU_ASSERT_EQUAL(in[i].kind, by_default[i] || i == 7 ? REC_THREAD : REC_ACCESS);
    CU_ASSERT_EQUAL(in[i].thread, by_default[i]);
  }
  CU_ASSERT_EQUAL(trace_next(r, &in[0], &d), 0);
  trace_close(r);
  unlink(path);
  write_bytes("r 0 thread=64\n", 14, path);
  CU_ASSERT_EQUAL(read_all(path, TRACE_NATIVE, in, MAX_RECS, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":1: thread: '64' is out of range (0..63)"));
  unlink(path);
  /* ChampSim: one CPU's trace, named by the default thread */
  temp_name(path);
  write_champsim(path, "cat");
  r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_set_thread(r, 2);
  CU_ASSERT_EQUAL(trace_next(r, &in[0], &d), 1);
  CU_ASSERT_EQUAL(in[0].kind, REC_THREAD);
  CU_ASSERT_EQUAL(in[0].thread, 2);
  long n = 0;
  while (trace_next(r, &in[0], &d) == 1) n += in[0].kind == REC_ACCESS;
  CU_ASSERT_EQUAL(n, 6);
  trace_close(r);
  unlink(path);
}

static void test_pinatrace(void) {
  static const char good[] = "0x400a1c: W 0x7ffd3e0\n"
                             "0x400a20: R 0x601040\n"
                             "\n"
                             "(nil): R (nil)\n"
                             "#eof\n";
  char path[32];
  trace_record rec[8];
  diag d;
  write_bytes(good, strlen(good), path);
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT_EQUAL(trace_get_format(r), TRACE_PINATRACE);
  trace_close(r);
  CU_ASSERT_EQUAL_FATAL(read_all(path, TRACE_AUTO, rec, 8, &d), 3);
  CU_ASSERT_EQUAL(rec[0].access, TRACE_WRITE);
  CU_ASSERT_EQUAL(rec[0].addr, 0x7ffd3e0);
  CU_ASSERT_EQUAL(rec[1].access, TRACE_READ);
  CU_ASSERT_EQUAL(rec[1].addr, 0x601040);
  CU_ASSERT_EQUAL(rec[2].addr, 0);
  CU_ASSERT_EQUAL(rec[2].line, 4);
  unlink(path);
  static const struct {
    const char *text;
    const char *error;
  } bad[] = {
      {"0x1: R 0x2\n", ":1: no #eof line at the end"},
      {"0x1: R 0x2\n0x1: X 0x2\n#eof\n", ":2: expected R or W"},
      {"0x1: R 0x2\n0x1 R 0x2\n#eof\n", ":2: expected 'IP: R|W ADDR'"},
      {"0x1: R 0x2\n0x1: R 12\n#eof\n", ":2: bad address"},
      {"0x1: R 0x2\n0x1: R 0x10000000000000000\n#eof\n", ":2: bad address"},
      {"0x1: R 0x2\n#eof\n0x1: R 0x2\n", ":3: text after #eof"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_bytes(bad[i].text, strlen(bad[i].text), path);
    CU_ASSERT_EQUAL(read_all(path, TRACE_AUTO, rec, 8, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, bad[i].error));
    CU_ASSERT_EQUAL(strncmp(d.msg, path, strlen(path)), 0);
    if (!strstr(d.msg, bad[i].error)) fprintf(stderr, "\n  case %zu: wanted %s, got %s\n", i, bad[i].error, d.msg);
    unlink(path);
  }
}

int main(void) {
  static const test_case binary[] = {
      {"round trips", test_round_trips},
      {"capture round trips", test_capture_round_trips},
      {"bytes", test_binary_bytes},
      {"errors", test_binary_errors},
      {"long", test_binary_long},
      {NULL, NULL},
  };
  static const test_case writers[] = {
      {"refusals", test_writer_refusals},
      {"codecs", test_codecs},
      {"fast paths", test_fast_paths},
      {NULL, NULL},
  };
  static const test_case foreign[] = {
      {"champsim", test_champsim},
      {"champsim big, xz in one block and many", test_champsim_big},
      {"pinatrace", test_pinatrace},
      {"threads", test_threads},
      {NULL, NULL},
  };
  static const test_suite suites[] = {
      {"trace binary", binary},
      {"trace champsim and pinatrace", foreign},
      {"trace writers and codecs", writers},
      {NULL, NULL},
  };
  return harness_run(suites);
}
