/* kmodel.c — a kernel's warps on the SMs, on the timing engine (see
 * tlbsim/kmodel.h): the warps' issue and the loads' returns are the
 * engine's events. A memory instruction's lines go down the memory path
 * (gdev.h: coalesced lines through the L1, translation, the L2 and DRAM,
 * booked through the stages when it issues) by the pipe (kpipe.h), on a
 * thread of its own where one runs; the model asks for a load's time
 * before its events could reach it. */
#include "tlbsim/kmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpipe.h"
#include "tlbsim/engine.h"
#include "tlbsim/launch.h"

#define REGS 256
#define REG_LINE 8 /* register times a host line holds */
#define REG_NONE 255 /* RZ */


/* An event's kind: bit 0 EV_WARP or EV_LOAD; a warp's carries where its
 * next instruction's code starts above it (schedule_warp), for prefetch
 * only. */
enum { EV_WARP, EV_LOAD };

/* What the issue of one instruction reads, decoded when its block starts
 * (decode) into the slot's code, rather than the block's eight arrays and
 * the opcode table on every issue. With every SM simulated a warp's next
 * instruction is out of the caches by its turn, so the code is as short
 * as it can be (about 5 bytes an instruction, a 64-byte line for a dozen):
 *   byte 0: the class (tb->cls) | KCODE_MEM (translated, with addresses:
 *           down the memory path) | KCODE_INT (the integer pipe's: ktrace_op)
 *   byte 1: nd | ns << 4: destination registers (dest_regs), then the
 *           sources the scoreboard tests (RZ left out)
 *   byte 2: its hold (tb->hold: cycles before the warp's next issue)
 *   then the nd + ns register numbers;
 *   then, with KCODE_MEM, the instruction's kaccess (KACCESS_BYTES), so
 *   that its issue reads nothing else of the block but its lines and its
 *   trace line (which the memory path names in an error).
 * A memory instruction's 32 lanes are coalesced into lines then too, into
 * the slot's lines: its turn reads a line or two of the host's (16 bytes
 * a line) where its addresses were four (32 lanes of 8 bytes), and with
 * every SM simulated the resident blocks' addresses are a hundred
 * megabytes, read at random: as many host misses a memory instruction as
 * the L2's look-ups (bench/README.md, round 12). */
#define KCODE_MEM 0x80
#define KCODE_INT 0x40
#define KCODE_CLS 0x3f
_Static_assert(KTRACE_NCLASSES <= KCODE_CLS + 1, "a class fits below KCODE_INT");
#define KACCESS_BYTES 6
#define KCODE_HEAD 3
#define KCODE_MAX (KCODE_HEAD + 8 + KTRACE_SRC_MAX + KACCESS_BYTES)

/* What the memory path gets of one instruction: lines[at .. at + n - 1],
 * its lanes coalesced (kmem_coalesce), of the slot's lines. */
typedef struct kaccess {
  uint32_t at;
  uint8_t n; /* at most KMEM_LINES_MAX */
  bool store, l2_only;
} kaccess;
_Static_assert(KMEM_LINES_MAX <= UINT8_MAX, "a kaccess's lines fit its byte");

typedef struct kslot { /* a resident block */
  ktrace_tb *tb;
  uint8_t *code;   /* its instructions in turn, as above */
  uint32_t *at;    /* [tb->ninst]: where instruction i's code starts */
  size_t cap_code; /* bytes */
  uint32_t cap_inst;
  kmem_line *lines; /* its memory instructions' lines, in turn, each instruction's after a kmem_line
                       whose .line is its trace line (sectors 0): what its request names, read with
                       its lines rather than from the block's arrays */
  size_t cap_lines;
  uint32_t sm, warps_left;
  bool busy;
} kslot;

/* One 64-byte line (build aligns them): a warp's turn reads this, its
 * code and its registers, and little else. */
typedef struct kwarp {
  uint32_t slot, pc, end; /* its block slot, next and end instruction */
  uint32_t at;            /* where instruction pc's code starts in the slot's */
  uint32_t loads;         /* loads in flight that write its registers */
  uint8_t sched;          /* its scheduler (at most 64: gpu.c) */
  bool waiting;           /* on a register a load writes */
  bool draining;          /* past its last instruction, waiting for its loads */
  double since;
  uint64_t set[REGS / 64]; /* bit r: ready[r] written since the block started (else it reads 0) */
} kwarp;

typedef struct kload { /* a load in flight: whose registers it writes */
  uint32_t warp;
  uint8_t nreg, reg[8];
  uint32_t next_free;
} kload;

