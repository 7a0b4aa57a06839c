/* test_ktrace.c — Accel-Sim kernel traces (tlbsim/ktrace.h): the committed
 * kernelslist fixture read field by field; every tracer version's line
 * shape, every address format, width rule and opcode class; gzip, zstd and
 * xz input; the binary form round-tripping every field; blocks read ahead
 * on a thread the same as read in the caller's calls; and each bad input
 * ending in one FILE:LINE error that names what is wrong. Inputs are temp
 * files in the working directory (the build tree). */
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "harness.h"
#include "tlbsim/ktrace.h"
#include "tlbsim/ktrace_ahead.h"

#define FIXTURE TLBSIM_SOURCE_DIR "/traces/kernels/kernelslist.g"

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CU_ASSERT_FATAL(f != NULL);
  CU_ASSERT_FATAL(fwrite(data, 1, n, f) == n);
  fclose(f);
}

static void temp_name(char path[32]) {
  strcpy(path, "kt-XXXXXX");
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  close(fd);
}

/* A kernel header of tracer version `ver` ("" for none: version 0) and
 * the given grid and block, then `extra` header lines. */
static void header(char *out, size_t len, const char *ver, const char *grid, const char *block, const char *extra) {
  snprintf(out, len,
           "-kernel name = _Z1kPf\n-kernel id = 3\n-grid dim = %s\n-block dim = %s\n-shmem = 0\n-nregs = 8\n"
           "-binary version = 90\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
           "-local mem base_addr = 0x00007e0000000000\n%s%s%s%s\n#traces format = ...\n\n",
           grid, block, *ver ? "-accelsim tracer version = " : "", ver, *ver ? "\n" : "", extra);
}

/* A .traceg of the header above (version 4, grid (2,1,1), block (64,1,1)
 * unless told) and body. */
static void traceg(char path[32], const char *ver, const char *grid, const char *block, const char *extra,
                   const char *body) {
  char *text = malloc(1 << 16);
  header(text, 1 << 16, ver, grid, block, extra);
  strncat(text, body, (1 << 16) - strlen(text) - 1);
  temp_name(path);
  write_file(path, text, strlen(text));
  free(text);
}

/* Every kernel and block of path: the blocks read, or -1 with d. The last
 * block is left in tb. */
static int read_all(const char *path, ktrace_tb *tb, diag *d) {
  ktrace_reader *r = ktrace_open(path, d);
  if (!r) return -1;
  ktrace_item it;
  int got, blocks = 0;
  while ((got = ktrace_next(r, &it, d)) == 1)
    while ((got = ktrace_next_tb(r, tb, d)) == 1) blocks++;
  if (got < 0) {
    diag again;
    CU_ASSERT(ktrace_next_tb(r, tb, &again) == -1 && !strcmp(again.msg, d->msg)); /* errors repeat */
    CU_ASSERT(ktrace_next(r, &it, &again) == -1 && !strcmp(again.msg, d->msg));
  }
  ktrace_close(r);
  return got < 0 ? -1 : blocks;
}

/* ---- the fixture ---------------------------------------------------------------- */

static void test_fixture(void) {
  diag d;
  ktrace_reader *r = ktrace_open(FIXTURE, &d);
  CU_ASSERT_FATAL(r != NULL);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_item it;
  CU_ASSERT(ktrace_next(r, &it, &d) == 1 && it.kind == KTRACE_ITEM_MEMCPY);
  CU_ASSERT(it.memcpy.addr == 0x7f2a40000000ull && it.memcpy.bytes == 1024 && it.line == 1);
  CU_ASSERT(ktrace_next(r, &it, &d) == 1 && it.kind == KTRACE_ITEM_MEMCPY && it.memcpy.addr == 0x7f2a40100000ull);
  CU_ASSERT_FATAL(ktrace_next(r, &it, &d) == 1 && it.kind == KTRACE_ITEM_KERNEL);
  const ktrace_kernel *k = it.kernel;
  CU_ASSERT_STRING_EQUAL(k->name, "_Z6vecaddPKfS0_Pfi");
  CU_ASSERT_STRING_EQUAL(k->nvbit_version, "1.7.1");
  CU_ASSERT(strstr(k->file, "traces/kernels/kernel-1.traceg") != NULL);
  CU_ASSERT(k->id == 1 && k->grid[0] == 2 && k->grid[1] == 1 && k->block[0] == 64 && k->tracer_version == 4);
  CU_ASSERT(k->binary_version == 90 && k->nregs == 16 && k->shmem_base == 0x7f2a3c000000ull && !k->lineinfo);
  CU_ASSERT(k->warps_per_block == 2 && k->blocks == 2);
  /* block 1, warp 1: its loads of A and B at (64 + 32) * 4 */
  CU_ASSERT(ktrace_next_tb(r, tb, &d) == 1 && tb->x == 0);
  CU_ASSERT_FATAL(ktrace_next_tb(r, tb, &d) == 1);
  CU_ASSERT(tb->x == 1 && tb->y == 0 && tb->nwarps == 2 && tb->ninst == 26);
  CU_ASSERT(tb->warp[1] == 1 && tb->first[1] == 13 && tb->count[1] == 13);
  uint32_t ld = tb->first[1] + 7;
  CU_ASSERT_STRING_EQUAL(tb->ops[tb->op[ld]].name, "LDG.E");
  CU_ASSERT(tb->pc[ld] == 0x70 && tb->mask[ld] == 0xffffffffu && tb->cls[ld] == KTRACE_GLOBAL_LOAD);
  CU_ASSERT(tb->ndst[ld] == 1 && tb->dst[ld][0] == 4 && tb->nsrc[ld] == 1 && tb->src[ld][0] == 4);
  CU_ASSERT(tb->addr_at[ld + 1] - tb->addr_at[ld] == 32);
  CU_ASSERT(tb->addr[tb->addr_at[ld]] == 0x7f2a40000000ull + 96 * 4);
  CU_ASSERT(tb->addr[tb->addr_at[ld] + 31] == 0x7f2a40000000ull + 127 * 4);
  CU_ASSERT(tb->line[ld] > 0);
  uint32_t add = tb->first[1] + 10;
  CU_ASSERT(tb->cls[add] == KTRACE_NONE && tb->addr_at[add + 1] == tb->addr_at[add] && tb->nsrc[add] == 2);
  CU_ASSERT(ktrace_next_tb(r, tb, &d) == 0);
  CU_ASSERT(ktrace_next(r, &it, &d) == 1 && it.kind == KTRACE_ITEM_MEMCPY && it.memcpy.bytes == 268435456);
  CU_ASSERT_FATAL(ktrace_next(r, &it, &d) == 1 && it.kind == KTRACE_ITEM_KERNEL);
  CU_ASSERT(it.kernel->tracer_version == 5 && it.kernel->shmem == 1024);
  CU_ASSERT_FATAL(ktrace_next_tb(r, tb, &d) == 1);
  /* warp 1 has 8 active lanes: base_delta, list_all, base_stride and a generic load */
  uint32_t w1 = tb->first[1];
  CU_ASSERT(tb->mask[w1] == 0xff && tb->addr_at[w1 + 2] - tb->addr_at[w1 + 1] == 8);
  CU_ASSERT_STRING_EQUAL(tb->ops[tb->op[w1 + 1]].name, "LDG.E.64");
  CU_ASSERT(tb->ops[tb->op[w1 + 1]].width == 8 && tb->ops[tb->op[w1 + 2]].width == 2);
  CU_ASSERT(tb->cls[w1 + 2] == KTRACE_SHARED_STORE && tb->cls[w1 + 3] == KTRACE_SHARED_LOAD);
  CU_ASSERT(tb->cls[w1 + 4] == KTRACE_GLOBAL_STORE && tb->ops[tb->op[w1 + 4]].width == 16);
  CU_ASSERT(tb->cls[w1 + 5] == KTRACE_GLOBAL_ATOMIC && tb->cls[w1 + 6] == KTRACE_GLOBAL_LOAD);
  CU_ASSERT(tb->ops[tb->op[w1 + 6]].cls == KTRACE_GENERIC_LOAD);
  CU_ASSERT(tb->mask[w1 + 7] == 0 && tb->addr_at[w1 + 8] == tb->addr_at[w1 + 7]); /* "1 0x0 0": no lane */
  uint64_t lane[32];
  CU_ASSERT(ktrace_lanes(tb, w1 + 3, lane) == 8);
  CU_ASSERT(lane[1] == lane[0] + 2 && lane[7] == lane[0] + 14 && lane[8] == 0);
  CU_ASSERT(ktrace_next_tb(r, tb, &d) == 0);
  CU_ASSERT(ktrace_next(r, &it, &d) == 0);
  ktrace_close(r);
  ktrace_tb_free(tb);
}

