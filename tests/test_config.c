/* Tests for configuration loading, typed getters, --set and unknown keys,
 * and for the physical frame allocator. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/config.h"
#include "tlbsim/phys.h"

static const char *write_file(const char *name, const char *text) {
  FILE *f = fopen(name, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
  return name;
}

static void test_load_and_get(void) {
  cfg *c = cfg_create();
  diag d;
  const char *p = write_file("cfg_good.ini", "; comment\n[machine]\nformat = hopper\npage_size = 64K\n"
                                             "[tlb.l1d]\nentries = 0x40\nways=4 ; inline comment\n"
                                             "flag = yes\nsizes = 4K, 2M ,1G\n");
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, p, &d), 0);
  const char *s;
  uint64_t v, list[4];
  size_t n;
  bool b;
  cfg_get_str(c, "machine", "format", "x", &s);
  CU_ASSERT_STRING_EQUAL(s, "hopper");
  CU_ASSERT_EQUAL(cfg_get_size(c, "machine", "page_size", 0, 0, UINT64_MAX, &v, &d), 0);
  CU_ASSERT_EQUAL(v, 65536);
  CU_ASSERT_EQUAL(cfg_get_u64(c, "tlb.l1d", "entries", 0, 0, UINT64_MAX, &v, &d), 0);
  CU_ASSERT_EQUAL(v, 64);
  CU_ASSERT_EQUAL(cfg_get_u64(c, "tlb.l1d", "ways", 0, 0, UINT64_MAX, &v, &d), 0);
  CU_ASSERT_EQUAL(v, 4);
  CU_ASSERT_EQUAL(cfg_get_bool(c, "tlb.l1d", "flag", false, &b, &d), 0);
  CU_ASSERT_TRUE(b);
  CU_ASSERT_EQUAL(cfg_get_size_list(c, "tlb.l1d", "sizes", 0, UINT64_MAX, list, 4, &n, &d), 0);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(list[1], 2u << 20);
  CU_ASSERT_EQUAL(list[2], 1u << 30);
  CU_ASSERT_EQUAL(cfg_get_u64(c, "tlb.l2", "entries", 7, 0, UINT64_MAX, &v, &d), 0);
  CU_ASSERT_EQUAL(v, 7);
  CU_ASSERT_EQUAL(cfg_check_unused(c, &d), 0);
  CU_ASSERT_EQUAL(cfg_section_count(c), 2);
  CU_ASSERT_STRING_EQUAL(cfg_section_at(c, 1), "tlb.l1d");
  cfg_destroy(c);
}

/* Collects list items; refuses "bad". */
typedef struct items {
  char seen[4][CFG_ITEM_MAX];
  size_t n;
} items;

static int take_item(void *ctx, const char *item, diag *why) {
  items *x = ctx;
  if (!strcmp(item, "bad")) return diag_set(why, NULL, 0, "'%s' refused", item);
  snprintf(x->seen[x->n++], CFG_ITEM_MAX, "%s", item);
  return 0;
}

/* The list splitter behind every list key: items trimmed, each handed on,
 * a refusal or an over-long item reported at the key's FILE:LINE. */
