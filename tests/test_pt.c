/* Page-table module: built-in formats, walks, errors, usage counts. Every
 * expected value below was worked out by hand from the format's bit layout
 * (indices, walk depths, table sizes, table addresses from the bump
 * allocator that starts at PT_TABLE_PA_BASE and aligns each node to its size). */
#include "harness.h"
#include "tlbsim/pt.h"

#include <stdio.h>
#include <string.h>

#define BASE PT_TABLE_PA_BASE
#define K4 UINT64_C(0x1000)
#define K64 UINT64_C(0x10000)
#define M2 UINT64_C(0x200000)
#define M512 UINT64_C(0x20000000)
#define G1 UINT64_C(0x40000000)

/* One format's hand-worked walk of a VA that has a distinct index at every level. */
typedef struct leaf_case {
  unsigned shift;
  unsigned depth;      /* entries read to reach the leaf */
  uint32_t leaf_index; /* index at the leaf level (effective bits) */
} leaf_case;

typedef struct fmt_case {
  const char *name;
  unsigned va_bits;
  uint64_t va;
  unsigned nlevels;
  const char *level_name[PT_MAX_LEVELS];
  uint32_t index[PT_MAX_LEVELS];      /* on the way to the smallest page */
  uint8_t entry_bytes[PT_MAX_LEVELS];
  uint64_t table_off[PT_MAX_LEVELS];  /* table_pa - BASE in a fresh tree */
  unsigned nleaves;
  leaf_case leaf[PT_MAX_LEAVES];
} fmt_case;

static const fmt_case cases_fmt[] = {
    /* 0xff<<39 | 0x1a3<<30 | 0xb7<<21 | 0x1c5<<12 | 0xabc */
    {"x86-64-4", 48, UINT64_C(0x7fe8d6fc5abc), 4, {"PML4", "PDPT", "PD", "PT"},
     {0xff, 0x1a3, 0xb7, 0x1c5}, {8, 8, 8, 8}, {0, 0x1000, 0x2000, 0x3000},
     3, {{12, 4, 0x1c5}, {21, 3, 0xb7}, {30, 2, 0x1a3}}},
    /* 0x1f<<48 | 0x133<<39 | 0xa5<<30 | 0x17e<<21 | 0x42<<12 | 0x321 */
    {"x86-64-5", 57, UINT64_C(0x1f99a96fc42321), 5, {"PML5", "PML4", "PDPT", "PD", "PT"},
     {0x1f, 0x133, 0xa5, 0x17e, 0x42}, {8, 8, 8, 8, 8}, {0, 0x1000, 0x2000, 0x3000, 0x4000},
     3, {{12, 5, 0x42}, {21, 4, 0x17e}, {30, 3, 0xa5}}},
    /* 3<<39 | 0x1fe<<30 | 0x100<<21 | 0xd2<<12 | 0xf0 */
    {"arm64-4k", 48, UINT64_C(0x1ffa00d20f0), 4, {"L0", "L1", "L2", "L3"},
     {3, 0x1fe, 0x100, 0xd2}, {8, 8, 8, 8}, {0, 0x1000, 0x2000, 0x3000},
     3, {{12, 4, 0xd2}, {21, 3, 0x100}, {30, 2, 0x1fe}}},
    /* 1<<56 | 0x155<<47 | 0xaa<<38 | 0x1f0<<29 | 0xc3<<21 | 0x1a5<<12 | 0x678;
     * the 64K index is VA[20:16] = 0x1a5 >> 4 = 0x1a. PD4 is 2 x 8 = 16 B. */
    {"hopper", 57, UINT64_C(0x1aaaabe187a5678), 6, {"PD4", "PD3", "PD2", "PD1", "PD0", "PT"},
     {1, 0x155, 0xaa, 0x1f0, 0xc3, 0x1a5}, {8, 8, 8, 8, 16, 8},
     {0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000},
     4, {{12, 6, 0x1a5}, {16, 6, 0x1a}, {21, 5, 0xc3}, {29, 4, 0x1f0}}},
    /* 0xa<<12 | 7<<8 | 0xc3; tables are 16 x 2 = 32 B */
    {"teaching16", 16, UINT64_C(0xa7c3), 2, {"L1", "L2"}, {0xa, 7}, {2, 2}, {0, 0x20},
     2, {{8, 2, 7}, {12, 1, 0xa}}},
    /* 0x2b<<42 | 0x1abc<<29 | 0xdef<<16 | 0x1234; L1 is 64 x 8 = 512 B, L2 and
     * L3 8192 x 8 = 64 KiB, each table aligned to its size. */
    {"arm64-64k", 48, UINT64_C(0xaf578def1234), 3, {"L1", "L2", "L3"}, {0x2b, 0x1abc, 0xdef}, {8, 8, 8},
     {0, 0x10000, 0x20000}, 2, {{16, 3, 0xdef}, {29, 2, 0x1abc}}},
    /* RISC-V Sv39: 0xa3<<30 | 0xb7<<21 | 0x1c5<<12 | 0xabc (VA[38] clear:
     * no sign extension needed); VPN[2..0] = 0xa3, 0xb7, 0x1c5. */
    {"sv39", 39, UINT64_C(0x28d6fc5abc), 3, {"VPN[2]", "VPN[1]", "VPN[0]"}, {0xa3, 0xb7, 0x1c5}, {8, 8, 8},
     {0, 0x1000, 0x2000}, 3, {{12, 3, 0x1c5}, {21, 2, 0xb7}, {30, 1, 0xa3}}},
    /* Sv48: x86-64-4's VA, VPN[3..0] = 0xff, 0x1a3, 0xb7, 0x1c5; a 512 GiB
     * terapage at the root. */
    {"sv48", 48, UINT64_C(0x7fe8d6fc5abc), 4, {"VPN[3]", "VPN[2]", "VPN[1]", "VPN[0]"},
     {0xff, 0x1a3, 0xb7, 0x1c5}, {8, 8, 8, 8}, {0, 0x1000, 0x2000, 0x3000},
     4, {{12, 4, 0x1c5}, {21, 3, 0xb7}, {30, 2, 0x1a3}, {39, 1, 0xff}}},
};
#define NCASES (sizeof cases_fmt / sizeof cases_fmt[0])

static uint64_t align_down(uint64_t x, unsigned shift) {
  return x & ~((UINT64_C(1) << shift) - 1);
}

/* ------------------------------------------------------------------ formats */

static void t_builtins(void) {
  CU_ASSERT_EQUAL(pt_format_count(), 8);
  CU_ASSERT_PTR_NULL(pt_format_at(8));
  CU_ASSERT_PTR_NULL(pt_format_find("sparc"));
  CU_ASSERT_PTR_NULL(pt_format_find(NULL));
  for (size_t i = 0; i < NCASES; i++) {
    const fmt_case *c = &cases_fmt[i];
    const pt_format *f = pt_format_find(c->name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_EQUAL(pt_format_at(i), f);
    CU_ASSERT_EQUAL(pt_format_check(f, NULL), 0);
    CU_ASSERT_EQUAL(f->va_bits, c->va_bits);
    CU_ASSERT_EQUAL(f->nlevels, c->nlevels);
    CU_ASSERT_EQUAL(f->nleaves, c->nleaves);
    CU_ASSERT_PTR_NOT_NULL(f->description);
    for (unsigned l = 0; l < c->nlevels; l++) {
      CU_ASSERT_STRING_EQUAL(f->level[l].name, c->level_name[l]);
      CU_ASSERT_EQUAL(f->level[l].entry_bytes, c->entry_bytes[l]);
    }
  }
}

static void t_leaf_level(void) {
  const pt_format *x = pt_format_find("x86-64-4"), *x5 = pt_format_find("x86-64-5");
  const pt_format *h = pt_format_find("hopper"), *t = pt_format_find("teaching16");
  const pt_format *a = pt_format_find("arm64-4k");
  CU_ASSERT_EQUAL(pt_format_leaf_level(x, 12), 3);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x, 21), 2);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x, 30), 1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x, 39), -1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x, 16), -1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x5, 12), 4);
  CU_ASSERT_EQUAL(pt_format_leaf_level(x5, 30), 2);
  CU_ASSERT_EQUAL(pt_format_leaf_level(a, 12), 3);
  CU_ASSERT_EQUAL(pt_format_leaf_level(a, 30), 1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(h, 12), 5);
  CU_ASSERT_EQUAL(pt_format_leaf_level(h, 16), 5);
  CU_ASSERT_EQUAL(pt_format_leaf_level(h, 21), 4);
  CU_ASSERT_EQUAL(pt_format_leaf_level(h, 29), 3);
  CU_ASSERT_EQUAL(pt_format_leaf_level(h, 30), -1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(t, 8), 1);
  CU_ASSERT_EQUAL(pt_format_leaf_level(t, 12), 0);
  CU_ASSERT_EQUAL(pt_format_leaf_level(t, 16), -1);
}

