/* bench_gen_ktrace — writes a synthetic Accel-Sim kernel trace (a
 * kernel-1.traceg, tracer version 4) for the kernel-trace benchmarks: the
 * SASS an embedding-bag lookup runs, one warp per bag.
 *
 * Each warp reads its bag's ids one by one (every lane loads the same id:
 * base_stride with stride 0), hashes the id to a row of the table, and
 * loads the row with one LDG.E.64 whose lanes read 8 bytes each (base_stride
 * 8, as many lanes as the row has 8-byte words), around a dozen integer and
 * float instructions; it ends storing its sum. With the defaults (65,536
 * warps, 20 lookups) the trace is 23 million lines, about 1 GB: the size of
 * issue #23's 2 M-lookup embedding trace. Rows are drawn uniformly from the
 * table by a seeded xoshiro, so the output is the same for a given seed.
 *
 *   bench_gen_ktrace [--warps N] [--lookups L] [--row BYTES] [--table BYTES]
 *                    [--list-all] [--seed S] > kernel-1.traceg
 *
 * --warps is a multiple of 8 (blocks of 256 threads); --row a multiple of 8
 * up to 256; --list-all writes every lane's address (the tracer's
 * TOOL_COMPRESS=0) instead of base_stride.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/base.h"

#define IDS 0x7f1000000000ull   /* the bags' ids, 4 bytes each */
#define TABLE 0x7f2000000000ull /* the table */
#define OUT 0x7f1800000000ull   /* the bags' sums, 8 bytes a lane */
#define WARPS_PER_BLOCK 8u

typedef struct options {
  uint64_t warps, lookups, row, table, seed;
  bool list_all;
} options;

static int usage(void) {
  fprintf(stderr, "usage: bench_gen_ktrace [--warps N (multiple of 8)] [--lookups L] [--row BYTES (8..256, "
                  "multiple of 8)] [--table BYTES] [--list-all] [--seed S]\n");
  return 2;
}

static int parse(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    uint64_t *dest = NULL;
    if (!strcmp(argv[i], "--list-all")) {
      o->list_all = true;
      continue;
    }
    if (!strcmp(argv[i], "--warps")) dest = &o->warps;
    else if (!strcmp(argv[i], "--lookups")) dest = &o->lookups;
    else if (!strcmp(argv[i], "--row")) dest = &o->row;
    else if (!strcmp(argv[i], "--table")) dest = &o->table;
    else if (!strcmp(argv[i], "--seed")) dest = &o->seed;
    if (!dest || i + 1 == argc || num_parse_size(argv[++i], dest)) return -1;
  }
  if (!o->warps || o->warps % WARPS_PER_BLOCK || !o->row || o->row % 8 || o->row > 256 || o->table < o->row) return -1;
  return 0;
}

/* A memory instruction's addresses: n lanes from a, stride s. */
static void addrs(const options *o, uint64_t a, unsigned n, unsigned s) {
  if (!o->list_all) {
    printf("1 0x%" PRIx64 " %u ", a, s);
    return;
  }
  printf("0 ");
  for (unsigned l = 0; l < n; l++) printf("0x%016" PRIx64 " ", a + (uint64_t)l * s);
}

