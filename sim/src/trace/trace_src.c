/* trace_src.c — a trace's bytes from a file or stdin, decompressed by the
 * codec its first bytes name (trace_src.h).
 *
 * The source reads the input in chunks of IN_BYTES. The first chunk settles
 * the codec; for plain input what is left of it is handed out first and
 * every later read() goes straight into the caller's buffer. Compressed
 * input stays in `in` and the codec inflates from it. A gzip file of
 * several members (cat a.gz b.gz) reads as their concatenation, as gzip -d
 * does; anything else after a member, or input that ends inside one, is an
 * error rather than a short trace.
 */
#include "trace_src.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#define IN_BYTES (256 * 1024)
/* Enough input to tell every codec's magic bytes apart. */
#define MAGIC_MAX 8

struct trace_src {
  const char *name;
  unsigned char *in;     /* IN_BYTES of input not yet decoded: in[at, end) */
  size_t at, end;
  uint64_t offset;       /* bytes read() so far */
  z_stream z;
  ZSTD_DStream *zstd;
  lzma_stream xz;
  int fd;
  trace_codec codec;
  bool in_eof;           /* read() returned 0 */
  bool done;             /* the decoder reached the end of its last stream */
  bool z_live;           /* inflateInit2 succeeded: inflateEnd is owed */
  bool between_frames;   /* zstd: the last frame begun is complete */
  bool xz_live;          /* lzma_stream_decoder succeeded: lzma_end is owed */
};

static const unsigned char gzip_magic[] = {0x1f, 0x8b};
static const unsigned char zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd};
static const unsigned char xz_magic[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

static int fail(const trace_src *s, unsigned long line, diag *d, const char *why) {
  return diag_set(d, s->name, line, "cannot read input: %s", why);
}

/* read() that retries on EINTR: bytes, 0 at the end, -1 with errno. */
static ssize_t read_some(int fd, void *buf, size_t cap) {
  ssize_t n;
  do n = read(fd, buf, cap);
  while (n < 0 && errno == EINTR);
  return n;
}

/* Tops up `in` behind its unread bytes (moved to the front) until it holds
 * at least `want` of them or the input ends. */
static int fill_in(trace_src *s, size_t want, unsigned long line, diag *d) {
  memmove(s->in, s->in + s->at, s->end - s->at);
  s->end -= s->at;
  s->at = 0;
  while (!s->in_eof && s->end < want) {
    ssize_t n = read_some(s->fd, s->in + s->end, IN_BYTES - s->end);
    if (n < 0) return fail(s, line, d, strerror(errno));
    if (n == 0) s->in_eof = true;
    s->end += (size_t)n;
    s->offset += (uint64_t)n;
  }
  return 0;
}

static bool starts_with(const trace_src *s, const unsigned char *magic, size_t n) {
  return s->end - s->at >= n && !memcmp(s->in + s->at, magic, n);
}

static int start_gzip(trace_src *s, diag *d) {
  /* 16 + MAX_WBITS: a gzip wrapper, as the magic bytes said. */
  if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) return diag_set(d, s->name, 0, "out of memory");
  s->z_live = true;
  return 0;
}

static int start_zstd(trace_src *s, diag *d) {
  if (!(s->zstd = ZSTD_createDStream()) || ZSTD_isError(ZSTD_initDStream(s->zstd)))
    return diag_set(d, s->name, 0, "out of memory");
  return 0;
}

