#include "gpu_csv.h"

#include "tlbsim/gpu_gather.h"
#include "tlbsim/rows.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

gpu_summary gpu_summarize(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  gpu_summary s = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
  return s;
}

int gpu_csv_chase_header(FILE *f, diag *d) { return rows_header(f, ROWS_CHASE, d); }

int gpu_csv_chase_row(FILE *f, const gpu_chase_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_CHASE);
  rows_text(&l, ROWS_CHASE_PATTERN, r->pattern);
  rows_text(&l, ROWS_CHASE_ORDER, gpu_order_name(r->order));
  rows_text(&l, ROWS_CHASE_MAPPING, region_mapping_names[r->mapping]);
  rows_u64(&l, ROWS_CHASE_PAGE, r->page_bytes);
  rows_u64(&l, ROWS_CHASE_STRIDE, r->stride_bytes);
  rows_u64(&l, ROWS_CHASE_FOOTPRINT, r->footprint_bytes);
  rows_u64(&l, ROWS_CHASE_STEPS, r->steps);
  rows_real(&l, ROWS_CHASE_CYCLES, "%.3f", r->cycles.median);
  rows_real(&l, ROWS_CHASE_NS, "%.3f", r->ns.median);
  rows_text(&l, ROWS_CHASE_LOAD, r->load_ca ? "ca" : "cg");
  rows_real(&l, ROWS_CHASE_KHZ, "%.0f", r->sm_clock_khz);
  rows_text(&l, ROWS_CHASE_DEVICE, r->device);
  rows_u64(&l, ROWS_CHASE_REPEATS, r->repeats);
  rows_real(&l, ROWS_CHASE_SPREAD, "%.3f", r->cycles.max - r->cycles.min);
  rows_u64(&l, ROWS_CHASE_SEED, r->seed);
  rows_u64(&l, ROWS_CHASE_NODES, r->nodes);
  rows_u64(&l, ROWS_CHASE_WARMUP, r->warmup);
  rows_u64(&l, ROWS_CHASE_LANES, r->lanes);
  rows_i64(&l, ROWS_CHASE_SM, r->sm);
  rows_u64(&l, ROWS_CHASE_CHUNK, r->chunk_bytes);
  rows_u64(&l, ROWS_CHASE_SKEW, r->skew_bytes);
  rows_hex(&l, ROWS_CHASE_VA_BASE, r->va_base);
  rows_real(&l, ROWS_CHASE_CYCLES_MIN, "%.3f", r->cycles.min);
  rows_real(&l, ROWS_CHASE_CYCLES_MAX, "%.3f", r->cycles.max);
  if (r->base_samples) {
    rows_real(&l, ROWS_CHASE_BASE, "%.3f", r->base_mean);
    rows_real(&l, ROWS_CHASE_BASE_MIN, "%.3f", r->base.min);
    rows_real(&l, ROWS_CHASE_BASE_MAX, "%.3f", r->base.max);
    rows_u64(&l, ROWS_CHASE_BASE_SAMPLES, r->base_samples);
  }
  if (!strcmp(r->pattern, "share")) {
    rows_i64(&l, ROWS_CHASE_DISRUPTOR_SM, r->disruptor_sm);
    rows_u64(&l, ROWS_CHASE_DISRUPTOR_FOOTPRINT, r->disruptor_footprint);
    rows_u64(&l, ROWS_CHASE_DISRUPTOR_STRIDE, r->disruptor_stride);
  }
  rows_text(&l, ROWS_CHASE_POPULATION, r->population ? r->population : "");
  rows_u64(&l, ROWS_CHASE_REGION, r->region);
  return rows_write(f, &l, true, d);
}

int gpu_csv_gather_header(FILE *f, diag *d) { return rows_header(f, ROWS_GATHER, d); }

