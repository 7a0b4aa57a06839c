/* The declared schema of measured rows (tlbsim/rows.h). */
#include "tlbsim/rows.h"

#include <inttypes.h>
#include <string.h>

#include "tlbsim/csv.h"

const char *const region_mapping_names[] = {[REGION_CONTIGUOUS] = "contiguous", [REGION_SHUFFLED] = "shuffled",
                                            [REGION_CUDAMALLOC] = "cudamalloc", [REGION_ALIASED] = "aliased",
                                            [REGION_MANAGED] = "managed",       NULL};

int region_mapping_parse(const char *s, region_mapping *out) {
  for (int i = 0; region_mapping_names[i]; i++)
    if (!strcmp(s, region_mapping_names[i])) return *out = (region_mapping)i, 0;
  return -1;
}

static const char *const chase[ROWS_CHASE_COLUMNS] = {
    "pattern", "order", "mapping", "page_bytes", "stride_bytes", "footprint_bytes", "steps", "cycles_per_access",
    "ns_per_access", "load", "sm_clock_khz", "device", "repeats", "spread", "seed", "nodes", "warmup", "lanes", "sm",
    "chunk_bytes", "skew_bytes", "va_base", "cycles_min", "cycles_max", "base_cycles", "base_min", "base_max",
    "base_samples", "disruptor_sm", "disruptor_footprint_bytes", "disruptor_stride_bytes", "population", "region"};

static const char *const gather[ROWS_GATHER_COLUMNS] = {
    "pattern", "footprint_bytes", "stride_bytes", "nodes", "threads", "loads_per_thread", "mapping", "loads_per_ns",
    "page_bytes", "sms_used", "threads_per_sm", "block_threads", "blocks", "kernel_cycles", "ns_per_launch",
    "launches", "repeats", "sm_clock_khz", "device", "seed", "va_base", "chunk_bytes", "skew_bytes", "sm_set",
    "max_blocks_per_sm", "loads_per_ns_min", "loads_per_ns_max", "span_ns", "loads_per_ns_span", "block_cycles",
    "hash", "batch", "load"};

static const char *const chasers[ROWS_CHASERS_COLUMNS] = {
    "pattern", "order", "mapping", "page_bytes", "stride_bytes", "footprint_bytes", "steps", "cycles_per_access",
    "ns_per_access", "load", "sm_clock_khz", "device", "repeats", "spread", "seed", "nodes", "warmup", "chasers",
    "per_sm", "sms_used", "sm_set", "cycles_min", "cycles_max", "cycles_mean", "cycles_first", "loads_per_ns",
    "va_base"};

static const char *const bufset[ROWS_BUFSET_COLUMNS] = {
    "pattern", "case", "source", "buffers", "size_bytes", "live_bytes", "va_span_bytes", "regions_2m",
    "regions_32m", "line_regions_2m", "line_regions_32m", "va_first", "chase_cycles", "chase_ns", "chase_spread",
    "chase_steps", "chase_repeats", "chase_warmup", "chase_sm", "sm_clock_khz", "threads", "threads_per_sm",
    "loads_per_thread", "loads_per_ns", "loads_per_ns_min", "loads_per_ns_max", "ns_per_launch", "launches", "seed",
    "hash", "pool_align", "device"};

static const char *const layout[ROWS_LAYOUT_COLUMNS] = {"source", "case", "index", "id", "size_bytes", "offset_bytes"};

static const char *const blocks[ROWS_BLOCKS_COLUMNS] = {"pattern", "grid",   "block_threads", "repeat",
                                                        "spin_ns", "block",  "sm",            "start_ns",
                                                        "end_ns",  "sms",    "device"};

