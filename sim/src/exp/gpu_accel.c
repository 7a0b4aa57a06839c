#include "tlbsim/gpu_accel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const gpu_sass_kernel *gpu_embed_sass_find(uint32_t row_bytes, uint32_t ids_per_bag) {
  for (unsigned i = 0; i < gpu_embed_sass_count; i++)
    if (gpu_embed_sass[i].row_bytes == row_bytes && gpu_embed_sass[i].ids_per_bag == ids_per_bag)
      return &gpu_embed_sass[i];
  return NULL;
}

unsigned gpu_sass_memory_count(const gpu_sass_kernel *k) {
  unsigned n = 0;
  for (unsigned i = 0; i < k->ninst; i++) n += k->inst[i].role != GPU_SASS_ALU;
  return n;
}

unsigned gpu_accel_width(const char *opcode) {
  for (const char *t = opcode; *t;) {
    const char *e = strchr(t, '.');
    size_t len = e ? (size_t)(e - t) : strlen(t);
    const char *digits = len > 1 && t[0] == 'U' ? t + 1 : t;
    size_t nd = len - (size_t)(digits - t), i = 0;
    while (i < nd && digits[i] >= '0' && digits[i] <= '9') i++;
    if (nd && i == nd) return (unsigned)(strtoul(digits, NULL, 10) / 8);
    if (!e) break;
    t = e + 1;
  }
  return 4;
}

/* ---- number formatting (the hot path of a trace of 10^7 lines) ---- */

static char *put_str(char *p, const char *s) {
  while (*s) *p++ = *s++;
  return p;
}

static char *put_hex(char *p, uint64_t v) {
  char tmp[16];
  int n = 0;
  do tmp[n++] = "0123456789abcdef"[v & 15], v >>= 4;
  while (v);
  while (n) *p++ = tmp[--n];
  return p;
}

static char *put_dec(char *p, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do tmp[n++] = (char)('0' + u % 10), u /= 10;
  while (u);
  if (v < 0) *p++ = '-';
  while (n) *p++ = tmp[--n];
  return p;
}

/* The tracer's base_stride_compress: the active lanes form one contiguous
 * run with a constant stride (taken as a 32-bit int) between neighbours. A
 * warp with no active lane "succeeds" with base 0 and stride 0. */
static bool base_stride(const uint64_t a[32], uint32_t mask, uint64_t *base, int32_t *stride) {
  bool first = false, last = false;
  *base = 0, *stride = 0;
  for (int s = 0; s < 32; s++) {
    bool on = mask >> s & 1;
    if (on && !first) {
      first = true;
      *base = a[s];
      if (s < 31 && (mask >> (s + 1) & 1)) *stride = (int32_t)(uint32_t)(a[s + 1] - a[s]);
      else return false;
    } else if (first && !last) {
      if (on) {
        if ((uint64_t)(int64_t)*stride != a[s] - a[s - 1]) return false;
      } else
        last = true;
    } else if (last && on)
      return false;
  }
  return true;
}

size_t gpu_accel_addr_text(const uint64_t addr[32], uint32_t mask, char *out) {
  char *p = out;
  uint64_t base;
  int32_t stride;
  if (base_stride(addr, mask, &base, &stride)) {
    p = put_str(p, "1 0x");
    p = put_hex(p, base);
    *p++ = ' ';
    p = put_dec(p, stride);
    *p++ = ' ';
    return (size_t)(p - out);
  }
  p = put_str(p, "2 0x");
  int s = 0;
  while (!(mask >> s & 1)) s++; /* mask != 0: a warp with no active lane is base_stride's */
  p = put_hex(p, addr[s]);
  *p++ = ' ';
  for (uint64_t prev = addr[s++]; s < 32; s++)
    if (mask >> s & 1) {
      p = put_dec(p, (int64_t)(addr[s] - prev));
      *p++ = ' ';
      prev = addr[s];
    }
  return (size_t)(p - out);
}

/* ---- buffers ---- */

#define TWO_MIB (2ull << 20)

static uint64_t round_2m(uint64_t v) { return (v + TWO_MIB - 1) / TWO_MIB * TWO_MIB; }

gpu_embed_allocs gpu_embed_allocs_for(uint64_t fmax, uint64_t rmax, uint32_t ids_per_bag, uint64_t bags) {
  gpu_embed_allocs a = {round_2m(fmax), round_2m(bags * ids_per_bag * 8), round_2m(bags * rmax)};
  return a;
}

void gpu_embed_dry_map(gpu_embed_trace *t, const gpu_embed_allocs *a) {
  t->table_va = GPU_EMBED_DRY_TABLE_VA;
  t->table_alloc = a->table;
  t->ids_alloc = a->ids;
  t->out_alloc = a->out;
  t->ids_va = t->table_va + t->table_alloc + TWO_MIB;
  t->out_va = t->ids_va + t->ids_alloc + TWO_MIB;
}