int gpu_csv_gather_row(FILE *f, const gpu_gather_row *r, diag *d) {
  double span_rate = r->span_ns > 0 ? (double)r->threads * r->loads_per_thread / r->span_ns : 0;
  rows_line l;
  rows_begin(&l, ROWS_GATHER);
  rows_text(&l, ROWS_GATHER_PATTERN, r->pattern);
  rows_u64(&l, ROWS_GATHER_FOOTPRINT, r->footprint_bytes);
  rows_u64(&l, ROWS_GATHER_STRIDE, r->stride_bytes);
  rows_u64(&l, ROWS_GATHER_NODES, r->nodes);
  rows_u64(&l, ROWS_GATHER_THREADS, r->threads);
  rows_u64(&l, ROWS_GATHER_LOADS, r->loads_per_thread);
  rows_text(&l, ROWS_GATHER_MAPPING, region_mapping_names[r->mapping]);
  rows_real(&l, ROWS_GATHER_LOADS_PER_NS, "%.4f", r->loads_per_ns.median);
  rows_u64(&l, ROWS_GATHER_PAGE, r->page_bytes);
  rows_u64(&l, ROWS_GATHER_SMS_USED, r->sms_used);
  rows_real(&l, ROWS_GATHER_TPS, "%g", r->threads_per_sm);
  rows_u64(&l, ROWS_GATHER_BLOCK_THREADS, r->block_threads);
  rows_u64(&l, ROWS_GATHER_BLOCKS, r->blocks);
  rows_real(&l, ROWS_GATHER_KERNEL_CYCLES, "%.0f", r->kernel_cycles);
  rows_real(&l, ROWS_GATHER_NS_PER_LAUNCH, "%.1f", r->ns_per_launch);
  rows_u64(&l, ROWS_GATHER_LAUNCHES, r->launches);
  rows_u64(&l, ROWS_GATHER_REPEATS, r->repeats);
  rows_real(&l, ROWS_GATHER_KHZ, "%.0f", r->sm_clock_khz);
  rows_text(&l, ROWS_GATHER_DEVICE, r->device);
  rows_u64(&l, ROWS_GATHER_SEED, r->seed);
  rows_hex(&l, ROWS_GATHER_VA_BASE, r->va_base);
  rows_u64(&l, ROWS_GATHER_CHUNK, r->chunk_bytes);
  rows_u64(&l, ROWS_GATHER_SKEW, r->skew_bytes);
  rows_text(&l, ROWS_GATHER_SM_SET, r->sm_set);
  rows_u64(&l, ROWS_GATHER_MAX_BLOCKS_PER_SM, r->max_blocks_per_sm);
  rows_real(&l, ROWS_GATHER_LPNS_MIN, "%.4f", r->loads_per_ns.min);
  rows_real(&l, ROWS_GATHER_LPNS_MAX, "%.4f", r->loads_per_ns.max);
  rows_real(&l, ROWS_GATHER_SPAN_NS, "%.0f", r->span_ns);
  rows_real(&l, ROWS_GATHER_LPNS_SPAN, "%.4f", span_rate);
  rows_real(&l, ROWS_GATHER_BLOCK_CYCLES, "%.0f", r->block_cycles);
  rows_text(&l, ROWS_GATHER_HASH, GPU_GATHER_HASH);
  rows_u64(&l, ROWS_GATHER_BATCH, GPU_GATHER_BATCH);
  rows_text(&l, ROWS_GATHER_LOAD, "cg");
  return rows_write(f, &l, true, d);
}

int gpu_csv_chasers_header(FILE *f, diag *d) { return rows_header(f, ROWS_CHASERS, d); }

