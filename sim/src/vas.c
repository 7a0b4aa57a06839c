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

typedef enum { P_SIZE, P_U64 } param_kind;

typedef struct param {
  const char *name;
  size_t offset;
  param_kind kind;
  const char *doc;
} param;

#define P(field, kind, doc) {#field, offsetof(vas_config, field), kind, doc}
static const param params[] = {
    {"capacity", offsetof(vas_config, phys_capacity), P_SIZE, "physical memory the policy may map"},
    P(va_base, P_SIZE, "start of the managed VA range"),
    P(va_size, P_SIZE, "length of the managed VA range"),
    P(page_size, P_SIZE, "generic policies: granule and page size"),
    P(alignment, P_SIZE, "generic policies: minimum alignment"),
    P(max_split_size, P_SIZE, "caching: blocks this large are never split ('none': no limit)"),
    P(seed, P_U64, "seed for policies that make random choices"),
    P(cuda_small_align, P_SIZE, "cuda: small requests round up to this"),
    P(cuda_small_max, P_SIZE, "cuda: requests up to this size share regions"),
    P(cuda_large_round, P_SIZE, "cuda: large requests round up to this"),
    P(cuda_region_size, P_SIZE, "cuda: size of the regions small requests share"),
    P(cuda_small_page, P_SIZE, "cuda: page size of small regions"),
    P(cuda_large_page, P_SIZE, "cuda: page size of large requests"),
    P(cuda_va_chunk, P_SIZE, "cuda, caching: VA set aside top-down in chunks this large (0: first fit)"),
    P(min_block, P_SIZE, "caching: kMinBlockSize"),
    P(small_size, P_SIZE, "caching: kSmallSize"),
    P(small_buffer, P_SIZE, "caching: kSmallBuffer"),
    P(min_large_alloc, P_SIZE, "caching: kMinLargeAlloc"),
    P(large_buffer, P_SIZE, "caching: kLargeBuffer"),
    P(round_large, P_SIZE, "caching: kRoundLarge"),
};
#undef P
#define NPARAMS (sizeof params / sizeof params[0])

size_t vas_param_count(void) { return NPARAMS; }

const char *vas_param_at(size_t i, const char **doc) {
  if (i >= NPARAMS) return NULL;
  if (doc) *doc = params[i].doc;
  return params[i].name;
}

int vas_config_set(vas_config *c, const char *key, const char *value, diag *d) {
  for (size_t i = 0; i < NPARAMS; i++) {
    if (strcmp(key, params[i].name)) continue;
    uint64_t *field = (uint64_t *)(void *)((char *)c + params[i].offset);
    if (!strcmp(key, "max_split_size") && !strcmp(value, "none")) {
      *field = UINT64_MAX;
      return 0;
    }
    int rc = params[i].kind == P_SIZE ? size_parse(value, field) : u64_parse(value, field);
    if (rc) return diag_set(d, NULL, 0, "%s: '%s' is not a %s", key, value, params[i].kind == P_SIZE ? "size" : "number");
    return 0;
  }
  char known[512] = "";
  for (size_t i = 0; i < NPARAMS; i++) {
    strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
    strncat(known, params[i].name, sizeof known - strlen(known) - 1);
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
  if (!c->phys_capacity) {
    diag_set(d, NULL, 0, "%s: the physical capacity must be set", policy);
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
    diag_set(d, NULL, 0, "%s: the VA range wraps around", policy);
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

int vas_alloc(vas *v, uint64_t size, uint64_t align, uint32_t stream, uint64_t *va, diag *d) {
  if (align & (align - 1)) return diag_set(d, NULL, 0, "alignment %llu is not a power of two", (unsigned long long)align), VAS_ERR;
  int rc = v->policy->alloc(v, size, align, stream, va, d);
  refresh_fragmentation(v);
  if (rc == VAS_OK) {
    v->st.allocs++;
  } else if (rc == VAS_OOM) {
    v->st.ooms++;
    if (v->st.free_bytes >= size) v->st.ooms_fragmented++;
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