static void t_index_bits(void) {
  const pt_format *h = pt_format_find("hopper"), *x = pt_format_find("x86-64-4");
  const pt_format *t = pt_format_find("teaching16");
  /* Hopper: 1, 9, 9, 9, 8, then 9 (4K) or 5 (64K) */
  const unsigned bits4k[] = {1, 9, 9, 9, 8, 9}, shift4k[] = {56, 47, 38, 29, 21, 12};
  for (unsigned l = 0; l < 6; l++) {
    CU_ASSERT_EQUAL(pt_format_index_bits(h, l, 12), bits4k[l]);
    CU_ASSERT_EQUAL(pt_format_index_shift(h, l, 12), shift4k[l]);
  }
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 5, 16), 5);
  CU_ASSERT_EQUAL(pt_format_index_shift(h, 5, 16), 16);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 4, 16), 8);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 4, 21), 8);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 5, 21), 0); /* a 2M walk stops at PD0 */
  CU_ASSERT_EQUAL(pt_format_index_shift(h, 5, 21), 0);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 3, 29), 9);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 4, 29), 0);
  CU_ASSERT_EQUAL(pt_format_index_bits(h, 0, 13), 0); /* no such page */
  CU_ASSERT_EQUAL(pt_format_index_bits(x, 2, 21), 9);
  CU_ASSERT_EQUAL(pt_format_index_shift(x, 2, 21), 21);
  CU_ASSERT_EQUAL(pt_format_index_bits(x, 3, 21), 0);
  CU_ASSERT_EQUAL(pt_format_index_bits(x, 1, 30), 9);
  CU_ASSERT_EQUAL(pt_format_index_shift(x, 0, 30), 39);
  CU_ASSERT_EQUAL(pt_format_index_bits(t, 0, 12), 4);
  CU_ASSERT_EQUAL(pt_format_index_bits(t, 1, 12), 0);
  CU_ASSERT_EQUAL(pt_format_index_shift(t, 1, 8), 8);
}

/* Each way a format can be malformed is refused with a message naming it. */
static void t_check_rejects(void) {
  diag d;
  pt_format f = *pt_format_find("x86-64-4");
  snprintf(f.name, sizeof f.name, "bad");
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), 0);
  f.level[1].bits = 8; /* leaves VA[38] unindexed */
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_SPAN);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "bad"));
  CU_ASSERT_PTR_NULL(pt_create(&f));
  f = *pt_format_find("x86-64-4");
  f.level[2].entry_bytes = 12;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEVELS);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "power of two"));
  f = *pt_format_find("x86-64-4");
  f.leaf[1].level = 3; /* 2M at PT, which spans VA[20:12] only */
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  f = *pt_format_find("x86-64-4");
  f.leaf[1].page_shift = 12; /* 4K listed twice */
  f.leaf[1].level = 3;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "twice"));
  f = *pt_format_find("x86-64-4");
  f.leaf[2].level = 7;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  f = *pt_format_find("x86-64-4");
  f.va_bits = 0;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_VA_BITS);
  f = *pt_format_find("x86-64-4");
  f.nlevels = 0;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEVELS);
  f = *pt_format_find("x86-64-4");
  f.nleaves = 0;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  f = *pt_format_find("teaching16");
  f.leaf[1].page_shift = 13; /* a root leaf needing a second root table */
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "root"));
  f = *pt_format_find("teaching16");
  f.leaf[0].page_shift = 9; /* the last level has no 256 B leaf */
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "last level"));
  f = *pt_format_find("teaching16");
  f.level[1].shift = 2; /* 4-byte pages */
  f.level[1].bits = 10;
  f.leaf[0].page_shift = 2;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEVELS);
  CU_ASSERT_EQUAL(pt_format_check(NULL, &d), PT_FORMAT_BAD_VA_BITS);
}

/* Formats written as a configuration writes them: CS:APP 9.6.4's one level,
 * OSTEP's homework's two, and each malformed item refused. */
static void t_add_items(void) {
  diag d;
  pt_format f = {.name = "csapp", .va_bits = 14};
  CU_ASSERT_EQUAL(pt_format_add_level(&f, "PT:6:8:4", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_leaf(&f, "64@PT", &d), 0);
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_OK);
  CU_ASSERT_STRING_EQUAL(f.level[0].name, "PT");
  CU_ASSERT_EQUAL(f.level[0].shift, 6);
  CU_ASSERT_EQUAL(f.level[0].bits, 8);
  CU_ASSERT_EQUAL(f.level[0].entry_bytes, 4);
  CU_ASSERT_EQUAL(f.leaf[0].page_shift, 6);
  pt *t = pt_create(&f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  /* 9.6.4: VPN 0x0F -> PPN 0x0D, so VA 0x03d4 -> PA 0x354 */
  CU_ASSERT_EQUAL(pt_map(t, 0x3c0, 0xd << 6, 6, PT_R, &d), 0);
  pt_walk w;
  pt_walk_va(t, 0x3d4, &w);
  CU_ASSERT_EQUAL(w.nsteps, 1);
  CU_ASSERT_EQUAL(w.step[0].index, 0x0f);
  CU_ASSERT_EQUAL(w.step[0].entry_pa, BASE + 0x0f * 4);
  CU_ASSERT_EQUAL(w.map.pa + (0x3d4 & 63), 0x354);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 1024);
  pt_destroy(t);

  pt_format o = {.name = "ostep", .va_bits = 15};
  CU_ASSERT_EQUAL(pt_format_add_level(&o, "PD:10:5:1", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_level(&o, "PT:5:5:1", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_leaf(&o, "32@PT", &d), 0);
  CU_ASSERT_EQUAL(pt_format_check(&o, &d), PT_FORMAT_OK);
  t = pt_create(&o);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(pt_map(t, 0x6100, 0x35 << 5, 5, PT_R, &d), 0); /* seed 0: 0x611c -> 0x6bc */
  pt_walk_va(t, 0x611c, &w);
  CU_ASSERT_EQUAL(w.nsteps, 2);
  CU_ASSERT_EQUAL(w.step[0].index, 0x18);
  CU_ASSERT_EQUAL(w.step[1].index, 0x8);
  CU_ASSERT_EQUAL(w.map.pa + (0x611c & 31), 0x6bc);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 64); /* a 32-entry directory and one 32-entry table, 1 B each */
  pt_destroy(t);

  static const char *const bad_levels[] = {"PT:6:8", "PT:6:8:4:1", "PT:64:8:4", "PT:6:0:4", "PT:6:25:4",
                                           "PT:6:8:32", "P T:6:8:4", ":6:8:4", "PT:x:8:4", "ALONGLEVELNAME16:6:8:4",
                                           "PD:10:5:1"};
  for (size_t i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; i++)
    CU_ASSERT_EQUAL(pt_format_add_level(&o, bad_levels[i], &d), -1); /* the last: PD twice */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "twice"));
  static const char *const bad_leaves[] = {"32", "48@PT", "8@PT", "32@PX", "32@PT@PD", "x@PT"};
  for (size_t i = 0; i < sizeof bad_leaves / sizeof bad_leaves[0]; i++)
    CU_ASSERT_EQUAL(pt_format_add_leaf(&o, bad_leaves[i], &d), -1);
  CU_ASSERT_EQUAL(o.nlevels, 2);
  CU_ASSERT_EQUAL(o.nleaves, 1);

  pt_format full = {.name = "deep", .va_bits = 64};
  char item[32];
  for (unsigned l = 0; l < PT_MAX_LEVELS; l++) {
    snprintf(item, sizeof item, "L%u:%u:7:8", l, 57 - 7 * l);
    CU_ASSERT_EQUAL(pt_format_add_level(&full, item, &d), 0);
  }
  CU_ASSERT_EQUAL(pt_format_add_level(&full, "L8:0:1:8", &d), -1);
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_OK);
  f.va_bits = 15; /* VA[14] indexed by nothing */
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_SPAN);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "level PT indexes VA[13:6], but the next bits to index are VA[14:...]"));
  f.va_bits = 14;
  f.leaf[0].level = 1;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEAVES);
  f.level[0].entry_bytes = 32;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_LEVELS);
  f.va_bits = 0;
  CU_ASSERT_EQUAL(pt_format_check(&f, &d), PT_FORMAT_BAD_VA_BITS);
}

/* Canonical addresses: VA[63:va_bits] copies VA[va_bits-1] in x86-64 and
 * Sv39/Sv48, must be 0 in formats without sign extension. */