int gpu_csv_chasers_row(FILE *f, const gpu_chasers_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_CHASERS);
  rows_text(&l, ROWS_CHASERS_PATTERN, "chasers");
  rows_text(&l, ROWS_CHASERS_ORDER, gpu_order_name(r->order));
  rows_text(&l, ROWS_CHASERS_MAPPING, region_mapping_names[r->mapping]);
  rows_u64(&l, ROWS_CHASERS_PAGE, r->page_bytes);
  rows_u64(&l, ROWS_CHASERS_STRIDE, r->stride_bytes);
  rows_u64(&l, ROWS_CHASERS_FOOTPRINT, r->footprint_bytes);
  rows_u64(&l, ROWS_CHASERS_STEPS, r->steps);
  rows_real(&l, ROWS_CHASERS_CYCLES, "%.3f", r->cycles.median);
  rows_real(&l, ROWS_CHASERS_NS, "%.3f", r->ns_per_access);
  rows_text(&l, ROWS_CHASERS_LOAD, "cg");
  rows_real(&l, ROWS_CHASERS_KHZ, "%.0f", r->sm_clock_khz);
  rows_text(&l, ROWS_CHASERS_DEVICE, r->device);
  rows_u64(&l, ROWS_CHASERS_REPEATS, r->repeats);
  rows_real(&l, ROWS_CHASERS_SPREAD, "%.3f", r->cycles.max - r->cycles.min);
  rows_u64(&l, ROWS_CHASERS_SEED, r->seed);
  rows_u64(&l, ROWS_CHASERS_NODES, r->nodes);
  rows_u64(&l, ROWS_CHASERS_WARMUP, r->warmup);
  rows_u64(&l, ROWS_CHASERS_CHASERS, r->chasers);
  rows_u64(&l, ROWS_CHASERS_PER_SM, r->per_sm);
  rows_u64(&l, ROWS_CHASERS_SMS_USED, r->sms_used);
  rows_text(&l, ROWS_CHASERS_SM_SET, r->sm_set);
  rows_real(&l, ROWS_CHASERS_CYCLES_MIN, "%.3f", r->cycles.min);
  rows_real(&l, ROWS_CHASERS_CYCLES_MAX, "%.3f", r->cycles.max);
  rows_real(&l, ROWS_CHASERS_CYCLES_MEAN, "%.3f", r->cycles_mean);
  rows_real(&l, ROWS_CHASERS_CYCLES_FIRST, "%.3f", r->cycles_first);
  rows_real(&l, ROWS_CHASERS_LOADS_PER_NS, "%.4f", r->loads_per_ns);
  rows_hex(&l, ROWS_CHASERS_VA_BASE, r->va_base);
  return rows_write(f, &l, true, d);
}

int gpu_csv_bufset_header(FILE *f, diag *d) { return rows_header(f, ROWS_BUFSET, d); }

int gpu_csv_bufset_row(FILE *f, const gpu_bufset_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_BUFSET);
  rows_text(&l, ROWS_BUFSET_PATTERN, r->pattern);
  rows_text(&l, ROWS_BUFSET_CASE, r->set);
  rows_text(&l, ROWS_BUFSET_SOURCE, r->source);
  rows_u64(&l, ROWS_BUFSET_BUFFERS, r->buffers);
  rows_u64(&l, ROWS_BUFSET_SIZE, r->size_bytes);
  rows_u64(&l, ROWS_BUFSET_LIVE, r->live_bytes);
  rows_u64(&l, ROWS_BUFSET_VA_SPAN, r->va_span);
  rows_u64(&l, ROWS_BUFSET_REGIONS_2M, r->regions_2m);
  rows_u64(&l, ROWS_BUFSET_REGIONS_32M, r->regions_32m);
  rows_u64(&l, ROWS_BUFSET_LINE_REGIONS_2M, r->line_regions_2m);
  rows_u64(&l, ROWS_BUFSET_LINE_REGIONS_32M, r->line_regions_32m);
  rows_hex(&l, ROWS_BUFSET_VA_FIRST, r->va_first);
  rows_real(&l, ROWS_BUFSET_CHASE_CYCLES, "%.3f", r->chase_cycles.median);
  rows_real(&l, ROWS_BUFSET_CHASE_NS, "%.3f", r->chase_ns);
  rows_real(&l, ROWS_BUFSET_CHASE_SPREAD, "%.3f", r->chase_cycles.max - r->chase_cycles.min);
  rows_u64(&l, ROWS_BUFSET_CHASE_STEPS, r->chase_steps);
  rows_u64(&l, ROWS_BUFSET_CHASE_REPEATS, r->chase_repeats);
  rows_u64(&l, ROWS_BUFSET_CHASE_WARMUP, r->chase_warmup);
  rows_i64(&l, ROWS_BUFSET_CHASE_SM, r->chase_sm);
  rows_real(&l, ROWS_BUFSET_KHZ, "%.0f", r->sm_clock_khz);
  if (r->threads) {
    rows_u64(&l, ROWS_BUFSET_THREADS, r->threads);
    rows_u64(&l, ROWS_BUFSET_TPS, r->threads_per_sm);
    rows_u64(&l, ROWS_BUFSET_LOADS, r->loads_per_thread);
    rows_real(&l, ROWS_BUFSET_LPNS, "%.4f", r->loads_per_ns.median);
    rows_real(&l, ROWS_BUFSET_LPNS_MIN, "%.4f", r->loads_per_ns.min);
    rows_real(&l, ROWS_BUFSET_LPNS_MAX, "%.4f", r->loads_per_ns.max);
    rows_real(&l, ROWS_BUFSET_NS_PER_LAUNCH, "%.1f", r->ns_per_launch);
    rows_u64(&l, ROWS_BUFSET_LAUNCHES, r->launches);
  }
  rows_u64(&l, ROWS_BUFSET_SEED, r->seed);
  rows_text(&l, ROWS_BUFSET_HASH, GPU_GATHER_HASH);
  rows_u64(&l, ROWS_BUFSET_POOL_ALIGN, r->pool_align);
  rows_text(&l, ROWS_BUFSET_DEVICE, r->device);
  return rows_write(f, &l, true, d);
}

