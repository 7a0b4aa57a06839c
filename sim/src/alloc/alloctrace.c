/* The allocation-trace front: format names, sniffing, the id table. */
#include <limits.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloctrace_impl.h"

const char *const alloctrace_input_names[] = {[ALLOCTRACE_AUTO] = "auto", [ALLOCTRACE_SNAPSHOT] = "snapshot",
                                              [ALLOCTRACE_RMM] = "rmm", [ALLOCTRACE_NATIVE] = "native", NULL};

int alloctrace_format_parse(const char *s, alloctrace_format *out) {
  for (int i = 0; alloctrace_input_names[i]; i++)
    if (!strcmp(s, alloctrace_input_names[i])) {
      *out = (alloctrace_format)i;
      return 0;
    }
  return -1;
}

const char *alloctrace_format_name(alloctrace_format f) {
  return f == ALLOCTRACE_SYNTHETIC ? "synthetic" : (unsigned)f < ALLOCTRACE_SYNTHETIC ? alloctrace_input_names[f] : "?";
}

/* --- ids -------------------------------------------------------------------- */

static size_t slot_of(uint64_t name, size_t cap) {
  return (size_t)((name * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int grow(alloctrace *t) {
  size_t cap = t->cap ? t->cap * 2 : 1024;
  at_slot *fresh = calloc(cap, sizeof *fresh);
  if (!fresh) return -1;
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slots[i].used) continue;
    size_t j = slot_of(t->slots[i].name, cap);
    while (fresh[j].used) j = (j + 1) & (cap - 1);
    fresh[j] = t->slots[i];
  }
  free(t->slots);
  t->slots = fresh;
  t->cap = cap;
  return 0;
}

static at_slot *find(const alloctrace *t, uint64_t name) {
  if (!t->cap) return NULL;
  for (size_t i = slot_of(name, t->cap);; i = (i + 1) & (t->cap - 1)) {
    if (!t->slots[i].used) return NULL;
    if (t->slots[i].name == name) return &t->slots[i];
  }
}

int at_name_alloc(alloctrace *t, uint64_t name, uint64_t *id, diag *d) {
  if (find(t, name)) return diag_set(d, NULL, 0, "allocation %#llx is live already", (unsigned long long)name);
  if ((t->live + 1) * 4 > t->cap * 3 && grow(t)) return diag_set(d, NULL, 0, "out of host memory");
  if (!t->nspare && t->id_limit == t->spare_cap) {
    /* Room for every id to come back: a free never needs memory. */
    size_t cap = t->spare_cap ? t->spare_cap * 2 : 256;
    uint64_t *grown = realloc(t->spare_ids, cap * sizeof *grown);
    if (!grown) return diag_set(d, NULL, 0, "out of host memory");
    t->spare_ids = grown;
    if (!(grown = realloc(t->names, cap * sizeof *grown))) return diag_set(d, NULL, 0, "out of host memory");
    t->names = grown;
    t->spare_cap = cap;
  }
  size_t i = slot_of(name, t->cap);
  while (t->slots[i].used) i = (i + 1) & (t->cap - 1);
  *id = t->nspare ? t->spare_ids[--t->nspare] : t->id_limit++;
  t->slots[i] = (at_slot){.name = name, .id = *id, .used = true};
  t->names[*id] = name;
  t->live++;
  t->info.allocs++;
  return 0;
}

int at_name_free(alloctrace *t, uint64_t name, uint64_t *id) {
  at_slot *s = find(t, name);
  if (!s) {
    t->info.unmatched_frees++;
    return 0;
  }
  *id = s->id;
  t->spare_ids[t->nspare++] = s->id;
  t->info.frees++;
  /* Backward-shift deletion keeps probe chains whole without tombstones. */
  size_t hole = (size_t)(s - t->slots);
  s->used = false;
  for (size_t j = (hole + 1) & (t->cap - 1); t->slots[j].used; j = (j + 1) & (t->cap - 1)) {
    size_t home = slot_of(t->slots[j].name, t->cap);
    if (((j - home) & (t->cap - 1)) >= ((j - hole) & (t->cap - 1))) {
      t->slots[hole] = t->slots[j];
      t->slots[j].used = false;
      hole = j;
    }
  }
  t->live--;
  return 1;
}

int at_stream(alloctrace *t, uint64_t raw, uint32_t *out) {
  for (unsigned i = 0; i < t->nstreams; i++)
    if (t->streams[i] == raw) {
      *out = i;
      return 0;
    }
  if (t->nstreams == AT_MAX_STREAMS) return -1;
  t->streams[t->nstreams] = raw;
  *out = t->nstreams++;
  return 0;
}

void at_segment(alloctrace *t, uint64_t size, bool release) {
  alloctrace_info *in = &t->info;
  in->has_segments = true;
  if (release) {
    in->segment_frees++;
    t->reserved -= size < t->reserved ? size : t->reserved;
  } else {
    in->segment_allocs++;
    t->reserved += size;
    if (t->reserved > in->reserved_peak) in->reserved_peak = t->reserved;
  }
  in->reserved_end = t->reserved;
}

/* --- opening ------------------------------------------------------------------ */

static alloctrace *new_trace(const char *path, diag *d) {
  alloctrace *t = calloc(1, sizeof *t);
  if (!t) {
    diag_set(d, NULL, 0, "out of host memory");
    return NULL;
  }
  snprintf(t->path, sizeof t->path, "%s", path);
  t->info.max_split_size = UINT64_MAX;
  return t;
}

/* The longest snapshot read: json-c takes a length as an int. */
#define SNAPSHOT_MAX_BYTES ((size_t)INT_MAX)

/* Reads the whole (possibly gzipped) input: snapshots are one JSON value.
 * NULL with *len past SNAPSHOT_MAX_BYTES when it is too long. */
static char *slurp(gzFile gz, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  *len = 0;
  for (int got; buf; n += (size_t)got) {
    if (n == cap) {
      if (cap > SNAPSHOT_MAX_BYTES) {
        *len = n;
        break;
      }
      char *grown = realloc(buf, 2 * cap + 1);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
    got = gzread(gz, buf + n, (unsigned)(cap - n));
    if (got <= 0) {
      if (got < 0) break;
      buf[n] = '\0';
      *len = n;
      return buf;
    }
  }
  free(buf);
  return NULL;
}

/* The first non-blank byte decides: '{' a snapshot, "Thread," an RMM log,
 * anything else the native format. */
static alloctrace_format sniff(gzFile gz) {
  char head[256];
  int n = gzread(gz, head, sizeof head - 1);
  gzrewind(gz);
  if (n <= 0) return ALLOCTRACE_NATIVE;
  head[n] = '\0';
  const char *p = head;
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
  if (*p == '{') return ALLOCTRACE_SNAPSHOT;
  if (!strncmp(p, "Thread,", 7)) return ALLOCTRACE_RMM;
  return ALLOCTRACE_NATIVE;
}

alloctrace *alloctrace_open(const char *path, alloctrace_format fmt, int device, diag *d) {
  return alloctrace_open_jobs(path, fmt, device, 1, d);
}

alloctrace *alloctrace_open_jobs(const char *path, alloctrace_format fmt, int device, unsigned jobs, diag *d) {
  if (fmt == ALLOCTRACE_SYNTHETIC) {
    diag_set(d, NULL, 0, "the synthetic workload is opened with alloctrace_open_synth");
    return NULL;
  }
  alloctrace *t = new_trace(!strcmp(path, "-") ? "<stdin>" : path, d);
  if (!t) return NULL;
  t->jobs = jobs;
  int rc = -1;
  if (fmt == ALLOCTRACE_NATIVE) {
    rc = at_open_native(t, d); /* the trace module opens the file itself */
  } else {
    errno = 0;
    gzFile gz = !strcmp(path, "-") ? gzdopen(0, "rb") : gzopen(path, "rb");
    if (!gz) { /* zlib leaves errno 0 when it ran out of memory */
      diag_set(d, t->path, 0, "cannot open: %s", errno ? strerror(errno) : "out of memory");
      free(t);
      return NULL;
    }
    if (fmt == ALLOCTRACE_AUTO) fmt = sniff(gz);
    if (fmt == ALLOCTRACE_SNAPSHOT) {
      size_t len = 0;
      char *text = slurp(gz, &len);
      gzclose(gz);
      if (text) rc = at_open_snapshot(t, text, len, device, d);
      else if (len) rc = diag_set(d, t->path, 0, "a snapshot of more than %zu bytes (json-c's limit)", SNAPSHOT_MAX_BYTES);
      else rc = diag_set(d, t->path, 0, "cannot read (or out of memory)");
      free(text);
    } else if (fmt == ALLOCTRACE_RMM) {
      rc = at_open_rmm(t, gz, d); /* owns gz from here */
    } else {
      gzclose(gz);
      rc = at_open_native(t, d);
    }
  }
  if (rc) {
    alloctrace_close(t);
    return NULL;
  }
  t->info.format = fmt;
  return t;
}

alloctrace *alloctrace_open_synth(const alloctrace_synth *s, diag *d) {
  alloctrace *t = new_trace("<synthetic>", d);
  if (t && at_open_synth(t, s, d)) {
    alloctrace_close(t);
    return NULL;
  }
  if (t) t->info.format = ALLOCTRACE_SYNTHETIC;
  return t;
}

int alloctrace_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  int got = t->src->next(t, ev, d);
  if (got == 1 && (ev->kind == AT_ALLOC || ev->kind == AT_FREE)) ev->name = t->names[ev->id];
  return got;
}
const alloctrace_info *alloctrace_get_info(const alloctrace *t) { return &t->info; }
uint64_t alloctrace_id_limit(const alloctrace *t) { return t->id_limit; }
void alloctrace_want_marks(alloctrace *t) { t->marks = true; }
const char *alloctrace_path(const alloctrace *t) { return t->path; }

void alloctrace_close(alloctrace *t) {
  if (!t) return;
  if (t->src && t->src->close) t->src->close(t);
  free(t->slots);
  free(t->spare_ids);
  free(t->names);
  free(t);
}
