/* Configuration entries with their origins; INI parsing is libinih's
 * (config_ini.h: the seam the browser build fills). */
#include "tlbsim/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_ini.h"

typedef struct cfg_entry {
  char *section, *key, *value;
  char *origin;          /* file path or "--set" */
  unsigned long line;    /* line in that file, or the --set's index */
  unsigned long load_id; /* which load set it: duplicates within one are errors */
  bool used;
} cfg_entry;

/* A section, with where it was first seen (its header's line): errors
 * about the section as a whole (a bad level name, too many levels) point
 * there. */
typedef struct cfg_section {
  char *name;
  char *origin;
  unsigned long line;
  bool overridden; /* first seen in an override (cfg_set): no file has it */
} cfg_section;

struct cfg {
  cfg_entry *entries;
  size_t n, cap;
  cfg_section *sections; /* first-seen order */
  size_t nsections, cap_sections;
  unsigned long loads;
  char *file;       /* the name of the last file or text loaded */
  const char *text; /* that text (the caller's, which outlives c), or NULL for a file */
};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

cfg *cfg_create(void) { return calloc(1, sizeof(cfg)); }

void cfg_destroy(cfg *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    free(c->entries[i].section);
    free(c->entries[i].key);
    free(c->entries[i].value);
    free(c->entries[i].origin);
  }
  for (size_t i = 0; i < c->nsections; i++) {
    free(c->sections[i].name);
    free(c->sections[i].origin);
  }
  free(c->file);
  free(c->entries);
  free(c->sections);
  free(c);
}

static cfg_entry *find(const cfg *c, const char *section, const char *key) {
  for (size_t i = 0; i < c->n; i++)
    if (!strcmp(c->entries[i].section, section) && !strcmp(c->entries[i].key, key)) return &c->entries[i];
  return NULL;
}

static const cfg_section *find_section(const cfg *c, const char *section) {
  for (size_t i = 0; i < c->nsections; i++)
    if (!strcmp(c->sections[i].name, section)) return &c->sections[i];
  return NULL;
}

static int note_section(cfg *c, const char *section, const char *origin, unsigned long line, bool overridden) {
  if (find_section(c, section)) return 0;
  if (c->nsections == c->cap_sections) {
    size_t cap = c->cap_sections ? 2 * c->cap_sections : 16;
    cfg_section *s = realloc(c->sections, cap * sizeof *s);
    if (!s) return -1;
    c->sections = s;
    c->cap_sections = cap;
  }
  cfg_section *s = &c->sections[c->nsections];
  *s = (cfg_section){.name = dup_str(section), .origin = dup_str(origin), .line = line, .overridden = overridden};
  if (!s->name || !s->origin) {
    free(s->name);
    free(s->origin);
    return -1;
  }
  c->nsections++;
  return 0;
}

/* Sets or replaces an entry; a repeat within one load is an error. */
/* section_line: where the section's header is (a --set's index for one);
 * overridden: from cfg_set. */
static int put(cfg *c, const char *section, const char *key, const char *value, const char *origin,
               unsigned long line, unsigned long section_line, bool overridden, diag *d) {
  cfg_entry *e = find(c, section, key);
  if (e && e->load_id == c->loads)
    return diag_set(d, origin, line, "[%s] %s: set twice (also at line %lu)", section, key, e->line);
  if (!e) {
    if (c->n == c->cap) {
      size_t cap = c->cap ? 2 * c->cap : 64;
      cfg_entry *ne = realloc(c->entries, cap * sizeof *ne);
      if (!ne) return diag_set(d, origin, line, "out of memory");
      c->entries = ne;
      c->cap = cap;
    }
    e = &c->entries[c->n++];
    *e = (cfg_entry){.section = dup_str(section), .key = dup_str(key)};
    if (note_section(c, section, origin, section_line, overridden))
      return diag_set(d, origin, line, "out of memory");
  }
  free(e->value);
  free(e->origin);
  e->value = dup_str(value);
  e->origin = dup_str(origin);
  e->line = line;
  e->load_id = c->loads;
  if (!e->section || !e->key || !e->value || !e->origin) return diag_set(d, origin, line, "out of memory");
  return 0;
}

/* The INI parser (config_ini.h) reads through this so the handler knows the current line and
 * over-long lines are refused instead of silently split. */
typedef struct ini_ctx {
  cfg *c;
  FILE *f;
  const char *path;
  unsigned long line;
  unsigned long section_line; /* the latest "[section]" header's line */
  diag *d;
  bool failed;
} ini_ctx;

