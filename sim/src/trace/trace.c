/* trace.c — the reader every format shares: splitting the bytes of a
 * source (trace_src.h: a file or stdin, plain or compressed) into lines in
 * one fixed buffer, settling "auto", and handing each line to its format's
 * parser (trace_fmt.h), which appends its record to a block. A text format
 * may scan runs of common lines itself first; a binary format's decoder
 * takes the buffer's bytes as records instead of lines.
 *
 * The buffer holds raw input; lines are cut in place (the newline becomes a
 * NUL) and never copied. When a line runs off the end of the buffered data
 * its start moves to the front and the rest is read behind it, so the buffer
 * needs room for one whole line plus a useful read: TRACE_LINE_MAX bounds it.
 *
 * With more than one job (trace_open_jobs) and a regular file, the blocks
 * are filled on a thread of their own ahead of the caller (trace_ahead.h),
 * started at the first read: the same blocks, errors and end in the same
 * order, parsing on one core while the caller simulates on another.
 */
#include "trace_ahead.h"
#include "trace_fmt.h"
#include "trace_src.h"

#include <stdlib.h>
#include <string.h>

/* Four lines' worth: at least three quarters of every refill is new data. */
#define BUF_BYTES (4 * TRACE_LINE_MAX)
_Static_assert(TRACE_PAD >= TRACE_LINE_PAD, "the padding behind the buffer covers a line's");

/* A text format parses lines and is told by its first meaningful line; a
 * binary one decodes records and is told by its magic bytes or, lacking
 * them, by its first record. */
typedef struct format_ops {
  trace_parse_fn *parse;
  trace_sniff_fn *sniff;
  trace_scan_fn *scan;   /* a text format's fast path over many lines */
  trace_end_fn *at_end;  /* a text format that needs a last line */
  trace_decode_fn *decode;
  trace_sniff_bytes_fn *sniff_bytes;
  const uint8_t *magic;  /* a binary format's header: magic bytes then a version byte */
  size_t magic_len;      /* the header's length, version byte included */
} format_ops;

static const format_ops formats[] = {
    [TRACE_AUTO] = {0},
    [TRACE_NATIVE] = {.parse = trace_native_parse, .sniff = trace_native_sniff},
    [TRACE_LACKEY] = {.parse = trace_lackey_parse, .sniff = trace_lackey_sniff, .scan = trace_lackey_scan},
    [TRACE_DIN] = {.parse = trace_din_parse, .sniff = trace_din_sniff, .scan = trace_din_scan},
    [TRACE_BINARY] = {.decode = trace_bin_decode, .magic = trace_bin_magic, .magic_len = TRACE_BIN_HEADER},
    [TRACE_CHAMPSIM] = {.decode = trace_champsim_decode, .sniff_bytes = trace_champsim_sniff},
    [TRACE_PINATRACE] = {.parse = trace_pinatrace_parse, .sniff = trace_pinatrace_sniff, .at_end = trace_pinatrace_end},
};
/* What auto-detection looks at before it tries lines: a ChampSim record. */
#define FIRST_BYTES TRACE_CHAMPSIM_RECORD
#define NFORMATS (sizeof formats / sizeof formats[0])

struct trace_reader {
  trace_src *src;
  trace_format fmt;
  trace_parse_fn *parse;
  trace_decode_fn *decode;
  trace_scan_fn *scan;
  trace_end_fn *at_end;
  trace_bytes bin;       /* a binary format's decoding state */
  unsigned carry;        /* line.carry points here */
  uint32_t thread_now;   /* line.thread_now points here */
  trace_clock clock;     /* line.clock points here */
  bool thread_first;     /* trace_set_thread named a thread the first block announces */
  char *name;            /* the path, or "<stdin>" */
  char *buf;             /* BUF_BYTES + 1 + TRACE_PAD: a NUL after a last line, and the padding */
  size_t start, end;     /* unconsumed input is buf[start, end) */
  bool eof;              /* the source has nothing more */
  bool pending;          /* `line` was read by the auto sniff and not yet parsed */
  bool failed;           /* err holds the error every later call repeats */
  trace_line line;
  diag err;
  trace_block *one;      /* trace_next's block, and its next entry */
  size_t one_at, one_other;
  unsigned jobs;         /* trace_open_jobs's */
  bool ahead_tried;      /* the first read decided on a fill thread */
  trace_ahead *ahead;    /* NULL: blocks are filled in the caller's calls */
  uint64_t ahead_bytes;  /* the input's bytes read when the last block taken was filled */
  uint64_t records;      /* handed out so far (in blocks, as trace_next reads them too) */
};

