/* tlbsim dump — the page table after a trace, level by level, in the form of
 * OSTEP's multilevel-paging homework: each table with its (simulated)
 * physical address, then its valid entries as `index: raw (decoded)`, so a
 * student can translate an address by hand from the dump alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/machine.h"

typedef struct dump_ctx {
  FILE *out;
  const pt_format *f;
  int last_level;
} dump_ctx;

static void dump_table(void *ctx, unsigned level, uint64_t va_base, uint64_t table_pa, uint32_t nentries,
                       const uint64_t *raw) {
  dump_ctx *c = ctx;
  const pt_level_format *l = &c->f->level[level];
  unsigned bits = 0;
  while ((UINT32_C(1) << bits) < nentries) bits++;
  unsigned lo = l->shift + l->bits - bits; /* a larger leaf's table indexes fewer, higher bits */
  if ((int)level != c->last_level) fprintf(c->out, "\nlevel %u (%s)\n", level, l->name);
  c->last_level = (int)level;
  uint32_t valid = 0;
  for (uint32_t i = 0; i < nentries; i++) valid += raw[i] != 0;
  uint64_t last = va_base + (((uint64_t)nentries << lo) - 1);
  fprintf(c->out, "%s table at %#llx: VA %#llx-%#llx, index VA[%u:%u], %u entries x %u B, %u valid\n", l->name,
          (unsigned long long)table_pa, (unsigned long long)va_base, (unsigned long long)last, lo + bits - 1, lo,
          nentries, l->entry_bytes, valid);
  for (uint32_t i = 0; i < nentries; i++) {
    if (!raw[i]) continue;
    pt_entry e;
    diag d;
    char what[160];
    if (pt_entry_decode(c->f, level, raw[i], &e, &d)) { /* never: the pt wrote it */
      fprintf(c->out, "  %3u: 0x%016llx  undecodable: %s\n", i, (unsigned long long)raw[i], d.msg);
      continue;
    }
    explain_entry_text(&e, what, sizeof what);
    fprintf(c->out, "  %3u: 0x%016llx  %s\n", i, (unsigned long long)raw[i], what);
  }
}

int dump_pt(FILE *out, const machine *m) {
  const pt *t = machine_get_pt(m);
  const pt_format *f = pt_get_format(t);
  char buf[32];
  fprintf(out, "page table: format %s, %llu pages mapped, %s of tables\n", f->name,
          (unsigned long long)pt_mapped_pages(t), num_format_size(pt_total_bytes(t), buf, sizeof buf));
  fprintf(out, "entry = 0xFFAAAAAAAAAAAAAA: flags FF = V 0x01 | R 0x02 | W 0x04 | X 0x08 | L(leaf) 0x10 |"
               " leaf size k << 5; AAAA.. = next table, or the frame's address (frame = address / page size)\n");
  dump_ctx c = {.out = out, .f = f, .last_level = -1};
  return pt_each_table(t, dump_table, &c);
}

/* Record by record up to and including the first `mark LABEL`: its line, or 0 (diag). */
static unsigned long replay_to_mark(machine *m, trace_reader *r, const char *label, diag *d) {
  trace_record rec;
  int rc;
  while ((rc = trace_next(r, &rec, d)) == 1) {
    if (machine_apply(m, &rec, trace_get_path(r), d)) return 0;
    if (rec.kind == REC_MARK && !strcmp(rec.label, label)) return rec.line ? rec.line : 1;
  }
  if (rc == 0) diag_set(d, trace_get_path(r), 0, "no mark %s in the trace", label);
  return 0;
}

int cmd_dump(int argc, char **argv) {
  cli_config conf = {0};
  int trace_fmt = TRACE_AUTO;
  const char *at = NULL;
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default), native, lackey or din"},
      {.name = "at-mark", .kind = OPT_TEXT, .dest = &at, .arg = "LABEL",
       .help = "stop at the first `mark LABEL` record and dump the table as it stands there"},
  };
  const cli_spec spec = {
      .cmd = "dump", .usage = "[OPTIONS] TRACE|-", .operands = "TRACE", .min_operands = 1, .max_operands = 1,
      .about = "Replays TRACE through a machine (default preset x86-64) and prints the page table of\n"
               "the address space in use at its end, level by level: each table with its address and\n"
               "its valid entries as index: raw entry word (decoded fields). With --at-mark, the table\n"
               "as it stands at a mark of the trace.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine *m = cli_load_machine(&conf, "x86-64", &label, &d);
  if (!m) return cli_input_error(&d);
  trace_reader *r = trace_open(argv[first], (trace_format)trace_fmt, &d);
  rc = EXIT_INPUT;
  unsigned long line = 0;
  if (r && (at ? (line = replay_to_mark(m, r, at, &d)) != 0 : machine_replay(m, r, NULL, NULL, &d) == 0)) {
    if (at) printf("at mark %s (%s:%lu)\n", at, trace_get_path(r), line);
    if (dump_pt(stdout, m) == 0) rc = EXIT_OK;
    else diag_set(&d, NULL, 0, "out of memory");
  }
  if (r) trace_close(r);
  if (rc) cli_input_error(&d);
  machine_destroy(m);
  return rc;
}
