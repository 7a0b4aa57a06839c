/* test_mrc.c — one-pass miss-ratio curves against brute force: every
 * geometry an mrc measures is also simulated on its own with the real tlb
 * module (LRU, modulo index), on random and adversarial page streams at
 * several page sizes, and the miss counts must be equal. Then the edges
 * (empty trace, one page, sizes beyond the distinct pages), renumbering of
 * fall times forced small, sampling, and records read from trace files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tlbsim/mrc.h"
#include "tlbsim/tlb.h"

typedef struct mem_access {
  uint64_t va, size;
} mem_access;

typedef struct stream {
  mem_access *a;
  size_t n, cap;
} stream;

static void push(stream *s, uint64_t va, uint64_t size) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->a = realloc(s->a, s->cap * sizeof *s->a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->a);
  }
  s->a[s->n++] = (mem_access){va, size};
}

/* The misses of one LRU array of sets x ways, simulated alone with tlb.h:
 * each page an access touches is looked up, and filled on a miss. */
static uint64_t brute_misses(const stream *s, unsigned shift, uint32_t sets, uint32_t ways) {
  tlb_geometry g = {.entries = sets * ways, .ways = ways, .policy = TLB_LRU, .index = TLB_INDEX_MODULO,
                    .sector_pages = 1, .npage_shifts = 1, .page_shift = {(uint8_t)shift}};
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  uint64_t misses = 0;
  for (size_t i = 0; i < s->n; i++) {
    uint64_t last = (s->a[i].va + (s->a[i].size - 1)) >> shift;
    for (uint64_t page = s->a[i].va >> shift; page <= last; page++)
      if (!tlb_lookup(t, page << shift, 0, NULL)) {
        misses++;
        tlb_fill(t, page << shift, 0, shift, 0, 7, 0, NULL);
      }
  }
  tlb_destroy(t);
  return misses;
}