int gpu_csv_layout_row(FILE *f, const char *source, const char *set, uint64_t index, uint64_t id, uint64_t size,
                       uint64_t va, uint64_t first, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_LAYOUT);
  rows_text(&l, ROWS_LAYOUT_SOURCE, source);
  rows_text(&l, ROWS_LAYOUT_CASE, set);
  rows_u64(&l, ROWS_LAYOUT_INDEX, index);
  rows_u64(&l, ROWS_LAYOUT_ID, id);
  rows_u64(&l, ROWS_LAYOUT_SIZE, size);
  rows_i64(&l, ROWS_LAYOUT_OFFSET, va >= first ? (int64_t)(va - first) : -(int64_t)(first - va));
  /* No flush per row: layouts run to tens of thousands of rows. */
  return rows_write(f, &l, false, d);
}

int gpu_csv_blocks_header(FILE *f, diag *d) { return rows_header(f, ROWS_BLOCKS, d); }

int gpu_csv_blocks_row(FILE *f, const gpu_blocks_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_BLOCKS);
  rows_text(&l, ROWS_BLOCKS_PATTERN, "blocks");
  rows_u64(&l, ROWS_BLOCKS_GRID, r->grid);
  rows_u64(&l, ROWS_BLOCKS_BLOCK_THREADS, r->block_threads);
  rows_u64(&l, ROWS_BLOCKS_REPEAT, r->repeat);
  rows_u64(&l, ROWS_BLOCKS_SPIN, r->spin_ns);
  rows_u64(&l, ROWS_BLOCKS_BLOCK, r->block);
  rows_u64(&l, ROWS_BLOCKS_SM, r->sm);
  rows_u64(&l, ROWS_BLOCKS_START, r->start_ns);
  rows_u64(&l, ROWS_BLOCKS_END, r->end_ns);
  rows_u64(&l, ROWS_BLOCKS_SMS, r->sms);
  rows_text(&l, ROWS_BLOCKS_DEVICE, r->device);
  /* No flush per row: a launch writes up to thousands. */
  return rows_write(f, &l, false, d);
}

int gpu_csv_embed_header(FILE *f, diag *d) { return rows_header(f, ROWS_EMBED, d); }

