/* The live set of an alloc replay: its layout file and its address-space map. */
#include "alloc_live.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/csv.h"
#include "tlbsim/num.h"

static int by_va(const void *a, const void *b) {
  uint64_t x = ((const allocreplay_buf *)a)->va, y = ((const allocreplay_buf *)b)->va;
  return (x > y) - (x < y);
}

void live_layout_header(FILE *f) { fprintf(f, "source,case,index,id,size_bytes,offset_bytes\n"); }

void live_layout_rows(FILE *f, const char *source, const char *policy, const allocreplay_buf *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    csv_write_field(f, source);
    fputc(',', f);
    csv_write_field(f, policy);
    /* two's complement: buffers below the first one have negative offsets */
    uint64_t delta = b[i].va - b[0].va;
    long long offset = delta > INT64_MAX ? -(long long)(~delta) - 1 : (long long)delta;
    fprintf(f, ",%zu,%llu,%llu,%lld\n", i, (unsigned long long)b[i].name, (unsigned long long)b[i].size, offset);
  }
}

/* --- the address-space map ------------------------------------------------------ */

#define MAP_BAR 64   /* characters in the bar */
#define MAP_LINES 48 /* extents listed */

int live_map_fill(live_map *m, const allocreplay_buf *b, size_t n, uint64_t range_base, uint64_t range_size,
                  uint64_t capacity) {
  m->used = malloc((n ? n : 1) * sizeof *m->used);
  if (!m->used) return -1;
  memcpy(m->used, b, n * sizeof *b);
  m->nused = n;
  qsort(m->used, n, sizeof *m->used, by_va);
  m->window_base = range_base;
  m->window_size = range_size;
  if (range_size <= capacity || !n) return 0;
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++)
    if (b[i].va + b[i].size > end) end = b[i].va + b[i].size;
  m->window_base = m->used[0].va;
  m->window_size = end - m->window_base;
  return 0;
}

void live_map_free(live_map *m) {
  free(m->used);
  m->used = NULL;
}

/* Used bytes of [lo, hi) (blocks sorted, not overlapping). */
static uint64_t used_in(const live_map *m, uint64_t lo, uint64_t hi) {
  uint64_t sum = 0;
  for (size_t i = 0; i < m->nused; i++) {
    uint64_t a = m->used[i].va > lo ? m->used[i].va : lo, e = m->used[i].va + m->used[i].size;
    if (e > hi) e = hi;
    if (e > a) sum += e - a;
  }
  return sum;
}

static void extent_line(FILE *f, uint64_t va, uint64_t size, const char *what, unsigned *lines) {
  char b[32];
  if ((*lines)++ < MAP_LINES)
    fprintf(f, "  %#14llx-%#-14llx %10s  %s\n", (unsigned long long)va, (unsigned long long)(va + size - 1),
            num_format_size(size, b, sizeof b), what);
}

/* The free extent starting at `at` in a gap ending at `end`: the whole gap,
 * or for buddy the largest aligned power-of-two block (offsets from the
 * window's base) that starts there and fits. */
static uint64_t free_piece(const live_map *m, uint64_t at, uint64_t end) {
  if (!m->buddy_free) return end - at;
  uint64_t off = at - m->window_base, piece = off ? off & -off : UINT64_C(1) << 63;
  while (piece > end - at) piece >>= 1;
  return piece;
}

/* Calls fn on every extent of the window in address order: each live
 * block (used: true, its id) and the free pieces between (free_piece). */
typedef void extent_fn(void *ctx, bool used, uint64_t va, uint64_t size, uint64_t id);

static void walk_extents(const live_map *m, extent_fn *fn, void *ctx) {
  uint64_t at = m->window_base, end = m->window_base + m->window_size;
  for (size_t i = 0; i <= m->nused; i++) {
    uint64_t next = i < m->nused ? m->used[i].va : end;
    for (uint64_t p; at < next; at += p) fn(ctx, false, at, p = free_piece(m, at, next), 0);
    if (i == m->nused) break;
    fn(ctx, true, m->used[i].va, m->used[i].size, m->used[i].name);
    at = m->used[i].va + m->used[i].size;
  }
}

typedef struct text_walk {
  FILE *f;
  unsigned lines;
} text_walk;

static void text_extent(void *ctx, bool used, uint64_t va, uint64_t size, uint64_t id) {
  text_walk *t = ctx;
  char what[48] = "free";
  if (used) snprintf(what, sizeof what, "used (id %llu)", (unsigned long long)id);
  extent_line(t->f, va, size, what, &t->lines);
}

