/* kmodel.c — a kernel's warps on the SMs, their loads through coalescing,
 * the L1, translation, the L2 and DRAM, on the timing engine (see
 * tlbsim/kmodel.h). Each request's path is booked through the stages when
 * its instruction issues; the warps' issue and the loads' returns are the
 * engine's events. */
#include "tlbsim/kmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/engine.h"
#include "tlbsim/gather.h"
#include "tlbsim/kmem.h"
#include "tlbsim/launch.h"
#include "tlbsim/pt.h"

#define REGS 256
#define REG_LINE 8 /* register times a host line holds */
#define REG_NONE 255 /* RZ */
#define BAND_WIDTH 16.0
#define BAND_BINS (1u << 16)

const char *const kmodel_stage_names[KMODEL_STAGES] = {"issue", "l2_tlb", "l3_tlb", "walk", "l2", "dram_rows", "dram"};

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
 *           memory() runs) | KCODE_INT (the integer pipe's: ktrace_op)
 *   byte 1: nd | ns << 4: destination registers (dest_regs), then the
 *           sources the scoreboard tests (RZ left out)
 *   byte 2: its hold (tb->hold: cycles before the warp's next issue)
 *   then the nd + ns register numbers;
 *   then, with KCODE_MEM, the instruction's kaccess (KACCESS_BYTES), so
 *   that memory() reads nothing else of the block but its lines.
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

/* What memory() reads of one instruction: lines[at .. at + n - 1], its
 * lanes coalesced (kmem_coalesce), of the slot's or the warm-up's lines. */
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
  kmem_line *lines; /* its memory instructions' lines, in turn */
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

/* What one page's walk read past the walker's line cache (its observer
 * copies it from the walker_result): each entry's physical address, to be
 * replayed as a request to the L2 and, where the L2 misses, DRAM. `fixed`
 * is the rest of the walk's cycles (walk_cycles, line-cache hits). A walk
 * repeated after the fault handler mapped the page reads again, so room
 * for two. */
typedef struct kwalk {
  uint8_t n;
  uint64_t fixed;
  uint64_t pa[2 * PT_MAX_LEVELS];
} kwalk;

typedef struct ksm {
  mmu *mmu;
  uint32_t group;
  unsigned part; /* its L2 partition */
  engine_stage lsu, l1_miss;
  double *sched_free; /* per scheduler: when it issues next; then when its integer pipe is free */
  kmem_cache *l1;
} ksm;

typedef struct kmodel {
  const kmodel_spec *spec;
  const gpu_config *g;
  gather_levels levels;
  int where[MMU_MAX_LEVELS];
  hwsystem *sys;
  uint32_t nsms, ngroups, resident, wpb;
  uint32_t schedulers; /* per SM, at least 1 */
  launch_plan plan; /* where the first wave's blocks run (launch.h) */
  double share;
  ksm *sm;
  engine_band *grp_l2; /* per group */
  engine_band l3, walk, l2data, dram_rows, dram;
  kmem_l2 *l2;
  kmem_dram *banks;
  kwalk *walk_into; /* where the observer puts the walk of the page being translated */
  double gmmu_cycles; /* a page-table read's cost beyond its L2 hit (walk_ref_cycles - data_cycles) */
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
  uint32_t *fifo; /* slots waiting for a block, first come first served */
  uint32_t nfifo, fifo_head;
  const char *file;
  kmodel_result *res;
  diag *d;
  double end;
} kmodel;

/* --- set-up ----------------------------------------------------------- */

static uint32_t sm_group(const void *ctx, unsigned level, unsigned agent) {
  const kmodel *m = ctx;
  return (int)level == m->levels.level[1] ? m->sm[agent].group : 0;
}

static int oom(kmodel *m) { return diag_set(m->d, NULL, 0, "kernel model: out of memory"); }

/* The observer's walk event: the entries read from memory go to
 * walk_into, the walk's other cycles to its fixed part. */
static void walk_seen(void *ctx, uint64_t va, const walker_result *w) {
  (void)va;
  kwalk *k = ((kmodel *)ctx)->walk_into;
  if (!k) return;
  uint64_t reads = 0;
  for (unsigned i = 0; i < w->walk.nsteps; i++) {
    const walker_step *s = &w->step[i];
    if (!s->read || s->line_hit || k->n == sizeof k->pa / sizeof k->pa[0]) continue;
    k->pa[k->n++] = s->entry.entry_pa;
    reads += s->cycles;
  }
  k->fixed += w->cycles - reads;
}

/* A cache of the share `frac` of `bytes`, at least one set. */
static uint64_t cache_bytes(uint64_t bytes, double frac, uint32_t ways) {
  uint64_t b = (uint64_t)((double)bytes * frac), least = (uint64_t)(ways ? ways : 1) << KMEM_LINE_SHIFT;
  return b > least ? b : least;
}

/* The L2 at the simulated SMs' share, and each partition's near copies at
 * the share of its own SMs simulated (so a sample's SMs each see what they
 * would on the whole GPU). */
static int make_l2(kmodel *m) {
  const gpu_config *g = m->g;
  unsigned parts = g->l2_parts > 1 ? g->l2_parts : 0;
  uint32_t on[KMEM_L2_PARTS] = {0}, sim[KMEM_L2_PARTS] = {0};
  for (uint32_t s = 0; parts && s < g->sms; s++) on[g->l2_part[s] % parts]++;
  for (uint32_t i = 0; i < m->nsms; i++) {
    m->sm[i].part = parts ? g->l2_part[g->block_order[i]] % parts : 0;
    sim[m->sm[i].part]++;
  }
  uint64_t near[KMEM_L2_PARTS];
  for (unsigned p = 0; p < parts; p++)
    near[p] = cache_bytes(g->l2_bytes / parts, on[p] ? (double)sim[p] / on[p] : 0, g->l2_ways);
  m->l2 = kmem_l2_create(cache_bytes(g->l2_bytes, m->share, g->l2_ways), g->l2_ways, parts, near, m->d);
  return m->l2 ? 0 : -1;
}

static int build(kmodel *m, const ktrace_kernel *k) {
  const gpu_config *g = m->g;
  if (!g->sms) return diag_set(m->d, NULL, 0, "kernel model: the configuration has no [gpu] section");
  if (gather_path(&m->spec->sys->mmu, &m->levels, m->d)) return -1;
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) m->where[l] = 3;
  for (unsigned i = 0; i < 3; i++)
    if (m->levels.level[i] >= 0) m->where[m->levels.level[i]] = (int)i;
  /* a block of threads not whole warps takes its last warp's room whole */
  launch_geometry lg = {.grid = k->blocks, .block = k->warps_per_block * 32};
  if (launch_place(g, &lg, &m->plan, m->d)) {
    char why[DIAG_MSG_MAX];
    snprintf(why, sizeof why, "%s", m->d->msg);
    return diag_set(m->d, k->file, 0, "kernel %s: %s", k->name, why);
  }
  m->resident = m->plan.resident;
  m->wpb = k->warps_per_block;
  uint32_t gs = m->levels.group_sms ? m->levels.group_sms : 1, all = (g->sms + gs - 1) / gs;
  m->ngroups = m->spec->groups && m->spec->groups < all ? m->spec->groups : all;
  m->nsms = m->ngroups * gs < g->sms ? m->ngroups * gs : g->sms;
  m->share = (double)m->nsms / g->sms;
  m->res->sms = m->nsms;
  m->res->share = m->share;
  m->sm = calloc(m->nsms, sizeof *m->sm);
  m->grp_l2 = calloc(m->ngroups, sizeof *m->grp_l2);
  size_t slots = (size_t)m->nsms * m->resident, warps = slots * m->wpb;
  m->slot = calloc(slots, sizeof *m->slot);
  _Static_assert(sizeof(kwarp) == 64, "a warp is one cache line");
  if ((m->warp = aligned_alloc(64, (warps ? warps : 1) * sizeof *m->warp))) memset(m->warp, 0, warps * sizeof *m->warp);
  m->reg_stride = REG_LINE;
  m->ready = malloc((warps ? warps : 1) * m->reg_stride * sizeof *m->ready);
  m->fifo = malloc((slots + 1) * sizeof *m->fifo);
  if (!m->sm || !m->grp_l2 || !m->slot || !m->warp || !m->ready || !m->fifo || !(m->skip = ktrace_tb_new()))
    return oom(m);
  m->schedulers = g->schedulers ? g->schedulers : 1;
  for (uint32_t i = 0; i < m->nsms; i++) {
    m->sm[i].group = i / gs;
    if (!(m->sm[i].sched_free = calloc(2 * (size_t)m->schedulers, sizeof(double)))) return oom(m);
    if (g->l1_bytes && !(m->sm[i].l1 = kmem_cache_create(g->l1_bytes, g->l1_ways, m->d))) return -1;
  }
  for (size_t s = 0; s < slots; s++) {
    m->slot[s].sm = (uint32_t)(s % m->nsms);
    if (!(m->slot[s].tb = ktrace_tb_new())) return oom(m);
  }
  for (uint32_t i = 0; i < m->ngroups; i++)
    if (engine_band_init(&m->grp_l2[i], BAND_WIDTH, BAND_BINS)) return oom(m);
  if (engine_band_init(&m->l3, BAND_WIDTH, BAND_BINS) || engine_band_init(&m->walk, BAND_WIDTH, BAND_BINS) ||
      engine_band_init(&m->l2data, BAND_WIDTH, BAND_BINS) || engine_band_init(&m->dram_rows, BAND_WIDTH, BAND_BINS) ||
      engine_band_init(&m->dram, BAND_WIDTH, BAND_BINS))
    return oom(m);
  if (make_l2(m)) return -1;
  unsigned row_shift = log2_u64(g->dram_row_bytes ? g->dram_row_bytes : 1024);
  uint32_t banks = (uint32_t)ceil(g->dram_banks * m->share);
  if (!(m->banks = kmem_dram_create(banks ? banks : 1, row_shift, m->d))) return -1;
  system_layout layout = {.group = sm_group, .ctx = m};
  if (!(m->sys = system_create(m->spec->sys, m->spec->table, &layout, m->d))) return -1;
  if (m->spec->fault) system_set_fault_handler(m->sys, m->spec->fault, m->spec->fault_ctx);
  mmu_observer watch = {.ctx = m, .walk = walk_seen};
  for (uint32_t i = 0; i < m->nsms; i++) {
    if (!(m->sm[i].mmu = system_agent(m->sys, i, m->d))) return -1;
    mmu_set_observer(m->sm[i].mmu, &watch);
  }
  /* walk_ref_cycles is what a read cost the one-thread chase (chase.csv past 256 GiB: 340), less than
   * DRAM's 689: its lines were in the L2, and the GMMU adds this much to an L2 hit */
  const memsys_config *mem = &m->spec->sys->mem;
  m->gmmu_cycles = mem->table_cycles > mem->data_cycles ? (double)(mem->table_cycles - mem->data_cycles) : 0;
  return 0;
}

static void teardown(kmodel *m) {
  system_destroy(m->sys);
  for (uint32_t i = 0; m->sm && i < m->nsms; i++) {
    free(m->sm[i].sched_free);
    kmem_cache_destroy(m->sm[i].l1);
  }
  for (uint32_t i = 0; m->grp_l2 && i < m->ngroups; i++) engine_band_free(&m->grp_l2[i]);
  engine_band_free(&m->l3);
  engine_band_free(&m->walk);
  engine_band_free(&m->l2data);
  engine_band_free(&m->dram_rows);
  engine_band_free(&m->dram);
  kmem_l2_destroy(m->l2);
  kmem_dram_destroy(m->banks);
  for (size_t s = 0; m->slot && s < (size_t)m->nsms * m->resident; s++) {
    ktrace_tb_free(m->slot[s].tb);
    free(m->slot[s].code);
    free(m->slot[s].at);
    free(m->slot[s].lines);
  }
  ktrace_tb_free(m->skip);
  free(m->sm);
  free(m->grp_l2);
  free(m->slot);
  free(m->warp);
  free(m->ready);
  free(m->fifo);
  free(m->load);
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

static double l2_line(kmodel *m, unsigned part, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit);

/* A walk's entries read one after the other from t (each needs the one
 * before: it names the next table), as the GMMU's requests to the L2 and
 * DRAM below it: when the last is back (t < 0: the L2's state only). */
static double walk_reads(kmodel *m, double t, const kwalk *w) {
  kmodel_result *r = m->res;
  bool timed = t >= 0;
  if (timed) t += (double)w->fixed;
  for (unsigned i = 0; i < w->n; i++) {
    uint64_t pa = w->pa[i];
    bool hit;
    double back = l2_line(m, KMEM_L2_HOME, t, pa >> KMEM_LINE_SHIFT,
                          (uint8_t)(1u << ((pa >> KMEM_SECTOR_SHIFT) & 3)), false, &hit);
    if (!timed) continue;
    r->walk_reads++;
    r->walk_reads_dram += !hit;
    t = back + m->gmmu_cycles;
  }
  return t;
}

/* A line's translation booked from t (its page's outcome o, its walk w):
 * when it is done. */
static double translate_time(kmodel *m, uint32_t smi, double t, const mmu_outcome *o, unsigned where,
                             const kwalk *w) {
  ksm *sm = &m->sm[smi];
  const gpu_config *g = m->g;
  m->res->served[where]++;
  if (where >= 1) {
    t = engine_stage_pass(&sm->l1_miss, t, g->l1_miss_interval);
    t = engine_band_take(&m->grp_l2[sm->group], t, g->l2_interval);
  }
  if (where >= 2) t = engine_band_take(&m->l3, t, g->l3_interval / m->share);
  if (where < 3) return t + (double)o->tlb_cycles;
  t = engine_band_take(&m->walk, t, g->walk_interval / m->share);
  return walk_reads(m, t + (double)o->tlb_cycles, w);
}

/* DRAM's time per sector written. */
static double write_interval(const gpu_config *g) {
  return g->dram_write_sector_interval > 0 ? g->dram_write_sector_interval : g->dram_sector_interval;
}

/* A dirty line the L2 evicted at t goes to DRAM (no one waits for it). */
static void write_back(kmodel *m, double t, const kmem_evict *e) {
  if (!e->dirty) return;
  bool row_hit = kmem_dram_access(m->banks, e->line << KMEM_LINE_SHIFT);
  if (t < 0) return;
  const gpu_config *g = m->g;
  unsigned n = kmem_sectors(e->dirty);
  m->res->dram_sectors += n;
  m->res->dram_rows += !row_hit;
  if (!row_hit) t = engine_band_take(&m->dram_rows, t, g->dram_row_interval / m->share);
  engine_band_take(&m->dram, t, n * write_interval(g) / m->share);
}

/* A line from the L2 on, for a request of L2 partition `part`: when its
 * data is back (timed), or only the state changes (t < 0: the warm-up);
 * *hit: whether the L2 served it (a store always is). A read is served by
 * the partition, the rest of the L2 (l2_far_cycles later) or DRAM; a
 * store, which nobody waits for, stays in the L2 (l2_write_back: DRAM
 * takes its sectors when the line is evicted) or passes on to DRAM. */
static double l2_line(kmodel *m, unsigned part, double t, uint64_t pa_line, uint8_t sectors, bool store, bool *hit) {
  const gpu_config *g = m->g;
  kmem_l2_got got = {0};
  if (store) kmem_l2_write(m->l2, pa_line, sectors, g->l2_write_back, &got.evict);
  else kmem_l2_read(m->l2, part, pa_line, sectors, &got);
  uint8_t miss = store ? (g->l2_write_back ? 0 : sectors) : (uint8_t)(sectors & ~(got.near | got.far));
  *hit = !miss || store;
  bool row_hit = !miss || kmem_dram_access(m->banks, pa_line << KMEM_LINE_SHIFT);
  double back = t;
  if (t >= 0) {
    kmodel_result *r = m->res;
    double bytes = kmem_sectors(sectors) * g->l2_sector_interval;
    t = engine_band_take(&m->l2data, t, (bytes > g->data_interval ? bytes : g->data_interval) / m->share);
    back = t + m->spec->sys->mem.data_cycles + (got.near == sectors ? 0 : g->l2_far_cycles);
    if (miss) {
      unsigned n = kmem_sectors(miss);
      r->dram_sectors += n;
      r->dram_rows += !row_hit;
      if (!row_hit) t = engine_band_take(&m->dram_rows, t, g->dram_row_interval / m->share);
      double per = store ? write_interval(g) : g->dram_sector_interval;
      back = engine_band_take(&m->dram, t, n * per / m->share) + g->dram_cycles;
    }
  }
  write_back(m, t, &got.evict);
  return back;
}

/* A line's time in the SM's load path: one request, or its bytes at the
 * L1 data path's width when that is longer. */
static double lsu_cycles(const gpu_config *g, uint8_t sectors) {
  double bytes = (double)(kmem_sectors(sectors) << KMEM_SECTOR_SHIFT);
  double data = g->l1_bytes_per_cycle > 0 ? bytes / g->l1_bytes_per_cycle : 0;
  return data > g->issue_interval ? data : g->issue_interval;
}

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

/* Instruction i of tb on SM smi, its access a of `lines`, issued at t
 * (t < 0: the warm-up, state only): when its data is back; -1 (m->d) on an
 * address outside every mapping. Its lines pass the load path and the L1
 * one by one; those the L1 misses are translated, once per page. When any page misses its L1
 * TLB the instruction goes on whole: every page it needs is looked up in
 * the L2 TLB, hits included (gather.csv: the cost follows the distinct
 * entries of a missing instruction, tlbsim/gather.h). */
static int memory(kmodel *m, uint32_t smi, const ktrace_tb *tb, uint32_t i, const kaccess *a,
                  const kmem_line *lines, double t, double *done) {
  bool store = a->store, l2_only = a->l2_only;
  const kmem_line *line = lines + a->at;
  unsigned nl = a->n;
  ksm *sm = &m->sm[smi];
  bool timed = t >= 0, any_miss = false;
  double end = t, line_t[KMEM_LINES_MAX], page_t[KMEM_LINES_MAX];
  uint64_t page_va[KMEM_LINES_MAX];
  mmu_outcome page_o[KMEM_LINES_MAX];
  kwalk page_w[KMEM_LINES_MAX];
  unsigned npages = 0, page_of[KMEM_LINES_MAX], nmiss = 0, miss[KMEM_LINES_MAX];
  uint64_t pa_of[KMEM_LINES_MAX];
  bool l1 = !store && !l2_only && sm->l1;
  for (unsigned j = 0; l1 && j < nl; j++) kmem_cache_prefetch(sm->l1, line[j].line); /* the look-ups overlap */
  for (unsigned j = 0; j < nl; j++) {
    line_t[j] = timed ? engine_stage_pass(&sm->lsu, t, lsu_cycles(m->g, line[j].sectors)) : -1;
    if (timed) m->res->lines++, m->res->sectors += kmem_sectors(line[j].sectors);
    uint8_t held = l1 ? kmem_cache_access(sm->l1, line[j].line, line[j].sectors, false, NULL) : 0;
    bool l1hit = held == line[j].sectors;
    if (l1hit && timed) {
      m->res->l1_hits++;
      if (line_t[j] + m->g->l1_hit_cycles > end) end = line_t[j] + m->g->l1_hit_cycles;
    }
    if (l1hit) continue;
    uint64_t va = line[j].line << KMEM_LINE_SHIFT;
    unsigned p = 0;
    while (p < npages && (va >> page_o[p].page_shift) != (page_va[p] >> page_o[p].page_shift)) p++;
    if (p == npages) {
      page_w[p].n = 0, page_w[p].fixed = 0;
      m->walk_into = &page_w[p];
      mmu_translate(sm->mmu, va, store ? ACC_WRITE : ACC_READ, &page_o[p]);
      m->walk_into = NULL;
      if (page_o[p].status != MMU_OK)
        return diag_set(m->d, m->file, tb->line[i], "address 0x%llx is outside every mapping",
                        (unsigned long long)va);
      page_va[p] = va;
      page_t[p] = line_t[j];
      any_miss |= page_o[p].hit_level < 0 || m->where[page_o[p].hit_level] > 0;
      npages++;
    }
    uint64_t off = va & ((1ull << page_o[p].page_shift) - 1);
    pa_of[nmiss] = ((page_o[p].pa & ~((1ull << page_o[p].page_shift) - 1)) + off) >> KMEM_LINE_SHIFT;
    if (!store) kmem_l2_prefetch(m->l2, sm->part, pa_of[nmiss]); /* before the first L2 look-up */
    page_of[nmiss] = p;
    miss[nmiss++] = j;
  }
  for (unsigned p = 0; p < npages; p++) {
    unsigned where = page_o[p].hit_level < 0 ? 3 : (unsigned)m->where[page_o[p].hit_level];
    if (!timed) { /* the walk's reads still pass the L2 */
      if (where == 3) walk_reads(m, -1, &page_w[p]);
      continue;
    }
    m->res->translations++;
    page_t[p] = translate_time(m, smi, page_t[p], &page_o[p], any_miss && !where ? 1 : where, &page_w[p]);
  }
  /* miss, page_of and pa_of are written for each k < nmiss and line_t for each j < nl above; cppcheck
   * (2.x) loses the count across the loop and reports them uninitialised. */
  for (unsigned k = 0; k < nmiss; k++) {
    // cppcheck-suppress uninitvar
    unsigned j = miss[k], p = page_of[k];
    // cppcheck-suppress uninitvar
    uint64_t pa_line = pa_of[k];
    // cppcheck-suppress uninitvar
    double ready = timed ? (page_t[p] > line_t[j] ? page_t[p] : line_t[j]) : -1;
    if (timed) m->res->translation_cycles += ready - line_t[j];
    bool hit;
    double back = l2_line(m, sm->part, ready, pa_line, line[j].sectors, store, &hit);
    if (timed) {
      m->res->l2_lines++;
      m->res->l2_hits += hit;
    }
    if (timed && !store && back > end) end = back;
  }
  *done = end;
  return 0;
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

/* Room in the slot for KMEM_LINES_MAX lines after the first `used`. */
static int lines_room(kmodel *m, kslot *sl, uint32_t used) {
  if (sl->cap_lines - used >= KMEM_LINES_MAX) return 0;
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
  const char *p = (const char *)(sl->lines + a.at), *e = (const char *)(sl->lines + a.at + a.n);
  for (; p < e; p += 64) __builtin_prefetch(p);
}

/* Step 3: the L1's sets of its lines; for a load, the code of the warp
 * it may wake (which comes next, ahead of what steps 1 and 2 saw). */
static void prefetch_l1(const kmodel *m, const engine_event *ev) {
  if ((ev->kind & 1) == EV_LOAD) {
    const kwarp *w = &m->warp[m->load[ev->id].warp];
    const kslot *sl = &m->slot[w->slot];
    if (w->at < sl->cap_code) __builtin_prefetch(&sl->code[w->at]);
    return;
  }
  const uint8_t *c = event_code(m, ev);
  if (!c || !(c[0] & KCODE_MEM)) return;
  const kslot *sl = &m->slot[ev->id / m->wpb];
  const kmem_cache *l1 = m->sm[sl->sm].l1;
  kaccess a = access_get(c + KCODE_HEAD + (c[1] & 15) + (c[1] >> 4));
  if (!l1 || a.store || a.l2_only || a.at + (size_t)a.n > sl->cap_lines) return; /* (kind's offset wraps at 2^31) */
  for (unsigned j = 0; j < a.n; j++) kmem_cache_prefetch(l1, sl->lines[a.at + j].line);
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

/* Warp wi issues its next instruction, at t or when it can. */
static int warp_step(kmodel *m, uint32_t wi, double t) {
  kwarp *w = &m->warp[wi];
  kslot *sl = &m->slot[w->slot];
  const ktrace_tb *tb = sl->tb;
  double *ready = regs_of(m, wi);
  if (w->pc == w->end) { /* done once its loads are back: their registers are its slot's */
    if (!w->loads) return warp_done(m, wi, t);
    w->draining = true;
    return 0;
  }
  uint32_t i = w->pc;
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
    double done = 0;
    if (memory(m, sl->sm, tb, i, &a, sl->lines, at, &done)) return -1;
    if (nd) {
      uint32_t id = 0;
      if (new_load(m, wi, dst, nd, &id)) return -1;
      for (unsigned k = 0; k < nd; k++) reg_write(w, ready, dst[k], INFINITY);
      w->loads++;
      if (engine_schedule(&m->ev, done, id, EV_LOAD)) return oom(m);
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
  uint64_t b;
  int got;
  while ((got = next_kept(m, tb, &b)) == 1) {
    uint32_t sm;
    kept(m, b, &sm);
    for (uint32_t i = 0; i < tb->ninst; i++) {
      if (!ktrace_class_is_translated(tb->cls[i]) || tb->addr_at[i + 1] <= tb->addr_at[i]) continue;
      kaccess a = access_of(tb, i, lines, 0);
      double done;
      if (memory(m, sm, tb, i, &a, lines, -1, &done)) return -1;
    }
  }
  return got;
}

static int timed(kmodel *m, const kmodel_source *src) {
  m->src = src;
  m->next_block = 0;
  m->src_done = false;
  system_reset_stats(m->sys);
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
  engine_event ev;
  int got;
  while ((got = engine_next(&m->ev, &ev)) > 0) {
    size_t n;
    const engine_event *soon = engine_soon(&m->ev, PREFETCH_STATE + 1, &n);
    if (n > PREFETCH_STATE) prefetch_state(m, &soon[PREFETCH_STATE]);
    if (n > PREFETCH_REGS) prefetch_regs(m, &soon[PREFETCH_REGS]);
    if (n) prefetch_l1(m, &soon[0]);
    int rc = (ev.kind & 1) == EV_WARP ? warp_step(m, ev.id, ev.t) : load_back(m, ev.id, ev.t);
    if (rc) return -1;
  }
  return got < 0 ? oom(m) : 0;
}

static void finish(kmodel *m) {
  kmodel_result *r = m->res;
  /* a launch lasts at least the L2's and DRAM's work: what no warp waits
   * for (stores) still takes their time, which back-to-back launches, as
   * the suite times them, must absorb */
  const engine_band *mem[] = {&m->l2data, &m->dram_rows, &m->dram};
  for (unsigned i = 0; i < sizeof mem / sizeof mem[0]; i++)
    if (mem[i]->busy > m->end) m->end = mem[i]->busy;
  r->cycles = m->end;
  r->ns = m->end / m->g->clock_ghz + m->g->stream_launch_ns;
  double span = m->end > 0 ? m->end : 1, issue = 0, grp = 0;
  for (uint32_t i = 0; i < m->nsms; i++) {
    double u = m->sm[i].lsu.busy / span;
    if (u > issue) issue = u;
  }
  for (uint32_t i = 0; i < m->ngroups; i++)
    if (m->grp_l2[i].busy / span > grp) grp = m->grp_l2[i].busy / span;
  r->busy[0] = issue;
  r->busy[1] = grp;
  r->busy[2] = m->l3.busy / span;
  r->busy[3] = m->walk.busy / span;
  r->busy[4] = m->l2data.busy / span;
  r->busy[5] = m->dram_rows.busy / span;
  r->busy[6] = m->dram.busy / span;
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
  if (!rc) finish(&m);
  teardown(&m);
  return rc;
}

unsigned kmodel_limit(const kmodel_result *r) {
  unsigned best = 0;
  for (unsigned i = 1; i < KMODEL_STAGES; i++)
    if (r->busy[i] > r->busy[best]) best = i;
  return best;
}
