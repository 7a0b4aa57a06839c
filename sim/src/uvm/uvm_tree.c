/* uvm_tree.c — the driver's prefetch tree over one VA block's big pages
 * (see tlbsim/uvm.h; uvm_perf_prefetch.c compute_prefetch_region).
 *
 * The driver's tree has a leaf per 4 KiB page, but a fault is first grown to
 * its whole big page (grow_fault_granularity), so every subtree smaller than
 * a big page is full or empty alike and the decision is the same on a tree
 * with a leaf per big page: walking up from the faulting page, each aligned
 * subtree whose present pages exceed threshold percent of its pages wins,
 * the largest winner is brought. */
#include "tlbsim/uvm.h"

uint64_t uvm_prefetch_region(uint64_t present, unsigned page, unsigned pages, uint32_t threshold) {
  uint64_t best = 0;
  unsigned span = 1;
  while (span < pages) span <<= 1; /* the tree's width: a power of two */
  for (unsigned size = 1; size <= span; size <<= 1) {
    unsigned first = page & ~(size - 1);
    if (first >= pages) break;
    unsigned valid = first + size <= pages ? size : pages - first; /* a range's last block is cut short */
    uint64_t sub = (valid == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << valid) - 1)) << first;
    uint64_t count = (uint64_t)__builtin_popcountll(present & sub);
    if (count * 100 > (uint64_t)valid * threshold) best = sub;
  }
  return best;
}
