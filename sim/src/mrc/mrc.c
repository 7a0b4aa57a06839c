/* mrc.c — one pass, every LRU geometry (see tlbsim/mrc.h and mrc_impl.h).
 *
 * A lane per page size. Each reference to the lane's page:
 *   the front of the recent list   distance 0, a hit everywhere: counted only;
 *   deeper in the list, at n       distance n; the newer pages above give the
 *                                  set positions (sets_recent);
 *   off the list (deep)            distance MRC_RECENT + the pages that fell
 *                                  after it (mrc_outside), or a first use;
 *                                  the set stacks are searched (sets_deep).
 * Misses of C fully associative entries: the near references at distance
 * C..MRC_RECENT-1, plus every deep reference when C <= MRC_RECENT, else
 * those at distance C or more (the deep histogram's buckets C up; its last
 * bucket holds max_entries and beyond, and first uses).
 *
 * Sampling touches only the deep references: the recent list, the set
 * stacks and the near histogram see every reference (they cost no memory
 * that grows), while only pages below the hash threshold enter mrc_outside,
 * where the pages that fell after one stand for 1/rate times as many. The
 * deep references of sampled pages then estimate the distribution of all
 * deep references, whose count is known exactly. So sizes up to
 * MRC_RECENT and every set-associative array stay exact at any rate.
 */
#include "mrc_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mrc_lane {
  unsigned shift;
  uint64_t refs;                   /* references */
  uint64_t recent[MRC_RECENT];     /* most recent first */
  unsigned nrecent;
  uint64_t near_hist[MRC_RECENT];  /* [d]: references found at depth d >= 1 of the list */
  uint64_t deep;                   /* references not on the list */
  uint64_t deep_sampled;           /* those to sampled pages: the ones deep_hist counts */
  uint64_t *deep_hist;             /* [max_entries + 1] by (scaled) distance, capped */
  mrc_outside out;
  mrc_sets sets;
  mrc_opt opt;
} mrc_lane;

struct mrc {
  mrc_spec spec;
  uint64_t sample_below; /* a page is sampled when its hash is below this */
  double scale;          /* 1 / sample_rate: a sampled page that fell stands for this many */
  mrc_lane lane[MRC_MAX_PAGE_SIZES];
};

int mrc_spec_page_sizes(mrc_spec *s, const char *list) {
  char buf[32];
  s->npage_shifts = 0;
  for (const char *p = list;; p++) {
    size_t n = strcspn(p, ",");
    uint64_t size;
    if (n >= sizeof buf || s->npage_shifts == MRC_MAX_PAGE_SIZES) return -1;
    memcpy(buf, p, n);
    buf[n] = 0;
    if (num_size_in(buf, 2, 1ull << 63, &size) != NUM_OK || !is_pow2(size)) return -1;
    unsigned shift = log2_u64(size), i = 0;
    while (i < s->npage_shifts && s->page_shift[i] != shift) i++;
    if (i < s->npage_shifts) return -1;
    s->page_shift[s->npage_shifts++] = (uint8_t)shift;
    p += n;
    if (!*p) return 0;
  }
}

int mrc_spec_check(const mrc_spec *s, diag *d) {
  if (s->npage_shifts < 1 || s->npage_shifts > MRC_MAX_PAGE_SIZES)
    return diag_set(d, NULL, 0, "1 to %u page sizes, not %u", MRC_MAX_PAGE_SIZES, s->npage_shifts);
  for (unsigned i = 0; i < s->npage_shifts; i++) {
    if (s->page_shift[i] < 1 || s->page_shift[i] > 63)
      return diag_set(d, NULL, 0, "page shift %u is out of range (1..63)", s->page_shift[i]);
    for (unsigned j = 0; j < i; j++)
      if (s->page_shift[j] == s->page_shift[i])
        return diag_set(d, NULL, 0, "page size 2^%u is listed twice", s->page_shift[i]);
  }
  if (s->max_entries < 1 || s->max_entries > MRC_MAX_ENTRIES)
    return diag_set(d, NULL, 0, "max entries %u is not from 1 to %u", s->max_entries, MRC_MAX_ENTRIES);
  if (!is_pow2(s->max_sets) || s->max_sets > s->max_entries)
    return diag_set(d, NULL, 0, "max sets %u is not a power of two up to max entries (%u)", s->max_sets,
                    s->max_entries);
  if (s->max_sets > 1 && s->max_ways < 1) return diag_set(d, NULL, 0, "max ways must be at least 1");
  if (!(s->sample_rate >= MRC_SAMPLE_MIN && s->sample_rate <= 1))
    return diag_set(d, NULL, 0, "sample rate %g is not from %g to 1", s->sample_rate, MRC_SAMPLE_MIN);
  if (s->opt && s->sample_rate < 1) return diag_set(d, NULL, 0, "OPT needs every reference: not with sampling");
  return 0;
}

