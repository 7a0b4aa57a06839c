/* Tests for tlb.c against hand-worked sequences. Pages are 4 KiB unless said;
 * "page n" is va n << 12, and a miss fills it with pa (n + 0x100) << 12. */
#include "harness.h"
#include "tlbsim/pt.h" /* PT_R and friends */
#include "tlbsim/tlb.h"

#include <stdio.h>
#include <string.h>

static tlb_geometry geom(uint32_t entries, uint32_t ways, tlb_policy p) {
  return (tlb_geometry){.entries = entries, .ways = ways, .policy = p, .index = TLB_INDEX_MODULO,
                        .sector_pages = 1, .npage_shifts = 1, .page_shift = {12}, .seed = 1};
}

static tlb *mk(uint32_t entries, uint32_t ways, tlb_policy p) {
  tlb_geometry g = geom(entries, ways, p);
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  return t;
}

static uint64_t pg(uint64_t n) { return n << 12; }

/* One access: 'H' on a hit, else fills and returns 'M'. */
static char acc(tlb *t, uint64_t n) {
  if (tlb_lookup(t, pg(n) + 0x10, 0, NULL)) return 'H';
  CU_ASSERT(tlb_fill(t, pg(n), 0, 12, pg(n + 0x100), 7, 0, NULL));
  return 'M';
}

/* Runs the access sequence and returns the hit/miss pattern. */
static const char *run_seq(tlb *t, const uint64_t *seq, size_t n, char *buf) {
  for (size_t i = 0; i < n; i++) buf[i] = acc(t, seq[i]);
  buf[n] = 0;
  return buf;
}

static bool has(const tlb *t, uint64_t n) { return tlb_probe(t, pg(n), 0, NULL); }

/* A B C D A E B A C D on a 4-entry fully associative array. */
enum { A = 1, B, C, D, E };
static const uint64_t seq_abcd[] = {A, B, C, D, A, E, B, A, C, D};
#define NSEQ (sizeof seq_abcd / sizeof *seq_abcd)

static void test_lru_fa(void) {
  /* LRU order after each step (LRU first): A | AB | ABC | ABCD | BCDA (hit)
   * | E evicts B: CDAE | B evicts C: DAEB | A hit: DEBA | C evicts D: EBAC
   * | D evicts E: BACD */
  tlb *t = mk(4, 4, TLB_LRU);
  char buf[32];
  CU_ASSERT_STRING_EQUAL(run_seq(t, seq_abcd, NSEQ, buf), "MMMMHMMHMM");
  CU_ASSERT(has(t, A) && has(t, B) && has(t, C) && has(t, D) && !has(t, E));
  CU_ASSERT_EQUAL(tlb_occupancy(t), 4);
  tlb_destroy(t);
}

static void test_fifo_fa(void) {
  /* Queue (oldest first): ABCD, A hits without moving, E evicts A: BCDE,
   * B hit, A evicts B: CDEA, C and D hit. */
  tlb *t = mk(4, 4, TLB_FIFO);
  char buf[32];
  CU_ASSERT_STRING_EQUAL(run_seq(t, seq_abcd, NSEQ, buf), "MMMMHMHMHH");
  CU_ASSERT(has(t, A) && !has(t, B) && has(t, C) && has(t, D) && has(t, E));
  tlb_destroy(t);
}

static void test_plru_fa(void) {
  /* Bits b1 (root), b2 (ways 0-1), b3 (ways 2-3); 0 = victim on the left.
   * Fills A..D take ways 0..3 and leave b1=0 b2=0 b3=0. A hit: b1=1 b2=1.
   * E: root right, b3=0 -> way 2 (C); b1=0 b3=1. B hit: b1=1 b2=0. A hit:
   * b1=1 b2=1. C: right, b3=1 -> way 3 (D); b1=0 b3=0. D: left, b2=1 ->
   * way 1 (B). Ends with ways A D E C (LRU would have evicted B then C). */
  tlb *t = mk(4, 4, TLB_PLRU);
  char buf[32];
  const uint64_t first[] = {A, B, C, D, A, E};
  CU_ASSERT_STRING_EQUAL(run_seq(t, first, 6, buf), "MMMMHM");
  CU_ASSERT(has(t, A) && has(t, B) && !has(t, C) && has(t, D) && has(t, E));
  const uint64_t rest[] = {B, A, C};
  CU_ASSERT_STRING_EQUAL(run_seq(t, rest, 3, buf), "HHM");
  CU_ASSERT(has(t, A) && has(t, B) && has(t, C) && !has(t, D) && has(t, E));
  CU_ASSERT_EQUAL(acc(t, D), 'M');
  CU_ASSERT(has(t, A) && !has(t, B) && has(t, C) && has(t, D) && has(t, E));
  tlb_destroy(t);
}

