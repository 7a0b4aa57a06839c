/* One read of a trace fed to many machines: the replay window (skip,
 * warm-up, max) cut out of the blocks, and the machines split over threads
 * that meet at two barriers per block. */
#include "tlbsim/sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/num.h"

typedef struct sweep_pass sweep_pass;

/* Blocks each machine replays in a row (about 130 KiB each). */
#define SWEEP_BATCH 16

/* One thread's share: machines [first, first + count). */
typedef struct sweep_worker {
  sweep_pass *pass;
  size_t first, count;
  size_t failed; /* the machine that failed (the first of its share), or SIZE_MAX */
  diag d;
  pthread_t tid;
} sweep_worker;

struct sweep_pass {
  machine **m;
  size_t n;
  unsigned jobs;
  const trace_block *const *blocks; /* what the workers replay next, in order */
  size_t nblocks;
  const char *file;
  bool quit;
  pthread_barrier_t start, done;
  sweep_worker w[SWEEP_MAX_JOBS];
};

/* --- the window: which entries of a block each machine gets ------------- */

static bool is_access(const trace_block *b, size_t i, size_t other) {
  return b->acc[i].kind != TRACE_ACC_OTHER || b->other[other].kind == REC_ACCESS;
}

/* Copies entries [from, to) of in into out (whose `other` index at `from`
 * is other0), leaving out the accesses when drop_access is set. */
static void block_select(const trace_block *in, size_t from, size_t to, size_t other0, bool drop_access,
                         trace_block *out) {
  out->n = out->nother = 0;
  out->last_byte_or = 0;
  out->kinds = 0;
  for (size_t i = from, other = other0; i < to; i++) {
    const trace_acc *a = &in->acc[i];
    bool acc = is_access(in, i, other);
    if (a->kind == TRACE_ACC_OTHER) {
      if (!(drop_access && acc)) {
        out->other[out->nother++] = in->other[other];
        out->acc[out->n] = *a;
        out->line[out->n++] = in->line[i];
      }
      other++;
      continue;
    }
    if (drop_access) continue;
    out->acc[out->n] = *a;
    out->line[out->n++] = in->line[i];
    out->last_byte_or |= a->addr + (a->size - 1);
    out->kinds |= 1u << a->kind;
  }
}

/* --- the machines, on one thread or several ------------------------------- */

/* Each machine of the share replays every block of the batch before the
 * next machine starts: one machine's TLBs and tables stay in the cache
 * for SWEEP_BATCH blocks. */
static void run_share(sweep_worker *w) {
  sweep_pass *p = w->pass;
  for (size_t i = w->first; i < w->first + w->count && w->failed == SIZE_MAX; i++)
    for (size_t k = 0; k < p->nblocks; k++)
      if (machine_run_block(p->m[i], p->blocks[k], p->file, &w->d)) {
        w->failed = i;
        break;
      }
}

static void *worker_main(void *arg) {
  sweep_worker *w = arg;
  sweep_pass *p = w->pass;
  for (;;) {
    pthread_barrier_wait(&p->start);
    if (p->quit) return NULL;
    run_share(w);
    pthread_barrier_wait(&p->done);
  }
}

/* Every machine replays the blocks in order; -1 with the error of the
 * lowest-numbered machine that failed. */
static int feed(sweep_pass *p, const trace_block *const *blocks, size_t n, diag *d) {
  if (n == 0) return 0;
  p->blocks = blocks;
  p->nblocks = n;
  if (p->jobs > 1) pthread_barrier_wait(&p->start);
  run_share(&p->w[0]);
  if (p->jobs > 1) pthread_barrier_wait(&p->done);
  for (unsigned j = 0; j < p->jobs; j++)
    if (p->w[j].failed != SIZE_MAX) return *d = p->w[j].d, -1;
  return 0;
}

static int pass_start(sweep_pass *p, machine **m, size_t n, unsigned jobs, diag *d) {
  if (jobs > n) jobs = (unsigned)n;
  if (jobs < 1) jobs = 1;
  *p = (sweep_pass){.m = m, .n = n, .jobs = jobs};
  for (unsigned j = 0; j < jobs; j++)
    p->w[j] = (sweep_worker){.pass = p, .first = n * j / jobs, .count = n * (j + 1) / jobs - n * j / jobs,
                             .failed = SIZE_MAX};
  if (jobs == 1) return 0;
  if (pthread_barrier_init(&p->start, NULL, jobs) || pthread_barrier_init(&p->done, NULL, jobs))
    return diag_set(d, NULL, 0, "tlbsim sweep: cannot set up threads");
  /* A thread that cannot start is an error; those started before it stay
     parked at `start` (the process is about to report it and exit). */
  for (unsigned j = 1; j < jobs; j++)
    if (pthread_create(&p->w[j].tid, NULL, worker_main, &p->w[j]))
      return diag_set(d, NULL, 0, "tlbsim sweep: cannot start thread %u of %u", j + 1, jobs);
  return 0;
}

