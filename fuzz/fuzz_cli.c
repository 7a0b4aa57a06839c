/* Command lines: cli_parse (getopt_long underneath) on an argument list,
 * one argument per input line, against a table with an option of every kind
 * and the ranges the subcommands use.
 *
 * Oracle: an accepted number is within its option's range, and an accepted
 * command line has at most three operands, at most one of them "-"; a
 * refused one is a usage error (EXIT_USAGE) or --help, never a crash. */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "fuzz.h"

#define MAX_ARGS 64

typedef struct values {
  bool flag;
  const char *text, *optional;
  uint64_t whole, size, steps;
  double real;
  int choice;
  unsigned choices;
  cli_config conf;
} values;

static const char *const formats[] = {"text", "json", "csv", NULL};
static const char *const orders[] = {"seq", "random", NULL};

static void check(bool ok) {
  if (!ok) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  char *argv[MAX_ARGS + 2] = {"fuzz"};
  int argc = 1;
  for (char *p = text, *nl; p && argc <= MAX_ARGS; p = nl ? nl + 1 : NULL) {
    nl = strchr(p, '\n');
    if (nl) *nl = '\0';
    argv[argc++] = p;
  }
  argv[argc] = NULL;
  values v = {.whole = 7};
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&v.conf),
      {.name = "flag", .kind = OPT_FLAG, .dest = &v.flag, .help = "a flag"},
      {.name = "text", .kind = OPT_TEXT, .dest = &v.text, .arg = "T", .help = "text"},
      {.name = "opt", .kind = OPT_TEXT_OPTIONAL, .dest = &v.optional, .arg = "T", .help = "optional text"},
      {.name = "whole", .kind = OPT_WHOLE, .dest = &v.whole, .arg = "N", .lo = 1, .hi = 64, .help = "1..64"},
      {.name = "steps", .kind = OPT_WHOLE, .dest = &v.steps, .arg = "N", .lo = 1, .hi = NUM_U32_MAX, .help = "steps"},
      {.name = "size", .kind = OPT_SIZE, .dest = &v.size, .arg = "SIZE", .lo = 8, .help = "at least 8 bytes"},
      {.name = "real", .kind = OPT_REAL, .dest = &v.real, .arg = "X", .rlo = 0, .rhi = 1, .help = "0..1"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &v.choice, .arg = "F", .choices = formats, .help = "format"},
      {.name = "order", .kind = OPT_CHOICES, .dest = &v.choices, .arg = "LIST", .choices = orders, .help = "orders"},
  };
  const cli_spec spec = {.cmd = "fuzz", .usage = "[OPTIONS] [ARG]", .about = "fuzzed", .operands = "ARG",
                         .max_operands = 3, .one_stdin = true, .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  check(rc == 0 || rc == -1 || rc == EXIT_USAGE);
  if (rc == 0) {
    check(v.whole >= 1 && v.whole <= 64);
    check(v.steps <= NUM_U32_MAX);
    check(v.size == 0 || v.size >= 8);
    check(v.real >= 0 && v.real <= 1);
    check(v.choice >= 0 && v.choice < 3 && v.choices < 4u);
    check(first >= 1 && first <= argc && argc - first <= 3);
    int stdins = 0;
    for (int i = first; i < argc; i++) stdins += !strcmp(argv[i], "-");
    check(stdins <= 1);
  }
  free(text);
  return 0;
}