/* ---- lines ---- */

/* "PC mask dest_num [Rd] opcode src_num [Rs...] " of one instruction. */
/* The longest instruction prefix (PC, mask, dests, opcode, sources). */
#define PREFIX_MAX 512

static size_t line_prefix(const gpu_sass_inst *in, char *buf, size_t len) {
  int n = snprintf(buf, len, "%04x ffffffff ", in->pc);
  n += in->dst >= 0 ? snprintf(buf + n, len - n, "1 R%d ", in->dst) : snprintf(buf + n, len - n, "0 ");
  n += snprintf(buf + n, len - n, "%s %u ", in->opcode, in->nsrc);
  for (unsigned i = 0; i < in->nsrc; i++) n += snprintf(buf + n, len - n, "R%d ", in->src[i]);
  return (size_t)n;
}

/* The 32 lanes' addresses of a memory instruction for one bag. */
static void lane_addrs(const gpu_embed_trace *t, const gpu_sass_inst *in, uint64_t bag, uint64_t a[32]) {
  const gpu_embed_geom *g = t->g;
  for (uint32_t l = 0; l < 32; l++) {
    if (in->role == GPU_SASS_ID) a[l] = t->ids_va + 8 * gpu_embed_id_index(g, bag, in->k, l);
    else if (in->role == GPU_SASS_ROW)
      a[l] = t->table_va + gpu_embed_row_offset(g, t->ids[gpu_embed_id_index(g, bag, in->k, l)], in->part, l);
    else a[l] = t->out_va + gpu_embed_out_offset(g, bag, in->part, l);
  }
}

/* One warp's lines into buf (large enough: ninst * 1024). */
typedef struct prefixes {
  char *text;  /* instruction i's prefix at text + i * PREFIX_MAX: one block, no per-line allocation */
  size_t *len;
} prefixes;

static size_t warp_text(const gpu_embed_trace *t, const prefixes *px, uint64_t bag, char *buf) {
  char *p = buf;
  for (unsigned i = 0; i < t->k->ninst; i++) {
    const gpu_sass_inst *in = &t->k->inst[i];
    memcpy(p, px->text + (size_t)i * PREFIX_MAX, px->len[i]), p += px->len[i];
    if (in->role == GPU_SASS_ALU) {
      *p++ = '0', *p++ = ' ';
    } else {
      uint64_t a[32];
      lane_addrs(t, in, bag, a);
      p = put_dec(p, gpu_accel_width(in->opcode));
      *p++ = ' ';
      p += gpu_accel_addr_text(a, 0xffffffffu, p);
    }
    p = put_dec(p, (int32_t)(uint32_t)in->imm); /* the tracer prints its 64-bit immediate with %d */
    *p++ = ' ', *p++ = '\n';
  }
  return (size_t)(p - buf);
}

static int prefixes_make(const gpu_sass_kernel *k, prefixes *px, diag *d) {
  px->text = malloc((size_t)k->ninst * PREFIX_MAX);
  px->len = calloc(k->ninst, sizeof *px->len);
  if (!px->text || !px->len) return diag_set(d, NULL, 0, "embed trace: out of memory");
  for (unsigned i = 0; i < k->ninst; i++) {
    px->len[i] = line_prefix(&k->inst[i], px->text + (size_t)i * PREFIX_MAX, PREFIX_MAX);
    if (px->len[i] >= PREFIX_MAX) return diag_set(d, NULL, 0, "embed trace: instruction %u does not fit a line", i);
  }
  return 0;
}

static void prefixes_free(prefixes *px) {
  free(px->text);
  free(px->len);
}

int gpu_embed_trace_warp(FILE *f, const gpu_embed_trace *t, uint64_t bag) {
  prefixes px = {0};
  char *buf = NULL;
  int rc = prefixes_make(t->k, &px, NULL);
  if (!rc && !(buf = malloc((size_t)t->k->ninst * 1024))) rc = -1;
  if (!rc) {
    size_t n = warp_text(t, &px, bag, buf);
    rc = fwrite(buf, 1, n, f) == n ? 0 : -1;
  }
  free(buf);
  prefixes_free(&px);
  return rc;
}

static FILE *open_in(const char *dir, const char *name, char *path, size_t len, diag *d) {
  if (snprintf(path, len, "%s/%s", dir, name) >= (int)len) {
    diag_set(d, NULL, 0, "%s/%s: path too long", dir, name);
    return NULL;
  }
  FILE *f = fopen(path, "w");
  if (!f) diag_set(d, NULL, 0, "%s: %s", path, strerror(errno));
  return f;
}

