/* The progress line and ^C (cli_progress.h). */
#include "cli_progress.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define INTERVAL 0.2 /* seconds between lines */

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cli_stderr_is_terminal(void) {
#ifdef __EMSCRIPTEN__
  return false; /* the page shows stderr as text; emscripten's isatty calls its console a terminal */
#else
  return isatty(STDERR_FILENO);
#endif
}

void cli_progress_start(cli_progress *p, const char *cmd, bool quiet) {
  *p = (cli_progress){.on = !quiet && cli_stderr_is_terminal(), .cmd = cmd};
}

bool cli_progress_due(const cli_progress *p) { return p->on && (!p->last || now_seconds() - p->last >= INTERVAL); }

void cli_progress_show(cli_progress *p, const char *fmt, ...) {
  if (!cli_progress_due(p)) return;
  char line[256];
  int at = snprintf(line, sizeof line, "tlbsim %s: ", p->cmd);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + at, sizeof line - (size_t)at, fmt, ap);
  va_end(ap);
  int width = (int)strlen(line);
  /* Padded over a longer line before it; \r returns to its start. */
  fprintf(stderr, "\r%s%*s", line, p->width > width ? p->width - width : 0, "");
  fflush(stderr);
  p->width = width > p->width ? width : p->width;
  p->shown = true;
  p->last = now_seconds();
}

void cli_progress_count(cli_progress *p, uint64_t done, uint64_t total, const char *what) {
  if (!cli_progress_due(p)) return;
  if (total) cli_progress_show(p, "%llu of %llu %s", (unsigned long long)done, (unsigned long long)total, what);
  else cli_progress_show(p, "%llu %s", (unsigned long long)done, what);
}

void cli_progress_end(cli_progress *p) {
  if (!p->shown) return;
  fprintf(stderr, "\r%*s\r", p->width, "");
  fflush(stderr);
  p->shown = false;
  p->width = 0;
}

void cli_progress_bytes(char *buf, unsigned long len, uint64_t done, uint64_t total, const char *name) {
  if (total) snprintf(buf, len, "%.1f%% of %s", 100.0 * (double)(done < total ? done : total) / (double)total, name);
  else snprintf(buf, len, "%.1f MB of %s", (double)done / 1e6, name);
}

uint64_t cli_file_size(const char *path) {
  struct stat st;
  if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode)) return 0;
  return (uint64_t)st.st_size;
}

void cli_trace_watch_start(cli_trace_watch *w, const char *cmd, bool quiet, const trace_reader *r, const char *path,
                           const char *what) {
  *w = (cli_trace_watch){.r = r, .total = cli_file_size(path), .what = what};
  cli_progress_start(&w->line, cmd, quiet);
  cli_interrupt_catch();
}

int cli_trace_watch_tick(cli_trace_watch *w, uint64_t count) {
  bool stop = cli_interrupted();
  if (!stop && !cli_progress_due(&w->line)) return 0;
  char where[160] = "", n[48] = "";
  if (w->r) cli_progress_bytes(where, sizeof where, trace_bytes_read(w->r), w->total, trace_get_path(w->r));
  if (w->what) snprintf(n, sizeof n, "%llu %s%s", (unsigned long long)count, w->what, w->r ? ", " : "");
  if (stop) return snprintf(w->stopped_at, sizeof w->stopped_at, "%s%s", n, where), 1;
  cli_progress_show(&w->line, "%s%s%s", w->prefix, n, where);
  return 0;
}

/* The one piece of mutable state outside a function's own: a signal
 * handler can tell the program only through a variable like this. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

void cli_interrupt_catch(void) {
  /* SA_RESTART: a read under way carries on (the replay stops between
     blocks); SA_RESETHAND: a second ^C is not caught and ends the process. */
  struct sigaction sa = {.sa_handler = on_sigint, .sa_flags = SA_RESTART | SA_RESETHAND};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
}

bool cli_interrupted(void) { return interrupted != 0; }

void cli_interrupted_note(const char *cmd, const char *read) {
  fprintf(stderr, "tlbsim %s: interrupted after %s: the report is partial\n", cmd, read);
}
