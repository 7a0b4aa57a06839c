/* PyTorch memory snapshots as JSON: torch.cuda.memory._snapshot() dumped
 * with json.dump, or traces/torch/snapshot2json.py's output of a
 * _dump_snapshot pickle. Parsed whole with json-c; the device trace is then
 * walked one entry per call. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloctrace_impl.h"
#include "tlbsim/vas.h"

typedef struct snap {
  json_object *root;
  json_object *trace; /* the device's list of entries */
  int device;
  size_t pos, len;
  uint64_t t0;
  bool have_t0;
} snap;

static void snap_close(alloctrace *t) {
  snap *s = t->impl;
  if (!s) return;
  json_object_put(s->root);
  free(s);
}

/* "FILE: device_traces[D][I]: ..." */
static int entry_error(alloctrace *t, const snap *s, diag *d, const char *what, const char *key) {
  return diag_set(d, t->path, 0, "device_traces[%d][%zu]: %s '%s'", s->device, s->pos, what, key);
}

/* The largest integer member read. json-c clamps an integer beyond 64 bits
 * to INT64_MIN or UINT64_MAX and keeps no text of it, so both ends are
 * refused: a clamped number is never taken for the one in the file. */
#define SNAP_U64_MAX (UINT64_MAX - 1)

/* An unsigned integer member; *present false when absent and optional. */
static int get_u64(alloctrace *t, const snap *s, json_object *e, const char *key, bool optional, uint64_t *out,
                   bool *present, diag *d) {
  json_object *v;
  *present = json_object_object_get_ex(e, key, &v) && !json_object_is_type(v, json_type_null);
  if (!*present) return optional ? 0 : entry_error(t, s, d, "missing", key);
  if (!json_object_is_type(v, json_type_int)) return entry_error(t, s, d, "non-integer", key);
  int64_t as_signed = json_object_get_int64(v);
  uint64_t as_unsigned = json_object_get_uint64(v);
  if (as_signed < 0 || as_unsigned > SNAP_U64_MAX) {
    char range[64];
    return diag_set(d, t->path, 0, "device_traces[%d][%zu]: %s: '%s%s' is out of range (%s)", s->device, s->pos, key,
                    json_object_to_json_string(v),
                    as_signed == INT64_MIN ? " or less" : as_signed < 0 ? "" : " or more",
                    num_range_text(NUM_WHOLE, 0, SNAP_U64_MAX, range, sizeof range));
  }
  *out = as_unsigned;
  return 0;
}

static int snap_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  snap *s = t->impl;
  for (; s->pos < s->len; s->pos++) {
    json_object *e = json_object_array_get_idx(s->trace, s->pos), *act;
    if (!json_object_is_type(e, json_type_object))
      return diag_set(d, t->path, 0, "device_traces[%d][%zu]: not an object", s->device, s->pos);
    if (!json_object_object_get_ex(e, "action", &act) || !json_object_is_type(act, json_type_string))
      return entry_error(t, s, d, "missing", "action");
    const char *a = json_object_get_string(act);
    if (strlen(a) != (size_t)json_object_get_string_len(act)) /* "alloc\u0000x" is not "alloc" */
      return diag_set(d, t->path, 0, "device_traces[%d][%zu]: action: a NUL character inside the string", s->device,
                      s->pos);
    bool alloc = !strcmp(a, "alloc"), freed = !strcmp(a, "free_completed");
    bool seg_up = !strcmp(a, "segment_alloc") || !strcmp(a, "segment_map");
    bool seg_down = !strcmp(a, "segment_free") || !strcmp(a, "segment_unmap");
    bool oom = !strcmp(a, "oom");
    if (!alloc && !freed && !seg_up && !seg_down && !oom) {
      if (strcmp(a, "free_requested")) t->info.skipped++; /* snapshot, user_defined, ... */
      continue;
    }
    uint64_t addr = 0, size = 0, stream = 0, time = 0;
    bool has;
    if ((!oom && get_u64(t, s, e, "addr", false, &addr, &has, d)) || get_u64(t, s, e, "size", freed, &size, &has, d) ||
        get_u64(t, s, e, "stream", true, &stream, &has, d) || get_u64(t, s, e, "time_us", true, &time, &has, d))
      return -1;
    if (has && !s->have_t0) {
      s->t0 = time;
      s->have_t0 = true;
    }
    *ev = (alloctrace_event){.size = size, .index = s->pos, .time_us = has && time >= s->t0 ? time - s->t0 : s->pos};
    if (at_stream(t, stream, &ev->stream)) return entry_error(t, s, d, "too many distinct values of", "stream");
    if (alloc) {
      ev->kind = AT_ALLOC;
      diag why;
      if (at_name_alloc(t, addr, &ev->id, &why))
        return diag_set(d, t->path, 0, "device_traces[%d][%zu]: %s", s->device, s->pos, why.msg);
    } else if (freed) {
      ev->kind = AT_FREE;
      if (!at_name_free(t, addr, &ev->id)) continue; /* allocated before recording began */
    } else if (oom) {
      ev->kind = AT_OOM;
      t->info.recorded_ooms++;
    } else {
      ev->kind = AT_SEGMENT;
      ev->release = seg_down;
      at_segment(t, size, seg_down);
    }
    s->pos++;
    return 1;
  }
  return 0;
}

static const at_source snapshot_source = {snap_next, snap_close};