static mrc *run_mrc(const mrc_spec *spec, const stream *s) {
  diag d;
  mrc *m = mrc_create(spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  for (size_t i = 0; i < s->n; i++) CU_ASSERT_EQUAL_FATAL(mrc_access(m, s->a[i].va, s->a[i].size), 0);
  return m;
}

static uint64_t references(const stream *s, unsigned shift) {
  uint64_t n = 0;
  for (size_t i = 0; i < s->n; i++) n += ((s->a[i].va + s->a[i].size - 1) >> shift) - (s->a[i].va >> shift) + 1;
  return n;
}

/* The next fully associative size to compare after c: every size around
 * the recent list's length (where the two tiers meet), then every eighth. */
static uint32_t next_fa_size(uint32_t c) { return c < MRC_RECENT_EXACT + 8 ? c + 1 : c + 8; }

/* Fully associative sizes up to fa_max (see next_fa_size) and every
 * measured set count x ways, at every page size of the spec, equal brute
 * force. Returns the geometries compared. */
static unsigned check_all(const mrc_spec *spec, const stream *s, uint32_t fa_max) {
  mrc *m = run_mrc(spec, s);
  unsigned compared = 0;
  for (unsigned i = 0; i < spec->npage_shifts; i++) {
    unsigned shift = spec->page_shift[i];
    CU_ASSERT_EQUAL(mrc_references(m, i), references(s, shift));
    for (uint32_t sets = 1; sets <= spec->max_sets; sets *= 2)
      for (uint32_t ways = 1; sets * ways <= (sets == 1 ? fa_max : spec->max_entries);
           ways = sets == 1 ? next_fa_size(ways) : ways + 1) {
        if (!mrc_measures(m, sets, ways)) continue;
        uint64_t got = mrc_misses(m, i, sets, ways), want = brute_misses(s, shift, sets, ways);
        if (got != want)
          printf("\n  page 2^%u, %u sets x %u ways: mrc %llu, tlb %llu", shift, sets, ways, (unsigned long long)got,
                 (unsigned long long)want);
        CU_ASSERT_EQUAL(got, want);
        compared++;
      }
  }
  mrc_destroy(m);
  return compared;
}

static const mrc_spec base_spec = {.npage_shifts = 3, .page_shift = {12, 21, 16}, .max_entries = 128,
                                   .max_sets = 32, .max_ways = 8, .sample_rate = 1};

/* ---- random streams ------------------------------------------------------ */

/* n accesses over `pages` pages of 4 KiB from base: uniform, or with a hot
 * eighth taking most of them; sizes 1..8 bytes, or up to two pages (many
 * straddle). */
static stream random_stream(uint64_t seed, size_t n, uint64_t pages, uint64_t base, bool hot, bool wide) {
  stream s = {0};
  rng r;
  rng_seed(&r, seed);
  for (size_t i = 0; i < n; i++) {
    uint64_t span = hot && rng_below(&r, 4) ? pages / 8 + 1 : pages;
    uint64_t va = base + rng_below(&r, span << 12);
    push(&s, va, wide ? 1 + rng_below(&r, 8192) : 1 + rng_below(&r, 8));
  }
  return s;
}

static void test_random_uniform(void) {
  stream s = random_stream(1, 20000, 300, 0x7f0000000000, false, false);
  CU_ASSERT(check_all(&base_spec, &s, 128) > 150);
  free(s.a);
}

static void test_random_hot_straddling(void) {
  stream s = random_stream(2, 20000, 2000, 0x10000000, true, true);
  CU_ASSERT(check_all(&base_spec, &s, 128) > 150);
  free(s.a);
}

static void test_random_small_pages(void) {
  /* 2-byte and 64-byte pages over 600 bytes: page numbers with many low
   * bits in play, and accesses straddling up to 5 pages. */
  mrc_spec spec = base_spec;
  spec.npage_shifts = 2;
  spec.page_shift[0] = 1;
  spec.page_shift[1] = 6;
  stream s = {0};
  rng r;
  rng_seed(&r, 3);
  for (int i = 0; i < 10000; i++) push(&s, 0x5000 + rng_below(&r, 600), 1 + rng_below(&r, 8));
  check_all(&spec, &s, 128);
  free(s.a);
}

/* ---- adversarial streams ------------------------------------------------- */

static void test_set_thrash(void) {
  /* For each set count: cycles over ways + 1 pages of one set (a stride of
   * `sets` pages), then over `ways` pages (all hit after the first lap). */
  stream s = {0};
  for (uint64_t sets = 1; sets <= 32; sets *= 2)
    for (uint64_t ways = 1; ways <= 8; ways *= 2)
      for (int lap = 0; lap < 4; lap++) {
        for (uint64_t w = 0; w <= ways; w++) push(&s, (w * sets + 7) << 12, 8);
        for (uint64_t w = 0; w < ways; w++) push(&s, (w * sets + 9) << 12, 8);
      }
  check_all(&base_spec, &s, 128);
  free(s.a);
}

static void test_high_bits(void) {
  /* Pages that differ only above bit 40 share every set at every count;
   * pages at the top of the address space; page 0. */
  stream s = {0};
  for (int lap = 0; lap < 20; lap++)
    for (uint64_t i = 0; i < 12; i++) {
      push(&s, (i << 52) | 0x3000, 4);
      push(&s, UINT64_MAX - (i << 12) - 7, 8); /* the last page's last bytes */
      push(&s, i & 1 ? 0 : (1ull << 63) | 0x5000, 1);
    }
  check_all(&base_spec, &s, 128);
  free(s.a);
}

static void test_sweeps_and_deep_returns(void) {
  /* Forward and backward sweeps with straddling 8-byte accesses, then a
   * burst of new pages with returns to old ones at growing distances
   * (past the recent list and the largest size). */
  stream s = {0};
  for (int lap = 0; lap < 3; lap++) {
    for (uint64_t va = 0x100000 - 4; va < 0x100000 + 200 * 4096; va += 1020) push(&s, va, 8);
    for (uint64_t va = 0x100000 + 200 * 4096; va > 0x100000; va -= 4093) push(&s, va, 8);
  }
  for (uint64_t d = 1; d < 400; d += d / 3 + 1) {
    for (uint64_t i = 0; i < d; i++) push(&s, (0x9000000 + d * 1000 + i) << 12, 1);
    push(&s, 0x100000 + (d % 200) * 4096, 1);
  }
  check_all(&base_spec, &s, 128);
  free(s.a);
}

static void test_alternating_and_large_accesses(void) {
  /* Two pages alternating (distance 1 all along), and single accesses
   * spanning many pages (each page one reference, in order). */
  stream s = {0};
  for (int i = 0; i < 500; i++) push(&s, i & 1 ? 0x7ffd0000 : 0x601000 + (uint64_t)(i % 7) * 8, 8);
  for (int i = 0; i < 40; i++) push(&s, 0x40000000 + (uint64_t)i * 0x3000, 5 * 4096 + 17);
  check_all(&base_spec, &s, 128);
  free(s.a);
}

/* ---- edges --------------------------------------------------------------- */

static void test_empty(void) {
  stream s = {0};
  mrc *m = run_mrc(&base_spec, &s);
  for (unsigned i = 0; i < base_spec.npage_shifts; i++) {
    CU_ASSERT_EQUAL(mrc_references(m, i), 0);
    CU_ASSERT_EQUAL(mrc_misses(m, i, 1, 1), 0);
    CU_ASSERT_EQUAL(mrc_misses(m, i, 1, 128), 0);
    CU_ASSERT_EQUAL(mrc_misses(m, i, 32, 4), 0);
  }
  mrc_destroy(m);
}

static void test_one_page(void) {
  stream s = {0};
  for (int i = 0; i < 1000; i++) push(&s, 0x1234000 + (uint64_t)i % 4000, 4);
  mrc *m = run_mrc(&base_spec, &s);
  for (uint32_t sets = 1; sets <= 32; sets *= 2)
    for (uint32_t ways = 1; ways <= 4; ways++) CU_ASSERT_EQUAL(mrc_misses(m, 0, sets, ways), 1);
  CU_ASSERT_EQUAL(mrc_references(m, 0), 1000);
  mrc_destroy(m);
  free(s.a);
}

static void test_beyond_distinct_pages(void) {
  /* 50 distinct pages, many laps: 50 entries or more miss only first uses. */
  stream s = {0};
  for (int lap = 0; lap < 30; lap++)
    for (uint64_t p = 0; p < 50; p++) push(&s, (p * 3 + 1) << 12, 1);
  mrc *m = run_mrc(&base_spec, &s);
  CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, 49), 1500);
  for (uint32_t c = 50; c <= 128; c++) CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, c), 50);
  mrc_destroy(m);
  check_all(&base_spec, &s, 128);
  free(s.a);
}

