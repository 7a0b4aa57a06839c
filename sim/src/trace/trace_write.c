/* trace_write.c — writing a trace (tlbsim/trace.h, trace_writer): records
 * through their format's encoder (trace_fmt.h) into one buffer, which goes
 * to the caller's stream plain, gzip'd or zstd-compressed.
 *
 * Every record's bytes are read back by the format's own reader (its line
 * parser, or the binary decoder, each with the state it keeps from record
 * to record) before they count as written: a record the reader would
 * refuse or read as another is refused with the record's line, so a
 * converted trace always replays as its input.
 */
#include "trace_fmt.h"
#include "trace_src_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define OUT_BYTES (256 * 1024)
#define GZIP_WRAPPER 16 /* deflateInit2's windowBits + 16: a gzip header and trailer */

struct trace_writer { // NOLINT(clang-analyzer-optin.performance.Padding): one per open output, grouped by what it does
  FILE *f;
  const char *name;      /* f's name for errors */
  trace_format fmt;
  trace_encode_fn *encode;
  trace_enc st;
  trace_codec codec;
  uint8_t *buf;          /* encoded records not yet written: buf[0, n) */
  size_t n;
  uint8_t *zbuf;         /* OUT_BYTES of compressed output */
  z_stream z;
  bool z_live;           /* deflateInit2 succeeded: deflateEnd is owed */
  trace_zstd_enc *zstd;
  diag err;              /* the first write error, repeated after */
  bool failed;
  /* reading back: the format's reader and its state */
  trace_parse_fn *parse; /* a text format's; NULL: binary */
  trace_block *back;     /* what one record read back as */
  trace_bytes bin;       /* binary: the decoder's deltas */
  unsigned carry;
  uint32_t thread_back;  /* the reader's thread: its REC_THREADs set it */
  uint32_t thread_want;  /* the input's: its REC_THREADs set it */
  trace_clock clock;     /* the reader's: records written go forward in time */
  char scratch[TRACE_ENC_MAX + TRACE_PAD + 1];
};

static trace_encode_fn *const encoders[] = {
    [TRACE_NATIVE] = trace_native_encode,
    [TRACE_LACKEY] = trace_lackey_encode,
    [TRACE_DIN] = trace_din_encode,
    [TRACE_BINARY] = trace_bin_encode,
};

static trace_parse_fn *const parsers[] = {
    [TRACE_NATIVE] = trace_native_parse,
    [TRACE_LACKEY] = trace_lackey_parse,
    [TRACE_DIN] = trace_din_parse,
};

/* The encoded bytes p[0, n) through the format's reader into w->back: 0,
 * or -1 with why (the reader's complaint, without a location). */
static int read_back(trace_writer *w, const uint8_t *p, size_t n, diag *why) {
  trace_block *b = w->back;
  b->n = b->nother = 0;
  b->kinds = 0;
  b->last_byte_or = 0;
  memcpy(w->scratch, p, n);
  memset(w->scratch + n, 0, TRACE_PAD); /* the padding a decoder or line parser may read */
  if (!w->parse) {
    w->bin.p = (const uint8_t *)w->scratch;
    w->bin.end = w->bin.p + n;
    return w->bin.end > w->bin.p && trace_bin_decode(&w->bin, b, why) < 0 ? -1 : 0;
  }
  for (char *line = w->scratch, *end = w->scratch + n; line < end;) {
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl) return diag_set(why, NULL, 0, "a line without its newline");
    *nl = '\0';
    trace_line ln = {.text = line, .len = (size_t)(nl - line), .carry = &w->carry, .thread_now = &w->thread_back,
                     .clock = &w->clock};
    if (w->parse(&ln, b, why)) return -1;
    line = nl + 1;
  }
  return 0;
}

/* Whether rec's bytes p[0, n) read back as rec: the one record it is
 * (none for a thread switch the format writes into later records), each
 * access in the thread the input has it in. 0, or -1 with d. */
static int check_back(trace_writer *w, const trace_record *rec, const uint8_t *p, size_t n, const char *file,
                      diag *d) {
  diag why;
  if (rec->kind == REC_THREAD) w->thread_want = rec->thread;
  if (read_back(w, p, n, &why))
    return diag_set(d, file, rec->line, "%s cannot hold this record: it would read back as an error (%s)",
                    trace_format_name(w->fmt), why.msg);
  size_t other = 0, records = 0;
  bool same = true;
  for (size_t i = 0; i < w->back->n; i++) {
    trace_record got;
    trace_block_record(w->back, i, &other, &got);
    if (got.kind == REC_THREAD) w->thread_back = got.thread;
    if (got.kind == REC_THREAD && rec->kind != REC_THREAD) continue; /* ahead of an access: its thread= */
    records++;
    same = same && trace_record_same(&got, rec);
  }
  bool written_later = rec->kind == REC_THREAD && !records; /* the native format's thread= */
  if ((records == 1 && same) || written_later) {
    if (rec->kind != REC_ACCESS || w->thread_back == w->thread_want) return 0;
  }
  return diag_set(d, file, rec->line, "%s cannot hold this record: it would read back as %s", trace_format_name(w->fmt),
                  records == 1 && same ? "another thread's" : "another record");
}

