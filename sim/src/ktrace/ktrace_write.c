/* ktrace_write.c — writing tlbsim's binary kernel traces (traces/FORMAT.md,
 * "Binary kernel traces"; read back by ktrace_bin.c). Records go into one
 * buffer, written to the caller's stream when it fills. An opcode is
 * defined by an OPCODE record before the first block that uses it, in the
 * order of its id, so a reader of the binary form numbers opcodes as the
 * reader of the text did.
 */
#include "ktrace_fmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OUT_BYTES (256 * 1024)
#define RECORD_ROOM 1024 /* more than any record but a kernel's (whose names go out whole) */

struct ktrace_writer {
  FILE *f;
  const char *name;
  uint8_t *buf;
  size_t n;
  uint32_t ops_written; /* opcode ids defined so far */
  bool in_kernel;
  bool failed;
  diag err;
};

static int flush(ktrace_writer *w) {
  errno = 0;
  if (w->n && fwrite(w->buf, 1, w->n, w->f) != w->n) {
    w->failed = true;
    return diag_set(&w->err, w->name, 0, "cannot write: %s", strerror(errno ? errno : EIO));
  }
  w->n = 0;
  return 0;
}

/* Room for `need` (<= OUT_BYTES) more bytes in the buffer. */
static int room(ktrace_writer *w, size_t need) { return w->n + need > OUT_BYTES ? flush(w) : 0; }

static int fail(ktrace_writer *w, diag *d) {
  if (d) *d = w->err;
  return -1;
}

ktrace_writer *ktrace_writer_open(FILE *f, const char *name, diag *d) {
  ktrace_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->buf = malloc(OUT_BYTES))) {
    free(w);
    diag_set(d, name, 0, "out of memory");
    return NULL;
  }
  w->f = f;
  w->name = name;
  memcpy(w->buf, ktrace_bin_magic, sizeof ktrace_bin_magic);
  w->n = sizeof ktrace_bin_magic;
  return w;
}

static void put(ktrace_writer *w, uint64_t v) { w->n = (size_t)(num_put_leb128(w->buf + w->n, v) - w->buf); }

/* A length and the bytes of s, flushing first when they do not fit. */
static int put_string(ktrace_writer *w, const char *s) {
  size_t len = strlen(s);
  if (room(w, len + 10)) return -1;
  if (len + 10 > OUT_BYTES) { /* longer than the buffer: straight to the stream */
    put(w, len);
    if (flush(w)) return -1;
    if (fwrite(s, 1, len, w->f) != len) {
      w->failed = true;
      return diag_set(&w->err, w->name, 0, "cannot write: %s", strerror(errno ? errno : EIO));
    }
    return 0;
  }
  put(w, len);
  memcpy(w->buf + w->n, s, len);
  w->n += len;
  return 0;
}

static int end_kernel(ktrace_writer *w) {
  if (!w->in_kernel) return 0;
  if (room(w, 1)) return -1;
  w->buf[w->n++] = KBIN_KERNEL_END;
  w->in_kernel = false;
  return 0;
}

int ktrace_write_memcpy(ktrace_writer *w, const ktrace_memcpy *m, diag *d) {
  if (w->failed || end_kernel(w) || room(w, RECORD_ROOM)) return fail(w, d);
  w->buf[w->n++] = KBIN_MEMCPY;
  put(w, m->addr);
  put(w, m->bytes);
  return 0;
}

int ktrace_write_kernel(ktrace_writer *w, const ktrace_kernel *k, diag *d) {
  if (w->failed || end_kernel(w) || room(w, RECORD_ROOM)) return fail(w, d);
  w->buf[w->n++] = KBIN_KERNEL;
  const uint64_t v[] = {k->id,     k->grid[0], k->grid[1],         k->grid[2],
                        k->block[0], k->block[1], k->block[2],     k->shmem,
                        k->nregs,  k->binary_version, k->tracer_version, k->lineinfo,
                        k->stream, k->shmem_base, k->local_base};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) put(w, v[i]);
  if (put_string(w, k->name) || put_string(w, k->nvbit_version)) return fail(w, d);
  w->in_kernel = true;
  return 0;
}

/* OPCODE records for the ids tb uses that are not defined yet. */
static int define_ops(ktrace_writer *w, const ktrace_tb *tb) {
  uint32_t top = w->ops_written;
  for (uint32_t i = 0; i < tb->ninst; i++)
    if (tb->op[i] >= top) top = tb->op[i] + 1u;
  for (; w->ops_written < top; w->ops_written++) {
    const char *name = tb->ops[w->ops_written].name;
    size_t len = strlen(name);
    if (room(w, len + 2)) return -1;
    w->buf[w->n++] = KBIN_OPCODE;
    put(w, len);
    memcpy(w->buf + w->n, name, len);
    w->n += len;
  }
  return 0;
}

