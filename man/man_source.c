/* man_source — prints what the man pages are generated from that no
 * installed program prints: every configuration key, from the very tables
 * the modules read them through (man/gen_man.sh; not installed; tlbsim-gpu's
 * --help comes from gpu/'s tlbsim_gpu_usage).
 *   man_source config-keys
 * config-keys: SECTION|KEY|UNIT|DEFAULT|WHAT IT MEANS, section by section. */
#include <stdio.h>
#include <string.h>

#include "tlbsim/loader.h"

static void print_key(void *ctx, const char *section, const char *key, const char *unit, const char *def,
                      const char *doc) {
  (void)ctx;
  printf("%s|%s|%s|%s|%s\n", section, key, unit, def, doc);
}

int main(int argc, char **argv) {
  if (argc != 2 || strcmp(argv[1], "config-keys")) return fputs("usage: man_source config-keys\n", stderr), 2;
  loader_each_key(print_key, NULL);
  return 0;
}