/* ---- renumbering of fall times ------------------------------------------- */

static void test_compaction(void) {
  /* 60,000 references over 3,000 pages with times renumbered every 64
   * falls: the same histogram as the default, and brute force agrees on
   * sizes around the distinct count. */
  stream s = random_stream(4, 60000, 3000, 0x200000000, true, false);
  mrc_spec spec = {.npage_shifts = 1, .page_shift = {12}, .max_entries = 4096, .max_sets = 1, .sample_rate = 1};
  mrc *plain = run_mrc(&spec, &s);
  spec.compact_at = 64;
  mrc *small = run_mrc(&spec, &s);
  for (uint32_t c = 1; c <= 4096; c++) CU_ASSERT_EQUAL(mrc_misses(small, 0, 1, c), mrc_misses(plain, 0, 1, c));
  static const uint32_t sizes[] = {1, 31, 32, 33, 100, 1000, 2500, 2999, 3000, 3001};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    CU_ASSERT_EQUAL(mrc_misses(small, 0, 1, sizes[i]), brute_misses(&s, 12, 1, sizes[i]));
  mrc_destroy(plain);
  mrc_destroy(small);
  free(s.a);
}

/* ---- spec, geometries, sampling ------------------------------------------ */

static void test_measures(void) {
  mrc_spec spec = {.npage_shifts = 1, .page_shift = {12}, .max_entries = 64, .max_sets = 16, .max_ways = 8,
                   .sample_rate = 1};
  diag d;
  mrc *m = mrc_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT(mrc_measures(m, 1, 1) && mrc_measures(m, 1, 64) && !mrc_measures(m, 1, 65) && !mrc_measures(m, 1, 0));
  CU_ASSERT(mrc_measures(m, 2, 8) && !mrc_measures(m, 2, 9));
  CU_ASSERT(mrc_measures(m, 8, 8) && mrc_measures(m, 16, 4) && !mrc_measures(m, 16, 5)); /* 16 x 4 = 64 */
  CU_ASSERT(!mrc_measures(m, 32, 1) && !mrc_measures(m, 3, 1));
  mrc_destroy(m);
}

