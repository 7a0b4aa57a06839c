/* tlbsim/rows.h — the declared schema of the rows tlbsim-gpu measures and
 * tlbsim reads back (validate, calibrate): one list of columns per kind of
 * row, in the order the files have them, so the GPU suite's writers and the
 * simulator's readers name every column from the same declaration.
 *
 * rows_kind     chase (also share, dram-chase, l2-chase), gather, chasers,
 *               bufset (smallbufs, churn-gather), layout, blocks, embed,
 *               stream, uvm.
 * ROWS_*_...    one enumerator per column of a kind: its position.
 * rows_line     one row being built: a field per column, set by number and
 *               written through csv.h (empty where never set).
 * region_mapping how a measured region was mapped (the chase and gather
 *               `mapping` column): one list for the GPU suite, which maps
 *               memory so, and the simulator's region.h, which maps a page
 *               table so (its name is the simulator's; it lives here, with
 *               the column it fills).
 *
 * Readers look columns up by name (csv_table_open), so a file may carry more
 * columns than a reader wants, and older files fewer; a writer always writes
 * every column of its kind.
 */
#ifndef TLBSIM_ROWS_H
#define TLBSIM_ROWS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" { /* tlbsim/base.h has no C++ guard of its own */
#endif

#include "tlbsim/base.h"

/* The SM numbers a row may name (sm, sms_used, sm_set): 0 .. GPU_MAX_SMS-1. */
#define GPU_MAX_SMS 256

typedef enum region_mapping {
  REGION_CONTIGUOUS,  /* VMM chunks mapped in creation order */
  REGION_SHUFFLED,    /* the same chunks in a seeded order */
  REGION_CUDAMALLOC,  /* one cudaMalloc */
  REGION_ALIASED,     /* few physical chunks at many VAs */
  REGION_MANAGED,     /* cudaMallocManaged */
  REGION_MAPPING_COUNT
} region_mapping;

/* Names by region_mapping, NULL-terminated. */
extern const char *const region_mapping_names[];
int region_mapping_parse(const char *s, region_mapping *out);

typedef enum rows_kind {
  ROWS_CHASE, ROWS_GATHER, ROWS_CHASERS, ROWS_BUFSET, ROWS_LAYOUT, ROWS_BLOCKS, ROWS_EMBED, ROWS_STREAM, ROWS_UVM,
  ROWS_KIND_COUNT
} rows_kind;

enum {
  ROWS_CHASE_PATTERN, ROWS_CHASE_ORDER, ROWS_CHASE_MAPPING, ROWS_CHASE_PAGE, ROWS_CHASE_STRIDE,
  ROWS_CHASE_FOOTPRINT, ROWS_CHASE_STEPS, ROWS_CHASE_CYCLES, ROWS_CHASE_NS, ROWS_CHASE_LOAD, ROWS_CHASE_KHZ,
  ROWS_CHASE_DEVICE, ROWS_CHASE_REPEATS, ROWS_CHASE_SPREAD, ROWS_CHASE_SEED, ROWS_CHASE_NODES, ROWS_CHASE_WARMUP,
  ROWS_CHASE_LANES, ROWS_CHASE_SM, ROWS_CHASE_CHUNK, ROWS_CHASE_SKEW, ROWS_CHASE_VA_BASE, ROWS_CHASE_CYCLES_MIN,
  ROWS_CHASE_CYCLES_MAX, ROWS_CHASE_BASE, ROWS_CHASE_BASE_MIN, ROWS_CHASE_BASE_MAX, ROWS_CHASE_BASE_SAMPLES,
  ROWS_CHASE_DISRUPTOR_SM, ROWS_CHASE_DISRUPTOR_FOOTPRINT, ROWS_CHASE_DISRUPTOR_STRIDE, ROWS_CHASE_POPULATION,
  ROWS_CHASE_REGION, ROWS_CHASE_COLUMNS
};

