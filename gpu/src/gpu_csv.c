#include "gpu_csv.h"

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
    bad |= fprintf(f, "%d,%" PRIu64 ",%" PRIu64 "\n", r->disruptor_sm, r->disruptor_footprint,
                   r->disruptor_stride) < 0;
  else
    bad |= fputs(",,\n", f) < 0;
  if (bad || fflush(f)) return diag_set(d, NULL, 0, "csv: write failed");
  return 0;
}
