/* Kernel traces (tlbsim/ktrace.h): an input is read as a file, kernel by
 * kernel and block by block, counted as `tlbsim kernel --stats` counts it,
 * and written in the binary form; that binary is read back and must count
 * the same, to the byte.
 *
 * Oracle: every error is one line naming the input, and repeats on the
 * next call; a trace that reads has a binary form that reads the same. */
#define _GNU_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tlbsim/ktrace.h"

typedef struct tally {
  ktrace_counts c;      /* every kernel's, summed */
  uint64_t kernels, memcpy_bytes;
} tally;

static void expect_error(const diag *d, const char *name) {
  fuzz_check_diag(d);
  if (strncmp(d->msg, name, strlen(name))) abort();
}

static void sum(tally *t, const ktrace_counts *c) {
  const uint64_t *from = (const uint64_t *)c;
  uint64_t *to = (uint64_t *)&t->c;
  for (size_t i = 0; i < sizeof *c / sizeof(uint64_t); i++) to[i] += from[i];
}

/* Reads path whole into t, writing the binary form to w when given: 0, or
 * -1 after a (checked) error. */
static int read_trace(const char *path, ktrace_writer *w, tally *t) {
  diag d;
  ktrace_reader *r = ktrace_open(path, &d);
  if (!r) {
    expect_error(&d, path);
    return -1;
  }
  ktrace_tb *tb = ktrace_tb_new();
  ktrace_summary *s = ktrace_summary_new();
  if (!tb || !s) abort();
  ktrace_item it;
  int got;
  while ((got = ktrace_next(r, &it, &d)) == 1) {
    if (it.kind == KTRACE_ITEM_MEMCPY) {
      t->memcpy_bytes += it.memcpy.bytes;
      if (w && ktrace_write_memcpy(w, &it.memcpy, &d)) abort();
      continue;
    }
    t->kernels++;
    if (w && ktrace_write_kernel(w, it.kernel, &d)) abort();
    ktrace_summary_reset(s);
    while ((got = ktrace_next_tb(r, tb, &d)) == 1) {
      if (tb->ninst > KTRACE_TB_INSTS_MAX || tb->addr_at[tb->ninst] > KTRACE_TB_ADDRS_MAX) abort();
      if (ktrace_summary_add(s, tb) || (w && ktrace_write_tb(w, tb, &d))) abort();
    }
    ktrace_counts c;
    ktrace_summary_get(s, &c);
    sum(t, &c);
    if (got < 0) break;
  }
  if (got < 0) {
    expect_error(&d, path);
    diag again;
    if (ktrace_next(r, &it, &again) != -1 || strcmp(again.msg, d.msg)) abort();
  }
  ktrace_summary_free(s);
  ktrace_tb_free(tb);
  ktrace_close(r);
  return got < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file f;
  if (fuzz_file_open(&f, data, size)) abort();
  char *bin = NULL;
  size_t bin_len = 0;
  FILE *mem = open_memstream(&bin, &bin_len);
  diag d;
  ktrace_writer *w = mem ? ktrace_writer_open(mem, "<memory>", &d) : NULL;
  if (!w) abort();
  tally text = {0};
  int rc = read_trace(f.path, w, &text);
  if (rc) ktrace_writer_free(w);
  else if (ktrace_writer_finish(w, &d)) abort();
  fclose(mem);
  if (!rc) {
    fuzz_file b;
    tally again = {0};
    if (fuzz_file_open(&b, (const uint8_t *)bin, bin_len) || read_trace(b.path, NULL, &again) ||
        memcmp(&text, &again, sizeof text))
      abort();
    fuzz_file_close(&b);
  }
  free(bin);
  fuzz_file_close(&f);
  return 0;
}