static int start_xz(trace_src *s, diag *d) {
  s->xz = (lzma_stream)LZMA_STREAM_INIT;
  /* LZMA_CONCATENATED: streams back to back read as one, as xz -d does. */
  if (lzma_stream_decoder(&s->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    return diag_set(d, s->name, 0, "out of memory");
  s->xz_live = true;
  return 0;
}

/* The codec the first bytes name, and its decoder started. */
static int settle_codec(trace_src *s, diag *d) {
  if (starts_with(s, gzip_magic, sizeof gzip_magic)) {
    s->codec = TRACE_GZIP;
    return start_gzip(s, d);
  }
  if (starts_with(s, zstd_magic, sizeof zstd_magic)) {
    s->codec = TRACE_ZSTD;
    return start_zstd(s, d);
  }
  if (starts_with(s, xz_magic, sizeof xz_magic)) {
    s->codec = TRACE_XZ;
    return start_xz(s, d);
  }
  return 0;
}

trace_src *trace_src_open(const char *path, const char *name, diag *d) {
  trace_src *s = calloc(1, sizeof *s);
  if (!s || !(s->in = malloc(IN_BYTES))) {
    free(s);
    diag_set(d, name, 0, "out of memory");
    return NULL;
  }
  s->name = name;
  errno = 0;
  s->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
  if (s->fd < 0) {
    diag_set(d, name, 0, "cannot open: %s", strerror(errno));
    trace_src_close(s);
    return NULL;
  }
  if (fill_in(s, MAGIC_MAX, 0, d) || settle_codec(s, d)) {
    trace_src_close(s);
    return NULL;
  }
  return s;
}

trace_src *trace_src_open_memory(const void *data, size_t len, const char *name, diag *d) {
  trace_src *s = calloc(1, sizeof *s);
  if (!s || !(s->in = malloc(len ? len : 1))) {
    free(s);
    diag_set(d, name, 0, "out of memory");
    return NULL;
  }
  memcpy(s->in, data, len);
  *s = (trace_src){.name = name, .in = s->in, .end = len, .offset = len, .fd = -1, .in_eof = true};
  if (settle_codec(s, d)) {
    trace_src_close(s);
    return NULL;
  }
  return s;
}

/* Plain input: what the first chunk left, then read() into buf directly. */
static int read_plain(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  if (s->at < s->end) {
    size_t n = s->end - s->at < cap ? s->end - s->at : cap;
    memcpy(buf, s->in + s->at, n);
    s->at += n;
    *got = n;
    return 0;
  }
  *got = 0;
  if (s->in_eof) return 0;
  ssize_t n = read_some(s->fd, buf, cap);
  if (n < 0) return fail(s, line, d, strerror(errno));
  if (n == 0) s->in_eof = true;
  s->offset += (uint64_t)n;
  *got = (size_t)n;
  return 0;
}

/* After one gzip member: another member follows, or the input ends. */
static int gzip_member_end(trace_src *s, unsigned long line, diag *d) {
  if (s->end - s->at < sizeof gzip_magic && fill_in(s, sizeof gzip_magic, line, d)) return -1;
  if (s->at == s->end) {
    s->done = true;
    return 0;
  }
  if (!starts_with(s, gzip_magic, sizeof gzip_magic))
    return fail(s, line, d, "data after the end of the gzip stream");
  inflateReset(&s->z);
  return 0;
}

static int read_gzip(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  s->z.next_out = buf;
  s->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
  while (s->z.avail_out && !s->done) {
    if (s->at == s->end) {
      if (s->in_eof) return fail(s, line, d, "unexpected end of file (a cut-off gzip stream)");
      if (fill_in(s, 1, line, d)) return -1;
      continue;
    }
    s->z.next_in = s->in + s->at;
    s->z.avail_in = (uInt)(s->end - s->at);
    int rc = inflate(&s->z, Z_NO_FLUSH);
    s->at = s->end - s->z.avail_in;
    if (rc == Z_STREAM_END) {
      if (gzip_member_end(s, line, d)) return -1;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return fail(s, line, d, s->z.msg ? s->z.msg : "corrupt gzip data");
    }
    if (s->z.avail_out < cap) break; /* hand out what there is */
  }
  *got = cap - s->z.avail_out;
  return 0;
}

/* zstd: frames back to back (zstd -c a b > ab) read as one stream, as zstd
 * -d does; input that ends inside a frame is an error. */
static int read_zstd(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  ZSTD_outBuffer out = {buf, cap, 0};
  while (out.pos == 0 && !s->done) {
    if (s->at == s->end) {
      if (!s->in_eof && fill_in(s, 1, line, d)) return -1;
      if (s->at < s->end) continue;
      if (!s->between_frames) return fail(s, line, d, "unexpected end of file (a cut-off zstd stream)");
      s->done = true;
      break;
    }
    ZSTD_inBuffer in = {s->in + s->at, s->end - s->at, 0};
    size_t hint = ZSTD_decompressStream(s->zstd, &out, &in);
    s->at += in.pos;
    if (ZSTD_isError(hint)) return fail(s, line, d, ZSTD_getErrorName(hint));
    s->between_frames = hint == 0;
  }
  *got = out.pos;
  return 0;
}

static const char *xz_reason(lzma_ret rc) {
  switch (rc) {
  case LZMA_MEM_ERROR: return "out of memory";
  case LZMA_FORMAT_ERROR: return "not xz data";
  case LZMA_OPTIONS_ERROR: return "unsupported xz options";
  case LZMA_DATA_ERROR: return "corrupt xz data";
  case LZMA_BUF_ERROR: return "unexpected end of file (a cut-off xz stream)";
  default: return "xz decoder error";
  }
}

static int read_xz(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  s->xz.next_out = buf;
  s->xz.avail_out = cap;
  while (s->xz.avail_out == cap && !s->done) {
    if (s->at == s->end && !s->in_eof && fill_in(s, 1, line, d)) return -1;
    s->xz.next_in = s->in + s->at;
    s->xz.avail_in = s->end - s->at;
    lzma_ret rc = lzma_code(&s->xz, s->at == s->end ? LZMA_FINISH : LZMA_RUN);
    s->at = s->end - s->xz.avail_in;
    if (rc == LZMA_STREAM_END) s->done = true;
    else if (rc != LZMA_OK) return fail(s, line, d, xz_reason(rc));
  }
  *got = cap - s->xz.avail_out;
  return 0;
}

int trace_src_read(trace_src *s, void *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  switch (s->codec) {
  case TRACE_PLAIN: return read_plain(s, buf, cap, got, line, d);
  case TRACE_GZIP: return read_gzip(s, buf, cap, got, line, d);
  case TRACE_ZSTD: return read_zstd(s, buf, cap, got, line, d);
  case TRACE_XZ: return read_xz(s, buf, cap, got, line, d);
  }
  return fail(s, line, d, "unknown codec");
}

uint64_t trace_src_offset(const trace_src *s) { return s->offset; }

trace_codec trace_src_codec(const trace_src *s) { return s->codec; }

void trace_src_close(trace_src *s) {
  if (!s) return;
  if (s->z_live) inflateEnd(&s->z);
  ZSTD_freeDStream(s->zstd);
  if (s->xz_live) lzma_end(&s->xz);
  if (s->fd >= 0) close(s->fd);
  free(s->in);
  free(s);
}
