/* Allocator policies: every expected address, size and count below is
 * worked out by hand from the rules in docs/ALLOC.md. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/vas.h"
#include "vas_extent.h"
#include "vas_tree.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define BASE (1ull << 40) /* the default va_base */
#define CHUNK0 ((1ull << 47) - 32 * MiB) /* cuda's first VA chunk: the top 32 MiB of its default range */

static vas *make(const char *policy, uint64_t capacity) {
  vas_config c = {.phys_capacity = capacity};
  diag d;
  vas *v = vas_create(policy, &c, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  return v;
}

static uint64_t must_alloc(vas *v, uint64_t size, uint32_t stream) {
  uint64_t va = 0;
  diag d;
  CU_ASSERT_EQUAL_FATAL(vas_alloc(v, size, 0, stream, &va, &d), VAS_OK);
  return va;
}

static void must_free(vas *v, uint64_t va) {
  diag d;
  CU_ASSERT_EQUAL_FATAL(vas_free(v, va, &d), VAS_OK);
}

/* --- the ordered set ------------------------------------------------------- */

typedef struct item {
  vtree_node node;
  uint64_t key;
} item;

/* Random inserts and removals against a plain array: order, count and the
 * subtree maxima must agree after every step. */
static void test_tree_against_array(void) {
  enum { N = 400 };
  item items[N];
  bool in[N] = {false};
  vtree t = {0};
  rng r;
  rng_seed(&r, 7);
  for (int step = 0; step < 4000; step++) {
    int i = (int)rng_below(&r, N);
    if (in[i]) {
      vtree_remove(&t, &items[i].node);
      in[i] = false;
    } else {
      items[i].key = rng_below(&r, 1000) * N + (uint64_t)i; /* unique */
      items[i].node.key[0] = items[i].key;
      items[i].node.key[1] = items[i].node.key[2] = 0;
      items[i].node.weight = rng_below(&r, 100);
      vtree_insert(&t, &items[i].node);
      in[i] = true;
    }
    size_t count = 0;
    uint64_t maxw = 0;
    for (int k = 0; k < N; k++)
      if (in[k]) {
        count++;
        if (items[k].node.weight > maxw) maxw = items[k].node.weight;
      }
    CU_ASSERT_EQUAL_FATAL(t.count, count);
    CU_ASSERT_EQUAL_FATAL(vtree_max_weight(&t), maxw);
  }
  uint64_t prev = 0;
  size_t seen = 0;
  for (vtree_node *n = vtree_first(&t); n; n = vtree_next(n), seen++) {
    CU_ASSERT(seen == 0 || n->key[0] > prev);
    prev = n->key[0];
  }
  CU_ASSERT_EQUAL(seen, t.count);
  /* first fit from a key: the lowest key >= from whose weight is >= w */
  uint64_t from[3] = {500 * N, 0, 0};
  vtree_node *f = vtree_first_fit(&t, from, 90);
  vtree_node *want = NULL;
  for (vtree_node *n = vtree_lower_bound(&t, from); n && !want; n = vtree_next(n))
    if (n->weight >= 90) want = n;
  CU_ASSERT_PTR_EQUAL(f, want);
}

static void test_extents(void) {
  vext x = {0};
  CU_ASSERT_EQUAL(vext_add(&x, 0, 100), 0);
  uint64_t a, b, c;
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_FIRST, 10, 1, &a), 1);
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_FIRST, 20, 1, &b), 1);
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_FIRST, 30, 1, &c), 1);
  CU_ASSERT_EQUAL(a, 0);
  CU_ASSERT_EQUAL(b, 10);
  CU_ASSERT_EQUAL(c, 30);
  vext_add(&x, a, 10); /* free: [0,10) [60,100) */
  CU_ASSERT_EQUAL(vext_count(&x), 2);
  CU_ASSERT_EQUAL(vext_largest(&x), 40);
  CU_ASSERT_EQUAL(x.free_bytes, 50);
  uint64_t at;
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_BEST, 5, 1, &at), 1); /* the 10-byte hole */
  CU_ASSERT_EQUAL(at, 0);
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_TOP, 8, 4, &at), 1); /* top of [60,100), aligned down */
  CU_ASSERT_EQUAL(at, 92);
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_FIRST, 8, 16, &at), 1); /* 5..10 has no 16-aligned room */
  CU_ASSERT_EQUAL(at, 64);
  /* free now: [5,10) [60,64) [72,92) */
  CU_ASSERT_EQUAL(vext_count(&x), 3);
  vext_add(&x, 10, 20); /* joins [5,10) on the right: [5,30) */
  CU_ASSERT_EQUAL(vext_count(&x), 3);
  CU_ASSERT_EQUAL(vext_largest(&x), 25);
  vext_add(&x, 30, 30); /* bridges [5,30) and [60,64) */
  CU_ASSERT_EQUAL(vext_count(&x), 2);
  CU_ASSERT_EQUAL(vext_largest(&x), 59);
  vext_add(&x, 64, 8); /* bridges [5,64) and [72,92) */
  CU_ASSERT_EQUAL(vext_count(&x), 1);
  CU_ASSERT_EQUAL(vext_largest(&x), 87);
  CU_ASSERT_EQUAL(x.free_bytes, 87);
  CU_ASSERT_EQUAL(vext_take(&x, VEXT_FIRST, 1000, 1, &at), 0);
  vext_clear(&x);
  CU_ASSERT_EQUAL(vext_count(&x), 0);
}

