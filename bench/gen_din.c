/* bench_gen_din — writes a synthetic data-access trace for the benchmarks.
 *
 * The trace is what a TLB sees from a loop that mostly walks memory
 * sequentially and now and then jumps: each access either moves on by one
 * 8-byte word (probability 1 - jump) or jumps to a random word. Only data
 * accesses (din labels 0 and 1, lackey L and S) are written, because Dinero IV
 * sends label 2 to its instruction cache and the throughput comparison is
 * against its data cache alone. As ChampSim records (--format champsim:
 * ChampSim's 64-byte input_instr, traces/FORMAT.md), each access is one
 * instruction's one load or store, for the xz decoding benchmark.
 *
 * Footprints:
 *   bounded  every address lies in [BASE, BASE + footprint): the set of pages
 *            stays fixed however long the trace, so a simulator that streams
 *            must run in constant memory.
 *   grow     jumps go to the next never-used page instead, so distinct pages
 *            grow with the trace and the simulated page table must grow too.
 *
 * Output is deterministic for a given seed and written through one large
 * buffer, so the generator is never the slower end of a pipe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim/base.h"

#define WORD 8u                          /* bytes per access: aligned, never straddles a page */
#define PAGE 4096u                       /* "grow" mode's unit of new footprint */
#define BASE 0x7f0000000000ull           /* a user-space VA typical of x86-64 mmap */
#define JUMP_SCALE 1000000u              /* jump probability is given in parts per million */
#define WRITE_EVERY 3u                   /* one access in three is a write */
#define OUT_BUF (1u << 20)
#define LINE_MAX_LEN 64u                 /* a ChampSim record; " S 7f0000000000,8\n" is 18 bytes */
#define CHAMPSIM_IP 0x400000ull          /* where the records' instructions sit, one every 4 bytes */
#define CHAMPSIM_STORE 16u               /* input_instr: destination_memory[0] */
#define CHAMPSIM_LOAD 32u                /* input_instr: source_memory[0] */

typedef enum { FMT_DIN, FMT_LACKEY, FMT_CHAMPSIM } out_format;

typedef struct options {
  out_format format;
  uint64_t lines;
  uint64_t footprint;   /* bytes; bounded mode only */
  uint64_t jump_ppm;    /* chance of a jump per access */
  uint64_t seed;
  bool grow;
} options;

/* One output buffer; flushed when it cannot hold another line. */
typedef struct outbuf {
  char data[OUT_BUF];
  size_t used;
} outbuf;

/* Empties the buffer even when the write fails, so it always has room. */
static int flush(outbuf *o) {
  size_t n = o->used;
  o->used = 0;
  return n && fwrite(o->data, 1, n, stdout) != n ? -1 : 0;
}

/* Lower-case hex without leading zeros, padded to at least `width` digits. */
static size_t put_hex(char *dst, uint64_t v, unsigned width) {
  char tmp[16];
  unsigned n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  while (n < width) tmp[n++] = '0';
  for (unsigned i = 0; i < n; i++) dst[i] = tmp[n - 1 - i];
  return n;
}

/* v little-endian at dst, as ChampSim's x86-64 tracer writes it. */
static void put_le64(char *dst, uint64_t v) {
  for (unsigned i = 0; i < 8; i++) dst[i] = (char)(v >> (8 * i));
}

/* Record i: an instruction whose one memory operand is addr. */
static size_t format_champsim(char *dst, uint64_t i, bool write, uint64_t addr) {
  memset(dst, 0, 64);
  put_le64(dst, CHAMPSIM_IP + 4 * (i % 4096));
  put_le64(dst + (write ? CHAMPSIM_STORE : CHAMPSIM_LOAD), addr);
  return 64;
}

static size_t format_line(char *dst, out_format f, uint64_t i, bool write, uint64_t addr) {
  size_t n = 0;
  if (f == FMT_CHAMPSIM) return format_champsim(dst, i, write, addr);
  if (f == FMT_DIN) {
    dst[n++] = write ? '1' : '0';
    dst[n++] = ' ';
    n += put_hex(dst + n, addr, 1);
  } else {
    dst[n++] = ' ';
    dst[n++] = write ? 'S' : 'L';
    dst[n++] = ' ';
    n += put_hex(dst + n, addr, 8);  /* lackey pads to 8 digits */
    dst[n++] = ',';
    dst[n++] = '0' + WORD;
  }
  dst[n++] = '\n';
  return n;
}