static void test_spec_errors(void) {
  static const struct {
    mrc_spec spec;
    const char *msg;
  } bad[] = {
      {{.npage_shifts = 0, .max_entries = 8, .max_sets = 1, .sample_rate = 1}, "page sizes"},
      {{.npage_shifts = 2, .page_shift = {12, 12}, .max_entries = 8, .max_sets = 1, .sample_rate = 1}, "twice"},
      {{.npage_shifts = 1, .page_shift = {0}, .max_entries = 8, .max_sets = 1, .sample_rate = 1}, "page shift"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 0, .max_sets = 1, .sample_rate = 1}, "max entries"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = MRC_MAX_ENTRIES + 1, .max_sets = 1, .sample_rate = 1},
       "max entries"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 6, .max_ways = 1, .sample_rate = 1},
       "max sets"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 16, .max_ways = 1, .sample_rate = 1},
       "max sets"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 4, .max_ways = 0, .sample_rate = 1},
       "max ways"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 1, .sample_rate = 0}, "sample rate"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 1, .sample_rate = 1.5}, "sample rate"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 1, .sample_rate = 4.9e-324}, "sample rate"},
      {{.npage_shifts = 1, .page_shift = {12}, .max_entries = 8, .max_sets = 1, .sample_rate = MRC_SAMPLE_MIN / 2},
       "not from 1e-06 to 1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    diag d = {{0}};
    CU_ASSERT_EQUAL(mrc_spec_check(&bad[i].spec, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, bad[i].msg));
    CU_ASSERT_PTR_NULL(mrc_create(&bad[i].spec, &d));
  }
}

static void test_sampling(void) {
  /* A skewed stream over 20,000 pages at rate 0.1: fully associative sizes
   * up to MRC_RECENT_EXACT and every set-associative array stay exact;
   * larger sizes are within 0.01 of the exact miss ratio, never above the
   * references, and the curve does not rise with size. */
  stream s = random_stream(5, 200000, 20000, 0x300000000, true, false);
  mrc_spec spec = {.npage_shifts = 1, .page_shift = {12}, .max_entries = 16384, .max_sets = 64, .max_ways = 4,
                   .sample_rate = 1};
  mrc *exact = run_mrc(&spec, &s);
  spec.sample_rate = 0.1;
  mrc *est = run_mrc(&spec, &s);
  CU_ASSERT_EQUAL(mrc_references(est, 0), mrc_references(exact, 0));
  for (uint32_t c = 1; c <= MRC_RECENT_EXACT; c++) CU_ASSERT_EQUAL(mrc_misses(est, 0, 1, c), mrc_misses(exact, 0, 1, c));
  for (uint32_t sets = 2; sets <= 64; sets *= 2)
    for (uint32_t ways = 1; ways <= 4; ways++)
      CU_ASSERT_EQUAL(mrc_misses(est, 0, sets, ways), mrc_misses(exact, 0, sets, ways));
  double refs = (double)mrc_references(exact, 0), worst = 0;
  uint64_t prev = UINT64_MAX;
  for (uint32_t c = 1; c <= 16384; c *= 2) {
    uint64_t e = mrc_misses(est, 0, 1, c);
    double err = fabs(((double)e - (double)mrc_misses(exact, 0, 1, c)) / refs);
    worst = err > worst ? err : worst;
    CU_ASSERT(e <= prev && e <= mrc_references(est, 0));
    prev = e;
  }
  CU_ASSERT(worst < 0.01);
  mrc_destroy(exact);
  mrc_destroy(est);
  free(s.a);
}

/* A rate that samples none of the deep references: every larger array's
 * estimate would be 0 misses, below the first uses; mrc_finish refuses
 * it, unless no row past MRC_RECENT_EXACT entries is measured. */
static void test_sampled_none(void) {
  stream s = random_stream(5, 2000, 200, 0x300000000, false, false);
  mrc_spec spec = {.npage_shifts = 1, .page_shift = {12}, .max_entries = 1024, .max_sets = 1,
                   .sample_rate = MRC_SAMPLE_MIN};
  mrc *m = mrc_create(&spec, NULL);
  CU_ASSERT_FATAL(m != NULL);
  for (size_t i = 0; i < s.n; i++) CU_ASSERT_EQUAL(mrc_access(m, s.a[i].va, s.a[i].size), 0);
  diag d;
  CU_ASSERT_EQUAL(mrc_finish(m, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "sample rate 1e-06 sampled none of the"));
  mrc_destroy(m);
  spec.max_entries = MRC_RECENT_EXACT;
  m = mrc_create(&spec, NULL);
  for (size_t i = 0; i < s.n; i++) CU_ASSERT_EQUAL(mrc_access(m, s.a[i].va, s.a[i].size), 0);
  CU_ASSERT_EQUAL(mrc_finish(m, &d), 0);
  mrc_destroy(m);
  free(s.a);
}