static void t_sign_extension(void) {
  const pt_format *x = pt_format_find("x86-64-4"), *sv = pt_format_find("sv39");
  const pt_format *h = pt_format_find("hopper"), *t16 = pt_format_find("teaching16");
  CU_ASSERT_TRUE(x->sign_extend && sv->sign_extend && pt_format_find("sv48")->sign_extend &&
                 pt_format_find("x86-64-5")->sign_extend);
  CU_ASSERT_FALSE(h->sign_extend || t16->sign_extend || pt_format_find("arm64-4k")->sign_extend);
  CU_ASSERT_TRUE(pt_format_va_ok(x, UINT64_C(0x00007fffffffffff)));
  CU_ASSERT_TRUE(pt_format_va_ok(x, UINT64_C(0xffff800000000000)));
  CU_ASSERT_FALSE(pt_format_va_ok(x, UINT64_C(0x0000800000000000)));
  CU_ASSERT_FALSE(pt_format_va_ok(x, UINT64_C(0xfff0800000000000)));
  CU_ASSERT_TRUE(pt_format_va_ok(sv, UINT64_C(0x3fffffffff)));
  CU_ASSERT_FALSE(pt_format_va_ok(sv, UINT64_C(0x4000000000)));
  CU_ASSERT_TRUE(pt_format_va_ok(sv, UINT64_C(0xffffffc000000000)));
  CU_ASSERT_FALSE(pt_format_va_ok(h, UINT64_C(0xffff800000000000)));
  CU_ASSERT_TRUE(pt_format_va_ok(t16, 0xffff));
  CU_ASSERT_FALSE(pt_format_va_ok(t16, 0x10000));
  CU_ASSERT_EQUAL(pt_format_va_canonical(x, UINT64_C(0x800000000000)), UINT64_C(0xffff800000000000));
  CU_ASSERT_EQUAL(pt_format_va_canonical(x, UINT64_C(0x7fffffffffff)), UINT64_C(0x7fffffffffff));
  CU_ASSERT_EQUAL(pt_format_va_canonical(t16, UINT64_C(0x18000)), 0x8000);

  pt *t = pt_create(x);
  diag d;
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(0xffff800000001000), 0x5000, 12, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(0x1000), 0x6000, 12, PT_R, &d), 0); /* its low-half twin: index 0, not 256 */
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(0x800000001000), 0x7000, 12, PT_R, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not canonical"));
  pt_walk w;
  pt_walk_va(t, UINT64_C(0xffff800000001234), &w);
  CU_ASSERT_EQUAL(w.nsteps, 4);
  CU_ASSERT_EQUAL(w.step[0].index, 256);
  CU_ASSERT_TRUE(w.mapped);
  CU_ASSERT_EQUAL(w.map.va, UINT64_C(0xffff800000001000));
  CU_ASSERT_EQUAL(w.map.pa, 0x5000);
  pt_walk_va(t, UINT64_C(0x800000001234), &w);
  CU_ASSERT_EQUAL(w.nsteps, 0);
  pt_mapping m;
  CU_ASSERT_TRUE(pt_lookup(t, 0x1234, &m));
  CU_ASSERT_EQUAL(m.pa, 0x6000);
  pt_destroy(t);
}

/* xv6-riscv's walk(): PX(level, va) = (va >> (12 + 9 * level)) & 0x1FF is
 * the index tlbsim reads at its level VPN[level] (depth 2 - level). */
static void t_sv39_xv6(void) {
  const pt_format *sv = pt_format_find("sv39");
  static const uint64_t vas[] = {UINT64_C(0x10000005), UINT64_C(0x80000000), UINT64_C(0x3ffffff000),
                                 UINT64_C(0x0c201004), UINT64_C(0x87fff123)};
  pt *t = pt_create(sv);
  for (size_t i = 0; i < sizeof vas / sizeof vas[0]; i++) {
    uint64_t page = align_down(vas[i], 12);
    CU_ASSERT_EQUAL(pt_map(t, page, page, 12, PT_R, NULL), 0); /* xv6 maps the kernel one to one */
    pt_walk w;
    pt_walk_va(t, vas[i], &w);
    CU_ASSERT_EQUAL_FATAL(w.nsteps, 3);
    for (unsigned level = 0; level < 3; level++) {
      CU_ASSERT_EQUAL(w.step[2 - level].index, (vas[i] >> (12 + 9 * level)) & 0x1FF);
      char name[8];
      snprintf(name, sizeof name, "VPN[%u]", level);
      CU_ASSERT_STRING_EQUAL(sv->level[2 - level].name, name);
    }
    CU_ASSERT_EQUAL(w.map.pa, page);
  }
  pt_destroy(t);
}

/* A frame source for table nodes: hands out 0x100-aligned blocks from 0x100
 * up, at most `left` of them, and counts what is outstanding. */
typedef struct table_pool {
  uint64_t next, outstanding, given_back;
  unsigned left;
} table_pool;

static int pool_take(void *ctx, uint64_t bytes, uint64_t *pa) {
  table_pool *p = ctx;
  if (!p->left) return -1;
  p->left--;
  p->next = (p->next + bytes - 1) & ~(bytes - 1);
  *pa = p->next;
  p->next += bytes;
  p->outstanding += bytes;
  return 0;
}

static void pool_give(void *ctx, uint64_t pa, uint64_t bytes) {
  table_pool *p = ctx;
  (void)pa;
  p->outstanding -= bytes;
  p->given_back += bytes;
}

/* Table nodes from simulated memory: their addresses are the source's, a
 * node freed goes back, and a full memory fails the map with
 * PT_MAP_NO_TABLE_MEMORY, leaving nothing behind. teaching16: 32 B tables. */
static void t_tables_in_memory(void) {
  table_pool pool = {.next = 0x100, .left = 2};
  pt_table_frames frames = {.ctx = &pool, .take = pool_take, .give = pool_give};
  pt *t = pt_create_in(pt_format_find("teaching16"), &frames);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(pool.outstanding, 32); /* the root */
  diag d;
  CU_ASSERT_EQUAL(pt_map(t, 0x1200, 0x300, 8, PT_R, &d), 0);
  pt_walk w;
  pt_walk_va(t, 0x1234, &w);
  CU_ASSERT_EQUAL(w.step[0].table_pa, 0x100);
  CU_ASSERT_EQUAL(w.step[1].table_pa, 0x120);
  CU_ASSERT_EQUAL(w.step[1].entry_pa, 0x124);
  CU_ASSERT_EQUAL(pt_map(t, 0x2200, 0x400, 8, PT_R, &d), PT_MAP_NO_TABLE_MEMORY); /* no third node */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "page-table nodes"));
  CU_ASSERT_FALSE(pt_lookup(t, 0x2200, NULL));
  CU_ASSERT_EQUAL(pt_map(t, 0x3000, 0x1000, 12, PT_R, &d), 0); /* a root leaf needs no node */
  CU_ASSERT_EQUAL(pt_unmap(t, 0x1200, NULL), 0);
  CU_ASSERT_EQUAL(pool.given_back, 32); /* the emptied L2 table */
  CU_ASSERT_EQUAL(pool.outstanding, 32);
  pt_destroy(t);
  CU_ASSERT_EQUAL(pool.outstanding, 0);
}

/* A host that has no memory for a node (take says so) fails the map with
 * PT_MAP_NO_HOST_MEMORY, not as the simulated memory running out. */
static int host_refuses(void *ctx, uint64_t bytes, uint64_t *pa) {
  table_pool *p = ctx;
  return p->left ? pool_take(ctx, bytes, pa) : PT_TAKE_NO_HOST_MEMORY;
}

static void t_tables_no_host_memory(void) {
  table_pool pool = {.next = 0x100, .left = 1};
  pt_table_frames frames = {.ctx = &pool, .take = host_refuses, .give = pool_give};
  pt *t = pt_create_in(pt_format_find("teaching16"), &frames);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  diag d;
  CU_ASSERT_EQUAL(pt_map(t, 0x1200, 0x300, 8, PT_R, &d), PT_MAP_NO_HOST_MEMORY);
  CU_ASSERT_STRING_EQUAL(d.msg, "out of host memory for page-table nodes");
  CU_ASSERT_FALSE(pt_lookup(t, 0x1200, NULL));
  CU_ASSERT_EQUAL(pool.outstanding, 32); /* the root alone */
  pt_destroy(t);
}

/* ------------------------------------------------------------- wide levels */

/* Two levels of 24 index bits each (a [format.NAME] may have them): 128 MiB
 * of simulated table a node, held as the entries used. */
