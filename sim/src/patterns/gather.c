/* gather.c — the concurrency model (see tlbsim/gather.h): a workload of
 * warps and their loads over a system of SMs (hw/system.h: each SM's MMU,
 * the L2 shared by its group, the third level and walker shared by all)
 * and the timing engine (hw/engine.h: stages, slots, events). */
#include "tlbsim/gather.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/gdev.h"
#include "tlbsim/gpu_gather.h"
#include "tlbsim/engine.h"

#define WARP 32u
#define DEFAULT_GROUPS 4u
/* Loads translated (no timing) before the timed part, so the shared levels
 * hold what a previous launch left (the kernel runs one warm-up launch). */
#define WARM_LOADS (1u << 18)
/* Simulated warps an ordinary launch gets at least (whole L2-TLB groups). */
#define MIN_WARPS 384u

/* --- requests and events ------------------------------------------------- */

typedef enum { EV_GROUP, EV_INSTR, EV_L1_MISS, EV_L2, EV_L2_MISS, EV_L3, EV_WALK, EV_RESOLVED, EV_DATA, EV_DONE } event_kind;

/* What a step can fail with. */
enum { STEP_OOM = -1, STEP_FAULT = -2 };

/* One lane's load. Lanes of an instruction that touch the same L1 entry
 * share one look-up: the first is the leader, the others wait on it. */
typedef struct request {
  uint64_t va;
  uint32_t warp;
  mmu_outcome o;
  uint32_t waiters;     /* lanes waiting for this leader's look-up */
  uint32_t next_waiter; /* link in such a list */
  uint8_t held;         /* slots it holds: bit 0 its SM's L1-miss slot, bit 1 its group's L2-miss slot */
  bool offset;          /* table mode: a load of a node's offset, served by the L1 data cache */
  double issued;
} request;

/* --- the simulation ------------------------------------------------------ */

typedef struct sim_sm {
  mmu *mmu;
  uint32_t group;
  engine_stage issue, l1_miss;
  engine_slots l1_slots;
} sim_sm;

typedef struct sim_group {
  engine_stage l2;
  engine_slots l2_slots;
} sim_group;

#define MAX_GROUPS 16

typedef struct warp {
  uint32_t sm;
  uint64_t first_thread;
  uint32_t group;        /* groups started */
  uint32_t phase;        /* of the current group: table mode loads offsets in two phases first */
  uint32_t outstanding;  /* requests of the current phase not done */
  double group_done[MAX_GROUPS];
} warp;

/* The levels of the model's path, as the configuration shares them: the
 * SM's private entry level, the level an L2-TLB group shares (its
 * shared_by is the group's size) and the GPU-wide level (none: -1), each a
 * level index; where[l] is level l's place on that path. */

typedef struct sim {
  const gather_spec *spec;
  const gpu_config *gpu;
  const system_spec *sys_spec;
  const mmu_config *mc;
  gdev_levels levels;
  int where[MMU_MAX_LEVELS]; /* level l's place on the path (levels.level), 3: not on it */
  hwsystem *sys;
  uint32_t nsms, ngroups, nwarps, groups;
  sim_sm *sm;
  sim_group *grp;
  warp *w;
  request *req;
  engine ev;
  engine_stage l3, walk, data;
  double l3_scattered;   /* interval, scaled */
  unsigned span1[64], span3[64]; /* per page shift: an L1 / L3 entry's span (log2 bytes) */
  const pt *table;
  gather_result *res;
  double latency_sum;
} sim;

static int schedule(sim *s, double t, uint32_t id, event_kind k) { return engine_schedule(&s->ev, t, id, (uint32_t)k); }

/* Where on the path the outcome's translation was served: 0, 1 or 2 for a
 * hit on the path's levels, 3 for a walk. */
static unsigned served_at(const sim *s, const mmu_outcome *o) {
  return o->hit_level < 0 ? 3 : (unsigned)s->where[o->hit_level];
}

/* The span of an entry of level l holding pages of 2^shift (its sector). */
static unsigned entry_span(const mmu_config *mc, int l, unsigned shift) {
  if (l < 0) return shift;
  for (unsigned a = 0; a < mc->level[l].narrays; a++) {
    const tlb_geometry *g = &mc->level[l].array[a];
    for (unsigned i = 0; i < g->npage_shifts; i++)
      if (g->page_shift[i] == shift) return shift + log2_u64(g->sector_pages);
  }
  return shift;
}

