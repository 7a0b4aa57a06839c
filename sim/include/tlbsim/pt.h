/* tlbsim/pt.h — radix page tables whose format is data.
 *
 * pt_format  a description of one architecture's tree: levels from the root
 *            down (index bits, lowest VA bit indexed, entry size) and which
 *            page sizes may be leaves at which level. A plain value (names
 *            inline), so a machine owns its copy: built-in formats are const
 *            tables, a configuration's [format.NAME] is parsed into one
 *            (pt_format_add_level, pt_format_add_leaf); nothing in the
 *            walker knows an architecture.
 * pt         one address space's tree. Owns its table nodes; each node gets a
 *            simulated physical address so walks can name the entries read.
 *            Counts tables and bytes per level as they come and go.
 * pt_walk    the result of walking one VA: one pt_step per level read.
 *
 * Effective index bits: a leaf whose page is larger than its level's
 * smallest page indexes fewer bits there. Hopper's last level indexes
 * VA[20:12] for 4 KiB pages (9 bits) but VA[20:16] for 64 KiB pages (5 bits);
 * the format stores shift=12, bits=9 and the walker derives the rest.
 *
 * Table nodes: a node indexes its level with one (shift, bits) pair, so it
 * has 2^bits entries of entry_bytes each. An entry is empty, a leaf, or
 * points to child tables: one per distinct effective shift of the level
 * below (Hopper's dual PD0 entry points to a 4K-PT and a 64K-PT at once).
 * A node left with no present entry is freed, except the root.
 */
#ifndef TLBSIM_PT_H
#define TLBSIM_PT_H

#include "tlbsim/config.h"

#define PT_MAX_LEVELS 8
#define PT_MAX_LEAVES 6
#define PT_NAME_MAX 16        /* a level's or a format's name, with its NUL */
#define PT_DESCRIPTION_MAX 128
#define PT_MAX_ENTRY_BYTES 16 /* Hopper's dual PDE; larger entries exist nowhere */
#define PT_MAX_INDEX_BITS 24  /* one table of 2^24 entries (simulated); a wide node's host memory follows the
                                 entries it holds (pt.c) */

enum { PT_R = 1, PT_W = 2, PT_X = 4, PT_RWX = 7 };

typedef struct pt_level_format {
  char name[PT_NAME_MAX]; /* e.g. "PML4", "PD3": shown by `explain` */
  uint8_t shift;       /* lowest VA bit this level indexes (smallest leaf here) */
  uint8_t bits;        /* index bits at that shift */
  uint8_t entry_bytes; /* size of one entry: table bytes = entries * this */
} pt_level_format;

typedef struct pt_leaf_format {
  uint8_t page_shift; /* log2 of the page size */
  uint8_t level;      /* index into pt_format.level where this leaf lives */
} pt_leaf_format;

typedef struct pt_format {
  char name[PT_NAME_MAX];               /* "x86-64-4", "sv39", "hopper", or a [format.NAME]'s */
  char description[PT_DESCRIPTION_MAX]; /* one line, with the source of the layout */
  uint8_t va_bits;         /* the walk indexes VA[va_bits-1:0] */
  bool sign_extend;        /* VA[63:va_bits] must copy VA[va_bits-1] (canonical
                              addresses: x86-64, RISC-V Sv39/Sv48, ARM64's
                              TTBR1 half); else they must be 0 */
  uint8_t nlevels;
  pt_level_format level[PT_MAX_LEVELS]; /* [0] is the root */
  uint8_t nleaves;
  pt_leaf_format leaf[PT_MAX_LEAVES];
} pt_format;

/* Simulated physical addresses of table nodes start here, above any frame
 * the phys module hands out; each node is aligned to its own size. A tree
 * given a pt_table_frames takes its nodes from there instead. */
#define PT_TABLE_PA_BASE (UINT64_C(1) << 48)

/* Where a tree's table nodes live when they are pages of simulated
 * physical memory (a machine's [machine] tables_in_memory): take returns
 * the address of a free block of at least `bytes` (a power of two) aligned
 * to its size, -1 when memory is full, or PT_TAKE_NO_HOST_MEMORY when the
 * host has no memory to find one (never a simulated event); give hands it
 * back. */
#define PT_TAKE_NO_HOST_MEMORY (-2)
typedef struct pt_table_frames {
  void *ctx;
  int (*take)(void *ctx, uint64_t bytes, uint64_t *pa);
  void (*give)(void *ctx, uint64_t pa, uint64_t bytes);
} pt_table_frames;

/* Which part of a format pt_format_check found wrong (0: none), so that a
 * configuration can name the key to blame. */