int gpu_csv_embed_row(FILE *f, const gpu_embed_row *r, diag *d) {
  double lookups = (double)r->bags * r->ids_per_bag;
  rows_line l;
  rows_begin(&l, ROWS_EMBED);
  rows_text(&l, ROWS_EMBED_PATTERN, "embed");
  rows_text(&l, ROWS_EMBED_KERNEL, r->kernel);
  rows_u64(&l, ROWS_EMBED_GRID, r->grid);
  rows_u64(&l, ROWS_EMBED_BLOCK, r->block);
  rows_u64(&l, ROWS_EMBED_WARP_INSTRUCTIONS, r->warp_instructions);
  rows_u64(&l, ROWS_EMBED_MEMORY_INSTRUCTIONS, r->memory_instructions);
  rows_real(&l, ROWS_EMBED_NS, "%.1f", r->ns.median);
  rows_real(&l, ROWS_EMBED_LPNS, "%.4f", r->ns.median > 0 ? lookups / r->ns.median : 0);
  rows_real(&l, ROWS_EMBED_LPNS_MIN, "%.4f", r->ns.max > 0 ? lookups / r->ns.max : 0);
  rows_real(&l, ROWS_EMBED_LPNS_MAX, "%.4f", r->ns.min > 0 ? lookups / r->ns.min : 0);
  rows_real(&l, ROWS_EMBED_FIRST_NS, "%.1f", r->first_ns);
  rows_u64(&l, ROWS_EMBED_TABLE, r->table_bytes);
  rows_u64(&l, ROWS_EMBED_ROW_BYTES, r->row_bytes);
  rows_u64(&l, ROWS_EMBED_IDS_PER_BAG, r->ids_per_bag);
  rows_u64(&l, ROWS_EMBED_BAGS, r->bags);
  rows_real(&l, ROWS_EMBED_LOOKUPS, "%.0f", lookups);
  rows_real(&l, ROWS_EMBED_ALPHA, "%g", r->alpha);
  rows_u64(&l, ROWS_EMBED_SEED, r->seed);
  rows_u64(&l, ROWS_EMBED_ROWS, r->rows);
  rows_u64(&l, ROWS_EMBED_DISTINCT, r->distinct_rows);
  rows_real(&l, ROWS_EMBED_GBPS, "%.2f", r->ns.median > 0 ? lookups * r->row_bytes / r->ns.median : 0);
  rows_u64(&l, ROWS_EMBED_REGS, r->regs);
  rows_u64(&l, ROWS_EMBED_PAGE, 2u << 20);
  rows_text(&l, ROWS_EMBED_LOAD, "nc");
  rows_hex(&l, ROWS_EMBED_TABLE_VA, r->table_va);
  rows_hex(&l, ROWS_EMBED_IDS_VA, r->ids_va);
  rows_hex(&l, ROWS_EMBED_OUT_VA, r->out_va);
  rows_u64(&l, ROWS_EMBED_TABLE_ALLOC, r->table_alloc);
  rows_u64(&l, ROWS_EMBED_REPEATS, r->repeats);
  rows_text(&l, ROWS_EMBED_DEVICE, r->device);
  return rows_write(f, &l, true, d);
}

int gpu_csv_stream_header(FILE *f, diag *d) { return rows_header(f, ROWS_STREAM, d); }

int gpu_csv_stream_row(FILE *f, const gpu_stream_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_STREAM);
  rows_text(&l, ROWS_STREAM_PATTERN, "stream");
  rows_text(&l, ROWS_STREAM_KIND, r->kind);
  rows_u64(&l, ROWS_STREAM_SIZE, r->size_bytes);
  rows_u64(&l, ROWS_STREAM_FOOTPRINT, r->footprint_bytes);
  rows_u64(&l, ROWS_STREAM_BYTES_PER_LAUNCH, r->bytes_per_launch);
  rows_u64(&l, ROWS_STREAM_PASSES, r->passes);
  rows_real(&l, ROWS_STREAM_GBPS, "%.2f", r->gbps.median);
  rows_real(&l, ROWS_STREAM_GBPS_MIN, "%.2f", r->gbps.min);
  rows_real(&l, ROWS_STREAM_GBPS_MAX, "%.2f", r->gbps.max);
  rows_real(&l, ROWS_STREAM_NS_PER_LAUNCH, "%.1f", r->ns_per_launch);
  rows_u64(&l, ROWS_STREAM_REPEATS, r->repeats);
  rows_u64(&l, ROWS_STREAM_BLOCKS, r->blocks);
  rows_u64(&l, ROWS_STREAM_BLOCK_THREADS, r->block_threads);
  rows_text(&l, ROWS_STREAM_LOAD, "cg");
  rows_hex(&l, ROWS_STREAM_VA_BASE, r->va_base);
  rows_text(&l, ROWS_STREAM_DEVICE, r->device);
  return rows_write(f, &l, true, d);
}

int gpu_csv_uvm_header(FILE *f, diag *d) { return rows_header(f, ROWS_UVM, d); }

int gpu_csv_uvm_row(FILE *f, const gpu_uvm_row *r, diag *d) {
  rows_line l;
  rows_begin(&l, ROWS_UVM);
  rows_text(&l, ROWS_UVM_INIT, r->init);
  rows_text(&l, ROWS_UVM_FIRST, r->first);
  rows_u64(&l, ROWS_UVM_SIZE, r->size);
  const double v[] = {r->prefetch_ms, r->cold_ms, r->stream_ms, r->stream_gbps, r->gather_lpns, r->gather2_lpns};
  for (int i = 0; i < 6; i++)
    if (v[i] >= 0) rows_real(&l, ROWS_UVM_PREFETCH_MS + i, "%.4g", v[i]); /* negative: not measured, empty */
  return rows_write(f, &l, true, d);
}
