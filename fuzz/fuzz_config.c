/* Configuration: an INI file and --set overrides, read into a machine_spec
 * and built into a machine, as every command does (cli_load_spec). The
 * input is the INI text, then optionally a line "--set" and one assignment
 * per line after it.
 *
 * Oracle: every error is one line that names where it comes from (the
 * file, or --set:N); a configuration that is accepted builds a machine,
 * which then replays 64 scattered accesses (any page-table format, wide
 * levels included), each error one line at its record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define FUZZ_ACCESSES 64

static void expect_located(const diag *d, const char *file) {
  fuzz_check_diag(d);
  if (strncmp(d->msg, file, strlen(file)) && strncmp(d->msg, "--set:", 6)) {
    fprintf(stderr, "no location: %s\n", d->msg);
    abort();
  }
}

/* A machine that builds replays scattered accesses over its format's
 * addresses, as demand paging maps them: a format of wide levels must map
 * them at the cost of the entries used. Errors are one line at the record. */
static void replay_scattered(machine *m, const pt_format *f) {
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (unsigned long i = 1; i <= FUZZ_ACCESSES; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t va = f->va_bits < 64 ? pt_format_va_canonical(f, x & ((UINT64_C(1) << f->va_bits) - 1)) : x;
    if (va + 7 < va) continue;
    trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = va, .size = 8, .line = i};
    diag d;
    if (machine_apply(m, &r, "scattered", &d)) {
      fuzz_check_diag(&d);
      if (strncmp(d.msg, "scattered:", 10)) abort();
      return;
    }
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
  else replay_scattered(m, &spec.format);
  machine_destroy(m);
  cfg_destroy(c);
  fuzz_file_close(&f);
  free(text);
  return 0;
}