static void test_summary(void) {
  diag d;
  ktrace_reader *r = ktrace_open(FIXTURE, &d);
  CU_ASSERT_FATAL(r != NULL);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_summary *s = ktrace_summary_new();
  ktrace_item it;
  ktrace_counts c[2];
  int nk = 0;
  while (ktrace_next(r, &it, &d) == 1) {
    if (it.kind != KTRACE_ITEM_KERNEL) continue;
    ktrace_summary_reset(s);
    while (ktrace_next_tb(r, tb, &d) == 1) CU_ASSERT(ktrace_summary_add(s, tb) == 0);
    ktrace_summary_get(s, &c[nk++]);
  }
  CU_ASSERT_FATAL(nk == 2);
  /* vecadd: 4 warps each load A and B and store C, 128 bytes (one line) each; the three
   * arrays lie in two 2 MiB pages */
  CU_ASSERT(c[0].warp_instructions == 52 && c[0].memory_instructions == 12 && c[0].warps == 4);
  CU_ASSERT(c[0].insts[KTRACE_GLOBAL_LOAD] == 8 && c[0].bytes[KTRACE_GLOBAL_LOAD] == 1024);
  CU_ASSERT(c[0].bytes[KTRACE_GLOBAL_STORE] == 512 && c[0].lines == 12 && c[0].pages == 2);
  CU_ASSERT(c[1].insts[KTRACE_SHARED_LOAD] == 2 && c[1].bytes[KTRACE_SHARED_STORE] == 80);
  CU_ASSERT(c[1].bytes[KTRACE_GLOBAL_STORE] == 40 * 16 && c[1].insts[KTRACE_GLOBAL_ATOMIC] == 2);
  CU_ASSERT(c[1].insts[KTRACE_NONE] == 6 && c[1].memory_instructions == 14);
  ktrace_summary_free(s);
  ktrace_tb_free(tb);
  ktrace_close(r);
}

/* ---- versions, formats, widths, classes -------------------------------------------- */

#define TB0(body) "#BEGIN_TB\nthread block = 0,0,0\n" body "#END_TB\n"

/* The one block of a .traceg into tb (asserting it reads). The reader is
 * left open, for tb's opcodes, until the next call (or done_one). */
static ktrace_reader *one_reader;

static void done_one(void) {
  ktrace_close(one_reader);
  one_reader = NULL;
}

static void read_one(const char *ver, const char *extra, const char *body, ktrace_tb *tb) {
  char path[32];
  diag d;
  ktrace_item it;
  done_one();
  traceg(path, ver, "(2,1,1)", "(64,1,1)", extra, body);
  one_reader = ktrace_open(path, &d);
  CU_ASSERT_FATAL(one_reader != NULL);
  ktrace_tb *rest = ktrace_tb_new();
  tb->ninst = 0;
  bool ok = ktrace_next(one_reader, &it, &d) == 1 && ktrace_next_tb(one_reader, tb, &d) == 1 &&
            ktrace_next_tb(one_reader, rest, &d) == 0;
  ktrace_tb_free(rest);
  if (!ok) printf("\n%s\n", d.msg);
  CU_ASSERT(ok);
  unlink(path);
}