static pt_format wide_format(void) {
  pt_format f = {.name = "wide", .va_bits = 60};
  diag d;
  CU_ASSERT_EQUAL(pt_format_add_level(&f, "L0:36:24:8", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_level(&f, "L1:12:24:8", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_leaf(&f, "4K@L1", &d), 0);
  CU_ASSERT_EQUAL(pt_format_add_leaf(&f, "64G@L0", &d), 0);
  CU_ASSERT_EQUAL_FATAL(pt_format_check(&f, &d), PT_FORMAT_OK);
  return f;
}

typedef struct tally {
  unsigned tables;
  uint64_t valid;
} tally;

static void count_tables(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa, uint32_t n,
                         const pt_table_entry *valid, uint32_t nvalid) {
  tally *x = ctx;
  (void)level, (void)va_base, (void)table_pa;
  CU_ASSERT_EQUAL(n, UINT32_C(1) << 24);
  for (uint32_t k = 1; k < nvalid; k++) CU_ASSERT(valid[k].index > valid[k - 1].index);
  x->tables++;
  x->valid += nvalid;
}

/* Random maps and unmaps, the VA's index bits drawn from a few values per
 * level so that cells collide and clusters form and close (backward-shift
 * deletion): every lookup, walk and count agrees with a list of what is
 * mapped, and unmapping everything leaves the root alone. */
static void t_wide_levels(void) {
  pt_format f = wide_format();
  pt *t = pt_create(&f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  tally none = {0};
  CU_ASSERT_EQUAL(pt_each_table(t, count_tables, &none), 0); /* a wide root that never held an entry */
  CU_ASSERT(none.tables == 1 && none.valid == 0);
  enum { SLOTS = 512 };
  static uint64_t va[SLOTS];
  static bool on[SLOTS];
  uint64_t x = 0x2545f4914f6cdd1dull, mapped = 0;
  for (unsigned i = 0; i < SLOTS; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t hi = (x >> 8) % 5 * 0x333333 + (x >> 40) % 3, lo = (x >> 20) % 64 * 0x40000 + (x & 63);
    va[i] = hi << 36 | lo << 12;
  }
  diag d;
  for (unsigned step = 0; step < 6000; step++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned i = (unsigned)(x % SLOTS);
    if (on[i]) {
      CU_ASSERT_EQUAL(pt_unmap(t, va[i], NULL), 0);
      on[i] = false, mapped--;
    } else {
      int rc = pt_map(t, va[i], va[i] & 0xfffffffff000, 12, PT_R, &d);
      bool dup = false; /* another slot drew the same VA */
      for (unsigned j = 0; j < SLOTS; j++) dup |= on[j] && va[j] == va[i];
      CU_ASSERT_EQUAL(rc, dup ? -1 : 0);
      if (!dup) on[i] = true, mapped++;
    }
    if (step % 500) continue;
    for (unsigned j = 0; j < SLOTS; j++) {
      bool want = false;
      for (unsigned k = 0; k < SLOTS; k++) want |= on[k] && va[k] == va[j];
      pt_mapping m;
      CU_ASSERT_EQUAL(pt_lookup(t, va[j] + 0x123, &m), want);
      if (want) CU_ASSERT_EQUAL(m.pa, va[j] & 0xfffffffff000);
      pt_walk w;
      pt_walk_va(t, va[j], &w);
      CU_ASSERT_EQUAL(w.mapped, want);
    }
    CU_ASSERT_EQUAL(pt_mapped_pages(t), mapped);
    tally n = {0};
    CU_ASSERT_EQUAL(pt_each_table(t, count_tables, &n), 0);
    CU_ASSERT_EQUAL(n.tables, pt_usage(t, 0).tables + pt_usage(t, 1).tables);
    CU_ASSERT_EQUAL(n.valid, mapped + pt_usage(t, 1).tables); /* the leaves and one root entry per L1 table */
    CU_ASSERT_EQUAL(pt_total_bytes(t), (uint64_t)n.tables << 27); /* simulated: 2^24 entries x 8 B each */
  }
  for (unsigned i = 0; i < SLOTS; i++)
    if (on[i]) CU_ASSERT_EQUAL(pt_unmap(t, va[i], NULL), 0);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 0);
  CU_ASSERT_EQUAL(pt_usage(t, 1).tables, 0);
  CU_ASSERT_EQUAL(pt_total_bytes(t), UINT64_C(1) << 27);
  /* a 64 GiB leaf in the root, and the overlap checks across a wide entry */
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(7) << 36, UINT64_C(1) << 36, 36, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, (UINT64_C(7) << 36) + 0x5000, 0x5000, 12, PT_R, &d), -1);
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(8) << 36 | 0x5000, 0x5000, 12, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, UINT64_C(8) << 36, 0, 36, PT_R, &d), -1);
  pt_destroy(t);
}

/* ------------------------------------------------------------------- walks */

/* The walk to the smallest page reads the hand-worked index at every level. */
static void t_index_extraction(void) {
  for (size_t i = 0; i < NCASES; i++) {
    const fmt_case *c = &cases_fmt[i];
    pt *t = pt_create(pt_format_find(c->name));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    unsigned small = c->leaf[0].shift;
    uint64_t pa = UINT64_C(0x5) << small;
    CU_ASSERT_EQUAL(pt_map(t, align_down(c->va, small), pa, small, PT_R | PT_W, NULL), 0);
    pt_walk w;
    pt_walk_va(t, c->va, &w);
    CU_ASSERT_EQUAL(w.nsteps, c->nlevels);
    for (unsigned l = 0; l < c->nlevels; l++) {
      CU_ASSERT_EQUAL(w.step[l].level, l);
      CU_ASSERT_EQUAL(w.step[l].index, c->index[l]);
      CU_ASSERT_EQUAL(w.step[l].table_pa, BASE + c->table_off[l]);
      CU_ASSERT_EQUAL(w.step[l].entry_pa,
                      BASE + c->table_off[l] + (uint64_t)c->index[l] * c->entry_bytes[l]);
      CU_ASSERT_TRUE(w.step[l].present);
      CU_ASSERT_EQUAL(w.step[l].leaf, l + 1 == c->nlevels);
    }
    CU_ASSERT_TRUE(w.mapped);
    CU_ASSERT_EQUAL(w.map.va, align_down(c->va, small));
    CU_ASSERT_EQUAL(w.map.pa, pa);
    CU_ASSERT_EQUAL(w.map.page_shift, small);
    CU_ASSERT_EQUAL(w.map.prot, PT_R | PT_W);
    pt_destroy(t);
  }
}

/* A page of every allowed size, alone in a fresh tree: depth, leaf index, lookup. */
static void t_leaf_each_level(void) {
  for (size_t i = 0; i < NCASES; i++) {
    const fmt_case *c = &cases_fmt[i];
    const pt_format *f = pt_format_find(c->name);
    for (unsigned k = 0; k < c->nleaves; k++) {
      const leaf_case *lc = &c->leaf[k];
      pt *t = pt_create(f);
      CU_ASSERT_PTR_NOT_NULL_FATAL(t);
      uint64_t page = align_down(c->va, lc->shift), pa = UINT64_C(3) << lc->shift;
      CU_ASSERT_EQUAL(pt_map(t, page, pa, lc->shift, PT_R, NULL), 0);
      pt_walk w;
      pt_walk_va(t, c->va, &w);
      CU_ASSERT_EQUAL(w.nsteps, lc->depth);
      unsigned last = lc->depth - 1;
      CU_ASSERT_EQUAL(w.step[last].level, last);
      CU_ASSERT_EQUAL(w.step[last].index, lc->leaf_index);
      CU_ASSERT_EQUAL(w.step[last].table_pa, BASE + c->table_off[last]);
      CU_ASSERT_TRUE(w.step[last].leaf);
      CU_ASSERT_TRUE(w.mapped);
      CU_ASSERT_EQUAL(w.map.page_shift, lc->shift);
      pt_mapping m;
      CU_ASSERT_TRUE(pt_lookup(t, c->va, &m));
      CU_ASSERT_EQUAL(m.va, page);
      CU_ASSERT_EQUAL(m.pa, pa);
      CU_ASSERT_EQUAL(m.pa + (c->va - m.va), pa + (c->va & ((UINT64_C(1) << lc->shift) - 1)));
      CU_ASSERT_EQUAL(pt_usage(t, last).tables, 1);
      CU_ASSERT_EQUAL(pt_usage(t, last + 1).tables, 0); /* nothing below a leaf */
      CU_ASSERT_TRUE(pt_lookup(t, page + (UINT64_C(1) << lc->shift) - 1, NULL));
      CU_ASSERT_FALSE(pt_lookup(t, page + (UINT64_C(1) << lc->shift), NULL));
      CU_ASSERT_EQUAL(pt_mapped_pages(t), 1);
      pt_destroy(t);
    }
  }
}

/* An empty entry ends the walk with present=false; beyond va_bits reads nothing. */
static void t_walk_stops(void) {
  for (size_t i = 0; i < NCASES; i++) {
    const fmt_case *c = &cases_fmt[i];
    pt *t = pt_create(pt_format_find(c->name));
    pt_walk w;
    pt_walk_va(t, c->va, &w);
    CU_ASSERT_EQUAL(w.nsteps, 1);
    CU_ASSERT_FALSE(w.step[0].present);
    CU_ASSERT_FALSE(w.step[0].leaf);
    CU_ASSERT_EQUAL(w.step[0].index, c->index[0]);
    CU_ASSERT_EQUAL(w.step[0].table_pa, BASE);
    CU_ASSERT_FALSE(w.mapped);
    pt_walk_va(t, UINT64_C(1) << c->va_bits, &w);
    CU_ASSERT_EQUAL(w.nsteps, 0);
    CU_ASSERT_FALSE(w.mapped);
    /* A page next door shares every table but the last entry. */
    unsigned small = c->leaf[0].shift;
    uint64_t page = align_down(c->va, small);
    CU_ASSERT_EQUAL(pt_map(t, page, 0, small, PT_R, NULL), 0);
    pt_walk_va(t, c->va ^ (UINT64_C(1) << small), &w);
    CU_ASSERT_EQUAL(w.nsteps, c->nlevels);
    CU_ASSERT_TRUE(w.step[c->nlevels - 2].present);
    CU_ASSERT_FALSE(w.step[c->nlevels - 1].present);
    CU_ASSERT_EQUAL(w.step[c->nlevels - 1].index, c->index[c->nlevels - 1] ^ 1);
    CU_ASSERT_FALSE(w.mapped);
    pt_destroy(t);
  }
}

/* ------------------------------------------------------------------ errors */

