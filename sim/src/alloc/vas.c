/* The vas front: policy lookup, the configuration table, and the
 * statistics every policy shares (peaks, OOMs, fragmentation). */
#include "vas_impl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_VA_BASE (1ull << 40)
#define GPU_VA_END (1ull << 47) /* top of the default range of the GPU models */

static const vas_policy *const policies[] = {
    &vas_first_fit, &vas_next_fit, &vas_best_fit, &vas_buddy, &vas_cuda, &vas_caching, &vas_expandable,
};
#define NPOLICIES (sizeof policies / sizeof policies[0])

size_t vas_policy_count(void) { return NPOLICIES; }
const char *vas_policy_at(size_t i) { return i < NPOLICIES ? policies[i]->name : NULL; }
const char *vas_policy_summary(size_t i) { return i < NPOLICIES ? policies[i]->summary : NULL; }

/* --- parameters by name --------------------------------------------------- */

typedef struct param {
  const char *name;
  size_t offset;
  num_kind kind;
  bool pow2;    /* a power of two (or 0: the policy's default) */
  const char *doc;
} param;

#define P(field, kind, pow2, doc) {#field, offsetof(vas_config, field), kind, pow2, doc}
static const param params[] = {
    {"capacity", offsetof(vas_config, phys_capacity), NUM_SIZE, false, "physical memory the policy may map"},
    P(va_base, NUM_SIZE, false, "start of the managed VA range"),
    P(va_size, NUM_SIZE, false, "length of the managed VA range"),
    P(page_size, NUM_SIZE, true, "generic policies: granule and page size"),
    P(alignment, NUM_SIZE, true, "generic policies: minimum alignment"),
    P(max_split_size, NUM_SIZE, false, "caching: blocks this large are never split ('none': no limit)"),
    P(seed, NUM_WHOLE, false, "seed for policies that make random choices"),
    P(cuda_small_align, NUM_SIZE, true, "cuda: small requests round up to this"),
    P(cuda_small_max, NUM_SIZE, false, "cuda: requests up to this size share regions"),
    P(cuda_large_round, NUM_SIZE, true, "cuda: large requests round up to this"),
    P(cuda_region_size, NUM_SIZE, true, "cuda: size of the regions small requests share"),
    P(cuda_small_page, NUM_SIZE, true, "cuda: page size of small regions"),
    P(cuda_large_page, NUM_SIZE, true, "cuda: page size of large requests"),
    P(cuda_va_chunk, NUM_SIZE, false,
      "cuda: the driver's VA chunks (default 32M); caching: its segments' VA set aside top-down in chunks (0: first fit)"),
    P(min_block, NUM_SIZE, true, "caching: kMinBlockSize"),
    P(small_size, NUM_SIZE, false, "caching: kSmallSize"),
    P(small_buffer, NUM_SIZE, false, "caching: kSmallBuffer"),
    P(min_large_alloc, NUM_SIZE, false, "caching: kMinLargeAlloc"),
    P(large_buffer, NUM_SIZE, false, "caching: kLargeBuffer"),
    P(round_large, NUM_SIZE, true, "caching: kRoundLarge"),
};
#undef P
#define NPARAMS (sizeof params / sizeof params[0])

size_t vas_param_count(void) { return NPARAMS; }

const char *vas_param_at(size_t i, const char **doc) {
  if (i >= NPARAMS) return NULL;
  if (doc) *doc = params[i].doc;
  return params[i].name;
}

int vas_param_find(const char *name) {
  for (size_t i = 0; i < NPARAMS; i++)
    if (!strcmp(name, params[i].name)) return (int)i;
  return -1;
}

