/* sim/cli/cli_opts.h — a subcommand's command line as one table.
 *
 * cli_opt   one long option: what it takes (a flag, text, a ranged whole
 *           number or size, a ranged real, one of a list of names, or
 *           anything a callback checks), where the value goes, and its help
 *           line. Numbers go through the numbers module with the option's
 *           range, so every subcommand says the same thing about a bad one.
 *           An option may have an alias: an older name kept working
 *           (convert's --from for --trace-format), listed in --help as one.
 * cli_spec  a subcommand: its name, usage line, description, operands and
 *           options. cli_parse reads argv with it; cli_help writes --help
 *           from it (and so could a man page), so the help never drifts
 *           from what is parsed.
 *
 * Errors print one line and give EXIT_USAGE: "tlbsim CMD: --OPTION: 'VALUE'
 * is not a whole number", "... 'VALUE' is out of range (MIN..MAX)" (the
 * numbers module's words, as every input says them), "... 'VALUE' is not
 * text, json or csv".
 */
#ifndef TLBSIM_CLI_OPTS_H
#define TLBSIM_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
  OPT_FLAG,   /* bool *: set */
  OPT_TEXT,   /* const char **: the argument */
  OPT_TEXT_OPTIONAL, /* const char **: the argument of --name=ARG, or "" for a bare --name */
  OPT_WHOLE,  /* uint64_t *: a whole number in [lo, hi] */
  OPT_SIZE,   /* uint64_t *: a size in [lo, hi] */
  OPT_REAL,   /* double *: a finite number in [rlo, rhi] */
  OPT_CHOICE, /* int *: the index of the argument in choices */
  OPT_CHOICES, /* unsigned *: a bit (1 << index) per name of a comma-separated list of choices */
  OPT_CALL,   /* call(dest, arg, why): 0, or -1 with what the argument is not in why */
} cli_opt_kind;

#define CLI_WHY_MAX 160

typedef struct cli_opt {
  const char *name; /* without the leading -- */
  const char *alias; /* an older spelling still accepted (and listed as one), or NULL */
  cli_opt_kind kind;
  void *dest;
  const char *arg;  /* its argument in the help ("SIZE"); NULL for a flag */
  const char *help; /* one line; more lines after \n are indented under it */
  uint64_t lo, hi;  /* WHOLE, SIZE; hi 0 means no upper bound */
  double rlo, rhi;  /* REAL */
  const char *const *choices; /* CHOICE, CHOICES: NULL-terminated */
  int (*call)(void *dest, const char *arg, char *why, size_t len);
} cli_opt;

typedef struct cli_spec {
  const char *cmd;      /* "run" */
  const char *usage;    /* what follows "tlbsim run " in the usage line */
  const char *about;    /* what the command does: a paragraph */
  const char *operands; /* "TRACE": named in "expected one TRACE" */
  unsigned min_operands, max_operands;
  bool one_stdin;       /* the operands are inputs: "-" (stdin) at most once, as it reads only once */
  const cli_opt *opt;
  size_t nopt;
  const char *notes;    /* printed after the options, may be NULL */
  void (*more_help)(FILE *f); /* lists that follow the notes (policies, parameters), may be NULL */
} cli_spec;

/* Parses argv (argv[0] is the command's name): 0 with *first the index of
 * the first operand; EXIT_USAGE after printing the error; -1 after printing
 * --help to stdout. */
int cli_parse(const cli_spec *s, int argc, char **argv, int *first);
void cli_help(FILE *f, const cli_spec *s);

#endif
