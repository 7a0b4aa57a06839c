/* tlbsim/region.h — the memory a GPU-suite experiment runs on, mapped into
 * a page table the way tlbsim-gpu maps it (gpu/README.md, "Mappings").
 *
 * region   where the nodes are (base + i * stride, plus the aliased skew)
 *          and how their memory is mapped:
 *   contiguous  2 MiB VMM chunks mapped in creation order (physically
 *               contiguous pages);
 *   shuffled    the same chunks in a seeded physical order (gpu_permute);
 *   cudamalloc  as contiguous (the driver's own placement measures alike);
 *   aliased     one physical chunk at many VAs, beyond device memory: only
 *               the chunks holding a node are mapped, node i skewed
 *               (i mod (chunk/128)) * 128 bytes into its chunk;
 *   managed     cudaMallocManaged, its pages made resident by its history
 *               (region_history: how the sweep populated the allocation,
 *               the chains its earlier points wrote) and then by this
 *               point's chain, each write a GPU fault through the
 *               managed-memory model (tlbsim/uvm.h): a 64 KiB page per
 *               resident big page, one 2 MiB page per block wholly
 *               resident (gpu/README.md, chase_pop.csv, chase_64k.csv).
 * Chase and gather share it, so a measured point is re-simulated on the
 * layout its measurement ran on.
 */
#ifndef TLBSIM_REGION_H
#define TLBSIM_REGION_H

#include "tlbsim/gpu_plan.h" /* gpu_population: how tlbsim-gpu populates a managed region */
#include "tlbsim/pt.h"
#include "tlbsim/rows.h" /* region_mapping: the mapping column's values */
#include "tlbsim/uvm.h"

/* tlbsim-gpu's skew of aliased nodes, so nodes sharing physical memory
 * never share a line (GPU_ALIAS_LINE). */
#define REGION_ALIAS_LINE 128u
/* The small pages of managed memory (its big pages, [uvm] big_page). */
#define REGION_MANAGED_SMALL (64u << 10)

/* One earlier point's chain in the same allocation: nodes at i * stride. */
typedef struct region_touch {
  uint64_t stride;
  uint32_t nodes;
} region_touch;

/* What happened to a managed region's allocation before this point: the
 * sweep's population (tlbsim-gpu chase --population), the allocation's
 * size (the sweep's largest footprint; 0: the point's own span), the
 * earlier points' chains in file order, and the driver's rules ([uvm];
 * NULL: the defaults). */
typedef struct region_history {
  gpu_population population;
  uint64_t bytes;
  const region_touch *earlier;
  size_t nearlier;
  const uvm_config *uvm;
} region_history;

typedef struct region {
  uint64_t base;       /* VA of node 0's line (page aligned) */
  uint64_t stride;
  uint32_t nodes;
  uint64_t page_size;  /* pages of the mapping (managed: its large page) */
  uint64_t chunk;      /* physical pieces (2 MiB VMM chunks) */
  region_mapping mapping;
  uint64_t seed;       /* the shuffled mapping's physical order */
  const region_history *history; /* managed: NULL, no population nor earlier chains */
} region;

/* The VA of node i: base + i * stride, skewed for aliased. */
uint64_t region_node_va(const region *r, uint32_t i);
/* The base a region of `size` bytes gets when none is given: aligned to its
 * size rounded up to a power of two (at most 1 TiB), as tlbsim-gpu
 * reserves it, so set-index bits see i * stride unchanged. */
uint64_t region_default_base(uint64_t size);
/* The allocation's bytes a managed region's history covers (at least its
 * own nodes' span). */
uint64_t region_managed_bytes(const region *r);
/* Maps r into t (whose format must hold its page sizes). */
int region_map(pt *t, const region *r, diag *d);

#endif