typedef struct ksm {
  double *sched_free; /* per scheduler: when it issues next; then when its integer pipe is free */
} ksm;

/* A load posted to the memory path whose time the model has not asked
 * for yet: it asks before its events reach t + the path's lead. */
typedef struct kpending {
  uint64_t seq; /* the pipe's request */
  double t;     /* its warp's event (no later than its issue) */
  uint32_t load;
} kpending;

typedef struct kmodel {
  const kmodel_spec *spec;
  const gpu_config *g;
  gdev *path;
  kpipe *pipe;
  double lead; /* gdev_lead: a load's data is back no sooner after its issue */
  kpending *pending; /* loads whose times are still the path's, oldest first (a ring) */
  size_t pend_head, npend, cap_pend;
  uint32_t nsms, resident, wpb;
  uint32_t schedulers; /* per SM, at least 1 */
  launch_plan plan; /* where the first wave's blocks run (launch.h) */
  ksm *sm;
  kslot *slot;
  kwarp *warp;
  double *ready; /* per warp slot, reg_stride register times (INFINITY: a load pending) */
  uint32_t reg_stride; /* past the highest register a block so far names, in whole host lines: a
                          warp's registers are a line or three apart, not REGS' 2 KiB */
  kload *load;
  uint32_t nload, cap_load, free_load;
  engine ev;
  /* the block stream */
  const kmodel_source *src;
  ktrace_tb *skip;
  uint64_t next_block; /* index of the next block the source gives */
  bool src_done;
  const char *file;
  kmodel_result *res;
  diag *d;
  double end;
} kmodel;

/* --- set-up ----------------------------------------------------------- */

static int oom(kmodel *m) { return diag_set(m->d, NULL, 0, "kernel model: out of memory"); }

static int build(kmodel *m, const ktrace_kernel *k) {
  const gpu_config *g = m->g;
  if (!g->sms) return diag_set(m->d, NULL, 0, "kernel model: the configuration has no [gpu] section");
  const kmodel_spec *ks = m->spec;
  gdev_spec dev = {.sys = ks->sys, .gpu = ks->gpu, .table = ks->table, .groups = ks->groups, .fault = ks->fault,
                   .fault_ctx = ks->fault_ctx};
  if (!(m->path = gdev_new(&dev, m->file, m->d))) return -1;
  /* a block of threads not whole warps takes its last warp's room whole */
  launch_geometry lg = {.grid = k->blocks, .block = k->warps_per_block * 32};
  if (launch_place(g, &lg, &m->plan, m->d)) {
    char why[DIAG_MSG_MAX];
    snprintf(why, sizeof why, "%s", m->d->msg);
    return diag_set(m->d, k->file, 0, "kernel %s: %s", k->name, why);
  }
  m->resident = m->plan.resident;
  m->wpb = k->warps_per_block;
  m->nsms = gdev_sms(m->path);
  m->lead = gdev_lead(m->path);
  m->res->sms = m->nsms;
  m->res->share = gdev_share(m->path);
  m->sm = calloc(m->nsms, sizeof *m->sm);
  size_t slots = (size_t)m->nsms * m->resident, warps = slots * m->wpb;
  m->slot = calloc(slots, sizeof *m->slot);
  _Static_assert(sizeof(kwarp) == 64, "a warp is one cache line");
  if ((m->warp = aligned_alloc(64, (warps ? warps : 1) * sizeof *m->warp))) memset(m->warp, 0, warps * sizeof *m->warp);
  m->reg_stride = REG_LINE;
  m->ready = malloc((warps ? warps : 1) * m->reg_stride * sizeof *m->ready);
  if (!m->sm || !m->slot || !m->warp || !m->ready || !(m->skip = ktrace_tb_new())) return oom(m);
  m->schedulers = g->schedulers ? g->schedulers : 1;
  for (uint32_t i = 0; i < m->nsms; i++)
    if (!(m->sm[i].sched_free = calloc(2 * (size_t)m->schedulers, sizeof(double)))) return oom(m);
  for (size_t s = 0; s < slots; s++) {
    m->slot[s].sm = (uint32_t)(s % m->nsms);
    if (!(m->slot[s].tb = ktrace_tb_new())) return oom(m);
  }
  m->pipe = kpipe_start(m->path, m->spec->jobs); /* NULL: the path in this thread */
  return 0;
}

