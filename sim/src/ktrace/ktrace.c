/* ktrace.c — the kernel-trace reader (tlbsim/ktrace.h): which input it is
 * (a kernelslist, one .traceg, a binary kernel trace), the kernelslist's
 * lines, and the walk through kernels and their thread blocks, handed to
 * the text (ktrace_text.c) or binary (ktrace_bin.c) parser.
 *
 * A kernelslist is read twice: once at open, checking every line and that
 * every kernel file it names can be opened (so a missing file is an error
 * before anything is simulated), then line by line as the kernels are read.
 * Only one kernel file is open at a time.
 */
#include "ktrace_fmt.h"

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int ktrace_set_string(char **dst, const char *s, size_t len) {
  char *c = malloc(len + 1);
  if (!c) return -1;
  memcpy(c, s, len);
  c[len] = '\0';
  free(*dst);
  *dst = c;
  return 0;
}

/* Whether the line at p (up to end) is printable text and, when `need` is
 * set, holds it: a binary trace's first bytes (a ChampSim record's, say)
 * are not taken for a text header by their first character alone. */
static bool text_line(const char *p, const char *end, char need) {
  bool found = !need;
  for (; p < end && *p != '\n'; p++) {
    if ((unsigned char)*p < ' ' && *p != '\t' && *p != '\r') return false;
    if ((unsigned char)*p > '~') return false;
    found |= *p == need;
  }
  return found;
}

/* What the first bytes of an input say it is: 0 with *src, or -1 when it
 * is none of the three. */
static int detect(ktrace_in *in, ktrace_source *src, diag *d) {
  if (ktrace_in_fill(in, 4096, d)) return -1;
  const char *p = in->buf + in->start, *end = in->buf + in->end;
  if (end - p >= 8 && !memcmp(p, ktrace_bin_magic, 7)) {
    *src = KSRC_BINARY;
    return 0;
  }
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  size_t left = (size_t)(end - p);
  if (left && *p == '-' && text_line(p, end, '=')) *src = KSRC_TRACEG;
  else if (left >= 6 && (!memcmp(p, "kernel", 6) || !memcmp(p, "Memcpy", 6)) && text_line(p, end, 0)) *src = KSRC_LIST;
  else
    return diag_set(d, in->name, 0,
                    "not a kernel trace: a kernelslist(.g) starts with kernel-N or Memcpy lines, a kernel-N.traceg "
                    "with '-KEY = VALUE' header lines, tlbsim's binary kernel trace with its magic bytes");
  return 0;
}

/* ---- the kernelslist ---------------------------------------------------------- */

typedef enum { LIST_SKIP, LIST_MEMCPY, LIST_KERNEL } list_kind;

/* "MemcpyHtoD,0xADDR,BYTES", as the tracer writes it. */
static int memcpy_line(const ktrace_in *in, char *s, ktrace_memcpy *m, diag *d) {
  char *f1 = strchr(s, ','), *f2 = f1 ? strchr(f1 + 1, ',') : NULL;
  if (!f2 || strchr(f2 + 1, ','))
    return diag_set(d, in->name, in->no, "a MemcpyHtoD line is 'MemcpyHtoD,0xADDRESS,BYTES'");
  *f2 = '\0';
  char why[160];
  num_status st = num_whole_in(f1 + 1, 0, UINT64_MAX, &m->addr);
  if (st != NUM_OK || strncmp(f1 + 1, "0x", 2))
    return diag_set(d, in->name, in->no, "MemcpyHtoD address: %s",
                    st != NUM_OK ? num_complaint(st, NUM_WHOLE, f1 + 1, 0, UINT64_MAX, why, sizeof why)
                                 : "expected 0x and hex digits");
  if ((st = num_whole_in(f2 + 1, 0, UINT64_MAX, &m->bytes)) != NUM_OK)
    return diag_set(d, in->name, in->no, "MemcpyHtoD bytes: %s",
                    num_complaint(st, NUM_WHOLE, f2 + 1, 0, UINT64_MAX, why, sizeof why));
  return 0;
}