static void warp(const options *o, rng *r, uint64_t bag) {
  unsigned lanes = (unsigned)(o->row / 8);
  uint32_t mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
  const char *m = "ffffffff";
  char row_mask[16];
  snprintf(row_mask, sizeof row_mask, "%08x", mask);
  printf("insts = %" PRIu64 "\n", 8 + 17 * o->lookups + 3);
  printf("0000 %s 1 R1 IMAD.MOV.U32 2 R255 R255 0 \n0010 %s 1 R0 S2R 0 0 \n0020 %s 1 R3 S2R 0 0 \n"
         "0030 %s 1 R2 IMAD 2 R3 R0 0 \n0040 %s 1 R4 SHF.R.U32.HI 1 R2 0 \n0050 %s 1 R14 MOV 0 0 \n"
         "0060 %s 1 R15 MOV 0 0 \n0070 %s 1 R16 IMAD.MOV.U32 1 R255 0 \n",
         m, m, m, m, m, m, m, m);
  uint64_t rows = o->table / o->row;
  for (uint64_t k = 0; k < o->lookups; k++) {
    uint64_t id_at = IDS + (bag * o->lookups + k) * 4, row = rng_below(r, rows);
    printf("0080 %s 1 R6 IMAD.WIDE 2 R4 R16 0 \n0090 %s 1 R7 LDG.E 1 R6 4 ", m, m);
    addrs(o, id_at, 32, 0);
    printf("\n00a0 %s 1 R8 IMAD.WIDE.U32 1 R7 0 \n00b0 %s 1 R9 LOP3.LUT 2 R8 R7 0 \n"
           "00c0 %s 1 R9 IMAD.HI.U32 1 R9 0 \n00d0 %s 1 R9 SHF.R.U32.HI 1 R9 0 \n00e0 %s 1 R9 IMAD 2 R9 R8 0 \n"
           "00f0 %s 1 R10 IADD3 2 R9 R0 0 \n0100 %s 1 R10 IMAD.WIDE 2 R10 R3 0 \n0110 %s 1 R12 LDG.E.64 1 R10 8 ",
           m, m, m, m, m, m, m, row_mask);
    addrs(o, TABLE + row * o->row, lanes, 8);
    printf("\n0120 %s 1 R14 FADD 2 R14 R12 0 \n0130 %s 1 R15 FADD 2 R15 R13 0 \n0140 %s 1 R16 IADD3 1 R16 0 \n"
           "0150 %s 0 ISETP.NE.AND 1 R16 0 \n0160 %s 0 BRA 0 0 \n0170 %s 1 R17 MOV 0 0 \n0180 %s 1 R18 IMAD.MOV.U32 1 R17 0 \n",
           row_mask, row_mask, m, m, m, m, m);
  }
  printf("0190 %s 1 R20 IMAD.WIDE 1 R2 0 \n01a0 %s 0 STG.E.64 3 R20 R14 R15 8 ", row_mask, row_mask);
  addrs(o, OUT + bag * 256, lanes, 8);
  printf("\n01b0 %s 0 EXIT 0 0 \n", m);
}

int main(int argc, char **argv) {
  options o = {.warps = 65536, .lookups = 20, .row = 256, .table = UINT64_C(16) << 30, .seed = 1};
  if (parse(argc, argv, &o)) return usage();
  static char buf[1 << 20];
  setvbuf(stdout, buf, _IOFBF, sizeof buf);
  uint64_t blocks = o.warps / WARPS_PER_BLOCK;
  printf("-kernel name = _Z9embed_bagPKfPKiPfiii\n-kernel id = 1\n-grid dim = (%" PRIu64 ",1,1)\n"
         "-block dim = (256,1,1)\n-shmem = 0\n-nregs = 32\n-binary version = 90\n-cuda stream id = 0\n"
         "-shmem base_addr = 0x00007f3000000000\n-local mem base_addr = 0x00007f3100000000\n-nvbit version = 1.7.1\n"
         "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n#traces format = [line_num] PC mask dest_num "
         "[reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]\n\n",
         blocks);
  rng r;
  rng_seed(&r, o.seed);
  for (uint64_t b = 0; b < blocks; b++) {
    printf("\n#BEGIN_TB\n\nthread block = %" PRIu64 ",0,0\n", b);
    for (unsigned w = 0; w < WARPS_PER_BLOCK; w++) {
      printf("\nwarp = %u\n", w);
      warp(&o, &r, b * WARPS_PER_BLOCK + w);
    }
    printf("\n#END_TB\n");
  }
  return fflush(stdout) ? 1 : 0;
}
