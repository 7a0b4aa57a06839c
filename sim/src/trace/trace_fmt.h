/* trace_fmt.h — what the reader (trace.c) shares with the per-format line
 * parsers (trace_native.c, trace_lackey.c, trace_din.c). Private to the
 * trace module.
 *
 * trace_line  one input line as the reader hands it over: NUL-terminated
 *             and writable (parsers may cut tokens in place), without its
 *             newline or a trailing CR, with the file name and line number
 *             every diagnostic needs. TRACE_LINE_PAD bytes from any place
 *             in the line are readable (what follows is not the line's),
 *             so a parser may read a field in whole words (num_hex16).
 */
#ifndef TLBSIM_TRACE_FMT_H
#define TLBSIM_TRACE_FMT_H

#include "tlbsim/trace.h"

#define TRACE_LINE_PAD 16

typedef struct trace_line {
  char *text;
  size_t len;
  const char *file;
  unsigned long no;
  unsigned *carry; /* what a format carries from line to line, 0 at the start (pinatrace: #eof seen) */
  uint32_t thread_default; /* the thread of a line that names none (trace_set_thread) */
  uint32_t *thread_now;    /* the thread of the last access: a REC_THREAD goes out when it changes */
  struct trace_clock *clock; /* the last t= seen (captures): times never go back; NULL: not checked */
} trace_line;

/* The time of the last record that gave one (t=), and where: a capture's
 * records come in time order, and one that does not is an error naming
 * both lines. */
typedef struct trace_clock {
  uint64_t t;
  unsigned long line;
  bool any;
} trace_clock;

/* 0 when rec's t= (if any) is not before the clock's, which it then
 * moves to; else -1 with d "FILE:LINE: ...". */
int trace_clock_check(trace_clock *c, const trace_record *rec, const char *file, diag *d);

/* Appends the line's record to b, if it holds one (blank lines, comments
 * and skipped kinds add nothing), after a REC_THREAD when its thread is a
 * new one; 0, or -1 with d as "FILE:LINE: ...". The caller leaves room for
 * two entries and two `other` records. */
typedef int trace_parse_fn(const trace_line *ln, trace_block *b, diag *d);
/* Whether a meaningful line (not blank, comment or banner) looks like this
 * format. Formats are told apart by their first characters, so at most one
 * sniffer says yes. */
typedef bool trace_sniff_fn(const char *s, size_t len);

trace_parse_fn trace_native_parse, trace_lackey_parse, trace_din_parse, trace_pinatrace_parse;
trace_sniff_fn trace_native_sniff, trace_lackey_sniff, trace_din_sniff, trace_pinatrace_sniff;
/* A text format's fast path over many lines at once: appends the records
 * of the lines of its common shape from s on (each ending in a newline
 * before end; TRACE_PAD readable bytes follow end), numbering them on from
 * *line, until b is full or a line of another shape, or one cut by end,
 * comes. Returns where it stopped: the start of a line, for the line
 * parser. Lines it takes are never errors. */
typedef const char *trace_scan_fn(const char *s, const char *end, trace_block *b, unsigned long *line);
trace_scan_fn trace_din_scan, trace_lackey_scan;
/* At the end of input (ln: the last line read): 0, or -1 with d set when a
 * format needs a last line it did not get. */
typedef int trace_end_fn(const trace_line *ln, diag *d);
trace_end_fn trace_pinatrace_end;

static inline bool trace_is_blank(char c) { return c == ' ' || c == '\t'; }

/* Appends an access; one whose size does not fit a trace_acc goes to
 * `other` whole. */
trace_record *trace_emit_other(trace_block *b, trace_rec_kind kind, unsigned long line);

/* Appends a REC_THREAD: the accesses after it are thread t's. */
static inline void trace_emit_thread(trace_block *b, uint32_t t, unsigned long line) {
  trace_record *r = trace_emit_other(b, REC_THREAD, line);
  r->thread = t;
}

