/* One command-line parser and one --help writer for every subcommand (see
 * cli_opts.h); getopt_long does the scanning. */
#include "cli_opts.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/num.h"

#define MAX_OPTS 64
#define HELP_CODE 1000 /* getopt's value for --help: past every table index */

/* "text, json or csv" */
static void join_choices(const char *const *c, char *buf, size_t len) {
  size_t n = 0;
  while (c[n]) n++;
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", c[i]);
  }
}

static int choice_index(const char *const *c, const char *name, size_t len) {
  for (int i = 0; c[i]; i++)
    if (strlen(c[i]) == len && !strncmp(c[i], name, len)) return i;
  return -1;
}

/* "a,b" → bit per name; -1 on an unknown or empty name. */
static int choice_mask(const char *const *c, const char *list, unsigned *mask) {
  *mask = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    int i = choice_index(c, p, len);
    if (i < 0) return -1;
    *mask |= 1u << i;
    p += len;
    if (!*p) return 0;
  }
}

/* The kinds whose failure says what the argument is not: 0 with the value
 * stored, or -1 with that ("text, json or csv") in why. */
static int take_named(const cli_opt *o, const char *arg, char *why, size_t len) {
  if (o->kind == OPT_CALL) return o->call(o->dest, arg, why, len);
  if (o->kind == OPT_CHOICE) {
    int i = choice_index(o->choices, arg, strlen(arg));
    if (i >= 0) return *(int *)o->dest = i, 0;
    join_choices(o->choices, why, len);
    return -1;
  }
  if (!choice_mask(o->choices, arg, o->dest)) return 0; /* OPT_CHOICES */
  char names[CLI_WHY_MAX - 40];
  join_choices(o->choices, names, sizeof names);
  snprintf(why, len, "a comma-separated list of %s", names);
  return -1;
}

/* Stores arg into o's destination: 0, or -1 with what is wrong with it in
 * why: "'x' is not a whole number", "'0' is out of range (1..64)", "'xml'
 * is not text, json or csv". */
static int take(const cli_opt *o, const char *arg, char *why, size_t len) {
  uint64_t hi = o->hi ? o->hi : UINT64_MAX;
  switch (o->kind) {
  case OPT_FLAG: *(bool *)o->dest = true; return 0;
  case OPT_TEXT: *(const char **)o->dest = arg; return 0;
  case OPT_TEXT_OPTIONAL: *(const char **)o->dest = arg ? arg : ""; return 0;
  case OPT_WHOLE:
  case OPT_SIZE: {
    num_kind k = o->kind == OPT_SIZE ? NUM_SIZE : NUM_WHOLE;
    num_status st = k == NUM_SIZE ? num_size_in(arg, o->lo, hi, o->dest) : num_whole_in(arg, o->lo, hi, o->dest);
    return st == NUM_OK ? 0 : (num_complaint(st, k, arg, o->lo, hi, why, len), -1);
  }
  case OPT_REAL: {
    num_status st = num_real_in(arg, o->rlo, o->rhi, o->dest);
    return st == NUM_OK ? 0 : (num_complaint_real(st, arg, o->rlo, o->rhi, why, len), -1);
  }
  case OPT_CHOICE:
  case OPT_CHOICES:
  case OPT_CALL: break;
  }
  char expected[CLI_WHY_MAX], q[48];
  if (!take_named(o, arg, expected, sizeof expected)) return 0;
  snprintf(why, len, "'%s' is not %s", num_quote(arg, q, sizeof q), expected);
  return -1;
}

