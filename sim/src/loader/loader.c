/* loader.c — configuration, spec and machine from a preset or file and
 * overrides (see tlbsim/loader.h). */
#define _DEFAULT_SOURCE /* scandir, alphasort */
#include "tlbsim/loader.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader_presets.h"

/* The directories of $TLBSIM_PRESET_PATH; `storage` holds the split value. */
typedef struct path_dirs {
  const char *dir[LOADER_MAX_PATH_DIRS];
  size_t n;
  char storage[4096];
} path_dirs;

static void find_path_dirs(path_dirs *out) {
  out->n = 0;
  const char *env = getenv("TLBSIM_PRESET_PATH");
  if (!env || strlen(env) >= sizeof out->storage) return;
  strcpy(out->storage, env);
  char *save = NULL;
  for (char *tok = strtok_r(out->storage, ":", &save); tok && out->n < LOADER_MAX_PATH_DIRS;
       tok = strtok_r(NULL, ":", &save))
    out->dir[out->n++] = tok;
}

static const loader_builtin *builtin(const char *name) {
  for (const loader_builtin *b = loader_builtins; b->name; b++)
    if (!strcmp(b->name, name)) return b;
  return NULL;
}

/* Edits (insert, delete, replace one character) between a and b, case
 * and '_' against '-' aside, up to cap: cap for anything further. */
static unsigned edits(const char *a, const char *b, unsigned cap) {
  enum { N = 64 };
  size_t la = strlen(a), lb = strlen(b);
  if (la >= N || lb >= N) return cap;
  unsigned row[N], next[N];
  for (size_t j = 0; j <= lb; j++) row[j] = (unsigned)j;
  for (size_t i = 1; i <= la; i++) {
    next[0] = (unsigned)i;
    for (size_t j = 1; j <= lb; j++) {
      char x = a[i - 1] == '_' ? '-' : (char)(a[i - 1] | 0x20), y = b[j - 1] == '_' ? '-' : (char)(b[j - 1] | 0x20);
      unsigned best = row[j - 1] + (x != y);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (next[j - 1] + 1 < best) best = next[j - 1] + 1;
      next[j] = best;
    }
    memcpy(row, next, (lb + 1) * sizeof *row);
  }
  return row[lb] < cap ? row[lb] : cap;
}

/* The preset whose name is nearest to a name none has: at most 2 edits,
 * and fewer than half its letters, so "x86_64" finds x86-64 and "h100"
 * h200, and a name unlike any finds none. */
typedef struct nearest {
  const char *want;
  char name[64];
  unsigned edits;
} nearest;

static void consider(void *ctx, const char *name, const char *dir, const char *text) {
  (void)dir, (void)text;
  nearest *n = ctx;
  unsigned e = edits(n->want, name, 3);
  if (e < n->edits && 2 * e < strlen(name)) {
    n->edits = e;
    snprintf(n->name, sizeof n->name, "%s", name);
  }
}

int loader_load_preset(cfg *c, const char *name, diag *d) {
  if (!*name || strchr(name, '/'))
    return diag_set(d, "--preset", 0, "'%s' is not a preset name (use --config FILE for a path)", name);
  path_dirs dirs;
  find_path_dirs(&dirs);
  for (size_t i = 0; i < dirs.n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.ini", dirs.dir[i], name);
    if (access(path, F_OK) == 0) return cfg_load_file(c, path, d);
  }
  const loader_builtin *b = builtin(name);
  if (!b) {
    nearest n = {.want = name, .edits = 3};
    loader_each_preset(consider, &n);
    if (n.name[0]) return diag_set(d, "--preset", 0, "no preset named '%s': did you mean '%s'? (see tlbsim formats)", name, n.name);
    return diag_set(d, "--preset", 0, "no preset named '%s' (see tlbsim formats)", name);
  }
  char file[64];
  snprintf(file, sizeof file, "%.59s.ini", b->name);
  return cfg_load_text(c, file, b->text, d);
}