const char *const trace_format_names[] = {
    [TRACE_AUTO] = "auto",     [TRACE_NATIVE] = "native",     [TRACE_LACKEY] = "lackey",       [TRACE_DIN] = "din",
    [TRACE_BINARY] = "binary", [TRACE_CHAMPSIM] = "champsim", [TRACE_PINATRACE] = "pinatrace", NULL};
const char *const trace_codec_names[] = {[TRACE_PLAIN] = "none", [TRACE_GZIP] = "gzip", [TRACE_ZSTD] = "zstd",
                                         [TRACE_XZ] = "xz", NULL};

int trace_format_parse(const char *s, trace_format *out) {
  for (size_t i = 0; s && i < NFORMATS; i++)
    if (!strcmp(s, trace_format_names[i])) {
      *out = (trace_format)i;
      return 0;
    }
  return -1;
}

const char *trace_format_name(trace_format f) {
  return (unsigned)f < NFORMATS ? trace_format_names[f] : "unknown";
}

bool trace_is_banner(const char *s, size_t len) {
  if (len < 5 || s[1] != s[0] || (s[0] != '=' && s[0] != '-' && s[0] != '*')) return false;
  size_t i = 2;
  while (i < len && s[i] >= '0' && s[i] <= '9') i++;
  return i > 2 && i + 1 < len && s[i] == s[0] && s[i + 1] == s[0];
}

const char *trace_excerpt(const char *s, size_t len, char *buf, size_t n) {
  size_t i = 0;
  for (; i + 1 < n && i < len; i++) buf[i] = (s[i] >= ' ' && s[i] < 127) ? s[i] : '?';
  if (n) buf[i] = '\0';
  return buf;
}

int trace_out_of_range(const trace_line *ln, diag *d, const char *key, const char *digits, uint64_t lo, uint64_t hi) {
  char tok[64], why[160];
  size_t n = 0;
  while (n + 1 < sizeof tok && num_hexval[(unsigned char)digits[n]]) tok[n] = digits[n], n++;
  tok[n] = '\0';
  return diag_set(d, ln->file, ln->no, "%s: %s", key, num_complaint(NUM_RANGE, NUM_WHOLE, tok, lo, hi, why, sizeof why));
}

static int fail(trace_reader *r, diag *d) {
  r->failed = true;
  if (d) *d = r->err;
  return -1;
}

/* Moves the unconsumed tail to the front and reads behind it. A full
 * buffer would read nothing and look like the end of the input: the
 * callers never refill one (a line is at most a quarter of it, a binary
 * record far less), and this says so rather than cut the trace short. */
static int refill(trace_reader *r, diag *d) {
  size_t keep = r->end - r->start;
  if (keep >= BUF_BYTES) {
    diag_set(&r->err, r->name, r->line.no + 1, "internal error: the reader's buffer is full");
    return fail(r, d);
  }
  memmove(r->buf, r->buf + r->start, keep);
  r->start = 0;
  r->end = keep;
  size_t n;
  if (trace_src_read(r->src, r->buf + keep, BUF_BYTES - keep, &n, r->line.no + 1, &r->err)) return fail(r, d);
  if (n == 0) r->eof = true;
  r->end += n;
  return 0;
}

/* Cuts the next line out of the buffer into r->line. 1: a line; 0: end. */
static int read_line(trace_reader *r, diag *d) {
  char *nl;
  for (;;) {
    size_t avail = r->end - r->start;
    nl = memchr(r->buf + r->start, '\n', avail);
    if (nl) break;
    if (avail > TRACE_LINE_MAX) goto too_long;
    if (r->eof) {
      if (!avail) return 0;
      nl = r->buf + r->end; /* a last line without a newline: buf has a spare byte */
      r->end++;
      break;
    }
    if (refill(r, d)) return -1;
  }
  char *s = r->buf + r->start;
  size_t len = (size_t)(nl - s);
  if (len > TRACE_LINE_MAX) goto too_long;
  r->start += len + 1;
  if (len && s[len - 1] == '\r') len--;
  s[len] = '\0';
  r->line.text = s;
  r->line.len = len;
  r->line.no++;
  return 1;
too_long:
  diag_set(&r->err, r->name, r->line.no + 1, "line longer than %d bytes: is this a trace?",
           TRACE_LINE_MAX);
  return fail(r, d);
}

/* Lines no format parses into a record, skipped while sniffing. */
static bool skippable(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && trace_is_blank(s[i])) i++;
  if (i == len) return true;
  if (s[i] == '#') return !trace_native_sniff(s, len); /* all but the version line */
  return trace_is_banner(s, len);
}