static void t_errors(void) {
  for (size_t i = 0; i < NCASES; i++) {
    const fmt_case *c = &cases_fmt[i];
    pt *t = pt_create(pt_format_find(c->name));
    diag d;
    unsigned small = c->leaf[0].shift, big = c->leaf[c->nleaves - 1].shift;
    uint64_t page = align_down(c->va, small);
    uint64_t root_bytes = pt_total_bytes(t);

    CU_ASSERT_EQUAL(pt_map(t, page, 0, 13, PT_R, &d), -1); /* no format has 8K pages */
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "8KiB"));
    CU_ASSERT_EQUAL(pt_map(t, page, 0, 0, PT_R, &d), -1);
    CU_ASSERT_EQUAL(pt_map(t, page + 0x10, 0, small, PT_R, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "va 0x"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "not aligned"));
    CU_ASSERT_EQUAL(pt_map(t, page, 0x10, small, PT_R, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "pa 0x10"));
    CU_ASSERT_EQUAL(pt_map(t, UINT64_C(1) << c->va_bits, 0, small, PT_R, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "beyond"));
    CU_ASSERT_EQUAL(pt_map(t, page, 0, small, 8, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "protection"));
    CU_ASSERT_EQUAL(pt_total_bytes(t), root_bytes); /* refused maps build nothing */

    CU_ASSERT_EQUAL(pt_unmap(t, page, NULL), -1);
    CU_ASSERT_EQUAL(pt_protect(t, page, PT_R), -1);
    CU_ASSERT_EQUAL(pt_unmap(t, UINT64_MAX, NULL), -1);

    CU_ASSERT_EQUAL(pt_map(t, page, 0, small, PT_R, &d), 0);
    uint64_t bytes = pt_total_bytes(t);
    CU_ASSERT_EQUAL(pt_map(t, page, K64 << 4, small, PT_R, &d), -1); /* the same page */
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "overlaps"));
    /* the largest page around it */
    CU_ASSERT_EQUAL(pt_map(t, align_down(c->va, big), 0, big, PT_R, &d), -1);
    CU_ASSERT_EQUAL(pt_total_bytes(t), bytes);
    CU_ASSERT_EQUAL(pt_mapped_pages(t), 1);
    CU_ASSERT_EQUAL(pt_unmap(t, page, NULL), 0);
    CU_ASSERT_EQUAL(pt_unmap(t, page, NULL), -1);
    CU_ASSERT_EQUAL(pt_total_bytes(t), root_bytes);

    /* a small page inside a mapped large one */
    CU_ASSERT_EQUAL(pt_map(t, align_down(c->va, big), 0, big, PT_R, &d), 0);
    CU_ASSERT_EQUAL(pt_map(t, page, 0, small, PT_R, &d), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "overlaps"));
    CU_ASSERT_EQUAL(pt_mapped_pages(t), 1);
    pt_destroy(t);
  }
}

/* ------------------------------------------------------------------- usage */

static void assert_usage(const pt *t, unsigned level, uint64_t tables, uint64_t bytes,
                         uint64_t tables_peak, uint64_t bytes_peak) {
  pt_level_usage u = pt_usage(t, level);
  CU_ASSERT_EQUAL(u.tables, tables);
  CU_ASSERT_EQUAL(u.bytes, bytes);
  CU_ASSERT_EQUAL(u.tables_peak, tables_peak);
  CU_ASSERT_EQUAL(u.bytes_peak, bytes_peak);
}

/* x86-64-4 and arm64-4k share a geometry: run the same hand-worked scenario. */
static void usage_4level(const char *name) {
  pt *t = pt_create(pt_format_find(name));
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  assert_usage(t, 0, 1, 4096, 1, 4096);
  uint64_t a = UINT64_C(0x7f0000000000); /* root 254, then 0, 0, 0 */
  uint64_t far = UINT64_C(0x10000000000) + 5 * K4; /* root 2, then 0, 0, 5 */
  CU_ASSERT_EQUAL(pt_map(t, a, 0x1000, 12, PT_R, NULL), 0);
  CU_ASSERT_EQUAL(pt_map(t, a + K4, 0x2000, 12, PT_R, NULL), 0); /* same PT */
  CU_ASSERT_EQUAL(pt_map(t, a + 3 * M2, 0x400000, 21, PT_R, NULL), 0); /* same PD */
  CU_ASSERT_EQUAL(pt_map(t, a + 2 * G1, 0x80000000, 30, PT_R, NULL), 0); /* same PDPT */
  CU_ASSERT_EQUAL(pt_map(t, far, 0x3000, 12, PT_R, NULL), 0);
  assert_usage(t, 0, 1, 4096, 1, 4096);
  assert_usage(t, 1, 2, 8192, 2, 8192);
  assert_usage(t, 2, 2, 8192, 2, 8192);
  assert_usage(t, 3, 2, 8192, 2, 8192);
  assert_usage(t, 4, 0, 0, 0, 0); /* no such level */
  CU_ASSERT_EQUAL(pt_total_bytes(t), 7 * 4096);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 5);

  pt_mapping old;
  CU_ASSERT_EQUAL(pt_unmap(t, far + 0x123, &old), 0); /* frees PT, PD and PDPT */
  CU_ASSERT_EQUAL(old.va, far);
  CU_ASSERT_EQUAL(old.pa, 0x3000);
  assert_usage(t, 1, 1, 4096, 2, 8192);
  assert_usage(t, 2, 1, 4096, 2, 8192);
  assert_usage(t, 3, 1, 4096, 2, 8192);
  CU_ASSERT_EQUAL(pt_unmap(t, a, NULL), 0);
  assert_usage(t, 3, 1, 4096, 2, 8192); /* a + 4K still there */
  CU_ASSERT_EQUAL(pt_unmap(t, a + K4 + 0xfff, NULL), 0);
  assert_usage(t, 3, 0, 0, 2, 8192);
  assert_usage(t, 2, 1, 4096, 2, 8192); /* the 2M page keeps the PD */
  CU_ASSERT_EQUAL(pt_unmap(t, a + 3 * M2 + 0x1fffff, &old), 0);
  CU_ASSERT_EQUAL(old.page_shift, 21);
  assert_usage(t, 2, 0, 0, 2, 8192);
  assert_usage(t, 1, 1, 4096, 2, 8192); /* the 1G page keeps the PDPT */
  CU_ASSERT_EQUAL(pt_unmap(t, a + 2 * G1 + 12345, &old), 0);
  CU_ASSERT_EQUAL(old.pa, 0x80000000);
  CU_ASSERT_EQUAL(old.page_shift, 30);
  assert_usage(t, 1, 0, 0, 2, 8192);
  assert_usage(t, 0, 1, 4096, 1, 4096); /* the root stays */
  CU_ASSERT_EQUAL(pt_total_bytes(t), 4096);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 0);

  /* freed tables get fresh addresses: 7 tables were handed out so far */
  CU_ASSERT_EQUAL(pt_map(t, a, 0, 12, PT_R, NULL), 0);
  pt_walk w;
  pt_walk_va(t, a, &w);
  CU_ASSERT_EQUAL(w.step[1].table_pa, BASE + 7 * K4);
  CU_ASSERT_EQUAL(w.step[3].table_pa, BASE + 9 * K4);
  pt_destroy(t);
}

static void t_usage_x86_64_4(void) { usage_4level("x86-64-4"); }
static void t_usage_arm64(void) { usage_4level("arm64-4k"); }

static void t_usage_x86_64_5(void) {
  pt *t = pt_create(pt_format_find("x86-64-5"));
  uint64_t a = UINT64_C(1) << 48; /* PML5 entry 1 */
  CU_ASSERT_EQUAL(pt_map(t, a, 0, 12, PT_R, NULL), 0);
  CU_ASSERT_EQUAL(pt_map(t, a + M2, 0, 21, PT_R, NULL), 0);
  CU_ASSERT_EQUAL(pt_map(t, 0, 0, 30, PT_R, NULL), 0); /* PML5 entry 0 */
  assert_usage(t, 0, 1, 4096, 1, 4096);
  assert_usage(t, 1, 2, 8192, 2, 8192); /* PML4 */
  assert_usage(t, 2, 2, 8192, 2, 8192); /* PDPT */
  assert_usage(t, 3, 1, 4096, 1, 4096); /* PD */
  assert_usage(t, 4, 1, 4096, 1, 4096); /* PT */
  pt_walk w;
  pt_walk_va(t, 0x12345678, &w); /* the 1G page: PML5, PML4, PDPT */
  CU_ASSERT_EQUAL(w.nsteps, 3);
  CU_ASSERT_EQUAL(w.map.pa, 0);
  CU_ASSERT_EQUAL(pt_unmap(t, a, NULL), 0);
  assert_usage(t, 4, 0, 0, 1, 4096);
  assert_usage(t, 3, 1, 4096, 1, 4096);
  CU_ASSERT_EQUAL(pt_unmap(t, a + M2, NULL), 0);
  assert_usage(t, 1, 1, 4096, 2, 8192);
  CU_ASSERT_EQUAL(pt_unmap(t, 0, NULL), 0);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 4096);
  pt_destroy(t);
}