void live_map_text(FILE *f, const live_map *m) {
  char a[32], b[32], c[32];
  fprintf(f, "\n%s after event %llu: window %#llx, %s, %zu live blocks\n  [", m->policy, (unsigned long long)m->event,
          (unsigned long long)m->window_base, num_format_size(m->window_size, a, sizeof a), m->nused);
  for (unsigned k = 0; k < MAP_BAR && m->window_size; k++) {
    uint64_t lo = m->window_base + m->window_size / MAP_BAR * k, hi = k + 1 == MAP_BAR ? m->window_base + m->window_size
                                                                                        : lo + m->window_size / MAP_BAR;
    uint64_t used = used_in(m, lo, hi);
    fputc(used == 0 ? '.' : used == hi - lo ? '#' : '+', f);
  }
  fprintf(f, "]  # used  . free  + both\n");
  text_walk t = {f, 0};
  walk_extents(m, text_extent, &t);
  unsigned lines = t.lines;
  if (lines > MAP_LINES) fprintf(f, "  ... %u more extents\n", lines - MAP_LINES);
  if (!m->failed) return;
  fprintf(f, "  FAILED: a request of %s (%s): %s free in all, the largest free extent %s",
          num_format_size(m->request, a, sizeof a), m->reason, num_format_size(m->free_bytes, b, sizeof b),
          num_format_size(m->largest, c, sizeof c));
  /* buddy's blocks side by side: a longer run of free memory than any of them */
  if (m->range != m->largest) fprintf(f, ", a free range of %s", num_format_size(m->range, c, sizeof c));
  fputc('\n', f);
}

void live_map_csv_header(FILE *f) { fprintf(f, "policy,row,event,kind,offset_bytes,size_bytes,id\n"); }

static void csv_row(FILE *f, const live_map *m, unsigned row, const char *kind, uint64_t offset, uint64_t size,
                    uint64_t id) {
  csv_write_field(f, m->policy);
  fprintf(f, ",%u,%llu,%s,%llu,%llu,%llu\n", row, (unsigned long long)m->event, kind, (unsigned long long)offset,
          (unsigned long long)size, (unsigned long long)id);
}

typedef struct csv_walk {
  FILE *f;
  const live_map *m;
  unsigned row;
} csv_walk;

static void csv_extent(void *ctx, bool used, uint64_t va, uint64_t size, uint64_t id) {
  const csv_walk *c = ctx;
  csv_row(c->f, c->m, c->row, used ? "used" : "free", va - c->m->window_base, size, id);
}

void live_map_csv_rows(FILE *f, const live_map *m, unsigned row) {
  csv_walk c = {f, m, row};
  walk_extents(m, csv_extent, &c);
  if (m->failed) csv_row(f, m, row, "failed", 0, m->request, 0);
}

/* [offset, size] of a free extent, [offset, size, id] of a used one,
 * onto its list; offsets from the window's base. */
typedef struct json_walk {
  uint64_t base;
  json_object *free_, *used;
} json_walk;

static void json_extent(void *ctx, bool used, uint64_t va, uint64_t size, uint64_t id) {
  json_walk *w = ctx;
  json_object *e = json_object_new_array_ext(used ? 3 : 2);
  json_object_array_add(e, json_object_new_uint64(va - w->base));
  json_object_array_add(e, json_object_new_uint64(size));
  if (used) json_object_array_add(e, json_object_new_uint64(id));
  json_object_array_add(used ? w->used : w->free_, e);
}

static void put_u64(json_object *o, const char *key, uint64_t v) {
  json_object_object_add(o, key, json_object_new_uint64(v));
}

int live_map_json(FILE *f, const live_map *m) {
  json_object *o = json_object_new_object(), *used = json_object_new_array(), *free_ = json_object_new_array();
  if (!o || !used || !free_) return json_object_put(o), json_object_put(used), json_object_put(free_), -1;
  json_object_object_add(o, "policy", json_object_new_string(m->policy));
  put_u64(o, "event", m->event);
  put_u64(o, "time_us", m->time_us);
  put_u64(o, "window_base", m->window_base);
  put_u64(o, "window_size", m->window_size);
  put_u64(o, "allocated_bytes", m->stats.allocated_bytes);
  put_u64(o, "reserved_bytes", m->stats.reserved_bytes);
  put_u64(o, "free_bytes", m->stats.free_bytes);
  put_u64(o, "largest_free_extent", m->stats.largest_free_extent);
  json_object_object_add(o, "external_fragmentation", json_object_new_double(m->stats.external_fragmentation));
  put_u64(o, "live_buffers", m->live.buffers);
  put_u64(o, "regions_2m", m->live.regions_2m);
  put_u64(o, "regions_32m", m->live.regions_32m);
  put_u64(o, "va_span_bytes", m->live.va_span);
  json_walk w = {m->window_base, free_, used};
  walk_extents(m, json_extent, &w);
  json_object_object_add(o, "used", used);
  json_object_object_add(o, "free", free_);
  json_object *failed = NULL;
  if (m->failed) {
    failed = json_object_new_object();
    put_u64(failed, "request", m->request);
    json_object_object_add(failed, "reason", json_object_new_string(m->reason));
    put_u64(failed, "free_bytes", m->free_bytes);
    put_u64(failed, "largest_free_extent", m->largest);
  }
  json_object_object_add(o, "failed", failed);
  fprintf(f, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(o);
  return 0;
}
