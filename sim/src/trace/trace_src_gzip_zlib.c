/* trace_src_gzip_zlib.c — gzip input for the browser build
 * (trace_src_impl.h), which has no threads and no ISA-L: zlib inflates in
 * the reader's own calls, straight into the caller's buffer.
 *
 * What it hands out and how it fails are the native codec's
 * (trace_src_gzip.c): members back to back read as one stream, anything
 * else after a member or input that ends inside one is an error, with the
 * same words; the bytes inflated before a bad spot are handed out first,
 * the error on the read after them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace_src_impl.h"

typedef struct gz_state {
  z_stream z;
  bool live;        /* inflateInit2 succeeded: inflateEnd is owed */
  bool done;        /* the last member ended with the input */
  const char *why;  /* an error met after bytes still to hand out */
  int err;          /* ... or read()'s errno */
} gz_state;

static int gz_start(trace_src *s, diag *d) {
  gz_state *g = s->state = calloc(1, sizeof *g);
  if (!g) return diag_set(d, s->name, 0, "out of memory");
  /* 16 + MAX_WBITS: a gzip wrapper, its CRC and length checked */
  if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) return diag_set(d, s->name, 0, "out of memory");
  g->live = true;
  return 0;
}

/* zlib's message in the native codec's words. */
static const char *zlib_reason(const z_stream *z) {
  const char *m = z->msg ? z->msg : "";
  if (strstr(m, "header")) return "not gzip data (a bad header)";
  if (strstr(m, "compression method")) return "unsupported gzip compression method";
  if (strstr(m, "data check") || strstr(m, "length check")) return "corrupt gzip data (a wrong checksum)";
  return "corrupt gzip data";
}

/* After one member: another follows, or the input ends. NULL, or why not
 * (*err: read()'s errno where that failed). */
static const char *member_end(trace_src *s, gz_state *g, int *err) {
  const char *why = NULL;
  int next = trace_src_gzip_member_end(s, trace_src_top_up, &why, err);
  if (next == 0) g->done = true;
  if (next == 1) inflateReset(&g->z);
  return why;
}

static int gz_read(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  gz_state *g = s->state;
  z_stream *z = &g->z;
  *got = 0;
  if (g->why || g->err) return trace_src_fail(s, line, d, g->why ? g->why : strerror(g->err));
  uInt room = cap < UINT32_MAX ? (uInt)cap : UINT32_MAX;
  z->next_out = buf;
  z->avail_out = room;
  while (z->avail_out == room && !g->done && !g->why && !g->err) {
    if (s->at == s->end && !s->in_eof && trace_src_top_up(s, 1)) {
      g->err = errno;
      break;
    }
    z->next_in = s->in + s->at;
    z->avail_in = s->end - s->at < UINT32_MAX ? (uInt)(s->end - s->at) : UINT32_MAX;
    int rc = inflate(z, Z_NO_FLUSH);
    s->at = s->end - z->avail_in;
    if (rc == Z_STREAM_END) g->why = member_end(s, g, &g->err);
    else if (rc != Z_OK && rc != Z_BUF_ERROR) g->why = zlib_reason(z);
    else if (s->at == s->end && s->in_eof && z->avail_out == room)
      g->why = "unexpected end of file (a cut-off gzip stream)";
  }
  *got = room - z->avail_out;
  if (!*got && (g->why || g->err)) return trace_src_fail(s, line, d, g->why ? g->why : strerror(g->err));
  return 0;
}

static void gz_stop(trace_src *s) {
  gz_state *g = s->state;
  if (!g) return;
  if (g->live) inflateEnd(&g->z);
  free(g);
}

const trace_codec_ops trace_src_gzip = {gz_start, gz_read, NULL, gz_stop};
