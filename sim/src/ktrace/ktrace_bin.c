/* ktrace_bin.c — reading tlbsim's binary kernel traces (traces/FORMAT.md,
 * "Binary kernel traces"; written by ktrace_write.c): an 8-byte header,
 * then records of a tag byte and LEB128 numbers. Inside a thread block an
 * instruction is a head byte whose bits say which fields repeat the
 * previous instruction's (the next PC, the same mask, opcode, registers),
 * then the fields that do not, then its addresses as deltas.
 *
 * Records are decoded from the input buffer while it holds at least
 * RECORD_MAX bytes (the largest instruction), so numbers are read without
 * end tests; past the end of the input the buffer reads as zeros and a
 * record that ran into them is "cut off". Every field is checked as the
 * text reader checks it: a binary trace is input too.
 */
#include "ktrace_fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const uint8_t ktrace_bin_magic[8] = {0x89, 'T', 'L', 'B', 'K', 'T', 'R', 1};

/* 1 head, 5 + 5 pc and mask, 3 op, 13 registers, 10 base, 31 deltas. */
#define RECORD_MAX 512
_Static_assert(RECORD_MAX <= KTRACE_PAD, "a record cut off by the end of the input reads zeros");
_Static_assert(RECORD_MAX >= 1 + 10 + 5 + 3 + 1 + KTRACE_DST_MAX + KTRACE_SRC_MAX + 10 * KTRACE_WARP_LANES,
               "an instruction record fits RECORD_MAX");

/* A record being decoded: where it is, and the reader. */
typedef struct bin_cur {
  ktrace_reader *r;
  const uint8_t *p, *end;
  diag *d;
} bin_cur;