static const char *const embed[ROWS_EMBED_COLUMNS] = {
    "pattern", "kernel", "grid", "block", "warp_instructions", "memory_instructions", "ns", "lookups_per_ns",
    "lookups_per_ns_min", "lookups_per_ns_max", "first_ns", "table_bytes", "row_bytes", "ids_per_bag", "bags",
    "lookups", "alpha", "seed", "rows", "distinct_rows", "gbps", "regs", "page_bytes", "load", "table_va", "ids_va",
    "out_va", "table_alloc_bytes", "repeats", "device"};

static const char *const stream[ROWS_STREAM_COLUMNS] = {
    "pattern", "kind", "size_bytes", "footprint_bytes", "bytes_per_launch", "passes", "gbps", "gbps_min",
    "gbps_max", "ns_per_launch", "repeats", "blocks", "block_threads", "load", "va_base", "device"};

static const char *const uvm[ROWS_UVM_COLUMNS] = {"init",        "first",       "size",        "prefetch_ms",
                                                  "cold_ms",     "stream_ms",   "stream_gbps", "gather_lpns",
                                                  "gather2_lpns"};

static const struct {
  const char *const *names;
  size_t n;
} kinds[ROWS_KIND_COUNT] = {
    [ROWS_CHASE] = {chase, ROWS_CHASE_COLUMNS},       [ROWS_GATHER] = {gather, ROWS_GATHER_COLUMNS},
    [ROWS_CHASERS] = {chasers, ROWS_CHASERS_COLUMNS}, [ROWS_BUFSET] = {bufset, ROWS_BUFSET_COLUMNS},
    [ROWS_LAYOUT] = {layout, ROWS_LAYOUT_COLUMNS},    [ROWS_BLOCKS] = {blocks, ROWS_BLOCKS_COLUMNS},
    [ROWS_EMBED] = {embed, ROWS_EMBED_COLUMNS},       [ROWS_STREAM] = {stream, ROWS_STREAM_COLUMNS},
    [ROWS_UVM] = {uvm, ROWS_UVM_COLUMNS},
};

const char *const *rows_columns(rows_kind k, size_t *n) {
  *n = kinds[k].n;
  return kinds[k].names;
}

const char *rows_column(rows_kind k, int c) { return c >= 0 && (size_t)c < kinds[k].n ? kinds[k].names[c] : "?"; }

static int failed(diag *d) { return diag_set(d, NULL, 0, "csv: write failed"); }

int rows_header(FILE *f, rows_kind k, diag *d) {
  for (size_t i = 0; i < kinds[k].n; i++) {
    if (i && fputc(',', f) == EOF) return failed(d);
    csv_write_field(f, kinds[k].names[i]);
  }
  return fputc('\n', f) == EOF || ferror(f) ? failed(d) : 0;
}

void rows_begin(rows_line *l, rows_kind k) {
  l->kind = k;
  for (int c = 0; c < ROWS_MAX_COLUMNS; c++) l->num[c][0] = '\0', l->text[c] = NULL;
}

void rows_u64(rows_line *l, int c, uint64_t v) { snprintf(l->num[c], ROWS_FIELD_MAX, "%" PRIu64, v); }
void rows_i64(rows_line *l, int c, int64_t v) { snprintf(l->num[c], ROWS_FIELD_MAX, "%" PRId64, v); }
void rows_hex(rows_line *l, int c, uint64_t v) { snprintf(l->num[c], ROWS_FIELD_MAX, "0x%" PRIx64, v); }

void rows_real(rows_line *l, int c, const char *fmt, double v) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  snprintf(l->num[c], ROWS_FIELD_MAX, fmt, v);
#pragma GCC diagnostic pop
}

void rows_text(rows_line *l, int c, const char *s) { l->text[c] = s; }

int rows_write(FILE *f, const rows_line *l, bool flush, diag *d) {
  for (size_t c = 0; c < kinds[l->kind].n; c++) {
    if (c && fputc(',', f) == EOF) return failed(d);
    csv_write_field(f, l->text[c] ? l->text[c] : l->num[c]);
  }
  if (fputc('\n', f) == EOF || (flush && fflush(f)) || ferror(f)) return failed(d);
  return 0;
}