int vas_param_set(vas_config *c, size_t i, const char *value, diag *d) {
  const param *p = &params[i];
  uint64_t *field = (uint64_t *)(void *)((char *)c + p->offset);
  if (!strcmp(p->name, "max_split_size") && !strcmp(value, "none")) {
    *field = UINT64_MAX;
    return 0;
  }
  /* The capacity bounds every policy's sizes: it is the one with a range. */
  uint64_t v, lo = 0, hi = UINT64_MAX;
  if (field == &c->phys_capacity) lo = 1, hi = VAS_MAX_CAPACITY;
  num_status st = p->kind == NUM_SIZE ? num_size_in(value, lo, hi, &v) : num_whole_in(value, lo, hi, &v);
  char why[160], q[48];
  if (st != NUM_OK) return diag_set(d, NULL, 0, "%s", num_complaint(st, p->kind, value, lo, hi, why, sizeof why));
  if (p->pow2 && v && !is_pow2(v))
    return diag_set(d, NULL, 0, "'%s' is not a power of two", num_quote(value, q, sizeof q));
  *field = v;
  return 0;
}

int vas_config_set(vas_config *c, const char *key, const char *value, diag *d) {
  int i = vas_param_find(key);
  if (i >= 0) {
    diag why;
    return vas_param_set(c, (size_t)i, value, &why) ? diag_set(d, NULL, 0, "%s: %s", key, why.msg) : 0;
  }
  char known[512] = "";
  for (size_t k = 0; k < NPARAMS; k++) {
    strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, params[k].name, sizeof known - strlen(known) - 1);
  }
  return diag_set(d, NULL, 0, "unknown allocator parameter '%s' (known: %s)", key, known);
}

/* --- instances ------------------------------------------------------------ */

int vas_err_nomem(diag *d) { return diag_set(d, NULL, 0, "out of host memory"), VAS_ERR; }

int vas_err_not_live(const vas *v, uint64_t va, diag *d) {
  return diag_set(d, NULL, 0, "%s: free of %#llx, which is not a live allocation", v->policy->name,
                  (unsigned long long)va),
         VAS_ERR;
}

static bool is_generic(const vas_policy *p) {
  return p == &vas_first_fit || p == &vas_next_fit || p == &vas_best_fit || p == &vas_buddy;
}

static void refresh_fragmentation(vas *v) {
  vas_extents e;
  v->policy->extents(v, &e);
  vas_stats *st = &v->st;
  st->free_extents = e.count;
  st->largest_free_extent = e.largest;
  st->free_bytes = e.total;
  st->external_fragmentation = e.total ? 1.0 - (double)e.largest / (double)e.total : 0.0;
  if (st->external_fragmentation > st->external_fragmentation_max)
    st->external_fragmentation_max = st->external_fragmentation;
}

vas *vas_create(const char *policy, const vas_config *c, const vas_hooks *h, diag *d) {
  const vas_policy *p = NULL;
  for (size_t i = 0; i < NPOLICIES && !p; i++)
    if (!strcmp(policy, policies[i]->name)) p = policies[i];
  if (!p) {
    char known[256] = "";
    for (size_t i = 0; i < NPOLICIES; i++) {
      strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
      strncat(known, policies[i]->name, sizeof known - strlen(known) - 1);
    }
    diag_set(d, NULL, 0, "unknown allocator policy '%s' (known: %s)", policy, known);
    return NULL;
  }
  if (!c->phys_capacity || c->phys_capacity > VAS_MAX_CAPACITY) {
    char range[64];
    diag_set(d, NULL, 0, "%s: the physical capacity must be set, within %s", policy,
             num_range_text(NUM_SIZE, 1, VAS_MAX_CAPACITY, range, sizeof range));
    return NULL;
  }
  vas *v = calloc(1, sizeof *v);
  if (!v) {
    vas_err_nomem(d);
    return NULL;
  }
  v->policy = p;
  v->cfg = *c;
  if (!v->cfg.va_base) v->cfg.va_base = DEFAULT_VA_BASE;
  if (!v->cfg.va_size) v->cfg.va_size = is_generic(p) ? c->phys_capacity : GPU_VA_END - v->cfg.va_base;
  if (v->cfg.va_base + v->cfg.va_size < v->cfg.va_base) {
    diag_set(d, NULL, 0, "%s: va_base %#llx + va_size %#llx passes the top of memory", policy,
             (unsigned long long)v->cfg.va_base, (unsigned long long)v->cfg.va_size);
    free(v);
    return NULL;
  }
  if (!v->cfg.max_split_size) v->cfg.max_split_size = UINT64_MAX;
  v->drv = (vdrv){.hooks = h ? *h : (vas_hooks){0}, .st = &v->st, .capacity = c->phys_capacity};
  v->drv.chunks_tail = &v->drv.chunks;
  int rc = vext_add(&v->drv.va, v->cfg.va_base, v->cfg.va_size) ? vas_err_nomem(d) : p->init(v, d);
  if (rc) { /* init cleans up after itself */
    vdrv_fini(&v->drv);
    free(v);
    return NULL;
  }
  refresh_fragmentation(v);
  return v;
}

