/* tlbsim — the command-line front end: dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

typedef struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"run", cmd_run, "replay a trace through the TLB hierarchy and page table"},
    {"explain", cmd_explain, "show one translation step by step"},
    {"dump", cmd_dump, "replay a trace and print its page table level by level"},
    {"convert", cmd_convert, "convert a trace between formats (binary, native, lackey, din), compressed or not"},
    {"chase", cmd_chase, "simulate the GPU suite's pointer chase"},
    {"gather", cmd_gather, "predict the GPU suite's many-thread gather (the concurrency model)"},
    {"uvm", cmd_uvm, "predict the GPU suite's managed-memory experiment (faults, migration, prefetch)"},
    {"validate", cmd_validate, "compare a measured chase CSV with the model"},
    {"calibrate", cmd_calibrate, "fit a preset's latencies to a measured chase CSV"},
    {"mrc", cmd_mrc, "miss-ratio curves: LRU misses of many TLB geometries in one pass"},
    {"sweep", cmd_sweep, "many configurations (every combination of --vary values) over one read of each trace"},
    {"kernel", cmd_kernel, "summarize a GPU kernel trace (Accel-Sim's kernelslist.g, kernel-N.traceg)"},
    {"alloc", cmd_alloc, "replay allocations through allocator policies and compare them"},
    {"formats", cmd_formats, "list page-table formats, presets and policies"},
    {"quiz", cmd_quiz, "seeded exercises with answers the simulator computes"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: tlbsim COMMAND [OPTIONS]   (tlbsim COMMAND --help for each)\n"
               "       tlbsim --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "tlbsim: expected a COMMAND (see tlbsim --help)\n");
    return EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("tlbsim %s\n", TLBSIM_VERSION);
    return EXIT_OK;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "tlbsim: unknown command '%s' (see tlbsim --help)\n", argv[1]);
  return EXIT_USAGE;
}
