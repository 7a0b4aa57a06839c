#include "cli_common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "tlbsim/machine.h"

void cli_find_preset_dirs(cli_preset_dirs *out) {
  out->n = 0;
  const char *env = getenv("TLBSIM_PRESET_PATH");
  if (env && strlen(env) < sizeof out->storage) {
    strcpy(out->storage, env);
    char *save = NULL;
    for (char *tok = strtok_r(out->storage, ":", &save); tok && out->n < CLI_MAX_PRESET_DIRS - 2;
         tok = strtok_r(NULL, ":", &save))
      out->dir[out->n++] = tok;
  }
  out->dir[out->n++] = TLBSIM_PRESET_SOURCE_DIR;
  out->dir[out->n++] = TLBSIM_PRESET_INSTALL_DIR;
}

int cli_add_set(void *config, const char *assignment, char *why, size_t len) {
  cli_config *c = config;
  if (c->nsets == CLI_MAX_SETS) return snprintf(why, len, "one more: at most %d --set options", CLI_MAX_SETS), -1;
  c->sets[c->nsets++] = assignment;
  return 0;
}

cfg *cli_load_config(const cli_config *c, const char *fallback, const char **label, diag *d) {
  cfg *conf = cfg_create();
  if (!conf) {
    diag_set(d, NULL, 0, "tlbsim: out of memory");
    return NULL;
  }
  int rc = 0;
  if (c->preset || !c->config) { /* a --config given with --preset is laid over it (a machine file) */
    cli_preset_dirs dirs;
    cli_find_preset_dirs(&dirs);
    *label = c->preset ? c->preset : fallback;
    rc = cfg_load_preset(conf, *label, dirs.dir, dirs.n, d);
  }
  if (rc == 0 && c->config) {
    rc = cfg_load_file(conf, c->config, d);
    if (!c->preset) *label = c->config;
  }
  for (unsigned i = 0; rc == 0 && i < c->nsets; i++) rc = cfg_set(conf, c->sets[i], "--set", i + 1, d);
  if (rc) {
    cfg_destroy(conf);
    return NULL;
  }
  return conf;
}

/* Reads spec from conf and builds a machine of it, every key used; NULL (d)
 * when a key is wrong or unread. */
static machine *build_machine(cfg *conf, machine_spec *spec, diag *d) {
  machine *m = NULL;
  if (machine_spec_read(conf, spec, d) || !(m = machine_create(spec, d)) || cfg_check_unused(conf, d)) {
    machine_destroy(m);
    return NULL;
  }
  return m;
}

cfg *cli_load_spec(const cli_config *c, const char *fallback, const char **label, machine_spec *spec, diag *d) {
  cfg *conf = cli_load_config(c, fallback, label, d);
  if (!conf) return NULL;
  machine *whole = build_machine(conf, spec, d);
  if (!whole) {
    cfg_destroy(conf);
    return NULL;
  }
  machine_destroy(whole);
  return conf;
}

machine *cli_load_machine(const cli_config *c, const char *fallback, const char **label, diag *d) {
  cfg *conf = cli_load_config(c, fallback, label, d);
  if (!conf) return NULL;
  machine_spec spec;
  machine *m = build_machine(conf, &spec, d);
  cfg_destroy(conf);
  return m;
}

/* Whether path names the same file as one of inputs. */
static bool is_input(const char *path, const char *const *inputs) {
  struct stat out, in;
  if (stat(path, &out)) return false;
  for (size_t i = 0; inputs && inputs[i]; i++)
    if (!stat(inputs[i], &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino) return true;
  return false;
}

int cli_out_open(cli_out *o, const char *path, bool no_clobber, const char *const *inputs, diag *d) {
  *o = (cli_out){.path = path, .no_clobber = no_clobber};
  struct stat st;
  if (is_input(path, inputs)) return diag_set(d, path, 0, "is also an input: not overwritten");
  if (no_clobber && !stat(path, &st)) return diag_set(d, path, 0, "exists; it is never overwritten");
  /* Beside the path: the rename stays within one file system. */
  const char *slash = strrchr(path, '/');
  int dir = slash ? (int)(slash - path + 1) : 0;
  if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dir, path, slash ? slash + 1 : path) >= (int)sizeof o->tmp)
    return o->tmp[0] = '\0', diag_set(d, path, 0, "path too long");
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int err = errno;
    o->tmp[0] = '\0';
    return diag_set(d, path, 0, "cannot write: %s", strerror(err));
  }
  /* mkstemp makes the file private; the result gets the usual mode. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
    int err = errno;
    close(fd);
    cli_out_discard(o);
    return diag_set(d, path, 0, "cannot write: %s", strerror(err));
  }
  return 0;
}

int cli_out_commit(cli_out *o, diag *d) {
  bool bad = ferror(o->f) != 0;
  if (fclose(o->f)) bad = true;
  o->f = NULL;
  int err = bad ? EIO : 0;
  if (!bad && o->no_clobber) {
    if (link(o->tmp, o->path)) bad = true, err = errno;
    else unlink(o->tmp);
  } else if (!bad && rename(o->tmp, o->path)) {
    bad = true, err = errno;
  }
  if (bad) {
    cli_out_discard(o);
    if (err == EEXIST) return diag_set(d, o->path, 0, "exists; it is never overwritten");
    return diag_set(d, o->path, 0, "cannot write: %s", strerror(err));
  }
  o->tmp[0] = '\0';
  return 0;
}

void cli_out_discard(cli_out *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = '\0';
}

/* Ranges step 2^(1/per_octave) from LO and stop at HI. */
int cli_parse_footprints(const char *text, unsigned per_octave, uint64_t *out, size_t max, size_t *n) {
  char buf[128];
  *n = 0;
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    p += len + (p[len] == ',');
    char *dots = strstr(buf, "..");
    uint64_t lo, hi;
    if (!dots) {
      if (num_parse_size(buf, &lo) || *n == max) return -1;
      out[(*n)++] = lo;
      continue;
    }
    *dots = '\0';
    if (num_parse_size(buf, &lo) || num_parse_size(dots + 2, &hi) || lo == 0 || lo > hi) return -1;
    for (unsigned k = 0;; k++) {
      double f = (double)lo * pow(2.0, (double)k / per_octave);
      if (f > (double)hi * (1 + 1e-9)) break;
      if (*n == max) return -1;
      out[(*n)++] = (uint64_t)llround(f);
    }
  }
  return *n ? 0 : -1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tlbsim %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

int cli_input_error(const diag *d) {
  fprintf(stderr, "%s\n", d->msg);
  return EXIT_INPUT;
}