/* ---- records from trace files -------------------------------------------- */

static void write_temp(const char *text, char path[32]) {
  strcpy(path, "mrc-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
}

/* Reads text through the block reader into an mrc of 4 KiB pages; returns
 * the last result (0 at the end, -1 on error in *d). */
static int read_into(mrc *m, const char *text, diag *d) {
  char path[32];
  write_temp(text, path);
  trace_reader *r = trace_open(path, TRACE_AUTO, d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  trace_block *b = malloc(sizeof *b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  int rc;
  while ((rc = trace_read_block(r, b, d)) == 1)
    if (mrc_run_block(m, b, path, d)) {
      rc = -1;
      break;
    }
  free(b);
  trace_close(r);
  unlink(path);
  return rc;
}

static mrc *fresh(bool inst) {
  mrc_spec spec = {.npage_shifts = 1, .page_shift = {12}, .max_entries = 16, .max_sets = 4, .max_ways = 4,
                   .sample_rate = 1, .inst = inst};
  diag d;
  mrc *m = mrc_create(&spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  return m;
}

static void test_records(void) {
  static const char lackey[] = "==1== banner\nI  00400000,4\n L 00001ff8,16\n S 00003000,8\n M 00003004,4\n"
                               "I  00400004,4\n";
  diag d;
  mrc *m = fresh(false);
  CU_ASSERT_EQUAL(read_into(m, lackey, &d), 0);
  CU_ASSERT_EQUAL(mrc_references(m, 0), 4); /* pages 1, 2 (straddle), 3, 3: fetches skipped */
  CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, 16), 3);
  mrc_destroy(m);
  m = fresh(true);
  CU_ASSERT_EQUAL(read_into(m, lackey, &d), 0);
  CU_ASSERT_EQUAL(mrc_references(m, 0), 6); /* and page 0x400 twice */
  CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, 16), 4);
  mrc_destroy(m);

  /* Layout records and marks are skipped; ctx 0 is the one address space. */
  m = fresh(false);
  CU_ASSERT_EQUAL(read_into(m, "map 0x10000 64K\nmark a\nctx 0\nr 0x10000 8\nunmap 0x10000 64K\nr 0x10000 8\n"
                               "x 0x20000 4\n", &d), 0);
  CU_ASSERT_EQUAL(mrc_references(m, 0), 2);
  CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, 1), 1);
  mrc_destroy(m);

  m = fresh(false);
  CU_ASSERT_EQUAL(read_into(m, "alloc 1 4K\nr 0x1000 8\nr @1+8 8\n", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":3: access at @1: mrc needs absolute addresses"));
  mrc_destroy(m);
  m = fresh(false);
  CU_ASSERT_EQUAL(read_into(m, "r 0x1000 8\nctx 2\nr 0x1000 8\n", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":2: ctx 2: mrc models one address space"));
  mrc_destroy(m);
}

/* ---- Belady's OPT ----------------------------------------------------------- */

