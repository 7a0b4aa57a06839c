/* tlbsim sweep --emit slurm DIR and --merge DIR (sweep_cluster.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sweep_cluster.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"

#define PATH_TEXT 4096

/* --- emit ------------------------------------------------------------------ */

/* s in single quotes for sh: ' becomes '\''. */
static void sh_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  fputc('\'', f);
}

static int make_dir(const char *path, diag *d) {
  if (mkdir(path, 0777) && errno != EEXIST) return diag_set(d, path, 0, "cannot create: %s", strerror(errno));
  return 0;
}

static int close_checked(FILE *f, const char *path, diag *d) {
  bool bad = ferror(f);
  if (fclose(f) || bad) return diag_set(d, path, 0, "cannot write");
  return 0;
}

static int write_manifest(const sweep_emit *e, const char *path, diag *d) {
  FILE *f = fopen(path, "w");
  if (!f) return diag_set(d, path, 0, "cannot create: %s", strerror(errno));
  fprintf(f, "task\ttrace\tconfigs\trows\toutput\n");
  size_t task = 0;
  for (size_t t = 0; t < e->ntraces; t++)
    for (size_t s = 0; s < e->slices; s++, task++) {
      size_t first = e->nconfigs * s / e->slices, end = e->nconfigs * (s + 1) / e->slices;
      fprintf(f, "%zu\t%s\t%zu-%zu\t", task, e->traces[t], first, end - 1);
      if (e->rows_known) fprintf(f, "%zu", end - first);
      else fputc('-', f);
      fprintf(f, "\tout/%zu.csv\n", task);
    }
  return close_checked(f, path, d);
}

static int write_script(const sweep_emit *e, const char *path, const char *absdir, diag *d) {
  char exe[PATH_TEXT], cwd[PATH_TEXT];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) return diag_set(d, "/proc/self/exe", 0, "cannot read: %s", strerror(errno));
  exe[n] = '\0';
  if (!getcwd(cwd, sizeof cwd)) return diag_set(d, ".", 0, "cannot name the working directory: %s", strerror(errno));
  FILE *f = fopen(path, "w");
  if (!f) return diag_set(d, path, 0, "cannot create: %s", strerror(errno));
  size_t ntasks = e->ntraces * e->slices;
  fprintf(f, "#!/bin/bash\n"
             "# Written by `tlbsim sweep --emit slurm`: task N of this job array runs line N of\n"
             "# manifest.tsv (one trace, one slice of the configurations) and writes out/N.csv.\n"
             "#   sbatch %s/sweep.sbatch                  # on a Slurm cluster\n"
             "#   bash %s/sweep.sbatch N                  # task N here\n"
             "#   tail -n +2 %s/manifest.tsv | cut -f1 | parallel -j 2 bash %s/sweep.sbatch {}\n"
             "#   tlbsim sweep --merge %s > sweep.csv     # then join them\n",
          absdir, absdir, absdir, absdir, absdir);
  fprintf(f, "#SBATCH --job-name=tlbsim-sweep\n#SBATCH --array=0-%zu\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%u\n",
          ntasks - 1, e->jobs);
  fprintf(f, "#SBATCH --output=%s/log/%%a.log\n", absdir);
  fprintf(f, "set -euo pipefail\n"
             "task=${1:-${SLURM_ARRAY_TASK_ID:?give a task number, or submit with sbatch}}\n"
             "cd ");
  sh_quote(f, cwd);
  fprintf(f, "\ncase $task in\n");
  size_t task = 0;
  for (size_t t = 0; t < e->ntraces; t++)
    for (size_t s = 0; s < e->slices; s++, task++) {
      size_t first = e->nconfigs * s / e->slices, end = e->nconfigs * (s + 1) / e->slices;
      fprintf(f, "%zu) set -- --configs %zu-%zu -- ", task, first, end - 1);
      sh_quote(f, e->traces[t]);
      fprintf(f, " ;;\n");
    }
  fprintf(f, "*) echo \"sweep.sbatch: no task '$task' (0-%zu)\" >&2; exit 2 ;;\nesac\nout=", ntasks - 1);
  sh_quote(f, absdir);
  fprintf(f, "/out/$task.csv\n");
  sh_quote(f, exe);
  fprintf(f, " sweep");
  for (size_t i = 0; i < e->nwords; i++) {
    fputc(' ', f);
    sh_quote(f, e->words[i]);
  }
  fprintf(f, " \"$@\" >\"$out.part.$$\"\nmv \"$out.part.$$\" \"$out\"\n");
  if (close_checked(f, path, d)) return -1;
  if (chmod(path, 0755)) return diag_set(d, path, 0, "cannot make executable: %s", strerror(errno));
  return 0;
}