/* Hopper: R = 1 GiB is PD4 0, PD3 0, PD2 0, PD1 2; PD0 entries below it. */
static void t_usage_hopper_dual(void) {
  pt *t = pt_create(pt_format_find("hopper"));
  diag d;
  const uint64_t r = G1;
  assert_usage(t, 0, 1, 16, 1, 16);
  CU_ASSERT_EQUAL(pt_map(t, r, 0x1000, 12, PT_R, &d), 0);            /* 4K-PT under PD0[0] */
  CU_ASSERT_EQUAL(pt_map(t, r + K64, 0x20000, 16, PT_R | PT_W, &d), 0); /* 64K-PT beside it */
  /* tables: PD4 16 B @BASE, PD3 @+0x1000, PD2 @+0x2000, PD1 @+0x3000,
   * PD0 @+0x4000, 4K-PT @+0x5000, 64K-PT (256 B) @+0x6000 */
  assert_usage(t, 4, 1, 4096, 1, 4096);
  assert_usage(t, 5, 2, 4096 + 256, 2, 4096 + 256);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 16 + 4 * 4096 + 4096 + 256);

  pt_walk w;
  pt_walk_va(t, r + K64 + 0x1234, &w);
  CU_ASSERT_EQUAL(w.nsteps, 6);
  CU_ASSERT_EQUAL(w.step[4].entry_pa, BASE + 0x4000);
  CU_ASSERT_EQUAL(w.step[5].table_pa, BASE + 0x6000);
  CU_ASSERT_EQUAL(w.step[5].index, 1);
  CU_ASSERT_EQUAL(w.step[5].entry_pa, BASE + 0x6008);
  CU_ASSERT_EQUAL(w.map.pa, 0x20000);
  CU_ASSERT_EQUAL(w.map.page_shift, 16);
  CU_ASSERT_EQUAL(w.map.prot, PT_R | PT_W);
  pt_walk_va(t, r + 0x123, &w);
  CU_ASSERT_EQUAL(w.nsteps, 6);
  CU_ASSERT_EQUAL(w.step[5].table_pa, BASE + 0x5000);
  CU_ASSERT_EQUAL(w.step[5].index, 0);
  CU_ASSERT_EQUAL(w.map.pa, 0x1000);
  pt_walk_va(t, r + 0x5000, &w); /* empty 4K entry, no 64K page there either */
  CU_ASSERT_EQUAL(w.nsteps, 6);
  CU_ASSERT_EQUAL(w.step[5].table_pa, BASE + 0x5000);
  CU_ASSERT_EQUAL(w.step[5].entry_pa, BASE + 0x5028);
  CU_ASSERT_FALSE(w.step[5].present);
  CU_ASSERT_FALSE(w.mapped);

  /* the other half of the dual entry is checked for overlap both ways */
  CU_ASSERT_EQUAL(pt_map(t, r, 0, 16, PT_R, &d), -1);             /* covers the 4K page */
  CU_ASSERT_EQUAL(pt_map(t, r + 0x1f000, 0, 12, PT_R, &d), -1);   /* inside the 64K page */
  CU_ASSERT_EQUAL(pt_map(t, r, 0, 21, PT_R, &d), -1);             /* PD0[0] has tables */
  CU_ASSERT_EQUAL(pt_map(t, r, 0, 29, PT_R, &d), -1);             /* PD1[2] has tables */
  CU_ASSERT_EQUAL(pt_map(t, r + 2 * K64, 0x30000, 16, PT_R, &d), 0); /* next 64K is free */
  CU_ASSERT_EQUAL(pt_map(t, r + 0xf000, 0x3000, 12, PT_R, &d), 0);   /* last 4K before it */

  CU_ASSERT_EQUAL(pt_map(t, r + M2, 0x200000, 21, PT_R, &d), 0);     /* PD0[1] leaf */
  CU_ASSERT_EQUAL(pt_map(t, r + 3 * M2 + 5 * K64, 0x50000, 16, PT_R, &d), 0); /* PD0[3] */
  CU_ASSERT_EQUAL(pt_map(t, 3 * M512, 0x60000000, 29, PT_R, &d), 0); /* PD1[3] leaf */
  CU_ASSERT_EQUAL(pt_map(t, 3 * M512 + 0x5000, 0, 12, PT_R, &d), -1);
  assert_usage(t, 5, 3, 4096 + 512, 3, 4096 + 512);
  pt_walk_va(t, r + 3 * M2 + 5 * K64 + 7, &w); /* 64K-PT #2 at +0x6100 */
  CU_ASSERT_EQUAL(w.step[4].entry_pa, BASE + 0x4030);
  CU_ASSERT_EQUAL(w.step[5].entry_pa, BASE + 0x6128);
  CU_ASSERT_EQUAL(w.map.pa, 0x50000);
  pt_walk_va(t, r + M2 + 0x1234, &w);
  CU_ASSERT_EQUAL(w.nsteps, 5);
  CU_ASSERT_EQUAL(w.step[4].entry_pa, BASE + 0x4010);
  CU_ASSERT_EQUAL(w.map.pa, 0x200000);
  pt_walk_va(t, 3 * M512 + 0x1234567, &w);
  CU_ASSERT_EQUAL(w.nsteps, 4);
  CU_ASSERT_EQUAL(w.step[3].entry_pa, BASE + 0x3018);
  CU_ASSERT_EQUAL(w.map.pa + (3 * M512 + 0x1234567 - w.map.va), 0x61234567);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 7);

  /* tear down: the dual entry becomes single, then everything but the root goes */
  CU_ASSERT_EQUAL(pt_unmap(t, r + K64, NULL), 0);
  assert_usage(t, 5, 3, 4096 + 512, 3, 4096 + 512); /* r + 128K keeps the 64K-PT */
  CU_ASSERT_EQUAL(pt_unmap(t, r + 2 * K64 + 1, NULL), 0);
  assert_usage(t, 5, 2, 4096 + 256, 3, 4096 + 512);
  CU_ASSERT_EQUAL(pt_unmap(t, r, NULL), 0);
  CU_ASSERT_EQUAL(pt_unmap(t, r + 0xf000, NULL), 0);
  assert_usage(t, 5, 1, 256, 3, 4096 + 512);
  CU_ASSERT_EQUAL(pt_map(t, r, 0, 21, PT_R, &d), 0); /* PD0[0] is free again */
  CU_ASSERT_EQUAL(pt_unmap(t, r, NULL), 0);
  CU_ASSERT_EQUAL(pt_unmap(t, r + M2, NULL), 0);
  assert_usage(t, 4, 1, 4096, 1, 4096);
  CU_ASSERT_EQUAL(pt_unmap(t, r + 3 * M2 + 5 * K64, NULL), 0);
  assert_usage(t, 5, 0, 0, 3, 4096 + 512);
  assert_usage(t, 4, 0, 0, 1, 4096);
  assert_usage(t, 3, 1, 4096, 1, 4096); /* the 512M page keeps PD1 */
  CU_ASSERT_EQUAL(pt_unmap(t, 3 * M512, NULL), 0);
  for (unsigned l = 1; l < 6; l++) CU_ASSERT_EQUAL(pt_usage(t, l).tables, 0);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 16);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 0);
  pt_destroy(t);
}

static void t_usage_teaching16(void) {
  pt *t = pt_create(pt_format_find("teaching16"));
  diag d;
  CU_ASSERT_EQUAL(pt_map(t, 0xa700, 0x0300, 8, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, 0xa800, 0x0400, 8, PT_R, &d), 0);
  assert_usage(t, 1, 1, 32, 1, 32);
  CU_ASSERT_EQUAL(pt_map(t, 0x3000, 0x7000, 12, PT_R | PT_X, &d), 0); /* root leaf */
  assert_usage(t, 1, 1, 32, 1, 32);
  CU_ASSERT_EQUAL(pt_map(t, 0x5100, 0x0100, 8, PT_R, &d), 0);
  assert_usage(t, 1, 2, 64, 2, 64);
  assert_usage(t, 0, 1, 32, 1, 32);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 96);

  pt_walk w;
  pt_walk_va(t, 0xa7c3, &w); /* L1[0xa] @BASE+0x14, L2 table @BASE+0x20, [7] @+0x2e */
  CU_ASSERT_EQUAL(w.nsteps, 2);
  CU_ASSERT_EQUAL(w.step[0].entry_pa, BASE + 0x14);
  CU_ASSERT_EQUAL(w.step[1].entry_pa, BASE + 0x2e);
  CU_ASSERT_EQUAL(w.map.pa + 0xc3, 0x03c3);
  pt_walk_va(t, 0x5123, &w); /* second L2 table @BASE+0x40, [1] @+0x42 */
  CU_ASSERT_EQUAL(w.step[1].entry_pa, BASE + 0x42);
  pt_walk_va(t, 0x3456, &w);
  CU_ASSERT_EQUAL(w.nsteps, 1);
  CU_ASSERT_TRUE(w.step[0].leaf);
  CU_ASSERT_EQUAL(w.step[0].entry_pa, BASE + 6);
  CU_ASSERT_EQUAL(w.map.pa, 0x7000);
  CU_ASSERT_EQUAL(w.map.prot, PT_R | PT_X);

  CU_ASSERT_EQUAL(pt_map(t, 0x3100, 0, 8, PT_R, &d), -1);  /* inside the 4K leaf */
  CU_ASSERT_EQUAL(pt_map(t, 0xa000, 0, 12, PT_R, &d), -1); /* L1[0xa] has a table */
  CU_ASSERT_EQUAL(pt_map(t, 0x10000, 0, 8, PT_R, &d), -1); /* 17 bits */
  CU_ASSERT_EQUAL(pt_map(t, 0xb080, 0, 8, PT_R, &d), -1);  /* misaligned */
  CU_ASSERT_EQUAL(pt_unmap(t, 0xa700, NULL), 0);
  assert_usage(t, 1, 2, 64, 2, 64);
  CU_ASSERT_EQUAL(pt_unmap(t, 0xa8ff, NULL), 0);
  assert_usage(t, 1, 1, 32, 2, 64);
  CU_ASSERT_EQUAL(pt_map(t, 0xa000, 0xa000, 12, PT_R, &d), 0);
  pt_walk_va(t, 0xa123, &w);
  CU_ASSERT_EQUAL(w.nsteps, 1);
  CU_ASSERT_EQUAL(w.map.pa, 0xa000);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 3);
  pt_destroy(t);
}