static char *read_line(char *str, int num, void *stream) {
  ini_ctx *x = stream;
  if (x->failed) return NULL;
  int len = 0, ch = EOF;
  while (len < num - 1 && (ch = getc(x->f)) != EOF) {
    if (ch == '\0') {
      diag_set(x->d, x->path, x->line + 1, "a NUL byte in the line");
      x->failed = true;
      return NULL;
    }
    str[len++] = (char)ch;
    if (ch == '\n') break;
  }
  if (len == 0) return NULL;
  str[len] = '\0';
  x->line++;
  if (str[strspn(str, " \t")] == '[') x->section_line = x->line; /* what libinih takes for a header */
  if (len == num - 1 && str[len - 1] != '\n' && getc(x->f) != EOF) {
    diag_set(x->d, x->path, x->line, "line longer than %d characters", num - 2);
    x->failed = true;
    return NULL;
  }
  return str;
}

static int on_entry(void *user, const char *section, const char *name, const char *value) {
  ini_ctx *x = user;
  if (!*section) {
    diag_set(x->d, x->path, x->line, "'%s' is outside any [section]", name);
    x->failed = true;
    return 0;
  }
  if (put(x->c, section, name, value, x->path, x->line, x->section_line, false, x->d)) {
    x->failed = true;
    return 0;
  }
  return 1;
}

/* Parses one INI stream named `name` in errors; text: what it was read
 * from when it is not a file (cfg_text). */
static int load_stream(cfg *c, FILE *f, const char *name, const char *text, diag *d) {
  c->loads++;
  ini_ctx x = {.c = c, .f = f, .path = name, .d = d};
  int rc = cfg_ini_parse(read_line, &x, on_entry, &x);
  bool read_error = ferror(f);
  fclose(f);
  if (x.failed) return -1;
  if (read_error) return diag_set(d, name, 0, "read error");
  if (rc > 0) return diag_set(d, name, (unsigned long)rc, "expected '[section]' or 'key = value'");
  if (rc < 0) return diag_set(d, name, 0, "out of memory while parsing");
  free(c->file);
  c->file = dup_str(name);
  c->text = text;
  return 0;
}

int cfg_load_file(cfg *c, const char *path, diag *d) {
  FILE *f = fopen(path, "r");
  if (!f) return diag_set(d, path, 0, "cannot open: %s", strerror(errno));
  return load_stream(c, f, path, NULL, d);
}

int cfg_load_text(cfg *c, const char *name, const char *text, diag *d) {
  FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r"); /* read only: mode "r" */
  if (!f) return diag_set(d, name, 0, "cannot read: %s", strerror(errno));
  return load_stream(c, f, name, text, d);
}

const char *cfg_text(const cfg *c) { return c->text; }

const char *cfg_file(const cfg *c) { return c->file; }

int cfg_set(cfg *c, const char *assignment, const char *origin, unsigned long index, diag *d) {
  const char *eq = strchr(assignment, '=');
  if (!eq) return diag_set(d, origin, index, "'%s': expected SECTION.KEY=VALUE", assignment);
  size_t lhs = (size_t)(eq - assignment);
  char *name = malloc(lhs + 1);
  if (!name) return diag_set(d, origin, index, "out of memory");
  memcpy(name, assignment, lhs);
  name[lhs] = '\0';
  char *dot = strrchr(name, '.');
  int rc;
  if (!dot || dot == name || !dot[1]) {
    rc = diag_set(d, origin, index, "'%s': expected SECTION.KEY=VALUE", assignment);
  } else {
    *dot = '\0';
    c->loads++;
    rc = put(c, name, dot + 1, eq + 1, origin, index, index, true, d);
  }
  free(name);
  return rc;
}

static cfg_entry *take(cfg *c, const char *section, const char *key) {
  cfg_entry *e = find(c, section, key);
  if (e) e->used = true;
  return e;
}

static int bad_value(const cfg_entry *e, diag *d, const char *what) {
  char q[48];
  return diag_set(d, e->origin, e->line, "%s.%s: '%s' is not %s", e->section, e->key,
                  num_quote(e->value, q, sizeof q), what);
}

/* "FILE:LINE: section.key: 'VALUE' is out of range (LO..HI)", or "... is not a whole number". */
static int bad_number(const cfg_entry *e, diag *d, num_status st, num_kind kind, const char *value, uint64_t lo,
                      uint64_t hi) {
  char why[160];
  return diag_set(d, e->origin, e->line, "%s.%s: %s", e->section, e->key,
                  num_complaint(st, kind, value, lo, hi, why, sizeof why));
}