int sweep_emit_slurm(const sweep_emit *e, diag *d) {
  char path[PATH_TEXT], absdir[PATH_MAX];
  if (make_dir(e->dir, d)) return -1;
  snprintf(path, sizeof path, "%s/manifest.tsv", e->dir);
  if (access(path, F_OK) == 0) return diag_set(d, path, 0, "exists already: emit into a new directory");
  if (!realpath(e->dir, absdir)) return diag_set(d, e->dir, 0, "cannot resolve: %s", strerror(errno));
  char sub[PATH_TEXT];
  snprintf(sub, sizeof sub, "%s/out", e->dir);
  if (make_dir(sub, d)) return -1;
  snprintf(sub, sizeof sub, "%s/log", e->dir);
  if (make_dir(sub, d)) return -1;
  snprintf(sub, sizeof sub, "%s/sweep.sbatch", e->dir);
  if (write_script(e, sub, absdir, d)) return -1;
  return write_manifest(e, path, d);
}

/* --- merge ----------------------------------------------------------------- */

typedef struct task {
  uint64_t id;
  long rows; /* -1: not known */
  char *output;
  unsigned long line; /* in the manifest */
} task;

static int problems;

static void problem(const char *file, unsigned long line, const char *fmt, const char *a, const char *b) {
  if (line) fprintf(stderr, "%s:%lu: ", file, line);
  else fprintf(stderr, "%s: ", file);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  problems++;
}

/* Reads a line without its newline into *buf; false at the end. */
static bool next_line(FILE *f, char **buf, size_t *cap) {
  ssize_t n = getline(buf, cap, f);
  if (n < 0) return false;
  if (n && (*buf)[n - 1] == '\n') (*buf)[n - 1] = '\0';
  return true;
}

/* One manifest line "task trace configs rows output": false when it is not. */
static bool parse_task(char *s, task *t) {
  char *field[5];
  for (int i = 0; i < 5; i++) {
    field[i] = s;
    s = strchr(s, '\t');
    if ((i < 4) != (s != NULL)) return false;
    if (s) *s++ = '\0';
  }
  char *end;
  errno = 0;
  t->id = strtoull(field[0], &end, 10);
  if (errno || end == field[0] || *end || field[0][0] == '-') return false;
  if (!strcmp(field[3], "-")) t->rows = -1;
  else {
    t->rows = strtol(field[3], &end, 10);
    if (end == field[3] || *end || t->rows < 0) return false;
  }
  if (!*field[4] || strstr(field[4], "..") || field[4][0] == '/') return false;
  t->output = strdup(field[4]);
  return t->output != NULL;
}

static task *read_manifest(const char *dir, size_t *ntasks) {
  char path[PATH_TEXT];
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    problem(path, 0, "cannot open: %s%s", strerror(errno), "");
    return NULL;
  }
  char *buf = NULL;
  size_t cap = 0, n = 0, room = 0;
  task *t = NULL;
  unsigned long line = 1;
  if (!next_line(f, &buf, &cap) || strcmp(buf, "task\ttrace\tconfigs\trows\toutput"))
    problem(path, 1, "not a sweep manifest (want the header 'task trace configs rows output')%s%s", "", "");
  while (!problems && next_line(f, &buf, &cap)) {
    line++;
    if (n == room) {
      room = room ? 2 * room : 64;
      task *more = realloc(t, room * sizeof *t);
      if (!more) {
        problem(path, line, "out of memory%s%s", "", "");
        break;
      }
      t = more;
    }
    if (!parse_task(buf, &t[n])) {
      problem(path, line, "expected TASK, TRACE, CONFIGS, ROWS and OUTPUT, tab-separated%s%s", "", "");
      continue;
    }
    t[n].line = line;
    for (size_t i = 0; i < n; i++) {
      char was[32];
      snprintf(was, sizeof was, "%lu", t[i].line);
      if (t[i].id == t[n].id) problem(path, line, "a task listed twice (first on line %s)%s", was, "");
      else if (!strcmp(t[i].output, t[n].output))
        problem(path, line, "output %s is that of line %s too", t[n].output, was);
    }
    n++;
  }
  free(buf);
  fclose(f);
  if (!problems && n == 0) problem(path, 0, "lists no task%s%s", "", "");
  *ntasks = n;
  return t;
}