/* The page numbers of every reference of s at 2^shift (straddles split). */
static uint64_t *page_refs(const stream *s, unsigned shift, size_t *n) {
  size_t total = (size_t)references(s, shift), k = 0;
  uint64_t *p = malloc((total ? total : 1) * sizeof *p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  for (size_t i = 0; i < s->n; i++)
    for (uint64_t page = s->a[i].va >> shift; page <= (s->a[i].va + s->a[i].size - 1) >> shift; page++) p[k++] = page;
  *n = total;
  return p;
}

/* Belady by the definition: a miss with the array full evicts the held page
 * whose next use is furthest (never used again counts as furthest), found
 * by scanning ahead. Quadratic; for small streams. */
static uint64_t brute_opt(const uint64_t *ref, size_t n, uint32_t entries) {
  uint64_t *held = malloc(entries * sizeof *held), misses = 0;
  CU_ASSERT_PTR_NOT_NULL_FATAL(held);
  uint32_t nheld = 0;
  for (size_t t = 0; t < n; t++) {
    uint32_t j = 0;
    while (j < nheld && held[j] != ref[t]) j++;
    if (j < nheld) continue;
    misses++;
    if (nheld < entries) {
      held[nheld++] = ref[t];
      continue;
    }
    uint32_t victim = 0;
    size_t furthest = 0;
    for (j = 0; j < nheld; j++) {
      size_t u = t + 1;
      while (u < n && ref[u] != held[j]) u++;
      if (u > furthest) furthest = u, victim = j;
      if (u == n) break;
    }
    held[victim] = ref[t];
  }
  free(held);
  return misses;
}

static void check_opt(const stream *s, const mrc_spec *spec, uint32_t fa_max) {
  mrc *m = run_mrc(spec, s);
  diag d;
  CU_ASSERT_EQUAL_FATAL(mrc_finish(m, &d), 0);
  for (unsigned i = 0; i < spec->npage_shifts; i++) {
    size_t n;
    uint64_t *ref = page_refs(s, spec->page_shift[i], &n);
    for (uint32_t c = 1; c <= fa_max; c = next_fa_size(c)) {
      uint64_t got = mrc_opt_misses(m, i, c), want = brute_opt(ref, n, c);
      if (got != want)
        printf("\n  OPT page 2^%u, %u entries: mrc %llu, brute force %llu", spec->page_shift[i], c,
               (unsigned long long)got, (unsigned long long)want);
      CU_ASSERT_EQUAL(got, want);
      CU_ASSERT(got <= mrc_misses(m, i, 1, c)); /* no policy beats OPT, LRU included */
    }
    free(ref);
  }
  mrc_destroy(m);
}

static void test_opt(void) {
  mrc_spec spec = base_spec;
  spec.opt = true;
  stream s = random_stream(11, 4000, 300, 0x7f0000000000, true, false);
  check_opt(&s, &spec, 128);
  free(s.a);
  /* Straddling accesses and a working set beyond the largest size, where
   * pages are carried past the cut. */
  s = random_stream(12, 3000, 600, 0x10000000, false, true);
  spec.max_entries = 48;
  spec.max_sets = 1;
  check_opt(&s, &spec, 48);
  free(s.a);
  /* A loop over 64 pages, four times: after the first pass OPT misses 64 - C
   * per pass, LRU (C < 64) every page. */
  stream loop = {0};
  for (int pass = 0; pass < 4; pass++)
    for (uint64_t p = 0; p < 64; p++) push(&loop, p << 12, 8);
  spec = base_spec;
  spec.npage_shifts = 1;
  spec.opt = true;
  mrc *m = run_mrc(&spec, &loop);
  diag d;
  CU_ASSERT_EQUAL_FATAL(mrc_finish(m, &d), 0);
  CU_ASSERT_EQUAL(mrc_opt_misses(m, 0, 32), 64 + 3 * 32);
  CU_ASSERT_EQUAL(mrc_misses(m, 0, 1, 32), 256);
  CU_ASSERT_EQUAL(mrc_opt_misses(m, 0, 64), 64);
  mrc_destroy(m);
  free(loop.a);
  spec.sample_rate = 0.5;
  CU_ASSERT_PTR_NULL(mrc_create(&spec, &d));
  CU_ASSERT_STRING_EQUAL(d.msg, "OPT needs every reference: not with sampling");
}

int main(void) {
  static const test_case exact[] = {{"random_uniform", test_random_uniform},
                                    {"random_hot_straddling", test_random_hot_straddling},
                                    {"random_small_pages", test_random_small_pages},
                                    {"set_thrash", test_set_thrash},
                                    {"high_bits", test_high_bits},
                                    {"sweeps_and_deep_returns", test_sweeps_and_deep_returns},
                                    {"alternating_and_large_accesses", test_alternating_and_large_accesses},
                                    {NULL, NULL}};
  static const test_case edges[] = {{"empty", test_empty},
                                    {"one_page", test_one_page},
                                    {"beyond_distinct_pages", test_beyond_distinct_pages},
                                    {"compaction", test_compaction},
                                    {NULL, NULL}};
  static const test_case api[] = {{"measures", test_measures},
                                  {"spec_errors", test_spec_errors},
                                  {"sampling", test_sampling},
                                  {"sampled_none", test_sampled_none},
                                  {"records", test_records},
                                  {"opt", test_opt},
                                  {NULL, NULL}};
  static const test_suite suites[] = {
      {"mrc_exact", exact}, {"mrc_edges", edges}, {"mrc_api", api}, {NULL, NULL}};
  return harness_run(suites);
}