static void teardown(kmodel *m) {
  kpipe_stop(m->pipe); /* its thread first: it reads the path */
  gdev_free(m->path);
  for (uint32_t i = 0; m->sm && i < m->nsms; i++) free(m->sm[i].sched_free);
  for (size_t s = 0; m->slot && s < (size_t)m->nsms * m->resident; s++) {
    ktrace_tb_free(m->slot[s].tb);
    free(m->slot[s].code);
    free(m->slot[s].at);
    free(m->slot[s].lines);
  }
  ktrace_tb_free(m->skip);
  free(m->sm);
  free(m->slot);
  free(m->warp);
  free(m->ready);
  free(m->load);
  free(m->pending);
  engine_free(&m->ev);
}

/* --- the block stream -------------------------------------------------- */

/* Whether block b runs on a simulated SM, and on which (the measured rule,
 * launch_entry: its entry of block_order; simulated SM i is entry i). */
static bool kept(const kmodel *m, uint64_t b, uint32_t *sm) {
  uint32_t e = launch_entry(&m->plan, m->g, b);
  *sm = e;
  return e < m->nsms;
}

/* The next block for a simulated SM into tb: 1, 0 at the end, -1. */
static int next_kept(kmodel *m, ktrace_tb *tb, uint64_t *index) {
  for (;;) {
    uint32_t sm;
    bool keep = kept(m, m->next_block, &sm);
    ktrace_tb *into = keep ? tb : m->skip;
    int got = m->src->next(m->src->ctx, into, m->d);
    if (got <= 0) return got;
    *index = m->next_block++;
    m->res->kernel_blocks++;
    m->res->kernel_warp_instructions += into->ninst;
    for (uint32_t i = 0; i < into->ninst; i++) m->res->kernel_memory_instructions += into->cls[i] != KTRACE_NONE;
    if (keep) return 1;
  }
}

/* --- one instruction's memory ------------------------------------------ */

/* Instruction i's lanes coalesced into lines (room for KMEM_LINES_MAX
 * there): its kaccess, its lines from `at` on. */
static kaccess access_of(const ktrace_tb *tb, uint32_t i, kmem_line *lines, uint32_t at) {
  unsigned cls = tb->cls[i];
  const ktrace_op *op = &tb->ops[tb->op[i]];
  unsigned n = kmem_coalesce(tb->addr + tb->addr_at[i], tb->addr_at[i + 1] - tb->addr_at[i], op->width, lines + at);
  return (kaccess){.at = at, .n = (uint8_t)n, .l2_only = op->l2_only,
                   .store = cls == KTRACE_GLOBAL_STORE || cls == KTRACE_LOCAL_STORE || cls == KTRACE_GLOBAL_ATOMIC};
}

static void access_put(uint8_t *c, const kaccess *a) {
  memcpy(c, &a->at, 4);
  c[4] = a->n;
  c[5] = (uint8_t)(a->store | a->l2_only << 1);
}

static kaccess access_get(const uint8_t *c) {
  kaccess a = {.n = c[4], .store = c[5] & 1, .l2_only = c[5] >> 1 & 1};
  memcpy(&a.at, c, 4);
  return a;
}

/* --- warps -------------------------------------------------------------- */

static double *regs_of(kmodel *m, uint32_t w) { return m->ready + (size_t)w * m->reg_stride; }

/* Room in every warp slot for registers below `top`: the warps in flight
 * keep theirs, at the new stride. */
static int regs_room(kmodel *m, unsigned top) {
  if (top <= m->reg_stride) return 0;
  uint32_t stride = (top + REG_LINE - 1) / REG_LINE * REG_LINE, old = m->reg_stride;
  size_t warps = (size_t)m->nsms * m->resident * m->wpb;
  double *grown = realloc(m->ready, (warps ? warps : 1) * stride * sizeof *grown);
  if (!grown) return oom(m);
  for (size_t w = warps; w-- > 0;) memmove(grown + w * stride, grown + w * old, old * sizeof *grown);
  m->ready = grown;
  m->reg_stride = stride;
  return 0;
}

/* Registers instruction i writes: each destination and, for a load of
 * more than 4 bytes a lane, the registers after it (a 64-bit load writes
 * a pair). */
static unsigned dest_regs(const ktrace_tb *tb, uint32_t i, uint8_t out[8]) {
  unsigned n = 0, width = tb->ops[tb->op[i]].width, per = width > 4 ? width / 4 : 1;
  for (unsigned k = 0; k < tb->ndst[i]; k++)
    for (unsigned r = 0; r < per && n < 8; r++)
      if (tb->dst[i][k] != REG_NONE && tb->dst[i][k] + r < REG_NONE) out[n++] = (uint8_t)(tb->dst[i][k] + r);
  return n;
}