/* ------------------------------------------------------------- operations */

static void t_protect(void) {
  pt *t = pt_create(pt_format_find("x86-64-4"));
  pt_mapping m;
  CU_ASSERT_EQUAL(pt_map(t, M2, 0x40000000, 21, PT_RWX, NULL), 0);
  CU_ASSERT_EQUAL(pt_protect(t, M2 + 0x1234, PT_R), 0);
  CU_ASSERT_TRUE(pt_lookup(t, M2, &m));
  CU_ASSERT_EQUAL(m.prot, PT_R);
  CU_ASSERT_EQUAL(m.pa, 0x40000000); /* the frame is untouched */
  CU_ASSERT_EQUAL(pt_protect(t, M2, PT_W | PT_X), 0);
  CU_ASSERT_TRUE(pt_lookup(t, M2 + M2 - 1, &m));
  CU_ASSERT_EQUAL(m.prot, PT_W | PT_X);
  CU_ASSERT_EQUAL(pt_protect(t, M2, 0), 0);
  CU_ASSERT_TRUE(pt_lookup(t, M2, &m)); /* no access, still mapped */
  CU_ASSERT_EQUAL(m.prot, 0);
  CU_ASSERT_EQUAL(pt_protect(t, M2, 9), -1);
  CU_ASSERT_TRUE(pt_lookup(t, M2, &m));
  CU_ASSERT_EQUAL(m.prot, 0);
  CU_ASSERT_EQUAL(pt_protect(t, 2 * M2, PT_R), -1);
  pt_mapping old;
  CU_ASSERT_EQUAL(pt_unmap(t, M2, &old), 0);
  CU_ASSERT_EQUAL(old.prot, 0);
  pt_destroy(t);
}

/* 4K, 2M and 1G pages side by side in one x86 tree, each found at its depth. */
static void t_mixed_sizes(void) {
  pt *t = pt_create(pt_format_find("x86-64-4"));
  diag d;
  CU_ASSERT_EQUAL(pt_map(t, 0, 0x10000, 12, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, K4, 0x7000, 12, PT_W, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, M2, 0x600000, 21, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, G1, 0x80000000, 30, PT_X, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, 2 * G1 + 511 * M2, 0, 21, PT_R, &d), 0);
  CU_ASSERT_EQUAL(pt_map(t, 2 * G1 + 510 * M2 + 511 * K4, K4, 12, PT_R, &d), 0);
  const struct { uint64_t va, pa; unsigned shift, depth; } probe[] = {
      {0x10, 0x10010, 12, 4},
      {K4 + 0xfff, 0x7fff, 12, 4},
      {M2 + 0x12345, 0x612345, 21, 3},
      {G1 + 0x3456789, 0x83456789, 30, 2},
      {3 * G1 - 1, M2 - 1, 21, 3},
      {2 * G1 + 511 * M2 - 1, 2 * K4 - 1, 12, 4},
  };
  for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
    pt_walk w;
    pt_walk_va(t, probe[i].va, &w);
    CU_ASSERT_TRUE(w.mapped);
    CU_ASSERT_EQUAL(w.nsteps, probe[i].depth);
    CU_ASSERT_EQUAL(w.map.page_shift, probe[i].shift);
    CU_ASSERT_EQUAL(w.map.pa + (probe[i].va - w.map.va), probe[i].pa);
  }
  CU_ASSERT_FALSE(pt_lookup(t, 2 * K4, NULL));
  CU_ASSERT_FALSE(pt_lookup(t, 2 * M2, NULL));
  CU_ASSERT_FALSE(pt_lookup(t, 2 * G1, NULL));
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 6);
  /* root, PDPT 0, PD 0 and PD 2, PT 0 and the PT under PD2[510] */
  CU_ASSERT_EQUAL(pt_total_bytes(t), 6 * 4096);
  CU_ASSERT_EQUAL(pt_usage(t, 2).tables, 2);
  pt_destroy(t);
}

/* Many pages in, out in a shuffled order: counts stay exact, no table leaks. */
static void t_many_pages(void) {
  enum { N = 100000 };
  pt *t = pt_create(pt_format_find("x86-64-4"));
  const uint64_t base = 5 * G1;
  for (uint64_t i = 0; i < N; i++)
    CU_ASSERT_EQUAL_FATAL(pt_map(t, base + i * K4, i * K4, 12, PT_R, NULL), 0);
  /* 100000 pages = 195 full PTs + 160 pages: 196 PTs under one PD */
  assert_usage(t, 3, 196, 196 * 4096, 196, 196 * 4096);
  assert_usage(t, 2, 1, 4096, 1, 4096);
  CU_ASSERT_EQUAL(pt_mapped_pages(t), N);
  pt_mapping m;
  CU_ASSERT_TRUE(pt_lookup(t, base + 77777 * K4 + 5, &m));
  CU_ASSERT_EQUAL(m.pa, 77777 * K4);

  static uint32_t order[N];
  for (uint32_t i = 0; i < N; i++) order[i] = i;
  rng r;
  rng_seed(&r, 42);
  for (uint32_t i = N - 1; i > 0; i--) {
    uint32_t j = (uint32_t)rng_below(&r, i + 1);
    uint32_t tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  for (uint32_t i = 0; i < N; i++) {
    CU_ASSERT_EQUAL_FATAL(pt_unmap(t, base + order[i] * K4, &m), 0);
    CU_ASSERT_EQUAL_FATAL(m.pa, order[i] * K4);
    if (i == N / 2) CU_ASSERT_EQUAL(pt_mapped_pages(t), N - N / 2 - 1);
  }
  CU_ASSERT_EQUAL(pt_mapped_pages(t), 0);
  CU_ASSERT_EQUAL(pt_total_bytes(t), 4096);
  assert_usage(t, 3, 0, 0, 196, 196 * 4096);
  pt_destroy(t);
}

/* --- entry words (explain, dump) -------------------------------------------- */

#define EV (UINT64_C(0x01) << 56) /* the top byte: V 0x01 R 0x02 W 0x04 X 0x08 L 0x10 size << 5 */

/* teaching16, by hand: the root (16 x 2 B) at BASE, the L2 table of the first
 * map right after it at BASE + 0x20, the second's at BASE + 0x40. */
static void t_entry_walk_teaching16(void) {
  const pt_format *f = pt_format_find("teaching16");
  pt *t = pt_create(f);
  diag d;
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0x1200, 0x300, 8, PT_R | PT_W, &d), 0);
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0xa700, 0x4400, 8, PT_X, &d), 0);
  uint64_t raw[PT_MAX_LEVELS];
  CU_ASSERT_EQUAL_FATAL(pt_walk_raw(t, 0x1234, raw), 2);
  CU_ASSERT_EQUAL(raw[0], UINT64_C(0x0101000000000020));
  CU_ASSERT_EQUAL(raw[1], UINT64_C(0x1700000000000300));
  CU_ASSERT_EQUAL_FATAL(pt_walk_raw(t, 0xa7c3, raw), 2);
  CU_ASSERT_EQUAL(raw[0], EV | (BASE + 0x40));
  CU_ASSERT_EQUAL(raw[1], UINT64_C(0x1900000000004400));
  /* 0x5000: the root's entry 5 is empty, the walk reads it and stops */
  CU_ASSERT_EQUAL_FATAL(pt_walk_raw(t, 0x5000, raw), 1);
  CU_ASSERT_EQUAL(raw[0], 0);
  CU_ASSERT_EQUAL(pt_walk_raw(t, 0x10000, raw), 0); /* beyond 16 bits */

  pt_entry e;
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(f, 0, UINT64_C(0x0101000000000020), &e, &d), 0);
  CU_ASSERT(e.valid && !e.leaf);
  CU_ASSERT_EQUAL(e.addr, BASE + 0x20);
  CU_ASSERT_EQUAL(e.frame, 0);
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(f, 1, UINT64_C(0x1700000000000300), &e, &d), 0);
  CU_ASSERT(e.valid && e.leaf);
  CU_ASSERT_EQUAL(e.prot, PT_R | PT_W);
  CU_ASSERT_EQUAL(e.page_shift, 8);
  CU_ASSERT_EQUAL(e.frame, 3);
  CU_ASSERT_EQUAL(e.addr, 0x300);
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(f, 1, UINT64_C(0x1900000000004400), &e, &d), 0);
  CU_ASSERT_EQUAL(e.prot, PT_X);
  CU_ASSERT_EQUAL(e.frame, 0x44);
  /* a 4 KiB leaf at L1, the level's own size (k = 0) */
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(f, 0, UINT64_C(0x1300000000003000), &e, &d), 0);
  CU_ASSERT(e.leaf && e.page_shift == 12 && e.frame == 3 && e.prot == PT_R);
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(f, 1, 0, &e, &d), 0);
  CU_ASSERT(!e.valid && !e.leaf);
  pt_destroy(t);
}

