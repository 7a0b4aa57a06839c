/* tlbsim quiz — seeded exercises with an answer key the simulator computes
 * (the quiz module); this file parses the command line and lends the quiz
 * the CLI's way of building a machine from a preset and of printing a page
 * table, so its answers are what `run` and `dump` say. */
#include <stdio.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/ptview.h"
#include "tlbsim/quiz.h"

static machine *build(void *ctx, const char *preset, const char *const *sets, size_t nsets, diag *d) {
  (void)ctx;
  cli_config c = {.preset = preset};
  for (size_t i = 0; i < nsets && i < CLI_MAX_SETS; i++) c.sets[c.nsets++] = sets[i];
  const char *label;
  return cli_load_machine(&c, preset, &label, d);
}

static int show_pt(void *ctx, FILE *out, const machine *m) {
  (void)ctx;
  return ptview_dump_text(out, m);
}

static const char *const quiz_formats[] = {"text", "json", NULL};

int cmd_quiz(int argc, char **argv) {
  quiz_options o = {.seed = 1};
  int format = QUIZ_TEXT;
  const cli_opt opts[] = {
      {.name = "seed", .kind = OPT_WHOLE, .dest = &o.seed, .arg = "N", .hi = UINT64_MAX,
       .help = "which exercises (default 1): the same seed gives the same text"},
      {.name = "kind", .kind = OPT_CHOICES, .dest = &o.kinds, .arg = "K,...", .choices = quiz_kind_names,
       .help = "translate, tlb, pt-size, alloc or pool: only these kinds, a comma list\n"
               "(default: all)"},
      {.name = "answers", .kind = OPT_FLAG, .dest = &o.answers, .help = "show the answer key"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &format, .arg = "F", .choices = quiz_formats,
       .help = "text (default) or json (each exercise's trace, command and questions;\n"
               "with --answers each answer in the replaying command's JSON keys)"},
  };
  const cli_spec spec = {
      .cmd = "quiz", .usage = "[--seed N] [--kind K,...] [--answers] [--format text|json]",
      .about = "Writes exercises for a lesson on page tables, TLBs and allocators: translate addresses\n"
               "from a page-table dump (or name the fault), predict a TLB's hits, misses and evictions,\n"
               "count the page-table pages and bytes a mapping needs, say which allocation fails first\n"
               "under first-fit, best-fit and buddy and why, count the driver calls, shootdowns and PTE\n"
               "writes of cudaMalloc against PyTorch's caching allocator. Formats teaching16, x86-64 and\n"
               "Hopper. The simulator computes every answer, and each exercise gives its trace and the\n"
               "tlbsim command that replays it, so a student can check an answer.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  o.format = (quiz_format)format;
  const quiz_env env = {.build = build, .show_pt = show_pt};
  diag d;
  if (quiz_write(stdout, &o, &env, &d)) return cli_input_error(&d);
  return EXIT_OK;
}