static void test_lists(void) {
  cfg *c = cfg_create();
  diag d;
  const char *p = write_file("cfg_list.ini", "[format.f]\nlevels = PD:10:5:1,  PT:5:5:1 \nleaves = 32@PT, bad\n"
                                             "long = 0123456789012345678901234567890123456789012345678901234567890123\n");
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, p, &d), 0);
  items x = {0};
  size_t n = 9;
  CU_ASSERT_EQUAL(cfg_get_list(c, "format.f", "levels", take_item, &x, &n, &d), 0);
  CU_ASSERT_EQUAL(n, 2);
  CU_ASSERT_STRING_EQUAL(x.seen[0], "PD:10:5:1");
  CU_ASSERT_STRING_EQUAL(x.seen[1], "PT:5:5:1");
  x.n = 0;
  CU_ASSERT_EQUAL(cfg_get_list(c, "format.f", "leaves", take_item, &x, &n, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_list.ini:3: format.f.leaves: 'bad' refused");
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(cfg_get_list(c, "format.f", "long", take_item, &x, NULL, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "cfg_list.ini:4: format.f.long: item '0123"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "is longer than 63 bytes"));
  CU_ASSERT_EQUAL(cfg_get_list(c, "format.f", "absent", take_item, &x, &n, &d), 0);
  CU_ASSERT_EQUAL(n, 0);
  CU_ASSERT_EQUAL(cfg_check_unused(c, &d), 0);
  cfg_destroy(c);
}

static void test_errors_have_locations(void) {
  cfg *c = cfg_create();
  diag d;
  const char *p = write_file("cfg_bad.ini", "[a]\nx = 12q\ny = 1\n");
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, p, &d), 0);
  uint64_t v;
  CU_ASSERT_EQUAL(cfg_get_u64(c, "a", "x", 0, 0, UINT64_MAX, &v, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_bad.ini:2: a.x: '12q' is not a whole number");
  CU_ASSERT_EQUAL(cfg_check_unused(c, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_bad.ini:3: unknown key 'y' in [a]");
  cfg_destroy(c);

  c = cfg_create();
  p = write_file("cfg_dup.ini", "[a]\nx = 1\n\nx = 2\n");
  CU_ASSERT_EQUAL(cfg_load_file(c, p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_dup.ini:4: [a] x: set twice (also at line 2)");
  cfg_destroy(c);

  c = cfg_create();
  p = write_file("cfg_syntax.ini", "[a]\nx = 1\nthis line has no equals\n");
  CU_ASSERT_EQUAL(cfg_load_file(c, p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_syntax.ini:3: expected '[section]' or 'key = value'");
  cfg_destroy(c);

  c = cfg_create();
  p = write_file("cfg_nosec.ini", "x = 1\n");
  CU_ASSERT_EQUAL(cfg_load_file(c, p, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_nosec.ini:1: 'x' is outside any [section]");
  cfg_destroy(c);

  char longline[400];
  memset(longline, 'k', sizeof longline);
  memcpy(longline, "[a]\n", 4);
  strcpy(longline + 390, " = 1\n");
  c = cfg_create();
  p = write_file("cfg_long.ini", longline);
  CU_ASSERT_EQUAL(cfg_load_file(c, p, &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "cfg_long.ini:2: line longer than"));
  cfg_destroy(c);

  c = cfg_create();
  CU_ASSERT_EQUAL(cfg_load_file(c, "no/such/file.ini", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "no/such/file.ini: cannot open"));
  cfg_destroy(c);
}

static void test_set_overrides(void) {
  cfg *c = cfg_create();
  diag d;
  const char *p = write_file("cfg_set.ini", "[tlb.l1d]\nentries = 64\n");
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, p, &d), 0);
  CU_ASSERT_EQUAL(cfg_set(c, "tlb.l1d.entries=16", "--set", 1, &d), 0);
  CU_ASSERT_EQUAL(cfg_set(c, "tlb.l1d:2M.entries=8", "--set", 2, &d), 0);
  CU_ASSERT_EQUAL(cfg_set(c, "tlb.l1d.entries=32", "--set", 3, &d), 0); /* later wins */
  uint64_t v;
  cfg_get_u64(c, "tlb.l1d", "entries", 0, 0, UINT64_MAX, &v, &d);
  CU_ASSERT_EQUAL(v, 32);
  cfg_get_u64(c, "tlb.l1d:2M", "entries", 0, 0, UINT64_MAX, &v, &d);
  CU_ASSERT_EQUAL(v, 8);
  CU_ASSERT_EQUAL(cfg_set(c, "noequals", "--set", 4, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "--set:4: 'noequals': expected SECTION.KEY=VALUE");
  CU_ASSERT_EQUAL(cfg_set(c, "nodot=1", "--set", 5, &d), -1);
  CU_ASSERT_EQUAL(cfg_set(c, "a.=1", "--set", 6, &d), -1);
  CU_ASSERT_EQUAL(cfg_set(c, "x.y=bad", "--set", 7, &d), 0);
  CU_ASSERT_EQUAL(cfg_get_u64(c, "x", "y", 0, 0, UINT64_MAX, &v, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "--set:7: x.y: 'bad' is not a whole number");
  cfg_destroy(c);
}

static void test_sizes(void) {
  uint64_t v;
  CU_ASSERT_EQUAL(num_parse_size("4096", &v), 0);
  CU_ASSERT_EQUAL(v, 4096);
  CU_ASSERT_EQUAL(num_parse_size("0x1000", &v), 0);
  CU_ASSERT_EQUAL(v, 4096);
  CU_ASSERT_EQUAL(num_parse_size("4K", &v), 0);
  CU_ASSERT_EQUAL(v, 4096);
  CU_ASSERT_EQUAL(num_parse_size("2MiB", &v), 0);
  CU_ASSERT_EQUAL(v, 2u << 20);
  CU_ASSERT_EQUAL(num_parse_size("1g", &v), 0);
  CU_ASSERT_EQUAL(v, 1u << 30);
  CU_ASSERT_EQUAL(num_parse_size("128GiB", &v), 0);
  CU_ASSERT_EQUAL(v, 128ull << 30);
  CU_ASSERT_EQUAL(num_parse_size("", &v), -1);
  CU_ASSERT_EQUAL(num_parse_size("4X", &v), -1);
  CU_ASSERT_EQUAL(num_parse_size("-4K", &v), -1);
  CU_ASSERT_EQUAL(num_parse_size("0x10K", &v), -1);
  CU_ASSERT_EQUAL(num_parse_size("99999999999T", &v), -1);
  CU_ASSERT_EQUAL(num_parse_whole("010", &v), 0);
  CU_ASSERT_EQUAL(v, 10);
  CU_ASSERT_EQUAL(num_parse_whole("0x10", &v), 0);
  CU_ASSERT_EQUAL(v, 16);
  CU_ASSERT_EQUAL(num_parse_whole("-1", &v), -1);
  CU_ASSERT_EQUAL(num_parse_whole("1 ", &v), -1);
  char buf[32];
  CU_ASSERT_STRING_EQUAL(num_format_size(2u << 20, buf, sizeof buf), "2MiB");
  CU_ASSERT_STRING_EQUAL(num_format_size(1536, buf, sizeof buf), "1536B");
}

/* Syntax and range failures are told apart, and said the one way. */
static void test_numbers(void) {
  uint64_t v;
  double x;
  char buf[160];
  CU_ASSERT_EQUAL(num_whole_in("abc", 0, 10, &v), NUM_SYNTAX);
  CU_ASSERT_EQUAL(num_whole_in("11", 0, 10, &v), NUM_RANGE);
  CU_ASSERT_EQUAL(num_whole_in("18446744073709551616", 0, UINT64_MAX, &v), NUM_RANGE); /* too large for 64 bits */
  CU_ASSERT_EQUAL(num_whole_in("0x10000000000000000", 0, UINT64_MAX, &v), NUM_RANGE);
  CU_ASSERT_EQUAL(num_whole_in("0x", 0, UINT64_MAX, &v), NUM_SYNTAX);
  CU_ASSERT_EQUAL(num_size_in("99999999999T", 0, UINT64_MAX, &v), NUM_RANGE);
  CU_ASSERT_EQUAL(num_size_in("16E", 0, UINT64_MAX, &v), NUM_SYNTAX);
  CU_ASSERT_EQUAL(num_real_in("1e999", 0, 1, &x), NUM_RANGE);
  CU_ASSERT_EQUAL(num_real_in("-inf", 0, 1, &x), NUM_RANGE);
  CU_ASSERT_EQUAL(num_real_in("nan", 0, 1, &x), NUM_SYNTAX);
  CU_ASSERT_EQUAL(num_real_in("1e-400", 0, 1, &x), NUM_OK); /* an underflow reads as about 0 */
  CU_ASSERT_STRING_EQUAL(num_complaint(NUM_RANGE, NUM_WHOLE, "0", 1, 64, buf, sizeof buf), "'0' is out of range (1..64)");
  CU_ASSERT_STRING_EQUAL(num_complaint(NUM_RANGE, NUM_SIZE, "512T", 4096, 1ull << 48, buf, sizeof buf),
                         "'512T' is out of range (4KiB..256TiB)");
  CU_ASSERT_STRING_EQUAL(num_complaint(NUM_SYNTAX, NUM_WHOLE, "x\ty", 0, 1, buf, sizeof buf),
                         "'x?y' is not a whole number");
  CU_ASSERT_STRING_EQUAL(num_complaint_real(NUM_RANGE, "inf", 0, INFINITY, buf, sizeof buf),
                         "'inf' is out of range (0..1.79769e+308)");
  CU_ASSERT_STRING_EQUAL(num_quote("0123456789012345678901234567890123456789012345", buf, 44),
                         "0123456789012345678901234567890123456789...");
  CU_ASSERT_TRUE(num_round_up(4097, 4096, &v) && v == 8192);
  CU_ASSERT_FALSE(num_round_up(UINT64_MAX - 10, 4096, &v));
  CU_ASSERT_EQUAL(num_add_sat(UINT64_MAX - 1, 5), UINT64_MAX);
}

/* Errors about a section name where it is; about two keys together, the
 * one set last; a NUL byte in a line is an error, not an end of line. */
static void test_locations(void) {
  cfg *c = cfg_create();
  diag d;
  const char *p = write_file("cfg_loc.ini", "[a]\nx = 1\ny = 2\n[b]\n\nz = 3\n");
  CU_ASSERT_EQUAL_FATAL(cfg_load_file(c, p, &d), 0);
  cfg_section_error(c, "b", &d, "wrong as a whole");
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_loc.ini:4: [b]: wrong as a whole");
  cfg_error(c, "b", "w", &d, "missing");
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_loc.ini:4: [b] w: missing");
  CU_ASSERT_STRING_EQUAL(cfg_latest(c, "a", "x", "y"), "y");
  CU_ASSERT_EQUAL(cfg_set(c, "a.x=5", "--set", 1, &d), 0);
  CU_ASSERT_STRING_EQUAL(cfg_latest(c, "a", "x", "y"), "x");
  CU_ASSERT_STRING_EQUAL(cfg_latest(c, "a", "q", "y"), "y");
  uint64_t sizes[4];
  size_t n;
  CU_ASSERT_EQUAL(cfg_set(c, "b.list=4K, 2M ,99999999999T", "--set", 2, &d), 0);
  CU_ASSERT_EQUAL(cfg_get_size_list(c, "b", "list", 1, UINT64_MAX, sizes, 4, &n, &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "--set:2: b.list: '99999999999T' is out of range (1..18446744073709551615)");
  cfg_destroy(c);
  c = cfg_create();
  static const char nul[] = "[a]\nx = 1\0 2\n";
  FILE *f = fopen("cfg_nul.ini", "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fwrite(nul, 1, sizeof nul - 1, f);
  fclose(f);
  CU_ASSERT_EQUAL(cfg_load_file(c, "cfg_nul.ini", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "cfg_nul.ini:2: a NUL byte in the line");
  cfg_destroy(c);
}

static void test_phys_buddy(void) {
  phys *p = phys_create(8u << 20, 12, PHYS_LOWEST_FIRST); /* 8 MiB of 4 KiB frames */
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  uint64_t a, b, c, big;
  CU_ASSERT_EQUAL(phys_alloc(p, 12, &a), 0);
  CU_ASSERT_EQUAL(phys_alloc(p, 12, &b), 0);
  CU_ASSERT_EQUAL(a, 0);
  CU_ASSERT_EQUAL(b, 4096); /* consecutive frames are contiguous */
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &big), 0);
  CU_ASSERT_EQUAL(big, 2u << 20); /* aligned to its size, above the split block */
  CU_ASSERT_EQUAL(phys_used(p), 8192 + (2u << 20));
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 4u << 20);
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 6u << 20);
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), -1); /* the first 2 MiB is split */
  phys_free(p, a, 12);
  phys_free(p, b, 12);                        /* merges back to a whole 2 MiB */
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 0);
  CU_ASSERT_EQUAL(phys_used_peak(p), 8u << 20); /* 3 big frames + the re-merged one */
  phys_destroy(p);
  CU_ASSERT_PTR_NULL(phys_create(100, 12, PHYS_LOWEST_FIRST));
  p = phys_create((3u << 20) + 4096, 12, PHYS_LOWEST_FIRST); /* not a power of two */
  CU_ASSERT_EQUAL(phys_capacity(p), (3u << 20) + 4096);
  unsigned frames = 0;
  while (phys_alloc(p, 12, &a) == 0) frames++;
  CU_ASSERT_EQUAL(frames, ((3u << 20) + 4096) / 4096);
  phys_destroy(p);
}

/* Highest first: each order hands out its top block, splitting the top
 * larger one; frees merge as before. 8 MiB + 4 KiB: the capacity is not a
 * power of two, so the top frame is a lone 4 KiB block. */
static void test_phys_highest_first(void) {
  phys *p = phys_create((8u << 20) + 4096, 12, PHYS_HIGHEST_FIRST);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  uint64_t a, b, big, c;
  CU_ASSERT_EQUAL(phys_alloc(p, 12, &a), 0);
  CU_ASSERT_EQUAL(a, 8u << 20); /* the lone top frame */
  CU_ASSERT_EQUAL(phys_alloc(p, 12, &b), 0);
  CU_ASSERT_EQUAL(b, (8u << 20) - 4096); /* then the top of the 8 MiB block, split */
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &big), 0);
  CU_ASSERT_EQUAL(big, 4u << 20); /* below the split 2 MiB, aligned */
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 2u << 20);
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 0);
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), -1);
  phys_free(p, b, 12); /* the top 2 MiB merges back whole */
  CU_ASSERT_EQUAL(phys_alloc(p, 21, &c), 0);
  CU_ASSERT_EQUAL(c, 6u << 20);
  phys_free(p, a, 12);
  phys_free(p, big, 21);
  phys_free(p, c, 21);
  CU_ASSERT_EQUAL(phys_used(p), 4u << 20);
  phys_destroy(p);
}