__attribute__((format(printf, 2, 3))) static int bad(bin_cur *c, const char *fmt, ...) {
  char msg[DIAG_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_set(c->d, c->r->in.name, c->r->in.no, "binary record %lu: %s", c->r->in.no, msg);
}

/* The next record begins: RECORD_MAX bytes held (or all that is left). */
static int begin(bin_cur *c) {
  ktrace_in *in = &c->r->in;
  in->start = (size_t)((const char *)c->p - in->buf);
  if (in->end - in->start < RECORD_MAX && ktrace_in_fill(in, RECORD_MAX, c->d)) return -1;
  c->p = (const uint8_t *)in->buf + in->start;
  c->end = (const uint8_t *)in->buf + in->end;
  in->no++;
  return 0;
}

static bool at_end(const bin_cur *c) { return c->p >= c->end && c->r->in.eof; }

static int num(bin_cur *c, uint64_t hi, uint64_t *v, const char *what) {
  *v = 0;
  if (!(c->p = num_get_leb128(c->p, v))) return bad(c, "%s: a number longer than 64 bits", what);
  if (c->p > c->end) return bad(c, "cut off at the end of the input");
  if (*v > hi) return bad(c, "%s %llu is out of range (0..%llu)", what, (unsigned long long)*v, (unsigned long long)hi);
  return 0;
}

static int num32(bin_cur *c, uint32_t lo, uint32_t hi, uint32_t *v, const char *what) {
  uint64_t x;
  if (num(c, hi, &x, what)) return -1;
  if (x < lo) return bad(c, "%s %llu is out of range (%u..%u)", what, (unsigned long long)x, lo, hi);
  *v = (uint32_t)x;
  return 0;
}

/* A length-prefixed string of at most max bytes into *dst. */
static int string(bin_cur *c, size_t max, char **dst, const char *what) {
  uint64_t len;
  if (num(c, max, &len, what)) return -1;
  ktrace_in *in = &c->r->in;
  in->start = (size_t)((const char *)c->p - in->buf);
  if (ktrace_in_fill(in, len, c->d)) return -1;
  c->p = (const uint8_t *)in->buf + in->start;
  c->end = (const uint8_t *)in->buf + in->end;
  if (len > (uint64_t)(c->end - c->p)) return bad(c, "cut off at the end of the input");
  if (memchr(c->p, '\0', len)) return bad(c, "%s: a NUL byte", what);
  if (ktrace_set_string(dst, (const char *)c->p, len)) return bad(c, "out of memory");
  c->p += len;
  return 0;
}

/* Where the reader's buffer is after a record that ended at c->p. */
static void done(bin_cur *c) { c->r->in.start = (size_t)((const char *)c->p - c->r->in.buf); }

static bin_cur cursor(ktrace_reader *r, diag *d) {
  const uint8_t *p = (const uint8_t *)r->in.buf + r->in.start;
  return (bin_cur){.r = r, .p = p, .end = (const uint8_t *)r->in.buf + r->in.end, .d = d};
}

int ktrace_bin_start(ktrace_reader *r, diag *d) {
  const uint8_t *p = (const uint8_t *)r->in.buf + r->in.start;
  if (r->in.end - r->in.start < sizeof ktrace_bin_magic || p[7] != ktrace_bin_magic[7])
    return diag_set(d, r->in.name, 0, "unsupported binary kernel trace version %d (tlbsim reads %d)",
                    r->in.end - r->in.start < sizeof ktrace_bin_magic ? -1 : p[7], ktrace_bin_magic[7]);
  r->in.start += sizeof ktrace_bin_magic;
  return ktrace_set_string(&r->kfile, r->path, strlen(r->path)) ? diag_set(d, r->path, 0, "out of memory") : 0;
}

/* ---- top-level records ---------------------------------------------------------- */

static int opcode_record(bin_cur *c) {
  uint64_t len;
  if (num(c, KTRACE_OP_NAME_MAX - 1, &len, "opcode length")) return -1;
  if (len > (uint64_t)(c->end - c->p)) return bad(c, "cut off at the end of the input");
  ktrace_optab *t = &c->r->ops;
  uint32_t before = t->n;
  int id = ktrace_optab_intern(t, (const char *)c->p, len);
  if (id == -2) return bad(c, "more than %d distinct opcodes", KTRACE_OPS_MAX);
  if (id < 0) return bad(c, "an opcode of letters, digits, '_' and '.' (1 to 63 of them)");
  if (t->n == before) return bad(c, "opcode '%s' is defined twice", t->op[id].name);
  c->p += len;
  return 0;
}

static int kernel_record(bin_cur *c) {
  static const uint32_t dim_hi[2][3] = {{0x7fffffff, 65535, 65535}, {1024, 1024, 64}};
  ktrace_reader *r = c->r;
  ktrace_kernel *k = &r->k;
  uint64_t lineinfo;
  *k = (ktrace_kernel){.file = r->kfile};
  if (num32(c, 0, UINT32_MAX, &k->id, "kernel id")) return -1;
  for (int i = 0; i < 6; i++)
    if (num32(c, 1, dim_hi[i / 3][i % 3], i < 3 ? &k->grid[i] : &k->block[i - 3], i < 3 ? "grid dim" : "block dim"))
      return -1;
  if (num32(c, 0, UINT32_MAX, &k->shmem, "shmem") || num32(c, 0, UINT32_MAX, &k->nregs, "nregs") ||
      num32(c, 0, UINT32_MAX, &k->binary_version, "binary version") ||
      num32(c, 0, UINT32_MAX, &k->tracer_version, "tracer version") || num(c, 1, &lineinfo, "lineinfo") ||
      num(c, UINT64_MAX, &k->stream, "stream") || num(c, UINT64_MAX, &k->shmem_base, "shmem base") ||
      num(c, UINT64_MAX, &k->local_base, "local base") || string(c, KBIN_NAME_MAX, &r->kname, "kernel name") ||
      string(c, KBIN_NAME_MAX, &r->knvbit, "nvbit version"))
    return -1;
  uint32_t threads = k->block[0] * k->block[1] * k->block[2];
  if (threads > 1024) return bad(c, "a block of %u threads, more than 1024", threads);
  k->lineinfo = lineinfo;
  k->name = r->kname;
  k->nvbit_version = r->knvbit;
  k->warps_per_block = (threads + KTRACE_WARP_LANES - 1) / KTRACE_WARP_LANES;
  k->blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
  return 0;
}

int ktrace_bin_next(ktrace_reader *r, ktrace_item *it, diag *d) {
  bin_cur c = cursor(r, d);
  for (;;) {
    if (begin(&c)) return -1;
    if (at_end(&c)) return 0;
    unsigned tag = *c.p++;
    int rc;
    switch (tag) {
    case KBIN_OPCODE: rc = opcode_record(&c); break;
    case KBIN_MEMCPY:
      *it = (ktrace_item){.kind = KTRACE_ITEM_MEMCPY, .file = r->path, .line = r->in.no};
      rc = num(&c, UINT64_MAX, &it->memcpy.addr, "memcpy address") || num(&c, UINT64_MAX, &it->memcpy.bytes, "memcpy bytes");
      if (!rc) {
        done(&c);
        return 1;
      }
      break;
    case KBIN_KERNEL:
      *it = (ktrace_item){.kind = KTRACE_ITEM_KERNEL, .kernel = &r->k, .file = r->path, .line = r->in.no};
      if (kernel_record(&c)) return -1;
      done(&c);
      r->in_kernel = true;
      return 1;
    case KBIN_TB:
    case KBIN_WARP:
    case KBIN_KERNEL_END: return bad(&c, "a thread block record outside a kernel");
    default: return bad(&c, "an unknown record tag %u", tag);
    }
    if (rc) return -1;
  }
}

/* ---- thread blocks ------------------------------------------------------------- */

/* What an instruction repeats of the one before it in its warp. */
typedef struct prev_inst {
  uint32_t pc, mask;
  uint16_t op;
  uint8_t ndst, nsrc;
  uint8_t dst[KTRACE_DST_MAX], src[KTRACE_SRC_MAX];
  uint64_t addr; /* the last first-lane address */
} prev_inst;

static int regs(bin_cur *c, prev_inst *pv) {
  uint8_t b = *c->p++;
  unsigned nd = b & 7, ns = b >> 3;
  if (nd > KTRACE_DST_MAX || ns > KTRACE_SRC_MAX)
    return bad(c, "%u destination and %u source registers (at most %d and %d)", nd, ns, KTRACE_DST_MAX, KTRACE_SRC_MAX);
  pv->ndst = (uint8_t)nd;
  pv->nsrc = (uint8_t)ns;
  memcpy(pv->dst, c->p, nd);
  memcpy(pv->src, c->p + nd, ns);
  c->p += nd + ns;
  return 0;
}

static int inst_addrs(bin_cur *c, unsigned head, unsigned width, prev_inst *pv, uint64_t *a, unsigned n) {
  uint64_t z;
  if (!width) return bad(c, "opcode '%s' has addresses but no width tlbsim knows", c->r->ops.op[pv->op].name);
  if (!n) return 0;
  if (num(c, UINT64_MAX, &z, "base address")) return -1;
  a[0] = pv->addr += num_unzigzag(z);
  if (head & KBIN_STRIDE) {
    if (num(c, UINT64_MAX, &z, "stride")) return -1;
    uint64_t stride = num_unzigzag(z);
    for (unsigned k = 1; k < n; k++) a[k] = a[k - 1] + stride;
  } else {
    for (unsigned k = 1; k < n; k++) {
      if (num(c, UINT64_MAX, &z, "address delta")) return -1;
      a[k] = a[k - 1] + num_unzigzag(z);
    }
  }
  for (unsigned k = 0; k < n; k++)
    if (a[k] > UINT64_MAX - (width - 1u)) return bad(c, "the access at 0x%llx runs past 2^64", (unsigned long long)a[k]);
  return 0;
}

static int instruction(bin_cur *c, ktrace_tb *tb, prev_inst *pv) {
  uint32_t i = tb->ninst;
  unsigned head = *c->p++;
  uint64_t v;
  if (head & KBIN_HEAD_RESERVED) return bad(c, "reserved bits set in an instruction's head");
  if (head & KBIN_PC_NEXT) pv->pc += KBIN_PC_STEP;
  else if (num(c, UINT64_MAX, &v, "pc delta")) return -1;
  else pv->pc += (uint32_t)num_unzigzag(v);
  if (!(head & KBIN_MASK_SAME) && num32(c, 0, UINT32_MAX, &pv->mask, "mask")) return -1;
  if (!(head & KBIN_OP_SAME)) {
    if (num(c, UINT16_MAX, &v, "opcode id")) return -1;
    pv->op = (uint16_t)v;
  }
  if (pv->op >= c->r->ops.n) return bad(c, "opcode %u is not defined yet", pv->op);
  if (!(head & KBIN_REGS_SAME) && regs(c, pv)) return -1;
  const ktrace_op *op = &c->r->ops.op[pv->op];
  uint32_t at = tb->addr_at[i], n = 0;
  if (head & KBIN_ADDRS) {
    n = (uint32_t)__builtin_popcount(pv->mask);
    if (inst_addrs(c, head, op->width, pv, tb->addr + at, n)) return -1;
  }
  if (c->p > c->end) return bad(c, "cut off at the end of the input");
  tb->pc[i] = pv->pc;
  tb->mask[i] = pv->mask;
  tb->op[i] = pv->op;
  tb->ndst[i] = pv->ndst;
  tb->nsrc[i] = pv->nsrc;
  tb->hold[i] = 0;
  memcpy(tb->dst[i], pv->dst, sizeof tb->dst[i]);
  memcpy(tb->src[i], pv->src, sizeof tb->src[i]);
  tb->cls[i] = (uint8_t)ktrace_resolve(&c->r->k, op->cls, n ? &tb->addr[at] : NULL);
  tb->line[i] = c->r->in.no;
  tb->addr_at[i + 1] = at + n;
  tb->ninst = i + 1;
  return 0;
}

/* A WARP record and its instructions. */
static int warp(bin_cur *c, ktrace_tb *tb, uint64_t *seen) {
  const ktrace_kernel *k = &c->r->k;
  uint32_t w, ninst;
  if (begin(c)) return -1;
  if (at_end(c) || *c->p++ != KBIN_WARP) return bad(c, "expected a warp record");
  if (num32(c, 0, k->warps_per_block - 1, &w, "warp") || num32(c, 0, KTRACE_TB_INSTS_MAX, &ninst, "instructions"))
    return -1;
  if (*seen >> w & 1) return bad(c, "warp %u is listed twice in thread block %u,%u,%u", w, tb->x, tb->y, tb->z);
  *seen |= UINT64_C(1) << w;
  if (ktrace_tb_room_warp(tb)) return bad(c, "out of memory");
  tb->warp[tb->nwarps] = w;
  tb->first[tb->nwarps] = tb->ninst;
  tb->count[tb->nwarps++] = ninst;
  prev_inst pv = {0};
  for (uint32_t j = 0; j < ninst; j++) {
    int room = ktrace_tb_room(tb, KTRACE_WARP_LANES);
    if (room == -2)
      return bad(c, "thread block %u,%u,%u holds more than %u warp instructions or %u addresses", tb->x, tb->y, tb->z,
                 KTRACE_TB_INSTS_MAX, KTRACE_TB_ADDRS_MAX);
    if (room) return bad(c, "out of memory");
    if (begin(c)) return -1;
    if (at_end(c)) return bad(c, "cut off at the end of the input");
    if (instruction(c, tb, &pv)) return -1;
  }
  return 0;
}

static int tb_record(bin_cur *c, ktrace_tb *tb) {
  const ktrace_kernel *k = &c->r->k;
  uint32_t x[3], nwarps;
  for (int i = 0; i < 3; i++)
    if (num32(c, 0, k->grid[i] - 1, &x[i], "thread block index (inside the grid)")) return -1;
  if (num32(c, 0, k->warps_per_block, &nwarps, "warps")) return -1;
  ktrace_tb_begin(tb, c->r->ops.op, x[0], x[1], x[2]);
  uint64_t seen = 0;
  for (uint32_t w = 0; w < nwarps; w++)
    if (warp(c, tb, &seen)) return -1;
  done(c);
  return 0;
}

int ktrace_bin_tb(ktrace_reader *r, ktrace_tb *tb, diag *d) {
  bin_cur c = cursor(r, d);
  for (;;) {
    if (begin(&c)) return -1;
    if (at_end(&c)) return bad(&c, "the input ends inside kernel %u (no kernel end record): is it cut short?", r->k.id);
    unsigned tag = *c.p++;
    switch (tag) {
    case KBIN_OPCODE:
      if (opcode_record(&c)) return -1;
      continue;
    case KBIN_TB: return tb_record(&c, tb) ? -1 : 1;
    case KBIN_KERNEL_END: done(&c); return 0;
    case KBIN_WARP: return bad(&c, "a warp record outside a thread block");
    case KBIN_MEMCPY:
    case KBIN_KERNEL: return bad(&c, "a record inside a kernel that needs its end record first");
    default: return bad(&c, "an unknown record tag %u", tag);
    }
  }
}