static void test_versions(void) {
  ktrace_tb *tb = ktrace_tb_new();
  const char *inst = "0010 0000000f 1 R2 LDG.E.64 1 R4 8 1 0x1000 8 ";
  char body[512];
  /* version 0 (no version line) and 1.2: each line repeats its block and warp */
  snprintf(body, sizeof body, TB0("warp = 1\ninsts = 1\n0 0 0 1 %s\n"), inst);
  read_one("", "", body, tb);
  CU_ASSERT(tb->ninst == 1 && tb->pc[0] == 0x10 && tb->addr[3] == 0x1018);
  read_one("1.2", "", body, tb);
  CU_ASSERT(tb->ninst == 1 && tb->mask[0] == 0xf);
  /* 3 and 4: the fields alone */
  snprintf(body, sizeof body, TB0("warp = 0\ninsts = 1\n%s\n"), inst);
  read_one("3", "", body, tb);
  read_one("4", "-enable lineinfo = 0\n", body, tb);
  CU_ASSERT(tb->addr_at[1] == 4 && tb->dst[0][0] == 2 && tb->src[0][0] == 4);
  /* lineinfo: a source line first */
  snprintf(body, sizeof body, TB0("warp = 0\ninsts = 1\n42 %s\n"), inst);
  read_one("4", "-enable lineinfo = 1\n", body, tb);
  CU_ASSERT(tb->pc[0] == 0x10 && tb->addr[0] == 0x1000);
  /* 5: an immediate ends every line */
  read_one("5", "", TB0("warp = 0\ninsts = 2\n0000 ffffffff 0 DEPBAR.LE 0 0 -1\n0010 00000001 1 R2 LDG.E 1 R4 4 1 0x40 4 7\n"),
           tb);
  CU_ASSERT(tb->ninst == 2 && tb->addr_at[2] == 1 && tb->addr[0] == 0x40);
  /* unknown header keys are skipped, '#' lines between blocks are comments */
  read_one("4", "-some new key = 17\n", "# a comment\n\n" TB0("warp = 0\ninsts = 0\n") "\n", tb);
  CU_ASSERT(tb->ninst == 0 && tb->nwarps == 1);
  ktrace_tb_free(tb);
  done_one();
}

static void test_formats(void) {
  ktrace_tb *tb = ktrace_tb_new();
  read_one("4", "",
           TB0("warp = 0\ninsts = 6\n"
               "0000 00000005 0 STG.E 2 R2 R3 4 0 0x100 0x0000000000000200 \n"  /* list_all: lanes 0 and 2 */
               "0010 000000f0 0 STG.E 2 R2 R3 4 1 0x1000 -16\n"                  /* base_stride, lanes 4-7 */
               "0020 80000003 0 STG.E 2 R2 R3 4 2 0x5000 8 -4096\n"              /* base_delta, lanes 0, 1, 31 */
               "0030 00000100 0 STG.E 2 R2 R3 4 2 0x7000\n"                      /* one lane: no delta */
               "0040 00000000 0 STG.E 2 R2 R3 4 1 0x0 0\n"                       /* no lane */
               "0050 00000000 0 STG.E 2 R2 R3 4 0\n"),
           tb);
  const uint64_t want[] = {0x100, 0x200, 0x1000, 0xff0, 0xfe0, 0xfd0, 0x5000, 0x5008, 0x4008, 0x7000};
  CU_ASSERT(tb->addr_at[6] == 10);
  for (unsigned i = 0; i < 10; i++) CU_ASSERT(tb->addr[i] == want[i]);
  uint64_t lane[32];
  CU_ASSERT(ktrace_lanes(tb, 2, lane) == 3 && lane[31] == 0x4008 && lane[1] == 0x5008 && lane[2] == 0);
  CU_ASSERT(ktrace_lanes(tb, 0, lane) == 2 && lane[2] == 0x200 && lane[1] == 0);
  ktrace_tb_free(tb);
  done_one();
}

/* The width and class of one opcode, as a memory instruction's. */
static void check_op(const char *opcode, unsigned width, unsigned cls) {
  ktrace_tb *tb = ktrace_tb_new();
  char body[256];
  snprintf(body, sizeof body, TB0("warp = 0\ninsts = 1\n0000 00000001 0 %s 1 R2 4 1 0x7f0000000040 4\n"), opcode);
  read_one("4", "", body, tb);
  if (tb->ninst == 1) {
    CU_ASSERT(tb->ops[tb->op[0]].width == width);
    CU_ASSERT(tb->cls[0] == cls);
    if (tb->ops[tb->op[0]].width != width || tb->cls[0] != cls)
      printf("\n%s: width %u class %s\n", opcode, tb->ops[tb->op[0]].width, ktrace_class_names[tb->cls[0]]);
  }
  ktrace_tb_free(tb);
  done_one();
}

/* Whether the L1 holds an opcode's loads: not when it is coherent at the
 * GPU or the system (.STRONG.GPU, .STRONG.SYS: ld.global.cg, volatile). */
static void check_l2_only(const char *opcode, bool want) {
  ktrace_tb *tb = ktrace_tb_new();
  char body[256];
  snprintf(body, sizeof body, TB0("warp = 0\ninsts = 1\n0000 00000001 0 %s 1 R2 4 1 0x7f0000000040 4\n"), opcode);
  read_one("4", "", body, tb);
  CU_ASSERT(tb->ninst == 1 && tb->ops[tb->op[0]].l2_only == want);
  ktrace_tb_free(tb);
  done_one();
}

static void test_l2_only(void) {
  check_l2_only("LDG.E.64.STRONG.GPU", true);
  check_l2_only("LDG.E.STRONG.SYS", true);
  check_l2_only("LDG.E.128.STRONG.GPU.PRIVATE", true);
  check_l2_only("LDG.E.64.CONSTANT", false);
  check_l2_only("LDG.E.128.SYS", false);
  check_l2_only("LDG.E.STRONG.GPUX", false);
}

/* Whether an opcode runs on the integer pipe (ktrace_op's int_pipe), and
 * that a trace line's instruction has no hold (a trace has no control codes). */