/* Whether addresses a[0, n) (n >= 2) step by one stride. */
static bool strided(const uint64_t *a, unsigned n) {
  for (unsigned k = 2; k < n; k++)
    if (a[k] - a[k - 1] != a[1] - a[0]) return false;
  return true;
}

typedef struct prev_inst {
  uint32_t pc, mask;
  uint16_t op;
  uint8_t ndst, nsrc;
  const uint8_t *dst, *src;
  uint64_t addr;
} prev_inst;

static bool same_regs(const ktrace_tb *tb, uint32_t i, const prev_inst *pv) {
  return tb->ndst[i] == pv->ndst && tb->nsrc[i] == pv->nsrc &&
         (!pv->ndst || !memcmp(tb->dst[i], pv->dst, pv->ndst)) && (!pv->nsrc || !memcmp(tb->src[i], pv->src, pv->nsrc));
}

static void put_inst(ktrace_writer *w, const ktrace_tb *tb, uint32_t i, prev_inst *pv) {
  uint8_t *head = w->buf + w->n++;
  unsigned h = 0;
  uint32_t n = tb->addr_at[i + 1] - tb->addr_at[i];
  const uint64_t *a = tb->addr + tb->addr_at[i];
  if (tb->pc[i] == pv->pc + KBIN_PC_STEP) h |= KBIN_PC_NEXT;
  else put(w, num_zigzag((uint64_t)(int64_t)(int32_t)(tb->pc[i] - pv->pc)));
  if (tb->mask[i] == pv->mask) h |= KBIN_MASK_SAME;
  else put(w, tb->mask[i]);
  if (tb->op[i] == pv->op) h |= KBIN_OP_SAME;
  else put(w, tb->op[i]);
  if (same_regs(tb, i, pv)) {
    h |= KBIN_REGS_SAME;
  } else {
    w->buf[w->n++] = (uint8_t)(tb->ndst[i] | tb->nsrc[i] << 3);
    memcpy(w->buf + w->n, tb->dst[i], tb->ndst[i]);
    memcpy(w->buf + w->n + tb->ndst[i], tb->src[i], tb->nsrc[i]);
    w->n += tb->ndst[i] + tb->nsrc[i];
  }
  uint64_t addr = pv->addr;
  if (n) { /* one address per active lane: the reader counts them from the mask */
    h |= KBIN_ADDRS;
    put(w, num_zigzag(a[0] - addr));
    addr = a[0];
    if (n >= 2 && strided(a, n)) {
      h |= KBIN_STRIDE;
      put(w, num_zigzag(a[1] - a[0]));
    } else {
      for (unsigned k = 1; k < n; k++) put(w, num_zigzag(a[k] - a[k - 1]));
    }
  }
  *head = (uint8_t)h;
  *pv = (prev_inst){.pc = tb->pc[i], .mask = tb->mask[i], .op = tb->op[i], .ndst = tb->ndst[i],
                    .nsrc = tb->nsrc[i], .dst = tb->dst[i], .src = tb->src[i], .addr = addr};
}

int ktrace_write_tb(ktrace_writer *w, const ktrace_tb *tb, diag *d) {
  if (w->failed || define_ops(w, tb) || room(w, RECORD_ROOM)) return fail(w, d);
  w->buf[w->n++] = KBIN_TB;
  put(w, tb->x);
  put(w, tb->y);
  put(w, tb->z);
  put(w, tb->nwarps);
  for (uint32_t k = 0; k < tb->nwarps; k++) {
    if (room(w, RECORD_ROOM)) return fail(w, d);
    w->buf[w->n++] = KBIN_WARP;
    put(w, tb->warp[k]);
    put(w, tb->count[k]);
    prev_inst pv = {0};
    for (uint32_t i = tb->first[k]; i < tb->first[k] + tb->count[k]; i++) {
      if (room(w, RECORD_ROOM)) return fail(w, d);
      put_inst(w, tb, i, &pv);
    }
  }
  return 0;
}

int ktrace_writer_finish(ktrace_writer *w, diag *d) {
  int rc = w->failed || end_kernel(w) || flush(w) ? -1 : 0;
  if (!rc && fflush(w->f)) rc = diag_set(&w->err, w->name, 0, "cannot write: %s", strerror(errno));
  if (rc && d) *d = w->err;
  ktrace_writer_free(w);
  return rc;
}

void ktrace_writer_free(ktrace_writer *w) {
  if (!w) return;
  free(w->buf);
  free(w);
}
