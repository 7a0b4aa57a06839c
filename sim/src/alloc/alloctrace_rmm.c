/* RMM's logging_resource_adaptor CSV: a header naming the columns
 * (Thread,Time,Action,Pointer,Size,Stream), then one row per call.
 * Actions: allocate, free (newer docs say deallocate: both accepted),
 * "allocate failure" (a recorded OOM). Pointers are hex; streams hex or
 * decimal; time either H:M:S:microseconds or seconds since the epoch. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloctrace_impl.h"

enum { COL_TIME, COL_ACTION, COL_POINTER, COL_SIZE, COL_STREAM, NCOLS };
static const char *const col_names[NCOLS] = {"Time", "Action", "Pointer", "Size", "Stream"};
#define MAX_FIELDS 32
#define LINE_MAX_BYTES (64 * 1024) /* a longer line is an error, not a reason to grow without bound */
enum { LINE_NOMEM = -1, LINE_TOO_LONG = -2, LINE_NUL = -3, LINE_UNREADABLE = -4 };

typedef struct rmm {
  gzFile gz;
  char *line;
  size_t cap;
  unsigned long lineno;
  int col[NCOLS]; /* field index of each column, -1 absent */
  uint64_t t0;
  bool have_t0;
} rmm;

static void rmm_close(alloctrace *t) {
  rmm *r = t->impl;
  if (!r) return;
  gzclose(r->gz);
  free(r->line);
  free(r);
}

/* Reads one line without its newline: 1, 0 at the end, or a LINE_* error.
 * Byte by byte (gzgetc reads from zlib's buffer), so a NUL inside a line
 * is seen rather than cutting it short. */
static int read_line(rmm *r) {
  size_t n = 0;
  int c;
  for (;;) {
    if (n + 1 >= r->cap) {
      size_t cap = r->cap ? r->cap * 2 : 256;
      char *grown = realloc(r->line, cap);
      if (!grown) return LINE_NOMEM;
      r->line = grown;
      r->cap = cap;
    }
    if ((c = gzgetc(r->gz)) == -1 || c == '\n') break;
    if (c == '\0') return LINE_NUL;
    if (n == LINE_MAX_BYTES) return LINE_TOO_LONG;
    r->line[n++] = (char)c;
  }
  int errnum = Z_OK;
  if (c == -1) gzerror(r->gz, &errnum);
  if (errnum != Z_OK && errnum != Z_STREAM_END) return LINE_UNREADABLE; /* a damaged gzip stream */
  if (c == -1 && n == 0) return 0;
  while (n && r->line[n - 1] == '\r') n--;
  r->line[n] = '\0';
  r->lineno++;
  return 1;
}

/* "FILE:LINE: ..." for a LINE_* error of the line after r->lineno. */
static int line_error(alloctrace *t, const rmm *r, int got, diag *d) {
  if (got == LINE_NOMEM) return diag_set(d, t->path, r->lineno + 1, "out of host memory");
  if (got == LINE_NUL) return diag_set(d, t->path, r->lineno + 1, "a NUL byte in the line");
  if (got == LINE_UNREADABLE) return diag_set(d, t->path, r->lineno + 1, "cannot read input (damaged gzip data?)");
  return diag_set(d, t->path, r->lineno + 1, "line longer than %d bytes", LINE_MAX_BYTES);
}

static int split(char *line, char **f) {
  int n = 0;
  for (char *p = line; n < MAX_FIELDS;) {
    f[n++] = p;
    p = strchr(p, ',');
    if (!p) break;
    *p++ = '\0';
  }
  for (int i = 0; i < n; i++) {
    while (isspace((unsigned char)*f[i])) f[i]++;
    for (char *e = f[i] + strlen(f[i]); e > f[i] && isspace((unsigned char)e[-1]);) *--e = '\0';
  }
  return n;
}

/* A pointer as RMM prints it: hex digits, 0x or not. */
static int parse_pointer(const char *s, uint64_t *out) {
  const char *end = s + strlen(s);
  if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  return num_scan_hex(&s, end, out) || s != end ? -1 : 0;
}

#define MAX_SECONDS 1.8e13 /* * 1e6 microseconds < 2^64 */

/* RMM writes times as seconds (epoch, fractional) or as H:M:S:US; both
 * become microseconds, which must fit 64 bits. 0, or -1 with d saying what
 * is wrong. */