/* Reads up to the first meaningful line, decides the format from it and
 * leaves it pending for the first trace_next. */
static int sniff(trace_reader *r, diag *d) {
  int k;
  while ((k = read_line(r, d)) == 1 && skippable(r->line.text, r->line.len)) {
  }
  if (k < 0) return -1;
  if (k == 0) {
    r->fmt = TRACE_NATIVE;
    return 0;
  }
  for (size_t i = 0; i < NFORMATS; i++)
    if (formats[i].sniff && formats[i].sniff(r->line.text, r->line.len)) {
      r->fmt = (trace_format)i;
      r->pending = true;
      return 0;
    }
  char ex[48];
  diag_set(&r->err, r->name, r->line.no,
           "cannot tell the format of %s from '%s'; use --trace-format (tlbsim formats lists them)", r->name,
           trace_excerpt(r->line.text, r->line.len, ex, sizeof ex));
  return fail(r, d);
}

/* Reads FIRST_BYTES (or all there is), and settles "auto" for a binary
 * format whose magic bytes or first record begin the input. */
static int first_bytes(trace_reader *r, diag *d) {
  while (!r->eof && r->end - r->start < FIRST_BYTES)
    if (refill(r, d)) return -1;
  const uint8_t *p = (const uint8_t *)r->buf + r->start;
  size_t held = r->end - r->start;
  for (size_t i = 0; r->fmt == TRACE_AUTO && i < NFORMATS; i++) {
    const format_ops *f = &formats[i];
    if ((f->magic && held >= f->magic_len - 1 && !memcmp(p, f->magic, f->magic_len - 1)) ||
        (f->sniff_bytes && f->sniff_bytes(p, held)))
      r->fmt = (trace_format)i;
  }
  return 0;
}

/* Checks a binary format's header (magic bytes, then the version) and
 * skips it. */
static int take_header(trace_reader *r, diag *d) {
  const format_ops *f = &formats[r->fmt];
  size_t n = f->magic_len, held = r->end - r->start;
  const char *name = trace_format_names[r->fmt];
  if (held < n - 1 || memcmp(r->buf + r->start, f->magic, n - 1))
    diag_set(&r->err, r->name, 0, "not a %s trace: it does not start with the format's magic bytes", name);
  else if (held < n || (uint8_t)r->buf[r->start + n - 1] != f->magic[n - 1])
    diag_set(&r->err, r->name, 0, "unsupported %s trace version %d (tlbsim reads %d)", name,
             held < n ? -1 : (int)(uint8_t)r->buf[r->start + n - 1], f->magic[n - 1]);
  else {
    r->start += n;
    return 0;
  }
  return fail(r, d);
}

/* A reader named `name` over the file at path (decoded on `jobs` threads,
 * trace_src.h), or over len bytes at data when data is set. */
static trace_reader *open_reader(const char *path, const char *name, trace_format fmt, const char *data,
                                 size_t len, unsigned jobs, diag *d) {
  if ((unsigned)fmt >= NFORMATS) {
    diag_set(d, path, 0, "unknown trace format %d", (int)fmt);
    return NULL;
  }
  trace_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->buf = calloc(1, BUF_BYTES + 1 + TRACE_PAD)) || !(r->name = strdup(name))) {
    diag_set(d, path, 0, "out of memory");
    trace_close(r);
    return NULL;
  }
  r->src = data ? trace_src_open_memory(data, len, r->name, d) : trace_src_open(path, r->name, jobs, d);
  if (!r->src) {
    trace_close(r);
    return NULL;
  }
  r->line.file = r->name;
  r->line.carry = &r->carry;
  r->line.thread_now = &r->thread_now;
  r->line.clock = &r->clock;
  r->bin.file = r->name;
  r->fmt = fmt;
  r->jobs = jobs;
  if (first_bytes(r, d) || (r->fmt == TRACE_AUTO && sniff(r, d)) || (formats[r->fmt].magic && take_header(r, d))) {
    trace_close(r);
    return NULL;
  }
  r->parse = formats[r->fmt].parse;
  r->decode = formats[r->fmt].decode;
  r->at_end = formats[r->fmt].at_end;
  r->scan = formats[r->fmt].scan;
  return r;
}

trace_reader *trace_open_jobs(const char *path, trace_format fmt, unsigned jobs, diag *d) {
  if (!path || !*path) {
    diag_set(d, NULL, 0, "no trace file given");
    return NULL;
  }
  return open_reader(path, strcmp(path, "-") ? path : "<stdin>", fmt, NULL, 0, jobs, d);
}