/* How scattered the pages of the L3 entry around va are: 0 when its
 * mapped pages keep one VA-to-PA offset (one physical run, unmapped pages
 * in it or not: a managed block's resident 64 KiB pages sit at their
 * offsets in the block's 2 MiB chunk, and gather_managed.csv's 128 KiB
 * stride, every other page resident, costs what a contiguous run does),
 * 1 when each page has an offset of its own, in between by the runs
 * beyond the first. */
static double scatter(const sim *s, uint64_t va, unsigned span, unsigned page_shift) {
  uint64_t base = va & ~((1ull << span) - 1), page = 1ull << page_shift;
  unsigned pages = 0, runs = 0;
  uint64_t offset = 0;
  for (uint64_t p = base; p < base + (1ull << span); p += page) {
    pt_mapping m;
    if (!pt_lookup(s->table, p, &m) || m.page_shift != page_shift) continue;
    runs += !pages || m.pa - p != offset;
    offset = m.pa - p;
    pages++;
  }
  return pages > 1 ? (double)(runs - 1) / (double)(pages - 1) : 0;
}

/* The node of load j of thread t, as tlbsim-gpu's kernel computes it. */
static uint32_t load_node(const sim *s, uint64_t thread, uint32_t j) {
  return gpu_gather_node(s->spec->seed, thread, j, s->spec->region.nodes);
}

static uint64_t node_va(const sim *s, uint32_t node) {
  return s->spec->node_va ? s->spec->node_va[node] : region_node_va(&s->spec->region, node);
}

/* Request k of warp w's group g: load instruction k / 32 (of the batch),
 * lane k % 32; its node's address, or in table mode with `offset` the
 * address of the node's offset. */
static uint64_t group_va(const sim *s, const warp *w, uint32_t g, uint32_t k, bool offset) {
  uint32_t node = load_node(s, w->first_thread + k % WARP, g * s->spec->batch + k / WARP);
  return offset ? s->spec->offsets_va + 4ull * node : node_va(s, node);
}

/* Table mode: a group loads its offsets in two phases of half the batch,
 * then its nodes. */
static uint32_t phases(const sim *s) { return s->spec->offsets_va ? 3 : 1; }

static uint32_t sm_of(const sim *s, uint32_t r) { return s->w[s->req[r].warp].sm; }

/* Takes slot `which` (1: the SM's L1-miss slots, 2: the group's L2-miss
 * slots) for r and goes on to `next` at t, or leaves r waiting for one. */
static int acquire(sim *s, engine_slots *sl, unsigned which, double t, uint32_t r, event_kind next) {
  int got = engine_slots_acquire(sl, r);
  if (got <= 0) return got;
  s->req[r].held |= (uint8_t)which;
  return schedule(s, t, r, next);
}

/* Gives slot `which` back at t: the first waiter takes it and goes on to `next`. */
static int release(sim *s, engine_slots *sl, unsigned which, double t, event_kind next) {
  uint32_t r = engine_slots_release(sl);
  if (r == ENGINE_NONE) return 0;
  s->req[r].held |= (uint8_t)which;
  return schedule(s, t, r, next);
}

/* An instruction has been issued: its 32 lanes are translated. When every
 * lane hits its L1 TLB they go to the data. Otherwise the instruction is
 * sent on whole, one look-up per distinct L1 entry its lanes touch (hits
 * included: the L1 does not serve the hitting lanes of a missing
 * instruction; gather.csv's 300 MiB-8 GiB points follow the count of
 * distinct entries, not of missing lanes). */
static int instruction(sim *s, double t, uint32_t first) {
  sim_sm *sm = &s->sm[sm_of(s, first)];
  bool miss = false;
  for (uint32_t r = first; r < first + WARP; r++) {
    request *q = &s->req[r];
    mmu_translate(sm->mmu, q->va, ACC_READ, &q->o);
    if (q->o.status != MMU_OK) return STEP_FAULT;
    miss |= served_at(s, &q->o) != 0;
  }
  if (!miss) {
    for (uint32_t r = first; r < first + WARP; r++)
      if (schedule(s, t, r, EV_DATA)) return STEP_OOM;
    return 0;
  }
  for (uint32_t r = first; r < first + WARP; r++) {
    request *q = &s->req[r];
    uint64_t tag = q->va >> s->span1[q->o.page_shift];
    uint32_t lead = first;
    while (lead < r && s->req[lead].va >> s->span1[s->req[lead].o.page_shift] != tag) lead++;
    if (lead < r) { /* its entry is looked up by an earlier lane */
      q->next_waiter = s->req[lead].waiters;
      s->req[lead].waiters = r;
      s->res->merged++;
      continue;
    }
    if (acquire(s, &sm->l1_slots, 1, t, r, EV_L1_MISS)) return STEP_OOM;
  }
  return 0;
}