static void test_plru_wide(void) {
  /* 128 ways: the tree spans two words of bits. After touching ways 0..127
   * in order every node points left of its last-touched child, so the
   * victim is way 0; touching way 0 flips the root, and the right subtree
   * (last touched at 127) leads to way 64. */
  tlb *t = mk(128, 128, TLB_PLRU);
  for (uint64_t n = 0; n < 128; n++) CU_ASSERT_EQUAL(acc(t, n), 'M');
  CU_ASSERT_EQUAL(acc(t, 1000), 'M');
  CU_ASSERT(!has(t, 0) && has(t, 64));
  CU_ASSERT_EQUAL(acc(t, 1000), 'H');
  /* 1000 sits in way 0 now (touched): the root points right again. */
  CU_ASSERT_EQUAL(acc(t, 1001), 'M');
  CU_ASSERT(!has(t, 64) && has(t, 1000) && has(t, 1));
  tlb_destroy(t);
}

static void test_random_policy(void) {
  /* 4 ways, 1 set; 8 pages round robin so most accesses miss. */
  uint64_t seq[200];
  for (size_t i = 0; i < 200; i++) seq[i] = (i * 5) % 8;
  char p1[256], p2[256], p3[256];
  tlb *t1 = mk(4, 4, TLB_RANDOM);
  tlb *t2 = mk(4, 4, TLB_RANDOM);
  run_seq(t1, seq, 200, p1);
  run_seq(t2, seq, 200, p2);
  CU_ASSERT_STRING_EQUAL(p1, p2); /* same seed, same choices */
  /* The first 4 distinct pages fill empty ways; a hit needs an earlier
   * access to the same page, and some accesses must hit (random keeps a
   * page with probability 3/4 per miss) and some miss. */
  CU_ASSERT_NSTRING_EQUAL(p1, "MMMM", 4);
  bool seen[8] = {false};
  unsigned hits = 0;
  for (size_t i = 0; i < 200; i++) {
    if (p1[i] == 'H') {
      CU_ASSERT(seen[seq[i]]);
      hits++;
    }
    seen[seq[i]] = true;
  }
  CU_ASSERT(hits > 10 && hits < 190);
  CU_ASSERT_EQUAL(tlb_occupancy(t1), 4);
  /* Another seed chooses differently on this sequence. */
  tlb_geometry g = geom(4, 4, TLB_RANDOM);
  g.seed = 99;
  diag d;
  tlb *t3 = tlb_create(&g, &d);
  run_seq(t3, seq, 200, p3);
  CU_ASSERT(strcmp(p1, p3) != 0);
  /* An access repeated at once always hits. */
  CU_ASSERT_EQUAL(acc(t1, 77), 'M');
  CU_ASSERT_EQUAL(acc(t1, 77), 'H');
  tlb_destroy(t1);
  tlb_destroy(t2);
  tlb_destroy(t3);
}

static void test_random_covers_ways(void) {
  /* Every way is chosen as a victim sooner or later. */
  tlb *t = mk(4, 4, TLB_RANDOM);
  for (uint64_t n = 0; n < 4; n++) acc(t, n);
  bool evicted[4] = {false};
  for (uint64_t n = 100; n < 164; n++) {
    for (uint64_t k = 0; k < 4; k++)
      if (!has(t, k)) evicted[k] = true;
    acc(t, n);
  }
  for (int k = 0; k < 4; k++) CU_ASSERT(evicted[k]);
  tlb_destroy(t);
}