/* Checks one task's CSV: present, the header `header` (the first one's,
 * set from it when NULL), the rows the manifest says. */
static void check_output(const char *dir, const task *t, char **header, const char **header_of) {
  char path[PATH_TEXT];
  snprintf(path, sizeof path, "%s/%s", dir, t->output);
  FILE *f = fopen(path, "r");
  if (!f) {
    int err = errno;
    char id[32];
    snprintf(id, sizeof id, "%" PRIu64, t->id);
    problem(path, 0, err == ENOENT ? "missing (task %s did not finish)" : "cannot open (task %s): %s", id,
            strerror(err));
    return;
  }
  char *buf = NULL;
  size_t cap = 0;
  long rows = 0;
  if (!next_line(f, &buf, &cap)) problem(path, 1, "empty: no CSV header%s%s", "", "");
  else if (!*header) {
    *header = strdup(buf);
    *header_of = t->output;
  } else if (strcmp(buf, *header)) problem(path, 1, "a header other than %s/%s's", dir, *header_of);
  while (next_line(f, &buf, &cap)) rows++;
  if (t->rows >= 0 && rows != t->rows) {
    char got[64];
    snprintf(got, sizeof got, "%ld rows, the manifest says %ld", rows, t->rows);
    problem(path, (unsigned long)rows + 1, "%s%s", got, "");
  }
  free(buf);
  fclose(f);
}

/* Every *.csv of DIR/out that no task names. */
static void check_strays(const char *dir, const task *t, size_t n) {
  char path[PATH_TEXT];
  snprintf(path, sizeof path, "%s/out", dir);
  DIR *dp = opendir(path);
  if (!dp) return;
  struct dirent *e;
  while ((e = readdir(dp))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".csv")) continue;
    char name[PATH_TEXT];
    snprintf(name, sizeof name, "out/%s", e->d_name);
    bool listed = false;
    for (size_t i = 0; i < n && !listed; i++) listed = !strcmp(t[i].output, name);
    if (!listed) problem(dir, 0, "%s is the output of no task of manifest.tsv (a task run twice?)%s", name, "");
  }
  closedir(dp);
}

static int copy_rows(const char *dir, const task *t, bool with_header, FILE *out) {
  char path[PATH_TEXT];
  snprintf(path, sizeof path, "%s/%s", dir, t->output);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *buf = NULL;
  size_t cap = 0;
  for (bool first = true; next_line(f, &buf, &cap); first = false)
    if (!first || with_header) fprintf(out, "%s\n", buf);
  free(buf);
  fclose(f);
  return 0;
}

int sweep_merge(const char *dir, FILE *out) {
  problems = 0;
  size_t n = 0;
  task *t = read_manifest(dir, &n);
  char *header = NULL;
  const char *header_of = NULL;
  if (!problems) {
    for (size_t i = 0; i < n; i++) check_output(dir, &t[i], &header, &header_of);
    check_strays(dir, t, n);
  }
  for (size_t i = 0; i < n && !problems; i++)
    if (copy_rows(dir, &t[i], i == 0, out)) problem(dir, 0, "%s vanished while merging%s", t[i].output, "");
  for (size_t i = 0; i < n; i++) free(t[i].output);
  free(t);
  free(header);
  return problems ? EXIT_INPUT : EXIT_OK;
}
