/* ktrace_ahead.c — a kernel's thread blocks read on a thread ahead of the
 * model (tlbsim/ktrace_ahead.h).
 *
 * Slot i % KTRACE_AHEAD_SLOTS holds the kernel's i-th block; `filled` and
 * `taken` count blocks, under `lock`. The thread waits while the ring is
 * full, the caller while it is empty (trace_ahead.c's scheme, for
 * ktrace_tb), and each side wakes the other only once half the ring has
 * changed (or the blocks ended): a wake-up costs a system call and, in a
 * virtual machine, tens of microseconds, and a sampled model takes most
 * blocks only to count them, as fast as they come, so waking it for every
 * block cost more than reading ahead saved (the GPU machine's host,
 * --groups 4: 2.24 s -> 2.9 s). The thread ends after a ktrace_next_tb that returned 0 or -1,
 * or when stop is set while it waits for a slot; the caller joins it when
 * it takes that result, so from then on its calls go to the reader, which
 * repeats the end or the error. Whether to run a thread at all is the
 * trace module's decision for its fill thread (trace_ahead_wanted: never in
 * the browser build, which has no threads).
 */
#include "tlbsim/ktrace_ahead.h"

#include <pthread.h>
#include <stdlib.h>

#include "trace_ahead.h"

typedef struct slot {
  ktrace_tb *tb;
  int rc;
  diag d;
} slot;

struct ktrace_ahead {
  ktrace_reader *r;
  bool wanted;            /* jobs asks for a thread */
  bool running;           /* a thread was started and not yet joined */
  slot s[KTRACE_AHEAD_SLOTS]; /* tb NULL until the first begin */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t data, room; /* the caller waits for blocks, the thread for free slots */
  uint64_t filled, taken;    /* under lock */
  bool data_wanted, room_wanted; /* under lock: the caller, the thread waits */
  bool stop;                 /* under lock: end wants the thread gone */
};

ktrace_ahead *ktrace_ahead_new(ktrace_reader *r, unsigned jobs) {
  ktrace_ahead *a = calloc(1, sizeof *a);
  if (!a) return NULL;
  a->r = r;
  a->wanted = trace_ahead_wanted(jobs);
  pthread_mutex_init(&a->lock, NULL);
  pthread_cond_init(&a->data, NULL);
  pthread_cond_init(&a->room, NULL);
  return a;
}

static void *read_ahead(void *arg) {
  ktrace_ahead *a = arg;
  for (uint64_t i = 0;; i++) {
    pthread_mutex_lock(&a->lock);
    while (i - a->taken == KTRACE_AHEAD_SLOTS && !a->stop) {
      a->room_wanted = true;
      pthread_cond_wait(&a->room, &a->lock);
    }
    a->room_wanted = false;
    bool stop = a->stop;
    pthread_mutex_unlock(&a->lock);
    if (stop) return NULL;
    slot *s = &a->s[i % KTRACE_AHEAD_SLOTS];
    s->rc = ktrace_next_tb(a->r, s->tb, &s->d);
    pthread_mutex_lock(&a->lock);
    a->filled = i + 1;
    if (a->data_wanted && (a->filled - a->taken >= KTRACE_AHEAD_SLOTS / 2 || s->rc <= 0))
      pthread_cond_signal(&a->data);
    pthread_mutex_unlock(&a->lock);
    if (s->rc <= 0) return NULL;
  }
}

/* The ring's blocks: false when out of memory (then no thread). */
static bool ring(ktrace_ahead *a) {
  for (unsigned i = 0; i < KTRACE_AHEAD_SLOTS; i++)
    if (!a->s[i].tb && !(a->s[i].tb = ktrace_tb_new())) return false;
  return true;
}

void ktrace_ahead_begin(ktrace_ahead *a) {
  ktrace_ahead_end(a);
  if (!a->wanted || !ring(a)) return;
  a->filled = a->taken = 0;
  a->stop = false;
  a->running = !pthread_create(&a->thread, NULL, read_ahead, a);
}

static void swap_tb(ktrace_tb *x, ktrace_tb *y) {
  ktrace_tb t = *x;
  *x = *y;
  *y = t;
}

int ktrace_ahead_next_tb(ktrace_ahead *a, ktrace_tb *tb, diag *d) {
  if (!a->running) return ktrace_next_tb(a->r, tb, d);
  pthread_mutex_lock(&a->lock);
  while (a->filled == a->taken) {
    a->data_wanted = true;
    pthread_cond_wait(&a->data, &a->lock);
  }
  a->data_wanted = false;
  pthread_mutex_unlock(&a->lock);
  slot *s = &a->s[a->taken % KTRACE_AHEAD_SLOTS];
  int rc = s->rc;
  if (rc > 0) swap_tb(tb, s->tb);
  else if (rc < 0) *d = s->d;
  pthread_mutex_lock(&a->lock);
  a->taken++;
  if (a->room_wanted && a->filled - a->taken <= KTRACE_AHEAD_SLOTS / 2) pthread_cond_signal(&a->room);
  pthread_mutex_unlock(&a->lock);
  if (rc <= 0) ktrace_ahead_end(a); /* the thread has returned: the reader repeats rc from here */
  return rc;
}

void ktrace_ahead_end(ktrace_ahead *a) {
  if (!a->running) return;
  pthread_mutex_lock(&a->lock);
  a->stop = true;
  pthread_cond_signal(&a->room);
  pthread_mutex_unlock(&a->lock);
  pthread_join(a->thread, NULL);
  a->running = false;
}

void ktrace_ahead_free(ktrace_ahead *a) {
  if (!a) return;
  ktrace_ahead_end(a);
  for (unsigned i = 0; i < KTRACE_AHEAD_SLOTS; i++) ktrace_tb_free(a->s[i].tb);
  pthread_cond_destroy(&a->data);
  pthread_cond_destroy(&a->room);
  pthread_mutex_destroy(&a->lock);
  free(a);
}