static void test_set_assoc_modulo(void) {
  /* 8 entries, 2 ways: 4 sets, set = page & 3. Pages 0, 4, 8 share set 0;
   * 1 and 5 are in set 1. */
  tlb *t = mk(8, 2, TLB_LRU);
  char buf[32];
  const uint64_t seq[] = {0, 4, 1, 8, 5, 4, 0};
  /* 0 M, 4 M, 1 M, 8 M evicts 0 (set 0 LRU), 5 M (set 1 has room),
   * 4 H, 0 M evicts 8. */
  CU_ASSERT_STRING_EQUAL(run_seq(t, seq, 7, buf), "MMMMMHM");
  CU_ASSERT(has(t, 0) && has(t, 4) && !has(t, 8) && has(t, 1) && has(t, 5));
  tlb_destroy(t);
}

static void test_xor_index(void) {
  /* 16 sets direct mapped, 4-bit chunks. 0x5 -> set 5; 0x50 -> 0^5 = 5;
   * 0x15 -> 5^1 = 4. Under modulo 0x15 -> 5 and 0x50 -> 0. */
  tlb_geometry g = geom(16, 1, TLB_LRU);
  g.index = TLB_INDEX_XOR;
  diag d;
  tlb *x = tlb_create(&g, &d);
  tlb *m = mk(16, 1, TLB_LRU);
  acc(x, 0x5);
  acc(x, 0x15);
  CU_ASSERT(has(x, 0x5) && has(x, 0x15));
  acc(x, 0x50);
  CU_ASSERT(!has(x, 0x5) && has(x, 0x50) && has(x, 0x15));
  acc(m, 0x5);
  acc(m, 0x50);
  CU_ASSERT(has(m, 0x5) && has(m, 0x50));
  acc(m, 0x15);
  CU_ASSERT(!has(m, 0x5));
  tlb_destroy(x);
  tlb_destroy(m);

  /* 8 sets x 2 ways, 3-bit chunks: 0x1AB = 110 101 011 -> 6^5^3 = 0;
   * 0x9 = 001 001 -> 0; 0x0 -> 0. Three pages in set 0: LRU drops 0x0. */
  g = geom(16, 2, TLB_LRU);
  g.index = TLB_INDEX_XOR;
  x = tlb_create(&g, &d);
  acc(x, 0x0);
  acc(x, 0x9);
  acc(x, 0x1);  /* set 1: no effect on set 0 */
  acc(x, 0x1AB);
  CU_ASSERT(!has(x, 0x0) && has(x, 0x9) && has(x, 0x1AB) && has(x, 0x1));
  tlb_destroy(x);
}

static void test_bank_index(void) {
  /* 16 sets direct mapped, one bank bit: set = fold(tag >> 1, 3 bits) << 1 | tag & 1.
   * 0x2 -> rest 1 -> set 2; 0x10 -> rest 0x8 = 001 000 -> 1 -> set 2; 0x11 -> set 3.
   * Plain xor (4-bit chunks) puts 0x2 in set 2 and 0x10 in set 1. */
  tlb_geometry g = geom(16, 1, TLB_LRU);
  g.index = TLB_INDEX_XOR;
  g.bank_bits = 1;
  CU_ASSERT_EQUAL(tlb_set_index(&g, pg(0x2), 12), 2);
  CU_ASSERT_EQUAL(tlb_set_index(&g, pg(0x10), 12), 2);
  CU_ASSERT_EQUAL(tlb_set_index(&g, pg(0x11), 12), 3);
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  acc(t, 0x2);
  acc(t, 0x11);
  acc(t, 0x10);
  CU_ASSERT(!has(t, 0x2) && has(t, 0x10) && has(t, 0x11));
  tlb_destroy(t);

  /* Consecutive tags fill every set once; even tags only bank 0 (the even
   * sets), each twice: the capacity a stride of two entries sees halves. */
  unsigned seen[16] = {0}, even[16] = {0};
  for (uint64_t i = 0; i < 16; i++) {
    seen[tlb_set_index(&g, pg(i), 12)]++;
    even[tlb_set_index(&g, pg(2 * i), 12)]++;
  }
  for (unsigned s = 0; s < 16; s++) {
    CU_ASSERT_EQUAL(seen[s], 1);
    CU_ASSERT_EQUAL(even[s], s % 2 ? 0 : 2);
  }

  g.bank_bits = 5; /* more than log2(16 sets) */
  CU_ASSERT_PTR_NULL(tlb_create(&g, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "bank_bits"));
}