static int write_all(trace_writer *w, const uint8_t *p, size_t n) {
  errno = 0;
  if (fwrite(p, 1, n, w->f) == n) return 0;
  diag_set(&w->err, w->name, 0, "cannot write: %s", strerror(errno ? errno : EIO));
  w->failed = true;
  return -1;
}

static int fail_codec(trace_writer *w, const char *why) {
  diag_set(&w->err, w->name, 0, "cannot compress: %s", why);
  w->failed = true;
  return -1;
}

/* Compresses buf[0, n) (all of it, and the stream's end when last) and
 * writes what comes out. */
static int flush_gzip(trace_writer *w, bool last) {
  w->z.next_in = w->buf;
  w->z.avail_in = (uInt)w->n;
  int rc;
  do {
    w->z.next_out = w->zbuf;
    w->z.avail_out = OUT_BYTES;
    rc = deflate(&w->z, last ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) return fail_codec(w, "zlib stream error");
    if (write_all(w, w->zbuf, OUT_BYTES - w->z.avail_out)) return -1;
  } while (w->z.avail_out == 0 || (last && rc != Z_STREAM_END));
  return 0;
}

static int flush_zstd(trace_writer *w, bool last) {
  const uint8_t *in = w->buf, *end = w->buf + w->n;
  bool more;
  do {
    size_t out;
    const char *why = NULL;
    if (trace_zstd_enc_step(w->zstd, &in, end, w->zbuf, OUT_BYTES, &out, last, &more, &why)) return fail_codec(w, why);
    if (write_all(w, w->zbuf, out)) return -1;
  } while (in < end || more);
  return 0;
}

static int flush(trace_writer *w, bool last) {
  int rc = 0;
  switch (w->codec) {
  case TRACE_PLAIN: rc = write_all(w, w->buf, w->n); break;
  case TRACE_GZIP: rc = flush_gzip(w, last); break;
  case TRACE_ZSTD: rc = flush_zstd(w, last); break;
  case TRACE_XZ: break; /* never: trace_writer_open refuses it */
  }
  w->n = 0;
  return rc;
}

static int start_codec(trace_writer *w) {
  if (w->codec == TRACE_PLAIN) return 0;
  if (!(w->zbuf = malloc(OUT_BYTES))) return -1;
  if (w->codec == TRACE_GZIP) {
    if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WRAPPER + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return -1;
    w->z_live = true;
    return 0;
  }
  return (w->zstd = trace_zstd_enc_new()) ? 0 : -1;
}

static void release(trace_writer *w) {
  free(w->back);
  if (w->z_live) deflateEnd(&w->z);
  trace_zstd_enc_free(w->zstd);
  free(w->buf);
  free(w->zbuf);
  free(w);
}

trace_writer *trace_writer_open(FILE *f, const char *name, trace_format fmt, trace_codec codec, diag *d) {
  if ((unsigned)fmt >= sizeof encoders / sizeof *encoders || !encoders[fmt]) {
    diag_set(d, name, 0, "tlbsim cannot write %s traces", trace_format_name(fmt));
    return NULL;
  }
  if ((unsigned)codec > TRACE_ZSTD) {
    diag_set(d, name, 0, "tlbsim reads %s but does not write it: use gzip or zstd", trace_codec_names[codec]);
    return NULL;
  }
  if (codec == TRACE_ZSTD && !trace_zstd_writes) {
    diag_set(d, name, 0, "this build of tlbsim does not write zstd: use gzip");
    return NULL;
  }
  trace_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->buf = malloc(OUT_BYTES)) || !(w->back = malloc(sizeof *w->back)) ||
      (w->codec = codec, start_codec(w))) {
    diag_set(d, name, 0, "out of memory");
    if (w) release(w);
    return NULL;
  }
  w->f = f;
  w->name = name;
  w->fmt = fmt;
  w->encode = encoders[fmt];
  w->parse = fmt == TRACE_BINARY ? NULL : parsers[fmt];
  w->bin.last = true;
  if (fmt == TRACE_BINARY) {
    memcpy(w->buf, trace_bin_magic, TRACE_BIN_HEADER);
    w->n = TRACE_BIN_HEADER;
  } else if (fmt == TRACE_NATIVE) {
    w->n = (size_t)sprintf((char *)w->buf, "#tlbsim-trace 1\n");
  }
  return w;
}

int trace_write(trace_writer *w, const trace_record *rec, const char *file, diag *d) {
  if (w->failed) {
    *d = w->err;
    return -1;
  }
  const char *why = NULL;
  size_t n = w->encode(rec, &w->st, w->buf + w->n, &why);
  if (!n && why) return diag_set(d, file, rec->line, "%s", why);
  if (check_back(w, rec, w->buf + w->n, n, file, d)) return -1;
  w->n += n;
  if (w->n > OUT_BYTES - TRACE_ENC_MAX && flush(w, false)) {
    *d = w->err;
    return -1;
  }
  return 0;
}

int trace_writer_finish(trace_writer *w, diag *d) {
  int rc = w->failed || flush(w, true) ? -1 : 0;
  if (!rc && fflush(w->f)) {
    diag_set(&w->err, w->name, 0, "cannot write: %s", strerror(errno));
    rc = -1;
  }
  if (rc) *d = w->err;
  release(w);
  return rc;
}

void trace_writer_free(trace_writer *w) {
  if (w) release(w);
}