/* Bitmaps follow use, not capacity: 256 TiB of 4 KiB frames (16 GiB of
 * flat bitmaps) allocates and frees like a small memory. */
static void test_phys_large(void) {
  phys *p = phys_create(UINT64_C(1) << 48, 12, PHYS_LOWEST_FIRST);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  uint64_t pa[1000], big;
  for (int i = 0; i < 1000; i++) {
    CU_ASSERT_EQUAL_FATAL(phys_alloc(p, 12, &pa[i]), 0);
    CU_ASSERT_EQUAL(pa[i], (uint64_t)i * 4096);
  }
  CU_ASSERT_EQUAL(phys_alloc(p, 30, &big), 0);
  CU_ASSERT_EQUAL(big, 1u << 30);
  for (int i = 0; i < 1000; i++) phys_free(p, pa[i], 12);
  phys_free(p, big, 30);
  CU_ASSERT_EQUAL(phys_used(p), 0);
  CU_ASSERT_EQUAL(phys_alloc(p, 47, &big), 0); /* whole again: the largest block */
  CU_ASSERT_EQUAL(big, 0);
  phys_destroy(p);
}

/* Frames a trace chooses (map ... frame=): taken out of the buddy map
 * wherever they lie, refused when taken, past the end or misaligned, and
 * given back whole. 64 frames of 64 B (CS:APP's 4 KiB). */