/* The line of a byte offset, for syntax errors. */
static unsigned long line_of(const char *text, size_t off) {
  unsigned long line = 1;
  for (size_t i = 0; i < off; i++) line += text[i] == '\n';
  return line;
}

/* Settings the caching model does not implement, named so that a replay
 * of a snapshot that used them says so. */
static void note_unmodelled(alloctrace *t, json_object *set) {
  json_object *v;
  char *out = t->info.unmodelled;
  size_t cap = sizeof t->info.unmodelled;
  if (json_object_object_get_ex(set, "garbage_collection_threshold", &v) && json_object_get_double(v) > 0)
    snprintf(out, cap, "garbage_collection_threshold");
  if (json_object_object_get_ex(set, "roundup_power2_divisions", &v) && json_object_is_type(v, json_type_object)) {
    bool used = false;
    json_object_object_foreach(v, k, div) {
      (void)k;
      used |= json_object_get_int64(div) > 0;
    }
    if (used) snprintf(out + strlen(out), cap - strlen(out), "%sroundup_power2_divisions", *out ? "," : "");
  }
}

static int read_settings(alloctrace *t, json_object *root, diag *d) {
  json_object *set, *v;
  if (json_object_object_get_ex(root, "allocator_settings", &set) && json_object_is_type(set, json_type_object)) {
    t->info.has_settings = true;
    if (json_object_object_get_ex(set, "expandable_segments", &v))
      t->info.expandable_segments = json_object_get_boolean(v);
    if (json_object_object_get_ex(set, "max_split_size", &v) && json_object_is_type(v, json_type_int) &&
        json_object_get_int64(v) > 0)
      t->info.max_split_size = (uint64_t)json_object_get_int64(v);
    note_unmodelled(t, set);
  }
  /* traces/torch/capture.py records the device it ran on: a size the
   * replay's capacity defaults to, so one that is not a size is an error. */
  if (json_object_object_get_ex(root, "capture", &set) && json_object_is_type(set, json_type_object) &&
      json_object_object_get_ex(set, "device_total_memory", &v) && !json_object_is_type(v, json_type_null)) {
    int64_t bytes = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
    if (bytes <= 0 || (uint64_t)bytes > VAS_MAX_CAPACITY) {
      char range[64];
      return diag_set(d, t->path, 0, "capture.device_total_memory: %s is not a size of device memory (%s bytes)",
                      json_object_to_json_string(v), num_range_text(NUM_WHOLE, 1, VAS_MAX_CAPACITY, range, sizeof range));
    }
    t->info.device_total = (uint64_t)bytes;
  }
  return 0;
}

int at_open_snapshot(alloctrace *t, const char *text, size_t len, int device, diag *d) {
  json_tokener *tok = json_tokener_new();
  if (!tok) return diag_set(d, NULL, 0, "out of host memory");
  json_object *root = json_tokener_parse_ex(tok, text, (int)len);
  enum json_tokener_error err = json_tokener_get_error(tok);
  size_t end = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  if (!root || err != json_tokener_success) {
    json_object_put(root);
    bool truncated = err == json_tokener_success || err == json_tokener_continue;
    return diag_set(d, t->path, line_of(text, end), "invalid JSON: %s",
                    truncated ? "unexpected end of input" : json_tokener_error_desc(err));
  }
  while (end < len && strchr(" \t\r\n", text[end])) end++;
  json_object *traces;
  int rc = -1;
  if (end < len) {
    diag_set(d, t->path, line_of(text, end), "invalid JSON: text after the document");
  } else if (!json_object_is_type(root, json_type_object)) {
    diag_set(d, t->path, 0, "not a memory snapshot: the top level is not an object");
  } else if (!json_object_object_get_ex(root, "device_traces", &traces) ||
             !json_object_is_type(traces, json_type_array)) {
    diag_set(d, t->path, 0, "not a memory snapshot with history: no 'device_traces' list (record it with "
                            "torch.cuda.memory._record_memory_history())");
  } else {
    int n = (int)json_object_array_length(traces), pick = device;
    for (int i = 0; i < n && device < 0; i++) {
      json_object *tr = json_object_array_get_idx(traces, (size_t)i);
      if (!json_object_is_type(tr, json_type_array))
        return json_object_put(root), diag_set(d, t->path, 0, "device_traces[%d]: not a list", i);
      if (json_object_array_length(tr) == 0) continue;
      if (pick >= 0)
        return json_object_put(root),
               diag_set(d, t->path, 0, "device_traces has events for devices %d and %d: choose one with --device", pick, i);
      pick = i;
    }
    if (pick < 0 && device < 0) pick = 0; /* nothing anywhere: an empty trace */
    if (pick >= n) {
      diag_set(d, t->path, 0, "device_traces[%d]: no such device (the snapshot has %d)", pick, n);
    } else if (!json_object_is_type(json_object_array_get_idx(traces, (size_t)pick), json_type_array)) {
      diag_set(d, t->path, 0, "device_traces[%d]: not a list", pick);
    } else {
      snap *s = calloc(1, sizeof *s);
      if (!s) {
        diag_set(d, NULL, 0, "out of host memory");
      } else {
        s->root = root;
        s->device = pick;
        s->trace = json_object_array_get_idx(traces, (size_t)pick);
        s->len = json_object_array_length(s->trace);
        t->impl = s;
        t->src = &snapshot_source;
        return read_settings(t, root, d); /* on error the caller's close frees s and root */
      }
    }
  }
  json_object_put(root);
  return rc;
}