static void check_int_pipe(const char *opcode, bool want) {
  ktrace_tb *tb = ktrace_tb_new();
  char body[256];
  snprintf(body, sizeof body, TB0("warp = 0\ninsts = 1\n0000 ffffffff 1 R2 %s 1 R3 0\n"), opcode);
  read_one("4", "", body, tb);
  CU_ASSERT(tb->ninst == 1 && tb->ops[tb->op[0]].int_pipe == want && tb->hold[0] == 0);
  ktrace_tb_free(tb);
  done_one();
}

static void test_int_pipe(void) {
  check_int_pipe("IADD3", true);
  check_int_pipe("ISETP.GE.U32.AND.EX", true);
  check_int_pipe("LOP3.LUT", true);
  check_int_pipe("LEA.HI.X", true);
  check_int_pipe("SHF.R.U32.HI", true);
  check_int_pipe("IMAD.MOV.U32", false);
  check_int_pipe("IMAD.WIDE.U32", false);
  check_int_pipe("UIADD3", false);
  check_int_pipe("FFMA", false);
  check_int_pipe("LEAX", false);
}

static void test_widths_and_classes(void) {
  check_op("LDG.E", 4, KTRACE_GLOBAL_LOAD);
  check_op("LDG.E.64", 8, KTRACE_GLOBAL_LOAD);
  check_op("LDG.E.128.SYS", 16, KTRACE_GLOBAL_LOAD);
  check_op("LDG.E.U8.CONSTANT", 1, KTRACE_GLOBAL_LOAD);
  check_op("LDG.E.S16", 2, KTRACE_GLOBAL_LOAD);
  check_op("STG.E.U16", 2, KTRACE_GLOBAL_STORE);
  check_op("LDGSTS.E.BYPASS.LTC128B.128", 16, KTRACE_GLOBAL_LOAD);
  check_op("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", 4, KTRACE_GLOBAL_ATOMIC);
  check_op("ATOM.E.CAS.64", 8, KTRACE_GLOBAL_ATOMIC);
  check_op("RED.E.ADD.STRONG.GPU", 4, KTRACE_GLOBAL_ATOMIC);
  check_op("REDG.E.ADD.STRONG.GPU", 4, KTRACE_GLOBAL_ATOMIC);
  check_op("LDS.U.128", 16, KTRACE_SHARED_LOAD);
  check_op("LDSM.16.M88.4", 2, KTRACE_SHARED_LOAD); /* the first width token, as Accel-Sim */
  check_op("STS.64", 8, KTRACE_SHARED_STORE);
  check_op("ATOMS.ADD", 4, KTRACE_SHARED_ATOMIC);
  check_op("LDL.64", 8, KTRACE_LOCAL_LOAD);
  check_op("STL", 4, KTRACE_LOCAL_STORE);
  check_op("LDC", 4, KTRACE_CONST_LOAD);
  check_op("TEX.SCR", 4, KTRACE_TEXTURE);
  check_op("CCTL.E.IVALL", 4, KTRACE_NONE);
  /* generic: the header's shared base is 0x7f0000000000, local 0x7e0000000000: below it, so no
   * address is shared; one in [local, local + 16 KiB) is local, others global */
  check_op("LD.E.64", 8, KTRACE_GLOBAL_LOAD);
  check_op("ST.E", 4, KTRACE_GLOBAL_STORE);
  ktrace_tb *tb = ktrace_tb_new();
  read_one("4", "",
           TB0("warp = 0\ninsts = 2\n0000 00000001 0 LD.E 1 R2 4 1 0x7e0000003ffc 4\n"
               "0000 00000001 0 ST.E 1 R2 4 1 0x7e0000004000 4\n"),
           tb);
  CU_ASSERT(tb->cls[0] == KTRACE_LOCAL_LOAD && tb->cls[1] == KTRACE_GLOBAL_STORE);
  /* without base addresses Accel-Sim takes every generic access as shared; Kepler's LD is LDG */
  ktrace_kernel k = {.binary_version = 70};
  uint64_t a = 0x1000;
  CU_ASSERT(ktrace_resolve(&k, KTRACE_GENERIC_LOAD, &a) == KTRACE_SHARED_LOAD);
  k.binary_version = 35;
  CU_ASSERT(ktrace_resolve(&k, KTRACE_GENERIC_STORE, &a) == KTRACE_GLOBAL_STORE);
  k = (ktrace_kernel){.binary_version = 80, .shmem_base = 0x1000, .local_base = 0x9000};
  CU_ASSERT(ktrace_resolve(&k, KTRACE_GENERIC_LOAD, &a) == KTRACE_SHARED_LOAD);
  CU_ASSERT(ktrace_resolve(&k, KTRACE_GENERIC_LOAD, NULL) == KTRACE_GLOBAL_LOAD);
  CU_ASSERT(ktrace_resolve(&k, KTRACE_GLOBAL_ATOMIC, &a) == KTRACE_GLOBAL_ATOMIC);
  /* a width token of no access size is fine on an instruction without addresses */
  read_one("4", "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 1 R4 HMMA.16816.F32 2 R4 R8 0\n"), tb);
  CU_ASSERT(tb->ops[tb->op[0]].width == 0 && tb->cls[0] == KTRACE_NONE);
  ktrace_tb_free(tb);
  done_one();
}

/* ---- codecs and the binary form -------------------------------------------------------- */

