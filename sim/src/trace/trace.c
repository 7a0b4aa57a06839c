/* trace.c — the reader every format shares: opening (plain, gzip or stdin),
 * splitting input into lines in one fixed buffer, settling "auto", and
 * handing each line to its format's parser (trace_fmt.h), which appends
 * its record to a block.
 *
 * The buffer holds raw input; lines are cut in place (the newline becomes a
 * NUL) and never copied. When a line runs off the end of the buffered data
 * its start moves to the front and the rest is read behind it, so the buffer
 * needs room for one whole line plus a useful read: TRACE_LINE_MAX bounds it.
 */
#include "trace_fmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Four lines' worth: at least three quarters of every refill is new data. */
#define BUF_BYTES (4 * TRACE_LINE_MAX)
/* zlib's own input buffer for compressed data (its default is 8 KiB). */
#define GZ_BUF_BYTES (128 * 1024)

typedef struct format_ops {
  trace_parse_fn *parse;
  trace_sniff_fn *sniff; /* NULL for auto */
} format_ops;

static const format_ops formats[] = {
    [TRACE_AUTO] = {NULL, NULL},
    [TRACE_NATIVE] = {trace_native_parse, trace_native_sniff},
    [TRACE_LACKEY] = {trace_lackey_parse, trace_lackey_sniff},
    [TRACE_DIN] = {trace_din_parse, trace_din_sniff},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

struct trace_reader {
  gzFile gz;
  trace_format fmt;
  trace_parse_fn *parse;
  char *name;            /* the path, or "<stdin>" */
  char *buf;             /* BUF_BYTES + 1: room for a NUL after a last line */
  size_t start, end;     /* unconsumed input is buf[start, end) */
  bool eof;              /* gzread has nothing more */
  bool pending;          /* `line` was read by the auto sniff and not yet parsed */
  bool failed;           /* err holds the error every later call repeats */
  trace_line line;
  uint64_t raw_bytes;    /* decompressed bytes read */
  diag err;
  trace_block *one;      /* trace_next's block, and its next entry */
  size_t one_at, one_other;
};

const char *const trace_format_names[] = {[TRACE_AUTO] = "auto", [TRACE_NATIVE] = "native",
                                          [TRACE_LACKEY] = "lackey", [TRACE_DIN] = "din", NULL};

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

/* zlib's messages start with its own name for the file: keep the rest. */
static const char *zlib_reason(const char *msg) {
  const char *sep;
  while ((sep = strstr(msg, ": "))) msg = sep + 2;
  return msg;
}

/* Moves the unconsumed tail to the front and reads behind it. */
static int refill(trace_reader *r, diag *d) {
  size_t keep = r->end - r->start;
  memmove(r->buf, r->buf + r->start, keep);
  r->start = 0;
  r->end = keep;
  int n = gzread(r->gz, r->buf + keep, (unsigned)(BUF_BYTES - keep));
  int errnum;
  const char *msg = gzerror(r->gz, &errnum);
  if (n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
    if (errnum == Z_ERRNO) msg = strerror(errno);
    diag_set(&r->err, r->name, r->line.no ? r->line.no + 1 : 0, "cannot read input: %s",
             zlib_reason(msg));
    return fail(r, d);
  }
  if (n == 0) r->eof = true;
  r->end += (size_t)n;
  r->raw_bytes += (uint64_t)n;
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
           "cannot tell the format of %s from '%s'; use --trace-format native|lackey|din", r->name,
           trace_excerpt(r->line.text, r->line.len, ex, sizeof ex));
  return fail(r, d);
}

trace_reader *trace_open(const char *path, trace_format fmt, diag *d) {
  if (!path || !*path) {
    diag_set(d, NULL, 0, "no trace file given");
    return NULL;
  }
  if ((unsigned)fmt >= NFORMATS) {
    diag_set(d, path, 0, "unknown trace format %d", (int)fmt);
    return NULL;
  }
  bool is_stdin = !strcmp(path, "-");
  trace_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->buf = malloc(BUF_BYTES + 1)) ||
      !(r->name = strdup(is_stdin ? "<stdin>" : path))) {
    diag_set(d, path, 0, "out of memory");
    trace_close(r);
    return NULL;
  }
  /* dup: closing the reader must not close the process's stdin. */
  int fd = is_stdin ? dup(STDIN_FILENO) : -1;
  errno = 0;
  r->gz = is_stdin ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
  if (!r->gz) {
    diag_set(d, r->name, 0, "cannot open: %s", errno ? strerror(errno) : "out of memory");
    if (fd >= 0) close(fd);
    trace_close(r);
    return NULL;
  }
  gzbuffer(r->gz, GZ_BUF_BYTES);
  r->line.file = r->name;
  r->fmt = fmt;
  if (fmt == TRACE_AUTO && sniff(r, d)) {
    trace_close(r);
    return NULL;
  }
  r->parse = formats[r->fmt].parse;
  return r;
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

/* A bad line ends the block before it: the records ahead of it are handed
 * out first, and the error on the next call. */
int trace_read_block(trace_reader *r, trace_block *b, diag *d) {
  if (r->failed) return fail(r, d);
  b->n = b->nother = 0;
  b->last_byte_or = 0;
  b->kinds = 0;
  while (b->n < TRACE_BLOCK_MAX && b->nother < TRACE_BLOCK_OTHER_MAX) {
    if (r->pending) {
      r->pending = false;
    } else {
      int k = read_line(r, NULL);
      if (k < 0) break;
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

/* A trace_acc as the record it stands for. */
static void expand(const trace_acc *a, unsigned long line, trace_record *rec) {
  *rec = (trace_record){.kind = REC_ACCESS, .access = (trace_access)a->kind, .addr = a->addr, .size = a->size,
                        .line = line};
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
  const trace_acc *a = &b->acc[r->one_at];
  if (a->kind == TRACE_ACC_OTHER) *rec = b->other[r->one_other++];
  else expand(a, b->line[r->one_at], rec);
  r->one_at++;
  return 1;
}

trace_format trace_get_format(const trace_reader *r) { return r->fmt; }

const char *trace_get_path(const trace_reader *r) { return r->name; }

uint64_t trace_bytes_read(const trace_reader *r) {
  z_off_t off = gzoffset(r->gz);
  return off >= 0 ? (uint64_t)off : r->raw_bytes;
}

void trace_close(trace_reader *r) {
  if (!r) return;
  if (r->gz) gzclose(r->gz);
  free(r->buf);
  free(r->name);
  free(r->one);
  free(r);
}