/* Room in the slot for the block's code: at most KCODE_MAX bytes an
 * instruction. */
static int code_room(kmodel *m, kslot *sl, uint32_t ninst) {
  if (ninst > sl->cap_inst) {
    uint32_t *grown = realloc(sl->at, ninst * sizeof *grown);
    if (!grown) return oom(m);
    sl->at = grown;
    sl->cap_inst = ninst;
  }
  size_t bytes = (size_t)ninst * KCODE_MAX;
  if (bytes > sl->cap_code) {
    uint8_t *grown = realloc(sl->code, bytes);
    if (!grown) return oom(m);
    sl->code = grown;
    sl->cap_code = bytes;
  }
  return 0;
}

/* Room in the slot for a trace line and KMEM_LINES_MAX lines after the
 * first `used`. */
static int lines_room(kmodel *m, kslot *sl, uint32_t used) {
  if (sl->cap_lines - used > KMEM_LINES_MAX) return 0;
  size_t cap = sl->cap_lines ? 2 * sl->cap_lines : 4096;
  if (cap > UINT32_MAX) return diag_set(m->d, m->file, 0, "a thread block touches more than 2^32 lines");
  kmem_line *grown = realloc(sl->lines, cap * sizeof *grown);
  if (!grown) return oom(m);
  sl->lines = grown;
  sl->cap_lines = cap;
  return 0;
}

/* The block's instructions as issue reads them, into its slot's code and
 * lines. */
static int decode(kmodel *m, kslot *sl) {
  const ktrace_tb *tb = sl->tb;
  if (code_room(m, sl, tb->ninst)) return -1;
  uint8_t *c = sl->code;
  uint32_t lines = 0;
  unsigned top = 0; /* past its highest register */
  for (uint32_t i = 0; i < tb->ninst; i++) {
    sl->at[i] = (uint32_t)(c - sl->code);
    unsigned nd = dest_regs(tb, i, c + KCODE_HEAD), ns = 0;
    for (unsigned j = 0; j < tb->nsrc[i]; j++)
      if (tb->src[i][j] != REG_NONE) c[KCODE_HEAD + nd + ns++] = tb->src[i][j];
    for (unsigned k = 0; k < nd + ns; k++)
      if (c[KCODE_HEAD + k] >= top) top = c[KCODE_HEAD + k] + 1u;
    bool mem = ktrace_class_is_translated(tb->cls[i]) && tb->addr_at[i + 1] > tb->addr_at[i];
    c[0] = (uint8_t)(tb->cls[i] | (mem ? KCODE_MEM : 0) | (tb->ops[tb->op[i]].int_pipe ? KCODE_INT : 0));
    c[1] = (uint8_t)(nd | ns << 4);
    c[2] = tb->hold[i];
    c += KCODE_HEAD + nd + ns;
    if (mem) {
      if (lines_room(m, sl, lines)) return -1;
      sl->lines[lines++] = (kmem_line){.line = tb->line[i]};
      kaccess a = access_of(tb, i, sl->lines, lines);
      lines += a.n;
      access_put(c, &a);
      c += KACCESS_BYTES;
    }
  }
  return regs_room(m, top);
}

/* Register r's ready time: 0 until written in the block (kwarp's set). */
static inline double reg_ready(const kwarp *w, const double *ready, unsigned r) {
  return w->set[r >> 6] >> (r & 63) & 1 ? ready[r] : 0;
}

static inline void reg_write(kwarp *w, double *ready, unsigned r, double t) {
  w->set[r >> 6] |= 1ull << (r & 63);
  ready[r] = t;
}

static int start_block(kmodel *m, uint32_t s, double t);

/* Warp wi's next issue at t; past its last instruction its code is none
 * (what lies there is an earlier block's). */
static int schedule_warp(kmodel *m, double t, uint32_t wi) {
  const kwarp *w = &m->warp[wi];
  uint32_t at = w->pc < w->end ? w->at & (UINT32_MAX >> 1) : UINT32_MAX >> 1;
  return engine_schedule(&m->ev, t, wi, EV_WARP | at << 1) ? oom(m) : 0;
}

/* What an event will read, asked for in three steps while the events
 * before it run (engine_soon gives them in their order): with a block's
 * warps on every SM interleaved, a warp's state, its next instruction,
 * its registers and its lines are all out of the caches by its turn, and
 * each step reads what the step before fetched. Changes nothing but when
 * memory is fetched. */

