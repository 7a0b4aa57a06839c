/* man_source — prints what the man pages are generated from that no
 * installed program prints: the --help of tlbsim-gpu (built only where
 * CUDA is) and every configuration key, from the very tables the modules
 * read them through (man/gen_man.sh; not installed).
 *   man_source gpu-usage | config-keys
 * config-keys: SECTION|KEY|UNIT|DEFAULT|WHAT IT MEANS, section by section. */
#include <stdio.h>
#include <string.h>

#include "gpu_opts.h"
#include "tlbsim/loader.h"

static void print_key(void *ctx, const char *section, const char *key, const char *unit, const char *def,
                      const char *doc) {
  (void)ctx;
  printf("%s|%s|%s|%s|%s\n", section, key, unit, def, doc);
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "gpu-usage")) return fputs(gpu_usage, stdout) == EOF;
  if (argc != 2 || strcmp(argv[1], "config-keys")) return fputs("usage: man_source gpu-usage|config-keys\n", stderr), 2;
  loader_each_key(print_key, NULL);
  return 0;
}
