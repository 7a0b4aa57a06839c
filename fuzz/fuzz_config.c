/* Configuration: an INI file and --set overrides, read into a machine_spec
 * and built into a machine, as every command does (cli_load_spec). The
 * input is the INI text, then optionally a line "--set" and one assignment
 * per line after it.
 *
 * Oracle: every error is one line that names where it comes from (the
 * file, or --set:N); a configuration that is accepted builds a machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void expect_located(const diag *d, const char *file) {
  fuzz_check_diag(d);
  if (strncmp(d->msg, file, strlen(file)) && strncmp(d->msg, "--set:", 6)) {
    fprintf(stderr, "no location: %s\n", d->msg);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_string(data, size);
  char *sets = strstr(text, "\n--set\n");
  size_t ini_len = sets ? (size_t)(sets - text) + 1 : size;
  fuzz_file f;
  if (fuzz_file_open(&f, data, ini_len)) abort();
  cfg *c = cfg_create();
  if (!c) abort();
  diag d;
  machine_spec spec;
  machine *m = NULL;
  int rc = cfg_load_file(c, f.path, &d);
  unsigned long n = 0;
  for (char *line = sets ? sets + 7 : NULL, *next; rc == 0 && line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    rc = cfg_set(c, line, "--set", ++n, &d);
  }
  if (rc == 0 && (machine_spec_read(c, &spec, &d) || !(m = machine_create(&spec, &d)) || cfg_check_unused(c, &d)))
    rc = -1;
  if (rc) expect_located(&d, f.path);
  machine_destroy(m);
  cfg_destroy(c);
  fuzz_file_close(&f);
  free(text);
  return 0;
}
