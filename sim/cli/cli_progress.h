/* sim/cli/cli_progress.h — what a long command says while it works, and
 * what ^C does to a replay.
 *
 * cli_progress  one line on stderr ("tlbsim sweep: trace 1 of 2, 38.2% of
 *               big.din, 1234567 accesses"), rewritten in place at most five
 *               times a second and erased when the work is done, so the
 *               output the command writes afterwards is untouched. Only
 *               when stderr is a terminal and --quiet was not given: a
 *               pipe, a file or a CI log never sees it. The first call of
 *               cli_progress_show prints at once, so every command that
 *               has a progress line shows it on a terminal even when it
 *               ends quickly (tests/cli/progress.sh looks for it on a
 *               pseudo-terminal).
 * cli_interrupt SIGINT (^C) during a replay: the handler only notes it; the
 *               replay stops after the block it is in, the command writes
 *               the report of what was read, marked partial, and exits
 *               CLI_EXIT_INTERRUPTED (130: 128 + SIGINT, what a shell
 *               reports for a process ^C killed). A second ^C while the
 *               report is written is not caught: it ends the process.
 */
#ifndef TLBSIM_CLI_PROGRESS_H
#define TLBSIM_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "tlbsim/trace.h"

#define CLI_EXIT_INTERRUPTED 130

typedef struct cli_progress {
  bool on;            /* stderr is a terminal and not --quiet */
  bool shown;         /* a line is on the terminal now */
  const char *cmd;    /* "sweep": the line starts "tlbsim sweep: " */
  double last;        /* when the line was last written (0: never) */
  int width;          /* of the line written last, to erase it */
} cli_progress;

/* p for command cmd; quiet (--quiet) turns it off. */
/* Whether stderr is a person's terminal (never in the browser build). */
bool cli_stderr_is_terminal(void);
void cli_progress_start(cli_progress *p, const char *cmd, bool quiet);
/* Whether a new line is due (the first call, then every 0.2 s); cheap
 * enough for every block of a replay. */
bool cli_progress_due(const cli_progress *p);
/* Writes the line (printf-style) when it is due. */
void cli_progress_show(cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "12 of 1886 rows" (total 0: "12 rows"), when due. */
void cli_progress_count(cli_progress *p, uint64_t done, uint64_t total, const char *what);
/* Erases the line, before the command writes anything else. */
void cli_progress_end(cli_progress *p);
/* "38.2% of FILE" or "12.3 MB of stdin": done of total bytes (total 0:
 * unknown), for a line about a trace. */
void cli_progress_bytes(char *buf, unsigned long len, uint64_t done, uint64_t total, const char *name);
/* The size of the file at path in bytes, 0 for stdin ("-") or when unknown. */
uint64_t cli_file_size(const char *path);

/* A replay's progress line and ^C, for a trace: "[PREFIX]N WHAT, 38.2% of
 * FILE" (N WHAT only when what is set). Ticked after each block. */
typedef struct cli_trace_watch {
  cli_progress line;
  const trace_reader *r; /* NULL: no bytes shown */
  uint64_t total;     /* bytes of the file, 0 when unknown (stdin) */
  const char *what;   /* "records", "accesses": the count shown, or NULL */
  char prefix[64];    /* "trace 1 of 2, ": what comes first, or "" */
  char stopped_at[208]; /* after ^C: where ("1200 records, 38.2% of FILE"): tick's count and place */
} cli_trace_watch;

/* Starts w over reader r of the file at path (and the SIGINT handler); r
 * NULL: the count alone (several traces read in turns). */
void cli_trace_watch_start(cli_trace_watch *w, const char *cmd, bool quiet, const trace_reader *r, const char *path,
                           const char *what);
/* After a block: 1 when ^C came (w->stopped_at says where), else 0 after
 * showing the line when due; count: the number of `what`. */
int cli_trace_watch_tick(cli_trace_watch *w, uint64_t count);

/* Installs the SIGINT handler for a replay (idempotent). */
void cli_interrupt_catch(void);
/* Whether ^C came since cli_interrupt_catch. */
bool cli_interrupted(void);
/* The line an interrupted replay ends with on stderr: "tlbsim CMD:
 * interrupted after READ: the report is partial" (READ: "425880 records",
 * "38.2% of big.din"). */
void cli_interrupted_note(const char *cmd, const char *read);

#endif