/* How many events ahead of the next one the first two steps run (the
 * third runs for the next): a step's lead is the events between. */
#define PREFETCH_STATE 16
#define PREFETCH_REGS 8

/* The code of a warp event's instruction, or NULL. */
static const uint8_t *event_code(const kmodel *m, const engine_event *ev) {
  if ((ev->kind & 1) != EV_WARP) return NULL;
  const kslot *sl = &m->slot[ev->id / m->wpb];
  uint32_t at = ev->kind >> 1;
  return at < sl->cap_code ? sl->code + at : NULL;
}

/* Step 1: the warp (or the load) and the instruction's code. */
static void prefetch_state(const kmodel *m, const engine_event *ev) {
  if ((ev->kind & 1) == EV_LOAD) {
    __builtin_prefetch(&m->load[ev->id]);
    return;
  }
  __builtin_prefetch(&m->warp[ev->id]);
  const uint8_t *c = event_code(m, ev);
  if (c) __builtin_prefetch(c);
}

/* Step 2: the registers it tests or writes and the instruction's lines. */
static void prefetch_regs(const kmodel *m, const engine_event *ev) {
  const double *ready = m->ready + (size_t)((ev->kind & 1) == EV_LOAD ? m->load[ev->id].warp : ev->id) * m->reg_stride;
  if ((ev->kind & 1) == EV_LOAD) {
    const kload *l = &m->load[ev->id];
    for (unsigned k = 0; k < l->nreg; k++) __builtin_prefetch(&ready[l->reg[k]], 1);
    __builtin_prefetch(&m->warp[l->warp], 1);
    return;
  }
  const uint8_t *c = event_code(m, ev);
  if (!c) return;
  unsigned ntest = (c[1] & 15) + (c[1] >> 4);
  for (unsigned k = 0; k < ntest; k++) __builtin_prefetch(&ready[c[KCODE_HEAD + k]]);
  if (!(c[0] & KCODE_MEM)) return;
  const kslot *sl = &m->slot[ev->id / m->wpb];
  kaccess a = access_get(c + KCODE_HEAD + ntest);
  if (!a.at || a.at + (size_t)a.n > sl->cap_lines) return; /* (kind's offset wraps at 2^31) */
  uintptr_t p = (uintptr_t)(sl->lines + a.at - 1) & ~(uintptr_t)63, e = (uintptr_t)(sl->lines + a.at + a.n);
  for (; p < e; p += 64) __builtin_prefetch((const void *)p); /* its trace line and its lines */
}

/* Step 3: for a load, the code of the warp it may wake (which comes
 * next, ahead of what steps 1 and 2 saw); for a memory instruction, when
 * the path runs in this thread, the L1's sets of its lines (the path's
 * thread asks for its own). */
static void prefetch_next(const kmodel *m, const engine_event *ev) {
  if ((ev->kind & 1) == EV_LOAD) {
    const kwarp *w = &m->warp[m->load[ev->id].warp];
    const kslot *sl = &m->slot[w->slot];
    if (w->at < sl->cap_code) __builtin_prefetch(&sl->code[w->at]);
    return;
  }
  if (m->pipe) return;
  const uint8_t *c = event_code(m, ev);
  if (!c || !(c[0] & KCODE_MEM)) return;
  const kslot *sl = &m->slot[ev->id / m->wpb];
  kaccess a = access_get(c + KCODE_HEAD + (c[1] & 15) + (c[1] >> 4));
  if (a.at + (size_t)a.n > sl->cap_lines) return; /* (kind's offset wraps at 2^31) */
  gdev_req r = {.sm = sl->sm, .n = a.n, .store = a.store, .l2_only = a.l2_only};
  gdev_prefetch(m->path, &r, sl->lines + a.at);
}

/* A warp's block is done with it at t: the block's slot takes the next
 * block once all its warps are. */
static int warp_done(kmodel *m, uint32_t wi, double t) {
  kslot *sl = &m->slot[m->warp[wi].slot];
  if (t > m->end) m->end = t;
  if (--sl->warps_left) return 0;
  sl->busy = false;
  return start_block(m, m->warp[wi].slot, t);
}

