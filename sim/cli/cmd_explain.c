/* tlbsim explain — translations step by step, as on a whiteboard: every
 * address is first touched through one machine (demand paging, so frames
 * come from its allocator, in the order given), then each is walked in the
 * final table, entry by entry with the entry's contents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/ptview.h"

static const char *const explain_format_names[] = {"text", "json", NULL};

static int parse_va(const pt_format *f, const char *text, uint64_t *va) {
  num_status st = num_whole_in(text, 0, UINT64_MAX, va);
  char q[48], why[160];
  if (st == NUM_RANGE)
    return cli_usage_error("explain", "%s", num_complaint(st, NUM_WHOLE, text, 0, UINT64_MAX, why, sizeof why));
  if (st != NUM_OK) return cli_usage_error("explain", "'%s' is not an address", num_quote(text, q, sizeof q));
  if (!pt_format_va_ok(f, *va) && f->sign_extend)
    return fprintf(stderr, "tlbsim explain: %#llx is beyond the %u-bit address space of %s (not canonical: bits 63..%u "
                   "must equal bit %u)\n", (unsigned long long)*va, f->va_bits, f->name, f->va_bits, f->va_bits - 1u),
           EXIT_INPUT;
  if (!pt_format_va_ok(f, *va))
    return fprintf(stderr, "tlbsim explain: %#llx is beyond the %u-bit address space of %s\n",
                   (unsigned long long)*va, f->va_bits, f->name), EXIT_INPUT;
  return EXIT_OK;
}

/* Reads every address (a usage error when one is not), then explains them. */
static int explain_all(const machine_spec *ms, unsigned shift, char **va_text, int n, bool json, bool touch) {
  uint64_t *va = calloc((size_t)n, sizeof *va);
  if (!va) return fprintf(stderr, "tlbsim explain: out of memory\n"), EXIT_INPUT;
  int rc = EXIT_OK;
  for (int i = 0; rc == EXIT_OK && i < n; i++) rc = parse_va(&ms->format, va_text[i], &va[i]);
  diag d;
  if (rc == EXIT_OK && ptview_explain(stdout, ms, shift, va, (size_t)n, json, touch, &d)) rc = cli_input_error(&d);
  free(va);
  return rc;
}

int cmd_explain(int argc, char **argv) {
  cli_config conf = {0};
  uint64_t page_opt = 0;
  int format = 0;
  bool unmapped = false;
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "page-size", .kind = OPT_SIZE, .dest = &page_opt, .arg = "SIZE", .lo = 1,
       .help = "the page to map (default: the configuration's [machine] page_size)"},
      {.name = "unmapped", .kind = OPT_FLAG, .dest = &unmapped,
       .help = "walk without touching first: the empty table of a fresh machine, where\n"
               "every walk stops at the root's invalid entry"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &format, .arg = "F", .choices = explain_format_names,
       .help = "text (default) or json: per address va, vpn, pa, page_size, the entries read (each with\n"
               "its index's va_bits, high and low), and per TLB array holding the page its set and\n"
               "(modulo index) its tag, the VPN above the set bits"},
  };
  const cli_spec spec = {
      .cmd = "explain", .usage = "[OPTIONS] VADDR...", .operands = "VADDR", .min_operands = 1, .max_operands = 4096,
      .about = "Touches each VADDR in order on one machine (default preset x86-64), which maps each page\n"
               "on a frame of its physical memory as demand paging would (even for a machine whose\n"
               "demand_paging is off), then walks each in the final table: per\n"
               "level the VA bits used, the index, the entry read and its contents (tlbsim's entry\n"
               "word: flags V R W X L in the top byte, the address below), and the result; then the\n"
               "set each TLB array would use.",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int optind_first, rc = cli_parse(&spec, argc, argv, &optind_first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  diag d;
  const char *label;
  machine_spec ms;
  cfg *c = cli_load_spec(&conf, "x86-64", &label, &ms, &d);
  if (!c) return cli_input_error(&d);
  const pt_format *f = &ms.format;
  uint64_t page = page_opt ? page_opt : ms.page_size;
  if (!is_pow2(page) || pt_format_leaf_level(f, log2_u64(page)) < 0)
    rc = cli_usage_error("explain", "--page-size: %llu is not a page size of %s", (unsigned long long)page, f->name);
  if (rc == EXIT_OK)
    rc = explain_all(&ms, log2_u64(page), argv + optind_first, argc - optind_first, format == 1, !unmapped);
  cfg_destroy(c);
  return rc;
}