static int at_l2(sim *s, double t, uint32_t r) {
  request *q = &s->req[r];
  sim_group *g = &s->grp[s->sm[sm_of(s, r)].group];
  double done = engine_stage_pass(&g->l2, t, s->gpu->l2_interval);
  return schedule(s, done, r, served_at(s, &q->o) <= 1 ? EV_RESOLVED : EV_L2_MISS);
}

static int at_l3(sim *s, double t, uint32_t r) {
  request *q = &s->req[r];
  double x = scatter(s, q->va, s->span3[q->o.page_shift], q->o.page_shift);
  double interval = s->l3.interval + x * (s->l3_scattered - s->l3.interval);
  double done = engine_stage_pass(&s->l3, t, interval);
  return schedule(s, done, r, served_at(s, &q->o) == 2 ? EV_RESOLVED : EV_WALK);
}

/* The look-up of r's entry is done at t: its slots are free, and r and the
 * lanes that waited on it go to the data. */
static int resolved(sim *s, double t, uint32_t r) {
  request *q = &s->req[r];
  sim_sm *sm = &s->sm[sm_of(s, r)];
  if ((q->held & 1) && release(s, &sm->l1_slots, 1, t, EV_L1_MISS)) return STEP_OOM;
  if ((q->held & 2) && release(s, &s->grp[sm->group].l2_slots, 2, t, EV_L3)) return STEP_OOM;
  q->held = 0;
  for (uint32_t w = s->req[r].waiters; w != ENGINE_NONE; w = s->req[w].next_waiter)
    if (schedule(s, t, w, EV_DATA)) return STEP_OOM;
  return schedule(s, t, r, EV_DATA);
}

/* A warp's group: its batch of load instructions through the SM's issue
 * stage, 32 lanes each. */
/* How much farther than the average the line's L2 slice is: a line's
 * latency lies in data_spread_cycles around the mean, by a hash of its
 * address (the slice). It also keeps SMs from running in lockstep. */
static double slice_cycles(const sim *s, uint32_t r) {
  uint64_t z = (s->req[r].va >> 7) * 0x9E3779B97F4A7C15ull;
  z ^= z >> 29;
  return s->gpu->data_spread_cycles * ((double)(z >> 11) / (double)(1ull << 53) - 0.5);
}

/* Starts phase `w->phase` of the warp's current group: its load
 * instructions through the SM's issue stage, 32 lanes each. */
static int start_phase(sim *s, double t, uint32_t wi) {
  warp *w = &s->w[wi];
  uint32_t n = s->spec->batch * WARP, first = 0, count = n;
  bool offset = w->phase + 1 < phases(s);
  if (offset) { /* half the batch's offsets per phase */
    count = n / 2;
    first = w->phase * count;
  }
  sim_sm *sm = &s->sm[w->sm];
  w->outstanding = count;
  for (uint32_t k = first; k < first + count; k += WARP) {
    double issued = engine_stage_pass(&sm->issue, t, WARP * s->gpu->issue_interval) + WARP * s->gpu->issue_interval;
    for (uint32_t lane = 0; lane < WARP; lane++)
      s->req[wi * n + k + lane] = (request){.va = group_va(s, w, w->group, k + lane, offset), .warp = wi,
                                            .waiters = ENGINE_NONE, .next_waiter = ENGINE_NONE, .issued = issued,
                                            .offset = offset};
    if (schedule(s, issued, wi * n + k, EV_INSTR)) return STEP_OOM;
  }
  return 0;
}

static int start_group(sim *s, double t, uint32_t wi) {
  s->w[wi].phase = 0;
  return start_phase(s, t, wi);
}

static int done(sim *s, double t, uint32_t r) {
  request *q = &s->req[r];
  warp *w = &s->w[q->warp];
  if (!q->offset) {
    s->latency_sum += t - q->issued;
    s->res->loads++;
    s->res->served[q->o.hit_level < 0 ? s->mc->nlevels : (unsigned)q->o.hit_level]++;
  }
  if (--w->outstanding) return 0;
  if (++w->phase < phases(s)) return start_phase(s, t, q->warp);
  w->group_done[w->group++] = t;
  if (w->group == s->groups) return 0;
  return schedule(s, t + s->gpu->warp_group_cycles, q->warp, EV_GROUP);
}