static int new_load(kmodel *m, uint32_t wi, const uint8_t *reg, unsigned n, uint32_t *id) {
  if (m->free_load == UINT32_MAX) {
    if (m->nload == m->cap_load) {
      uint32_t cap = m->cap_load ? 2 * m->cap_load : 4096;
      kload *grown = realloc(m->load, cap * sizeof *grown);
      if (!grown) return oom(m);
      m->load = grown;
      m->cap_load = cap;
    }
    m->free_load = m->nload++;
    m->load[m->free_load].next_free = UINT32_MAX;
  }
  *id = m->free_load;
  kload *l = &m->load[*id];
  m->free_load = l->next_free;
  l->warp = wi;
  l->nreg = (uint8_t)n;
  memcpy(l->reg, reg, n);
  return 0;
}

/* --- the memory path's times ------------------------------------------- */

/* The oldest pending load's time from the path, as its event. */
static int settle_oldest(kmodel *m) {
  kpending *p = &m->pending[m->pend_head];
  double done;
  if (kpipe_done(m->pipe, p->seq, &done, m->d)) return -1;
  m->pend_head = (m->pend_head + 1) % m->cap_pend;
  m->npend--;
  return engine_schedule(&m->ev, done, p->load, EV_LOAD) ? oom(m) : 0;
}

/* The pending loads whose data could come before the engine's next event
 * or with it (each no sooner than its warp's event plus the lead; the
 * oldest is the soonest): their events join the engine before it goes on,
 * so the order is one thread's. */
static int settle(kmodel *m) {
  while (m->npend) {
    double next;
    int any = engine_peek(&m->ev, &next);
    if (any < 0) return oom(m);
    if (any && m->pending[m->pend_head].t + m->lead > next) return 0;
    if (settle_oldest(m)) return -1;
  }
  return 0;
}

/* Load `load` of the path's request seq, issued by an event at t. */
static int pend(kmodel *m, uint64_t seq, double t, uint32_t load) {
  if (m->npend == m->cap_pend) { /* the ring doubles: the loads wrapped before its head go after its old end */
    size_t cap = m->cap_pend ? 2 * m->cap_pend : 1024;
    kpending *grown = realloc(m->pending, cap * sizeof *grown);
    if (!grown) return -1;
    memcpy(grown + m->cap_pend, grown, m->pend_head * sizeof *grown);
    m->pending = grown;
    m->cap_pend = cap;
  }
  m->pending[(m->pend_head + m->npend++) % m->cap_pend] = (kpending){.seq = seq, .t = t, .load = load};
  return 0;
}

/* r through the memory path: at once, its time in *done, when the path
 * runs in this thread; else posted to its thread, its number in *seq. A
 * load pending as many requests back takes its time first (the pipe
 * reuses its slot): its event is no less in the future than when due. */
static int issue(kmodel *m, const gdev_req *r, const kmem_line *lines, uint64_t *seq, double *done) {
  if (!m->pipe) return gdev_access(m->path, r, lines, done, m->d);
  while (m->npend && m->pending[m->pend_head].seq + KPIPE_REQUESTS <= kpipe_posted(m->pipe))
    if (settle_oldest(m)) return -1;
  return kpipe_post(m->pipe, r, lines, seq, m->d);
}