/* --- generic policies ------------------------------------------------------- */

/* 10 pages: A B C of 3 pages, free A and C: 7 pages free in holes of 3 and
 * 4, so 5 pages fail although 7 are free. */
static void test_first_fit_fragmentation(void) {
  vas *v = make("first-fit", 10 * 4 * KiB);
  uint64_t a = must_alloc(v, 3 * 4096, 0), b = must_alloc(v, 3 * 4096 - 100, 0), c = must_alloc(v, 3 * 4096, 0);
  CU_ASSERT_EQUAL(a, BASE);
  CU_ASSERT_EQUAL(b, BASE + 3 * 4096);
  CU_ASSERT_EQUAL(c, BASE + 6 * 4096);
  const vas_stats *s = vas_get_stats(v);
  CU_ASSERT_EQUAL(s->reserved_bytes, 9 * 4096);
  CU_ASSERT_EQUAL(s->allocated_bytes - s->requested_bytes, 100); /* B rounded up */
  must_free(v, a);
  must_free(v, c);
  CU_ASSERT_EQUAL(s->free_extents, 2);
  CU_ASSERT_EQUAL(s->free_bytes, 7 * 4096);
  CU_ASSERT_EQUAL(s->largest_free_extent, 4 * 4096);
  CU_ASSERT_DOUBLE_EQUAL(s->external_fragmentation, 1.0 - 4.0 / 7.0, 1e-12);
  uint64_t va;
  diag d;
  CU_ASSERT_EQUAL(vas_alloc(v, 5 * 4096, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms, 1);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 1);
  CU_ASSERT_EQUAL(vas_alloc(v, 8 * 4096, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 1); /* 8 pages were not free at all */
  CU_ASSERT_EQUAL(s->driver_allocs, 3);
  CU_ASSERT_EQUAL(s->driver_frees, 2);
  CU_ASSERT_EQUAL(s->pte_writes, 9 + 6);
  CU_ASSERT_EQUAL(s->shootdowns, 2);
  CU_ASSERT_EQUAL(vas_free(v, b + 4096, &d), VAS_ERR);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not a live allocation"));
  vas_destroy(v);
}

/* Holes of 2 (at 0), 1 (at 3) and 3 pages (at 5), then the tail at 10. */
static vas *holes(const char *policy, uint64_t *tail) {
  vas *v = make(policy, 16 * 4096);
  uint64_t p[10];
  for (int i = 0; i < 10; i++) p[i] = must_alloc(v, 4096, 0);
  for (int i = 0; i < 10; i++)
    if (i == 0 || i == 1 || i == 3 || (i >= 5 && i <= 7)) must_free(v, p[i]);
  *tail = p[9] + 4096;
  return v;
}

static void test_fit_choices(void) {
  uint64_t tail;
  vas *v = holes("best-fit", &tail);
  CU_ASSERT_EQUAL(must_alloc(v, 4096, 0), BASE + 3 * 4096);     /* the 1-page hole */
  CU_ASSERT_EQUAL(must_alloc(v, 2 * 4096, 0), BASE);            /* exact fit */
  CU_ASSERT_EQUAL(must_alloc(v, 4 * 4096, 0), tail);            /* only the tail holds 4 */
  vas_destroy(v);
  v = holes("first-fit", &tail);
  CU_ASSERT_EQUAL(must_alloc(v, 4096, 0), BASE);
  CU_ASSERT_EQUAL(must_alloc(v, 2 * 4096, 0), BASE + 5 * 4096);
  vas_destroy(v);
  v = holes("next-fit", &tail); /* the last placement ended at page 10 */
  CU_ASSERT_EQUAL(must_alloc(v, 4096, 0), tail);
  CU_ASSERT_EQUAL(must_alloc(v, 4096, 0), tail + 4096);
  vas_destroy(v);
}

static void test_buddy(void) {
  vas *v = make("buddy", 16 * 4096);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 3 * 4096, 0); /* order 2: 4 pages at 0 */
  uint64_t b = must_alloc(v, 4096, 0);     /* splits [4,8): page 4 */
  CU_ASSERT_EQUAL(a, BASE);
  CU_ASSERT_EQUAL(b, BASE + 4 * 4096);
  CU_ASSERT_EQUAL(s->allocated_bytes, 5 * 4096);
  CU_ASSERT_EQUAL(s->internal_frag_at_peak, 4096);
  CU_ASSERT_EQUAL(s->free_extents, 3); /* pages 5, [6,8), [8,16) */
  CU_ASSERT_EQUAL(s->largest_free_extent, 8 * 4096);
  must_free(v, a);
  must_free(v, b); /* merges 4+5, 4..7, 0..7, 0..15 */
  CU_ASSERT_EQUAL(s->free_extents, 1);
  CU_ASSERT_EQUAL(s->largest_free_extent, 16 * 4096);
  vas_destroy(v);
  /* 12 pages tile as 8 + 4: a 8-page request fits once, a 16-page one never */
  v = make("buddy", 12 * 4096);
  s = vas_get_stats(v);
  CU_ASSERT_EQUAL(s->free_extents, 2);
  uint64_t c = must_alloc(v, 5 * 4096, 0);
  CU_ASSERT_EQUAL(c, BASE);
  uint64_t va;
  diag d;
  CU_ASSERT_EQUAL(vas_alloc(v, 5 * 4096, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 0); /* only 4 pages free */
  must_free(v, c);
  CU_ASSERT_EQUAL(s->free_extents, 2); /* the 4-page block's buddy lies outside */
  vas_destroy(v);
}

/* --- cuda ----------------------------------------------------------------------- */

static void test_cuda(void) {
  vas *v = make("cuda", 64 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 1, 0), b = must_alloc(v, 513, 0), c = must_alloc(v, 1000, 0);
  CU_ASSERT_EQUAL(b, a + 512);  /* 1 byte rounds to 512 */
  CU_ASSERT_EQUAL(c, b + 1024); /* 513 rounds to 1024 */
  CU_ASSERT_EQUAL(a, CHUNK0);
  CU_ASSERT_EQUAL(s->maps, 1);                   /* one 2 MiB region */
  CU_ASSERT_EQUAL(s->pte_writes, 1);             /* mapped with one 2 MiB page */
  CU_ASSERT_EQUAL(s->reserved_bytes, 2 * MiB);
  CU_ASSERT_EQUAL(s->driver_allocs, 3);          /* every request is a cudaMalloc */
  uint64_t big = must_alloc(v, 2 * MiB + 1, 0); /* >= 2 MiB: own pages, 2 MiB-rounded */
  CU_ASSERT_EQUAL(big, a + 2 * MiB);
  CU_ASSERT_EQUAL(s->allocated_bytes, 512 + 1024 + 1024 + 4 * MiB);
  CU_ASSERT_EQUAL(s->reserved_bytes, 6 * MiB);
  CU_ASSERT_EQUAL(s->pte_writes, 1 + 2);
  uint64_t full = must_alloc(v, 3 * MiB / 2, 0); /* below 2 MiB still packs: into the region */
  CU_ASSERT_EQUAL(full, a + 2560);               /* the region's hole, after 512 + 1024 + 1024 */
  CU_ASSERT_EQUAL(s->maps, 2);
  must_free(v, a);
  must_free(v, b);
  must_free(v, c);
  CU_ASSERT_EQUAL(s->unmaps, 0); /* the region still holds `full` */
  must_free(v, full);
  CU_ASSERT_EQUAL(s->unmaps, 1); /* last request gone: region unmapped */
  CU_ASSERT_EQUAL(s->shootdowns, 1);
  must_free(v, big);
  CU_ASSERT_EQUAL(s->reserved_bytes, 0);
  CU_ASSERT_EQUAL(s->pte_writes, 2 * (1 + 2));
  /* physical memory is interchangeable: 31 x 2 MiB fill 62 of 64 MiB, and a
   * 2 MiB request still fits wherever the VA is */
  uint64_t p[32];
  for (int i = 0; i < 31; i++) p[i] = must_alloc(v, 2 * MiB, 0);
  for (int i = 0; i < 31; i += 2) must_free(v, p[i]);
  uint64_t va;
  diag d;
  CU_ASSERT_EQUAL(vas_alloc(v, 30 * MiB, 0, 0, &va, &d), VAS_OK);
  CU_ASSERT_EQUAL(vas_alloc(v, 6 * MiB, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 0);
  vas_destroy(v);
}

/* Small requests take the smallest hole of any region, the one that has
 * waited longest on ties (not the lowest), at its start. */
static void test_cuda_best_hole(void) {
  vas *v = make("cuda", 64 * MiB);
  uint64_t a = must_alloc(v, MiB, 0);           /* R1 = CHUNK0: hole of 1 MiB */
  uint64_t b = must_alloc(v, 3 * MiB / 2, 0);   /* does not fit R1: R2 = CHUNK0 + 2 MiB, hole 512 KiB */
  CU_ASSERT_EQUAL(a, CHUNK0);
  CU_ASSERT_EQUAL(b, CHUNK0 + 2 * MiB);
  uint64_t c = must_alloc(v, 256 * KiB, 0);     /* R2's 512 KiB is the best fit, not R1's 1 MiB */
  CU_ASSERT_EQUAL(c, b + 3 * MiB / 2);
  uint64_t d = must_alloc(v, 768 * KiB, 0);     /* only R1 holds it: R1 keeps 256 KiB */
  CU_ASSERT_EQUAL(d, a + MiB);
  must_free(v, c);                              /* R2's hole is 512 KiB again */
  must_free(v, d);
  must_free(v, a);                              /* R1 is empty: unmapped */
  CU_ASSERT_EQUAL(vas_get_stats(v)->unmaps, 1);
  uint64_t e = must_alloc(v, 2 * MiB - 512 * KiB, 0); /* no hole holds 1.5 MiB: R3 where R1 was */
  CU_ASSERT_EQUAL(e, CHUNK0);
  /* two 512 KiB holes now: R2's, the older, lies above R3's */
  CU_ASSERT_EQUAL(must_alloc(v, 512 * KiB, 0), b + 3 * MiB / 2);
  CU_ASSERT_EQUAL(must_alloc(v, 512 * KiB, 0), e + 3 * MiB / 2);
  vas_destroy(v);
}

/* The heap: large requests and regions go to the lowest chunk with room,
 * to the smallest free range in it; chunks are added below the lowest
 * one and given back when empty. */
static void test_cuda_heap(void) {
  vas *v = make("cuda", 1024 * MiB);
  uint64_t l[5];
  static const uint64_t sizes[5] = {8 * MiB, 4 * MiB, 8 * MiB, 4 * MiB, 8 * MiB};
  for (int i = 0; i < 5; i++) l[i] = must_alloc(v, sizes[i], 0); /* fill CHUNK0 bottom-up */
  CU_ASSERT_EQUAL(l[0], CHUNK0);
  CU_ASSERT_EQUAL(l[4], CHUNK0 + 24 * MiB);
  must_free(v, l[0]);
  must_free(v, l[3]);
  uint64_t fit = must_alloc(v, 4 * MiB, 0);      /* the 4 MiB range at 20 MiB, not the 8 MiB at 0 */
  CU_ASSERT_EQUAL(fit, CHUNK0 + 20 * MiB);
  uint64_t big = must_alloc(v, 16 * MiB, 0);     /* no room: a chunk below */
  CU_ASSERT_EQUAL(big, CHUNK0 - 32 * MiB);
  uint64_t low = must_alloc(v, 8 * MiB, 0);      /* the lower chunk first, though CHUNK0 fits it exactly */
  CU_ASSERT_EQUAL(low, big + 16 * MiB);
  uint64_t small = must_alloc(v, 4 * KiB, 0);    /* a region is placed the same way */
  CU_ASSERT_EQUAL(small, low + 8 * MiB);
  uint64_t huge = must_alloc(v, 40 * MiB, 0);    /* larger than a chunk: 64 MiB of its own, below */
  CU_ASSERT_EQUAL(huge, CHUNK0 - 96 * MiB);
  must_free(v, big);
  must_free(v, low);
  must_free(v, small);                           /* the second chunk is empty: given back */
  uint64_t next = must_alloc(v, 32 * MiB, 0);    /* but the heap grows below its lowest chunk */
  CU_ASSERT_EQUAL(next, CHUNK0 - 128 * MiB);
  must_free(v, next);
  must_free(v, huge);
  CU_ASSERT_EQUAL(must_alloc(v, 32 * MiB, 0), CHUNK0 - 32 * MiB); /* right below CHUNK0 again */
  vas_destroy(v);
}

/* Long-lived small requests strand partly used regions. */
static void test_cuda_stranding(void) {
  vas *v = make("cuda", 8 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t p[8];
  for (int i = 0; i < 8; i++) p[i] = must_alloc(v, MiB, 0); /* 4 regions, 2 each */
  for (int i = 0; i < 8; i += 2) must_free(v, p[i]);       /* half of each region */
  CU_ASSERT_EQUAL(s->reserved_bytes, 8 * MiB);
  CU_ASSERT_EQUAL(s->free_bytes, 4 * MiB);
  CU_ASSERT_EQUAL(s->largest_free_extent, MiB);
  uint64_t va;
  diag d;
  CU_ASSERT_EQUAL(vas_alloc(v, 2 * MiB, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 1);
  vas_destroy(v);
}

/* --- caching -------------------------------------------------------------------- */

static void test_caching_rules(void) {
  vas *v = make("caching", 1024 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 1000, 0), b = must_alloc(v, 100, 0);
  CU_ASSERT_EQUAL(b, a + 1024); /* 512-rounded, same 2 MiB small segment */
  CU_ASSERT_EQUAL(s->driver_allocs, 1);
  CU_ASSERT_EQUAL(s->reserved_bytes, 2 * MiB);
  CU_ASSERT_EQUAL(s->allocated_bytes, 1024 + 512);
  uint64_t c = must_alloc(v, 5 * MiB, 0), e = must_alloc(v, 5 * MiB, 0);
  CU_ASSERT_EQUAL(s->driver_allocs, 2); /* one 20 MiB segment, split */
  CU_ASSERT_EQUAL(e, c + 5 * MiB);
  CU_ASSERT_EQUAL(s->reserved_bytes, 22 * MiB);
  uint64_t m = must_alloc(v, 12 * MiB + 1, 0); /* >= 10 MiB: a 14 MiB segment; rest 2 MiB - 512 > 1 MiB: split */
  CU_ASSERT_EQUAL(s->reserved_bytes, 36 * MiB);
  uint64_t before = s->allocated_bytes;
  must_alloc(v, 19 * MiB + 512 * KiB, 0); /* segment 20 MiB, rest 0.5 MiB: not split */
  CU_ASSERT_EQUAL(s->allocated_bytes - before, 20 * MiB);
  /* the 2 MiB - 512 tail of the 14 MiB segment serves a 1.5 MiB request */
  CU_ASSERT_EQUAL(must_alloc(v, 3 * MiB / 2, 0), m + 12 * MiB + 512);
  CU_ASSERT_EQUAL(s->driver_allocs, 4);
  must_free(v, c);
  must_free(v, e); /* merges back: the 20 MiB segment is one free block */
  uint64_t again = must_alloc(v, 10 * MiB, 0);
  CU_ASSERT_EQUAL(again, c);
  CU_ASSERT_EQUAL(s->driver_allocs, 4);
  vas_destroy(v);
}

static void test_caching_best_fit_and_streams(void) {
  vas *v = make("caching", 1024 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t x = must_alloc(v, 6 * MiB, 0);
  must_alloc(v, 2 * MiB, 0);
  uint64_t y = must_alloc(v, 8 * MiB, 0);
  must_alloc(v, 2 * MiB, 0);
  /* one 20 MiB segment: x 6, 2, y 8, 2, and 2 MiB left over */
  CU_ASSERT_EQUAL(s->driver_allocs, 1);
  CU_ASSERT_EQUAL(y, x + 8 * MiB);
  must_free(v, y);
  must_free(v, x);
  CU_ASSERT_EQUAL(must_alloc(v, 5 * MiB + 1, 0), x); /* the 6 MiB hole beats the 8 MiB one */
  CU_ASSERT_EQUAL(s->allocated_bytes, 6 * MiB + 4 * MiB); /* rest < 1 MiB: not split */
  uint64_t other = must_alloc(v, 6 * MiB, 1);             /* stream 1 cannot use stream 0's blocks */
  CU_ASSERT_NOT_EQUAL(other, y);
  CU_ASSERT_EQUAL(s->driver_allocs, 2);
  CU_ASSERT_EQUAL(must_alloc(v, 6 * MiB, 0), y);
  vas_destroy(v);
}

static void test_caching_oom_release(void) {
  /* 40 MiB device, two 20 MiB segments, one cached: an 18 MiB request
   * reuses (and splits) the cached block */
  vas *v = make("caching", 40 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 20 * MiB, 0);
  must_alloc(v, 20 * MiB, 0);
  must_free(v, a);
  /* the cached whole segment and the unreserved memory are one extent:
   * an OOM would cudaFree it */
  CU_ASSERT_EQUAL(s->free_extents, 1);
  CU_ASSERT_EQUAL(s->largest_free_extent, 20 * MiB);
  CU_ASSERT_EQUAL(must_alloc(v, 18 * MiB, 0), a);
  CU_ASSERT_EQUAL(s->free_extents, 1); /* the 2 MiB rest of a split segment */
  CU_ASSERT_EQUAL(s->free_bytes, 2 * MiB);
  CU_ASSERT_EQUAL(s->driver_allocs, 2);
  vas_destroy(v);
  /* 44 MiB device: segments of 10 and 30 MiB, the 10 cached. 10.5 MiB needs
   * a 12 MiB segment, only 4 MiB are unreserved: cudaFree the cached
   * segment, retry, succeed */
  v = make("caching", 44 * MiB);
  s = vas_get_stats(v);
  a = must_alloc(v, 10 * MiB, 0);
  must_alloc(v, 30 * MiB, 0);
  must_free(v, a);
  must_alloc(v, 10 * MiB + 512 * KiB, 0);
  CU_ASSERT_EQUAL(s->driver_frees, 1);
  CU_ASSERT_EQUAL(s->driver_allocs, 3);
  CU_ASSERT_EQUAL(s->reserved_bytes, 42 * MiB);
  CU_ASSERT_EQUAL(s->reserved_peak, 42 * MiB);
  CU_ASSERT_EQUAL(s->ooms, 0);
  vas_destroy(v);
}

static void test_caching_fragmented_oom(void) {
  /* [A 5][B 5][free 10] in segment 1, C 20 MiB in segment 2, device full.
   * Freeing A leaves 15 MiB free in two pieces of 5 and 10: a 12 MiB
   * request fails although enough is free. */
  vas *v = make("caching", 40 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 5 * MiB, 0);
  must_alloc(v, 5 * MiB, 0);
  must_alloc(v, 20 * MiB, 0);
  must_free(v, a);
  uint64_t va;
  diag d;
  CU_ASSERT_EQUAL(vas_alloc(v, 12 * MiB, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms, 1);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 1);
  CU_ASSERT_EQUAL(s->driver_frees, 0); /* nothing was a whole cached segment */
  CU_ASSERT_EQUAL(s->free_bytes, 15 * MiB);
  CU_ASSERT_EQUAL(s->largest_free_extent, 10 * MiB);
  CU_ASSERT_EQUAL(vas_alloc(v, 16 * MiB, 0, 0, &va, &d), VAS_OOM);
  CU_ASSERT_EQUAL(s->ooms_enough_free, 1); /* 16 MiB was never free */
  vas_destroy(v);
}

static void test_caching_max_split(void) {
  vas_config c = {.phys_capacity = 1024 * MiB, .max_split_size = 8 * MiB};
  diag d;
  vas *v = vas_create("caching", &c, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 9 * MiB, 0); /* 20 MiB segment, 9 >= 8: not split */
  CU_ASSERT_EQUAL(s->allocated_bytes, 20 * MiB);
  must_free(v, a);
  must_alloc(v, 4 * MiB, 0); /* the cached 20 MiB block is oversize for it */
  CU_ASSERT_EQUAL(s->driver_allocs, 2);
  CU_ASSERT_EQUAL(must_alloc(v, 19 * MiB, 0), a); /* oversize block within 20 MiB of 19 */
  vas_destroy(v);
}

/* --- expandable ------------------------------------------------------------------- */

static void test_expandable_growth(void) {
  vas *v = make("expandable", 1024 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 5 * MiB, 0), b = must_alloc(v, 5 * MiB, 0);
  CU_ASSERT_EQUAL(b, a + 5 * MiB);
  CU_ASSERT_EQUAL(s->driver_allocs, 1); /* one 20 MiB piece */
  CU_ASSERT_EQUAL(s->reserved_bytes, 20 * MiB);
  CU_ASSERT_EQUAL(s->allocated_bytes, 10 * MiB); /* splits leave any >= 512 B */
  uint64_t c = must_alloc(v, 25 * MiB, 0);       /* grows: the 10 MiB tail + one more piece */
  CU_ASSERT_EQUAL(c, a + 10 * MiB);
  CU_ASSERT_EQUAL(s->driver_allocs, 2);
  CU_ASSERT_EQUAL(s->maps, 2);
  CU_ASSERT_EQUAL(s->pte_writes, 20); /* two 20 MiB pieces of 2 MiB pages */
  CU_ASSERT_EQUAL(s->reserved_bytes, 40 * MiB);
  uint64_t d1 = must_alloc(v, 50 * MiB, 0); /* three pieces in one call */
  CU_ASSERT_EQUAL(d1, a + 40 * MiB - 5 * MiB);
  CU_ASSERT_EQUAL(s->driver_allocs, 3);
  CU_ASSERT_EQUAL(s->maps, 5);
  vas_destroy(v);
}

static void test_expandable_oom_unmaps(void) {
  vas *v = make("expandable", 40 * MiB);
  const vas_stats *s = vas_get_stats(v);
  uint64_t a = must_alloc(v, 25 * MiB, 0);
  must_free(v, a);
  CU_ASSERT_EQUAL(s->reserved_bytes, 40 * MiB);
  CU_ASSERT_EQUAL(s->free_extents, 1); /* both pieces are whole: releasable */
  CU_ASSERT_EQUAL(s->largest_free_extent, 40 * MiB);
  must_alloc(v, 1000, 0); /* small pool needs 2 MiB: unmap the free large pieces first */
  CU_ASSERT_EQUAL(s->driver_frees, 1);
  CU_ASSERT_EQUAL(s->unmaps, 2);
  CU_ASSERT_EQUAL(s->shootdowns, 2);
  CU_ASSERT_EQUAL(s->reserved_bytes, 2 * MiB);
  CU_ASSERT_EQUAL(s->ooms, 0);
  vas_destroy(v);
}

/* --- front end ---------------------------------------------------------------------- */

typedef struct hook_log {
  int maps, unmaps;
  unsigned last_shift;
  uint64_t refuse_above; /* a map past this many bytes in total fails */
  uint64_t mapped;
} hook_log;

static int log_map(void *ctx, uint64_t va, uint64_t size, unsigned shift, diag *d) {
  (void)va;
  (void)d;
  hook_log *h = ctx;
  if (h->mapped + size > h->refuse_above) return -1;
  h->mapped += size;
  h->maps++;
  h->last_shift = shift;
  return 0;
}

static void log_unmap(void *ctx, uint64_t va, uint64_t size, unsigned shift) {
  (void)va;
  (void)shift;
  hook_log *h = ctx;
  h->mapped -= size;
  h->unmaps++;
}

static void test_hooks(void) {
  hook_log h = {.refuse_above = 4 * MiB};
  vas_hooks hooks = {.ctx = &h, .map = log_map, .unmap = log_unmap};
  vas_config c = {.phys_capacity = 1024 * MiB};
  diag d;
  vas *v = vas_create("cuda", &c, &hooks, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  uint64_t a = must_alloc(v, 3 * MiB, 0);
  CU_ASSERT_EQUAL(h.maps, 1);
  CU_ASSERT_EQUAL(h.last_shift, 21);
  uint64_t va;
  CU_ASSERT_EQUAL(vas_alloc(v, 3 * MiB, 0, 0, &va, &d), VAS_OOM); /* the owner refused */
  must_free(v, a);
  CU_ASSERT_EQUAL(h.unmaps, 1);
  must_alloc(v, 4096, 0);
  vas_destroy(v); /* unmaps the region through the hook */
  CU_ASSERT_EQUAL(h.mapped, 0);
  CU_ASSERT_EQUAL(h.maps, h.unmaps);
}

static void test_config(void) {
  vas_config c = {0};
  diag d;
  CU_ASSERT_EQUAL(vas_config_set(&c, "capacity", "8G", &d), 0);
  CU_ASSERT_EQUAL(c.phys_capacity, 8ull << 30);
  CU_ASSERT_EQUAL(vas_config_set(&c, "max_split_size", "none", &d), 0);
  CU_ASSERT_EQUAL(c.max_split_size, UINT64_MAX);
  CU_ASSERT_EQUAL(vas_config_set(&c, "cuda_small_max", "64K", &d), 0);
  CU_ASSERT_EQUAL(c.cuda_small_max, 64 * KiB);
  CU_ASSERT_EQUAL(vas_config_set(&c, "page_size", "4Q", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "page_size: '4Q' is not a size"));
  CU_ASSERT_EQUAL(vas_config_set(&c, "bogus", "1", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "unknown allocator parameter 'bogus'"));
  CU_ASSERT_PTR_NULL(vas_create("worst-fit", &c, NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "known: first-fit, next-fit, best-fit, buddy, cuda, caching, expandable"));
  vas_config zero = {0};
  CU_ASSERT_PTR_NULL(vas_create("caching", &zero, NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "capacity must be set"));
  vas_config bad = {.phys_capacity = MiB, .page_size = 3000};
  CU_ASSERT_PTR_NULL(vas_create("first-fit", &bad, NULL, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not a power of two"));
  CU_ASSERT_EQUAL(vas_policy_count(), 7);
  CU_ASSERT_STRING_EQUAL(vas_policy_at(6), "expandable");
}

/* A request larger than any memory is an OOM in every policy, counted, and
 * changes nothing else: sizes near 2^64 used to wrap in the round-ups
 * (first-fit, cuda and caching succeeded with nothing mapped; buddy and
 * caching reached undefined behaviour). Huge rounding parameters too. */
static void test_huge_requests(void) {
  static const uint64_t sizes[] = {UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 4095, (1ull << 63) + 1, (1ull << 30) + 1};
  static const vas_config tweaks[] = {{0}, {.cuda_large_round = 1ull << 62, .round_large = 1ull << 62},
                                      {.large_buffer = 1ull << 62, .small_buffer = 1ull << 62}};
  for (size_t t = 0; t < sizeof tweaks / sizeof tweaks[0]; t++)
    for (size_t p = 0; p < vas_policy_count(); p++) {
      vas_config c = tweaks[t];
      c.phys_capacity = 1ull << 30;
      diag d;
      vas *v = vas_create(vas_policy_at(p), &c, NULL, &d);
      if (!v) continue; /* a tweak this policy refuses at creation */
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t va = 0;
        CU_ASSERT_EQUAL(vas_alloc(v, sizes[i], 0, 0, &va, &d), VAS_OOM);
        CU_ASSERT_EQUAL(vas_get_stats(v)->ooms, i + 1);
        CU_ASSERT_EQUAL(vas_get_stats(v)->allocated_bytes, 0);
        CU_ASSERT_EQUAL(vas_get_stats(v)->reserved_bytes, 0);
      }
      int rc = vas_alloc(v, 1ull << 20, 0, 0, &(uint64_t){0}, &d);
      CU_ASSERT(t > 0 || rc == VAS_OK); /* the memory is still there */
      if (rc == VAS_OK) CU_ASSERT(vas_get_stats(v)->allocated_bytes >= 1ull << 20);
      vas_destroy(v);
    }
  vas_config c = {0};
  diag d;
  CU_ASSERT_EQUAL(vas_config_set(&c, "capacity", "512T", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "capacity: '512T' is out of range (1..256TiB)");
}

static const test_case tree_cases[] = {{"against an array", test_tree_against_array}, {"extents", test_extents}, {NULL, NULL}};
static const test_case generic_cases[] = {{"first-fit fragmentation", test_first_fit_fragmentation},
                                          {"fit choices", test_fit_choices},
                                          {"buddy", test_buddy},
                                          {NULL, NULL}};
static const test_case cuda_cases[] = {{"rounding and regions", test_cuda},
                                       {"best hole", test_cuda_best_hole},
                                       {"heap", test_cuda_heap},
                                       {"stranding", test_cuda_stranding},
                                       {NULL, NULL}};
static const test_case caching_cases[] = {{"rules", test_caching_rules},
                                          {"best fit and streams", test_caching_best_fit_and_streams},
                                          {"oom release", test_caching_oom_release},
                                          {"fragmented oom", test_caching_fragmented_oom},
                                          {"max_split_size", test_caching_max_split},
                                          {"expandable growth", test_expandable_growth},
                                          {"expandable oom unmaps", test_expandable_oom_unmaps},
                                          {NULL, NULL}};
static const test_case front_cases[] = {
    {"hooks", test_hooks}, {"config", test_config}, {"huge requests", test_huge_requests}, {NULL, NULL}};

int main(void) {
  static const test_suite suites[] = {{"vas tree", tree_cases}, {"vas generic", generic_cases},
                                      {"vas cuda", cuda_cases}, {"vas caching", caching_cases},
                                      {"vas front", front_cases}, {NULL, NULL}};
  return harness_run(suites);
}