static void t_entry_decode_rejects(void) {
  const pt_format *f = pt_format_find("teaching16");
  pt_entry e;
  diag d;
  CU_ASSERT_EQUAL(pt_entry_decode(f, 1, UINT64_C(0x1600000000000300), &e, &d), -1); /* no V */
  CU_ASSERT_EQUAL(pt_entry_decode(f, 1, UINT64_C(0x1700000000000380), &e, &d), -1); /* misaligned frame */
  CU_ASSERT_EQUAL(pt_entry_decode(f, 1, UINT64_C(0x0100000000000300), &e, &d), -1); /* table at the last level */
  CU_ASSERT_EQUAL(pt_entry_decode(f, 0, UINT64_C(0x0300000000000020), &e, &d), -1); /* R on a table entry */
  CU_ASSERT_EQUAL(pt_entry_decode(f, 1, UINT64_C(0x3700000000000300), &e, &d), -1); /* L2 has one leaf size */
  CU_ASSERT_EQUAL(pt_entry_decode(f, 2, UINT64_C(0x1700000000000300), &e, &d), -1); /* no level 2 */
  CU_ASSERT(strstr(d.msg, "no level 2") != NULL);
}

/* x86-64 and Hopper: larger leaves. Hopper's PT level lists 4 KiB (its own
 * shift, k = 0) and 64 KiB (k = 1): the size bits read 0x20. */
static void t_entry_large_leaves(void) {
  const pt_format *x = pt_format_find("x86-64-4"), *h = pt_format_find("hopper");
  pt *t = pt_create(x);
  diag d;
  CU_ASSERT_EQUAL_FATAL(pt_map(t, G1, 5 * M2, 21, PT_RWX, &d), 0);
  uint64_t raw[PT_MAX_LEVELS];
  CU_ASSERT_EQUAL_FATAL(pt_walk_raw(t, G1 + 0x1234, raw), 3);
  CU_ASSERT_EQUAL(raw[0], EV | (BASE + K4));     /* PML4[0] -> PDPT */
  CU_ASSERT_EQUAL(raw[1], EV | (BASE + 2 * K4)); /* PDPT[1] -> PD */
  CU_ASSERT_EQUAL(raw[2], UINT64_C(0x1f00000000a00000));
  pt_entry e;
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(x, 2, raw[2], &e, &d), 0);
  CU_ASSERT(e.leaf && e.page_shift == 21 && e.frame == 5 && e.prot == PT_RWX);
  pt_destroy(t);

  t = pt_create(h);
  CU_ASSERT_EQUAL_FATAL(pt_map(t, K64, 3 * K64, 16, PT_R | PT_W, &d), 0);
  unsigned n = pt_walk_raw(t, K64 + 5, raw);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  CU_ASSERT_EQUAL(raw[5], UINT64_C(0x3700000000030000));
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(h, 5, raw[5], &e, &d), 0);
  CU_ASSERT(e.leaf && e.page_shift == 16 && e.frame == 3);
  CU_ASSERT_EQUAL_FATAL(pt_entry_decode(h, 5, UINT64_C(0x1700000000003000), &e, &d), 0);
  CU_ASSERT(e.leaf && e.page_shift == 12 && e.frame == 3);
  CU_ASSERT_EQUAL(pt_entry_decode(h, 5, UINT64_C(0x3700000000003000), &e, &d), -1); /* 64 KiB misaligned */
  pt_destroy(t);
}

typedef struct seen_table {
  unsigned level;
  uint64_t va_base, pa;
  uint32_t n;
  uint64_t raw[16];
} seen_table;

typedef struct seen {
  unsigned count;
  seen_table t[8];
} seen;

static void collect(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa, uint32_t n,
                    const pt_table_entry *valid, uint32_t nvalid) {
  seen *s = ctx;
  if (s->count >= 8) return;
  seen_table *x = &s->t[s->count++];
  *x = (seen_table){.level = level, .va_base = va_base, .pa = table_pa, .n = n};
  for (uint32_t k = 0; k < nvalid; k++) {
    CU_ASSERT(valid[k].raw != 0 && (k == 0 || valid[k].index > valid[k - 1].index));
    if (valid[k].index < 16) x->raw[valid[k].index] = valid[k].raw;
  }
}

/* Level by level, in VA order within a level: the table mapped second
 * (0xa7..., at BASE + 0x40) comes after the one for 0x1... though the one
 * for 0x3... (mapped third, BASE + 0x60) lies between them in VA. */
static void t_each_table(void) {
  pt *t = pt_create(pt_format_find("teaching16"));
  diag d;
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0x1200, 0x300, 8, PT_R | PT_W, &d), 0);
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0xa700, 0x4400, 8, PT_X, &d), 0);
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0x3000, 0x1000, 12, PT_R, &d), 0); /* a 4 KiB leaf in the root */
  CU_ASSERT_EQUAL_FATAL(pt_map(t, 0x1300, 0x100, 8, PT_R, &d), 0);
  seen s = {0};
  CU_ASSERT_EQUAL_FATAL(pt_each_table(t, collect, &s), 0);
  CU_ASSERT_EQUAL_FATAL(s.count, 3);
  CU_ASSERT(s.t[0].level == 0 && s.t[0].pa == BASE && s.t[0].va_base == 0 && s.t[0].n == 16);
  CU_ASSERT_EQUAL(s.t[0].raw[1], EV | (BASE + 0x20));
  CU_ASSERT_EQUAL(s.t[0].raw[3], UINT64_C(0x1300000000001000));
  CU_ASSERT_EQUAL(s.t[0].raw[10], EV | (BASE + 0x40));
  CU_ASSERT_EQUAL(s.t[0].raw[0], 0);
  CU_ASSERT(s.t[1].level == 1 && s.t[1].pa == BASE + 0x20 && s.t[1].va_base == 0x1000);
  CU_ASSERT_EQUAL(s.t[1].raw[2], UINT64_C(0x1700000000000300));
  CU_ASSERT_EQUAL(s.t[1].raw[3], UINT64_C(0x1300000000000100));
  CU_ASSERT(s.t[2].level == 1 && s.t[2].pa == BASE + 0x40 && s.t[2].va_base == 0xa000);
  CU_ASSERT_EQUAL(s.t[2].raw[7], UINT64_C(0x1900000000004400));
  pt_destroy(t);
}

int main(void) {
  static const test_case formats[] = {
      {"built-in formats", t_builtins},     {"leaf levels", t_leaf_level},
      {"index bits and shifts", t_index_bits}, {"check rejects", t_check_rejects},
      {"levels and leaves as text", t_add_items}, {"sign extension", t_sign_extension},
      {"sv39 as xv6 walks it", t_sv39_xv6}, {"tables in simulated memory", t_tables_in_memory},
      {"no host memory for a table", t_tables_no_host_memory}, {"wide levels, sparse", t_wide_levels},
      {NULL, NULL}};
  static const test_case walks[] = {
      {"index extraction", t_index_extraction}, {"leaf at each level", t_leaf_each_level},
      {"walk stops", t_walk_stops},             {"errors", t_errors},
      {NULL, NULL}};
  static const test_case usage[] = {
      {"x86-64-4", t_usage_x86_64_4},     {"x86-64-5", t_usage_x86_64_5},
      {"arm64-4k", t_usage_arm64},        {"hopper dual PDE", t_usage_hopper_dual},
      {"teaching16", t_usage_teaching16}, {NULL, NULL}};
  static const test_case ops[] = {{"protect", t_protect},
                                  {"mixed sizes", t_mixed_sizes},
                                  {"many pages", t_many_pages},
                                  {NULL, NULL}};
  static const test_case entries[] = {{"entry words teaching16", t_entry_walk_teaching16},
                                      {"decode rejects", t_entry_decode_rejects},
                                      {"large leaves", t_entry_large_leaves},
                                      {"each table", t_each_table},
                                      {NULL, NULL}};
  static const test_suite suites[] = {
      {"pt formats", formats}, {"pt walks", walks}, {"pt usage", usage}, {"pt ops", ops}, {"pt entries", entries},
      {NULL, NULL}};
  return harness_run(suites);
}
