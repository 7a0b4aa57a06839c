/* kpipe.c — the memory path on a thread of its own (kpipe.h).
 *
 * Request i lives in slot i % KPIPE_REQUESTS of e[] and done[]; its lines
 * in lines[], contiguous (a run that would pass the ring's end starts
 * again at 0). `posted` (the model's) and `finished` (the path's) count
 * requests; each side writes only its own counter and reads the other's,
 * so the rings need no lock. The model publishes `posted` every
 * PUBLISH_EVERY requests and before it waits; the path publishes
 * `finished` after every request, since the model may be waiting for it.
 * A side about to sleep says so (path_sleeps, model_wants) and then looks
 * once more; the other side looks for that after it writes its counter,
 * both in sequential consistency, so one of them sees the other, and the
 * wake-up, under the lock, cannot come between a sleeper's last look and
 * its wait. */
#include "kpipe.h"

#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINES (8u * KPIPE_REQUESTS) /* lines in the ring: 8 a request before the model waits for room */
_Static_assert((KPIPE_REQUESTS & (KPIPE_REQUESTS - 1)) == 0 && (LINES & (LINES - 1)) == 0, "rings of powers of two");
_Static_assert(LINES >= 2 * KMEM_LINES_MAX, "room for a request's lines after a skip to the ring's start");
#define PUBLISH_EVERY 16u
/* Requests the model waits to see finished when the ring is full: a wait
 * for each one would bounce the counters' lines between the cores at
 * every request. */
#define ROOM (KPIPE_REQUESTS / 8)
/* How long a side looks before it sleeps: pauses, then yields of its core
 * (on two cores the trace's reader threads share them). */
#define SPINS 256
#define YIELDS 512

enum { OP_ACCESS, OP_RESET };

typedef struct entry {
  gdev_req r;  /* OP_ACCESS's */
  uint32_t at;  /* its lines' start in lines[] */
  uint8_t kind; /* OP_... */
} entry;

struct kpipe { // NOLINT(clang-analyzer-optin.performance.Padding): each side's counters on lines of their own
  gdev *path;
  entry *e;            /* [KPIPE_REQUESTS] */
  double *done;        /* [KPIPE_REQUESTS]: the path's times */
  kmem_line *lines;    /* [LINES] */
  uint64_t *line_from; /* [KPIPE_REQUESTS]: where request i's lines begin, counted from the first line */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake_path, wake_model;
  /* the model's */
  uint64_t next;      /* requests posted */
  uint64_t line_next; /* lines taken, counted from the first */
  uint64_t seen;      /* `finished` when the model last looked: it looks again only when that is too few
                         (each look after the path moved on is a line from the other core) */
  /* each written by one side, apart so that neither's writes take the other's reads' lines */
  alignas(64) _Atomic uint64_t posted;
  alignas(64) _Atomic uint64_t finished;
  alignas(64) _Atomic uint64_t failed_at; /* the first request that failed (UINT64_MAX: none); err is its error */
  diag err;
  alignas(64) _Atomic uint64_t model_wants; /* 0, or the `finished` a sleeping model waits for */
  _Atomic bool path_sleeps;
  _Atomic bool stop;
};

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t finished(const kpipe *k) { return atomic_load_explicit(&k->finished, memory_order_acquire); }

static void wake(kpipe *k, pthread_cond_t *c) {
  pthread_mutex_lock(&k->lock);
  pthread_cond_signal(c);
  pthread_mutex_unlock(&k->lock);
}

/* --- the path's thread ---------------------------------------------------- */

/* Request i, served (after every one before it). */
static void serve(kpipe *k, uint64_t i) {
  const entry *e = &k->e[i % KPIPE_REQUESTS];
  if (atomic_load_explicit(&k->failed_at, memory_order_relaxed) != UINT64_MAX) return; /* stopped at its error */
  if (e->kind == OP_RESET) gdev_reset_stats(k->path);
  else if (gdev_access(k->path, &e->r, k->lines + e->at, &k->done[i % KPIPE_REQUESTS], &k->err))
    atomic_store_explicit(&k->failed_at, i, memory_order_relaxed); /* published with finished */
}

