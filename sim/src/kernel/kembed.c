/* kembed.c — the embed kernel's thread blocks made in memory (see
 * tlbsim/kembed.h), through the kernel-trace module's block builder. */
#include "tlbsim/kembed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/gpu_accel.h"
#include "tlbsim/gpu_embed.h"
#include "ktrace_fmt.h"

struct kembed {
  kembed_spec s;
  gpu_embed_geom g;
  const gpu_sass_kernel *sass;
  uint64_t *ids;
  ktrace_op *ops; /* one per instruction of the kernel */
  ktrace_kernel k;
  char file[160];
  uint64_t next;
};

static uint8_t class_of(gpu_sass_role r) {
  return r == GPU_SASS_ALU ? KTRACE_NONE : r == GPU_SASS_OUT ? KTRACE_GLOBAL_STORE : KTRACE_GLOBAL_LOAD;
}

kembed *kembed_create(const kembed_spec *s, diag *d) {
  kembed *k = calloc(1, sizeof *k);
  if (!k) {
    diag_set(d, NULL, 0, "embed: out of memory");
    return NULL;
  }
  k->s = *s;
  if (gpu_embed_geom_init(&k->g, s->row_bytes, s->ids_per_bag, s->bags, d)) goto fail;
  if (!(k->sass = gpu_embed_sass_find(s->row_bytes, s->ids_per_bag))) {
    diag_set(d, NULL, 0, "embed: no SASS compiled in for %u-byte rows and %u ids per bag", s->row_bytes,
             s->ids_per_bag);
    goto fail;
  }
  uint64_t n = s->bags * s->ids_per_bag;
  k->ids = malloc(n * sizeof *k->ids);
  k->ops = calloc(k->sass->ninst, sizeof *k->ops);
  if (!k->ids || !k->ops) {
    diag_set(d, NULL, 0, "embed: out of memory for %llu ids", (unsigned long long)n);
    goto fail;
  }
  gpu_embed_ids_spec is = {.table_bytes = s->table_bytes, .alpha = s->alpha, .seed = s->seed};
  if (gpu_embed_ids(&k->g, &is, k->ids, d)) goto fail;
  for (unsigned i = 0; i < k->sass->ninst; i++) {
    const gpu_sass_inst *in = &k->sass->inst[i];
    snprintf(k->ops[i].name, sizeof k->ops[i].name, "%s", in->opcode);
    k->ops[i].cls = class_of(in->role);
    k->ops[i].width = (uint8_t)gpu_accel_width(in->opcode);
  }
  snprintf(k->file, sizeof k->file, "embed(R=%u,F=%llu,alpha=%g)", s->row_bytes, (unsigned long long)s->table_bytes,
           s->alpha);
  uint64_t blocks = s->bags / GPU_EMBED_BAGS_PER_BLOCK;
  k->k = (ktrace_kernel){.name = k->sass->name, .file = k->file, .nvbit_version = "", .id = 1,
                         .grid = {(uint32_t)blocks, 1, 1}, .block = {GPU_EMBED_BLOCK, 1, 1},
                         .nregs = k->sass->nregs, .binary_version = 90, .tracer_version = 4,
                         .warps_per_block = GPU_EMBED_BLOCK / 32, .blocks = blocks};
  return k;
fail:
  kembed_destroy(k);
  return NULL;
}

void kembed_destroy(kembed *k) {
  if (!k) return;
  free(k->ids);
  free(k->ops);
  free(k);
}

const ktrace_kernel *kembed_kernel(const kembed *k) { return &k->k; }
void kembed_rewind(void *ctx) { ((kembed *)ctx)->next = 0; }

/* The 32 lanes' addresses of memory instruction in for bag. */
static void lanes(const kembed *k, const gpu_sass_inst *in, uint64_t bag, uint64_t *a) {
  for (uint32_t l = 0; l < 32; l++) {
    if (in->role == GPU_SASS_ID) a[l] = k->s.ids_va + 8 * gpu_embed_id_index(&k->g, bag, in->k, l);
    else if (in->role == GPU_SASS_ROW)
      a[l] = k->s.table_va + gpu_embed_row_offset(&k->g, k->ids[gpu_embed_id_index(&k->g, bag, in->k, l)], in->part, l);
    else a[l] = k->s.out_va + gpu_embed_out_offset(&k->g, bag, in->part, l);
  }
}

static int inst(kembed *k, ktrace_tb *tb, const gpu_sass_inst *in, uint16_t op, uint64_t bag, diag *d) {
  unsigned naddr = in->role == GPU_SASS_ALU ? 0 : 32;
  if (ktrace_tb_room(tb, naddr)) return diag_set(d, k->file, 0, "embed: out of memory for a block");
  uint32_t i = tb->ninst++;
  tb->pc[i] = in->pc;
  tb->mask[i] = 0xffffffffu;
  tb->op[i] = op;
  tb->cls[i] = k->ops[op].cls;
  tb->ndst[i] = in->dst >= 0;
  tb->dst[i][0] = (uint8_t)(in->dst >= 0 ? in->dst : 255);
  tb->nsrc[i] = (uint8_t)(in->nsrc < KTRACE_SRC_MAX ? in->nsrc : KTRACE_SRC_MAX);
  for (unsigned j = 0; j < tb->nsrc[i]; j++) tb->src[i][j] = (uint8_t)in->src[j];
  tb->line[i] = 0;
  tb->hold[i] = 0; /* its table has no control codes */
  if (naddr) lanes(k, in, bag, tb->addr + tb->addr_at[i]);
  tb->addr_at[i + 1] = tb->addr_at[i] + naddr;
  return 0;
}

int kembed_next(void *ctx, ktrace_tb *tb, diag *d) {
  kembed *k = ctx;
  if (k->next == k->k.blocks) return 0;
  uint64_t b = k->next++;
  ktrace_tb_begin(tb, k->ops, (uint32_t)b, 0, 0);
  for (uint32_t w = 0; w < k->k.warps_per_block; w++) {
    if (ktrace_tb_room_warp(tb)) return diag_set(d, k->file, 0, "embed: out of memory for a block");
    tb->warp[tb->nwarps] = w;
    tb->first[tb->nwarps] = tb->ninst;
    tb->count[tb->nwarps++] = k->sass->ninst;
    uint64_t bag = b * GPU_EMBED_BAGS_PER_BLOCK + w;
    for (unsigned i = 0; i < k->sass->ninst; i++)
      if (inst(k, tb, &k->sass->inst[i], (uint16_t)i, bag, d)) return -1;
  }
  return 1;
}
