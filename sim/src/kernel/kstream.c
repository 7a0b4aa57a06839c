/* kstream.c — the stream kernel's thread blocks made in memory (see
 * tlbsim/kstream.h), through the kernel-trace module's block builder. */
#include "tlbsim/kstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_fmt.h"

#define UNROLL 4 /* STREAM_UNROLL of gpu_stream.cu */
#define RZ 255

enum { S2R, IMAD_WIDE, MOV, ISETP, BRA, IADD3, IADD3_X, LEA, LEA_HI_X, LDG, LOP3, STG, EXIT, NOPS };
static const char *const op_names[NOPS] = {
    "S2R", "IMAD.WIDE.U32", "IMAD.MOV.U32", "ISETP.GE.U32.AND", "BRA", "IADD3", "IADD3.X", "LEA", "LEA.HI.X",
    "LDG.E.128.STRONG.GPU", "LOP3.LUT", "STG.E.128", "EXIT"};

/* Registers: R0 tid, R1 ctaid, R2:R3 t, R4:R5 i, R6 the XOR, R7 the pass,
 * R8 + 4u the element u loaded (4 registers), R24 + 2u its address, R32 +
 * 2u its store address. */
enum { R_T = 2, R_I = 4, R_X = 6, R_P = 7, R_V = 8, R_A = 24, R_S = 32 };

struct kstream {
  kstream_spec s;
  ktrace_optab ops;
  uint16_t op[NOPS];
  ktrace_kernel k;
  char file[96];
  uint64_t next, n, nt;
};

kstream *kstream_create(const kstream_spec *s, diag *d) {
  if (!s->blocks || !s->block_threads || s->block_threads % 32 || s->bytes % 16 || !s->passes) {
    diag_set(d, NULL, 0, "stream: %u blocks of %u threads, %llu bytes, %u passes is not a launch of the kernel",
             s->blocks, s->block_threads, (unsigned long long)s->bytes, s->passes);
    return NULL;
  }
  kstream *k = calloc(1, sizeof *k);
  if (!k || ktrace_optab_init(&k->ops)) {
    diag_set(d, NULL, 0, "stream: out of memory");
    kstream_destroy(k);
    return NULL;
  }
  k->s = *s;
  for (int i = 0; i < NOPS; i++) k->op[i] = (uint16_t)ktrace_optab_intern(&k->ops, op_names[i], strlen(op_names[i]));
  k->n = s->bytes / 16;
  k->nt = (uint64_t)s->blocks * s->block_threads;
  snprintf(k->file, sizeof k->file, "stream(%s,S=%llu,passes=%u)", s->copy ? "copy" : "read",
           (unsigned long long)s->bytes, s->passes);
  k->k = (ktrace_kernel){.name = s->copy ? "_Z13stream_kernelILb1EEvPK5uint4PS0_mjPj"
                                         : "_Z13stream_kernelILb0EEvPK5uint4PS0_mjPj",
                         .file = k->file, .nvbit_version = "", .id = 1, .grid = {s->blocks, 1, 1},
                         .block = {s->block_threads, 1, 1}, .binary_version = 90, .tracer_version = 4,
                         .warps_per_block = s->block_threads / 32, .blocks = s->blocks};
  return k;
}

void kstream_destroy(kstream *k) {
  if (!k) return;
  ktrace_optab_free(&k->ops);
  free(k);
}

const ktrace_kernel *kstream_kernel(const kstream *k) { return &k->k; }
void kstream_rewind(void *ctx) { ((kstream *)ctx)->next = 0; }

uint64_t kstream_trips(const kstream_spec *s) {
  uint64_t step = UNROLL * (uint64_t)s->blocks * s->block_threads;
  return (s->bytes / 16 + step - 1) / step;
}

typedef struct gen {
  kstream *k;
  ktrace_tb *tb;
} gen;

/* One instruction at program site `site`: dst (RZ: none), srcs, mask, addresses. */
static int put(gen *g, unsigned site, int op, uint8_t dst, const uint8_t *src, unsigned nsrc, uint32_t mask,
               const uint64_t *addr, unsigned naddr) {
  ktrace_tb_inst in = {.pc = 16 * site, .mask = mask, .op = g->k->op[op], .ndst = dst != RZ, .nsrc = (uint8_t)nsrc};
  in.dst[0] = dst;
  memcpy(in.src, src, nsrc);
  return ktrace_tb_push(g->tb, &in, addr, naddr);
}
#define PUT(site, op, dst, mask, ...)                                                                        \
  put(g, site, op, dst, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), mask, NULL, 0)

/* The lanes of mask whose element t + off is below n, and their addresses at base. */
static uint32_t elements(const kstream *k, uint64_t t0, uint32_t mask, uint64_t off, uint64_t base, uint64_t *a,
                         unsigned *na) {
  uint32_t m = 0;
  *na = 0;
  for (unsigned l = 0; l < 32; l++)
    if (mask >> l & 1 && t0 + l + off < k->n) {
      m |= 1u << l;
      a[(*na)++] = base + 16 * (t0 + l + off);
    }
  return m;
}