cfg *loader_config(const loader_request *q, const char **label, diag *d) {
  cfg *c = cfg_create();
  if (!c) return diag_set(d, NULL, 0, "tlbsim: out of memory"), NULL;
  int rc = 0;
  if (q->preset || !q->config) { /* a file named with a preset is laid over it (calibrate's machine file) */
    *label = q->preset ? q->preset : q->fallback;
    rc = loader_load_preset(c, *label, d);
  }
  if (rc == 0 && q->config) {
    rc = cfg_load_file(c, q->config, d);
    if (!q->preset) *label = q->config;
  }
  for (size_t i = 0; rc == 0 && i < q->nsets; i++) rc = cfg_set(c, q->sets[i], q->set_origin, i + 1, d);
  if (rc) {
    cfg_destroy(c);
    return NULL;
  }
  return c;
}

/* The spec read from c and a machine built of it, every key used; NULL (d)
 * when a key is wrong or unread. */
static machine *build(cfg *c, machine_spec *spec, diag *d) {
  machine *m = NULL;
  if (machine_spec_read(c, spec, d)) return NULL;
  if (!(m = machine_create(spec, d))) { /* what the keys ask is impossible (a root table past phys_memory): */
    char why[DIAG_MSG_MAX];                /* blamed on the memory keys, as every configuration error is located */
    snprintf(why, sizeof why, "%s", d ? d->msg : "");
    if (d && !strstr(why, ": ")) /* not located yet (a located one reads "FILE:LINE: ...") */
      cfg_error(c, "machine", cfg_latest(c, "machine", "phys_memory", "tables_in_memory"), d, "%s", why);
    return NULL;
  }
  if (cfg_check_unused(c, d)) {
    machine_destroy(m);
    return NULL;
  }
  return m;
}

cfg *loader_spec(const loader_request *q, const char **label, machine_spec *spec, diag *d) {
  cfg *c = loader_config(q, label, d);
  if (!c) return NULL;
  machine *whole = build(c, spec, d);
  if (!whole) {
    cfg_destroy(c);
    return NULL;
  }
  machine_destroy(whole);
  return c;
}

machine *loader_machine(const loader_request *q, const char **label, diag *d) {
  cfg *c = loader_config(q, label, d);
  if (!c) return NULL;
  machine_spec spec;
  machine *m = build(c, &spec, d);
  cfg_destroy(c);
  return m;
}

static int is_ini(const struct dirent *e) {
  size_t n = strlen(e->d_name);
  return n > 4 && !strcmp(e->d_name + n - 4, ".ini");
}

void loader_each_preset(loader_preset_fn each, void *ctx) {
  path_dirs dirs;
  find_path_dirs(&dirs);
  for (size_t i = 0; i < dirs.n; i++) {
    struct dirent **e;
    int n = scandir(dirs.dir[i], &e, is_ini, alphasort);
    for (int k = 0; k < n; k++) {
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)(strlen(e[k]->d_name) - 4), e[k]->d_name);
      each(ctx, name, dirs.dir[i], NULL);
      free(e[k]);
    }
    if (n >= 0) free(e);
  }
  for (const loader_builtin *b = loader_builtins; b->name; b++) each(ctx, b->name, NULL, b->text);
}

static void each_of(const cfg_keys *k, loader_key_fn each, void *ctx) {
  for (size_t i = 0; i < k->n; i++)
    each(ctx, k->section, k->key[i].name, k->key[i].unit, k->key[i].default_text, k->key[i].doc);
}

void loader_each_key(loader_key_fn each, void *ctx) {
  each_of(machine_spec_keys(0), each, ctx);
  each_of(pt_format_config_keys(), each, ctx);
  each_of(machine_spec_keys(1), each, ctx);
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *doc, *name = vas_param_at(i, &doc);
    if (strcmp(name, "capacity")) each(ctx, "vas", name, "value", "the policy's", doc); /* capacity: phys_memory */
  }
  each_of(memsys_config_keys(), each, ctx);
  for (size_t i = 0; mmu_config_keys(i); i++) each_of(mmu_config_keys(i), each, ctx);
  each_of(gpu_config_keys(), each, ctx);
  each_of(uvm_config_keys(), each, ctx);
  each_of(alloctime_config_keys(), each, ctx);
}
