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
 * kmem_cache  a cache of lines holding sectors, set-associative or fully
 *             associative, least recently used replaced: a line is
 *             allocated on a miss and fetches only the sectors asked for (a
 *             sectored cache: each line's sectors valid or not on their
 *             own); sectors written are dirty until their line is evicted
 *             (write-back: kmem_evict names what goes to DRAM then).
 * kmem_l2     the GPU's L2 as one SM sees it: partitions, each caching what
 *             its SMs read (a near copy), over the whole L2 that holds every
 *             line once (NVIDIA A100 whitepaper, "L2 cache": "Each L2
 *             partition localizes and caches data for memory accesses from
 *             SMs in the GPCs directly connected to the partition"; the
 *             H100 keeps the two partitions). A read is served by its SM's
 *             partition, else by the rest of the L2 (farther), else DRAM; a
 *             store goes to the whole L2 (written back when evicted, or
 *             through), leaving the partitions' copies as they are (no
 *             kernel modelled reads a line another SM stored). The GMMU's
 *             page-table reads are no SM's: they are served by the whole
 *             L2 (KMEM_L2_HOME), near, or by DRAM.
 * kmem_dram   DRAM's banks, each with the row (DRAM page) it has open: a
 *             request to another row costs an activation's interval before
 *             its sectors' (HBM's row-buffer locality: a stream's lines hit
 *             open rows, random lines do not).
 *
 * All functional (state and counts); times are the GPU device's
 * (tlbsim/gdev.h), which turns what these return into stage intervals.
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

/* A dirty line a cache evicted: its sectors written and not yet in DRAM
 * (dirty 0: none). */
typedef struct kmem_evict {
  uint64_t line;
  uint8_t dirty;
} kmem_evict;

/* A cache of `bytes` in `ways` ways (0: fully associative; at least one
 * line, one set); NULL with d set when out of memory or the geometry holds
 * no set. */
kmem_cache *kmem_cache_create(uint64_t bytes, uint32_t ways, diag *d);
void kmem_cache_destroy(kmem_cache *c);
/* Looks up `sectors` of line: returns the sectors it held (a hit is all of
 * them); the line becomes the most recently used and holds every sector
 * asked for from now on (the missing ones fetched, or written: `write`
 * makes them dirty). A line evicted for it with dirty sectors goes to
 * *evict (NULL: a cache never written). */
uint8_t kmem_cache_access(kmem_cache *c, uint64_t line, uint8_t sectors, bool write, kmem_evict *evict);
/* Asks the host for the memory a look-up of line will read, so that the
 * look-ups of a warp instruction's lines overlap; changes nothing else. */
void kmem_cache_prefetch(const kmem_cache *c, uint64_t line);
/* Lines it holds room for. */
uint64_t kmem_cache_lines(const kmem_cache *c);

#define KMEM_L2_PARTS 2 /* partitions at most (the H100's L2: two) */
/* The `part` of a read no SM's partition makes (the GMMU's): the whole L2
 * serves it, its hits all near. */
#define KMEM_L2_HOME UINT32_MAX

typedef struct kmem_l2 kmem_l2;

/* Where a read's sectors were: near (its SM's partition), far (elsewhere
 * in the L2); the rest come from DRAM. evict: a dirty line the whole L2
 * evicted for it (write it back). */
typedef struct kmem_l2_got {
  uint8_t near, far;
  kmem_evict evict;
} kmem_l2_got;

/* The whole L2 of `bytes` in `ways` ways (0: fully associative) and
 * `parts` partitions (0: none, every hit near), partition p's near copies
 * in near_bytes[p] (the same ways); NULL with d set as kmem_cache_create. */
kmem_l2 *kmem_l2_create(uint64_t bytes, uint32_t ways, unsigned parts, const uint64_t *near_bytes, diag *d);
void kmem_l2_destroy(kmem_l2 *l);
/* An SM of partition `part` (or KMEM_L2_HOME) reads `sectors` of line. */
void kmem_l2_read(kmem_l2 *l, unsigned part, uint64_t line, uint8_t sectors, kmem_l2_got *got);
/* kmem_cache_prefetch for such a read. */
void kmem_l2_prefetch(const kmem_l2 *l, unsigned part, uint64_t line);
/* A store of `sectors` of line: the whole L2 holds them, dirty when
 * `back` (write-back), else clean (written through to DRAM by the caller).
 * *evict as kmem_cache_access's. */
void kmem_l2_write(kmem_l2 *l, uint64_t line, uint8_t sectors, bool back, kmem_evict *evict);

typedef struct kmem_dram kmem_dram;

/* banks rows open at once, rows of 2^row_shift bytes; NULL when out of
 * memory or banks is 0. */
kmem_dram *kmem_dram_create(uint32_t banks, unsigned row_shift, diag *d);
void kmem_dram_destroy(kmem_dram *m);
/* A request to physical address pa: true when its row was open in its bank
 * (a row hit), false when the bank had to open it (it is open from now on). */
bool kmem_dram_access(kmem_dram *m, uint64_t pa);

#endif