static void test_sector(void) {
  /* 4 entries, 4-page sectors: page 0x10 is page 0 of sector tag 4. */
  tlb_geometry g = geom(4, 4, TLB_LRU);
  g.sector_pages = 4;
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  tlb_hit h;
  CU_ASSERT(tlb_fill(t, pg(0x10), 0, 12, 0x100000, PT_R, 0x5, NULL)); /* pages 0 and 2 */
  CU_ASSERT(tlb_lookup(t, pg(0x10) + 0x123, 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x100123);
  CU_ASSERT_EQUAL(h.page_shift, 12);
  CU_ASSERT_FALSE(tlb_lookup(t, pg(0x11), 0, NULL));
  CU_ASSERT(tlb_lookup(t, pg(0x12) + 8, 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x102008); /* base + 2 pages */
  CU_ASSERT_FALSE(tlb_lookup(t, pg(0x13), 0, NULL));
  /* Filling page 1 merges into the same entry, at its own pa. */
  CU_ASSERT(tlb_fill(t, pg(0x11), 0, 12, 0x900000, PT_R, 0x2, NULL));
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);
  CU_ASSERT(tlb_lookup(t, pg(0x11), 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x900000);
  CU_ASSERT(tlb_lookup(t, pg(0x10), 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x100000);
  /* Invalidating clears one bit; the entry goes with its last bit. */
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(0x10), 12, 0), 1);
  CU_ASSERT_FALSE(tlb_probe(t, pg(0x10), 0, NULL));
  CU_ASSERT(tlb_probe(t, pg(0x11), 0, NULL) && tlb_probe(t, pg(0x12), 0, NULL));
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(0x10), 12, 0), 0);
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(0x11), 12, 0), 1);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(0x12), 12, 0), 1);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 0);

  /* The page's own bit is always set; a different prot replaces bits. */
  CU_ASSERT(tlb_fill(t, pg(0x21), 0, 12, 0x200000, PT_R, 0x0, NULL));
  CU_ASSERT(tlb_probe(t, pg(0x21), 0, NULL) && !tlb_probe(t, pg(0x20), 0, NULL));
  CU_ASSERT(tlb_fill(t, pg(0x22), 0, 12, 0x300000, PT_R | PT_W, 0xC, NULL));
  CU_ASSERT(!tlb_probe(t, pg(0x21), 0, NULL));
  CU_ASSERT(tlb_probe(t, pg(0x23), 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x301000);
  CU_ASSERT_EQUAL(h.prot, PT_R | PT_W);

  /* Pages at unrelated pas: each keeps its own. */
  const uint64_t pas[4] = {0x7000, 0x3000, 0x9000, 0x1000};
  CU_ASSERT(tlb_fill_sector(t, pg(0x41), 0, 12, pas, PT_R, 0xB, NULL)); /* pages 0, 1, 3 */
  for (int i = 0; i < 4; i++) {
    bool hit = tlb_probe(t, pg(0x40 + (uint64_t)i) + 4, 0, &h);
    CU_ASSERT_EQUAL(hit, i != 2);
    if (hit) CU_ASSERT_EQUAL(h.pa, pas[i] + 4);
  }
  /* A 16 KiB invalidation covers the whole sector: three bits. */
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(0x40), 14, 0), 3);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);

  /* Four sectors fill the four ways; a fifth evicts the LRU sector. */
  for (uint64_t s = 0; s < 4; s++) tlb_fill(t, pg(0x100 + 4 * s), 0, 12, 0, PT_R, 1, NULL);
  CU_ASSERT(!tlb_probe(t, pg(0x22), 0, NULL));
  tlb_destroy(t);
}