enum {
  ROWS_GATHER_PATTERN, ROWS_GATHER_FOOTPRINT, ROWS_GATHER_STRIDE, ROWS_GATHER_NODES, ROWS_GATHER_THREADS,
  ROWS_GATHER_LOADS, ROWS_GATHER_MAPPING, ROWS_GATHER_LOADS_PER_NS, ROWS_GATHER_PAGE, ROWS_GATHER_SMS_USED,
  ROWS_GATHER_TPS, ROWS_GATHER_BLOCK_THREADS, ROWS_GATHER_BLOCKS, ROWS_GATHER_KERNEL_CYCLES,
  ROWS_GATHER_NS_PER_LAUNCH, ROWS_GATHER_LAUNCHES, ROWS_GATHER_REPEATS, ROWS_GATHER_KHZ, ROWS_GATHER_DEVICE,
  ROWS_GATHER_SEED, ROWS_GATHER_VA_BASE, ROWS_GATHER_CHUNK, ROWS_GATHER_SKEW, ROWS_GATHER_SM_SET,
  ROWS_GATHER_MAX_BLOCKS_PER_SM, ROWS_GATHER_LPNS_MIN, ROWS_GATHER_LPNS_MAX, ROWS_GATHER_SPAN_NS,
  ROWS_GATHER_LPNS_SPAN, ROWS_GATHER_BLOCK_CYCLES, ROWS_GATHER_HASH, ROWS_GATHER_BATCH, ROWS_GATHER_LOAD,
  ROWS_GATHER_COLUMNS
};

enum {
  ROWS_CHASERS_PATTERN, ROWS_CHASERS_ORDER, ROWS_CHASERS_MAPPING, ROWS_CHASERS_PAGE, ROWS_CHASERS_STRIDE,
  ROWS_CHASERS_FOOTPRINT, ROWS_CHASERS_STEPS, ROWS_CHASERS_CYCLES, ROWS_CHASERS_NS, ROWS_CHASERS_LOAD,
  ROWS_CHASERS_KHZ, ROWS_CHASERS_DEVICE, ROWS_CHASERS_REPEATS, ROWS_CHASERS_SPREAD, ROWS_CHASERS_SEED,
  ROWS_CHASERS_NODES, ROWS_CHASERS_WARMUP, ROWS_CHASERS_CHASERS, ROWS_CHASERS_PER_SM, ROWS_CHASERS_SMS_USED,
  ROWS_CHASERS_SM_SET, ROWS_CHASERS_CYCLES_MIN, ROWS_CHASERS_CYCLES_MAX, ROWS_CHASERS_CYCLES_MEAN,
  ROWS_CHASERS_CYCLES_FIRST, ROWS_CHASERS_LOADS_PER_NS, ROWS_CHASERS_VA_BASE, ROWS_CHASERS_COLUMNS
};

enum {
  ROWS_BUFSET_PATTERN, ROWS_BUFSET_CASE, ROWS_BUFSET_SOURCE, ROWS_BUFSET_BUFFERS, ROWS_BUFSET_SIZE,
  ROWS_BUFSET_LIVE, ROWS_BUFSET_VA_SPAN, ROWS_BUFSET_REGIONS_2M, ROWS_BUFSET_REGIONS_32M,
  ROWS_BUFSET_LINE_REGIONS_2M, ROWS_BUFSET_LINE_REGIONS_32M, ROWS_BUFSET_VA_FIRST, ROWS_BUFSET_CHASE_CYCLES,
  ROWS_BUFSET_CHASE_NS, ROWS_BUFSET_CHASE_SPREAD, ROWS_BUFSET_CHASE_STEPS, ROWS_BUFSET_CHASE_REPEATS,
  ROWS_BUFSET_CHASE_WARMUP, ROWS_BUFSET_CHASE_SM, ROWS_BUFSET_KHZ, ROWS_BUFSET_THREADS, ROWS_BUFSET_TPS,
  ROWS_BUFSET_LOADS, ROWS_BUFSET_LPNS, ROWS_BUFSET_LPNS_MIN, ROWS_BUFSET_LPNS_MAX, ROWS_BUFSET_NS_PER_LAUNCH,
  ROWS_BUFSET_LAUNCHES, ROWS_BUFSET_SEED, ROWS_BUFSET_HASH, ROWS_BUFSET_POOL_ALIGN, ROWS_BUFSET_DEVICE,
  ROWS_BUFSET_COLUMNS
};

enum {
  ROWS_LAYOUT_SOURCE, ROWS_LAYOUT_CASE, ROWS_LAYOUT_INDEX, ROWS_LAYOUT_ID, ROWS_LAYOUT_SIZE, ROWS_LAYOUT_OFFSET,
  ROWS_LAYOUT_COLUMNS
};

enum {
  ROWS_BLOCKS_PATTERN, ROWS_BLOCKS_GRID, ROWS_BLOCKS_BLOCK_THREADS, ROWS_BLOCKS_REPEAT, ROWS_BLOCKS_SPIN,
  ROWS_BLOCKS_BLOCK, ROWS_BLOCKS_SM, ROWS_BLOCKS_START, ROWS_BLOCKS_END, ROWS_BLOCKS_SMS, ROWS_BLOCKS_DEVICE,
  ROWS_BLOCKS_COLUMNS
};