typedef enum {
  PT_FORMAT_OK = 0,
  PT_FORMAT_BAD_VA_BITS = -1,
  PT_FORMAT_BAD_LEVELS = -2,
  PT_FORMAT_BAD_LEAVES = -3,
  PT_FORMAT_BAD_SPAN = -4, /* the levels do not index exactly VA[va_bits-1:lowest] */
} pt_format_fault;

/* Checks that a format is one the walker can drive: levels contiguous from
 * va_bits down, 1..PT_MAX_INDEX_BITS index bits, power-of-two entry sizes
 * up to PT_MAX_ENTRY_BYTES, each leaf at a level with
 * shift <= page_shift < shift + bits, the last level's shift a leaf size,
 * no leaf larger than the root's shift at the root, pages >= 16 bytes.
 * Returns a pt_format_fault. */
int pt_format_check(const pt_format *f, diag *d);
/* Appends a level written "NAME:LOWEST_VA_BIT:INDEX_BITS:ENTRY_BYTES" (the
 * root first); -1 (why, without a location) when it is malformed or one
 * level too many. Whether the levels fit together is pt_format_check's. */
int pt_format_add_level(pt_format *f, const char *text, diag *why);
/* Appends a leaf written "PAGE_SIZE@LEVEL_NAME" (a size: 64, 4K, 2M); the
 * level must be added already. */
int pt_format_add_leaf(pt_format *f, const char *text, diag *why);
/* Whether va is an address of the format: below 2^va_bits, or canonical
 * (sign-extended from VA[va_bits-1]) when the format says so. */
bool pt_format_va_ok(const pt_format *f, uint64_t va);
/* va's low va_bits as the format's addresses are written: sign-extended
 * from VA[va_bits-1] when the format says so (a walk's VA from its index
 * bits alone, as dump shows a table's range). */
uint64_t pt_format_va_canonical(const pt_format *f, uint64_t va);
/* Built-in format by name, or NULL. */
const pt_format *pt_format_find(const char *name);
/* The format section.key of c names (default x86-64-4): a [format.NAME]
 * of c, else a built-in one. Every [format.NAME] is read and checked, named
 * or not, so that one file can hold the formats a sweep varies; errors at
 * the key they lie in. */
int pt_format_read(cfg *c, const char *section, const char *key, pt_format *out, diag *d);
const cfg_keys *pt_format_config_keys(void);
size_t pt_format_count(void);
const pt_format *pt_format_at(size_t i);
/* Level at which a page of 2^page_shift bytes is a leaf, or -1. */
int pt_format_leaf_level(const pt_format *f, unsigned page_shift);
/* Index bits level `level` uses on the way to a leaf of 2^page_shift; 0 when
 * the walk to that leaf does not read the level (or it is no leaf size). */
unsigned pt_format_index_bits(const pt_format *f, unsigned level, unsigned page_shift);
/* Lowest VA bit level `level` indexes on the way to that leaf (0 as above). */
unsigned pt_format_index_shift(const pt_format *f, unsigned level, unsigned page_shift);

/* One mapped page as the tree holds it. */
typedef struct pt_mapping {
  uint64_t va;         /* page-aligned */
  uint64_t pa;         /* page-aligned */
  uint8_t page_shift;
  uint8_t prot;        /* PT_R | PT_W | PT_X */
} pt_mapping;

typedef struct pt_step {
  uint8_t level;
  uint32_t index;    /* entry index within the table */
  uint64_t table_pa; /* simulated physical address of the table node */
  uint64_t entry_pa; /* table_pa + index * entry_bytes */
  bool present;      /* entry valid (points to a table or is a leaf) */
  bool leaf;
} pt_step;

typedef struct pt_walk {
  uint8_t nsteps;           /* entries read; stops at a leaf or a non-present entry */
  pt_step step[PT_MAX_LEVELS];
  bool mapped;
  pt_mapping map;           /* valid when mapped */
} pt_walk;

typedef struct pt pt;

/* NULL if the format fails pt_format_check or memory runs out. The root
 * table exists from the start and is counted in the usage. */
pt *pt_create(const pt_format *f);
/* The same with nodes taken from frames (copied; NULL: from
 * PT_TABLE_PA_BASE up, as pt_create). */
pt *pt_create_in(const pt_format *f, const pt_table_frames *frames);
void pt_destroy(pt *t);
const pt_format *pt_get_format(const pt *t);

/* Maps one page. Fails (diag) if the size is not a leaf size of the format,
 * va/pa are misaligned, va is no address of the format (pt_format_va_ok),
 * or any part is already mapped: -1; PT_MAP_NO_TABLE_MEMORY when a table
 * node it needs finds no simulated memory (pt_table_frames: memory is
 * full), PT_MAP_NO_HOST_MEMORY when the host has none for it. Either way
 * nothing is left half made. */