static void pass_stop(sweep_pass *p) {
  if (p->jobs == 1) return;
  p->quit = true;
  pthread_barrier_wait(&p->start);
  for (unsigned j = 1; j < p->jobs; j++) pthread_join(p->w[j].tid, NULL);
  pthread_barrier_destroy(&p->start);
  pthread_barrier_destroy(&p->done);
}

/* --- the replay ------------------------------------------------------------ */

typedef struct window_state {
  sweep_window w;
  uint64_t seen;  /* accesses read so far (skipped ones included) */
  bool warm;      /* the base snapshots are taken */
  bool stopped;   /* --max reached */
  bool reset;     /* at the warm-up's end the machines' counters restart (no base snapshots) */
  stats_snapshot *base;
  /* --interval: the next boundary (in seen), the next row's index, seen at
     the last row, and per machine the snapshot at the last row, one taken
     now and the difference (NULL without intervals). */
  uint64_t next_iv, iv_index, iv_end;
  stats_snapshot *prev, *now, *delta;
} window_state;

/* The next count of accesses at which something happens, past seen. */
static uint64_t next_mark(const window_state *s) {
  const sweep_window *w = &s->w;
  uint64_t marks[4] = {w->skip, num_add_sat(w->skip, w->warmup), w->max ? num_add_sat(w->skip, w->max) : UINT64_MAX,
                       w->interval ? s->next_iv : UINT64_MAX};
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 4; i++)
    if (marks[i] > s->seen && marks[i] < best) best = marks[i];
  return best;
}

static void take_all(machine **m, size_t n, stats_snapshot *out) {
  for (size_t i = 0; i < n; i++) stats_snapshot_take(m[i], &out[i]);
}

/* Takes every machine's statistics since the last interval row; hands
 * them to on_interval when `always` or anything happened since. */
static void emit_interval(machine **m, size_t n, window_state *s, bool always) {
  take_all(m, n, s->now);
  memcpy(s->delta, s->now, n * sizeof *s->delta);
  bool any = always || s->seen > s->iv_end;
  for (size_t i = 0; i < n; i++) {
    stats_snapshot_since(&s->delta[i], &s->prev[i]);
    any = any || s->delta[i].machine.records;
  }
  if (!any) return;
  sweep_interval iv = {.index = s->iv_index++, .accesses_end = s->seen, .snap = s->delta, .n = n};
  s->w.on_interval(s->w.ctx, &iv);
  memcpy(s->prev, s->now, n * sizeof *s->prev);
  s->iv_end = s->seen;
}

/* Blocks read ahead and not yet replayed: slot[0 .. n) hold whole blocks
 * in order, slot[SWEEP_BATCH] is where a block cut at a mark is built. */
typedef struct batch {
  trace_block *slot;
  const trace_block *order[SWEEP_BATCH];
  size_t n;
} batch;

static int flush(sweep_pass *p, batch *q, diag *d) {
  for (size_t k = 0; k < q->n; k++) q->order[k] = &q->slot[k];
  int rc = feed(p, q->order, q->n, d);
  q->n = 0;
  return rc;
}

/* Replays the block just read into slot[q->n] through the window: kept
 * whole in the batch when nothing happens inside it, else (after the
 * batch) cut at each mark. */
static int feed_window(sweep_pass *p, window_state *s, batch *q, diag *d) {
  const trace_block *b = &q->slot[q->n], *cut = &q->slot[SWEEP_BATCH];
  size_t from = 0, other = 0;
  while (from < b->n && !s->stopped) {
    bool skipping = s->seen < s->w.skip;
    uint64_t mark = next_mark(s);
    size_t to = from, other_to = other;
    while (to < b->n && s->seen < mark) {
      if (is_access(b, to, other_to)) s->seen++;
      if (b->acc[to].kind == TRACE_ACC_OTHER) other_to++;
      to++;
    }
    bool at_mark = s->seen == mark;
    if (!skipping && from == 0 && to == b->n) {
      q->n++;
      if ((q->n == SWEEP_BATCH || at_mark) && flush(p, q, d)) return -1;
    } else {
      block_select(b, from, to, other, skipping, &q->slot[SWEEP_BATCH]);
      if (flush(p, q, d) || feed(p, &cut, 1, d)) return -1;
    }
    if (s->w.warmup && !s->warm && s->seen == num_add_sat(s->w.skip, s->w.warmup)) {
      if (s->reset)
        for (size_t i = 0; i < p->n; i++) machine_reset_counters(p->m[i]);
      else take_all(p->m, p->n, s->base);
      s->warm = true;
      if (s->prev) memcpy(s->prev, s->base, p->n * sizeof *s->prev);
    }
    if (s->prev && s->seen == s->next_iv) {
      emit_interval(p->m, p->n, s, true);
      s->next_iv = num_add_sat(s->next_iv, s->w.interval);
    }
    if (s->w.max && s->seen == num_add_sat(s->w.skip, s->w.max)) s->stopped = true;
    from = to;
    other = other_to;
  }
  return 0;
}