mrc *mrc_create(const mrc_spec *s, diag *d) {
  if (mrc_spec_check(s, d)) return NULL;
  mrc *m = calloc(1, sizeof *m);
  if (!m) goto oom;
  m->spec = *s;
  m->scale = 1 / s->sample_rate;
  m->sample_below = s->sample_rate < 1 ? (uint64_t)ldexp(s->sample_rate, 64) : UINT64_MAX;
  for (unsigned i = 0; i < s->npage_shifts; i++) {
    mrc_lane *l = &m->lane[i];
    l->shift = s->page_shift[i];
    l->deep_hist = calloc((size_t)s->max_entries + 1, sizeof *l->deep_hist);
    if (!l->deep_hist || outside_init(&l->out, s->compact_at) ||
        sets_init(&l->sets, s->max_sets, s->max_ways, s->max_entries) || (s->opt && opt_init(&l->opt)))
      goto oom;
  }
  return m;
oom:
  mrc_destroy(m);
  diag_set(d, NULL, 0, "out of memory for the miss-ratio curves");
  return NULL;
}

void mrc_destroy(mrc *m) {
  if (!m) return;
  for (unsigned i = 0; i < m->spec.npage_shifts; i++) {
    free(m->lane[i].deep_hist);
    outside_free(&m->lane[i].out);
    sets_free(&m->lane[i].sets);
    opt_free(&m->lane[i].opt);
  }
  free(m);
}

/* SHARDS' spatial filter needs a hash that spreads consecutive page numbers
 * uniformly: the murmur3 64-bit finaliser. */
static inline bool sampled(const mrc *m, uint64_t page) {
  if (m->sample_below == UINT64_MAX) return true;
  page ^= page >> 33;
  page *= 0xff51afd7ed558ccdull;
  page ^= page >> 33;
  page *= 0xc4ceb9fe1a85ec53ull;
  return (page ^ page >> 33) < m->sample_below;
}

/* Puts page at the front of the recent list, shifting the n above it down. */
static inline void to_front(uint64_t *recent, unsigned n, uint64_t page) {
  for (unsigned j = n; j > 0; j--) recent[j] = recent[j - 1];
  recent[0] = page;
}

/* A deep reference to a sampled page: its distance, scaled, or a first use. */
static inline void count_deep(const mrc *m, mrc_lane *l, uint64_t page) {
  uint64_t newer, max = m->spec.max_entries, bucket = max;
  if (outside_take(&l->out, page, &newer)) {
    double dist = MRC_RECENT + (double)newer * m->scale;
    bucket = dist < (double)max ? (uint64_t)dist : max;
  }
  l->deep_hist[bucket]++;
  l->deep_sampled++;
}

static int reference(mrc *m, mrc_lane *l, uint64_t page) {
  l->refs++;
  if (m->spec.opt) {
    int rc = opt_reference(&l->opt, page);
    if (rc) return rc;
  }
  unsigned n = l->nrecent, depth = 1;
  if (n && l->recent[0] == page) return 0;
  while (depth < n && l->recent[depth] != page) depth++;
  if (depth < n) {
    l->near_hist[depth]++;
    sets_recent(&l->sets, page, l->recent, depth);
    to_front(l->recent, depth, page);
    return 0;
  }
  l->deep++;
  if (sampled(m, page)) count_deep(m, l, page);
  sets_deep(&l->sets, page);
  if (n == MRC_RECENT) {
    uint64_t fallen = l->recent[--n];
    if (sampled(m, fallen) && outside_push(&l->out, fallen)) return -1;
  } else {
    l->nrecent++;
  }
  to_front(l->recent, n, page);
  return 0;
}

/* Every reference of one access to lane l: 0, or reference's error. */
static inline int lane_access(mrc *m, mrc_lane *l, uint64_t va, uint64_t size) {
  uint64_t page;
  for (uint64_t n = trace_pages(va, size ? size : 1, l->shift, &page); n; n--, page++) {
    int rc = reference(m, l, page);
    if (rc) return rc;
  }
  return 0;
}

int mrc_access(mrc *m, uint64_t va, uint64_t size) {
  for (unsigned i = 0; i < m->spec.npage_shifts; i++)
    if (lane_access(m, &m->lane[i], va, size)) return -1;
  return 0;
}

/* What an mrc cannot take among the records a block keeps whole: an access
 * relative to an allocation, another address space. */
static int check_other(const trace_record *r, const char *file, diag *d) {
  if (r->kind == REC_ACCESS && r->relative)
    return diag_set(d, file, r->line, "access at @%llu: mrc needs absolute addresses (it models no allocator)",
                    (unsigned long long)r->alloc_id);
  if (r->kind == REC_CTX && r->asid)
    return diag_set(d, file, r->line, "ctx %u: mrc models one address space (ASID 0)", r->asid);
  return 0;
}