/* Warp wi issues its next instruction, at t or when it can. */
static int warp_step(kmodel *m, uint32_t wi, double t) {
  kwarp *w = &m->warp[wi];
  kslot *sl = &m->slot[w->slot];
  double *ready = regs_of(m, wi);
  if (w->pc == w->end) { /* done once its loads are back: their registers are its slot's */
    if (!w->loads) return warp_done(m, wi, t);
    w->draining = true;
    return 0;
  }
  const uint8_t *code = sl->code + w->at, *dst = code + KCODE_HEAD;
  unsigned nd = code[1] & 15, ntest = nd + (code[1] >> 4);
  double at = t;
  for (unsigned k = 0; k < ntest; k++) { /* the order is the max's: none */
    double r = reg_ready(w, ready, dst[k]);
    if (isinf(r)) { /* a load's register: wait for it (the scoreboard) */
      w->waiting = true;
      w->since = t;
      return 0;
    }
    if (r > at) at = r;
  }
  double *sf = &m->sm[sl->sm].sched_free[w->sched];
  if (*sf > at) at = *sf;
  if (code[0] & KCODE_INT) { /* its pipe takes the warp's 32 lanes int_issue_cycles; the warp waits */
    double *pipe = sf + m->schedulers; /* for it holding the scheduler */
    if (*pipe > at) at = *pipe;
    *pipe = at + (m->g->int_issue_cycles > 1 ? m->g->int_issue_cycles : 1);
  }
  *sf = at + 1;
  m->res->warp_instructions++;
  unsigned cls = code[0] & KCODE_CLS;
  w->pc++;
  w->at += KCODE_HEAD + ntest;
  if (code[0] & KCODE_MEM) {
    m->res->memory_instructions++;
    w->at += KACCESS_BYTES;
    kaccess a = access_get(code + KCODE_HEAD + ntest);
    gdev_req r = {.t = at, .src_line = sl->lines[a.at - 1].line, .sm = sl->sm, .n = a.n, .store = a.store, .l2_only = a.l2_only};
    uint64_t seq = 0;
    double done = at;
    if (issue(m, &r, sl->lines + a.at, &seq, &done)) return -1;
    if (nd) {
      uint32_t id = 0;
      if (new_load(m, wi, dst, nd, &id)) return -1;
      for (unsigned k = 0; k < nd; k++) reg_write(w, ready, dst[k], INFINITY);
      w->loads++;
      /* an atomic's registers at its issue, a load's when its data is back: the path's time, which
       * the model asks its thread for when its events could reach it */
      if (m->pipe && !a.store ? pend(m, seq, t, id) : engine_schedule(&m->ev, done, id, EV_LOAD)) return oom(m);
    }
  } else {
    if (cls != KTRACE_NONE) m->res->memory_instructions++;
    double lat = cls == KTRACE_NONE ? m->g->alu_cycles : m->g->l1_hit_cycles;
    for (unsigned k = 0; k < nd; k++) reg_write(w, ready, dst[k], at + lat);
  }
  return schedule_warp(m, at + (code[2] > 1 ? code[2] : 1), wi); /* its hold: ptxas's stall count */
}

static int load_back(kmodel *m, uint32_t id, double t) {
  kload *l = &m->load[id];
  uint32_t wi = l->warp;
  double *ready = regs_of(m, wi);
  kwarp *w = &m->warp[wi];
  for (unsigned k = 0; k < l->nreg; k++) reg_write(w, ready, l->reg[k], t);
  l->next_free = m->free_load;
  m->free_load = id;
  w->loads--;
  if (w->draining) return w->loads ? 0 : warp_done(m, wi, t);
  if (!w->waiting) return 0;
  w->waiting = false;
  m->res->stall_cycles += t - w->since;
  return schedule_warp(m, t, wi);
}

/* Slot s takes the next block of its SM at t, or waits in the queue. */
static int start_block(kmodel *m, uint32_t s, double t) {
  kslot *sl = &m->slot[s];
  uint64_t index;
  int got = m->src_done ? 0 : next_kept(m, sl->tb, &index);
  if (got < 0) return -1;
  if (!got) {
    m->src_done = true;
    return 0;
  }
  if (decode(m, sl)) return -1;
  sl->busy = true;
  sl->warps_left = sl->tb->nwarps;
  m->res->blocks++;
  if (!sl->tb->nwarps) return start_block(m, s, t);
  for (uint32_t k = 0; k < sl->tb->nwarps && k < m->wpb; k++) {
    uint32_t wi = s * m->wpb + k;
    kwarp *w = &m->warp[wi];
    uint32_t first = sl->tb->first[k];
    *w = (kwarp){.slot = s, .pc = first, .end = first + sl->tb->count[k], .at = first < sl->tb->ninst ? sl->at[first] : 0,
                 .sched = (uint8_t)(sl->tb->warp[k] % m->schedulers)};
    m->res->warps++; /* its registers read 0 (set is clear) */
    if (schedule_warp(m, t, wi)) return -1;
  }
  if (sl->tb->nwarps > m->wpb) return diag_set(m->d, m->file, 0, "a thread block lists more warps than its block dim holds");
  return 0;
}

/* --- the two passes ------------------------------------------------------ */

/* The warm-up: every kept block's memory instructions, state only. */
static int warm(kmodel *m, const kmodel_source *src) {
  m->src = src;
  m->next_block = 0;
  ktrace_tb *tb = m->slot[0].tb;
  kmem_line lines[KMEM_LINES_MAX];
  uint64_t b, seq;
  double done;
  int got;
  while ((got = next_kept(m, tb, &b)) == 1) {
    uint32_t sm;
    kept(m, b, &sm);
    for (uint32_t i = 0; i < tb->ninst; i++) {
      if (!ktrace_class_is_translated(tb->cls[i]) || tb->addr_at[i + 1] <= tb->addr_at[i]) continue;
      kaccess a = access_of(tb, i, lines, 0);
      gdev_req r = {.t = -1, .src_line = tb->line[i], .sm = sm, .n = a.n, .store = a.store, .l2_only = a.l2_only};
      if (issue(m, &r, lines, &seq, &done)) return -1;
    }
  }
  return got;
}

