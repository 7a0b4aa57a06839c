/* Built-in page-table formats (const data) and the arithmetic on them.
 * Nothing here walks a tree: pt.c drives every format with one loop. */
#include "tlbsim/pt.h"

#include <stdio.h>
#include <string.h>

/* Intel SDM Vol. 3A §4.5 "4-Level Paging and 5-Level Paging" (Tables 4-15..
 * 4-20): 9 index bits per level, 8-byte entries, PS=1 makes a PDPTE a 1 GiB
 * page and a PDE a 2 MiB page. */
#define X86_PML4 {"PML4", 39, 9, 8}
#define X86_PDPT {"PDPT", 30, 9, 8}
#define X86_PD {"PD", 21, 9, 8}
#define X86_PT {"PT", 12, 9, 8}

static const pt_format formats[] = {
    {.name = "x86-64-4",
     .description = "x86-64 4-level paging, 48-bit VA (Intel SDM Vol. 3A 4.5)",
     .va_bits = 48,
     .sign_extend = true, /* SDM Vol. 1 3.3.7.1 "Canonical Addressing" */
     .nlevels = 4,
     .level = {X86_PML4, X86_PDPT, X86_PD, X86_PT},
     .nleaves = 3,
     .leaf = {{12, 3}, {21, 2}, {30, 1}}},
    {.name = "x86-64-5",
     .description = "x86-64 5-level paging (LA57), 57-bit VA (Intel SDM Vol. 3A 4.5)",
     .va_bits = 57,
     .sign_extend = true,
     .nlevels = 5,
     .level = {{"PML5", 48, 9, 8}, X86_PML4, X86_PDPT, X86_PD, X86_PT},
     .nleaves = 3,
     .leaf = {{12, 4}, {21, 3}, {30, 2}}},
    /* Arm ARM (DDI 0487) D8 "The AArch64 Virtual Memory System Architecture",
     * 4KB granule, 48-bit input address, lookup from level 0: block
     * descriptors at level 1 (1 GiB) and level 2 (2 MiB), pages at level 3. */
    {.name = "arm64-4k",
     .description = "ARMv8-A 4 KiB granule, 48-bit VA, L0..L3 (Arm ARM DDI 0487 D8)",
     .va_bits = 48,
     .nlevels = 4,
     .level = {{"L0", 39, 9, 8}, {"L1", 30, 9, 8}, {"L2", 21, 9, 8}, {"L3", 12, 9, 8}},
     .nleaves = 3,
     .leaf = {{12, 3}, {21, 2}, {30, 1}}},
    /* NVIDIA open-gpu-kernel-modules kern_gmmu_fmt_gh10x.c (GMMU_FMT_VERSION_3:
     * PD4 [56], PD3 [55:47], PD2 [46:38], PD1 [37:29] may hold a 512 MiB PTE,
     * PD0 [28:21] dual 16-byte PDE (NV_MMU_VER3_DUAL_PDE) or a 2 MiB PTE,
     * big PT [20:16], small PT [20:12]); nouveau vmmgh100.c agrees (LPT 5
     * bits x 8 B = 0x100, PD0 8 bits x 16 B = 0x1000). */
    {.name = "hopper",
     .description = "NVIDIA Hopper GMMU VER3, 57-bit VA (open-gpu-kernel-modules kern_gmmu_fmt_gh10x.c)",
     .va_bits = 57,
     .nlevels = 6,
     .level = {{"PD4", 56, 1, 8},
               {"PD3", 47, 9, 8},
               {"PD2", 38, 9, 8},
               {"PD1", 29, 9, 8},
               {"PD0", 21, 8, 16},
               {"PT", 12, 9, 8}},
     .nleaves = 4,
     .leaf = {{12, 5}, {16, 5}, {21, 4}, {29, 3}}},
    /* tlbsim's own whiteboard format (in the spirit of OSTEP's
     * paging-multilevel-translate.py): small enough to work by hand. */
    {.name = "teaching16",
     .description = "teaching format: 16-bit VA, 256 B pages, two 4-bit levels, 4 KiB leaf on top",
     .va_bits = 16,
     .nlevels = 2,
     .level = {{"L1", 12, 4, 2}, {"L2", 8, 4, 2}},
     .nleaves = 2,
     .leaf = {{8, 1}, {12, 0}}},
    /* Arm ARM DDI 0487 D8.2: with the 64 KB granule and 48-bit VA the walk
     * starts at level 1 (VA[47:42]), level 2 indexes VA[41:29] (13 bits,
     * 512 MiB blocks), level 3 VA[28:16] (64 KiB pages). */
    {.name = "arm64-64k",
     .description = "ARMv8-A 64 KiB granule, 48-bit VA, L1..L3 (Arm ARM DDI 0487 D8)",
     .va_bits = 48,
     .nlevels = 3,
     .level = {{"L1", 42, 6, 8}, {"L2", 29, 13, 8}, {"L3", 16, 13, 8}},
     .nleaves = 2,
     .leaf = {{16, 2}, {29, 1}}},
    /* RISC-V Privileged Architecture (ratified 20211203) 4.4 "Sv39:
     * Page-Based 39-bit Virtual-Memory System": VA[38:12] is VPN[2..0], 9
     * bits each, PTEs 8 bytes, a leaf at level 1 is a 2 MiB megapage and at
     * level 2 a 1 GiB gigapage (4.4.1); VA[63:39] must equal VA[38]. Levels
     * are named as the spec numbers them (level i indexes VPN[i]); xv6's
     * walk() reads PX(level, va) = (va >> (12 + 9 * level)) & 0x1FF. */
    {.name = "sv39",
     .description = "RISC-V Sv39, 39-bit VA, VPN[2..0] (RISC-V Privileged Spec 4.4)",
     .va_bits = 39,
     .sign_extend = true,
     .nlevels = 3,
     .level = {{"VPN[2]", 30, 9, 8}, {"VPN[1]", 21, 9, 8}, {"VPN[0]", 12, 9, 8}},
     .nleaves = 3,
     .leaf = {{12, 2}, {21, 1}, {30, 0}}},
    /* Ibid. 4.5 "Sv48": one more level, VPN[3] = VA[47:39]; a leaf there is
     * a 512 GiB terapage; VA[63:48] must equal VA[47]. */
    {.name = "sv48",
     .description = "RISC-V Sv48, 48-bit VA, VPN[3..0] (RISC-V Privileged Spec 4.5)",
     .va_bits = 48,
     .sign_extend = true,
     .nlevels = 4,
     .level = {{"VPN[3]", 39, 9, 8}, {"VPN[2]", 30, 9, 8}, {"VPN[1]", 21, 9, 8}, {"VPN[0]", 12, 9, 8}},
     .nleaves = 4,
     .leaf = {{12, 3}, {21, 2}, {30, 1}, {39, 0}}},
};