/* Until request i is posted: false once stop is set and it is not. */
static bool await_posted(kpipe *k, uint64_t i) {
  for (unsigned n = 0; n < SPINS + YIELDS; n++) {
    if (atomic_load_explicit(&k->posted, memory_order_acquire) > i) return true;
    if (atomic_load_explicit(&k->stop, memory_order_acquire)) break;
    if (n < SPINS) relax();
    else sched_yield();
  }
  pthread_mutex_lock(&k->lock);
  atomic_store(&k->path_sleeps, true);
  while (atomic_load(&k->posted) == i && !atomic_load(&k->stop)) pthread_cond_wait(&k->wake_path, &k->lock);
  atomic_store(&k->path_sleeps, false);
  pthread_mutex_unlock(&k->lock);
  return atomic_load(&k->posted) > i;
}

static void *run(void *arg) {
  kpipe *k = arg;
  for (uint64_t i = 0;; i++) {
    if (atomic_load_explicit(&k->posted, memory_order_acquire) == i && !await_posted(k, i)) return NULL;
    if (atomic_load_explicit(&k->posted, memory_order_acquire) > i + 1) { /* its L1 sets while this one is served */
      const entry *e = &k->e[(i + 1) % KPIPE_REQUESTS];
      if (e->kind == OP_ACCESS) gdev_prefetch(k->path, &e->r, k->lines + e->at);
    }
    serve(k, i);
    atomic_store(&k->finished, i + 1);
    uint64_t want = atomic_load(&k->model_wants);
    if (want && i + 1 >= want) wake(k, &k->wake_model);
  }
}

/* --- the model's side -------------------------------------------------- */

static bool thread_wanted(unsigned jobs) { return jobs > 1 || (!jobs && sysconf(_SC_NPROCESSORS_ONLN) > 1); }

static void free_pipe(kpipe *k) {
  free(k->e);
  free(k->done);
  free(k->lines);
  free(k->line_from);
  free(k);
}

kpipe *kpipe_start(gdev *p, unsigned jobs) {
  if (!thread_wanted(jobs)) return NULL;
  kpipe *k = aligned_alloc(64, sizeof *k); /* (a multiple of its 64-byte alignment) */
  if (!k) return NULL;
  memset(k, 0, sizeof *k);
  k->path = p;
  atomic_init(&k->posted, 0);
  atomic_init(&k->finished, 0);
  atomic_init(&k->failed_at, UINT64_MAX);
  atomic_init(&k->model_wants, 0);
  atomic_init(&k->path_sleeps, false);
  atomic_init(&k->stop, false);
  k->e = malloc(KPIPE_REQUESTS * sizeof *k->e);
  k->done = malloc(KPIPE_REQUESTS * sizeof *k->done);
  k->lines = malloc(LINES * sizeof *k->lines);
  k->line_from = malloc(KPIPE_REQUESTS * sizeof *k->line_from);
  bool ok = k->e && k->done && k->lines && k->line_from;
  if (ok) {
    pthread_mutex_init(&k->lock, NULL);
    pthread_cond_init(&k->wake_path, NULL);
    pthread_cond_init(&k->wake_model, NULL);
    if (!(ok = !pthread_create(&k->thread, NULL, run, k))) {
      pthread_cond_destroy(&k->wake_path);
      pthread_cond_destroy(&k->wake_model);
      pthread_mutex_destroy(&k->lock);
    }
  }
  if (!ok) {
    free_pipe(k);
    return NULL;
  }
  return k;
}

void kpipe_stop(kpipe *k) {
  if (!k) return;
  pthread_mutex_lock(&k->lock);
  atomic_store(&k->stop, true);
  atomic_store(&k->posted, k->next); /* what it has not seen yet, it serves first */
  pthread_cond_signal(&k->wake_path);
  pthread_mutex_unlock(&k->lock);
  pthread_join(k->thread, NULL);
  pthread_cond_destroy(&k->wake_path);
  pthread_cond_destroy(&k->wake_model);
  pthread_mutex_destroy(&k->lock);
  free_pipe(k);
}