static int generate(const options *opt) {
  outbuf *out = malloc(sizeof *out);  /* 1 MiB: too big for the stack */
  if (!out) return -1;
  out->used = 0;
  rng r;
  rng_seed(&r, opt->seed);
  uint64_t offset = 0;        /* from BASE */
  uint64_t next_page = PAGE;  /* grow mode: first page not yet used */
  int rc = 0;
  for (uint64_t i = 0; i < opt->lines && rc == 0; i++) {
    uint64_t draw = rng_next(&r);
    bool write = (draw >> 32) % WRITE_EVERY == 0;
    if ((draw & 0xffffffffu) % JUMP_SCALE < opt->jump_ppm) {
      if (opt->grow) {
        offset = next_page + rng_below(&r, PAGE / WORD) * WORD;
        next_page += PAGE;
      } else {
        offset = rng_below(&r, opt->footprint / WORD) * WORD;
      }
    } else {
      offset += WORD;
      if (opt->grow && offset >= next_page) next_page += PAGE;  /* walked onto a new page */
      if (!opt->grow && offset >= opt->footprint) offset = 0;
    }
    if (OUT_BUF - out->used < LINE_MAX_LEN) rc = flush(out);
    out->used += format_line(out->data + out->used, opt->format, i, write, BASE + offset);
  }
  if (rc == 0) rc = flush(out);
  free(out);
  return rc;
}

static void usage(FILE *f) {
  fputs("usage: bench_gen_din [--format din|lackey|champsim] [--lines N] [--footprint SIZE | --grow]\n"
        "                     [--jump PPM] [--seed S]\n"
        "Writes N data accesses (default 10000000) to stdout: sequential 8-byte words with a\n"
        "jump to a random word with probability PPM/1000000 (default 20000). Addresses stay in\n"
        "SIZE bytes (default 64M) or, with --grow, each jump opens a never-used 4 KiB page.\n"
        "champsim: one 64-byte ChampSim record per access (binary).\n",
        f);
}

static int parse_args(int argc, char **argv, options *opt) {
  *opt = (options){FMT_DIN, 10000000, 64ull << 20, 20000, 1, false};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--grow")) {
      opt->grow = true;
      continue;
    }
    if (!strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "bench_gen_din: unknown option or missing value: %s\n", a);
      return -1;
    }
    const char *v = argv[++i];
    int rc;
    if (!strcmp(a, "--format")) {
      rc = !strcmp(v, "din") ? (opt->format = FMT_DIN, 0)
           : !strcmp(v, "lackey") ? (opt->format = FMT_LACKEY, 0)
           : !strcmp(v, "champsim") ? (opt->format = FMT_CHAMPSIM, 0) : -1;
    } else if (!strcmp(a, "--lines")) {
      rc = num_parse_whole(v, &opt->lines);
    } else if (!strcmp(a, "--footprint")) {
      rc = num_parse_size(v, &opt->footprint);
      if (rc == 0 && opt->footprint < WORD) rc = -1;
    } else if (!strcmp(a, "--jump")) {
      rc = num_parse_whole(v, &opt->jump_ppm);
      if (rc == 0 && opt->jump_ppm > JUMP_SCALE) rc = -1;
    } else if (!strcmp(a, "--seed")) {
      rc = num_parse_whole(v, &opt->seed);
    } else {
      fprintf(stderr, "bench_gen_din: unknown option %s\n", a);
      return -1;
    }
    if (rc < 0) {
      fprintf(stderr, "bench_gen_din: bad value for %s: '%s'\n", a, v);
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  options opt;
  if (parse_args(argc, argv, &opt) < 0) {
    usage(stderr);
    return 2;
  }
  if (generate(&opt) < 0 || fflush(stdout) != 0) {
    fprintf(stderr, "bench_gen_din: write error on stdout\n");
    return 1;
  }
  return 0;
}