static size_t gzip_bytes(const char *in, size_t n, uint8_t *out, size_t cap) {
  z_stream z = {0};
  CU_ASSERT_FATAL(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = (Bytef *)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  CU_ASSERT(deflate(&z, Z_FINISH) == Z_STREAM_END);
  size_t got = z.total_out;
  deflateEnd(&z);
  return got;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  CU_ASSERT_FATAL(f != NULL);
  char *buf = malloc(1 << 20);
  *n = fread(buf, 1, 1 << 20, f);
  fclose(f);
  return buf;
}

/* The summary counts of path's first kernel. */
static ktrace_counts first_counts(const char *path) {
  diag d;
  ktrace_counts c = {0};
  ktrace_reader *r = ktrace_open(path, &d);
  CU_ASSERT_FATAL(r != NULL);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_summary *s = ktrace_summary_new();
  ktrace_item it;
  while (ktrace_next(r, &it, &d) == 1 && it.kind != KTRACE_ITEM_KERNEL) {
  }
  while (ktrace_next_tb(r, tb, &d) == 1) ktrace_summary_add(s, tb);
  ktrace_summary_get(s, &c);
  ktrace_summary_free(s);
  ktrace_tb_free(tb);
  ktrace_close(r);
  return c;
}

static void test_codecs(void) {
  size_t n;
  char *text = slurp(TLBSIM_SOURCE_DIR "/traces/kernels/kernel-2.traceg", &n);
  ktrace_counts want = first_counts(TLBSIM_SOURCE_DIR "/traces/kernels/kernel-2.traceg");
  size_t cap = 2 * n + 1024;
  uint8_t *z = malloc(cap);
  char path[32];
  for (int codec = 0; codec < 3; codec++) {
    size_t len = 0;
    if (codec == 0) len = gzip_bytes(text, n, z, cap);
    if (codec == 1) len = ZSTD_compress(z, cap, text, n, 3);
    if (codec == 2) CU_ASSERT_FATAL(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n, z, &len, cap) == LZMA_OK);
    temp_name(path);
    write_file(path, z, len);
    ktrace_counts got = first_counts(path);
    CU_ASSERT(!memcmp(&got, &want, sizeof got));
    unlink(path);
  }
  free(z);
  free(text);
}

/* Whether two blocks hold the same instructions, field by field. */
static bool same_tb(const ktrace_tb *a, const ktrace_tb *b) {
  if (a->x != b->x || a->y != b->y || a->z != b->z || a->nwarps != b->nwarps || a->ninst != b->ninst) return false;
  for (uint32_t w = 0; w < a->nwarps; w++)
    if (a->warp[w] != b->warp[w] || a->first[w] != b->first[w] || a->count[w] != b->count[w]) return false;
  for (uint32_t i = 0; i < a->ninst; i++) {
    if (a->pc[i] != b->pc[i] || a->mask[i] != b->mask[i] || a->op[i] != b->op[i] || a->cls[i] != b->cls[i] ||
        a->ndst[i] != b->ndst[i] || a->nsrc[i] != b->nsrc[i] || a->addr_at[i + 1] != b->addr_at[i + 1] ||
        memcmp(a->dst[i], b->dst[i], a->ndst[i]) || memcmp(a->src[i], b->src[i], a->nsrc[i]) ||
        strcmp(a->ops[a->op[i]].name, b->ops[b->op[i]].name))
      return false;
  }
  return !memcmp(a->addr, b->addr, a->addr_at[a->ninst] * sizeof *a->addr);
}

static bool same_kernel(const ktrace_kernel *a, const ktrace_kernel *b) {
  return !strcmp(a->name, b->name) && !strcmp(a->nvbit_version, b->nvbit_version) && a->id == b->id &&
         !memcmp(a->grid, b->grid, sizeof a->grid) && !memcmp(a->block, b->block, sizeof a->block) &&
         a->shmem == b->shmem && a->nregs == b->nregs && a->binary_version == b->binary_version &&
         a->tracer_version == b->tracer_version && a->stream == b->stream && a->shmem_base == b->shmem_base &&
         a->local_base == b->local_base && a->lineinfo == b->lineinfo && a->warps_per_block == b->warps_per_block;
}

/* path into the binary form at out: 0 or -1 with d. */
static int to_binary(const char *path, const char *out, diag *d) {
  ktrace_reader *r = ktrace_open(path, d);
  CU_ASSERT_FATAL(r != NULL);
  FILE *f = fopen(out, "wb");
  ktrace_writer *w = ktrace_writer_open(f, out, d);
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_item it;
  int got, rc = 0;
  while (!rc && (got = ktrace_next(r, &it, d)) == 1) {
    rc = it.kind == KTRACE_ITEM_MEMCPY ? ktrace_write_memcpy(w, &it.memcpy, d) : ktrace_write_kernel(w, it.kernel, d);
    while (!rc && it.kind == KTRACE_ITEM_KERNEL && (got = ktrace_next_tb(r, tb, d)) == 1) rc = ktrace_write_tb(w, tb, d);
  }
  rc = rc || got < 0 ? (ktrace_writer_free(w), -1) : ktrace_writer_finish(w, d);
  fclose(f);
  ktrace_tb_free(tb);
  ktrace_close(r);
  return rc;
}

/* Reads a and b side by side: the same items and blocks. */
static void check_same(const char *a_path, const char *b_path) {
  diag d;
  ktrace_reader *a = ktrace_open(a_path, &d), *b = ktrace_open(b_path, &d);
  CU_ASSERT_FATAL(a && b);
  CU_ASSERT(!ktrace_is_binary(a) && ktrace_is_binary(b));
  ktrace_tb *ta = ktrace_tb_new(), *tb = ktrace_tb_new();
  ktrace_item ia, ib;
  int ga, gb, blocks = 0;
  while ((ga = ktrace_next(a, &ia, &d)) == 1) {
    CU_ASSERT_FATAL((gb = ktrace_next(b, &ib, &d)) == 1 && ia.kind == ib.kind);
    if (ia.kind == KTRACE_ITEM_MEMCPY) {
      CU_ASSERT(ia.memcpy.addr == ib.memcpy.addr && ia.memcpy.bytes == ib.memcpy.bytes);
      continue;
    }
    CU_ASSERT(same_kernel(ia.kernel, ib.kernel));
    while ((ga = ktrace_next_tb(a, ta, &d)) == 1) {
      CU_ASSERT_FATAL(ktrace_next_tb(b, tb, &d) == 1);
      CU_ASSERT(same_tb(ta, tb));
      blocks++;
    }
    CU_ASSERT(ktrace_next_tb(b, tb, &d) == 0);
  }
  CU_ASSERT(ga == 0 && ktrace_next(b, &ib, &d) == 0 && blocks > 0);
  uint32_t na, nb;
  ktrace_ops(a, &na);
  ktrace_ops(b, &nb);
  CU_ASSERT(na == nb);
  ktrace_tb_free(ta);
  ktrace_tb_free(tb);
  ktrace_close(a);
  ktrace_close(b);
}

