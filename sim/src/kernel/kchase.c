/* kchase.c — the latency chases' one thread block made in memory (see
 * tlbsim/kchase.h), over the chain the GPU suite builds. */
#include "tlbsim/kchase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_chain.h"
#include "tlbsim/gpu_embed.h"
#include "ktrace_fmt.h"

#define LINE 128u /* MEMLAT_LINE of gpu_memlat.cu */
#define UNROLL 4
#define RZ 255

enum { LDG, IADD3, ISETP, BRA, EXIT, NOPS };
static const char *const op_names[NOPS] = {"LDG.E.64.STRONG.GPU", "IADD3", "ISETP.GE.U32.AND", "BRA", "EXIT"};

struct kchase {
  kchase_spec s;
  uint64_t *visit; /* node addresses in visiting order */
  ktrace_optab ops;
  uint16_t op[NOPS];
  ktrace_kernel k;
  char file[96];
  bool done;
};

static int chain(kchase *k, diag *d) {
  const kchase_spec *s = &k->s;
  uint64_t lines = s->footprint / LINE;
  if (!s->nodes || s->nodes > lines || s->nodes > UINT32_MAX)
    return diag_set(d, NULL, 0, "chase: %llu nodes on %llu lines", (unsigned long long)s->nodes,
                    (unsigned long long)lines);
  if (!(k->visit = malloc(s->nodes * sizeof *k->visit))) return diag_set(d, NULL, 0, "chase: out of memory");
  if (s->kind == KCHASE_DRAM) {
    gpu_rowperm p;
    gpu_rowperm_init(&p, lines, s->seed);
    for (uint64_t i = 0; i < s->nodes; i++) k->visit[i] = s->va_base + LINE * gpu_rowperm_at(&p, i);
    return 0;
  }
  gpu_chain_spec cs = {(uint32_t)s->nodes, LINE, GPU_ORDER_RANDOM, s->seed, 0, 0};
  if (gpu_chain_build(&cs, k->visit, d)) return -1;
  for (uint64_t i = 0; i < s->nodes; i++) k->visit[i] += s->va_base;
  return 0;
}

kchase *kchase_create(const kchase_spec *s, diag *d) {
  kchase *k = calloc(1, sizeof *k);
  if (!k || ktrace_optab_init(&k->ops)) {
    diag_set(d, NULL, 0, "chase: out of memory");
    kchase_destroy(k);
    return NULL;
  }
  k->s = *s;
  if (chain(k, d)) {
    kchase_destroy(k);
    return NULL;
  }
  for (int i = 0; i < NOPS; i++) k->op[i] = (uint16_t)ktrace_optab_intern(&k->ops, op_names[i], strlen(op_names[i]));
  snprintf(k->file, sizeof k->file, "%s-chase(F=%llu,loads %llu+%llu)", s->kind == KCHASE_DRAM ? "dram" : "l2",
           (unsigned long long)s->footprint, (unsigned long long)s->first, (unsigned long long)s->loads);
  k->k = (ktrace_kernel){.name = "_Z12chase_kernelILb0EEv10chase_args", .file = k->file, .nvbit_version = "", .id = 1,
                         .grid = {1, 1, 1}, .block = {32, 1, 1}, .binary_version = 90, .tracer_version = 4,
                         .warps_per_block = 1, .blocks = 1};
  return k;
}

void kchase_destroy(kchase *k) {
  if (!k) return;
  free(k->visit);
  ktrace_optab_free(&k->ops);
  free(k);
}

const ktrace_kernel *kchase_kernel(const kchase *k) { return &k->k; }
void kchase_rewind(void *ctx) { ((kchase *)ctx)->done = false; }

static int put(ktrace_tb *tb, uint32_t site, uint16_t op, uint8_t dst, uint8_t src, const uint64_t *addr) {
  ktrace_tb_inst in = {.pc = 16 * site, .mask = 1, .op = op, .ndst = dst != RZ, .nsrc = 1, .dst = {dst}, .src = {src}};
  return ktrace_tb_push(tb, &in, addr, addr ? 1 : 0);
}

int kchase_next(void *ctx, ktrace_tb *tb, diag *d) {
  kchase *k = ctx;
  if (k->done) return 0;
  k->done = true;
  ktrace_tb_begin(tb, k->ops.op, 0, 0, 0);
  int rc = ktrace_tb_warp(tb, 0);
  for (uint64_t j = 0; !rc && j < k->s.loads; j++) {
    uint64_t a = k->visit[(k->s.first + j) % k->s.nodes]; /* p = *p: R2 holds the node's address */
    rc = put(tb, (uint32_t)(j % UNROLL), k->op[LDG], 2, 2, &a);
    if (!rc && j % UNROLL == UNROLL - 1)
      rc = put(tb, 4, k->op[IADD3], 4, 4, NULL) || put(tb, 5, k->op[ISETP], RZ, 4, NULL) ||
           put(tb, 6, k->op[BRA], RZ, RZ, NULL);
  }
  if (!rc) rc = put(tb, 7, k->op[EXIT], RZ, RZ, NULL);
  if (rc) return diag_set(d, k->file, 0, "chase: %llu loads: out of memory, or more than a thread block may hold",
                          (unsigned long long)k->s.loads);
  ktrace_tb_warp_end(tb);
  return 1;
}