#define NFORMATS (sizeof formats / sizeof formats[0])

size_t pt_format_count(void) { return NFORMATS; }

const pt_format *pt_format_at(size_t i) { return i < NFORMATS ? &formats[i] : NULL; }

const pt_format *pt_format_find(const char *name) {
  for (size_t i = 0; name && i < NFORMATS; i++)
    if (!strcmp(formats[i].name, name)) return &formats[i];
  return NULL;
}

int pt_format_leaf_level(const pt_format *f, unsigned page_shift) {
  for (unsigned i = 0; i < f->nleaves; i++)
    if (f->leaf[i].page_shift == page_shift) return f->leaf[i].level;
  return -1;
}

unsigned pt_format_index_shift(const pt_format *f, unsigned level, unsigned page_shift) {
  int leaf = pt_format_leaf_level(f, page_shift);
  if (leaf < 0 || level > (unsigned)leaf) return 0;
  return level == (unsigned)leaf ? page_shift : f->level[level].shift;
}

unsigned pt_format_index_bits(const pt_format *f, unsigned level, unsigned page_shift) {
  int leaf = pt_format_leaf_level(f, page_shift);
  if (leaf < 0 || level > (unsigned)leaf) return 0;
  const pt_level_format *l = &f->level[level];
  return l->shift + l->bits - pt_format_index_shift(f, level, page_shift);
}