trace_reader *trace_open(const char *path, trace_format fmt, diag *d) { return trace_open_jobs(path, fmt, 1, d); }

trace_reader *trace_open_memory(const char *name, const char *data, size_t len, trace_format fmt, diag *d) {
  return open_reader(name, name, fmt, data ? data : "", len, 1, d);
}

trace_record *trace_emit_other(trace_block *b, trace_rec_kind kind, unsigned long line) {
  trace_record *rec = &b->other[b->nother++];
  memset(rec, 0, sizeof *rec);
  rec->kind = kind;
  rec->line = line;
  b->acc[b->n] = (trace_acc){.kind = TRACE_ACC_OTHER};
  b->line[b->n++] = line;
  return rec;
}

/* A binary format's records: decoded from the buffer while it holds whole
 * records, refilled in between; at the end of input the padding behind the
 * last byte is zeroed (trace_bytes). */
static void decode_block(trace_reader *r, trace_block *b) {
  for (;;) {
    if (r->eof) memset(r->buf + r->end, 0, TRACE_PAD);
    r->bin.p = (const uint8_t *)r->buf + r->start;
    r->bin.end = (const uint8_t *)r->buf + r->end;
    r->bin.last = r->eof;
    int rc = r->decode(&r->bin, b, &r->err);
    r->start = (size_t)((const char *)r->bin.p - r->buf);
    if (rc < 0) r->failed = true;
    if (rc || (r->eof && r->start >= r->end)) return;
    if (refill(r, NULL)) return;
  }
}

/* A bad line ends the block before it: the records ahead of it are handed
 * out first, and the error on the next call. */
static int read_block(trace_reader *r, trace_block *b, diag *d) {
  if (r->failed) return fail(r, d);
  b->n = b->nother = 0;
  b->last_byte_or = 0;
  b->kinds = 0;
  if (r->thread_first) {
    r->thread_first = false;
    trace_emit_thread(b, r->thread_now, 0);
  }
  if (r->decode) {
    decode_block(r, b);
    return b->n ? 1 : r->failed ? fail(r, d) : 0;
  }
  while (b->n + 1 < TRACE_BLOCK_MAX && b->nother + 1 < TRACE_BLOCK_OTHER_MAX) {
    if (r->scan && !r->pending) {
      r->start = (size_t)(r->scan(r->buf + r->start, r->buf + r->end, b, &r->line.no) - r->buf);
      if (b->n == TRACE_BLOCK_MAX) break;
    }
    if (r->pending) {
      r->pending = false;
    } else {
      int k = read_line(r, NULL);
      if (k < 0) break;
      if (k == 0 && r->at_end && r->at_end(&r->line, &r->err)) {
        r->failed = true;
        break;
      }
      if (k == 0) return b->n > 0;
    }
    if (r->parse(&r->line, b, &r->err)) {
      r->failed = true;
      break;
    }
  }
  if (b->n) return 1;
  return r->failed ? fail(r, d) : 0;
}

/* The fill thread's trace_fill_fn. */
static int fill_ahead(void *ctx, trace_block *b, diag *d, uint64_t *bytes) {
  trace_reader *r = ctx;
  int rc = read_block(r, b, d);
  *bytes = trace_src_offset(r->src);
  return rc;
}

/* The next block into *b, or (swap) in exchange for it. */
static int next_block(trace_reader *r, trace_block **b, bool swap, diag *d) {
  bool announced = false; /* the switch the first block announces is no record of the input */
  if (!r->ahead_tried) { /* from here on only the fill thread, if there is one, touches the input's state */
    r->ahead_tried = true;
    announced = r->thread_first;
    if (trace_ahead_wanted(r->jobs) && trace_src_regular_file(r->src)) r->ahead = trace_ahead_start(fill_ahead, r);
  }
  int k = r->ahead ? trace_ahead_take(r->ahead, b, swap, d, &r->ahead_bytes) : read_block(r, *b, d);
  if (k == 1) r->records += (*b)->n - announced;
  return k;
}

int trace_read_block(trace_reader *r, trace_block *b, diag *d) { return next_block(r, &b, false, d); }

int trace_take_block(trace_reader *r, trace_block **b, diag *d) { return next_block(r, b, true, d); }

uint64_t trace_records_read(const trace_reader *r) { return r->records; }