#define PT_MAP_NO_TABLE_MEMORY (-2)
#define PT_MAP_NO_HOST_MEMORY (-3)
int pt_map(pt *t, uint64_t va, uint64_t pa, unsigned page_shift, unsigned prot, diag *d);
/* Unmaps the page containing va; *old (may be NULL) receives what was mapped.
 * Frees table nodes left empty. Returns -1 if nothing is mapped there. */
int pt_unmap(pt *t, uint64_t va, pt_mapping *old);
/* Changes the protection of the page containing va; -1 if unmapped. */
int pt_protect(pt *t, uint64_t va, unsigned prot);
/* Finds the page containing va without counting anything. */
bool pt_lookup(const pt *t, uint64_t va, pt_mapping *out);
/* Walks va from the root, recording every entry read. Under an entry with
 * several child tables the walk reads the one that maps va (else the one of
 * the level's own shift). A va the format does not have (pt_format_va_ok)
 * reads nothing (nsteps 0). */
void pt_walk_va(const pt *t, uint64_t va, pt_walk *out);

/* Entries as a student reads them. tlbsim keeps one entry word layout in
 * every format (not the architecture's own bits): the top byte holds flags,
 * the low 56 bits the address the entry points to (the next table, or the
 * page's frame; both lie below 2^56), so the address reads straight off
 * the hex:
 *
 *   bit 56 V valid   57 R   58 W   59 X   60 L leaf (a page, not a table)
 *   bits 61-63 which leaf size of the level (0: the level's own shift;
 *              k: the k-th larger leaf the format lists at that level)
 *
 * An entry with several child tables (Hopper's dual PD0 entry) is shown
 * pointing to the one a walk follows (pt_walk_raw) or its first (dump). */
#define PT_ENTRY_ADDR_MASK ((UINT64_C(1) << 56) - 1)
#define PT_ENTRY_V (UINT64_C(1) << 56)
#define PT_ENTRY_R (UINT64_C(1) << 57)
#define PT_ENTRY_W (UINT64_C(1) << 58)
#define PT_ENTRY_X (UINT64_C(1) << 59)
#define PT_ENTRY_L (UINT64_C(1) << 60)
#define PT_ENTRY_SIZE_SHIFT 61

typedef struct pt_entry {
  uint64_t raw;
  bool valid;
  bool leaf;
  uint8_t prot;       /* leaf: PT_R | PT_W | PT_X */
  uint8_t page_shift; /* leaf: log2 of its page size */
  uint64_t addr;      /* leaf: the frame's address; table: the next table's */
  uint64_t frame;     /* leaf: addr >> page_shift (the frame number); table: 0 */
} pt_entry;

/* Decodes an entry word read at `level` of format f, checking it against the
 * level table: -1 (diag) for bits outside the layout, a leaf size the level
 * does not have, a misaligned frame, or a table entry at the last level. */
int pt_entry_decode(const pt_format *f, unsigned level, uint64_t raw, pt_entry *out, diag *d);
/* Fills raw[d] with the entry word of each step pt_walk_va(t, va) reads, in
 * the same order; returns the number of steps. */
unsigned pt_walk_raw(const pt *t, uint64_t va, uint64_t raw[PT_MAX_LEVELS]);
/* Calls fn for every table node, level by level from the root (within a
 * level, in index order): its level, the lowest VA it covers (canonical:
 * sign-extended where the format is), its simulated address, its entry
 * count and its valid entries (index and entry word), in index order: a
 * table of 2^24 entries costs what it holds. Returns -1 when out of host
 * memory, else 0. */
typedef struct pt_table_entry {
  uint32_t index;
  uint64_t raw;
} pt_table_entry;
typedef void (*pt_table_fn)(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa,
                            uint32_t nentries, const pt_table_entry *valid, uint32_t nvalid);
int pt_each_table(const pt *t, pt_table_fn fn, void *ctx);

/* Table nodes and bytes live now at a level, and their peak. A level with
 * nodes of several sizes (Hopper's 4K-PT and 64K-PT) sums them. */
typedef struct pt_level_usage {
  uint64_t tables, bytes, tables_peak, bytes_peak;
} pt_level_usage;
pt_level_usage pt_usage(const pt *t, unsigned level);
/* Sum of the bytes of every live table node. */
uint64_t pt_total_bytes(const pt *t);
/* Leaves mapped now, of any size. */
uint64_t pt_mapped_pages(const pt *t);

#endif