static void test_binary_round_trip(void) {
  char out[32];
  diag d;
  temp_name(out);
  CU_ASSERT_FATAL(to_binary(FIXTURE, out, &d) == 0);
  check_same(FIXTURE, out);
  /* every tracer version's text, and odd registers, masks and PCs */
  char path[32];
  traceg(path, "", "(3,2,1)", "(48,1,1)", "",
         "#BEGIN_TB\nthread block = 2,1,0\nwarp = 1\ninsts = 3\n"
         "2 1 0 1 fff0 0000ffff 0 STS.64 3 R0 R255 R7 8 2 0x10 -8 24 -16 8 8 8 8 8 8 8 8 8 8 8 8\n"
         "2 1 0 1 0000 0000ffff 0 STS.64 3 R0 R255 R7 8 1 0xfffffffffffffff0 -1\n"
         "2 1 0 1 0000 00000000 1 R9 MOV 0 0\n"
         "warp = 0\ninsts = 0\n#END_TB\n");
  int rc = to_binary(path, out, &d);
  if (rc) printf("\n%s\n", d.msg);
  CU_ASSERT_FATAL(rc == 0);
  check_same(path, out);
  unlink(path);
  unlink(out);
}

/* ---- read ahead ---------------------------------------------------------------------------- */

/* A .traceg of `blocks` blocks of 2 warps, each block with an opcode of its
 * own (the reader's table grows while the thread reads ahead), block `bad`
 * (or none: blocks) with a line missing its stride. */
static void many_blocks(char path[32], unsigned blocks, unsigned bad) {
  size_t cap = 256 * (size_t)blocks, n = 0;
  char *body = malloc(cap), grid[32];
  for (unsigned b = 0; b < blocks; b++)
    n += (size_t)snprintf(body + n, cap - n,
                          "#BEGIN_TB\nthread block = %u,0,0\nwarp = 0\ninsts = 2\n"
                          "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x%x 4\n0010 0000000f 1 R3 MOV.B%u 1 R2 0\n"
                          "warp = 1\ninsts = 1\n%s#END_TB\n",
                          b, 0x1000 * b, b, b == bad ? "0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x10\n" : "0000 00000000 0 EXIT 0 0\n");
  snprintf(grid, sizeof grid, "(%u,1,1)", blocks);
  char *text = malloc(cap + 1024);
  header(text, cap + 1024, "4", grid, "(64,1,1)", "");
  strcat(text, body);
  temp_name(path);
  write_file(path, text, strlen(text));
  free(text);
  free(body);
}

/* path's blocks through ktrace_ahead (jobs) beside a plain reader: the same
 * blocks, then the same end or error, repeated; with stop_at, the ahead
 * reading ends after that many blocks and the next kernel item is the same. */
static void check_ahead(const char *path, unsigned jobs, unsigned stop_at) {
  diag d, da;
  ktrace_reader *plain = ktrace_open(path, &d), *r = ktrace_open(path, &da);
  CU_ASSERT_FATAL(plain && r);
  ktrace_ahead *a = ktrace_ahead_new(r, jobs);
  ktrace_tb *tp = ktrace_tb_new(), *ta = ktrace_tb_new();
  ktrace_item ip, ia;
  CU_ASSERT_FATAL(ktrace_next(plain, &ip, &d) == 1 && ktrace_next(r, &ia, &da) == 1);
  ktrace_ahead_begin(a);
  int gp, ga;
  unsigned blocks = 0;
  do {
    gp = ktrace_next_tb(plain, tp, &d);
    ga = ktrace_ahead_next_tb(a, ta, &da);
    CU_ASSERT_FATAL(gp == ga);
    if (gp == 1) CU_ASSERT(same_tb(tp, ta));
  } while (gp == 1 && ++blocks != stop_at);
  if (gp < 0) {
    CU_ASSERT(!strcmp(d.msg, da.msg));
    CU_ASSERT(ktrace_ahead_next_tb(a, ta, &da) == -1 && !strcmp(d.msg, da.msg));
  }
  if (gp == 0) CU_ASSERT(ktrace_ahead_next_tb(a, ta, &da) == 0);
  ktrace_ahead_end(a);
  gp = ktrace_next(plain, &ip, &d);
  CU_ASSERT(ktrace_next(r, &ia, &da) == gp);
  if (gp < 0) CU_ASSERT(!strcmp(d.msg, da.msg));
  ktrace_ahead_free(a);
  ktrace_tb_free(tp);
  ktrace_tb_free(ta);
  ktrace_close(plain);
  ktrace_close(r);
}

static void test_ahead(void) {
  char good[32], bad[32], want[64];
  many_blocks(good, 100, 100);
  many_blocks(bad, 100, 39);
  diag d;
  ktrace_tb *tb = ktrace_tb_new();
  CU_ASSERT(read_all(bad, tb, &d) == -1);
  snprintf(want, sizeof want, "%s:%u: ", bad, 14 + 39 * 10 + 9); /* after the header's 14 lines, the 40th block's 9th */
  CU_ASSERT(!strncmp(d.msg, want, strlen(want)) && strstr(d.msg, "expected a stride"));
  ktrace_tb_free(tb);
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    check_ahead(good, jobs, 0);
    check_ahead(bad, jobs, 0);
    check_ahead(good, jobs, 5); /* ended while the thread reads on */
    check_ahead(bad, jobs, 5);  /* the error then in the next kernel item */
  }
  unlink(good);
  unlink(bad);
}

/* ---- errors ---------------------------------------------------------------------------- */