const char *trace_label_problem(const char *s, size_t len) {
  if (len == 0) return "an empty mark label";
  if (len >= TRACE_LABEL_MAX) return "a mark label longer than 63 bytes";
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= ' ' || c >= 127) return "a mark label byte that is not printable ASCII (or is a blank)";
    if (c == '=') return "a mark label with '='";
  }
  if (*s == '#') return "a mark label that starts with '#'";
  return NULL;
}
_Static_assert(TRACE_LABEL_MAX == 64, "trace_label_problem names the length limit");

/* ---- captured programs ---------------------------------------------------- */

_Static_assert(sizeof(trace_capture) == 8 * 8 + 4 + 2 + 2 + 6 * 4, "trace_capture has no padding: memcmp compares it");

const char *const trace_pool_op_names[] = {"create", "trim", "destroy", NULL};
const char *const trace_rec_kind_names[] = {"access",  "alloc",     "free",   "map",     "unmap",   "protect",
                                             "ctx",     "mark",      "thread", "pool",    "reserve", "unreserve",
                                             "handle",  "release",   "meminfo", "prefetch", "advise"};
_Static_assert(sizeof trace_rec_kind_names / sizeof *trace_rec_kind_names == REC_ADVISE + 1,
               "a name for every record kind");
const char *const trace_mem_kind_names[] = {"device", "managed", "host", "pinned", NULL};

int trace_name_index(const char *const *names, const char *s) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(names[i], s)) return i;
  return -1;
}

const char *trace_dim3_problem(const uint32_t v[3]) {
  for (int i = 0; i < 3; i++)
    if (v[i] < 1 || v[i] > INT32_MAX) return "a launch dimension outside 1..2147483647";
  return NULL;
}

int trace_clock_check(trace_clock *c, const trace_record *rec, const char *file, diag *d) {
  if (!c || !(rec->cap.attrs & TRACE_HAS_TIME)) return 0;
  if (c->any && rec->cap.time_ns < c->t)
    return diag_set(d, file, rec->line, "t=%llu is before line %lu's t=%llu: a capture's records come in time order",
                    (unsigned long long)rec->cap.time_ns, c->line, (unsigned long long)c->t);
  *c = (trace_clock){.t = rec->cap.time_ns, .line = rec->line, .any = true};
  return 0;
}

bool trace_record_same(const trace_record *x, const trace_record *y) {
  return x->kind == y->kind && x->access == y->access && x->relative == y->relative && x->prot == y->prot &&
         x->asid == y->asid && x->stream == y->stream && x->thread == y->thread && x->alloc_id == y->alloc_id &&
         x->addr == y->addr && x->size == y->size && x->align == y->align && x->page_size == y->page_size &&
         x->frame == y->frame && x->has_frame == y->has_frame && !strncmp(x->label, y->label, TRACE_LABEL_MAX) &&
         !memcmp(&x->cap, &y->cap, sizeof x->cap);
}

void trace_block_record(const trace_block *b, size_t i, size_t *other, trace_record *rec) {
  const trace_acc *a = &b->acc[i];
  if (a->kind == TRACE_ACC_OTHER) *rec = b->other[(*other)++];
  else
    *rec = (trace_record){.kind = REC_ACCESS, .access = (trace_access)a->kind, .addr = a->addr, .size = a->size,
                          .line = b->line[i]};
}

int trace_next(trace_reader *r, trace_record *rec, diag *d) {
  if (!r->one) {
    if (!(r->one = malloc(sizeof *r->one))) {
      diag_set(&r->err, r->name, 0, "out of memory");
      return fail(r, d);
    }
    r->one->n = 0;
  }
  trace_block *b = r->one;
  if (r->one_at == b->n) {
    int k = trace_read_block(r, b, d);
    if (k <= 0) {
      b->n = r->one_at = 0; /* an error repeats; the end stays the end */
      return k;
    }
    r->one_at = r->one_other = 0;
  }
  trace_block_record(b, r->one_at++, &r->one_other, rec);
  return 1;
}

void trace_set_thread(trace_reader *r, uint32_t t) {
  r->line.thread_default = r->thread_now = t;
  r->thread_first = t != 0;
}

trace_format trace_get_format(const trace_reader *r) { return r->fmt; }

const char *trace_get_path(const trace_reader *r) { return r->name; }

uint64_t trace_bytes_read(const trace_reader *r) { return r->ahead ? r->ahead_bytes : trace_src_offset(r->src); }

void trace_close(trace_reader *r) {
  if (!r) return;
  trace_ahead_stop(r->ahead);
  trace_src_close(r->src);
  free(r->buf);
  free(r->name);
  free(r->one);
  free(r);
}
