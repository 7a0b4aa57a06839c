/* The cuda policy against the H200's cudaMalloc layouts: replayed after
 * what tlbsim-gpu's CUDA context holds of the driver's heap, every buffer
 * alive at the end of the committed churn traces (case churned: the trace
 * replayed; fresh: the live sizes allocated in order) and of smallbufs lies
 * at the offset from the first one that the GPU gave it
 * (gpu/results/h200/layout_*.csv.gz), and so does every address of the
 * alloc-layout experiment (alloc_layout.csv; docs/ALLOC.md, "cuda"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "tlbsim/alloctrace.h"
#include "tlbsim/csv.h"
#include "tlbsim/vas.h"

#define MiB (1ull << 20)
#define H200_MEMORY (143771ull * MiB) /* the h200 preset's machine.phys_memory */

/* The context's part of the heap, the same in every layout file: the first
 * region a trace opens lies 30 MiB into a chunk C, the next ones 8 MiB into
 * the chunk 3 above C, and the first new chunk 13 below C. As allocations
 * on an empty heap, top-down: 8 MiB of the top chunk, the next two whole,
 * 30 MiB of the fourth, then the 12 below as one reservation. */
static const uint64_t context[] = {8 * MiB, 32 * MiB, 32 * MiB, 30 * MiB, 384 * MiB};
#define NCONTEXT (sizeof context / sizeof context[0])

typedef struct layout {
  size_t n, cap;
  uint64_t *id, *size;
  int64_t *offset; /* from the first buffer */
} layout;

static void layout_push(layout *l, uint64_t id, uint64_t size, int64_t offset) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 1024;
    l->id = realloc(l->id, l->cap * sizeof *l->id);
    l->size = realloc(l->size, l->cap * sizeof *l->size);
    l->offset = realloc(l->offset, l->cap * sizeof *l->offset);
    CU_ASSERT_FATAL(l->id && l->size && l->offset);
  }
  l->id[l->n] = id, l->size[l->n] = size, l->offset[l->n] = offset;
  l->n++;
}

static void layout_free(layout *l) {
  free(l->id);
  free(l->size);
  free(l->offset);
}

/* The rows of one (source, case) of gpu/results/h200/NAME, in their order
 * (columns source,case,index,id,size_bytes,offset_bytes). */
static void measured(const char *name, const char *source, const char *kase, layout *out) {
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/gpu/results/h200/%s", TLBSIM_SOURCE_DIR, name);
  gzFile gz = gzopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
  *out = (layout){0};
  while (gzgets(gz, line, sizeof line)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *f[8];
    if (csv_split(line, f, 8) != 6 || strcmp(f[0], source) || strcmp(f[1], kase)) continue;
    layout_push(out, strtoull(f[3], NULL, 10), strtoull(f[4], NULL, 10), strtoll(f[5], NULL, 10));
  }
  gzclose(gz);
  CU_ASSERT_FATAL(out->n > 0);
}

