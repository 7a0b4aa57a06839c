/* A program built against an installed libtlbsim (tests/cli/install.sh):
 * replays TRACE through preset x86-64 and prints, one "name value" per
 * line, what the test compares with `tlbsim run --format csv`; then the
 * other calls of the facade, each checked here. Exit 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlbsim/tlbsim.h>

static int failed(const char *what, const char *err) {
  fprintf(stderr, "consumer: %s: %s\n", what, err);
  return 1;
}

static int print_stats(tlbsim_machine *m, char *err) {
  static const char *const columns[] = {"accesses", "tlb.l1d.misses", "walks", "page_faults", "cycles_per_access"};
  for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++) {
    double v;
    if (tlbsim_stat(m, columns[i], &v, err)) return failed("tlbsim_stat", err);
    printf("%s %.6g\n", columns[i], v);
  }
  return 0;
}

/* A wrong key comes back as one located line, and nothing is built. */
static int check_error(char *err) {
  const char *sets[] = {"tlb.l1d.entriez=64"};
  if (tlbsim_machine_create("x86-64", NULL, sets, 1, err)) return failed("bad key", "accepted");
  printf("error %s\n", err);
  return 0;
}

/* Accesses one by one: two reads of one page miss once. */
static int check_access(char *err) {
  tlbsim_machine *m = tlbsim_machine_create(NULL, NULL, NULL, 0, err);
  double misses;
  int rc = !m || tlbsim_access(m, 'R', 0x1000, 8, err) || tlbsim_access(m, 'R', 0x1008, 8, err) ||
           tlbsim_stat(m, "tlb.l1d.misses", &misses, err);
  tlbsim_machine_destroy(m);
  if (rc) return failed("tlbsim_access", err);
  printf("access_misses %.0f\n", misses);
  return 0;
}

int main(int argc, char **argv) {
  char err[TLBSIM_ERROR_MAX];
  if (argc != 2) return fprintf(stderr, "usage: consumer TRACE\n"), 2;
  printf("version %s\n", tlbsim_version());
  tlbsim_machine *m = tlbsim_machine_create("x86-64", NULL, NULL, 0, err);
  if (!m) return failed("tlbsim_machine_create", err);
  int rc = tlbsim_run_trace(m, argv[1], NULL, err) ? failed("tlbsim_run_trace", err) : print_stats(m, err);
  char *json = rc ? NULL : tlbsim_report(m, "json", err);
  if (!rc && !(json && strstr(json, "\"l1d\""))) rc = failed("tlbsim_report", err);
  tlbsim_free(json);
  tlbsim_machine_destroy(m);
  return rc || check_error(err) || check_access(err);
}
