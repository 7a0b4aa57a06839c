#include "gpu_csv.h"

#include "gpu_gather.h"

#include <inttypes.h>
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

int gpu_csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) return fputs(s, f) < 0 ? -1 : 0;
  if (fputc('"', f) == EOF) return -1;
  for (; *s; s++)
    if ((*s == '"' && fputc('"', f) == EOF) || fputc(*s, f) == EOF) return -1;
  return fputc('"', f) == EOF ? -1 : 0;
}

int gpu_csv_chase_header(FILE *f, diag *d) {
  if (fputs(GPU_CHASE_HEADER "\n", f) < 0) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

int gpu_csv_chase_row(FILE *f, const gpu_chase_row *r, diag *d) {
  int bad = gpu_csv_field(f, r->pattern);
  bad |= fprintf(f, ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%s,%.0f,",
                 gpu_order_name(r->order), gpu_mapping_name(r->mapping), r->page_bytes, r->stride_bytes,
                 r->footprint_bytes, r->steps, r->cycles.median, r->ns.median, r->load_ca ? "ca" : "cg",
                 r->sm_clock_khz) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fprintf(f, ",%u,%.3f,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%u,%d,%" PRIu64 ",%" PRIu64 ",0x%" PRIx64
                 ",%.3f,%.3f,",
                 r->repeats, r->cycles.max - r->cycles.min, r->seed, r->nodes, r->warmup, r->lanes, r->sm,
                 r->chunk_bytes, r->skew_bytes, r->va_base, r->cycles.min, r->cycles.max) < 0;
  if (r->base_samples)
    bad |= fprintf(f, "%.3f,%.3f,%.3f,%u,", r->base_mean, r->base.min, r->base.max, r->base_samples) < 0;
  else
    bad |= fputs(",,,,", f) < 0;
  if (!strcmp(r->pattern, "share"))
    bad |= fprintf(f, "%d,%" PRIu64 ",%" PRIu64 ",", r->disruptor_sm, r->disruptor_footprint,
                   r->disruptor_stride) < 0;
  else
    bad |= fputs(",,,", f) < 0;
  bad |= gpu_csv_field(f, r->population ? r->population : "");
  bad |= fprintf(f, ",%u\n", r->region) < 0;
  if (bad || fflush(f)) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

static int header(FILE *f, const char *h, diag *d) {
  if (fputs(h, f) < 0 || fputc('\n', f) == EOF) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

static int row_end(FILE *f, int bad, diag *d) {
  if (bad || fflush(f)) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

int gpu_csv_gather_header(FILE *f, diag *d) { return header(f, GPU_GATHER_HEADER, d); }

int gpu_csv_gather_row(FILE *f, const gpu_gather_row *r, diag *d) {
  double span_rate = r->span_ns > 0 ? (double)r->threads * r->loads_per_thread / r->span_ns : 0;
  int bad = gpu_csv_field(f, r->pattern);
  bad |= fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%s,%.4f,%" PRIu64 ",%u,%g,%" PRIu32
                 ",%" PRIu32 ",%.0f,%.1f,%u,%u,%.0f,",
                 r->footprint_bytes, r->stride_bytes, r->nodes, r->threads, r->loads_per_thread,
                 gpu_mapping_name(r->mapping), r->loads_per_ns.median, r->page_bytes, r->sms_used, r->threads_per_sm,
                 r->block_threads, r->blocks, r->kernel_cycles, r->ns_per_launch, r->launches, r->repeats,
                 r->sm_clock_khz) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fprintf(f, ",%" PRIu64 ",0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",", r->seed, r->va_base, r->chunk_bytes,
                 r->skew_bytes) < 0;
  bad |= gpu_csv_field(f, r->sm_set);
  bad |= fprintf(f, ",%u,%.4f,%.4f,%.0f,%.4f,%.0f,%s,%u,cg\n", r->max_blocks_per_sm, r->loads_per_ns.min,
                 r->loads_per_ns.max, r->span_ns, span_rate, r->block_cycles, GPU_GATHER_HASH, GPU_GATHER_BATCH) < 0;
  return row_end(f, bad, d);
}

int gpu_csv_chasers_header(FILE *f, diag *d) { return header(f, GPU_CHASERS_HEADER, d); }

int gpu_csv_chasers_row(FILE *f, const gpu_chasers_row *r, diag *d) {
  int bad = fprintf(f, "chasers,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,cg,%.0f,",
                    gpu_order_name(r->order), gpu_mapping_name(r->mapping), r->page_bytes, r->stride_bytes,
                    r->footprint_bytes, r->steps, r->cycles.median, r->ns_per_access, r->sm_clock_khz) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fprintf(f, ",%u,%.3f,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%u,%u,%u,", r->repeats, r->cycles.max - r->cycles.min,
                 r->seed, r->nodes, r->warmup, r->chasers, r->per_sm, r->sms_used) < 0;
  bad |= gpu_csv_field(f, r->sm_set);
  bad |= fprintf(f, ",%.3f,%.3f,%.3f,%.3f,%.4f,0x%" PRIx64 "\n", r->cycles.min, r->cycles.max, r->cycles_mean,
                 r->cycles_first, r->loads_per_ns, r->va_base) < 0;
  return row_end(f, bad, d);
}

int gpu_csv_bufset_header(FILE *f, diag *d) { return header(f, GPU_BUFSET_HEADER, d); }

int gpu_csv_bufset_row(FILE *f, const gpu_bufset_row *r, diag *d) {
  int bad = gpu_csv_field(f, r->pattern);
  bad |= fputc(',', f) == EOF;
  bad |= gpu_csv_field(f, r->set);
  bad |= fputc(',', f) == EOF;
  bad |= gpu_csv_field(f, r->source);
  bad |= fprintf(f,
                 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                 ",0x%" PRIx64 ",%.3f,%.3f,%.3f,%" PRIu64 ",%u,%" PRIu64 ",%d,%.0f,",
                 r->buffers, r->size_bytes, r->live_bytes, r->va_span, r->regions_2m, r->regions_32m,
                 r->line_regions_2m, r->line_regions_32m, r->va_first, r->chase_cycles.median, r->chase_ns,
                 r->chase_cycles.max - r->chase_cycles.min, r->chase_steps, r->chase_repeats, r->chase_warmup,
                 r->chase_sm, r->sm_clock_khz) < 0;
  if (r->threads)
    bad |= fprintf(f, "%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%.4f,%.4f,%.4f,%.1f,%u,", r->threads, r->threads_per_sm,
                   r->loads_per_thread, r->loads_per_ns.median, r->loads_per_ns.min, r->loads_per_ns.max,
                   r->ns_per_launch, r->launches) < 0;
  else
    bad |= fputs(",,,,,,,,", f) < 0;
  bad |= fprintf(f, "%" PRIu64 ",%s,%u,", r->seed, GPU_GATHER_HASH, r->pool_align) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fputc('\n', f) == EOF;
  return row_end(f, bad, d);
}

int gpu_csv_layout_row(FILE *f, const char *source, const char *set, uint64_t index, uint64_t id, uint64_t size,
                       uint64_t va, uint64_t first, diag *d) {
  int bad = gpu_csv_field(f, source);
  bad |= fputc(',', f) == EOF;
  bad |= gpu_csv_field(f, set);
  long long off = va >= first ? (long long)(va - first) : -(long long)(first - va);
  bad |= fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%lld\n", index, id, size, off) < 0;
  /* No flush per row: layouts run to tens of thousands of rows. */
  if (bad) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

int gpu_csv_blocks_header(FILE *f, diag *d) { return header(f, GPU_BLOCKS_HEADER, d); }

int gpu_csv_blocks_row(FILE *f, const gpu_blocks_row *r, diag *d) {
  int bad = fprintf(f, "blocks,%" PRIu32 ",%" PRIu32 ",%u,%" PRIu64 ",%" PRIu32 ",%u,%" PRIu64 ",%" PRIu64 ",%u,",
                    r->grid, r->block_threads, r->repeat, r->spin_ns, r->block, r->sm, r->start_ns, r->end_ns,
                    r->sms) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fputc('\n', f) == EOF;
  /* No flush per row: a launch writes up to thousands. */
  if (bad) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}

int gpu_csv_embed_header(FILE *f, diag *d) { return header(f, GPU_EMBED_HEADER, d); }

int gpu_csv_embed_row(FILE *f, const gpu_embed_row *r, diag *d) {
  double lookups = (double)r->bags * r->ids_per_bag;
  double gbps = r->ns.median > 0 ? lookups * r->row_bytes / r->ns.median : 0;
  int bad = fputs("embed,", f) < 0;
  bad |= gpu_csv_field(f, r->kernel);
  bad |= fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.4f,%.4f,%.4f,%.1f,%" PRIu64 ",%" PRIu32
                 ",%" PRIu32 ",%" PRIu64 ",%.0f,%g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.2f,%u,2097152,nc,0x%" PRIx64
                 ",0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64 ",%u,",
                 r->grid, r->block, r->warp_instructions, r->memory_instructions, r->ns.median,
                 r->ns.median > 0 ? lookups / r->ns.median : 0, r->ns.max > 0 ? lookups / r->ns.max : 0,
                 r->ns.min > 0 ? lookups / r->ns.min : 0, r->first_ns, r->table_bytes, r->row_bytes,
                 r->ids_per_bag, r->bags, lookups, r->alpha, r->seed, r->rows, r->distinct_rows, gbps, r->regs,
                 r->table_va, r->ids_va, r->out_va, r->table_alloc, r->repeats) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fputc('\n', f) == EOF;
  return row_end(f, bad, d);
}

int gpu_csv_stream_header(FILE *f, diag *d) { return header(f, GPU_STREAM_HEADER, d); }

int gpu_csv_stream_row(FILE *f, const gpu_stream_row *r, diag *d) {
  int bad = fputs("stream,", f) < 0;
  bad |= gpu_csv_field(f, r->kind);
  bad |= fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%.2f,%.2f,%.2f,%.1f,%u,%u,%u,cg,0x%" PRIx64 ",",
                 r->size_bytes, r->footprint_bytes, r->bytes_per_launch, r->passes, r->gbps.median, r->gbps.min,
                 r->gbps.max, r->ns_per_launch, r->repeats, r->blocks, r->block_threads, r->va_base) < 0;
  bad |= gpu_csv_field(f, r->device);
  bad |= fputc('\n', f) == EOF;
  return row_end(f, bad, d);
}

int gpu_csv_uvm_header(FILE *f, diag *d) { return header(f, GPU_UVM_HEADER, d); }

/* A measured value, or an empty field for a negative one. */
static int opt_value(FILE *f, double v) { return v < 0 ? 0 : fprintf(f, "%.4g", v) < 0; }

int gpu_csv_uvm_row(FILE *f, const gpu_uvm_row *r, diag *d) {
  int bad = gpu_csv_field(f, r->init);
  bad |= fputc(',', f) == EOF;
  bad |= gpu_csv_field(f, r->first);
  bad |= fprintf(f, ",%" PRIu64, r->size) < 0;
  const double v[] = {r->prefetch_ms, r->cold_ms, r->stream_ms, r->stream_gbps, r->gather_lpns, r->gather2_lpns};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) bad |= fputc(',', f) == EOF || opt_value(f, v[i]);
  bad |= fputc('\n', f) == EOF;
  return row_end(f, bad, d);
}
