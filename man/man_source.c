/* man_source — prints what the man pages are generated from that no
 * installed program prints: the --help of tlbsim-gpu (built only where
 * CUDA is) and every configuration key, from the very tables the modules
 * read them through (man/gen_man.sh; not installed).
 *   man_source gpu-usage | config-keys
 * config-keys: SECTION|KEY|UNIT|DEFAULT|WHAT IT MEANS, section by section. */
#include <stdio.h>
#include <string.h>

#include "gpu_opts.h"
#include "tlbsim/machine.h"

static void print_keys(const cfg_keys *k) {
  for (size_t i = 0; i < k->n; i++)
    printf("%s|%s|%s|%s|%s\n", k->section, k->key[i].name, k->key[i].unit, k->key[i].default_text, k->key[i].doc);
}

/* In the order the page lists them: the machine, its format, the
 * allocator, the memory, the MMU's sections, the GPU. */
static void print_config_keys(void) {
  print_keys(machine_spec_keys(0));
  print_keys(pt_format_config_keys());
  print_keys(machine_spec_keys(1));
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *doc, *name = vas_param_at(i, &doc);
    if (strcmp(name, "capacity")) printf("vas|%s|value|the policy's|%s\n", name, doc); /* capacity is [machine] phys_memory */
  }
  print_keys(memsys_config_keys());
  for (size_t i = 0; mmu_config_keys(i); i++) print_keys(mmu_config_keys(i));
  print_keys(gpu_config_keys());
  print_keys(uvm_config_keys());
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "gpu-usage")) return fputs(gpu_usage, stdout) == EOF;
  if (argc != 2 || strcmp(argv[1], "config-keys")) return fputs("usage: man_source gpu-usage|config-keys\n", stderr), 2;
  print_config_keys();
  return 0;
}