void vas_destroy(vas *v) {
  if (!v) return;
  v->policy->fini(v);
  vdrv_fini(&v->drv);
  free(v);
}

const char *vas_oom_reason_name(vas_oom_reason r) {
  static const char *const names[VAS_OOM_NREASONS] = {"none", "exhausted", "fragmentation", "granularity", "va_range"};
  return r < VAS_OOM_NREASONS ? names[r] : "?";
}

/* Why a request of `size` just found no memory (stats refreshed after it),
 * by README's definitions: too little free in all (exhausted); enough in
 * all, but no run of contiguous free memory holds its bytes
 * (fragmentation); a run holds them, but not the block the policy rounds
 * or aligns them to (granularity: buddy's power of two, an alignment). A
 * generic heap's VA range is its memory, so a full range is not a VA
 * reason there. */
static vas_oom_reason oom_reason(const vas *v, uint64_t size) {
  if (v->drv.va_refused && !is_generic(v->policy)) return VAS_OOM_VA_RANGE;
  if (v->st.free_bytes < size) return VAS_OOM_EXHAUSTED;
  return v->st.largest_free_range < size ? VAS_OOM_FRAGMENTATION : VAS_OOM_GRANULARITY;
}

int vas_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  if (align & (align - 1)) return diag_set(d, NULL, 0, "alignment %llu is not a power of two", (unsigned long long)align), VAS_ERR;
  v->drv.va_refused = false;
  int rc = size > v->cfg.phys_capacity ? VAS_OOM : v->policy->alloc(v, size, align, stream, va, d);
  refresh_fragmentation(v);
  if (rc == VAS_OK) {
    v->st.allocs++;
  } else if (rc == VAS_OOM) {
    v->st.ooms++;
    if (v->st.free_bytes >= size) v->st.ooms_enough_free++;
    v->st.largest_free_range = v->policy->free_range ? v->policy->free_range(v) : v->st.largest_free_extent;
    v->st.last_oom_reason = oom_reason(v, size);
    v->st.ooms_by_reason[v->st.last_oom_reason]++;
  }
  return rc;
}

int vas_free(vas *v, uint64_t va, diag *d) {
  int rc = v->policy->free(v, va, d);
  if (rc == VAS_OK) {
    v->st.frees++;
    refresh_fragmentation(v);
  }
  return rc;
}

void vas_note_alloc(vas *v, uint64_t block, uint64_t requested) {
  vas_stats *st = &v->st;
  st->allocated_bytes += block;
  st->requested_bytes += requested;
  if (st->allocated_bytes > st->allocated_peak) {
    st->allocated_peak = st->allocated_bytes;
    st->internal_frag_at_peak = st->allocated_bytes - st->requested_bytes;
  }
}

void vas_note_free(vas *v, uint64_t block, uint64_t requested) {
  v->st.allocated_bytes -= block;
  v->st.requested_bytes -= requested;
}

const vas_stats *vas_get_stats(const vas *v) { return &v->st; }
const char *vas_policy_name(const vas *v) { return v->policy->name; }
const vas_config *vas_get_config(const vas *v) { return &v->cfg; }
