/* tlbsim/kmem.h — the memory a GPU kernel's loads pass below its SM's load
 * path: lanes coalesced into lines and sectors, sector caches (each SM's
 * L1, the GPU's L2) and DRAM's banks with an open row each.
 *
 * kmem_line   one 128-byte line an instruction touches and the 32-byte
 *             sectors of it its active lanes need (bit s: sector s): what
 *             the SM sends on, one request per line, as NVIDIA's
 *             coalescer does (CUDA C Best Practices Guide, "Coalesced
 *             Access to Global Memory": a warp's accesses are served in
 *             32-byte transactions).
 * kmem_cache  a set-associative cache of lines holding sectors, least
 *             recently used replaced: a line is allocated on a miss and
 *             fetches only the sectors asked for (a sectored cache: each
 *             line's sectors valid or not on their own).
 * kmem_dram   DRAM's banks, each with the row (DRAM page) it has open: a
 *             request to another row costs an activation's interval before
 *             its sectors' (HBM's row-buffer locality: a stream's lines hit
 *             open rows, random lines do not).
 *
 * All functional (state and counts); times are the kernel model's
 * (tlbsim/kmodel.h), which turns what these return into stage intervals.
 */
#ifndef TLBSIM_KMEM_H
#define TLBSIM_KMEM_H

#include "tlbsim/base.h"

#define KMEM_LINE_SHIFT 7   /* 128-byte lines */
#define KMEM_SECTOR_SHIFT 5 /* 32-byte sectors, 4 a line */
#define KMEM_LINES_MAX 64   /* lines one warp instruction may touch (32 lanes, each at most 2 lines) */

typedef struct kmem_line {
  uint64_t line;   /* address >> KMEM_LINE_SHIFT */
  uint8_t sectors; /* bit s: sector s of the line (s < 4) */
} kmem_line;

/* The lines n lane addresses of `width` bytes each touch, in the order of
 * their first lane; returns how many (at most KMEM_LINES_MAX). */
unsigned kmem_coalesce(const uint64_t *addr, unsigned n, unsigned width, kmem_line out[KMEM_LINES_MAX]);
/* Sectors in a mask. */
static inline unsigned kmem_sectors(uint8_t mask) { return (unsigned)__builtin_popcount(mask); }

typedef struct kmem_cache kmem_cache;

/* A cache of `bytes` (at least one line per way) in `ways` ways; NULL with
 * d set when out of memory or the geometry holds no set. */
kmem_cache *kmem_cache_create(uint64_t bytes, uint32_t ways, diag *d);
void kmem_cache_destroy(kmem_cache *c);
/* Looks up `sectors` of line: returns the sectors it held (a hit is all of
 * them); the line becomes the most recently used and holds every sector
 * asked for from now on (the missing ones fetched). */
uint8_t kmem_cache_access(kmem_cache *c, uint64_t line, uint8_t sectors);
/* Lines it holds room for. */
uint64_t kmem_cache_lines(const kmem_cache *c);

typedef struct kmem_dram kmem_dram;

/* banks rows open at once, rows of 2^row_shift bytes; NULL when out of
 * memory or banks is 0. */
kmem_dram *kmem_dram_create(uint32_t banks, unsigned row_shift, diag *d);
void kmem_dram_destroy(kmem_dram *m);
/* A request to physical address pa: true when its row was open in its bank
 * (a row hit), false when the bank had to open it (it is open from now on). */
bool kmem_dram_access(kmem_dram *m, uint64_t pa);

#endif