static void test_multi_size(void) {
  /* 4 KiB and 2 MiB in one 8-entry 2-way array (4 sets). The 2 MiB page at
   * 0x40000000 has tag 0x200, set 0; the 4 KiB page at 0x200000 also has
   * tag 0x200 and set 0: they must not alias. */
  tlb_geometry g = geom(8, 2, TLB_LRU);
  g.npage_shifts = 2;
  g.page_shift[1] = 21;
  diag d;
  tlb *t = tlb_create(&g, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT(tlb_holds_size(t, 21) && tlb_holds_size(t, 12) && !tlb_holds_size(t, 30));
  tlb_hit h;
  CU_ASSERT(tlb_fill(t, 0x40000000, 0, 21, 0x80000000, PT_R, 0, NULL));
  CU_ASSERT(tlb_lookup(t, 0x40012345, 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x80012345);
  CU_ASSERT_EQUAL(h.page_shift, 21);
  CU_ASSERT_FALSE(tlb_lookup(t, 0x200000, 0, NULL));
  CU_ASSERT(tlb_fill(t, 0x200000, 0, 12, 0x5000, PT_R, 0, NULL));
  CU_ASSERT(tlb_lookup(t, 0x200010, 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x5010);
  CU_ASSERT_EQUAL(h.page_shift, 12);
  CU_ASSERT(tlb_lookup(t, 0x401fffff, 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x801fffff);
  CU_ASSERT_FALSE(tlb_lookup(t, 0x201000, 0, NULL));
  CU_ASSERT_FALSE(tlb_fill(t, 0, 0, 30, 0, PT_R, 0, NULL)); /* size not held */
  /* A 4 KiB page at 0x1000 is in set 1 and the 2 MiB range [0, 2 MiB). */
  CU_ASSERT(tlb_fill(t, 0x1000, 0, 12, 0x6000, PT_R, 0, NULL));
  /* Invalidation drops what overlaps: a 2 MiB range takes the 4 KiB page
   * inside it but not the one at 0x200000; a 4 KiB page inside the 2 MiB
   * page takes the 2 MiB entry. */
  CU_ASSERT_EQUAL(tlb_invalidate(t, 0x0, 21, 0), 1);
  CU_ASSERT(!tlb_probe(t, 0x1000, 0, NULL) && tlb_probe(t, 0x200000, 0, NULL));
  CU_ASSERT_EQUAL(tlb_invalidate(t, 0x40003000, 12, 0), 1);
  CU_ASSERT(!tlb_probe(t, 0x40000000, 0, NULL));
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);
  tlb_destroy(t);
}

static void test_invalidate_range_scan(void) {
  /* 1 GiB over 4 KiB pages is more tags than sets: the whole-array scan
   * path. Pages inside go, the one outside stays. */
  tlb *t = mk(64, 4, TLB_LRU);
  for (uint64_t n = 0; n < 40; n++) acc(t, n * 0x101); /* set n & 15: at most 3 a set */
  acc(t, 0x40000); /* page at 1 GiB */
  CU_ASSERT_EQUAL(tlb_invalidate(t, 0x123456, 30, TLB_ANY_ASID), 40);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);
  CU_ASSERT(has(t, 0x40000));
  tlb_destroy(t);
}

static void test_asid_and_flush(void) {
  tlb *t = mk(8, 2, TLB_LRU);
  tlb_hit h;
  tlb_fill(t, pg(5), 1, 12, 0x10000, PT_R, 0, NULL);
  CU_ASSERT_FALSE(tlb_lookup(t, pg(5), 2, NULL));
  tlb_fill(t, pg(5), 2, 12, 0x20000, PT_R, 0, NULL);
  CU_ASSERT(tlb_lookup(t, pg(5), 1, &h));
  CU_ASSERT_EQUAL(h.pa, 0x10000);
  CU_ASSERT(tlb_lookup(t, pg(5), 2, &h));
  CU_ASSERT_EQUAL(h.pa, 0x20000);
  tlb_fill(t, pg(6), 1, 12, 0x30000, PT_R, 0, NULL);
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(5), 12, 2), 1);
  CU_ASSERT(tlb_probe(t, pg(5), 1, NULL));
  CU_ASSERT_EQUAL(tlb_flush(t, 1), 2);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 0);
  tlb_fill(t, pg(5), 1, 12, 0x10000, PT_R, 0, NULL);
  tlb_fill(t, pg(5), 2, 12, 0x20000, PT_R, 0, NULL);
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(5), 12, TLB_ANY_ASID), 2);
  tlb_fill(t, pg(7), 3, 12, 0, PT_R, 0, NULL);
  CU_ASSERT_EQUAL(tlb_flush(t, TLB_ANY_ASID), 1);
  tlb_destroy(t);
}

static void test_refill_updates(void) {
  /* Refilling a held page updates it in place, never duplicates it. */
  tlb *t = mk(4, 4, TLB_LRU);
  tlb_hit h;
  tlb_fill(t, pg(1), 0, 12, 0x1000, PT_R, 0, NULL);
  tlb_fill(t, pg(1), 0, 12, 0x2000, PT_R | PT_W, 0, NULL);
  CU_ASSERT_EQUAL(tlb_occupancy(t), 1);
  CU_ASSERT(tlb_probe(t, pg(1), 0, &h));
  CU_ASSERT_EQUAL(h.pa, 0x2000);
  CU_ASSERT_EQUAL(h.prot, PT_R | PT_W);
  tlb_destroy(t);
}

