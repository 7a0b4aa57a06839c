/* tlbsim dump — the page table after a trace, level by level, in the form of
 * OSTEP's multilevel-paging homework: each table with its (simulated)
 * physical address, then its valid entries as `index: raw (decoded)`, so a
 * student can translate an address by hand from the dump alone. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/ptview.h"

#define PROGRESS_RECORDS 4096 /* records replayed one by one between looks at the clock and ^C */

/* Record by record up to and including the first `mark LABEL`: its line,
 * or 0 (diag); ^C stops it (w->stopped_at says where, 0 returned). */
static unsigned long replay_to_mark(machine *m, trace_reader *r, const char *label, cli_trace_watch *w, diag *d) {
  trace_record rec;
  int rc;
  for (uint64_t n = 1; (rc = trace_next(r, &rec, d)) == 1; n++) {
    if (machine_apply(m, &rec, trace_get_path(r), d)) return 0;
    if (rec.kind == REC_MARK && !strcmp(rec.label, label)) return rec.line ? rec.line : 1;
    if (n % PROGRESS_RECORDS == 0 && cli_trace_watch_tick(w, n)) return 0;
  }
  if (rc == 0) diag_set(d, trace_get_path(r), 0, "no mark %s in the trace", label);
  return 0;
}

static int each_block(void *ctx) { return cli_trace_watch_tick(ctx, 0); }

int cmd_dump(int argc, char **argv) {
  cli_config conf = {0};
  int trace_fmt = TRACE_AUTO;
  const char *at = NULL;
  int format = 0;
  uint64_t jobs = 0;
  bool quiet = false;
  static const char *const formats[] = {"text", "json", NULL};
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "trace-format", .kind = OPT_CHOICE, .dest = &trace_fmt, .arg = "F", .choices = trace_format_names,
       .help = "auto (default: from the first bytes), native, lackey, din, binary, champsim or pinatrace"},
      {.name = "at-mark", .kind = OPT_TEXT, .dest = &at, .arg = "LABEL",
       .help = "stop at the first 'mark LABEL' record and dump the table as it stands there"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &format, .arg = "F", .choices = formats,
       .help = "text (default) or json: levels[] of tables[], each with its valid_entries[]"},
      CLI_JOBS_OPT(&jobs),
      CLI_QUIET_OPT(&quiet),
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
  trace_reader *r = trace_open_jobs(argv[first], (trace_format)trace_fmt, (unsigned)jobs, &d);
  rc = EXIT_INPUT;
  unsigned long line = 0;
  cli_trace_watch w;
  cli_trace_watch_start(&w, "dump", quiet, r, argv[first], NULL);
  int replayed = !r ? -1 : at ? ((line = replay_to_mark(m, r, at, &w, &d)) ? 0 : w.stopped_at[0] ? 1 : -1)
                               : machine_replay(m, r, each_block, &w, &d);
  if (replayed == 0 && !at && cli_check_nonempty(r, &d)) replayed = -1;
  cli_progress_end(&w.line);
  if (replayed >= 0) {
    if (format) {
      json_object *doc = ptview_dump_json(m, at, line);
      if (doc) {
        if (replayed) json_object_object_add(doc, "partial", json_object_new_boolean(1));
        printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(doc);
        rc = EXIT_OK;
      }
    } else {
      if (replayed) printf("partial: interrupted, the table as the records read before it left it\n");
      if (at && line) printf("at mark %s (%s:%lu)\n", at, trace_get_path(r), line);
      if (ptview_dump_text(stdout, m) == 0) rc = EXIT_OK;
    }
    if (rc) diag_set(&d, NULL, 0, "out of memory");
    else if (replayed) rc = CLI_EXIT_INTERRUPTED, cli_interrupted_note("dump", w.stopped_at);
  }
  if (r) trace_close(r);
  if (rc && rc != CLI_EXIT_INTERRUPTED) cli_input_error(&d);
  machine_destroy(m);
  return rc;
}
