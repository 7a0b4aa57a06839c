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
#include "tlbsim/loader.h"

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
  const char *set[64]; /* the first 64 --set lines (more are not read: a harness bound) */
  size_t n = 0;
  for (char *line = sets ? sets + 7 : NULL, *next; line && *line && n < 64; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    set[n++] = line;
  }
  /* The loader, as the CLI and libtlbsim load a configuration: the file,
   * the overrides, the spec, a machine built to check every key. */
  loader_request q = {.config = f.path, .sets = set, .nsets = n, .set_origin = "--set"};
  diag d;
  const char *label;
  machine_spec spec;
  machine *m = NULL;
  cfg *c = loader_spec(&q, &label, &spec, &d);
  if (!c) expect_located(&d, f.path);
  else if (!(m = machine_create(&spec, &d))) abort(); /* the loader built this very spec */
  else replay_scattered(m, &spec.format);
  machine_destroy(m);
  if (c) cfg_destroy(c);
  fuzz_file_close(&f);
  free(text);
  return 0;
}