/* The error reading body (under a version `ver` header) gives: its line and text. */
static void expect_error(const char *ver, const char *extra, const char *body, unsigned long line, const char *what) {
  char path[32], want[64];
  diag d;
  ktrace_tb *tb = ktrace_tb_new();
  traceg(path, ver, "(2,1,1)", "(64,1,1)", extra, body);
  CU_ASSERT(read_all(path, tb, &d) == -1);
  snprintf(want, sizeof want, "%s:%lu: ", path, line);
  bool ok = !strncmp(d.msg, want, strlen(want)) && strstr(d.msg, what) && !strchr(d.msg, '\n');
  if (!ok) printf("\nwanted %s...%s, got: %s\n", want, what, d.msg);
  CU_ASSERT(ok);
  ktrace_tb_free(tb);
  unlink(path);
}

/* The header has 14 lines (13 without a version line): a body's line n is line 14 + n. */
#define L(n) (14 + (n))

static void test_errors_body(void) {
  const char *v = "4";
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 1 R2 LDG.E.48 1 R4 6 1 0x10 6\n"), L(5), "width suffix");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 1 R2 LDG.E 1 R4 4 1 0x10\n"), L(5), "expected a stride");
  expect_error(v, "", "#BEGIN_TB\nthread block = 2,0,0\n#END_TB\n", L(2), "outside the grid (2,1,1)");
  expect_error(v, "", TB0("warp = 0\ninsts = 2\n0000 ffffffff 0 EXIT 0 0\n"), L(6), "'insts = 2' but 1 instruction");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n0000 ffffffff 0 EXIT 0 0\n"), L(6),
               "more instruction lines than 'insts = 1'");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\nwarp = 2\n"), L(6), "warp 2 is outside the block");
  expect_error(v, "", TB0("warp = 0\ninsts = 0\nwarp = 0\n"), L(5), "listed twice");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000007 0 STG.E 2 R2 R3 4 0 0x1 0x2\n"), L(5),
               "has 3 active lanes but the list gives 2 addresses");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000001 0 STG.E 2 R2 R3 4 0 0x1 0x2\n"), L(5),
               "gives more addresses");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000007 0 STG.E 2 R2 R3 4 2 0x100 4\n"), L(5),
               "so 2 deltas after the base, but the line gives 1");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000003 0 STG.E 2 R2 R3 4 2 0x100 4 4\n"), L(5), "more deltas");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000005 0 STG.E 2 R2 R3 4 1 0x100 4\n"), L(5), "contiguous");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000003 0 STG.E 2 R2 R3 4 1 0x100 4294967296\n"), L(5),
               "a stride (decimal): '4294967296' is out of range");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 00000003 0 STG.E 2 R2 R3 4 2 0x8 -16\n"), L(5), "wraps past 0");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n100000000 ffffffff 0 EXIT 0 0\n"), L(5),
               "a PC (hex): '100000000' is out of range (0..4294967295)");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 1ffffffff 0 EXIT 0 0\n"), L(5), "active mask");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 1 R256 MOV 0 0\n"), L(5), "register number: '256'");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 5 R1 R2 R3 R4 R5 MOV 0 0\n"), L(5), "destination count");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 99\n"), L(5), "unexpected '99'");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT\n"), L(5), "expected a source count, found the end");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 LD!G 0 0\n"), L(5), "expected an opcode");
  expect_error(v, "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 STG.E 0 4 3 0x1\n"), L(5), "an address format");
  expect_error(v, "", TB0("warp = 0\ninsts = 9999999\n"), L(4), "at most 2097152 warp instructions");
  expect_error(v, "", TB0("0000 ffffffff 0 EXIT 0 0\n"), L(3), "before 'warp =' and 'insts ='");
  expect_error(v, "", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n", L(5),
               "ends inside a thread block");
  expect_error(v, "", "#BEGIN_TB\nthread block = 0,0,0\n#BEGIN_TB\n", L(3), "#BEGIN_TB inside a thread block");
  expect_error(v, "", "0000 ffffffff 0 EXIT 0 0\n", L(1), "post-traces-processing");
  expect_error(v, "", "#END_TB\n", L(1), "#END_TB outside");
  expect_error(v, "", "#BEGIN_TB\nwarp = 0\n", L(2), "'warp =' before 'thread block ='");
  expect_error(v, "", "#BEGIN_TB\nthread block = 0,0\n", L(2), "expected 'thread block = X,Y,Z'");
  /* version-dependent shapes */
  expect_error("", "", TB0("warp = 1\ninsts = 1\n0 0 0 0 0000 ffffffff 0 EXIT 0 0\n"), L(5) - 1,
               "names thread block 0,0,0 warp 0, but it is in thread block 0,0,0 warp 1");
  expect_error("5", "", TB0("warp = 0\ninsts = 1\n0000 ffffffff 0 EXIT 0 0 1 2\n"), L(5), "unexpected '2'");
}