/* PT_FORMAT_BAD_LEVELS or PT_FORMAT_BAD_SPAN (d set), or 0. */
static int check_levels(const pt_format *f, diag *d) {
  if (f->nlevels == 0 || f->nlevels > PT_MAX_LEVELS) {
    diag_set(d, NULL, 0, "format %s: %u levels (1..%d allowed)", f->name, f->nlevels, PT_MAX_LEVELS);
    return PT_FORMAT_BAD_LEVELS;
  }
  unsigned top = f->va_bits; /* the next level must index the bits just below */
  for (unsigned i = 0; i < f->nlevels; i++) {
    const pt_level_format *l = &f->level[i];
    if (!l->name[0] || l->bits == 0 || l->bits > PT_MAX_INDEX_BITS) {
      diag_set(d, NULL, 0, "format %s: level %u must index 1..%d bits", f->name, i, PT_MAX_INDEX_BITS);
      return PT_FORMAT_BAD_LEVELS;
    }
    if (l->shift + l->bits != top) {
      diag_set(d, NULL, 0,
               "format %s: level %s indexes VA[%u:%u], but the next bits to index are VA[%u:...] "
               "(levels cover the VA from bit %u down, no gap, no overlap)",
               f->name, l->name, l->shift + l->bits - 1, l->shift, top - 1, f->va_bits - 1u);
      return PT_FORMAT_BAD_SPAN;
    }
    if (!is_pow2(l->entry_bytes) || l->entry_bytes > PT_MAX_ENTRY_BYTES) {
      diag_set(d, NULL, 0, "format %s: level %s entry size %u is not a power of two up to %d", f->name, l->name,
               l->entry_bytes, PT_MAX_ENTRY_BYTES);
      return PT_FORMAT_BAD_LEVELS;
    }
    top = l->shift;
  }
  if (top < 4) {
    diag_set(d, NULL, 0, "format %s: pages below 16 bytes", f->name);
    return PT_FORMAT_BAD_LEVELS;
  }
  return 0;
}

static int check_leaves(const pt_format *f, diag *d) {
  if (f->nleaves == 0 || f->nleaves > PT_MAX_LEAVES)
    return diag_set(d, NULL, 0, "format %s: %u leaf sizes (1..%d allowed)", f->name, f->nleaves,
                    PT_MAX_LEAVES);
  unsigned last = f->nlevels - 1u;
  bool last_has_own = false;
  for (unsigned i = 0; i < f->nleaves; i++) {
    const pt_leaf_format *lf = &f->leaf[i];
    if (lf->level > last)
      return diag_set(d, NULL, 0, "format %s: leaf %u at level %u of %u", f->name, i, lf->level,
                      f->nlevels);
    const pt_level_format *l = &f->level[lf->level];
    if (lf->page_shift < l->shift || lf->page_shift >= l->shift + l->bits)
      return diag_set(d, NULL, 0, "format %s: 2^%u pages cannot be leaves of %s (VA[%u:%u])",
                      f->name, lf->page_shift, l->name, l->shift + l->bits - 1, l->shift);
    if (lf->level == 0 && lf->page_shift != l->shift)
      return diag_set(d, NULL, 0, "format %s: a root leaf must be 2^%u bytes", f->name, l->shift);
    for (unsigned j = 0; j < i; j++)
      if (f->leaf[j].page_shift == lf->page_shift)
        return diag_set(d, NULL, 0, "format %s: page size 2^%u listed twice", f->name,
                        lf->page_shift);
    last_has_own |= lf->level == last && lf->page_shift == l->shift;
  }
  if (!last_has_own)
    return diag_set(d, NULL, 0, "format %s: the last level needs a 2^%u leaf", f->name,
                    f->level[last].shift);
  return 0;
}

int pt_format_check(const pt_format *f, diag *d) {
  if (!f || !f->name[0]) {
    diag_set(d, NULL, 0, "page-table format without a name");
    return PT_FORMAT_BAD_VA_BITS;
  }
  if (f->va_bits == 0 || f->va_bits > 64) {
    diag_set(d, NULL, 0, "format %s: va_bits %u (1..64 allowed)", f->name, f->va_bits);
    return PT_FORMAT_BAD_VA_BITS;
  }
  int fault = check_levels(f, d);
  if (fault) return fault;
  return check_leaves(f, d) < 0 ? PT_FORMAT_BAD_LEAVES : PT_FORMAT_OK;
}

