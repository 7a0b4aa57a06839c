/* ktrace_tb.c — a thread block's arrays: grown geometrically to the largest
 * block read into them, never past the stated limits, and reused. */
#include "ktrace_fmt.h"

#include <stdlib.h>
#include <string.h>

ktrace_tb *ktrace_tb_new(void) {
  ktrace_tb *tb = calloc(1, sizeof *tb);
  if (tb && !(tb->addr_at = calloc(1, sizeof *tb->addr_at))) {
    free(tb);
    return NULL;
  }
  return tb;
}

void ktrace_tb_free(ktrace_tb *tb) {
  if (!tb) return;
  free(tb->warp);
  free(tb->first);
  free(tb->count);
  free(tb->pc);
  free(tb->mask);
  free(tb->op);
  free(tb->cls);
  free(tb->ndst);
  free(tb->nsrc);
  free(tb->dst);
  free(tb->src);
  free(tb->hold);
  free(tb->addr_at);
  free(tb->addr);
  free(tb->line);
  free(tb);
}

/* Array p resized to n elements: 0, or -1 with p untouched. */
#define RESIZE(p, n) (!(grown = realloc((p), (size_t)(n) * sizeof *(p))) ? -1 : ((p) = grown, 0))

int ktrace_tb_room_warp(ktrace_tb *tb) {
  if (tb->nwarps < tb->cap_warp) return 0;
  uint32_t n = tb->cap_warp ? 2 * tb->cap_warp : 32;
  void *grown;
  if (RESIZE(tb->warp, n) || RESIZE(tb->first, n) ||
      RESIZE(tb->count, n))
    return -1;
  tb->cap_warp = n;
  return 0;
}

static int grow_insts(ktrace_tb *tb) {
  uint32_t n = tb->cap_inst ? 2 * tb->cap_inst : 1024;
  if (n > KTRACE_TB_INSTS_MAX) n = KTRACE_TB_INSTS_MAX;
  void *grown;
  if (RESIZE(tb->pc, n) || RESIZE(tb->mask, n) ||
      RESIZE(tb->op, n) || RESIZE(tb->cls, n) ||
      RESIZE(tb->ndst, n) || RESIZE(tb->nsrc, n) ||
      RESIZE(tb->dst, n) || RESIZE(tb->src, n) || RESIZE(tb->hold, n) ||
      RESIZE(tb->line, n) || RESIZE(tb->addr_at, (size_t)n + 1))
    return -1;
  tb->cap_inst = n;
  return 0;
}

static int grow_addrs(ktrace_tb *tb, uint32_t need) {
  uint32_t n = tb->cap_addr ? tb->cap_addr : 4096;
  while (n < need) n = n > KTRACE_TB_ADDRS_MAX / 2 ? KTRACE_TB_ADDRS_MAX : 2 * n;
  void *grown;
  if (RESIZE(tb->addr, n)) return -1;
  tb->cap_addr = n;
  return 0;
}

int ktrace_tb_room(ktrace_tb *tb, uint32_t addrs) {
  if (tb->ninst == tb->cap_inst) {
    if (tb->ninst == KTRACE_TB_INSTS_MAX) return -2;
    if (grow_insts(tb)) return -1;
  }
  uint32_t used = tb->addr_at[tb->ninst];
  if (addrs > tb->cap_addr - used) {
    if (addrs > KTRACE_TB_ADDRS_MAX - used) return -2;
    if (grow_addrs(tb, used + addrs)) return -1;
  }
  return 0;
}

void ktrace_tb_begin(ktrace_tb *tb, const ktrace_op *ops, uint32_t x, uint32_t y, uint32_t z) {
  tb->x = x, tb->y = y, tb->z = z;
  tb->nwarps = tb->ninst = 0;
  tb->addr_at[0] = 0;
  tb->ops = ops;
}

int ktrace_tb_warp(ktrace_tb *tb, uint32_t w) {
  if (tb->nwarps) ktrace_tb_warp_end(tb);
  if (ktrace_tb_room_warp(tb)) return -1;
  tb->warp[tb->nwarps] = w;
  tb->first[tb->nwarps] = tb->ninst;
  tb->count[tb->nwarps++] = 0;
  return 0;
}

void ktrace_tb_warp_end(ktrace_tb *tb) { tb->count[tb->nwarps - 1] = tb->ninst - tb->first[tb->nwarps - 1]; }

int ktrace_tb_push(ktrace_tb *tb, const ktrace_tb_inst *in, const uint64_t *addr, uint32_t naddr) {
  int rc = ktrace_tb_room(tb, naddr);
  if (rc) return rc;
  uint32_t i = tb->ninst++;
  tb->pc[i] = in->pc;
  tb->mask[i] = in->mask;
  tb->op[i] = in->op;
  tb->cls[i] = tb->ops[in->op].cls;
  tb->ndst[i] = in->ndst;
  tb->nsrc[i] = in->nsrc;
  memcpy(tb->dst[i], in->dst, sizeof in->dst);
  memcpy(tb->src[i], in->src, sizeof in->src);
  tb->hold[i] = in->hold;
  tb->line[i] = 0;
  uint32_t at = tb->addr_at[i];
  if (naddr) memcpy(tb->addr + at, addr, naddr * sizeof *addr);
  tb->addr_at[i + 1] = at + naddr;
  return 0;
}