static inline void trace_emit_access(trace_block *b, trace_access a, uint64_t addr, uint64_t size,
                                     unsigned long line) {
  if (size > UINT32_MAX) {
    trace_record *r = trace_emit_other(b, REC_ACCESS, line);
    r->access = a;
    r->addr = addr;
    r->size = size;
    return;
  }
  trace_acc *acc = &b->acc[b->n];
  acc->addr = addr;
  acc->size = (uint32_t)size;
  acc->kind = a;
  b->line[b->n++] = line;
  b->last_byte_or |= addr + (size - 1);
  b->kinds |= 1u << a;
}

/* A scan's hold on a block while it appends many accesses: the block's
 * counters as locals, which stay in registers (the stores into acc[] and
 * line[] could otherwise alias them), written back by trace_put_end. */
typedef struct trace_put {
  trace_block *b;
  size_t n;
  unsigned long line;
  uint64_t last_byte_or;
  uint32_t kinds;
} trace_put;

static inline trace_put trace_put_begin(trace_block *b, unsigned long line) {
  return (trace_put){.b = b, .n = b->n, .line = line};
}

/* Appends an access of the next line (size >= 1; no wrap). */
static inline void trace_put_access(trace_put *p, trace_access a, uint64_t addr, uint32_t size) {
  p->b->acc[p->n] = (trace_acc){.addr = addr, .size = size, .kind = a};
  p->b->line[p->n++] = ++p->line;
  p->last_byte_or |= addr + (size - 1);
  p->kinds |= 1u << a;
}

static inline void trace_put_end(const trace_put *p, unsigned long *line) {
  p->b->n = p->n;
  p->b->last_byte_or |= p->last_byte_or;
  p->b->kinds |= p->kinds;
  *line = p->line;
}

/* A text format's scan (trace_scan_fn) over lines of at most line_max
 * bytes, one() taking a line of the common shape at s into put (where the
 * next starts) or refusing any other (NULL): lines in rounds of as many as
 * surely fit, in the block and in the bytes left, so no bound is tested
 * per line. Inlined with its one(), as a scan of its own. */
static inline const char *trace_scan_rounds(const char *s, const char *end, trace_block *b, unsigned long *line,
                                            size_t line_max, const char *(*one)(const char *s, trace_put *put)) {
  trace_put put = trace_put_begin(b, *line);
  for (;;) {
    size_t lines = (size_t)(end - s) / line_max, room = TRACE_BLOCK_MAX - put.n;
    if (lines > room) lines = room;
    if (lines == 0) break;
    for (; lines; lines--) {
      const char *next = one(s, &put);
      if (!next) goto done;
      s = next;
    }
  }
done:
  trace_put_end(&put, line);
  return s;
}

/* ---- record formats (binary) ---------------------------------------------
 *
 * trace_bytes  a binary format's input as the reader hands it over: the
 *              bytes it holds, whether more follow, and the record count
 *              errors name in place of a line. At least TRACE_PAD bytes
 *              past `end` are readable, and zero after the last input, so
 *              a decoder reads a record whole and checks afterwards that it
 *              did not run past the end. */
#define TRACE_PAD 256

typedef struct trace_bytes {
  const uint8_t *p, *end;
  bool last;             /* no input follows end */
  unsigned long recno;   /* records decoded: the LINE of an error */
  const char *file;
  uint64_t prev_addr;    /* binary: the address deltas start from */
  uint64_t prev_delta;   /* binary: the delta a "repeat" tag adds */
  uint64_t prev_time;    /* binary: the t= the next time delta starts from */
} trace_bytes;

/* Decodes records from in->p into b while a whole record of at most
 * max_record bytes is held (every record when in->last) and b has room for
 * one record's entries. TRACE_DECODE_FULL when it stopped because b has no
 * room for another record (however few entries b holds: a record may need
 * several), 0 when it needs more input (or took the last), -1 with d as
 * "FILE:RECORD: ...". */
#define TRACE_DECODE_FULL 1
typedef int trace_decode_fn(trace_bytes *in, trace_block *b, diag *d);
trace_decode_fn trace_bin_decode, trace_champsim_decode;
/* Whether the first n bytes of an input look like this binary format (one
 * without magic bytes: ChampSim). */