/* The next meaningful line of a kernelslist: 1 with *kind (and *m, or the
 * kernel file's path in r->kfile), 0 at the end, -1 on error. Lines that
 * start "Memcpy" but are not MemcpyHtoD are skipped, as Accel-Sim skips
 * them; blank lines too. */
static int list_next(ktrace_reader *r, list_kind *kind, ktrace_memcpy *m, diag *d) {
  char *s;
  size_t len;
  int got;
  while ((got = ktrace_in_line(&r->list, &s, &len, d)) == 1) {
    char *p = (char *)ktrace_blanks(s), *e = s + len;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *e = '\0';
    if (*p == '\0') continue;
    if (!strncmp(p, "MemcpyHtoD", 10)) {
      *kind = LIST_MEMCPY;
      return memcpy_line(&r->list, p, m, d) ? -1 : 1;
    }
    if (!strncmp(p, "Memcpy", 6)) continue;
    if (strncmp(p, "kernel", 6))
      return diag_set(d, r->list.name, r->list.no, "a kernelslist line names a kernel-N.traceg file or is MemcpyHtoD,...");
    size_t dlen = *p == '/' ? 0 : strlen(r->dir);
    char *path = malloc(dlen + (size_t)(e - p) + 1);
    if (!path) return diag_set(d, r->list.name, r->list.no, "out of memory");
    memcpy(path, r->dir, dlen);
    memcpy(path + dlen, p, (size_t)(e - p) + 1);
    free(r->kfile);
    r->kfile = path;
    *kind = LIST_KERNEL;
    return 1;
  }
  return got;
}

/* The first pass: every line well formed, every kernel file readable. */
static int check_list(ktrace_reader *r, diag *d) {
  list_kind kind;
  ktrace_memcpy m;
  int got;
  while ((got = list_next(r, &kind, &m, d)) == 1) {
    if (kind != LIST_KERNEL) continue;
    if (access(r->kfile, R_OK))
      return diag_set(d, r->list.name, r->list.no, "cannot open %s: %s", r->kfile, strerror(errno));
  }
  return got;
}

static int open_list(ktrace_reader *r, const char *path, diag *d) {
  if (!strcmp(path, "-"))
    return diag_set(d, r->path, 0, "a kernelslist names files beside it: give its path, not stdin");
  const char *slash = strrchr(path, '/');
  if (ktrace_set_string(&r->dir, path, slash ? (size_t)(slash - path) + 1 : 0))
    return diag_set(d, r->path, 0, "out of memory");
  r->list = r->in;
  r->in = (ktrace_in){0};
  r->in_open = false;
  if (check_list(r, d)) return -1;
  ktrace_in_close(&r->list);
  return ktrace_in_open(&r->list, path, r->path, d);
}

/* ---- opening ------------------------------------------------------------------ */

static ktrace_reader *open_reader(const char *path, diag *d) {
  ktrace_reader *r = calloc(1, sizeof *r);
  const char *name = strcmp(path, "-") ? path : "<stdin>";
  if (!r || !(r->path = strdup(name)) || ktrace_optab_init(&r->ops)) {
    diag_set(d, name, 0, "out of memory");
    ktrace_close(r);
    return NULL;
  }
  if (ktrace_in_open(&r->in, path, name, d)) {
    ktrace_close(r);
    return NULL;
  }
  r->in_open = true;
  return r;
}

ktrace_reader *ktrace_open(const char *path, diag *d) {
  if (!path || !*path) {
    diag_set(d, NULL, 0, "no kernel trace given");
    return NULL;
  }
  ktrace_reader *r = open_reader(path, d);
  if (!r) return NULL;
  int rc = detect(&r->in, &r->source, d);
  if (!rc && r->source == KSRC_LIST) rc = open_list(r, path, d);
  else if (!rc && r->source == KSRC_BINARY) rc = ktrace_bin_start(r, d);
  else if (!rc && ktrace_set_string(&r->kfile, r->path, strlen(r->path))) rc = diag_set(d, r->path, 0, "out of memory");
  if (rc) {
    ktrace_close(r);
    return NULL;
  }
  return r;
}