static int close_checked(FILE *f, const char *path, int bad, diag *d) {
  if (fclose(f) || bad) return diag_set(d, NULL, 0, "%s: write failed", path);
  return 0;
}

static int write_list(const gpu_embed_trace *t, diag *d) {
  char path[4096];
  FILE *f = open_in(t->dir, "kernelslist.g", path, sizeof path, d);
  if (!f) return -1;
  int bad = fprintf(f, "MemcpyHtoD,0x%016llx,%llu\nkernel-1.traceg\n", (unsigned long long)t->ids_va,
                    (unsigned long long)t->g->bags * t->g->ids_per_bag * 8) < 0;
  return close_checked(f, path, bad, d);
}

static int write_buffers(const gpu_embed_trace *t, diag *d) {
  char path[4096];
  FILE *f = open_in(t->dir, "buffers.trace", path, sizeof path, d);
  if (!f) return -1;
  int bad = fprintf(f,
                    "#tlbsim-trace 1\n"
                    "# tlbsim-gpu embed: the buffers of kernel-1.traceg, one cudaMalloc each (2 MiB pages)\n"
                    "map 0x%llx %llu page=2M  # table: %u-byte rows, the kernel reads the first %llu bytes\n"
                    "map 0x%llx %llu page=2M  # ids: %llu bags x %u 8-byte ids\n"
                    "map 0x%llx %llu page=2M  # out: %llu bags x %u bytes\n",
                    (unsigned long long)t->table_va, (unsigned long long)t->table_alloc, t->g->row_bytes,
                    (unsigned long long)t->table_bytes, (unsigned long long)t->ids_va,
                    (unsigned long long)t->ids_alloc, (unsigned long long)t->g->bags, t->g->ids_per_bag,
                    (unsigned long long)t->out_va, (unsigned long long)t->out_alloc,
                    (unsigned long long)t->g->bags, t->g->row_bytes) < 0;
  return close_checked(f, path, bad, d);
}

static int header(FILE *f, const gpu_embed_trace *t) {
  return fprintf(f,
                 "-kernel name = %s\n-kernel id = 1\n-grid dim = (%llu,1,1)\n-block dim = (%u,1,1)\n-shmem = 0\n"
                 "-nregs = %u\n-binary version = 90\n-cuda stream id = 0\n"
                 "-shmem base_addr = 0x0000000000000000\n-local mem base_addr = 0x0000000000000000\n"
                 "-nvbit version = none (written by tlbsim-gpu embed from the kernel's SASS)\n"
                 "-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
                 "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
                 "[adrrescompress?] [mem_addresses] immediate\n\n",
                 t->k->name, (unsigned long long)(t->g->bags / GPU_EMBED_BAGS_PER_BLOCK), GPU_EMBED_BLOCK,
                 t->k->nregs) < 0;
}

int gpu_embed_trace_write(const gpu_embed_trace *t, diag *d) {
  if (write_list(t, d) || write_buffers(t, d)) return -1;
  char path[4096];
  FILE *f = open_in(t->dir, "kernel-1.traceg", path, sizeof path, d);
  if (!f) return -1;
  char *iobuf = malloc(1 << 20);
  if (iobuf) setvbuf(f, iobuf, _IOFBF, 1 << 20);
  prefixes px = {0};
  char *buf = NULL;
  if (prefixes_make(t->k, &px, d) || !(buf = malloc((size_t)t->k->ninst * 1024))) {
    if (!buf) diag_set(d, NULL, 0, "embed trace: out of memory");
    fclose(f);
    free(iobuf);
    free(buf);
    prefixes_free(&px);
    return -1;
  }
  int bad = header(f, t);
  uint64_t blocks = t->g->bags / GPU_EMBED_BAGS_PER_BLOCK;
  for (uint64_t b = 0; b < blocks && !bad; b++) {
    bad |= fprintf(f, "\n#BEGIN_TB\n\nthread block = %llu,0,0\n", (unsigned long long)b) < 0;
    for (unsigned w = 0; w < GPU_EMBED_BAGS_PER_BLOCK && !bad; w++) {
      size_t n = warp_text(t, &px, b * GPU_EMBED_BAGS_PER_BLOCK + w, buf);
      bad |= fprintf(f, "\nwarp = %u\ninsts = %u\n", w, t->k->ninst) < 0 || fwrite(buf, 1, n, f) != n;
    }
    bad |= fputs("\n#END_TB\n", f) < 0;
  }
  free(buf);
  prefixes_free(&px);
  int rc = close_checked(f, path, bad, d);
  free(iobuf);
  return rc;
}