int cli_parse(const cli_spec *s, int argc, char **argv, int *first) {
  struct option longs[2 * MAX_OPTS + 2];
  size_t n = s->nopt < MAX_OPTS ? s->nopt : MAX_OPTS, k = 0;
  for (size_t i = 0; i < n; i++) {
    int has_arg = s->opt[i].kind == OPT_FLAG            ? no_argument
                  : s->opt[i].kind == OPT_TEXT_OPTIONAL ? optional_argument
                                                        : required_argument;
    longs[k++] = (struct option){s->opt[i].name, has_arg, NULL, (int)i};
    if (s->opt[i].alias) longs[k++] = (struct option){s->opt[i].alias, has_arg, NULL, (int)i};
  }
  longs[k] = (struct option){"help", no_argument, NULL, HELP_CODE};
  longs[k + 1] = (struct option){NULL, 0, NULL, 0};
  optind = 1;
  opterr = 0;
  int ch;
  while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    if (ch == HELP_CODE) {
      cli_help(stdout, s);
      return -1;
    }
    if (ch < 0 || (size_t)ch >= n)
      return cli_usage_error(s->cmd, "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
    char why[CLI_WHY_MAX + 64];
    if (take(&s->opt[ch], optarg, why, sizeof why)) return cli_usage_error(s->cmd, "--%s: %s", s->opt[ch].name, why);
  }
  unsigned operands = (unsigned)(argc - optind);
  if (operands < s->min_operands || operands > s->max_operands) {
    if (s->min_operands == s->max_operands && s->min_operands == 1)
      return cli_usage_error(s->cmd, "expected one %s argument (see --help)", s->operands);
    if (s->max_operands == 0) return cli_usage_error(s->cmd, "takes no arguments (see --help)");
    if (s->min_operands == s->max_operands) return cli_usage_error(s->cmd, "expected %s (see --help)", s->operands);
    if (operands > s->max_operands)
      return cli_usage_error(s->cmd, "%u %s arguments: at most %u (see --help)", operands, s->operands,
                             s->max_operands);
    return cli_usage_error(s->cmd, "expected %s%s (see --help)", s->min_operands ? "at least one " : "", s->operands);
  }
  for (int i = optind, stdin_at = 0; s->one_stdin && i < argc; i++)
    if (!strcmp(argv[i], "-")) {
      if (stdin_at)
        return cli_usage_error(s->cmd, "%s %d and %d are both '-': stdin can be read only once", s->operands,
                               stdin_at - optind + 1, i - optind + 1);
      stdin_at = i;
    }
  *first = optind;
  return 0;
}

/* Help lines: "  --name ARG" padded, then the text; continuation lines of
 * the text line up under its first. */
#define HELP_COLUMN 24

void cli_help(FILE *f, const cli_spec *s) {
  fprintf(f, "usage: tlbsim %s %s\n\n%s\n", s->cmd, s->usage, s->about);
  if (s->nopt) fprintf(f, "\noptions:\n");
  for (size_t i = 0; i < s->nopt; i++) {
    const cli_opt *o = &s->opt[i];
    char head[64];
    bool optional = o->kind == OPT_TEXT_OPTIONAL;
    snprintf(head, sizeof head, "  --%s%s%s%s", o->name, o->arg ? (optional ? "[=" : " ") : "", o->arg ? o->arg : "",
             optional ? "]" : "");
    fprintf(f, "%-*s", HELP_COLUMN, head);
    if (strlen(head) >= HELP_COLUMN) fprintf(f, "\n%-*s", HELP_COLUMN, "");
    for (const char *p = o->help; *p;) {
      size_t len = strcspn(p, "\n");
      fprintf(f, "%.*s\n", (int)len, p);
      p += len;
      if (*p) fprintf(f, "%-*s", HELP_COLUMN, ""), p++;
    }
    if (o->alias) {
      snprintf(head, sizeof head, "  --%s%s%s", o->alias, o->arg ? " " : "", o->arg ? o->arg : "");
      fprintf(f, "%-*s%sthe older name of --%s\n", HELP_COLUMN, head, strlen(head) >= HELP_COLUMN ? " " : "", o->name);
    }
  }
  fprintf(f, "  --help%*s%s\n", HELP_COLUMN - 8, "", "this text");
  if (s->notes) fprintf(f, "\n%s", s->notes);
  if (s->more_help) s->more_help(f);
}