static int replay(sweep_pass *p, trace_reader *r, window_state *s, diag *d) {
  batch q = {.slot = malloc((SWEEP_BATCH + 1) * sizeof *q.slot)};
  if (!q.slot) return diag_set(d, trace_get_path(r), 0, "out of memory");
  int rc;
  bool halted = false; /* by each_block */
  while (!s->stopped && (rc = trace_read_block(r, &q.slot[q.n], d)) == 1) {
    if (feed_window(p, s, &q, d)) {
      free(q.slot);
      return -1;
    }
    if (s->w.each_block && s->w.each_block(s->w.block_ctx, s->seen)) {
      halted = true;
      break;
    }
  }
  if (s->stopped || halted) rc = 0;
  /* What was read before the end (or a bad line) is replayed first: a
     machine's error on an earlier record comes before the reader's. */
  diag mine;
  if (flush(p, &q, &mine)) {
    *d = mine;
    rc = -1;
  }
  free(q.slot);
  return rc < 0 ? -1 : halted;
}

int sweep_replay_window(machine *m, trace_reader *r, const sweep_window *w, diag *d) {
  if (w->interval) return diag_set(d, NULL, 0, "sweep_replay_window: no intervals");
  sweep_pass *p = malloc(sizeof *p);
  if (!p) return diag_set(d, trace_get_path(r), 0, "out of memory");
  window_state s = {.w = *w, .reset = true};
  int rc = pass_start(p, &m, 1, 1, d);
  if (!rc) {
    p->file = trace_get_path(r);
    rc = replay(p, r, &s, d);
    pass_stop(p);
    /* A trace that ends within the warm-up leaves nothing counted. */
    if (rc >= 0 && w->warmup && !s.warm) machine_reset_counters(m);
  }
  free(p);
  return rc;
}

static void destroy_all(machine **m, size_t n) {
  for (size_t i = 0; i < n; i++) machine_destroy(m[i]);
  free(m);
}

int sweep_trace(const machine_spec *specs, size_t n, trace_reader *r, const sweep_window *w, unsigned jobs,
                stats_snapshot *out, diag *d) {
  machine **m = calloc(n ? n : 1, sizeof *m);
  stats_snapshot *base = calloc(n ? n : 1, sizeof *base);
  if (!m || !base) {
    free(m);
    free(base);
    return diag_set(d, NULL, 0, "tlbsim sweep: out of memory");
  }
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++)
    if (!(m[i] = machine_create(&specs[i], d))) rc = -1;
  sweep_pass *p = rc ? NULL : malloc(sizeof *p);
  if (!rc && !p) rc = diag_set(d, NULL, 0, "tlbsim sweep: out of memory");
  window_state s = {.w = *w, .base = base};
  if (!rc && w->interval && w->on_interval) {
    s.prev = calloc(3 * (n ? n : 1), sizeof *s.prev);
    if (!s.prev) rc = diag_set(d, NULL, 0, "tlbsim sweep: out of memory");
    else {
      s.now = s.prev + n;
      s.delta = s.now + n;
      take_all(m, n, s.prev);
      s.iv_end = num_add_sat(w->skip, w->warmup);
      s.next_iv = num_add_sat(s.iv_end, w->interval);
    }
  }
  if (!rc && pass_start(p, m, n, jobs, d)) {
    rc = -1;
    if (p->jobs > 1) p = NULL; /* threads may be parked in it: left to the exit */
  }
  if (!rc) {
    p->file = trace_get_path(r);
    rc = replay(p, r, &s, d);
    pass_stop(p);
    /* The accesses and records after the last interval row. */
    if (rc >= 0 && s.prev && (!w->warmup || s.warm)) emit_interval(m, n, &s, false);
    take_all(m, n, out);
    /* A trace that ends within the warm-up leaves nothing counted. */
    if (w->warmup && !s.warm) memcpy(base, out, n * sizeof *base);
    if (w->warmup)
      for (size_t i = 0; i < n; i++) stats_snapshot_since(&out[i], &base[i]);
  }
  free(p);
  free(base);
  free(s.prev);
  destroy_all(m, n);
  return rc;
}