static void test_hint_rechecked(void) {
  /* A page's hinted slot must not hit once its entry is gone or replaced,
   * nor for a sector page whose bit is clear. */
  tlb *t = mk(1, 1, TLB_LRU);
  CU_ASSERT_EQUAL(acc(t, 1), 'M');
  CU_ASSERT_EQUAL(acc(t, 1), 'H');
  CU_ASSERT_EQUAL(tlb_invalidate(t, pg(1), 12, 0), 1);
  CU_ASSERT_EQUAL(acc(t, 1), 'M');
  CU_ASSERT_EQUAL(acc(t, 2), 'M'); /* replaces 1 in the only slot */
  CU_ASSERT_EQUAL(acc(t, 1), 'M');
  CU_ASSERT_FALSE(tlb_lookup(t, pg(1), 9, NULL)); /* other asid */
  tlb_destroy(t);
  tlb_geometry g = geom(1, 1, TLB_LRU);
  g.sector_pages = 2;
  diag d;
  t = tlb_create(&g, &d);
  tlb_fill(t, pg(4), 0, 12, 0, PT_R, 1, NULL);
  CU_ASSERT(tlb_lookup(t, pg(4), 0, NULL));
  CU_ASSERT_FALSE(tlb_lookup(t, pg(5), 0, NULL));
  tlb_destroy(t);
}

static void test_hint_collisions(void) {
  /* 64 ways, LRU (the wide set's recency list). Pages 0, 256 and 512
   * share a hint (256 hints, by the low bits of the page number): each
   * fill or scan takes the hint over, and every hit, hinted or not, must
   * leave the same LRU order as the full look-up. */
  tlb *t = mk(64, 64, TLB_LRU);
  for (uint64_t n = 0; n < 64; n++) CU_ASSERT_EQUAL(acc(t, n), 'M');
  CU_ASSERT_EQUAL(acc(t, 0), 'H');   /* hinted; order 1..63 0 */
  CU_ASSERT_EQUAL(acc(t, 256), 'M'); /* evicts 1; hint of 0 now names 256's slot */
  CU_ASSERT(!has(t, 1) && has(t, 0) && has(t, 256));
  CU_ASSERT_EQUAL(acc(t, 0), 'H');   /* found by the scan; order 2..63 256 0 */
  CU_ASSERT_EQUAL(acc(t, 256), 'H'); /* order 2..63 0 256 */
  CU_ASSERT_EQUAL(acc(t, 512), 'M'); /* evicts 2, reusing the slot page 2's hint names */
  CU_ASSERT_EQUAL(acc(t, 2), 'M');   /* not a stale hit: evicts 3 */
  CU_ASSERT(!has(t, 3) && has(t, 0) && has(t, 256) && has(t, 512) && has(t, 2));
  char buf[64];
  uint64_t rest[60];
  for (uint64_t i = 0; i < 60; i++) rest[i] = 4 + i;
  CU_ASSERT_STRING_EQUAL(run_seq(t, rest, 60, buf),
                         "HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH");
  CU_ASSERT_EQUAL(acc(t, 768), 'M'); /* the oldest now: 0 */
  CU_ASSERT(!has(t, 0) && has(t, 256));
  tlb_destroy(t);
}

static void expect_bad(tlb_geometry g, const char *words) {
  diag d = {""};
  CU_ASSERT_EQUAL(tlb_geometry_check(&g, &d), -1);
  if (!strstr(d.msg, words)) fprintf(stderr, "\nmessage '%s' lacks '%s'\n", d.msg, words);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, words));
  CU_ASSERT_PTR_NULL(tlb_create(&g, &d));
}

