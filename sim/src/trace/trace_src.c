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
 *
 * gzip is inflated by ISA-L (igzip, 2-3x zlib's speed) on a thread of its
 * own, into a ring of RING_SLOTS buffers the caller's reads copy out of, so
 * inflating overlaps parsing and simulating. The bytes are the same as a
 * single-threaded inflate's and memory stays fixed. The thread owns `in`,
 * the fd and the inflate state from open to close; an error it meets is kept
 * in its last slot and reported when the reader gets there, with the line
 * the reader is at, as it would be without the thread. Close sets `stop`
 * and writes a byte to the ring's wake pipe: the thread polls the input and
 * that pipe before each read(), so a pipe whose writer has gone quiet
 * cannot hold up an exit. (Not pthread_cancel: ASan reports its unwinding
 * of the thread's stack as an overflow.)
 */
#include "trace_src.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <lzma.h>
#include <pthread.h>
#include <zstd.h>

#define IN_BYTES (256 * 1024)
/* Enough input to tell every codec's magic bytes apart. */
#define MAGIC_MAX 8
/* gzip's ring: a few slots, so the thread runs ahead of a reader that
 * pauses without holding much memory. */
#define RING_SLOTS 4
#define SLOT_BYTES (256 * 1024)

/* One buffer of inflated bytes, filled by the gzip thread. */
typedef struct gz_slot {
  unsigned char *bytes;  /* SLOT_BYTES, bytes[0, len) inflated */
  size_t len;
  uint64_t offset;       /* the source's offset once it was filled */
  const char *why;       /* failed: the reason, or NULL for read()'s errno */
  int err;               /* failed and !why: read()'s errno */
  bool last;             /* the end of the data: nothing follows this slot */
  bool failed;           /* last, and the input was bad after bytes[len) */
} gz_slot;

/* The ring between the gzip thread (fills slots) and the reader (empties
 * them). filled and taken count slots; filled - taken are full. */
typedef struct gz_ring {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed;  /* filled, taken or stop changed */
  uint64_t filled, taken;  /* under lock */
  bool stop;               /* under lock: close wants the thread gone */
  bool thread_live;        /* pthread_create succeeded: a join is owed */
  int wake[2];             /* a pipe: close writes a byte, the thread polls */
  size_t pos;              /* reader's: bytes of slot taken handed out */
  uint64_t offset;         /* reader's: offset of the last slot read from */
  gz_slot slot[RING_SLOTS];
} gz_ring;

struct trace_src {
  const char *name;
  unsigned char *in;     /* IN_BYTES of input not yet decoded: in[at, end) */
  size_t at, end;
  uint64_t offset;       /* bytes read() so far */
  struct inflate_state *gz;
  gz_ring *ring;
  ZSTD_DStream *zstd;
  lzma_stream xz;
  int fd;
  trace_codec codec;
  bool in_eof;           /* read() returned 0 */
  bool done;             /* the decoder reached the end of its last stream */
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
 * at least `want` of them or the input ends: 0, or -1 with errno. */
static int top_up(trace_src *s, size_t want) {
  memmove(s->in, s->in + s->at, s->end - s->at);
  s->end -= s->at;
  s->at = 0;
  while (!s->in_eof && s->end < want) {
    ssize_t n = read_some(s->fd, s->in + s->end, IN_BYTES - s->end);
    if (n < 0) return -1;
    if (n == 0) s->in_eof = true;
    s->end += (size_t)n;
    s->offset += (uint64_t)n;
  }
  return 0;
}

static int fill_in(trace_src *s, size_t want, unsigned long line, diag *d) {
  return top_up(s, want) ? fail(s, line, d, strerror(errno)) : 0;
}

static bool starts_with(const trace_src *s, const unsigned char *magic, size_t n) {
  return s->end - s->at >= n && !memcmp(s->in + s->at, magic, n);
}

static void *gz_thread(void *arg);

/* The inflate state for a member starting at in[at]: ISAL_GZIP reads the
 * gzip header and checks the trailer's CRC and length. */
static void gz_member_start(trace_src *s) {
  isal_inflate_reset(s->gz);
  s->gz->crc_flag = ISAL_GZIP;
}

static int start_gzip(trace_src *s, diag *d) {
  gz_ring *r = s->ring = calloc(1, sizeof *r);
  if (!r) return diag_set(d, s->name, 0, "out of memory");
  r->wake[0] = r->wake[1] = -1; /* none yet: close closes only these */
  if (!(s->gz = malloc(sizeof *s->gz))) return diag_set(d, s->name, 0, "out of memory");
  isal_inflate_init(s->gz);
  gz_member_start(s);
  for (int i = 0; i < RING_SLOTS; i++)
    if (!(r->slot[i].bytes = malloc(SLOT_BYTES))) return diag_set(d, s->name, 0, "out of memory");
  int wake[2];
  if (pipe(wake)) return diag_set(d, s->name, 0, "cannot start the gzip thread: %s", strerror(errno));
  for (int i = 0; i < 2; i++) {
    r->wake[i] = wake[i];
    fcntl(wake[i], F_SETFD, FD_CLOEXEC);
  }
  /* the lock and condition are default ones: their init cannot fail on Linux */
  pthread_mutex_init(&r->lock, NULL);
  pthread_cond_init(&r->changed, NULL);
  if (pthread_create(&r->thread, NULL, gz_thread, s))
    return diag_set(d, s->name, 0, "cannot start the gzip thread");
  r->thread_live = true;
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

/* top_up for the gzip thread: one read() at a time, each once poll() says
 * the input has bytes (or has ended) and close has not woken the thread:
 * 0, or -1 with errno (ECANCELED: woken). */
static int gz_top_up(trace_src *s, size_t want) {
  while (!s->in_eof && s->end - s->at < want) {
    struct pollfd p[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = s->ring->wake[0], .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (p[1].revents) {
      errno = ECANCELED;
      return -1;
    }
    if (top_up(s, s->end - s->at + 1)) return -1;
  }
  return 0;
}

static const char *isal_reason(int rc) {
  switch (rc) {
  case ISAL_INVALID_WRAPPER: return "not gzip data (a bad header)";
  case ISAL_UNSUPPORTED_METHOD: return "unsupported gzip compression method";
  case ISAL_INCORRECT_CHECKSUM: return "corrupt gzip data (a wrong checksum)";
  default: return "corrupt gzip data";
  }
}

/* After one gzip member: another member follows, or the input ends. NULL,
 * or why not; *err: read()'s errno where that failed. */
static const char *gz_member_end(trace_src *s, int *err) {
  if (s->end - s->at < sizeof gzip_magic && gz_top_up(s, sizeof gzip_magic)) {
    *err = errno;
    return NULL;
  }
  if (s->at == s->end) {
    s->done = true;
    return NULL;
  }
  if (!starts_with(s, gzip_magic, sizeof gzip_magic)) return "data after the end of the gzip stream";
  gz_member_start(s);
  return NULL;
}

/* Inflates into sl until it is full, the input read so far is used up or
 * the data ends; bad input ends it too, with sl->failed. The gzip
 * thread's work. */
static void gz_fill(trace_src *s, gz_slot *sl) {
  struct inflate_state *z = s->gz;
  const char *why = NULL;
  int err = 0;
  z->next_out = sl->bytes;
  z->avail_out = SLOT_BYTES;
  while (z->avail_out && !s->done && !why && !err) {
    if (s->at == s->end && !s->in_eof) {
      /* what there is goes out before a read() that may wait on a pipe */
      if (z->avail_out < SLOT_BYTES) break;
      if (gz_top_up(s, 1)) {
        err = errno;
        break;
      }
    }
    z->next_in = s->in + s->at;
    z->avail_in = s->end - s->at < UINT32_MAX ? (uint32_t)(s->end - s->at) : UINT32_MAX;
    uint32_t room = z->avail_out;
    int rc = isal_inflate(z);
    s->at = s->end - z->avail_in;
    if (rc < 0) why = isal_reason(rc);
    else if (z->block_state == ISAL_BLOCK_FINISH) why = gz_member_end(s, &err);
    else if (s->at == s->end && s->in_eof && z->avail_out == room)
      why = "unexpected end of file (a cut-off gzip stream)";
  }
  bool failed = why || err;
  *sl = (gz_slot){.bytes = sl->bytes, .len = SLOT_BYTES - z->avail_out, .offset = s->offset,
                  .why = why, .err = err, .last = s->done || failed, .failed = failed};
}

/* Fills slots until the data ends or close asks it to stop. */
static void *gz_thread(void *arg) {
  trace_src *s = arg;
  gz_ring *r = s->ring;
  for (uint64_t i = 0;; i++) {
    pthread_mutex_lock(&r->lock);
    while (i - r->taken == RING_SLOTS && !r->stop) pthread_cond_wait(&r->changed, &r->lock);
    bool stop = r->stop;
    pthread_mutex_unlock(&r->lock);
    if (stop) return NULL;
    gz_slot *sl = &r->slot[i % RING_SLOTS];
    gz_fill(s, sl);
    pthread_mutex_lock(&r->lock);
    r->filled = i + 1;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    if (sl->last) return NULL;
  }
}

/* The slot the reader is at, once the thread has filled it. */
static gz_slot *gz_slot_ready(gz_ring *r) {
  pthread_mutex_lock(&r->lock);
  while (r->filled == r->taken) pthread_cond_wait(&r->changed, &r->lock);
  pthread_mutex_unlock(&r->lock);
  return &r->slot[r->taken % RING_SLOTS];
}

/* Hands the reader's slot back to the thread. */
static void gz_slot_done(gz_ring *r) {
  pthread_mutex_lock(&r->lock);
  r->taken++;
  pthread_cond_broadcast(&r->changed);
  pthread_mutex_unlock(&r->lock);
  r->pos = 0;
}

static int read_gzip(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  gz_ring *r = s->ring;
  *got = 0;
  for (;;) {
    gz_slot *sl = gz_slot_ready(r);
    r->offset = sl->offset;
    if (r->pos < sl->len) {
      *got = sl->len - r->pos < cap ? sl->len - r->pos : cap;
      memcpy(buf, sl->bytes + r->pos, *got);
      r->pos += *got;
      return 0;
    }
    if (sl->failed) return fail(s, line, d, sl->why ? sl->why : strerror(sl->err));
    if (sl->last) return 0;
    gz_slot_done(r);
  }
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

uint64_t trace_src_offset(const trace_src *s) { return s->ring ? s->ring->offset : s->offset; }

trace_codec trace_src_codec(const trace_src *s) { return s->codec; }

/* Stops and joins the gzip thread (waiting for a slot, it sees stop;
 * waiting for input, the wake byte; inflating, it finishes the slot
 * first) and frees the ring. */
static void gz_stop(gz_ring *r) {
  if (r->thread_live) {
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
    while (write(r->wake[1], "", 1) < 0 && errno == EINTR) {
    }
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->changed);
  }
  for (int i = 0; i < 2; i++)
    if (r->wake[i] >= 0) close(r->wake[i]);
  for (int i = 0; i < RING_SLOTS; i++) free(r->slot[i].bytes);
  free(r);
}

void trace_src_close(trace_src *s) {
  if (!s) return;
  if (s->ring) gz_stop(s->ring);
  free(s->gz);
  ZSTD_freeDStream(s->zstd);
  if (s->xz_live) lzma_end(&s->xz);
  if (s->fd >= 0) close(s->fd);
  free(s->in);
  free(s);
}