static vas *context_heap(void) {
  vas_config c = {.phys_capacity = H200_MEMORY};
  diag d;
  vas *v = vas_create("cuda", &c, NULL, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(v);
  for (size_t i = 0; i < NCONTEXT; i++) CU_ASSERT_EQUAL_FATAL(vas_alloc(v, context[i], 0, 0, &(uint64_t){0}, &d), VAS_OK);
  return v;
}

/* How many of the model's n buffers (va[i], its i-th in allocation order)
 * lie where the GPU put its i-th: the same buffer (model_id[i] the GPU's id;
 * NULL when the model allocated the GPU's own sizes in the GPU's order, so
 * that the i-th is the GPU's i-th by construction) at the same offset from
 * the first. */
static size_t matches(const uint64_t *model_id, size_t n, const uint64_t *va, const layout *gpu) {
  size_t same = 0;
  for (size_t i = 0; i < gpu->n && i < n; i++)
    same += (!model_id || model_id[i] == gpu->id[i]) && (int64_t)(va[i] - va[0]) == gpu->offset[i];
  return same;
}

/* The sizes of gpu's buffers, cudaMalloc'ed in order after the context. */
static void check_in_order(const char *file, const char *source, const char *kase) {
  layout gpu;
  measured(file, source, kase, &gpu);
  vas *v = context_heap();
  uint64_t *va = calloc(gpu.n, sizeof *va);
  CU_ASSERT_PTR_NOT_NULL_FATAL(va);
  diag d;
  for (size_t i = 0; i < gpu.n; i++) CU_ASSERT_EQUAL_FATAL(vas_alloc(v, gpu.size[i], 0, 0, &va[i], &d), VAS_OK);
  size_t same = matches(NULL, gpu.n, va, &gpu);
  printf("\n    %s %s: %zu of %zu buffers at the measured offset ", source, kase, same, gpu.n);
  CU_ASSERT_EQUAL(same, gpu.n);
  free(va);
  vas_destroy(v);
  layout_free(&gpu);
}

/* The trace replayed after the context; its live buffers in allocation
 * order against case "churned". */
static void check_churned(const char *trace) {
  char path[1024], file[64], source[64];
  snprintf(path, sizeof path, "%s/traces/churn/%s.trace.gz", TLBSIM_SOURCE_DIR, trace);
  snprintf(file, sizeof file, "layout_%s.csv.gz", trace + strlen("churn_"));
  snprintf(source, sizeof source, "%s.trace", trace);
  layout gpu;
  measured(file, source, "churned", &gpu);
  diag d;
  alloctrace *t = alloctrace_open(path, ALLOCTRACE_NATIVE, -1, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  vas *v = context_heap();
  uint64_t *va = NULL, *order = NULL, *name = NULL, ids = 0, made = 0;
  alloctrace_event ev;
  int got;
  while ((got = alloctrace_next(t, &ev, &d)) == 1) {
    if (ev.id >= ids) { /* ids are dense: grown one at a time */
      ids = 2 * ev.id + 1024;
      va = realloc(va, ids * sizeof *va), order = realloc(order, ids * sizeof *order);
      name = realloc(name, ids * sizeof *name);
      CU_ASSERT_FATAL(va && order && name);
    }
    if (ev.kind == AT_ALLOC) {
      CU_ASSERT_EQUAL_FATAL(vas_alloc(v, ev.size, 0, 0, &va[ev.id], &d), VAS_OK);
      order[ev.id] = ++made, name[ev.id] = ev.name;
    } else {
      CU_ASSERT_EQUAL_FATAL(vas_free(v, va[ev.id], &d), VAS_OK);
      order[ev.id] = 0;
    }
  }
  CU_ASSERT_EQUAL_FATAL(got, 0);
  /* the live buffers by allocation number: made is at most a few 10^5 */
  uint64_t *by_order = calloc(made + 1, sizeof *by_order);
  CU_ASSERT_PTR_NOT_NULL_FATAL(by_order);
  for (uint64_t id = 0; id < alloctrace_id_limit(t); id++)
    if (order[id]) by_order[order[id]] = id + 1;
  layout model = {0};
  uint64_t *live_va = calloc(gpu.n + 1, sizeof *live_va);
  CU_ASSERT_PTR_NOT_NULL_FATAL(live_va);
  for (uint64_t k = 1; k <= made; k++) {
    if (!by_order[k]) continue;
    uint64_t id = by_order[k] - 1;
    if (model.n < gpu.n) live_va[model.n] = va[id];
    layout_push(&model, name[id], 0, 0);
  }
  CU_ASSERT_EQUAL(model.n, gpu.n);
  size_t same = matches(model.id, model.n, live_va, &gpu);
  printf("\n    %s churned: %zu of %zu buffers at the measured offset ", source, same, gpu.n);
  CU_ASSERT_EQUAL(same, gpu.n);
  free(live_va);
  free(by_order);
  free(va);
  free(order);
  free(name);
  layout_free(&model);
  layout_free(&gpu);
  vas_destroy(v);
  alloctrace_close(t);
}

static void test_churn_below(void) {
  check_churned("churn_below");
  check_in_order("layout_below.csv.gz", "churn_below.trace", "fresh");
}

static void test_churn_near(void) {
  check_churned("churn_near");
  check_in_order("layout_near.csv.gz", "churn_near.trace", "fresh");
}

static void test_churn_above(void) {
  check_churned("churn_above");
  check_in_order("layout_above.csv.gz", "churn_above.trace", "fresh");
}

static void test_smallbufs(void) {
  check_in_order("layout_smallbufs.csv.gz", "20000x65536", "bufs");
  check_in_order("layout_smallbufs.csv.gz", "20000x1572864", "bufs");
}

/* One experiment of alloc_layout.csv: its rows' sizes and addresses. */
typedef struct experiment {
  char name[32];
  size_t n;
  uint64_t size[64], addr[64];
} experiment;

/* The next experiment's rows (consecutive, one name); false at the end. */
static bool next_experiment(FILE *f, experiment *e) {
  char line[512];
  long at = ftell(f);
  e->n = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *field[16];
    CU_ASSERT_FATAL(csv_split(line, field, 16) == 11);
    if (e->n && strcmp(field[0], e->name)) {
      fseek(f, at, SEEK_SET);
      return true;
    }
    CU_ASSERT_FATAL(e->n < 64 && strlen(field[0]) < sizeof e->name);
    strcpy(e->name, field[0]);
    e->size[e->n] = strtoull(field[2], NULL, 10);
    e->addr[e->n++] = strtoull(field[3], NULL, 16);
    at = ftell(f);
  }
  return e->n > 0;
}

/* tlbsim-gpu alloc-layout (gpu/src/gpu_alloc.cu) step by step, after the
 * context: runs of 8 equal sizes and 64 mixed ones, each freed after it;
 * reuse_*: p, q, free p, p again, free p, free q. Addresses compared from
 * the first one. */
static void test_alloc_layout_csv(void) {
  char path[1024], line[512];
  snprintf(path, sizeof path, "%s/gpu/results/h200/alloc_layout.csv", TLBSIM_SOURCE_DIR);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, f)); /* the header */
  vas *v = context_heap();
  diag d;
  experiment e;
  uint64_t va[64], model0 = 0, gpu0 = 0;
  size_t rows = 0, same = 0;
  while (next_experiment(f, &e)) {
    bool reuse = !strncmp(e.name, "reuse_", 6);
    CU_ASSERT_FATAL(!reuse || e.n == 3);
    for (size_t i = 0; i < e.n; i++) {
      if (reuse && i == 2) CU_ASSERT_EQUAL_FATAL(vas_free(v, va[0], &d), VAS_OK);
      CU_ASSERT_EQUAL_FATAL(vas_alloc(v, e.size[i], 0, 0, &va[i], &d), VAS_OK);
      if (!rows++) model0 = va[i], gpu0 = e.addr[i];
      same += va[i] - model0 == e.addr[i] - gpu0;
    }
    for (size_t i = 0; i < e.n; i++) /* reuse_*: p (again), then q */
      if (!reuse || i) CU_ASSERT_EQUAL_FATAL(vas_free(v, va[reuse ? 3 - i : i], &d), VAS_OK);
  }
  printf("\n    alloc_layout.csv: %zu of %zu addresses as measured ", same, rows);
  CU_ASSERT_EQUAL(rows, 196);
  CU_ASSERT_EQUAL(same, rows);
  fclose(f);
  vas_destroy(v);
}

static const test_case cases[] = {{"churn_below", test_churn_below},
                                  {"churn_near", test_churn_near},
                                  {"churn_above", test_churn_above},
                                  {"smallbufs", test_smallbufs},
                                  {"alloc_layout", test_alloc_layout_csv},
                                  {NULL, NULL}};

int main(void) {
  static const test_suite suites[] = {{"cuda layout on the H200", cases}, {NULL, NULL}};
  return harness_run(suites);
}