int cfg_get_str(cfg *c, const char *section, const char *key, const char *def, const char **out) {
  cfg_entry *e = take(c, section, key);
  *out = e ? e->value : def;
  return 0;
}

/* A whole number or size within [lo, hi], or the default when absent. */
static int get_ranged(cfg *c, const char *section, const char *key, num_kind kind, uint64_t def, uint64_t lo,
                      uint64_t hi, uint64_t *out, diag *d) {
  cfg_entry *e = take(c, section, key);
  if (!e) {
    *out = def;
    return 0;
  }
  num_status st = kind == NUM_SIZE ? num_size_in(e->value, lo, hi, out) : num_whole_in(e->value, lo, hi, out);
  return st == NUM_OK ? 0 : bad_number(e, d, st, kind, e->value, lo, hi);
}

int cfg_get_u64(cfg *c, const char *section, const char *key, uint64_t def, uint64_t lo, uint64_t hi,
                uint64_t *out, diag *d) {
  return get_ranged(c, section, key, NUM_WHOLE, def, lo, hi, out, d);
}

int cfg_get_u32(cfg *c, const char *section, const char *key, uint32_t def, uint32_t lo, uint32_t hi,
                uint32_t *out, diag *d) {
  uint64_t v;
  if (get_ranged(c, section, key, NUM_WHOLE, def, lo, hi, &v, d)) return -1;
  *out = (uint32_t)v; /* within [lo, hi] of uint32_t */
  return 0;
}

int cfg_get_size(cfg *c, const char *section, const char *key, uint64_t def, uint64_t lo, uint64_t hi,
                 uint64_t *out, diag *d) {
  return get_ranged(c, section, key, NUM_SIZE, def, lo, hi, out, d);
}

int cfg_get_real(cfg *c, const char *section, const char *key, double def, double lo, double hi, double *out,
                 diag *d) {
  cfg_entry *e = take(c, section, key);
  if (!e) {
    *out = def;
    return 0;
  }
  num_status st = num_real_in(e->value, lo, hi, out);
  char why[160];
  if (st == NUM_OK) return 0;
  return diag_set(d, e->origin, e->line, "%s.%s: %s", e->section, e->key,
                  num_complaint_real(st, e->value, lo, hi, why, sizeof why));
}

int cfg_get_bool(cfg *c, const char *section, const char *key, bool def, bool *out, diag *d) {
  cfg_entry *e = take(c, section, key);
  if (!e) {
    *out = def;
    return 0;
  }
  static const char *yes[] = {"true", "yes", "on", "1"}, *no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (!strcmp(e->value, yes[i])) return *out = true, 0;
    if (!strcmp(e->value, no[i])) return *out = false, 0;
  }
  return bad_value(e, d, "true or false");
}

/* The list splitter every list key goes through: calls item() on each
 * trimmed comma-separated item of e's value; -1 (d) as soon as one is
 * refused or longer than CFG_ITEM_MAX - 1. */
typedef int (*item_visit)(void *ctx, const cfg_entry *e, const char *item, diag *d);

static int each_item(const cfg_entry *e, item_visit visit, void *ctx, diag *d) {
  for (const char *p = e->value;; p++) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, ","), keep = len;
    while (keep && p[keep - 1] == ' ') keep--;
    char item[CFG_ITEM_MAX];
    if (keep >= sizeof item) {
      char q[48];
      return diag_set(d, e->origin, e->line, "%s.%s: item '%s' is longer than %d bytes", e->section, e->key,
                      num_quote(p, q, sizeof q), CFG_ITEM_MAX - 1);
    }
    memcpy(item, p, keep);
    item[keep] = '\0';
    if (visit(ctx, e, item, d)) return -1;
    p += len;
    if (!*p) return 0;
  }
}

typedef struct size_list {
  uint64_t lo, hi, *out;
  size_t max, *n;
} size_list;

static int visit_size(void *ctx, const cfg_entry *e, const char *item, diag *d) {
  size_list *l = ctx;
  if (*l->n == l->max) {
    char what[64];
    snprintf(what, sizeof what, "a list of at most %zu sizes", l->max);
    return bad_value(e, d, what);
  }
  num_status st = num_size_in(item, l->lo, l->hi, &l->out[*l->n]);
  if (st != NUM_OK) return bad_number(e, d, st, NUM_SIZE, item, l->lo, l->hi);
  (*l->n)++;
  return 0;
}

