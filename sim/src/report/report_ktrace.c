/* One row per kernel of a kernel trace, built as a flat JSON object and
 * written as CSV, JSON or text as each kernel ends (tlbsim/report_ktrace.h). */
#include "tlbsim/report_ktrace.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

static void add_u64(json_object *o, const char *k, uint64_t v) { json_object_object_add(o, k, json_object_new_uint64(v)); }

static void add_dim(json_object *o, const char *k, const uint32_t d[3]) {
  char buf[48];
  snprintf(buf, sizeof buf, "%ux%ux%u", d[0], d[1], d[2]);
  json_object_object_add(o, k, json_object_new_string(buf));
}

/* Classes an instruction executes as: generic ones are resolved. */
static bool executed_class(unsigned c) {
  return c != KTRACE_NONE && c != KTRACE_GENERIC_LOAD && c != KTRACE_GENERIC_STORE;
}

json_object *report_ktrace_row(const ktrace_kernel *k, const ktrace_counts *c) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "kernel", json_object_new_string(k->name));
  add_u64(o, "kernel_id", k->id);
  add_dim(o, "grid", k->grid);
  add_dim(o, "block", k->block);
  add_u64(o, "warp_instructions", c->warp_instructions);
  add_u64(o, "memory_instructions", c->memory_instructions);
  add_u64(o, "thread_blocks", c->thread_blocks);
  add_u64(o, "warps", c->warps);
  uint64_t bytes = 0;
  for (unsigned i = 0; i < KTRACE_NCLASSES; i++) {
    if (!executed_class(i)) continue;
    char key[64];
    snprintf(key, sizeof key, "%s_instructions", ktrace_class_names[i]);
    add_u64(o, key, c->insts[i]);
    snprintf(key, sizeof key, "%s_bytes", ktrace_class_names[i]);
    add_u64(o, key, c->bytes[i]);
    bytes += c->bytes[i];
  }
  add_u64(o, "bytes", bytes);
  add_u64(o, "lines_128b", c->lines);
  add_u64(o, "pages_2m", c->pages);
  json_object_object_add(o, "trace", json_object_new_string(k->file));
  return o;
}

void report_ktrace_begin(report_ktrace *r, FILE *out, report_format f) {
  *r = (report_ktrace){.out = out, .f = f};
}

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && !strcmp(s + n - t, tail);
}

/* Key and value a line; a class no instruction executed as is left out. */
static void write_text(FILE *out, json_object *row) {
  json_object_object_foreach(row, key, val) {
    bool class_key = (ends_with(key, "_instructions") || ends_with(key, "_bytes")) &&
                     strcmp(key, "warp_instructions") && strcmp(key, "memory_instructions");
    if (class_key && json_object_is_type(val, json_type_int) && json_object_get_uint64(val) == 0) continue;
    fprintf(out, "%-28s %s\n", key, json_object_is_type(val, json_type_string) ? json_object_get_string(val)
                                                                                  : json_object_to_json_string(val));
  }
}

void report_ktrace_add(report_ktrace *r, json_object *row) {
  switch (r->f) {
  case REPORT_CSV: report_write_csv_row(r->out, row, r->rows == 0); break;
  case REPORT_JSON:
    fprintf(r->out, "%s%s", r->rows ? ",\n" : "[\n",
            json_object_to_json_string_ext(row, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    break;
  case REPORT_TEXT:
    if (r->rows) fputc('\n', r->out);
    write_text(r->out, row);
    break;
  }
  r->rows++;
  json_object_put(row);
}

void report_ktrace_end(report_ktrace *r) {
  if (r->f == REPORT_JSON) fputs(r->rows ? "\n]\n" : "[]\n", r->out);
}