static int timed(kmodel *m, const kmodel_source *src) {
  m->src = src;
  m->next_block = 0;
  m->src_done = false;
  if (!m->pipe) gdev_reset_stats(m->path);
  else if (kpipe_post_reset(m->pipe, m->d)) return -1;
  /* the first wave: each block on a slot of its SM (SM i's slots: i, i + nsms, ...) */
  uint32_t slots = m->nsms * m->resident, *used = calloc(m->nsms, sizeof *used);
  if (!used) return oom(m);
  for (uint32_t k = 0; k < slots && !m->src_done; k++) {
    uint32_t sm = m->nsms, s = 0; /* the SM of the next kept block, if any */
    for (uint64_t b = m->next_block; b < m->plan.grid && sm == m->nsms; b++)
      if (!kept(m, b, &sm)) sm = m->nsms;
    if (sm < m->nsms && used[sm] < m->resident) s = sm + m->nsms * used[sm]++;
    else while (m->slot[s].busy) s++; /* not the rule's: any free slot */
    if (start_block(m, s, 0)) return free(used), -1;
  }
  free(used);
  for (;;) {
    if (settle(m)) return -1;
    engine_event ev;
    int got = engine_next(&m->ev, &ev);
    if (got < 0) return oom(m);
    if (!got) return m->pipe ? kpipe_drain(m->pipe, m->d) : 0;
    size_t n;
    const engine_event *soon = engine_soon(&m->ev, PREFETCH_STATE + 1, &n);
    if (n > PREFETCH_STATE) prefetch_state(m, &soon[PREFETCH_STATE]);
    if (n > PREFETCH_REGS) prefetch_regs(m, &soon[PREFETCH_REGS]);
    if (n) prefetch_next(m, &soon[0]);
    int rc = (ev.kind & 1) == EV_WARP ? warp_step(m, ev.id, ev.t) : load_back(m, ev.id, ev.t);
    if (rc) return -1;
  }
}

static void finish(kmodel *m) {
  kmodel_result *r = m->res;
  /* a launch lasts at least the L2's and DRAM's work: what no warp waits
   * for (stores) still takes their time, which back-to-back launches, as
   * the suite times them, must absorb */
  double mem = gdev_memory_end(m->path);
  if (mem > m->end) m->end = mem;
  r->cycles = m->end;
  r->ns = m->end / m->g->clock_ghz + m->g->stream_launch_ns;
  gdev_counts c;
  gdev_report(m->path, m->end > 0 ? m->end : 1, &c);
  r->lines = c.lines, r->sectors = c.sectors;
  r->l1_hits = c.l1_hits, r->l2_hits = c.l2_hits, r->l2_lines = c.l2_lines;
  r->dram_sectors = c.dram_sectors, r->dram_rows = c.dram_rows;
  r->translations = c.translations;
  memcpy(r->served, c.served, sizeof r->served);
  r->walk_reads = c.walk_reads, r->walk_reads_dram = c.walk_reads_dram;
  r->translation_cycles = c.translation_cycles;
  memcpy(r->busy, c.busy, sizeof r->busy);
}

int kmodel_run(const kmodel_spec *s, const kmodel_source *warm_src, const kmodel_source *timed_src,
               kmodel_result *out, diag *d) {
  *out = (kmodel_result){0};
  kmodel m = {.spec = s, .g = s->gpu, .res = out, .d = d, .free_load = UINT32_MAX, .file = timed_src->kernel->file};
  engine_init(&m.ev);
  int rc = build(&m, timed_src->kernel);
  if (!rc && warm_src && warm_src->next) rc = warm(&m, warm_src) < 0 ? -1 : 0;
  if (!rc) {
    *out = (kmodel_result){.sms = out->sms, .share = out->share};
    if (timed_src->rewind) timed_src->rewind(timed_src->ctx);
    rc = timed(&m, timed_src);
  }
  /* an error of the model's own: one the path met on a request posted before it came first */
  if (rc && m.pipe) kpipe_drain(m.pipe, d);
  if (!rc) finish(&m);
  teardown(&m);
  return rc;
}

unsigned kmodel_limit(const kmodel_result *r) {
  unsigned best = 0;
  for (unsigned i = 1; i < GDEV_STAGES; i++)
    if (r->busy[i] > r->busy[best]) best = i;
  return best;
}