bool ktrace_sniff(const char *path) {
  ktrace_in in;
  diag d;
  ktrace_source src;
  if (!path || !strcmp(path, "-") || ktrace_in_open(&in, path, path, &d)) return false;
  bool yes = detect(&in, &src, &d) == 0;
  ktrace_in_close(&in);
  return yes;
}

/* ---- the walk ------------------------------------------------------------------ */

static int failed(ktrace_reader *r, diag *d, const diag *why) {
  r->failed = true;
  r->err = *why;
  if (d) *d = *why;
  return -1;
}

/* Reads what is left of the current kernel's blocks. */
static int skip_kernel(ktrace_reader *r, diag *d) {
  if (!r->in_kernel) return 0;
  if (!r->skip && !(r->skip = ktrace_tb_new())) return diag_set(d, r->path, 0, "out of memory");
  int got;
  while ((got = ktrace_next_tb(r, r->skip, d)) == 1) {
  }
  return got;
}

/* A kernel file of the list (or the lone .traceg, already open): its header. */
static int start_kernel(ktrace_reader *r, ktrace_item *it, diag *d) {
  if (!r->in_open) {
    if (ktrace_in_open(&r->in, r->kfile, r->kfile, d)) return -1;
    r->in_open = true;
  }
  if (ktrace_text_header(r, d)) return -1;
  *it = (ktrace_item){.kind = KTRACE_ITEM_KERNEL, .kernel = &r->k, .file = r->kfile, .line = 1};
  if (r->source == KSRC_LIST) it->file = r->list.name, it->line = r->list.no;
  r->in_kernel = true;
  return 1;
}

static int next_item(ktrace_reader *r, ktrace_item *it, diag *d) {
  if (skip_kernel(r, d)) return -1;
  if (r->source == KSRC_BINARY) return ktrace_bin_next(r, it, d);
  if (r->source == KSRC_TRACEG) {
    if (r->single_done) return 0;
    r->single_done = true;
    return start_kernel(r, it, d);
  }
  list_kind kind;
  int got = list_next(r, &kind, &it->memcpy, d);
  if (got <= 0) return got;
  if (kind == LIST_MEMCPY) {
    it->kind = KTRACE_ITEM_MEMCPY;
    it->kernel = NULL;
    it->file = r->list.name;
    it->line = r->list.no;
    return 1;
  }
  if (r->in_open) ktrace_in_close(&r->in);
  r->in_open = false;
  return start_kernel(r, it, d);
}

int ktrace_next(ktrace_reader *r, ktrace_item *it, diag *d) {
  if (r->failed) return failed(r, d, &r->err);
  diag why;
  int got = next_item(r, it, &why);
  return got < 0 ? failed(r, d, &why) : got;
}

int ktrace_next_tb(ktrace_reader *r, ktrace_tb *tb, diag *d) {
  if (r->failed) return failed(r, d, &r->err);
  if (!r->in_kernel) return 0;
  diag why;
  int got = r->source == KSRC_BINARY ? ktrace_bin_tb(r, tb, &why) : ktrace_text_tb(r, tb, &why);
  if (got < 0) return failed(r, d, &why);
  if (got == 0) r->in_kernel = false;
  return got;
}

const ktrace_op *ktrace_ops(const ktrace_reader *r, uint32_t *n) {
  *n = r->ops.n;
  return r->ops.op;
}

const char *ktrace_path(const ktrace_reader *r) { return r->path; }

bool ktrace_is_binary(const ktrace_reader *r) { return r->source == KSRC_BINARY; }

void ktrace_close(ktrace_reader *r) {
  if (!r) return;
  if (r->in_open) ktrace_in_close(&r->in);
  if (r->list.buf) ktrace_in_close(&r->list);
  ktrace_optab_free(&r->ops);
  ktrace_tb_free(r->skip);
  free(r->path);
  free(r->dir);
  free(r->kname);
  free(r->knvbit);
  free(r->kfile);
  free(r);
}