typedef bool trace_sniff_bytes_fn(const uint8_t *p, size_t n);
trace_sniff_bytes_fn trace_champsim_sniff;
#define TRACE_CHAMPSIM_RECORD 64
/* The binary format's header: its magic bytes and version. */
#define TRACE_BIN_HEADER 8
extern const uint8_t trace_bin_magic[TRACE_BIN_HEADER];
#define TRACE_BIN_RECORD_MAX 256 /* an attributes prefix, its record and a label */

/* ---- writers --------------------------------------------------------------
 *
 * trace_enc  what an encoder keeps between records (binary: the address
 *            deltas start from). */
typedef struct trace_enc {
  uint64_t prev_addr, prev_delta;
  uint64_t prev_time; /* binary: the t= time deltas start from */
  uint32_t thread; /* native: the thread of the accesses that follow (a REC_THREAD sets it) */
} trace_enc;

/* The most bytes one record takes in any format a writer writes. */
#define TRACE_ENC_MAX 512
/* Writes rec into out (TRACE_ENC_MAX bytes) and returns its length; 0 with
 * *why set when the format cannot hold it, 0 alone when rec only changes
 * what the next records are written as (native: a REC_THREAD). */
typedef size_t trace_encode_fn(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why);
trace_encode_fn trace_native_encode, trace_lackey_encode, trace_din_encode, trace_bin_encode;

/* ---- what the native and binary formats share ------------------------------
 *
 * One grammar for the records both tlbsim formats hold (traces/FORMAT.md),
 * checked by both readers, so that what one reads the other can write. */

/* A mark's label: 1 to TRACE_LABEL_MAX - 1 bytes of printable ASCII other
 * than a blank (the native format's field separator) and '=' (an
 * option's), not starting with '#' (a comment's). NULL when s[0, len) is
 * one, else what is wrong. */
const char *trace_label_problem(const char *s, size_t len);
/* Whether a map record covers whole pages of its page= size (any range
 * when the size is left to the configuration: the replayer checks it). */
static inline bool trace_map_whole_pages(const trace_record *rec) {
  return !rec->page_size || !((rec->addr | rec->size) & (rec->page_size - 1));
}
/* The names of the capture's enumerations (trace.h): the index of s in
 * names, or -1. */
int trace_name_index(const char *const *names, const char *s);
/* A kernel's geometry field: one to three u32s of 1..2^31-1 separated by
 * ',' (missing ones are 1). NULL when well formed, else what is wrong. */
const char *trace_dim3_problem(const uint32_t v[3]);
/* What a record's capture fields say together that is wrong (map with
 * both frame= and handle=, ...): NULL when nothing. */
const char *trace_cap_problem(const trace_record *rec);
/* The TRACE_HAS_* options a kind of record takes (the native format's
 * table), and whether it takes kind=. */
uint64_t trace_cap_allowed(trace_rec_kind kind, bool *takes_kind);
/* Whether two records say the same, their source lines aside. */
bool trace_record_same(const trace_record *x, const trace_record *y);

/* Entry i of b as a record (an access expanded, else the `other` record
 * *other counts to, which it then moves past). */
void trace_block_record(const trace_block *b, size_t i, size_t *other, trace_record *rec);

/* A line valgrind writes about the run rather than the trace:
 * "==PID== ...", "--PID-- ..." or "**PID** ...". */
bool trace_is_banner(const char *s, size_t len);

/* "FILE:LINE: KEY: 'DIGITS' is out of range (LO..HI)" for the number whose
 * digits (decimal or hex, no prefix) start at `digits`: a value that
 * scanned as digits but not into the range (or 64 bits). Returns -1. */
int trace_out_of_range(const trace_line *ln, diag *d, const char *key, const char *digits, uint64_t lo, uint64_t hi);

/* Copies up to n-1 characters of s (at most len) into buf for an error
 * message, replacing what is not printable with '?'; returns buf. */
const char *trace_excerpt(const char *s, size_t len, char *buf, size_t n);

#endif