static inline bool counts(const mrc *m, unsigned access) { return access != TRACE_EXEC || m->spec.inst; }

/* Lane by lane, so each lane's list and stacks stay in cache for the whole
 * block: lanes are independent, only the order within one matters. A bad
 * record anywhere in the block stops the pass before any of it is counted. */
int mrc_run_block(mrc *m, const trace_block *b, const char *file, diag *d) {
  for (size_t k = 0; k < b->nother; k++)
    if (check_other(&b->other[k], file, d)) return -1;
  for (unsigned i = 0; i < m->spec.npage_shifts; i++) {
    mrc_lane *l = &m->lane[i];
    size_t other = 0;
    for (size_t k = 0; k < b->n; k++) {
      const trace_acc *a = &b->acc[k];
      uint64_t va = a->addr, size = a->size;
      if (a->kind == TRACE_ACC_OTHER) {
        const trace_record *r = &b->other[other++];
        if (r->kind != REC_ACCESS || !counts(m, r->access)) continue;
        va = r->addr;
        size = r->size;
      } else if (!counts(m, a->kind)) {
        continue;
      }
      int rc = lane_access(m, l, va, size);
      if (rc == -2) return diag_set(d, file, b->line[k], "OPT logs every reference: more than 2^32 - 2 of them");
      if (rc) return diag_set(d, file, b->line[k], "out of memory");
    }
  }
  return 0;
}

uint64_t mrc_references(const mrc *m, unsigned i) { return m->lane[i].refs; }

bool mrc_measures(const mrc *m, uint32_t sets, uint32_t ways) {
  if (sets == 1) return ways >= 1 && ways <= m->spec.max_entries;
  if (!is_pow2(sets) || sets > m->spec.max_sets || ways < 1) return false;
  return ways <= m->lane[0].sets.level[log2_u64(sets)].depth;
}

/* Deep references that miss in C entries: all of them up to MRC_RECENT
 * entries, else those at distance C or more, the sampled count scaled to
 * all deep references (exact when every page is sampled). */
static uint64_t deep_misses(const mrc_lane *l, uint32_t c, uint32_t max) {
  if (c <= MRC_RECENT) return l->deep;
  uint64_t at_least = 0;
  for (uint32_t d = c; d <= max; d++) at_least += l->deep_hist[d];
  if (l->deep_sampled == l->deep || !l->deep_sampled) return at_least;
  return (uint64_t)llround((double)at_least * (double)l->deep / (double)l->deep_sampled);
}

uint64_t mrc_misses(const mrc *m, unsigned i, uint32_t sets, uint32_t ways) {
  const mrc_lane *l = &m->lane[i];
  if (sets > 1) return sets_misses(&l->sets, log2_u64(sets), ways);
  uint64_t near = 0;
  for (uint32_t d = ways; d < MRC_RECENT; d++) near += l->near_hist[d];
  return near + deep_misses(l, ways, m->spec.max_entries);
}

int mrc_finish(mrc *m, diag *d) {
  for (unsigned i = 0; m->spec.opt && i < m->spec.npage_shifts; i++)
    if (opt_finish(&m->lane[i].opt, m->spec.max_entries))
      return diag_set(d, NULL, 0, "out of memory for OPT's next uses");
  for (unsigned i = 0; m->spec.max_entries > MRC_RECENT_EXACT && i < m->spec.npage_shifts; i++) {
    const mrc_lane *l = &m->lane[i];
    char page[32];
    if (l->deep && !l->deep_sampled)
      return diag_set(d, NULL, 0,
                      "sample rate %g sampled none of the %llu references past the %u most recent %s pages: no "
                      "estimate for more entries; use a higher rate",
                      m->spec.sample_rate, (unsigned long long)l->deep, MRC_RECENT_EXACT,
                      num_format_size(UINT64_C(1) << l->shift, page, sizeof page));
  }
  return 0;
}

uint64_t mrc_opt_misses(const mrc *m, unsigned i, uint32_t entries) {
  return opt_misses(&m->lane[i].opt, entries, m->spec.max_entries);
}

int mrc_replay(mrc *m, trace_reader *r, int (*each_block)(void *ctx), void *ctx, diag *d) {
  trace_block *b = malloc(sizeof *b);
  if (!b) return diag_set(d, trace_get_path(r), 0, "out of memory");
  int rc;
  bool stopped = false;
  while ((rc = trace_read_block(r, b, d)) == 1) {
    if (mrc_run_block(m, b, trace_get_path(r), d)) {
      rc = -1;
      break;
    }
    if (each_block && (stopped = each_block(ctx) != 0)) break;
  }
  free(b);
  if (stopped) rc = 0;
  if (rc) return -1;
  diag why;
  return mrc_finish(m, &why) ? diag_set(d, trace_get_path(r), 0, "%s", why.msg) : stopped;
}