uint64_t kpipe_posted(const kpipe *k) { return k->next; }

/* Everything posted visible to the path, which is woken if it sleeps. */
static void publish(kpipe *k) {
  atomic_store(&k->posted, k->next);
  if (atomic_load(&k->path_sleeps)) wake(k, &k->wake_path);
}

/* The model's look at `finished`. */
static uint64_t look(kpipe *k) { return k->seen = finished(k); }

/* Until the path has finished `target` requests (that many posted). */
static void await_finished(kpipe *k, uint64_t target) {
  if (k->seen >= target || look(k) >= target) return;
  publish(k);
  for (unsigned n = 0; n < SPINS + YIELDS; n++) {
    if (look(k) >= target) return;
    if (n < SPINS) relax();
    else sched_yield();
  }
  pthread_mutex_lock(&k->lock);
  atomic_store(&k->model_wants, target);
  while (atomic_load(&k->finished) < target) pthread_cond_wait(&k->wake_model, &k->lock);
  atomic_store(&k->model_wants, 0);
  pthread_mutex_unlock(&k->lock);
  look(k);
}

/* Whether the path failed before request `upto` (d: its error); upto at
 * most what `finished` has shown. */
static int failed(const kpipe *k, uint64_t upto, diag *d) {
  if (atomic_load_explicit(&k->failed_at, memory_order_relaxed) >= upto) return 0;
  *d = k->err;
  return -1;
}

/* Room for request `next`, and for n lines after line_next: where they go. */
static uint64_t room(kpipe *k, unsigned n) {
  if (k->next - k->seen >= KPIPE_REQUESTS && k->next - look(k) >= KPIPE_REQUESTS)
    await_finished(k, k->next - KPIPE_REQUESTS + ROOM);
  uint64_t at = k->line_next;
  if (at % LINES + n > LINES) at += LINES - at % LINES; /* contiguous: from the ring's start */
  for (bool looked = false;; looked = true) { /* the lines of the requests not yet finished, from the oldest's first */
    uint64_t f = looked ? look(k) : k->seen, used_from = f < k->next ? k->line_from[f % KPIPE_REQUESTS] : at;
    if (at + n - used_from <= LINES) return at;
    if (looked) await_finished(k, f + ROOM < k->next ? f + ROOM : k->next);
  }
}

/* The next request's entry, with room for n lines from its at; NULL with
 * d set when the path has failed. */
static entry *next_entry(kpipe *k, unsigned n, uint8_t kind, diag *d) {
  if (failed(k, k->seen, d)) return NULL;
  uint64_t at = room(k, n), i = k->next;
  entry *e = &k->e[i % KPIPE_REQUESTS];
  e->kind = kind;
  e->at = (uint32_t)(at % LINES);
  k->line_from[i % KPIPE_REQUESTS] = at;
  k->line_next = at + n;
  return e;
}

/* The entry next_entry gave, posted. */
static void posted(kpipe *k) {
  if (++k->next % PUBLISH_EVERY == 0) publish(k);
}

int kpipe_post(kpipe *k, const gdev_req *r, const kmem_line *lines, uint64_t *seq, diag *d) {
  *seq = k->next;
  entry *e = next_entry(k, r->n, OP_ACCESS, d);
  if (!e) return -1;
  e->r = *r;
  if (r->n) memcpy(k->lines + e->at, lines, r->n * sizeof *lines);
  posted(k);
  return 0;
}

int kpipe_post_reset(kpipe *k, diag *d) {
  if (!next_entry(k, 0, OP_RESET, d)) return -1;
  posted(k);
  return 0;
}

int kpipe_done(kpipe *k, uint64_t seq, double *done, diag *d) {
  await_finished(k, seq + 1);
  if (failed(k, seq + 1, d)) return -1;
  *done = k->done[seq % KPIPE_REQUESTS];
  return 0;
}

int kpipe_drain(kpipe *k, diag *d) {
  await_finished(k, k->next);
  return failed(k, k->next, d);
}