/* --- formats written in a configuration ------------------------------------ */

/* Splits text at `sep` into at most max fields of at most PT_NAME_MAX - 1
 * bytes each; returns the count, or -1 when a field is too long or there
 * are too many. */
static int split_fields(const char *text, char sep, char field[][PT_NAME_MAX], int max) {
  int n = 0;
  for (const char *p = text;; n++) {
    size_t len = strcspn(p, (char[]){sep, '\0'});
    if (n == max || len >= PT_NAME_MAX) return -1;
    memcpy(field[n], p, len);
    field[n][len] = '\0';
    if (!p[len]) return n + 1;
    p += len + 1;
  }
}

/* A level's name: what explain prints and [pwc.NAME] names, so no blanks
 * and nothing a list or INI section would split at. */
static bool good_level_name(const char *name) {
  return name[0] && !name[strcspn(name, " \t,:@;#=")];
}

int pt_format_add_level(pt_format *f, const char *text, diag *why) {
  char field[4][PT_NAME_MAX];
  uint64_t lowest, bits, bytes;
  if (split_fields(text, ':', field, 4) != 4 || !good_level_name(field[0]))
    return diag_set(why, NULL, 0, "level '%s' is not NAME:LOWEST_VA_BIT:INDEX_BITS:ENTRY_BYTES", text);
  if (num_whole_in(field[1], 0, 63, &lowest) || num_whole_in(field[2], 1, PT_MAX_INDEX_BITS, &bits) ||
      num_whole_in(field[3], 1, PT_MAX_ENTRY_BYTES, &bytes))
    return diag_set(why, NULL, 0, "level '%s': lowest VA bit 0..63, index bits 1..%d, entry bytes 1..%d", text,
                    PT_MAX_INDEX_BITS, PT_MAX_ENTRY_BYTES);
  if (f->nlevels == PT_MAX_LEVELS) return diag_set(why, NULL, 0, "more than %d levels", PT_MAX_LEVELS);
  for (unsigned i = 0; i < f->nlevels; i++)
    if (!strcmp(f->level[i].name, field[0]))
      return diag_set(why, NULL, 0, "level name '%s' used twice", field[0]);
  pt_level_format *l = &f->level[f->nlevels++];
  snprintf(l->name, sizeof l->name, "%s", field[0]);
  l->shift = (uint8_t)lowest;
  l->bits = (uint8_t)bits;
  l->entry_bytes = (uint8_t)bytes;
  return 0;
}

int pt_format_add_leaf(pt_format *f, const char *text, diag *why) {
  char field[2][PT_NAME_MAX];
  uint64_t size;
  if (split_fields(text, '@', field, 2) != 2 || num_size_in(field[0], 16, UINT64_C(1) << 63, &size) ||
      !is_pow2(size))
    return diag_set(why, NULL, 0, "leaf '%s' is not PAGE_SIZE@LEVEL with a power-of-two size of 16 B or more",
                    text);
  if (f->nleaves == PT_MAX_LEAVES) return diag_set(why, NULL, 0, "more than %d leaf sizes", PT_MAX_LEAVES);
  for (unsigned i = 0; i < f->nlevels; i++)
    if (!strcmp(f->level[i].name, field[1])) {
      f->leaf[f->nleaves++] = (pt_leaf_format){.page_shift = (uint8_t)log2_u64(size), .level = (uint8_t)i};
      return 0;
    }
  return diag_set(why, NULL, 0, "leaf '%s': no level named '%s'", text, field[1]);
}

/* --- addresses --------------------------------------------------------------- */

uint64_t pt_format_va_canonical(const pt_format *f, uint64_t va) {
  if (f->va_bits >= 64) return va;
  uint64_t low = va & ((UINT64_C(1) << f->va_bits) - 1);
  bool negative = f->sign_extend && (low >> (f->va_bits - 1)) & 1;
  return negative ? low | ~((UINT64_C(1) << f->va_bits) - 1) : low;
}

bool pt_format_va_ok(const pt_format *f, uint64_t va) { return pt_format_va_canonical(f, va) == va; }