static int step(sim *s, engine_event ev) {
  switch ((event_kind)ev.kind) {
  case EV_GROUP: return start_group(s, ev.t, ev.id);
  case EV_INSTR: return instruction(s, ev.t, ev.id);
  case EV_L1_MISS: {
    sim_sm *sm = &s->sm[sm_of(s, ev.id)];
    return schedule(s, engine_stage_pass(&sm->l1_miss, ev.t, s->gpu->l1_miss_interval), ev.id, EV_L2);
  }
  case EV_L2: return at_l2(s, ev.t, ev.id);
  case EV_L2_MISS: return acquire(s, &s->grp[s->sm[sm_of(s, ev.id)].group].l2_slots, 2, ev.t, ev.id, EV_L3);
  case EV_L3: return at_l3(s, ev.t, ev.id);
  case EV_WALK:
    return schedule(s, engine_stage_pass(&s->walk, ev.t, s->walk.interval) + (double)s->req[ev.id].o.walk_cycles, ev.id,
                    EV_RESOLVED);
  case EV_RESOLVED: return resolved(s, ev.t, ev.id);
  case EV_DATA:
    if (s->req[ev.id].offset) return schedule(s, ev.t + s->gpu->l1_hit_cycles, ev.id, EV_DONE);
    return schedule(s, engine_stage_pass(&s->data, ev.t, s->data.interval) + slice_cycles(s, ev.id), ev.id, EV_DONE);
  case EV_DONE: return done(s, ev.t, ev.id);
  }
  return STEP_FAULT;
}

/* --- set-up -------------------------------------------------------------- */

/* Which SMs are simulated: a whole group for an ordinary launch (the GPU's
 * shared stages at group/sms_used of their rate), or every SM of a pinned
 * set, those in the known group sharing one L2 TLB and the others one each. */
static int plan_sms(sim *s, diag *d) {
  const gather_spec *sp = s->spec;
  const gpu_config *g = s->gpu;
  uint32_t in_group = sp->pinned ? sp->pinned_in_group : 0;
  if (!sp->pinned) {
    /* Enough groups for MIN_WARPS warps: the shared third level and walker
     * then see a stream like the whole GPU's (few warps per SM touch few
     * entries, which one group's would all keep). */
    uint32_t group_sms = s->levels.group_sms < sp->sms_used ? s->levels.group_sms : sp->sms_used;
    uint32_t per_group = group_sms * (sp->threads_per_sm / WARP), most = sp->sms_used / group_sms;
    s->ngroups = (MIN_WARPS + per_group - 1) / per_group;
    if (s->ngroups > most) s->ngroups = most ? most : 1;
    s->nsms = s->ngroups * group_sms;
  } else {
    s->nsms = sp->sms_used;
    s->ngroups = (in_group ? 1 : 0) + (sp->sms_used - in_group);
    if (s->nsms > 2 * GPU_MAX_GROUP_SMS || s->ngroups > g->sms / s->levels.group_sms)
      return diag_set(d, NULL, 0, "gather: a set of %u SMs in %u L2-TLB groups is beyond what the model places",
                      s->nsms, s->ngroups);
  }
  if (!(s->sm = calloc(s->nsms, sizeof *s->sm)) || !(s->grp = calloc(s->ngroups, sizeof *s->grp)))
    return diag_set(d, NULL, 0, "gather: out of memory");
  uint32_t group_sms = s->levels.group_sms < sp->sms_used ? s->levels.group_sms : sp->sms_used;
  for (uint32_t i = 0; i < s->nsms; i++)
    s->sm[i].group = !sp->pinned ? i / group_sms : i < in_group ? 0 : (in_group ? 1 : 0) + (i - in_group);
  return 0;
}

/* The simulated SMs' groups (plan_sms): the system's layout for the level
 * a group shares; every other shared level is one for all. */
static uint32_t sm_group(const void *ctx, unsigned level, unsigned agent) {
  const sim *s = ctx;
  return (int)level == s->levels.level[1] ? s->sm[agent].group : 0;
}

/* The system of the simulated SMs: SM i is agent i. */
static int build_sms(sim *s, const pt *t, diag *d) {
  system_layout layout = {.group = sm_group, .ctx = s};
  if (!(s->sys = system_create(s->sys_spec, t, &layout, d))) return -1;
  for (uint32_t i = 0; i < s->nsms; i++)
    if (!(s->sm[i].mmu = system_agent(s->sys, i, d))) return -1;
  return 0;
}

