/* test_trace.c — the trace readers: exact records from good lines of every
 * format, FILE:LINE errors from bad ones, auto-detection, gzip, stdin, the
 * line cap and buffer refills. Inputs are temp files in the working
 * directory (the build tree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "tlbsim/pt.h"
#include "tlbsim/trace.h"
#include "tlbsim/uvm.h"

#define MAX_RECS 64

/* ---- helpers ----------------------------------------------------------- */

/* Writes len bytes to a fresh temp file; path receives its name. */
static void write_temp(const char *text, size_t len, char path[32]) {
  strcpy(path, "trace-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_FATAL(write(fd, text, len) == (ssize_t)len);
  close(fd);
}

static void write_gz(const char *text, size_t len, char path[32]) {
  strcpy(path, "trace-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  gzFile gz = gzdopen(fd, "wb");
  CU_ASSERT_FATAL(gz != NULL);
  CU_ASSERT_FATAL(gzwrite(gz, text, (unsigned)len) == (int)len);
  CU_ASSERT_FATAL(gzclose(gz) == Z_OK);
}

typedef struct result {
  int rc;            /* trace_open failed: -2; else the last trace_next */
  size_t n;
  trace_record rec[MAX_RECS];
  trace_format fmt;
  diag d;
} result;

static void read_path(const char *path, trace_format fmt, result *res) {
  memset(res, 0, sizeof *res);
  trace_reader *r = trace_open(path, fmt, &res->d);
  if (!r) {
    res->rc = -2;
    return;
  }
  res->fmt = trace_get_format(r);
  while (res->n < MAX_RECS && (res->rc = trace_next(r, &res->rec[res->n], &res->d)) == 1) res->n++;
  trace_close(r);
}

/* Reads text (written to a temp file) in format fmt. */
static void read_text(const char *text, trace_format fmt, result *res, char path[32]) {
  write_temp(text, strlen(text), path);
  read_path(path, fmt, res);
}

static void check_access(const trace_record *r, trace_access a, uint64_t addr, uint64_t size,
                         unsigned long line) {
  CU_ASSERT_EQUAL(r->kind, REC_ACCESS);
  CU_ASSERT_EQUAL(r->access, a);
  CU_ASSERT_EQUAL(r->addr, addr);
  CU_ASSERT_EQUAL(r->size, size);
  CU_ASSERT_EQUAL(r->line, line);
  CU_ASSERT_FALSE(r->relative);
  CU_ASSERT_EQUAL(r->alloc_id, 0);
  CU_ASSERT_EQUAL(r->prot, 0);
  CU_ASSERT_EQUAL(r->page_size, 0);
  CU_ASSERT_EQUAL(r->label[0], '\0');
}

/* The error must start with "PATH:LINE: " and mention `what`. */
static void check_error(const result *res, const char *path, unsigned long line, const char *what) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "%s:%lu: ", path, line);
  CU_ASSERT_EQUAL(res->rc == -1 || res->rc == -2, 1);
  CU_ASSERT_EQUAL(strncmp(res->d.msg, prefix, strlen(prefix)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(res->d.msg, what));
  CU_ASSERT_PTR_NULL(strchr(res->d.msg, '\n'));
  if (strncmp(res->d.msg, prefix, strlen(prefix)) || !strstr(res->d.msg, what))
    fprintf(stderr, "\n  wanted %s...%s, got: %s\n", prefix, what, res->d.msg);
}

typedef struct bad_case {
  const char *line;
  const char *what;
} bad_case;

/* Each bad line, after a good first line, fails at line 2. */
static void check_bad_lines(trace_format fmt, const char *good, const bad_case *cases) {
  for (const bad_case *c = cases; c->line; c++) {
    char text[512], path[32];
    snprintf(text, sizeof text, "%s\n%s\n", good, c->line);
    result res;
    read_text(text, fmt, &res, path);
    check_error(&res, path, 2, c->what);
    if (res.rc != -1) fprintf(stderr, "\n  line accepted: '%s'\n", c->line);
    unlink(path);
  }
}

/* ---- native ------------------------------------------------------------ */

static void test_native_records(void) {
  const char *text =
      "#tlbsim-trace 1\n"
      "# two buffers\n"
      "alloc 1 64K align=2M stream=3\n"
      "alloc 0x2 100\r\n"
      "\n"
      "  r @1+0x40 8   # relative\n"
      "w @2\n"
      "x 0x400000 4\n"
      "r 4096\n"
      "w @1+4K 2MiB\n"
      "free 1\n"
      "map 0x200000 4M page=2M prot=r-x\n"
      "map 0x1000 0x1000\n"
      "protect 0x200000 2M prot=none\n"
      "unmap 0x200000 0x400000\n"
      "ctx 7\n"
      "mark phase-2\t\n"
      "r 18446744073709551615";
  char path[32];
  result res;
  read_text(text, TRACE_NATIVE, &res, path);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL_FATAL(res.n, 15);
  const trace_record *r = res.rec;

  CU_ASSERT_EQUAL(r[0].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[0].alloc_id, 1);
  CU_ASSERT_EQUAL(r[0].size, 64 * 1024);
  CU_ASSERT_EQUAL(r[0].align, 2 << 20);
  CU_ASSERT_EQUAL(r[0].stream, 3);
  CU_ASSERT_EQUAL(r[0].line, 3);
  CU_ASSERT_EQUAL(r[1].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[1].alloc_id, 2);
  CU_ASSERT_EQUAL(r[1].size, 100);
  CU_ASSERT_EQUAL(r[1].align, 0);
  CU_ASSERT_EQUAL(r[1].stream, 0);
  CU_ASSERT_EQUAL(r[1].line, 4);

  CU_ASSERT_EQUAL(r[2].kind, REC_ACCESS);
  CU_ASSERT_EQUAL(r[2].access, TRACE_READ);
  CU_ASSERT_TRUE(r[2].relative);
  CU_ASSERT_EQUAL(r[2].alloc_id, 1);
  CU_ASSERT_EQUAL(r[2].addr, 0x40);
  CU_ASSERT_EQUAL(r[2].size, 8);
  CU_ASSERT_EQUAL(r[2].line, 6);
  CU_ASSERT_TRUE(r[3].relative);
  CU_ASSERT_EQUAL(r[3].access, TRACE_WRITE);
  CU_ASSERT_EQUAL(r[3].alloc_id, 2);
  CU_ASSERT_EQUAL(r[3].addr, 0);
  CU_ASSERT_EQUAL(r[3].size, 1);
  check_access(&r[4], TRACE_EXEC, 0x400000, 4, 8);
  check_access(&r[5], TRACE_READ, 4096, 1, 9);
  CU_ASSERT_TRUE(r[6].relative);
  CU_ASSERT_EQUAL(r[6].addr, 4096);
  CU_ASSERT_EQUAL(r[6].size, 2 << 20);

  CU_ASSERT_EQUAL(r[7].kind, REC_FREE);
  CU_ASSERT_EQUAL(r[7].alloc_id, 1);
  CU_ASSERT_EQUAL(r[7].line, 11);

  CU_ASSERT_EQUAL(r[8].kind, REC_MAP);
  CU_ASSERT_EQUAL(r[8].addr, 0x200000);
  CU_ASSERT_EQUAL(r[8].size, 4 << 20);
  CU_ASSERT_EQUAL(r[8].page_size, 2 << 20);
  CU_ASSERT_EQUAL(r[8].prot, PT_R | PT_X);
  CU_ASSERT_EQUAL(r[9].kind, REC_MAP);
  CU_ASSERT_EQUAL(r[9].page_size, 0);
  CU_ASSERT_EQUAL(r[9].prot, PT_R | PT_W);

  CU_ASSERT_EQUAL(r[10].kind, REC_PROTECT);
  CU_ASSERT_EQUAL(r[10].addr, 0x200000);
  CU_ASSERT_EQUAL(r[10].size, 2 << 20);
  CU_ASSERT_EQUAL(r[10].prot, 0);
  CU_ASSERT_EQUAL(r[11].kind, REC_UNMAP);
  CU_ASSERT_EQUAL(r[11].addr, 0x200000);
  CU_ASSERT_EQUAL(r[11].size, 0x400000);

  CU_ASSERT_EQUAL(r[12].kind, REC_CTX);
  CU_ASSERT_EQUAL(r[12].asid, 7);
  CU_ASSERT_EQUAL(r[12].line, 16);
  CU_ASSERT_EQUAL(r[13].kind, REC_MARK);
  CU_ASSERT_STRING_EQUAL(r[13].label, "phase-2");
  CU_ASSERT_EQUAL(r[13].line, 17);
  check_access(&r[14], TRACE_READ, UINT64_MAX, 1, 18);
  unlink(path);
}

static void test_native_prot_forms(void) {
  static const struct { const char *prot; uint8_t bits; } cases[] = {
      {"r", PT_R}, {"rw", PT_R | PT_W}, {"wr", PT_R | PT_W}, {"rwx", PT_RWX}, {"--x", PT_X},
      {"---", 0},  {"none", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[64], path[32];
    snprintf(text, sizeof text, "protect 0 4K prot=%s\n", cases[i].prot);
    result res;
    read_text(text, TRACE_NATIVE, &res, path);
    CU_ASSERT_EQUAL(res.n, 1);
    CU_ASSERT_EQUAL(res.rec[0].prot, cases[i].bits);
    unlink(path);
  }
}

static void test_native_errors(void) {
  static const bad_case cases[] = {
      {"read 0x1000", "unknown record 'read'"},
      {"R 0x1000", "unknown record 'R'"},
      {"r", "missing ADDR"},
      {"r 0x1000 8 9", "unexpected field '9'"},
      {"r 0x10zz", "ADDR: '0x10zz' is not an address"},
      {"r 12a", "ADDR: '12a' is not an address"},
      {"r -5", "ADDR: '-5' is not an address"},
      {"r 0x", "ADDR: '0x' is not an address"},
      {"r 0x10000000000000000", "ADDR: '0x10000000000000000' is out of range (0..18446744073709551615)"},
      {"r 18446744073709551616", "ADDR: '18446744073709551616' is out of range"},
      {"r @", "ADDR: '@' is not @ID or @ID+OFFSET"},
      {"r @x+1", "ADDR: '@x+1' is not @ID"},
      {"r @1+", "ADDR: '@1+' is not @ID"},
      {"r @1+2Q", "ADDR: '@1+2Q' is not @ID"},
      {"r 0x1000 0", "SIZE: '0' is out of range (1..18446744073709551615)"},
      {"r 0x1000 4X", "SIZE: '4X' is not a size"},
      {"r 0xffffffffffffffff 2", "wraps past the top"},
      {"r 0x1000 size=4", "unknown option 'size=4'"},
      {"alloc 1", "missing SIZE"},
      {"alloc", "missing ID"},
      {"alloc 1 0", "SIZE: '0' is out of range"},
      {"alloc one 4K", "ID: 'one' is not a whole number"},
      {"alloc 1 4K align=3", "align: '3' is not a power of two"},
      {"alloc 1 4K align=", "align: '' is not a size"},
      {"alloc 1 4K stream=4294967296", "stream: '4294967296' is out of range (0..4294967295)"},
      {"alloc 1 4K align=8 align=16", "repeated option 'align=16'"},
      {"alloc 1 4K page=2M", "unknown option 'page=2M'"},
      {"alloc 1 align=8 4K", "missing SIZE"},
      {"alloc 1 4K align=8 7", "positional field after an option '7'"},
      {"free", "missing ID"},
      {"free 1 2", "unexpected field '2'"},
      {"map 0x1000", "missing SIZE"},
      {"map 0x1000 4K page=3K", "page: '3K' is not a power of two"},
      {"map 0x1000 4M page=2M", "multiples of page=2M"},
      {"map 0x200000 3M page=2M", "multiples of page=2M"},
      {"map 0x1000 4K prot=rwz", "prot: 'rwz' is not a protection"},
      {"map 0x1000 4K prot=rr", "prot: 'rr' is not a protection"},
      {"map 0x1000 4K prot=", "prot: '' is not a protection"},
      {"map 0xfffffffffffff000 8K", "wraps past the top"},
      {"unmap 0x1000 4K page=4K", "unknown option"},
      {"protect 0x1000 4K", "protect needs prot="},
      {"ctx", "missing ASID"},
      {"ctx 4294967296", "ASID: '4294967296' is out of range (0..4294967295)"},
      {"ctx 1 2", "unexpected field"},
      {"mark", "missing LABEL"},
      {"mark a b", "unexpected field 'b'"},
      {"mark 0123456789012345678901234567890123456789012345678901234567890123",
       "longer than 63"},
      {"mark caf\xc3\xa9", "a mark label byte that is not printable ASCII"}, /* the binary reader refuses it too */
      {"mark \x7f", "a mark label byte that is not printable ASCII"},
      {"r 1 2 3 4 5 6 7 8 9 10 11 12 13", "too many fields"},
      {"#tlbsim-trace 2", "unsupported trace version '2'"},
      {"#tlbsim-trace", "version line needs a number"},
      {"I  04016c4d,3", "unknown record 'I'"},
      {NULL, NULL},
  };
  check_bad_lines(TRACE_NATIVE, "r 0x10", cases);
}

/* A label of exactly 63 bytes fits; # inside a field is not a comment. */
static void test_native_edges(void) {
  char path[32];
  result res;
  read_text("mark 012345678901234567890123456789012345678901234567890123456789012\n"
            "mark a#b\n"
            "mark c #d\n",
            TRACE_NATIVE, &res, path);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL_FATAL(res.n, 3);
  CU_ASSERT_EQUAL(strlen(res.rec[0].label), 63);
  CU_ASSERT_STRING_EQUAL(res.rec[1].label, "a#b");
  CU_ASSERT_STRING_EQUAL(res.rec[2].label, "c");
  unlink(path);
}

/* ---- lackey ------------------------------------------------------------ */

static const char lackey_text[] =
    "==12345== Lackey, an example Valgrind tool\n"
    "==12345== Command: /bin/true\n"
    "==12345== \n"
    "I  04016c4d,3\n"
    " L 1ffefffd48,8\n"
    " S 1ffefffd40,8\r\n"
    " M 0401ffe0,4\n"
    "\n"
    "SB 04016c4d\n"
    "I  ffffffffff600000,1\n"
    "I  0040ABcd,15\n"
    "--12345-- a debug line\n"
    "==12345== Counted 1 call to main()\n";

static void test_lackey_records(void) {
  char path[32];
  result res;
  read_text(lackey_text, TRACE_LACKEY, &res, path);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL_FATAL(res.n, 6);
  check_access(&res.rec[0], TRACE_EXEC, 0x04016c4d, 3, 4);
  check_access(&res.rec[1], TRACE_READ, 0x1ffefffd48, 8, 5);
  check_access(&res.rec[2], TRACE_WRITE, 0x1ffefffd40, 8, 6);
  check_access(&res.rec[3], TRACE_WRITE, 0x0401ffe0, 4, 7);
  check_access(&res.rec[4], TRACE_EXEC, 0xffffffffff600000, 1, 10);
  check_access(&res.rec[5], TRACE_EXEC, 0x40abcd, 15, 11);
  unlink(path);
}

static void test_lackey_errors(void) {
  static const bad_case cases[] = {
      {" X 1000,8", "expected I, L, S or M"},
      {"hello from the program", "expected I, L, S or M"},
      {" L1000,8", "expected a blank after the kind"},
      {" L 1000", "expected ',SIZE'"},
      {" L 1000,", "bad decimal size"},
      {" L 1000,0x8", "unexpected text after the size"},
      {" L 1000,8 junk", "unexpected text after the size"},
      {" L zz,8", "bad hex address"},
      {" L 10000000000000000,8", "address: '10000000000000000' is out of range (0..18446744073709551615)"},
      {" L 1000,0", "size: '0' is out of range (1..18446744073709551615)"},
      {" L 1000,99999999999999999999", "size: '99999999999999999999' is out of range (1..18446744073709551615)"},
      {" L ffffffffffffffff,2", "wraps past the top"},
      {"0 1000", "expected I, L, S or M"},
      {NULL, NULL},
  };
  check_bad_lines(TRACE_LACKEY, "I  0400000,4", cases);
}

/* ---- din --------------------------------------------------------------- */

static void test_din_records(void) {
  const char *text = "0 1000\n"
                     "1 70f60888 anything after the address is a comment\n"
                     "2 0x2cb5\r\n"
                     "3 ABCDEF\n"
                     "4 0\n"
                     "5 1234\n"
                     "\n"
                     "# a tlbsim comment\n"
                     "  0\t\tffffffffffffffff\n"
                     "0x1 10";
  char path[32];
  result res;
  read_text(text, TRACE_DIN, &res, path);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL_FATAL(res.n, 6);
  check_access(&res.rec[0], TRACE_READ, 0x1000, 1, 1);
  check_access(&res.rec[1], TRACE_WRITE, 0x70f60888, 1, 2);
  check_access(&res.rec[2], TRACE_EXEC, 0x2cb5, 1, 3);
  check_access(&res.rec[3], TRACE_READ, 0xabcdef, 1, 4);
  check_access(&res.rec[4], TRACE_READ, UINT64_MAX, 1, 9);
  check_access(&res.rec[5], TRACE_WRITE, 0x10, 1, 10);
  unlink(path);
}

static void test_din_errors(void) {
  static const bad_case cases[] = {
      {"10 1000", "label: '10' is out of range (0..5)"},
      {"r 1000", "bad label"},
      {"0", "missing address"},
      {"0   ", "missing address"},
      {"0,1000", "bad label"},
      {"0 zz", "bad hex address"},
      {"0 12g4", "bad hex address"},
      {"0 10000000000000000", "address: '10000000000000000' is out of range"},
      {"6 1000", "label: '6' is out of range (0..5)"},
      {"0 0x10000000000000000", "address: '10000000000000000' is out of range"},
      {" L 1000,8", "bad label"},
      {NULL, NULL},
  };
  check_bad_lines(TRACE_DIN, "2 400000", cases);
}

/* ---- reader: auto, gzip, stdin, limits --------------------------------- */

static void test_auto_detect(void) {
  static const struct { const char *text; trace_format fmt; size_t n; } cases[] = {
      {"==1== Lackey\n\nI  0400000,4\n L 1000,8\n", TRACE_LACKEY, 2},
      {" S 1000,8\n", TRACE_LACKEY, 1},
      {"# din below\n2 400000\n0 1000\n", TRACE_DIN, 2},
      {"   1 1000\n", TRACE_DIN, 1},
      {"0x400000: R 0x7fff\n#eof\n", TRACE_PINATRACE, 1},
      {"#tlbsim-trace 1\nr 0x1000\n", TRACE_NATIVE, 1},
      {"\n  alloc 1 4K\nw @1+8\n", TRACE_NATIVE, 2},
      {"mark start # comment\n", TRACE_NATIVE, 1},
      {"# nothing but comments\n\n", TRACE_NATIVE, 0},
      {"", TRACE_NATIVE, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[32];
    result res;
    read_text(cases[i].text, TRACE_AUTO, &res, path);
    CU_ASSERT_EQUAL(res.rc, 0);
    CU_ASSERT_EQUAL(res.fmt, cases[i].fmt);
    CU_ASSERT_EQUAL(res.n, cases[i].n);
    if (res.rc || res.fmt != cases[i].fmt) fprintf(stderr, "\n  case %zu: %s\n", i, res.d.msg);
    unlink(path);
  }
  static const char *unsure[] = {"# c\nhello world\n", "L 1000,8\n", "0x400000 R 0x7fff\n",
                                 "\x7f" "ELF\x02\x01\x01\n", "mark#start\n"};
  for (size_t i = 0; i < sizeof unsure / sizeof unsure[0]; i++) {
    char path[32];
    result res;
    read_text(unsure[i], TRACE_AUTO, &res, path);
    CU_ASSERT_EQUAL(res.rc, -2);
    check_error(&res, path, i == 0 ? 2 : 1, "cannot tell the format of");
    CU_ASSERT_PTR_NOT_NULL(strstr(res.d.msg, "use --trace-format"));
    unlink(path);
  }
}

static void test_empty_inputs(void) {
  static const trace_format fmts[] = {TRACE_NATIVE, TRACE_LACKEY, TRACE_DIN, TRACE_AUTO};
  for (size_t i = 0; i < 4; i++) {
    char path[32];
    result res;
    read_text("", fmts[i], &res, path);
    CU_ASSERT_EQUAL(res.rc, 0);
    CU_ASSERT_EQUAL(res.n, 0);
    unlink(path);
    read_text("\n\r\n\n", fmts[i], &res, path);
    CU_ASSERT_EQUAL(res.rc, 0);
    CU_ASSERT_EQUAL(res.n, 0);
    unlink(path);
  }
}

static void test_gzip(void) {
  char plain[32], gz[32];
  write_temp(lackey_text, strlen(lackey_text), plain);
  write_gz(lackey_text, strlen(lackey_text), gz);
  result a, b;
  read_path(plain, TRACE_LACKEY, &a);
  read_path(gz, TRACE_AUTO, &b);
  CU_ASSERT_EQUAL(b.rc, 0);
  CU_ASSERT_EQUAL(b.fmt, TRACE_LACKEY);
  CU_ASSERT_EQUAL_FATAL(b.n, 6);
  CU_ASSERT_EQUAL(memcmp(a.rec, b.rec, sizeof a.rec[0] * a.n), 0);

  /* bytes_read counts the compressed file at the end */
  FILE *f = fopen(gz, "rb");
  CU_ASSERT_FATAL(f != NULL);
  fseek(f, 0, SEEK_END);
  long gz_size = ftell(f);
  fclose(f);
  diag d;
  trace_reader *r = trace_open(gz, TRACE_LACKEY, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_record rec;
  while (trace_next(r, &rec, &d) == 1) {
  }
  CU_ASSERT_EQUAL(trace_bytes_read(r), (uint64_t)gz_size);
  trace_close(r);

  /* a cut-off gzip stream is an error, not a short trace */
  f = fopen(gz, "r+b");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_EQUAL(ftruncate(fileno(f), gz_size - 12), 0);
  fclose(f);
  read_path(gz, TRACE_LACKEY, &b);
  CU_ASSERT_EQUAL(b.rc, -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(b.d.msg, "cannot read input"));
  CU_ASSERT_EQUAL(strncmp(b.d.msg, gz, strlen(gz)), 0);
  unlink(plain);
  unlink(gz);
}

/* Lines of exactly TRACE_LINE_MAX bytes pass; one byte more is an error at
 * its own line, with or without a newline after it. */
static void test_line_cap(void) {
  size_t len = TRACE_LINE_MAX + 64;
  char *text = malloc(len);
  CU_ASSERT_FATAL(text != NULL);
  size_t n = (size_t)sprintf(text, "r 1\n#");
  memset(text + n, 'c', TRACE_LINE_MAX - 1);
  n += TRACE_LINE_MAX - 1;
  n += (size_t)sprintf(text + n, "\nr 2\n");
  char path[32];
  result res;
  write_temp(text, n, path);
  read_path(path, TRACE_NATIVE, &res);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL(res.n, 2);
  unlink(path);

  text[4 + TRACE_LINE_MAX] = 'c'; /* the comment line grows by one byte */
  write_temp(text, n, path);
  read_path(path, TRACE_NATIVE, &res);
  CU_ASSERT_EQUAL(res.n, 1);
  check_error(&res, path, 2, "line longer than");
  unlink(path);

  write_temp(text, 4 + TRACE_LINE_MAX + 1, path); /* no newline at all */
  read_path(path, TRACE_NATIVE, &res);
  check_error(&res, path, 2, "line longer than");
  unlink(path);
  free(text);
}

/* Many records across many buffer refills, each checked. */
static void test_many_lines(void) {
  const unsigned long count = 200000;
  size_t cap = count * 32;
  char *text = malloc(cap);
  CU_ASSERT_FATAL(text != NULL);
  size_t n = 0;
  for (unsigned long i = 0; i < count; i++)
    n += (size_t)snprintf(text + n, cap - n, i % 3 ? " L %lx,%lu\n" : "I  %08lx,%lu\r\n",
                          i * 4099, i % 16 + 1);
  char path[32];
  write_gz(text, n, path);
  free(text);
  diag d;
  trace_reader *r = trace_open(path, TRACE_AUTO, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_record rec;
  unsigned long i = 0, wrong = 0;
  int rc;
  while ((rc = trace_next(r, &rec, &d)) == 1) {
    if (rec.addr != i * 4099 || rec.size != i % 16 + 1 || rec.line != i + 1 ||
        rec.access != (i % 3 ? TRACE_READ : TRACE_EXEC))
      wrong++;
    i++;
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_EQUAL(i, count);
  CU_ASSERT_EQUAL(wrong, 0);
  trace_close(r);
  unlink(path);
}

/* din text of count lines "0 ADDR" with ADDR = i * 4099; *len its bytes. */
static char *din_lines(unsigned long count, size_t *len) {
  size_t cap = count * 24;
  char *text = malloc(cap);
  CU_ASSERT_FATAL(text != NULL);
  size_t n = 0;
  for (unsigned long i = 0; i < count; i++) n += (size_t)snprintf(text + n, cap - n, "0 %lx\n", i * 4099);
  *len = n;
  return text;
}

/* Reads path as din to the end: how many records came, in order, before
 * trace_next's rc. */
static unsigned long din_prefix(const char *path, int *rc, diag *d) {
  trace_reader *r = trace_open(path, TRACE_DIN, d);
  CU_ASSERT_FATAL(r != NULL);
  trace_record rec;
  unsigned long i = 0;
  while ((*rc = trace_next(r, &rec, d)) == 1 && rec.addr == i * 4099 && rec.line == i + 1) i++;
  trace_close(r);
  return i;
}

/* gzip is inflated on a thread into a ring of buffers: a stream many times
 * the ring's size, cut off or read as two members, gives what a plain
 * inflate would; closing early stops the thread. */
static void test_gzip_thread(void) {
  const unsigned long count = 400000; /* ~3.3 MB of text, the ring 1 MiB */
  size_t len;
  char *text = din_lines(count, &len);
  char path[32];
  write_gz(text, len, path);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  char *gz = malloc(2 * len);
  CU_ASSERT_FATAL(gz != NULL);
  size_t gz_len = fread(gz, 1, 2 * len, f);
  fclose(f);
  unlink(path);

  /* cut in the middle: every line before the cut, then the error at the
   * line the cut falls in */
  write_temp(gz, gz_len / 2, path);
  int rc;
  diag d;
  unsigned long n = din_prefix(path, &rc, &d);
  CU_ASSERT_EQUAL(rc, -1);
  CU_ASSERT(n > count / 4 && n < count);
  char want[160];
  snprintf(want, sizeof want, "%s:%lu: cannot read input: unexpected end of file (a cut-off gzip stream)",
           path, n + 1);
  CU_ASSERT_STRING_EQUAL(d.msg, want);
  unlink(path);

  /* the same bytes handed over in memory take the same path */
  trace_reader *m = trace_open_memory("mem.gz", gz, gz_len, TRACE_DIN, &d);
  CU_ASSERT_FATAL(m != NULL);
  trace_record one;
  unsigned long in_memory = 0, wrong_in_memory = 0;
  while ((rc = trace_next(m, &one, &d)) == 1) wrong_in_memory += one.addr != in_memory++ * 4099;
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_EQUAL(in_memory, count);
  CU_ASSERT_EQUAL(wrong_in_memory, 0);
  trace_close(m);

  /* two members back to back: the lines twice */
  memcpy(gz + gz_len, gz, gz_len);
  write_temp(gz, 2 * gz_len, path);
  trace_reader *r = trace_open(path, TRACE_DIN, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_record rec;
  unsigned long lines = 0, wrong = 0;
  while ((rc = trace_next(r, &rec, &d)) == 1) {
    wrong += rec.line != lines + 1 || rec.addr != lines % count * 4099;
    lines++;
  }
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_EQUAL(lines, 2 * count);
  CU_ASSERT_EQUAL(wrong, 0);
  trace_close(r);

  /* closed after a few lines, while the thread waits on a full ring */
  r = trace_open(path, TRACE_DIN, &d);
  CU_ASSERT_FATAL(r != NULL);
  for (int i = 0; i < 10; i++) CU_ASSERT_EQUAL(trace_next(r, &rec, &d), 1);
  nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
  trace_close(r);
  unlink(path);

  /* closed while the thread waits in read() on a pipe whose writer has
   * gone quiet (still open): close must not wait for more input */
  int p[2];
  CU_ASSERT_FATAL(pipe(p) == 0);
  CU_ASSERT_FATAL(write(p[1], gz, 32768) == 32768); /* fits the pipe's buffer */
  char dev[32];
  snprintf(dev, sizeof dev, "/dev/fd/%d", p[0]);
  r = trace_open(dev, TRACE_DIN, &d);
  CU_ASSERT_FATAL(r != NULL);
  for (int i = 0; i < 10; i++) CU_ASSERT_EQUAL(trace_next(r, &rec, &d), 1);
  trace_close(r);
  close(p[0]);
  close(p[1]);
  free(gz);
  free(text);
}

static void test_stdin(void) {
  char path[32];
  const char *text = "r 0x10\nbogus\n";
  write_temp(text, strlen(text), path);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  int saved = dup(STDIN_FILENO);
  CU_ASSERT_FATAL(saved >= 0);
  CU_ASSERT_FATAL(dup2(fileno(f), STDIN_FILENO) == STDIN_FILENO);
  fclose(f);
  result res;
  read_path("-", TRACE_AUTO, &res);
  CU_ASSERT_EQUAL(res.n, 1);
  check_access(&res.rec[0], TRACE_READ, 0x10, 1, 1);
  check_error(&res, "<stdin>", 2, "unknown record 'bogus'");
  CU_ASSERT_FATAL(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
  close(saved);
  unlink(path);
}

static void test_open_and_api(void) {
  diag d;
  CU_ASSERT_PTR_NULL(trace_open("no-such-trace.txt", TRACE_NATIVE, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "no-such-trace.txt: cannot open"));
  CU_ASSERT_PTR_NULL(trace_open(NULL, TRACE_NATIVE, &d));

  trace_format f;
  CU_ASSERT_EQUAL(trace_format_parse("lackey", &f), 0);
  CU_ASSERT_EQUAL(f, TRACE_LACKEY);
  CU_ASSERT_EQUAL(trace_format_parse("din", &f), 0);
  CU_ASSERT_EQUAL(f, TRACE_DIN);
  CU_ASSERT_EQUAL(trace_format_parse("auto", &f), 0);
  CU_ASSERT_EQUAL(f, TRACE_AUTO);
  CU_ASSERT_EQUAL(trace_format_parse("Native", &f), -1);
  CU_ASSERT_EQUAL(trace_format_parse(NULL, &f), -1);
  CU_ASSERT_STRING_EQUAL(trace_format_name(TRACE_NATIVE), "native");
  CU_ASSERT_STRING_EQUAL(trace_format_name(TRACE_DIN), "din");

  /* an error sticks: the next call repeats it */
  char path[32];
  write_temp("r 1\nr zz\nr 2\n", 13, path);
  trace_reader *r = trace_open(path, TRACE_NATIVE, &d);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT_STRING_EQUAL(trace_get_path(r), path);
  trace_record rec;
  CU_ASSERT_EQUAL(trace_next(r, &rec, &d), 1);
  CU_ASSERT_EQUAL(trace_next(r, &rec, &d), -1);
  char first[DIAG_MSG_MAX];
  strcpy(first, d.msg);
  memset(&d, 0, sizeof d);
  CU_ASSERT_EQUAL(trace_next(r, &rec, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, first);
  CU_ASSERT_EQUAL(trace_bytes_read(r), 13);
  trace_close(r);
  unlink(path);
}

/* Blocks: accesses compact and in order with their lines, other records
 * whole at their place, what the block holds summarised, an access too
 * large for a trace_acc kept whole, a full block continued in the next, and
 * a bad line handed out after the records before it. */
static void test_blocks(void) {
  char path[32];
  const char *text = "# header\nr 0x1000 8\nalloc 1 64K\nw @1+0x40 4\n\nx 0x7fff0000 2\nr 0x10 5G\nmark m\n";
  write_temp(text, strlen(text), path);
  diag d;
  trace_reader *r = trace_open(path, TRACE_NATIVE, &d);
  CU_ASSERT_FATAL(r != NULL);
  trace_block *b = malloc(sizeof *b);
  CU_ASSERT_FATAL(b != NULL);
  CU_ASSERT_EQUAL_FATAL(trace_read_block(r, b, &d), 1);
  CU_ASSERT_EQUAL_FATAL(b->n, 6);
  CU_ASSERT_EQUAL(b->nother, 4);
  static const unsigned kinds[6] = {TRACE_READ, TRACE_ACC_OTHER, TRACE_ACC_OTHER, TRACE_EXEC, TRACE_ACC_OTHER,
                                    TRACE_ACC_OTHER};
  static const unsigned long lines[6] = {2, 3, 4, 6, 7, 8};
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(b->acc[i].kind, kinds[i]);
    CU_ASSERT_EQUAL(b->line[i], lines[i]);
  }
  CU_ASSERT_EQUAL(b->acc[0].addr, 0x1000);
  CU_ASSERT_EQUAL(b->acc[0].size, 8);
  CU_ASSERT_EQUAL(b->kinds, 1u << TRACE_READ | 1u << TRACE_EXEC);
  CU_ASSERT_EQUAL(b->last_byte_or, 0x1007 | 0x7fff0001);
  CU_ASSERT_EQUAL(b->other[0].kind, REC_ALLOC);
  CU_ASSERT_TRUE(b->other[1].relative);
  CU_ASSERT_EQUAL(b->other[2].kind, REC_ACCESS); /* 5 GiB does not fit a trace_acc */
  CU_ASSERT_EQUAL(b->other[2].size, 5ull << 30);
  CU_ASSERT_EQUAL(b->other[3].kind, REC_MARK);
  CU_ASSERT_EQUAL(trace_read_block(r, b, &d), 0);
  trace_close(r);
  unlink(path);

  size_t count = TRACE_BLOCK_MAX + 10, cap = count * 16 + 32, n = 0;
  char *big = malloc(cap);
  CU_ASSERT_FATAL(big != NULL);
  for (size_t i = 0; i < count; i++) n += (size_t)snprintf(big + n, cap - n, "0 %zx\n", i * 64);
  n += (size_t)snprintf(big + n, cap - n, "9 zz\n");
  write_temp(big, n, path);
  free(big);
  r = trace_open(path, TRACE_DIN, &d);
  CU_ASSERT_FATAL(r != NULL);
  CU_ASSERT_EQUAL(trace_read_block(r, b, &d), 1);
  CU_ASSERT_EQUAL(b->n, TRACE_BLOCK_MAX);
  CU_ASSERT_EQUAL(trace_read_block(r, b, &d), 1);
  CU_ASSERT_EQUAL(b->n, 10);
  CU_ASSERT_EQUAL(b->line[9], count);
  CU_ASSERT_EQUAL(trace_read_block(r, b, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "label: '9' is out of range (0..5)"));
  trace_close(r);
  unlink(path);
  free(b);

  uint64_t first;
  CU_ASSERT_EQUAL(trace_pages(0x1ffe, 4, 12, &first), 2);
  CU_ASSERT_EQUAL(first, 1);
  CU_ASSERT_EQUAL(trace_pages(0x1000, 4096, 12, &first), 1);
  CU_ASSERT_EQUAL(trace_pages(UINT64_MAX, 1, 12, &first), 1);
}

/* ---- captured programs ------------------------------------------------- */

static void test_native_capture(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/traces/samples/capture.trace", TLBSIM_SOURCE_DIR);
  result res;
  read_path(path, TRACE_AUTO, &res);
  CU_ASSERT_EQUAL(res.rc, 0);
  CU_ASSERT_EQUAL(res.fmt, TRACE_NATIVE);
  CU_ASSERT_EQUAL_FATAL(res.n, 26);
  const trace_record *r = res.rec;
  CU_ASSERT_EQUAL(r[0].kind, REC_MEMINFO);
  CU_ASSERT_EQUAL(r[0].size, 150000000000ull);
  CU_ASSERT_EQUAL(r[0].cap.total, 150109880320ull);
  CU_ASSERT_EQUAL(r[0].cap.attrs, TRACE_HAS_DEV | TRACE_HAS_TIME);
  CU_ASSERT_EQUAL(r[0].cap.time_ns, 100);

  CU_ASSERT_EQUAL(r[1].kind, REC_ALLOC);
  CU_ASSERT_EQUAL(r[1].size, 2 << 20);
  CU_ASSERT_EQUAL(r[1].stream, 7);
  CU_ASSERT_EQUAL(r[1].cap.va, 0x7f1200000000ull);
  CU_ASSERT_EQUAL(r[1].cap.dur_ns, 31000);
  CU_ASSERT_EQUAL(r[1].cap.mem, TRACE_MEM_DEVICE);
  CU_ASSERT_EQUAL(r[1].cap.attrs, TRACE_HAS_VA | TRACE_HAS_DEV | TRACE_HAS_TIME | TRACE_HAS_DUR);
  CU_ASSERT_EQUAL(r[2].cap.mem, TRACE_MEM_MANAGED);
  CU_ASSERT_EQUAL(r[3].cap.mem, TRACE_MEM_PINNED);
  CU_ASSERT_EQUAL(r[3].cap.attrs & TRACE_HAS_DEV, 0);

  CU_ASSERT_EQUAL(r[4].kind, REC_POOL);
  CU_ASSERT_EQUAL(r[4].cap.pool, 1);
  CU_ASSERT_EQUAL(r[4].cap.op, TRACE_POOL_CREATE);
  CU_ASSERT_EQUAL(r[4].cap.va, 0x7f0000000000ull);
  CU_ASSERT_EQUAL(r[5].cap.pool, 1);
  CU_ASSERT_TRUE(r[5].cap.attrs & TRACE_HAS_POOL);

  CU_ASSERT_EQUAL(r[6].kind, REC_MARK);
  CU_ASSERT_STRING_EQUAL(r[6].label, "_Z6vecaddPfS_S_i");
  CU_ASSERT_EQUAL(r[6].cap.grid[0], 1024);
  CU_ASSERT_EQUAL(r[6].cap.grid[1], 1);
  CU_ASSERT_EQUAL(r[6].cap.block[0], 256);
  CU_ASSERT_EQUAL(r[6].cap.block[2], 1);
  CU_ASSERT_EQUAL(r[6].stream, 7);
  CU_ASSERT_EQUAL(r[6].cap.dur_ns, 5000);
  CU_ASSERT_TRUE(r[6].cap.attrs & TRACE_HAS_STREAM);

  CU_ASSERT_EQUAL(r[7].kind, REC_PREFETCH);
  CU_ASSERT_EQUAL(r[7].cap.op, UVM_GPU);
  CU_ASSERT_EQUAL(r[7].addr, 0x7f3000000000ull);
  CU_ASSERT_EQUAL(r[8].kind, REC_ADVISE);
  CU_ASSERT_STRING_EQUAL(uvm_advice_names[r[8].cap.op], "read_mostly");

  /* side=host: the host's touches of managed memory, whole records */
  CU_ASSERT_EQUAL(r[9].kind, REC_ACCESS);
  CU_ASSERT_EQUAL(r[9].access, TRACE_WRITE);
  CU_ASSERT_EQUAL(r[9].cap.op, UVM_HOST);
  CU_ASSERT_FALSE(r[9].relative);
  CU_ASSERT_EQUAL(r[10].cap.op, UVM_HOST);
  CU_ASSERT_TRUE(r[10].relative);
  CU_ASSERT_EQUAL(r[10].alloc_id, 2);
  CU_ASSERT_EQUAL(r[11].cap.op, UVM_GPU);
  CU_ASSERT_EQUAL(r[11].cap.attrs, 0);

  CU_ASSERT_EQUAL(r[12].kind, REC_RESERVE);
  CU_ASSERT_EQUAL(r[12].size, 64 << 20);
  CU_ASSERT_EQUAL(r[12].align, 2 << 20);
  CU_ASSERT_EQUAL(r[13].kind, REC_HANDLE);
  CU_ASSERT_EQUAL(r[13].cap.handle, 1);
  CU_ASSERT_EQUAL(r[13].size, 2 << 20);
  CU_ASSERT_EQUAL(r[14].kind, REC_MAP);
  CU_ASSERT_EQUAL(r[14].prot, 0);
  CU_ASSERT_EQUAL(r[14].cap.handle, 1);
  CU_ASSERT_EQUAL(r[14].cap.attrs & (TRACE_HAS_HANDLE | TRACE_HAS_OFFSET), TRACE_HAS_HANDLE | TRACE_HAS_OFFSET);
  CU_ASSERT_EQUAL(r[15].kind, REC_PROTECT);
  CU_ASSERT_EQUAL(r[15].prot, PT_R | PT_W);
  CU_ASSERT_EQUAL(r[17].kind, REC_RELEASE);
  CU_ASSERT_EQUAL(r[18].kind, REC_UNRESERVE);
  CU_ASSERT_EQUAL(r[19].kind, REC_FREE);
  CU_ASSERT_EQUAL(r[20].kind, REC_POOL);
  CU_ASSERT_EQUAL(r[20].cap.op, TRACE_POOL_TRIM);
  CU_ASSERT_TRUE(r[20].cap.attrs & TRACE_HAS_KEEP);
  CU_ASSERT_EQUAL(r[24].cap.op, TRACE_POOL_DESTROY);
  CU_ASSERT_EQUAL(r[25].line, 30);
}

static void test_native_capture_errors(void) {
  static const bad_case cases[] = {
      {"alloc 1 4K va=0xz", "va: '0xz' is not a whole number"},
      {"alloc 1 4K kind=shared", "kind: 'shared' is not one of device, managed, host, pinned"},
      {"alloc 1 4K t=-1", "t: '-1' is not a whole number"},
      {"alloc 1 4K dev=4294967296", "dev: '4294967296' is out of range (0..4294967295)"},
      {"alloc 1 4K handle=1", "unknown option 'handle=1'"},
      {"free 1 va=0x1000", "unknown option 'va=0x1000'"},
      {"t=5", "unknown record 't=5'"},
      {"alloc 1 4K t=5 t=6", "repeated option 't=6'"},
      {"mark k grid=0", "grid: '0' is not X[,Y[,Z]]"},
      {"mark k grid=1,2,3,4", "grid: '1,2,3,4' is not X[,Y[,Z]]"},
      {"mark k block=2147483648", "block: '2147483648' is not X[,Y[,Z]]"},
      {"mark k grid=1,,2", "grid: '1,,2' is not"},
      {"pool 1", "missing OP"},
      {"pool 1 grow", "OP: 'grow' is not one of create, trim, destroy"},
      {"pool 1 create keep=0", "keep= goes with pool ... trim only"},
      {"pool 1 trim va=0x1000", "va= goes with pool ... create only"},
      {"reserve 0x1000 0", "SIZE: '0' is out of range"},
      {"reserve 0x1000 4K align=3", "align: '3' is not a power of two"},
      {"handle 1", "missing SIZE"},
      {"release", "missing HANDLE"},
      {"meminfo 10 5", "meminfo FREE 10 is more than TOTAL 5"},
      {"meminfo 0 0", "TOTAL: '0' is out of range"},
      {"map 0x200000 2M handle=1 frame=3", "frame= or handle=, not both"},
      {"map 0x200000 2M offset=0", "offset= is an offset into a handle"},
      {"prefetch 0x1000 4K", "prefetch needs to=gpu or to=host"},
      {"prefetch 0x1000 4K to=cpu", "to: 'cpu' is not one of gpu, host"},
      {"advise 0x1000 4K", "advise needs advice="},
      {"advise 0x1000 4K advice=mostly", "advice: 'mostly' is not one of read_mostly"},
      {"r 0x1000 4 side=cpu", "side: 'cpu' is not one of gpu, host"},
      {"w 0x1000 4 t=5", "unknown option 't=5'"},
      {"alloc 1 4K t=3", "t=3 is before line 1's t=4: a capture's records come in time order"},
      {NULL, NULL},
  };
  check_bad_lines(TRACE_NATIVE, "meminfo 0 1 t=4", cases);
}

/* The samples shipped in traces/samples read cleanly. */
static void test_samples(void) {
  static const struct { const char *file; trace_format fmt; size_t min; } samples[] = {
      {"demo.trace", TRACE_NATIVE, 20},
      {"capture.trace", TRACE_NATIVE, 26},
      {"stride.lackey", TRACE_LACKEY, 1000},
      {"stride.din", TRACE_DIN, 100},
  };
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/traces/samples/%s", TLBSIM_SOURCE_DIR, samples[i].file);
    diag d;
    trace_reader *r = trace_open(path, TRACE_AUTO, &d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(trace_get_format(r), samples[i].fmt);
    trace_record rec;
    size_t n = 0;
    int rc;
    while ((rc = trace_next(r, &rec, &d)) == 1) n++;
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_TRUE(n >= samples[i].min);
    if (rc) fprintf(stderr, "\n  %s\n", d.msg);
    trace_close(r);
  }
}

/* A reader whose blocks a thread fills ahead (trace_open_jobs, 2 jobs)
 * hands out exactly the blocks, error and byte count of one that fills
 * them in the caller's calls: a din and a lackey trace of many blocks with
 * a bad line near the end, a native one with records that are not
 * accesses, each also closed after its first block (the thread stopped
 * while it waits for a slot). A third reader takes the thread's blocks in
 * exchange for its own (trace_take_block, what a replay does): the same. */
static bool same_block(const trace_block *a, const trace_block *b) {
  return a->n == b->n && a->nother == b->nother && a->kinds == b->kinds && a->last_byte_or == b->last_byte_or &&
         !memcmp(a->acc, b->acc, a->n * sizeof a->acc[0]) && !memcmp(a->line, b->line, a->n * sizeof a->line[0]) &&
         !memcmp(a->other, b->other, a->nother * sizeof a->other[0]);
}

static void test_fill_thread(void) {
  enum { LINES = 40000 };
  static const struct {
    trace_format fmt;
    const char *line, *bad;
  } cases[] = {{TRACE_DIN, "%u %x\n", "9 1234\n"},
               {TRACE_LACKEY, " L %08x,%u\n", " L 12z4,4\n"},
               {TRACE_NATIVE, "r 0x%x %u\nmark m\n", "r 0x10zz\n"}};
  char *text = malloc(LINES * 32);
  trace_block *b1 = malloc(sizeof *b1), *b2 = malloc(sizeof *b2), *b3 = malloc(sizeof *b3);
  CU_ASSERT_FATAL(text && b1 && b2 && b3);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t len = 0;
    for (unsigned i = 0; i < LINES; i++) {
      if (i == LINES - 100) len += (size_t)sprintf(text + len, "%s", cases[c].bad);
      else if (cases[c].fmt == TRACE_LACKEY) len += (size_t)sprintf(text + len, cases[c].line, 0x1000 + i * 8, 1 + i % 9);
      else if (cases[c].fmt == TRACE_DIN) len += (size_t)sprintf(text + len, cases[c].line, i % 4, 0x1000 + i * 8);
      else len += (size_t)sprintf(text + len, cases[c].line, 0x1000 + i * 8, 1 + i % 9);
    }
    char path[32];
    write_temp(text, len, path);
    for (int early = 0; early < 2; early++) {
      diag d1, d2, d3;
      trace_reader *r1 = trace_open(path, cases[c].fmt, &d1), *r2 = trace_open_jobs(path, cases[c].fmt, 2, &d2);
      trace_reader *r3 = trace_open_jobs(path, cases[c].fmt, 2, &d3);
      CU_ASSERT_FATAL(r1 && r2 && r3);
      int k1, k2, k3;
      size_t blocks = 0;
      do {
        k1 = trace_read_block(r1, b1, &d1);
        k2 = trace_read_block(r2, b2, &d2);
        k3 = trace_take_block(r3, &b3, &d3);
        CU_ASSERT_TRUE(k1 == k2 && k1 == k3);
        CU_ASSERT_EQUAL(trace_bytes_read(r1), trace_bytes_read(r2));
        CU_ASSERT_EQUAL(trace_bytes_read(r1), trace_bytes_read(r3));
        if (k1 != 1 || k2 != 1 || k3 != 1) break;
        CU_ASSERT_TRUE(same_block(b1, b2));
        CU_ASSERT_TRUE(same_block(b1, b3));
        blocks++;
      } while (!early);
      if (!early) {
        CU_ASSERT_EQUAL(k1, -1);
        CU_ASSERT_STRING_EQUAL(d1.msg, d2.msg);
        CU_ASSERT_TRUE(blocks > 4);
        CU_ASSERT_EQUAL(trace_read_block(r2, b2, &d2), -1); /* the error repeats */
        CU_ASSERT_STRING_EQUAL(d1.msg, d2.msg);
        CU_ASSERT_STRING_EQUAL(d1.msg, d3.msg);
        CU_ASSERT_EQUAL(trace_take_block(r3, &b3, &d3), -1);
        CU_ASSERT_STRING_EQUAL(d1.msg, d3.msg);
      }
      trace_close(r1);
      trace_close(r2);
      trace_close(r3);
    }
    unlink(path);
  }
  free(text);
  free(b1);
  free(b2);
  free(b3);
}

int main(void) {
  static const test_case native[] = {
      {"records", test_native_records},
      {"prot forms", test_native_prot_forms},
      {"errors", test_native_errors},
      {"edges", test_native_edges},
      {"capture", test_native_capture},
      {"capture errors", test_native_capture_errors},
      {NULL, NULL},
  };
  static const test_case lackey[] = {
      {"records", test_lackey_records},
      {"errors", test_lackey_errors},
      {NULL, NULL},
  };
  static const test_case din[] = {
      {"records", test_din_records},
      {"errors", test_din_errors},
      {NULL, NULL},
  };
  static const test_case reader[] = {
      {"auto detect", test_auto_detect},
      {"empty inputs", test_empty_inputs},
      {"gzip", test_gzip},
      {"line cap", test_line_cap},
      {"many lines", test_many_lines},
      {"gzip thread", test_gzip_thread},
      {"stdin", test_stdin},
      {"open and api", test_open_and_api},
      {"blocks", test_blocks},
      {"fill thread", test_fill_thread},
      {"samples", test_samples},
      {NULL, NULL},
  };
  static const test_suite suites[] = {
      {"trace native", native},
      {"trace lackey", lackey},
      {"trace din", din},
      {"trace reader", reader},
      {NULL, NULL},
  };
  return harness_run(suites);
}