/* One trip of the loop at i = t + off (some lane's elements below n). */
static int trip(gen *g, uint64_t t0, uint32_t lanes, uint64_t off) {
  const kstream *k = g->k;
  uint32_t m[UNROLL];
  uint64_t a[32];
  unsigned na;
  for (unsigned u = 0; u < UNROLL; u++) {
    uint8_t ar = (uint8_t)(R_A + 2 * u);
    m[u] = elements(k, t0, lanes, off + u * k->nt, k->s.src_va, a, &na);
    if (PUT(10 + 5 * u, IADD3, ar, lanes, R_I) || PUT(11 + 5 * u, ISETP, RZ, lanes, ar)) return -1;
    if (!m[u]) continue;
    if (PUT(12 + 5 * u, LEA, ar, m[u], ar) || PUT(13 + 5 * u, LEA_HI_X, (uint8_t)(ar + 1), m[u], ar, (uint8_t)(ar + 1)))
      return -1;
    const uint8_t src[1] = {ar};
    if (put(g, 14 + 5 * u, LDG, (uint8_t)(R_V + 4 * u), src, 1, m[u], a, na)) return -1;
  }
  for (unsigned u = 0; u < UNROLL; u++) {
    if (!m[u]) continue;
    uint8_t v = (uint8_t)(R_V + 4 * u), sr = (uint8_t)(R_S + 2 * u);
    if (!k->s.copy) {
      if (PUT(30 + 2 * u, LOP3, R_X, m[u], R_X, v, (uint8_t)(v + 1)) ||
          PUT(31 + 2 * u, LOP3, R_X, m[u], R_X, (uint8_t)(v + 2), (uint8_t)(v + 3)))
        return -1;
      continue;
    }
    elements(k, t0, lanes, off + u * k->nt, k->s.dst_va, a, &na);
    const uint8_t src[5] = {sr, v, (uint8_t)(v + 1), (uint8_t)(v + 2), (uint8_t)(v + 3)};
    if (PUT(30 + 3 * u, IADD3, sr, m[u], (uint8_t)(R_A + 2 * u)) ||
        PUT(31 + 3 * u, IADD3_X, (uint8_t)(sr + 1), m[u], (uint8_t)(R_A + 2 * u + 1)) ||
        put(g, 32 + 3 * u, STG, RZ, src, 5, m[u], a, na))
      return -1;
  }
  return PUT(42, IADD3, R_I, lanes, R_I) || PUT(43, IADD3_X, R_I + 1, lanes, R_I + 1) ||
                 PUT(44, ISETP, RZ, lanes, R_I, R_I + 1) || PUT(45, BRA, RZ, lanes, RZ)
             ? -1
             : 0;
}

static int warp(gen *g, uint64_t t0, uint32_t lanes) {
  const kstream *k = g->k;
  uint64_t step = UNROLL * k->nt;
  if (PUT(0, S2R, 0, lanes, RZ) || PUT(1, S2R, 1, lanes, RZ) || PUT(2, IMAD_WIDE, R_T, lanes, 1, 0) ||
      PUT(3, MOV, R_X, lanes, RZ) || PUT(4, MOV, R_P, lanes, RZ))
    return -1;
  for (uint32_t p = 0; p < k->s.passes; p++) {
    if (PUT(5, MOV, R_I, lanes, R_T) || PUT(6, MOV, R_I + 1, lanes, R_T + 1) ||
        PUT(7, ISETP, RZ, lanes, R_I, R_I + 1) || PUT(8, BRA, RZ, lanes, RZ))
      return -1;
    for (uint64_t j = 0; t0 + j * step < k->n && (!k->s.trips || j < k->s.trips); j++) {
      uint64_t a[32];
      unsigned na;
      uint32_t live = elements(k, t0, lanes, j * step, 0, a, &na);
      if (trip(g, t0, live, j * step)) return -1;
    }
    if (PUT(50, IADD3, R_P, lanes, R_P) || PUT(51, ISETP, RZ, lanes, R_P) || PUT(52, BRA, RZ, lanes, RZ)) return -1;
  }
  return PUT(53, ISETP, RZ, lanes, R_X) || PUT(54, EXIT, RZ, lanes, RZ) ? -1 : 0;
}

int kstream_next(void *ctx, ktrace_tb *tb, diag *d) {
  kstream *k = ctx;
  if (k->next == k->k.blocks) return 0;
  uint64_t b = k->next++;
  ktrace_tb_begin(tb, k->ops.op, (uint32_t)b, 0, 0);
  gen g = {.k = k, .tb = tb};
  for (uint32_t w = 0; w < k->k.warps_per_block; w++) {
    if (ktrace_tb_warp(tb, w) || warp(&g, b * k->s.block_threads + 32ull * w, 0xffffffffu))
      return diag_set(d, k->file, 0, "stream: block %llu: out of memory, or more than a thread block may hold",
                      (unsigned long long)b);
  }
  ktrace_tb_warp_end(tb);
  return 1;
}