static void test_geometry_errors(void) {
  tlb_geometry g = geom(64, 4, TLB_LRU);
  diag d;
  CU_ASSERT_EQUAL(tlb_geometry_check(&g, &d), 0);
  g = geom(6, 3, TLB_LRU); /* 2 sets of 3 ways: fine except for PLRU */
  CU_ASSERT_EQUAL(tlb_geometry_check(&g, &d), 0);
  g = geom(3, 3, TLB_FIFO);
  CU_ASSERT_EQUAL(tlb_geometry_check(&g, &d), 0);
  expect_bad(geom(0, 0, TLB_LRU), "entries must be at least 1");
  expect_bad(geom(8, 0, TLB_LRU), "ways (0) must be between 1 and entries (8)");
  expect_bad(geom(8, 16, TLB_LRU), "ways (16)");
  expect_bad(geom(8, 3, TLB_LRU), "ways (3) does not divide entries (8)");
  expect_bad(geom(12, 4, TLB_LRU), "3 sets is not a power of two");
  expect_bad(geom(6, 3, TLB_PLRU), "tree-PLRU needs a power-of-two number of ways");
  expect_bad(geom(TLB_MAX_ENTRIES * 2, 4, TLB_LRU), "exceeds the maximum");
  g = geom(8, 8, TLB_LRU);
  g.sector_pages = 3;
  expect_bad(g, "sector_pages (3) must be a power of two");
  g.sector_pages = 128;
  expect_bad(g, "sector_pages (128)");
  g.sector_pages = 0;
  expect_bad(g, "sector_pages (0)");
  g = geom(8, 8, TLB_LRU);
  g.npage_shifts = 0;
  expect_bad(g, "page sizes");
  g.npage_shifts = 2;
  g.page_shift[1] = 12;
  expect_bad(g, "page size 2^12 is listed twice");
  g.page_shift[1] = 0;
  expect_bad(g, "page shift 0 is out of range");
  g.page_shift[1] = 60;
  g.sector_pages = 16;
  expect_bad(g, "page shift 60 is out of range");
  g = geom(8, 8, (tlb_policy)9);
  expect_bad(g, "unknown replacement policy");
}

static void test_parse(void) {
  tlb_policy p;
  CU_ASSERT(tlb_policy_parse("lru", &p) == 0 && p == TLB_LRU);
  CU_ASSERT(tlb_policy_parse("fifo", &p) == 0 && p == TLB_FIFO);
  CU_ASSERT(tlb_policy_parse("random", &p) == 0 && p == TLB_RANDOM);
  CU_ASSERT(tlb_policy_parse("plru", &p) == 0 && p == TLB_PLRU);
  CU_ASSERT(tlb_policy_parse("tree-plru", &p) == 0 && p == TLB_PLRU);
  CU_ASSERT_EQUAL(tlb_policy_parse("mru", &p), -1);
  CU_ASSERT_STRING_EQUAL(tlb_policy_name(TLB_FIFO), "fifo");
  CU_ASSERT_STRING_EQUAL(tlb_policy_name(TLB_PLRU), "plru");
  tlb_index ix;
  CU_ASSERT(tlb_index_parse("xor", &ix) == 0 && ix == TLB_INDEX_XOR);
  CU_ASSERT(tlb_index_parse("modulo", &ix) == 0 && ix == TLB_INDEX_MODULO);
  CU_ASSERT_EQUAL(tlb_index_parse("hash", &ix), -1);
}

int main(void) {
  static const test_case policy[] = {{"lru_fa", test_lru_fa},
                                     {"fifo_fa", test_fifo_fa},
                                     {"plru_fa", test_plru_fa},
                                     {"plru_wide", test_plru_wide},
                                     {"random", test_random_policy},
                                     {"random_covers_ways", test_random_covers_ways},
                                     {NULL, NULL}};
  static const test_case mapping[] = {{"set_assoc_modulo", test_set_assoc_modulo},
                                      {"xor_index", test_xor_index},
                                      {"bank_index", test_bank_index},
                                      {"sector", test_sector},
                                      {"multi_size", test_multi_size},
                                      {"invalidate_range_scan", test_invalidate_range_scan},
                                      {"asid_and_flush", test_asid_and_flush},
                                      {"refill_updates", test_refill_updates},
                                      {"hint_rechecked", test_hint_rechecked},
                                      {"hint_collisions", test_hint_collisions},
                                      {NULL, NULL}};
  static const test_case config[] = {{"geometry_errors", test_geometry_errors},
                                     {"parse", test_parse},
                                     {NULL, NULL}};
  static const test_suite suites[] = {
      {"tlb_policy", policy}, {"tlb_mapping", mapping}, {"tlb_config", config}, {NULL, NULL}};
  return harness_run(suites);
}
