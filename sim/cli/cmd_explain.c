/* tlbsim explain — one translation, step by step, as on a whiteboard. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/machine.h"

static const char explain_help[] =
    "usage: tlbsim explain [--preset NAME | --config FILE] [--set S.K=V]... [--page-size SIZE] VADDR...\n"
    "\n"
    "Maps the page holding each VADDR (with SIZE pages, default the preset's page size)\n"
    "and walks it: per level the VA bits used, the index, the entry read, and the result.\n";

static void print_bits(const pt_format *f, unsigned level, unsigned shift, uint64_t va) {
  unsigned bits = pt_format_index_bits(f, level, shift), lo = pt_format_index_shift(f, level, shift);
  fprintf(stdout, "  %-6s VA[%2u:%2u] = %-5llu", f->level[level].name, lo + bits - 1, lo,
          (unsigned long long)((va >> lo) & ((1ull << bits) - 1)));
}

/* Where the page would sit in each TLB array that holds its size. */
static void print_sets(const mmu_config *mc, uint64_t va, unsigned shift) {
  unsigned shown = 0;
  for (unsigned i = 0; i < mc->nlevels; i++)
    for (unsigned a = 0; a < mc->level[i].narrays; a++) {
      const tlb_geometry *g = &mc->level[i].array[a];
      bool holds = false;
      for (unsigned k = 0; k < g->npage_shifts; k++) holds |= g->page_shift[k] == shift;
      if (!holds) continue;
      uint64_t sets = g->entries / g->ways;
      shown++;
      uint64_t set = tlb_set_index(g, va, shift);
      printf("  TLB %-6s set %llu of %llu (%u-way, %s index", mc->level[i].name, (unsigned long long)set,
             (unsigned long long)sets, g->ways, g->index == TLB_INDEX_XOR ? "xor-folded" : "modulo");
      if (g->index == TLB_INDEX_XOR && g->bank_bits)
        printf(", bank %llu of %u", (unsigned long long)(set & ((1ull << g->bank_bits) - 1)), 1u << g->bank_bits);
      printf(")\n");
    }
  if (!shown) printf("  no TLB level holds pages of this size: every access walks\n");
}

static int explain_one(const pt_format *f, const mmu_config *mc, unsigned shift, const char *text) {
  uint64_t va;
  if (num_parse_whole(text, &va)) return cli_usage_error("explain", "'%s' is not an address", text);
  if (f->va_bits < 64 && va >> f->va_bits)
    return fprintf(stderr, "tlbsim explain: %#llx is beyond the %u-bit address space of %s\n",
                   (unsigned long long)va, f->va_bits, f->name), EXIT_INPUT;
  pt *t = pt_create(f);
  if (!t) return EXIT_INPUT;
  uint64_t page = 1ull << shift, base = va & ~(page - 1);
  /* An arbitrary frame, easy to tell apart from the VA. */
  uint64_t pa = (0x40000ull << shift) & ((1ull << 52) - 1);
  diag d;
  if (pt_map(t, base, pa, shift, PT_RWX, &d)) {
    pt_destroy(t);
    return cli_input_error(&d);
  }
  pt_walk w;
  pt_walk_va(t, va, &w);
  char buf[32];
  printf("VA %#llx, format %s, %s page\n", (unsigned long long)va, f->name, num_format_size(page, buf, sizeof buf));
  for (unsigned i = 0; i < w.nsteps; i++) {
    const pt_step *s = &w.step[i];
    print_bits(f, s->level, shift, va);
    printf(" entry %#llx (table %#llx + %u x %u B) %s\n", (unsigned long long)s->entry_pa,
           (unsigned long long)s->table_pa, s->index, f->level[s->level].entry_bytes,
           s->leaf ? "-> leaf" : "-> next table");
  }
  printf("  offset VA[%2u: 0] = %#llx\n", shift - 1, (unsigned long long)(va & (page - 1)));
  printf("  PA %#llx (frame %#llx + offset); %u entries read\n", (unsigned long long)(w.map.pa + (va & (page - 1))),
         (unsigned long long)w.map.pa, w.nsteps);
  print_sets(mc, va, shift);
  pt_destroy(t);
  return EXIT_OK;
}

int cmd_explain(int argc, char **argv) {
  static const struct option longopts[] = {
      CLI_CONFIG_OPTIONS, {"page-size", required_argument, NULL, 'P'},
      {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
  cli_config conf = {0};
  const char *page_text = NULL;
  int ch;
  optind = 1;
  opterr = 0;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    int taken = cli_config_option(&conf, ch, optarg);
    if (taken > 0) return taken;
    if (taken == 0) continue;
    switch (ch) {
    case 'P': page_text = optarg; break;
    case 'h': fputs(explain_help, stdout); return EXIT_OK;
    default: return cli_usage_error("explain", "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
    }
  }
  if (optind == argc) return cli_usage_error("explain", "expected at least one VADDR (see --help)");
  diag d;
  const char *label;
  machine_spec spec;
  cfg *c = cli_load_spec(&conf, "x86-64", &label, &spec, &d);
  if (!c) return cli_input_error(&d);
  const pt_format *f = spec.format;
  uint64_t page = spec.page_size;
  int rc = EXIT_OK;
  if (page_text && num_parse_size(page_text, &page)) {
    rc = cli_usage_error("explain", "--page-size: '%s' is not a size", page_text);
  } else if (!is_pow2(page) || pt_format_leaf_level(f, log2_u64(page)) < 0) {
    rc = cli_usage_error("explain", "--page-size: %llu is not a page size of %s", (unsigned long long)page, f->name);
  }
  for (int i = optind; rc == EXIT_OK && i < argc; i++) rc = explain_one(f, &spec.mmu, log2_u64(page), argv[i]);
  cfg_destroy(c);
  return rc;
}
