/* uvm_config.c — the [uvm] section (see tlbsim/uvm.h): the driver's rules
 * and the measured costs, by key table. */
#include "tlbsim/uvm.h"

#include <stddef.h>
#include <string.h>

#define SIZE(key, field, deflt, lo, hi, dtext, doc) \
  {key, CFG_KEY_SIZE, offsetof(uvm_config, field), deflt, lo, hi, 0, 0, 0, "bytes", dtext, doc}
#define U32(key, field, deflt, lo, hi, unit, doc) \
  {key, CFG_KEY_U32, offsetof(uvm_config, field), deflt, lo, hi, 0, 0, 0, unit, #deflt, doc}
#define REAL(key, field, deflt, unit, dtext, doc) \
  {key, CFG_KEY_REAL, offsetof(uvm_config, field), 0, 0, 0, deflt, 0, 1e12, unit, dtext, doc}

static const cfg_key uvm_key_table[] = {
    SIZE("va_block", va_block, 2u << 20, 1, UINT64_C(1) << 40, "2M",
         "a VA block: residency is kept and 2 MiB pages are mapped per block (UVM_VA_BLOCK_BITS 21)"),
    SIZE("big_page", big_page, 64u << 10, 1, UINT64_C(1) << 40, "64K",
         "a big page: what a fault brings and a partly resident block is mapped with (UVM_BIG_PAGE_SIZE)"),
    U32("prefetch_threshold", prefetch_threshold, 51, 1, 100, "percent",
        "the prefetch tree brings a subtree once more than this share of it is resident or faulted "
        "(UVM_PREFETCH_THRESHOLD_DEFAULT); 100: never"),
    U32("fault_batch", fault_batch, 256, 1, 1u << 20, "count",
        "faults serviced per batch (UVM_PERF_FAULT_BATCH_COUNT_DEFAULT)"),
    U32("thrashing_threshold", thrashing_threshold, 3, 0, 255, "count",
        "migrations of a page, each within thrashing_lapse_us of the last, that pin it on the host "
        "(UVM_PERF_THRASHING_THRESHOLD_DEFAULT; 0: no detection); not measured"),
    REAL("thrashing_lapse_us", thrashing_lapse_us, 500, "us", "500",
         "two migrations of a page this close are thrashing (UVM_PERF_THRASHING_LAPSE_USEC_DEFAULT)"),
    REAL("thrashing_pin_ms", thrashing_pin_ms, 150, "ms", "150",
         "how long a thrashing page stays pinned (UVM_PERF_THRASHING_PIN_DEFAULT 300 lapses)"),
    REAL("batch_us", batch_us, 0, "us", "0", "a fault batch's fixed cost"),
    REAL("block_us", block_us, 0, "us", "0", "each VA block a batch services"),
    REAL("fault_us", fault_us, 0, "us", "0", "each GPU fault"),
    REAL("migrate_fault_us", migrate_fault_us, 0, "us", "0", "more for a fault that migrates from the host"),
    REAL("populate_gbps", populate_gbps, 0, "GB/s", "0 (free)", "bytes a GPU fault zero-fills (first touch)"),
    REAL("migrate_gbps", migrate_gbps, 0, "GB/s", "0 (free)", "bytes a GPU fault migrates from the host"),
    REAL("prefetch_us", prefetch_us, 0, "us", "0", "a cudaMemPrefetchAsync call's fixed cost"),
    REAL("prefetch_gbps", prefetch_gbps, 0, "GB/s", "0 (free)", "bytes a prefetch moves (either way)"),
    REAL("host_fault_us", host_fault_us, 0, "us", "0", "a host touch of a page resident on the GPU"),
    REAL("to_host_gbps", to_host_gbps, 0, "GB/s", "0 (free)",
         "bytes host faults and evictions move back to the host"),
    SIZE("pack_grain", pack_grain, 0, 0, UINT64_C(1) << 40, "0 (no packing)",
         "managed allocations smaller than va_block are packed into shared blocks in granules of this many "
         "bytes (the CUDA runtime's rule, tlbsim/uvm_pack.h); 0: each its own blocks"),
    SIZE("va_base", va_base, 0, 0, UINT64_MAX, "an eighth of the format's VA space",
         "where managed, host and pinned allocations get their VA (first fit, VA blocks aligned)"),
    SIZE("va_size", va_size, 0, 0, UINT64_MAX, "an eighth of the format's VA space", "the length of that range"),
};
static const cfg_keys uvm_keys = {"uvm", uvm_key_table, sizeof uvm_key_table / sizeof uvm_key_table[0]};

const cfg_keys *uvm_config_keys(void) { return &uvm_keys; }

void uvm_config_default(uvm_config *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < uvm_keys.n; i++) {
    const cfg_key *k = &uvm_key_table[i];
    char *at = (char *)out + k->offset;
    if (k->kind == CFG_KEY_SIZE) *(uint64_t *)(void *)at = k->def;
    else if (k->kind == CFG_KEY_U32) *(uint32_t *)(void *)at = (uint32_t)k->def;
    else *(double *)(void *)at = k->rdef;
  }
}

int uvm_config_read(cfg *c, uvm_config *out, diag *d) {
  uvm_config_default(out);
  if (cfg_read_keys(c, "uvm", &uvm_keys, out, d)) return -1;
  if (!is_pow2(out->va_block) || !is_pow2(out->big_page) || out->big_page > out->va_block ||
      out->va_block / out->big_page > UVM_MAX_BIG_PAGES)
    return cfg_error(c, "uvm", cfg_latest(c, "uvm", "va_block", "big_page"), d,
                     "va_block and big_page must be powers of two, with 1 to %d big pages a block", UVM_MAX_BIG_PAGES);
  if (num_add_sat(out->va_base, out->va_size) == UINT64_MAX)
    return cfg_error(c, "uvm", cfg_latest(c, "uvm", "va_base", "va_size"), d,
                     "va_base %#llx + va_size %#llx passes the top of memory", (unsigned long long)out->va_base,
                     (unsigned long long)out->va_size);
  if (out->pack_grain && (!is_pow2(out->pack_grain) || out->pack_grain > out->va_block))
    return cfg_error(c, "uvm", "pack_grain", d, "%#llx is not 0 or a power of two up to va_block",
                     (unsigned long long)out->pack_grain);
  if (out->va_base % out->va_block)
    return cfg_error(c, "uvm", "va_base", d, "%#llx is not a multiple of va_block", (unsigned long long)out->va_base);
  return 0;
}
