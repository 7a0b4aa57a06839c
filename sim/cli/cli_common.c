#include "cli_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
  if (c->preset && c->config) {
    diag_set(d, NULL, 0, "tlbsim: use --preset or --config, not both");
    return NULL;
  }
  cfg *conf = cfg_create();
  if (!conf) {
    diag_set(d, NULL, 0, "tlbsim: out of memory");
    return NULL;
  }
  int rc;
  if (c->config) {
    rc = cfg_load_file(conf, c->config, d);
    *label = c->config;
  } else {
    cli_preset_dirs dirs;
    cli_find_preset_dirs(&dirs);
    *label = c->preset ? c->preset : fallback;
    rc = cfg_load_preset(conf, *label, dirs.dir, dirs.n, d);
  }
  for (unsigned i = 0; rc == 0 && i < c->nsets; i++) rc = cfg_set(conf, c->sets[i], "--set", i + 1, d);
  if (rc) {
    cfg_destroy(conf);
    return NULL;
  }
  return conf;
}

cfg *cli_load_spec(const cli_config *c, const char *fallback, const char **label, machine_spec *spec, diag *d) {
  cfg *conf = cli_load_config(c, fallback, label, d);
  if (!conf) return NULL;
  machine *whole = NULL;
  if (machine_spec_read(conf, spec, d) || !(whole = machine_create(spec, d)) || cfg_check_unused(conf, d)) {
    machine_destroy(whole);
    cfg_destroy(conf);
    return NULL;
  }
  machine_destroy(whole);
  return conf;
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