static void test_errors_header(void) {
  char path[32];
  diag d;
  ktrace_tb *tb = ktrace_tb_new();
  const struct {
    const char *text, *what;
    unsigned long line;
  } cases[] = {
      {"-kernel name = k\n-block dim = (1,1,1)\n#\n", "no '-grid dim = (X,Y,Z)' line", 0},
      {"-grid dim = (1,1,1)\n-block dim = (32,32,2)\n", "2048 threads, more than a block's 1024", 2},
      {"-grid dim = (1,0,1)\n", "-grid dim: y '0' is out of range (1..65535)", 1},
      {"-grid dim = 1,1,1\n", "is not (X,Y,Z)", 1},
      {"-grid dim = (1,1,1)\n-grid dim = (1,1,1)\n", "a second '-grid dim' line", 2},
      {"-nregs = 4294967296\n", "-nregs: '4294967296' is out of range", 1},
      {"-shmem base_addr = 0xzz\n", "not a hex address", 1},
      {"-accelsim tracer version = four\n", "not a version", 1},
      {"-enable lineinfo = 2\n", "-enable lineinfo: '2' is out of range (0..1)", 1},
      {"-grid dim = (1,1,1)\n-block dim\n", "has no '='", 2},
      {"-grid dim = (1,1,1)\nbogus\n", "expected a '-KEY = VALUE' header line", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    temp_name(path);
    write_file(path, cases[i].text, strlen(cases[i].text));
    CU_ASSERT(read_all(path, tb, &d) == -1);
    char want[64];
    if (cases[i].line) snprintf(want, sizeof want, "%s:%lu: ", path, cases[i].line);
    else snprintf(want, sizeof want, "%s: ", path);
    bool ok = !strncmp(d.msg, want, strlen(want)) && strstr(d.msg, cases[i].what);
    if (!ok) printf("\nwanted %s...%s, got: %s\n", want, cases[i].what, d.msg);
    CU_ASSERT(ok);
    unlink(path);
  }
  /* a file that is no kernel trace at all */
  temp_name(path);
  write_file(path, "r 0x1000 8\n", 11);
  CU_ASSERT(ktrace_open(path, &d) == NULL && strstr(d.msg, "not a kernel trace"));
  CU_ASSERT(!ktrace_sniff(path) && ktrace_sniff(FIXTURE));
  /* a binary record whose first byte is '-' (a ChampSim ip's low byte) is not a header */
  const uint8_t champsim[16] = {'-', 0x10, 0x40, 0, 0, 0, 0, 0, 0, 0, '=', 0, 0, 0, 0, '\n'};
  write_file(path, champsim, sizeof champsim);
  CU_ASSERT(!ktrace_sniff(path));
  unlink(path);
  ktrace_tb_free(tb);
}

static void test_errors_list(void) {
  char dir[32] = "ktdir-XXXXXX", list[64], kernel[64];
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  snprintf(list, sizeof list, "%s/kernelslist.g", dir);
  snprintf(kernel, sizeof kernel, "%s/kernel-1.traceg", dir);
  char text[1024];
  header(text, sizeof text, "4", "(1,1,1)", "(32,1,1)", "");
  write_file(kernel, text, strlen(text));
  diag d;
  const char *missing = "kernel-1.traceg\nMemcpyHtoD,0x10,4\nkernel-2.traceg\n";
  write_file(list, missing, strlen(missing));
  char want[256];
  snprintf(want, sizeof want, "%s:3: cannot open %s/kernel-2.traceg: No such file", list, dir);
  CU_ASSERT(ktrace_open(list, &d) == NULL && strstr(d.msg, want) == d.msg);
  const char *bad_copy = "MemcpyHtoD,0x10\n";
  write_file(list, bad_copy, strlen(bad_copy));
  CU_ASSERT(ktrace_open(list, &d) == NULL && strstr(d.msg, ":1: a MemcpyHtoD line is"));
  const char *bad_line = "kernel-1.traceg\nlaunch kernel-1\n";
  write_file(list, bad_line, strlen(bad_line));
  CU_ASSERT(ktrace_open(list, &d) == NULL && strstr(d.msg, ":2: a kernelslist line names"));
  /* MemcpyDtoH lines are skipped, as Accel-Sim skips them; a kernel with no blocks reads */
  const char *ok = "\nMemcpyDtoH,0x10,4\nkernel-1.traceg\nkernel-1.traceg\n";
  write_file(list, ok, strlen(ok));
  ktrace_tb *tb = ktrace_tb_new();
  CU_ASSERT(read_all(list, tb, &d) == 0);
  /* a kernel's blocks left unread are read before the next item */
  ktrace_reader *r = ktrace_open(FIXTURE, &d);
  ktrace_item it;
  int kernels = 0;
  while (ktrace_next(r, &it, &d) == 1) kernels += it.kind == KTRACE_ITEM_KERNEL;
  CU_ASSERT(kernels == 2);
  ktrace_close(r);
  ktrace_tb_free(tb);
  unlink(list);
  unlink(kernel);
  rmdir(dir);
}

/* Binary input: every cut of a good file is an error (or a good prefix),
 * never a crash; a wrong version and an unknown tag are named. */
static void test_errors_binary(void) {
  char out[32], cut[32];
  diag d;
  temp_name(out);
  CU_ASSERT_FATAL(to_binary(FIXTURE, out, &d) == 0);
  size_t n;
  char *bytes = slurp(out, &n);
  ktrace_tb *tb = ktrace_tb_new();
  temp_name(cut);
  for (size_t len = 8; len < n; len += 1 + len / 16) {
    write_file(cut, bytes, len);
    int got = read_all(cut, tb, &d);
    CU_ASSERT(got < 0 || got <= 3);
    if (got < 0) CU_ASSERT(strstr(d.msg, "binary record") && !strchr(d.msg, '\n'));
  }
  bytes[7] = 2;
  write_file(cut, bytes, n);
  CU_ASSERT(ktrace_open(cut, &d) == NULL && strstr(d.msg, "unsupported binary kernel trace version 2"));
  bytes[7] = 1;
  bytes[8] = 77;
  write_file(cut, bytes, n);
  CU_ASSERT(read_all(cut, tb, &d) == -1 && strstr(d.msg, ":1: binary record 1: an unknown record tag 77"));
  free(bytes);
  ktrace_tb_free(tb);
  unlink(cut);
  unlink(out);
}

int main(void) {
  static const test_case reading[] = {{"fixture", test_fixture},
                                      {"summary", test_summary},
                                      {"versions", test_versions},
                                      {"address formats", test_formats},
                                      {"widths and classes", test_widths_and_classes}, {"l2 only", test_l2_only}, {"int pipe", test_int_pipe},
                                      {"gzip, zstd, xz", test_codecs},
                                      {"binary round trip", test_binary_round_trip},
                                      {"read ahead", test_ahead},
                                      {NULL, NULL}};
  static const test_case errors[] = {{"body", test_errors_body},
                                     {"header", test_errors_header},
                                     {"kernelslist", test_errors_list},
                                     {"binary", test_errors_binary},
                                     {NULL, NULL}};
  static const test_suite suites[] = {{"ktrace", reading}, {"ktrace errors", errors}, {NULL, NULL}};
  return harness_run(suites);
}