static int parse_time(const char *s, uint64_t *us, alloctrace *t, const rmm *r, diag *d) {
  char why[160], q[48];
  if (strchr(s, ':')) {
    uint64_t part[4];
    const char *p = s, *end = s + strlen(s);
    for (int i = 0; i < 4; i++)
      if (num_scan_dec(&p, end, &part[i]) || (i < 3 ? *p++ != ':' : p != end))
        return diag_set(d, t->path, r->lineno, "Time: '%s' is not H:M:S:us", num_quote(s, q, sizeof q));
    if (part[0] > 1000000 || part[1] > 59 || part[2] > 59 || part[3] > 999999)
      return diag_set(d, t->path, r->lineno, "Time: '%s' is out of range (0:0:0:0..1000000:59:59:999999)",
                      num_quote(s, q, sizeof q));
    *us = ((part[0] * 60 + part[1]) * 60 + part[2]) * 1000000ull + part[3];
    return 0;
  }
  double v;
  num_status st = num_real_in(s, 0, MAX_SECONDS, &v);
  if (st != NUM_OK)
    return diag_set(d, t->path, r->lineno, "Time: %s", num_complaint_real(st, s, 0, MAX_SECONDS, why, sizeof why));
  *us = (uint64_t)(v * 1e6 + 0.5);
  return 0;
}

/* A whole-number column: 0, or -1 with "FILE:LINE: NAME: 'VALUE' is ...". */
static int column_u64(alloctrace *t, const rmm *r, const char *name, const char *s, uint64_t *out, diag *d) {
  num_status st = num_whole_in(s, 0, UINT64_MAX, out);
  char why[160];
  return st == NUM_OK ? 0
                      : diag_set(d, t->path, r->lineno, "%s: %s", name,
                                 num_complaint(st, NUM_WHOLE, s, 0, UINT64_MAX, why, sizeof why));
}

static int rmm_next(alloctrace *t, alloctrace_event *ev, diag *d) {
  rmm *r = t->impl;
  char *f[MAX_FIELDS], q[48];
  for (;;) {
    int got = read_line(r);
    if (got < 0) return line_error(t, r, got, d);
    if (!got) return 0;
    if (!*r->line) continue;
    int n = split(r->line, f);
    for (int c = 0; c < NCOLS; c++)
      if (r->col[c] >= n) return diag_set(d, t->path, r->lineno, "%d fields, the header names more", n);
    const char *act = f[r->col[COL_ACTION]];
    uint64_t ptr, size, stream = 0, time = r->lineno;
    const char *p = f[r->col[COL_POINTER]];
    if (!strcmp(p, "(nil)")) ptr = 0;
    else if (parse_pointer(p, &ptr))
      return diag_set(d, t->path, r->lineno, "Pointer: '%s' is not hexadecimal", num_quote(p, q, sizeof q));
    if (column_u64(t, r, "Size", f[r->col[COL_SIZE]], &size, d) ||
        (r->col[COL_STREAM] >= 0 && column_u64(t, r, "Stream", f[r->col[COL_STREAM]], &stream, d)))
      return -1;
    if (r->col[COL_TIME] >= 0) {
      if (parse_time(f[r->col[COL_TIME]], &time, t, r, d)) return -1;
      if (!r->have_t0) {
        r->t0 = time;
        r->have_t0 = true;
      }
      time = time >= r->t0 ? time - r->t0 : 0;
    }
    *ev = (alloctrace_event){.size = size, .time_us = time, .index = r->lineno};
    if (at_stream(t, stream, &ev->stream)) return diag_set(d, t->path, r->lineno, "more than %d streams", AT_MAX_STREAMS);
    if (!strcmp(act, "allocate")) {
      ev->kind = AT_ALLOC;
      diag why;
      if (at_name_alloc(t, ptr, &ev->id, &why)) return diag_set(d, t->path, r->lineno, "%s", why.msg);
    } else if (!strcmp(act, "free") || !strcmp(act, "deallocate")) {
      ev->kind = AT_FREE;
      if (!at_name_free(t, ptr, &ev->id)) continue;
    } else if (!strcmp(act, "allocate failure")) {
      ev->kind = AT_OOM;
      t->info.recorded_ooms++;
    } else {
      return diag_set(d, t->path, r->lineno, "Action: '%s' is not allocate, free or allocate failure",
                      num_quote(act, q, sizeof q));
    }
    return 1;
  }
}

static const at_source rmm_source = {rmm_next, rmm_close};

int at_open_rmm(alloctrace *t, void *gz, diag *d) {
  rmm *r = calloc(1, sizeof *r);
  if (!r) {
    gzclose(gz);
    return diag_set(d, NULL, 0, "out of host memory");
  }
  r->gz = gz;
  t->impl = r;
  t->src = &rmm_source;
  char *f[MAX_FIELDS];
  int got = read_line(r);
  if (got < 0) return line_error(t, r, got, d);
  if (got == 0) return diag_set(d, t->path, 0, "empty RMM log");
  int n = split(r->line, f);
  for (int c = 0; c < NCOLS; c++) {
    r->col[c] = -1;
    for (int i = 0; i < n; i++)
      if (!strcmp(f[i], col_names[c])) r->col[c] = i;
  }
  for (int c = COL_ACTION; c <= COL_SIZE; c++)
    if (r->col[c] < 0) return diag_set(d, t->path, 1, "the header has no '%s' column", col_names[c]);
  return 0;
}
