#include "tlbsim/gpu_gather.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t gpu_gather_thread_sum(uint64_t seed, uint64_t thread, uint32_t loads, uint32_t nodes) {
  uint64_t sum = 0;
  for (uint32_t j = 0; j < loads; j++) sum += gpu_gather_node(seed, thread, j, nodes);
  return sum;
}

uint64_t gpu_gather_stride(uint64_t footprint, uint32_t nodes, uint64_t align) {
  if (!nodes || !align) return 0;
  return footprint / nodes / align * align;
}

static int push_point(gpu_gather_point_list *l, size_t *cap, gpu_gather_point p, diag *d) {
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i].stride == p.stride && l->v[i].nodes == p.nodes) return 0;
  if (l->n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 32;
    gpu_gather_point *v = realloc(l->v, ncap * sizeof *v);
    if (!v) return diag_set(d, NULL, 0, "gather: out of memory");
    l->v = v;
    *cap = ncap;
  }
  l->v[l->n++] = p;
  return 0;
}

int gpu_gather_points(const gpu_gather_plan *p, gpu_gather_point_list *out, diag *d) {
  memset(out, 0, sizeof *out);
  if (!p->nnodes) return diag_set(d, NULL, 0, "gather: no node counts");
  if (!p->stride && !p->nfootprints) return diag_set(d, NULL, 0, "gather: no footprints");
  if (!p->align || p->align % GPU_GATHER_LINE)
    return diag_set(d, NULL, 0, "gather: stride granule %llu is not a multiple of %u", (unsigned long long)p->align,
                    GPU_GATHER_LINE);
  if (p->stride && p->stride % p->align)
    return diag_set(d, NULL, 0, "gather: stride %llu is not a multiple of %llu", (unsigned long long)p->stride,
                    (unsigned long long)p->align);
  size_t cap = 0;
  size_t nf = p->stride ? 1 : p->nfootprints;
  for (size_t f = 0; f < nf; f++)
    for (size_t k = 0; k < p->nnodes; k++) {
      uint64_t n = p->nodes[k];
      if (!n || n > UINT32_MAX) {
        gpu_gather_point_list_free(out);
        return diag_set(d, NULL, 0, "gather: node count %llu is outside 1..2^32-1", (unsigned long long)n);
      }
      uint64_t stride = p->stride ? p->stride : gpu_gather_stride(p->footprints[f], (uint32_t)n, p->align);
      if (!stride) {
        out->skipped++;
        continue;
      }
      if (n > UINT64_MAX / stride) {
        gpu_gather_point_list_free(out);
        return diag_set(d, NULL, 0, "gather: footprint overflows");
      }
      gpu_gather_point pt = {n * stride, stride, (uint32_t)n};
      if (push_point(out, &cap, pt, d)) {
        gpu_gather_point_list_free(out);
        return -1;
      }
    }
  return 0;
}

void gpu_gather_point_list_free(gpu_gather_point_list *l) {
  free(l->v);
  memset(l, 0, sizeof *l);
}

size_t gpu_footprint_range(uint64_t fmin, uint64_t fmax, unsigned per_octave, uint64_t *v, size_t max) {
  size_t n = 0;
  if (!fmin || !per_octave) return 0;
  for (unsigned k = 0; n < max; k++) {
    double want = (double)fmin * exp2((double)k / per_octave);
    if (want > (double)fmax * (1 + 1e-9)) break;
    v[n++] = (uint64_t)llround(want);
  }
  return n;
}

int gpu_gather_shape_per_sm(uint32_t tps, uint32_t sms, gpu_gather_shape *s, diag *d) {
  if (!tps || tps % 32 || tps > GPU_GATHER_MAX_TPS || (tps > GPU_GATHER_BLOCK && tps % GPU_GATHER_BLOCK))
    return diag_set(d, NULL, 0,
                    "gather: %u threads per SM: want a multiple of 32 up to 256, or of 256 up to 2048", tps);
  if (!sms || sms > GPU_MAX_SMS) return diag_set(d, NULL, 0, "gather: %u SMs is outside 1..%d", sms, GPU_MAX_SMS);
  s->block_threads = tps < GPU_GATHER_BLOCK ? tps : GPU_GATHER_BLOCK;
  s->per_sm = tps / s->block_threads;
  s->blocks = s->per_sm * sms;
  s->threads = (uint64_t)tps * sms;
  return 0;
}

int gpu_gather_shape_total(uint64_t threads, gpu_gather_shape *s, diag *d) {
  if (!threads || threads % GPU_GATHER_BLOCK || threads / GPU_GATHER_BLOCK > UINT32_MAX)
    return diag_set(d, NULL, 0, "gather: %llu threads is not a positive multiple of %u", (unsigned long long)threads,
                    GPU_GATHER_BLOCK);
  s->block_threads = GPU_GATHER_BLOCK;
  s->blocks = (uint32_t)(threads / GPU_GATHER_BLOCK);
  s->threads = threads;
  s->per_sm = 0;
  return 0;
}

/* One set: "grid", "all", or items "A" / "A-B" joined by commas. */
static int sm_set_parse(const char *text, gpu_sm_set *s) {
  memset(s, 0, sizeof *s);
  if (!strcmp(text, "grid")) return s->kind = GPU_SMS_GRID, 0;
  if (!strcmp(text, "all")) return s->kind = GPU_SMS_ALL, 0;
  s->kind = GPU_SMS_LIST;
  char buf[1024];
  if (!*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  int any = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *dash = strchr(tok, '-');
    uint64_t lo, hi;
    if (dash) *dash = '\0';
    if (num_parse_whole(tok, &lo)) return -1;
    if (!dash) hi = lo;
    else if (num_parse_whole(dash + 1, &hi)) return -1;
    if (lo > hi || hi >= GPU_MAX_SMS) return -1;
    for (uint64_t k = lo; k <= hi; k++) s->mask[k / 64] |= 1ull << (k % 64);
    any = 1;
  }
  return any ? 0 : -1;
}

int gpu_sm_sets_parse(const char *text, gpu_sm_set *sets, size_t max, size_t *n) {
  char buf[4096];
  *n = 0;
  if (!text || !*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    if (*n == max || sm_set_parse(tok, &sets[*n])) return -1;
    (*n)++;
  }
  return *n ? 0 : -1;
}

int gpu_sm_set_has(const gpu_sm_set *s, uint32_t sm) {
  if (s->kind != GPU_SMS_LIST) return 1;
  return sm < GPU_MAX_SMS && (s->mask[sm / 64] >> (sm % 64) & 1);
}

uint32_t gpu_sm_set_count(const gpu_sm_set *s, uint32_t sms) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < sms && k < GPU_MAX_SMS; k++) n += (uint32_t)gpu_sm_set_has(s, k);
  return n;
}

const char *gpu_sm_set_name(const gpu_sm_set *s, char *buf, size_t len) {
  if (!len) return buf;
  buf[0] = '\0';
  if (s->kind != GPU_SMS_LIST) {
    snprintf(buf, len, "%s", s->kind == GPU_SMS_GRID ? "grid" : "all");
    return buf;
  }
  size_t used = 0;
  for (uint32_t k = 0; k < GPU_MAX_SMS; k++) {
    if (!gpu_sm_set_has(s, k)) continue;
    int w = snprintf(buf + used, len - used, used ? ";%u" : "%u", k);
    if (w < 0 || (size_t)w >= len - used) break;
    used += (size_t)w;
  }
  return buf;
}
