/* trace_src_gzip.c — gzip input for the native build (trace_src_impl.h).
 *
 * A gzip file of several members (cat a.gz b.gz) reads as their
 * concatenation, as gzip -d does; anything else after a member, or input
 * that ends inside one, is an error rather than a short trace.
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
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>

#include "trace_src_impl.h"

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

typedef struct gz_state {
  struct inflate_state z;
  bool done;             /* the last member ended with the input */
  gz_ring ring;
} gz_state;

static void *gz_thread(void *arg);

/* The inflate state for a member starting at in[at]: ISAL_GZIP reads the
 * gzip header and checks the trailer's CRC and length. */
static void gz_member_start(gz_state *g) {
  isal_inflate_reset(&g->z);
  g->z.crc_flag = ISAL_GZIP;
}

static int gz_start(trace_src *s, diag *d) {
  gz_state *g = s->state = calloc(1, sizeof *g);
  if (!g) return diag_set(d, s->name, 0, "out of memory");
  gz_ring *r = &g->ring;
  r->wake[0] = r->wake[1] = -1; /* none yet: close closes only these */
  isal_inflate_init(&g->z);
  gz_member_start(g);
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

/* top_up for the gzip thread: one read() at a time, each once poll() says
 * the input has bytes (or has ended) and close has not woken the thread:
 * 0, or -1 with errno (ECANCELED: woken). */
static int gz_top_up(trace_src *s, size_t want) {
  gz_state *g = s->state;
  while (!s->in_eof && s->end - s->at < want) {
    struct pollfd p[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = g->ring.wake[0], .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (p[1].revents) {
      errno = ECANCELED;
      return -1;
    }
    if (trace_src_top_up(s, s->end - s->at + 1)) return -1;
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
  gz_state *g = s->state;
  const char *why = NULL;
  int next = trace_src_gzip_member_end(s, gz_top_up, &why, err);
  if (next == 0) g->done = true;
  if (next == 1) gz_member_start(g);
  return why;
}

/* Inflates into sl until it is full, the input read so far is used up or
 * the data ends; bad input ends it too, with sl->failed. The gzip
 * thread's work. */
static void gz_fill(trace_src *s, gz_slot *sl) {
  gz_state *g = s->state;
  struct inflate_state *z = &g->z;
  const char *why = NULL;
  int err = 0;
  z->next_out = sl->bytes;
  z->avail_out = SLOT_BYTES;
  while (z->avail_out && !g->done && !why && !err) {
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
                  .why = why, .err = err, .last = g->done || failed, .failed = failed};
}

/* Fills slots until the data ends or close asks it to stop. */
static void *gz_thread(void *arg) {
  trace_src *s = arg;
  gz_ring *r = &((gz_state *)s->state)->ring;
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

static int gz_read(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  gz_ring *r = &((gz_state *)s->state)->ring;
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
    if (sl->failed) return trace_src_fail(s, line, d, sl->why ? sl->why : strerror(sl->err));
    if (sl->last) return 0;
    gz_slot_done(r);
  }
}

static uint64_t gz_offset(const trace_src *s) { return ((const gz_state *)s->state)->ring.offset; }

/* Stops and joins the gzip thread (waiting for a slot, it sees stop;
 * waiting for input, the wake byte; inflating, it finishes the slot
 * first) and frees the ring. */
static void gz_stop(trace_src *s) {
  gz_state *g = s->state;
  if (!g) return;
  gz_ring *r = &g->ring;
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
  free(g);
}

const trace_codec_ops trace_src_gzip = {gz_start, gz_read, gz_offset, gz_stop};
