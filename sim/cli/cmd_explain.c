/* tlbsim explain — one translation, step by step, as on a whiteboard. */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/machine.h"

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
  num_status st = num_whole_in(text, 0, UINT64_MAX, &va);
  char q[48], why[160];
  if (st == NUM_RANGE)
    return cli_usage_error("explain", "%s", num_complaint(st, NUM_WHOLE, text, 0, UINT64_MAX, why, sizeof why));
  if (st != NUM_OK) return cli_usage_error("explain", "'%s' is not an address", num_quote(text, q, sizeof q));
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
  printf("  PA %#llx (frame %#llx + offset); %u entries read\n", (unsigned long long)w.map.pa + (va & (page - 1)),
         (unsigned long long)w.map.pa, w.nsteps);
  print_sets(mc, va, shift);
  pt_destroy(t);
  return EXIT_OK;
}

int cmd_explain(int argc, char **argv) {
  cli_config conf = {0};
  uint64_t page_opt = 0;
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "page-size", .kind = OPT_SIZE, .dest = &page_opt, .arg = "SIZE", .lo = 1,
       .help = "the page to map (default: the configuration's [machine] page_size)"},
  };
  const cli_spec spec = {
      .cmd = "explain", .usage = "[OPTIONS] VADDR...", .operands = "VADDR", .min_operands = 1, .max_operands = 4096,
      .about = "Maps the page holding each VADDR (default preset x86-64) and walks it: per level the VA\n"
               "bits used, the index, the entry read, and the result; then the set each TLB array would\n"
               "use.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int optind_first, rc = cli_parse(&spec, argc, argv, &optind_first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine_spec ms;
  cfg *c = cli_load_spec(&conf, "x86-64", &label, &ms, &d);
  if (!c) return cli_input_error(&d);
  const pt_format *f = ms.format;
  uint64_t page = page_opt ? page_opt : ms.page_size;
  if (!is_pow2(page) || pt_format_leaf_level(f, log2_u64(page)) < 0)
    rc = cli_usage_error("explain", "--page-size: %llu is not a page size of %s", (unsigned long long)page, f->name);
  for (int i = optind_first; rc == EXIT_OK && i < argc; i++) rc = explain_one(f, &ms.mmu, log2_u64(page), argv[i]);
  cfg_destroy(c);
  return rc;
}