static void test_phys_at(void) {
  phys *p = phys_create(4096, 6, PHYS_LOWEST_FIRST);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0x0d << 6, 6), PHYS_AT_OK); /* PPN 0D */
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0x0d << 6, 6), PHYS_AT_IN_USE);
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0x0c << 6, 7), PHYS_AT_IN_USE); /* a 128 B frame over it */
  CU_ASSERT_EQUAL(phys_alloc_at(p, 4096, 6), PHYS_AT_BEYOND);
  CU_ASSERT_EQUAL(phys_alloc_at(p, 4032, 7), PHYS_AT_MISALIGNED);
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0x20, 6), PHYS_AT_MISALIGNED);
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0, 5), PHYS_AT_MISALIGNED); /* below a frame */
  CU_ASSERT_EQUAL(phys_used(p), 64);
  uint64_t pa, taken[64];
  size_t n = 0;
  CU_ASSERT_EQUAL(phys_alloc(p, 6, &pa), 0);
  CU_ASSERT_EQUAL(pa, 0x0c << 6); /* the buddy the split left free */
  taken[n++] = pa;
  CU_ASSERT_EQUAL(phys_alloc(p, 6, &pa), 0);
  CU_ASSERT_EQUAL(pa, 0x0e << 6); /* then the lowest 128 B block, split */
  taken[n++] = pa;
  CU_ASSERT_EQUAL(phys_alloc_at(p, 0x3f << 6, 6), PHYS_AT_OK);
  while (phys_alloc(p, 6, &pa) == 0) {
    CU_ASSERT_FATAL(n < 64);
    CU_ASSERT(pa != 0x0d << 6 && pa != 0x3f << 6);
    taken[n++] = pa;
  }
  CU_ASSERT_EQUAL(n, 62); /* every frame but the two chosen */
  CU_ASSERT_EQUAL(phys_used(p), 4096);
  for (size_t i = 0; i < n; i++) phys_free(p, taken[i], 6);
  phys_free(p, 0x0d << 6, 6);
  phys_free(p, 0x3f << 6, 6);
  CU_ASSERT_EQUAL(phys_used(p), 0);
  CU_ASSERT_EQUAL(phys_alloc(p, 12, &pa), 0); /* whole again: the 4 KiB block */
  CU_ASSERT_EQUAL(pa, 0);
  phys_destroy(p);
}

int main(void) {
  static const test_case config_cases[] = {{"load and typed getters", test_load_and_get},
                                           {"errors carry file:line", test_errors_have_locations},
                                           {"--set overrides", test_set_overrides},
                                           {"size parsing", test_sizes},
                                           {"numbers", test_numbers},
                                           {"locations", test_locations},
                                           {"lists", test_lists},
                                           {NULL, NULL}};
  static const test_case phys_cases[] = {{"buddy frames", test_phys_buddy}, {"large", test_phys_large},
                                             {"chosen frames", test_phys_at},
                                             {"highest first", test_phys_highest_first}, {NULL, NULL}};
  static const test_suite suites[] = {{"config", config_cases}, {"phys", phys_cases}, {NULL, NULL}};
  return harness_run(suites);
}