/* Threads of SM i: the blocks an ordinary launch gives it (block b on SM
 * b mod sms_used), warp by warp. */
static int plan_warps(sim *s, diag *d) {
  const gather_spec *sp = s->spec;
  uint32_t per_sm = sp->threads_per_sm / WARP, blocks_per_sm = sp->threads_per_sm / sp->block_threads;
  s->nwarps = per_sm * s->nsms;
  uint32_t n = sp->batch * WARP;
  s->w = calloc(s->nwarps, sizeof *s->w);
  s->req = malloc((size_t)s->nwarps * n * sizeof *s->req);
  if (!s->w || !s->req) return diag_set(d, NULL, 0, "gather: out of memory");
  uint32_t wi = 0;
  for (uint32_t i = 0; i < s->nsms; i++)
    for (uint32_t b = 0; b < blocks_per_sm; b++)
      for (uint32_t k = 0; k < sp->block_threads / WARP; k++, wi++) {
        uint64_t block = (uint64_t)b * sp->sms_used + i;
        s->w[wi] = (warp){.sm = i, .first_thread = block * sp->block_threads + (uint64_t)k * WARP};
      }
  return 0;
}

/* Translates loads of the kernel (no timing) until the shared levels hold
 * what a previous launch left in them. */
static void warm_up(sim *s) {
  uint32_t per_group = s->spec->batch * WARP, total = s->spec->loads_per_thread / s->spec->batch;
  uint64_t done = 0;
  for (uint32_t g = 0; g < total && done < WARM_LOADS; g++)
    for (uint32_t wi = 0; wi < s->nwarps; wi++)
      for (uint32_t k = 0; k < per_group; k++, done++) {
        mmu_outcome o;
        mmu_translate(s->sm[s->w[wi].sm].mmu, group_va(s, &s->w[wi], total - 1 - g, k, false), ACC_READ, &o);
      }
}

static void free_sim(sim *s) {
  system_destroy(s->sys);
  for (uint32_t i = 0; s->sm && i < s->nsms; i++) engine_slots_free(&s->sm[i].l1_slots);
  for (uint32_t k = 0; s->grp && k < s->ngroups; k++) engine_slots_free(&s->grp[k].l2_slots);
  free(s->sm);
  free(s->grp);
  free(s->w);
  free(s->req);
  engine_free(&s->ev);
}

static int check_spec(const gather_spec *sp, const gpu_config *g, diag *d) {
  if (!g->sms) return diag_set(d, NULL, 0, "gather: the configuration has no [gpu] section");
  if (!sp->batch || sp->loads_per_thread % sp->batch || !sp->loads_per_thread)
    return diag_set(d, NULL, 0, "gather: loads per thread must be a positive multiple of the batch");
  if (!sp->threads_per_sm || sp->threads_per_sm % WARP || !sp->block_threads || sp->block_threads % WARP ||
      sp->threads_per_sm % sp->block_threads)
    return diag_set(d, NULL, 0, "gather: threads per SM must be whole blocks of whole warps");
  if (!sp->sms_used || sp->sms_used > g->sms || (sp->pinned && sp->pinned_in_group > sp->sms_used))
    return diag_set(d, NULL, 0, "gather: %u SMs used on a device of %u", sp->sms_used, g->sms);
  return 0;
}

/* The kernel's cycles from the groups simulated: the time all warps had
 * finished the last one, plus the rest at the steady pace between the first
 * and the last. */
static double kernel_cycles(const sim *s) {
  uint32_t total = s->spec->loads_per_thread / s->spec->batch;
  double first = 0, last = 0;
  for (uint32_t wi = 0; wi < s->nwarps; wi++) {
    if (s->w[wi].group_done[0] > first) first = s->w[wi].group_done[0];
    if (s->w[wi].group_done[s->groups - 1] > last) last = s->w[wi].group_done[s->groups - 1];
  }
  if (s->groups == total || s->groups < 2) return last;
  return last + (double)(total - s->groups) * (last - first) / (double)(s->groups - 1);
}

/* The latency of the path's level i, 0 without one. */
static double path_latency(const sim *s, unsigned i) {
  return s->levels.level[i] >= 0 ? s->mc->level[s->levels.level[i]].latency : 0;
}