int cfg_get_size_list(cfg *c, const char *section, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
                      size_t max, size_t *n, diag *d) {
  cfg_entry *e = take(c, section, key);
  *n = 0;
  size_list l = {.lo = lo, .hi = hi, .out = out, .max = max, .n = n};
  return e ? each_item(e, visit_size, &l, d) : 0;
}

typedef struct item_list {
  cfg_item_fn fn;
  void *ctx;
  size_t n;
} item_list;

static int visit_item(void *ctx, const cfg_entry *e, const char *item, diag *d) {
  item_list *l = ctx;
  diag why;
  if (l->fn(l->ctx, item, &why)) return diag_set(d, e->origin, e->line, "%s.%s: %s", e->section, e->key, why.msg);
  l->n++;
  return 0;
}

int cfg_get_list(cfg *c, const char *section, const char *key, cfg_item_fn fn, void *ctx, size_t *n, diag *d) {
  cfg_entry *e = take(c, section, key);
  item_list l = {.fn = fn, .ctx = ctx};
  int rc = e ? each_item(e, visit_item, &l, d) : 0;
  if (n) *n = l.n;
  return rc;
}

bool cfg_has(const cfg *c, const char *section, const char *key) { return find(c, section, key) != NULL; }

const char *cfg_latest(const cfg *c, const char *section, const char *a, const char *b) {
  const cfg_entry *ea = find(c, section, a), *eb = find(c, section, b);
  bool b_later = eb && (!ea || eb->load_id > ea->load_id || (eb->load_id == ea->load_id && eb->line > ea->line));
  return b_later ? b : a;
}

/* The message after "FILE:LINE: " for a key of a section: where the key
 * was set, else where its section begins, else the file loaded. */
static int located(const cfg *c, const char *section, const char *key, diag *d, const char *msg) {
  const cfg_entry *e = key ? find(c, section, key) : NULL;
  if (e) return diag_set(d, e->origin, e->line, "%s.%s: %s", section, key, msg);
  const cfg_section *s = find_section(c, section);
  const char *origin = s ? s->origin : c->file;
  unsigned long line = s ? s->line : 0;
  if (key) return diag_set(d, origin, line, "[%s] %s: %s", section, key, msg);
  return diag_set(d, origin, line, "[%s]: %s", section, msg);
}

int cfg_error(const cfg *c, const char *section, const char *key, diag *d, const char *fmt, ...) {
  char msg[DIAG_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return located(c, section, key, d, msg);
}

int cfg_section_error(const cfg *c, const char *section, diag *d, const char *fmt, ...) {
  char msg[DIAG_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return located(c, section, NULL, d, msg);
}

size_t cfg_section_count(const cfg *c) { return c->nsections; }
const char *cfg_section_at(const cfg *c, size_t i) { return c->sections[i].name; }

bool cfg_has_section(const cfg *c, const char *section) { return find_section(c, section) != NULL; }

bool cfg_section_is_new(const cfg *c, const char *section) {
  const cfg_section *s = find_section(c, section);
  return s && s->overridden;
}

int cfg_check_unused(const cfg *c, diag *d) {
  for (size_t i = 0; i < c->n; i++) {
    const cfg_entry *e = &c->entries[i];
    if (!e->used) return diag_set(d, e->origin, e->line, "unknown key '%s' in [%s]", e->key, e->section);
  }
  return 0;
}

/* --- key tables ------------------------------------------------------------ */

static int read_key(cfg *c, const char *section, const cfg_key *k, void *base, diag *d) {
  void *field = (char *)base + k->offset;
  switch (k->kind) {
  case CFG_KEY_U32: return cfg_get_u32(c, section, k->name, (uint32_t)k->def, (uint32_t)k->lo, (uint32_t)k->hi, field, d);
  case CFG_KEY_U64: return cfg_get_u64(c, section, k->name, k->def, k->lo, k->hi, field, d);
  case CFG_KEY_SIZE: return cfg_get_size(c, section, k->name, k->def, k->lo, k->hi, field, d);
  case CFG_KEY_REAL: return cfg_get_real(c, section, k->name, k->rdef, k->rlo, k->rhi, field, d);
  case CFG_KEY_BOOL: return cfg_get_bool(c, section, k->name, k->def != 0, field, d);
  case CFG_KEY_BY_CODE: return 0;
  }
  return 0;
}

int cfg_read_keys(cfg *c, const char *section, const cfg_keys *k, void *base, diag *d) {
  for (size_t i = 0; i < k->n; i++)
    if (read_key(c, section, &k->key[i], base, d)) return -1;
  return 0;
}