/* The embed row opens with the columns every kernel row has (measured here,
 * predicted by `tlbsim kernel`): kernel, grid, block, warp_instructions,
 * memory_instructions, ns. */
enum {
  ROWS_EMBED_PATTERN, ROWS_EMBED_KERNEL, ROWS_EMBED_GRID, ROWS_EMBED_BLOCK, ROWS_EMBED_WARP_INSTRUCTIONS,
  ROWS_EMBED_MEMORY_INSTRUCTIONS, ROWS_EMBED_NS, ROWS_EMBED_LPNS, ROWS_EMBED_LPNS_MIN, ROWS_EMBED_LPNS_MAX,
  ROWS_EMBED_FIRST_NS, ROWS_EMBED_TABLE, ROWS_EMBED_ROW_BYTES, ROWS_EMBED_IDS_PER_BAG, ROWS_EMBED_BAGS,
  ROWS_EMBED_LOOKUPS, ROWS_EMBED_ALPHA, ROWS_EMBED_SEED, ROWS_EMBED_ROWS, ROWS_EMBED_DISTINCT, ROWS_EMBED_GBPS,
  ROWS_EMBED_REGS, ROWS_EMBED_PAGE, ROWS_EMBED_LOAD, ROWS_EMBED_TABLE_VA, ROWS_EMBED_IDS_VA, ROWS_EMBED_OUT_VA,
  ROWS_EMBED_TABLE_ALLOC, ROWS_EMBED_REPEATS, ROWS_EMBED_DEVICE, ROWS_EMBED_COLUMNS
};

enum {
  ROWS_STREAM_PATTERN, ROWS_STREAM_KIND, ROWS_STREAM_SIZE, ROWS_STREAM_FOOTPRINT, ROWS_STREAM_BYTES_PER_LAUNCH,
  ROWS_STREAM_PASSES, ROWS_STREAM_GBPS, ROWS_STREAM_GBPS_MIN, ROWS_STREAM_GBPS_MAX, ROWS_STREAM_NS_PER_LAUNCH,
  ROWS_STREAM_REPEATS, ROWS_STREAM_BLOCKS, ROWS_STREAM_BLOCK_THREADS, ROWS_STREAM_LOAD, ROWS_STREAM_VA_BASE,
  ROWS_STREAM_DEVICE, ROWS_STREAM_COLUMNS
};

/* Exactly issue #24's columns, measured by tlbsim-gpu uvm, predicted by tlbsim uvm. */
enum {
  ROWS_UVM_INIT, ROWS_UVM_FIRST, ROWS_UVM_SIZE, ROWS_UVM_PREFETCH_MS, ROWS_UVM_COLD_MS, ROWS_UVM_STREAM_MS,
  ROWS_UVM_STREAM_GBPS, ROWS_UVM_GATHER_LPNS, ROWS_UVM_GATHER2_LPNS, ROWS_UVM_COLUMNS
};

#define ROWS_MAX_COLUMNS 40

/* The column names of kind k in order; *n gets their count. */
const char *const *rows_columns(rows_kind k, size_t *n);
/* Column c of kind k, or "?" past the end. */
const char *rows_column(rows_kind k, int c);
/* The header line of kind k. -1 with "csv: write failed" when f fails. */
int rows_header(FILE *f, rows_kind k, diag *d);

/* One row: a field per column, ROWS_FIELD_MAX bytes each (strings longer
 * than that are kept by pointer: rows_text). */
#define ROWS_FIELD_MAX 32
typedef struct rows_line {
  rows_kind kind;
  char num[ROWS_MAX_COLUMNS][ROWS_FIELD_MAX];
  const char *text[ROWS_MAX_COLUMNS];   /* set by rows_text, else NULL */
} rows_line;

void rows_begin(rows_line *l, rows_kind k);
void rows_u64(rows_line *l, int c, uint64_t v);
void rows_i64(rows_line *l, int c, int64_t v);
void rows_hex(rows_line *l, int c, uint64_t v);            /* 0x... */
void rows_real(rows_line *l, int c, const char *fmt, double v); /* fmt: one printf conversion of a double */
void rows_text(rows_line *l, int c, const char *s);        /* s must outlive rows_write */
/* Writes every column in order (unset ones empty), each through
 * csv_write_field; flush: fflush after the row. -1 with "csv: write failed". */
int rows_write(FILE *f, const rows_line *l, bool flush, diag *d);

#ifdef __cplusplus
}
#endif
#endif