int gather_run(const pt_format *f, const system_spec *sys, const gpu_config *g, const gather_spec *sp,
               gather_result *out, diag *d) {
  if (check_spec(sp, g, d)) return -1;
  *out = (gather_result){0};
  sim s = {.spec = sp, .gpu = g, .sys_spec = sys, .mc = &sys->mmu, .res = out};
  const mmu_config *mc = s.mc;
  if (gdev_path(mc, &s.levels, d)) return -1;
  for (unsigned l = 0; l < MMU_MAX_LEVELS; l++) s.where[l] = 3;
  for (unsigned i = 0; i < 3; i++)
    if (s.levels.level[i] >= 0) s.where[s.levels.level[i]] = (int)i;
  uint32_t total = sp->loads_per_thread / sp->batch, want = sp->groups ? sp->groups : DEFAULT_GROUPS;
  s.groups = want < total ? want : total;
  if (s.groups > MAX_GROUPS) s.groups = MAX_GROUPS;
  pt *own = sp->table ? NULL : pt_create(f); /* the region's table, when no layout comes with one */
  const pt *t = sp->table ? sp->table : own;
  int rc = -1;
  if (!t) {
    diag_set(d, NULL, 0, "gather: out of memory");
    goto out;
  }
  s.table = t;
  if ((own && region_map(own, &sp->region, d)) || plan_sms(&s, d) || build_sms(&s, t, d) || plan_warps(&s, d))
    goto out;
  for (unsigned shift = 1; shift < 64; shift++) {
    s.span1[shift] = entry_span(mc, s.levels.level[0], shift);
    s.span3[shift] = entry_span(mc, s.levels.level[2], shift);
  }
  /* The GPU-wide stages: the simulated SMs' share of their rate. */
  double share = (double)sp->sms_used / s.nsms;
  s.l3 = (engine_stage){.interval = g->l3_interval * share, .latency = path_latency(&s, 2)};
  s.l3_scattered = g->l3_scattered_interval * share;
  s.walk = (engine_stage){.interval = g->walk_interval * share};
  s.data = (engine_stage){.interval = g->data_interval * share, .latency = sys->mem.data_cycles};
  for (uint32_t i = 0; i < s.nsms; i++) s.sm[i].issue = (engine_stage){.interval = g->issue_interval};
  for (uint32_t i = 0; i < s.nsms; i++) {
    s.sm[i].l1_miss = (engine_stage){.interval = g->l1_miss_interval};
    engine_slots_init(&s.sm[i].l1_slots, g->l1_miss_slots);
  }
  for (uint32_t k = 0; k < s.ngroups; k++) {
    s.grp[k].l2 = (engine_stage){.interval = g->l2_interval, .latency = path_latency(&s, 1)};
    engine_slots_init(&s.grp[k].l2_slots, g->l2_miss_slots);
  }
  warm_up(&s);
  for (uint32_t wi = 0; wi < s.nwarps; wi++)
    if (schedule(&s, g->warp_group_cycles, wi, EV_GROUP)) goto oom;
  engine_event ev;
  int got;
  while ((got = engine_next(&s.ev, &ev)) > 0) {
    int st = step(&s, ev);
    if (st == STEP_OOM) goto oom;
    if (st == STEP_FAULT) {
      diag_set(d, NULL, 0, "gather: a load faulted (the region does not cover the nodes)");
      goto out;
    }
  }
  if (got < 0) goto oom;
  out->kernel_cycles = kernel_cycles(&s);
  double loads = (double)sp->threads_per_sm * sp->sms_used * sp->loads_per_thread;
  out->loads_per_ns = loads / (out->kernel_cycles / g->clock_ghz + g->launch_gap_ns);
  out->latency_cycles = out->loads ? s.latency_sum / (double)out->loads : 0;
  double span = out->kernel_cycles > 0 ? s.w[0].group_done[s.groups - 1] : 1;
  for (uint32_t wi = 0; wi < s.nwarps; wi++)
    if (s.w[wi].group_done[s.groups - 1] > span) span = s.w[wi].group_done[s.groups - 1];
  out->busy_l2 = s.grp[0].l2.busy / span;
  out->busy_l3 = s.l3.busy / span;
  out->busy_walk = s.walk.busy / span;
  out->busy_data = s.data.busy / span;
  rc = 0;
  goto out;
oom:
  diag_set(d, NULL, 0, "gather: out of memory");
out:
  free_sim(&s);
  pt_destroy(own);
  return rc;
}
