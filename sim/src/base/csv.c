/* CSV fields in and out (see tlbsim/csv.h). */
#include "tlbsim/csv.h"

#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void csv_write_field(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\n\r")]) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* One quoted field from p (at its opening quote) written to w; returns
 * the position after the closing quote, or NULL when there is none. */
static char *unquote(char *p, char **w) {
  for (p++;; p++) {
    if (!*p) return NULL;
    if (*p == '"' && p[1] == '"') *(*w)++ = *p++;
    else if (*p == '"') return p + 1;
    else *(*w)++ = *p;
  }
}

int csv_split(char *line, char **field, int max) {
  int n = 0;
  for (char *p = line;;) {
    if (n == max) return -1;
    char *w = p;
    field[n++] = w;
    if (*p == '"') {
      if (!(p = unquote(p, &w)) || (*p && *p != ',')) return -1;
    } else {
      while (*p && *p != ',') *w++ = *p++;
    }
    bool more = *p == ',';
    *w = '\0';
    if (!more) return n;
    p++;
  }
}

struct csv_table {
  FILE *f;
  char *path;
  unsigned long line;
  int nfields;             /* the header's */
  char buf[CSV_LINE_MAX + 2];
  char *field[CSV_MAX_FIELDS];
};

/* Reads a line into t->buf without its line end: 1, 0 at end, -1 too long,
 * -2 a NUL byte in it (which would end a field silently). */
static int read_line(csv_table *t) {
  size_t len = 0;
  int c;
  while ((c = getc(t->f)) != EOF && c != '\n') {
    if (c == '\0') return t->line++, -2;
    if (len == sizeof t->buf - 2) return t->line++, -1;
    t->buf[len++] = (char)c;
  }
  if (c == EOF && len == 0) return 0;
  t->line++;
  while (len && t->buf[len - 1] == '\r') len--;
  t->buf[len] = '\0';
  return 1;
}

void csv_table_close(csv_table *t) {
  if (!t) return;
  if (t->f) fclose(t->f);
  free(t->path);
  free(t);
}

csv_table *csv_table_open(const char *path, const char *const *names, const bool *required, int *col, size_t n,
                          diag *d) {
  csv_table *t = calloc(1, sizeof *t);
  if (!t || !(t->path = malloc(strlen(path) + 1))) {
    diag_set(d, path, 0, "out of memory");
    csv_table_close(t);
    return NULL;
  }
  strcpy(t->path, path);
  if (!(t->f = fopen(path, "r"))) {
    diag_set(d, path, 0, "cannot open: %s", strerror(errno));
    csv_table_close(t);
    return NULL;
  }
  if (read_line(t) != 1 || (t->nfields = csv_split(t->buf, t->field, CSV_MAX_FIELDS)) < 1) {
    diag_set(d, path, 1, "expected a CSV header");
    csv_table_close(t);
    return NULL;
  }
  for (size_t c = 0; c < n; c++) {
    col[c] = -1;
    for (int i = 0; i < t->nfields; i++)
      if (!strcmp(t->field[i], names[c])) col[c] = i;
    if (col[c] < 0 && required[c]) {
      diag_set(d, path, 1, "missing column '%s'", names[c]);
      csv_table_close(t);
      return NULL;
    }
  }
  return t;
}

int csv_table_next(csv_table *t, char ***field, unsigned long *line, diag *d) {
  for (;;) {
    int k = read_line(t);
    if (k == -2) return diag_set(d, t->path, t->line, "a NUL byte in the line");
    if (k < 0) return diag_set(d, t->path, t->line, "line longer than %d bytes", CSV_LINE_MAX);
    if (k == 0) return 0;
    if (!t->buf[0]) continue;
    int n = csv_split(t->buf, t->field, CSV_MAX_FIELDS);
    if (n < 0) return diag_set(d, t->path, t->line, "malformed CSV line");
    if (n != t->nfields) return diag_set(d, t->path, t->line, "%d fields, the header has %d", n, t->nfields);
    *field = t->field;
    *line = t->line;
    return 1;
  }
}

const char *csv_table_get(csv_table *t, int col) { return col < 0 ? "" : t->field[col]; }
