/* tlbsim explain — translations step by step, as on a whiteboard: every
 * address is first touched through one machine (demand paging, so frames
 * come from its allocator, in the order given), then each is walked in the
 * final table, entry by entry with the entry's contents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/machine.h"
#include "tlbsim/report.h"

static const char *const explain_format_names[] = {"text", "json", NULL};

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

/* The same as JSON: per array holding the size, its set and, for a modulo
 * index, the tag a textbook writes (TLBT: the VPN above the set bits). */
static json_object *sets_json(const mmu_config *mc, uint64_t va, unsigned shift) {
  json_object *arr = json_object_new_array();
  for (unsigned i = 0; i < mc->nlevels; i++)
    for (unsigned a = 0; a < mc->level[i].narrays; a++) {
      const tlb_geometry *g = &mc->level[i].array[a];
      bool holds = false;
      for (unsigned k = 0; k < g->npage_shifts; k++) holds |= g->page_shift[k] == shift;
      if (!holds) continue;
      uint64_t sets = g->entries / g->ways, vpn = (va >> shift) / g->sector_pages;
      json_object *x = json_object_new_object();
      json_object_object_add(x, "level", json_object_new_string(mc->level[i].name));
      json_object_object_add(x, "set", json_object_new_uint64(tlb_set_index(g, va, shift)));
      json_object_object_add(x, "sets", json_object_new_uint64(sets));
      json_object_object_add(x, "ways", json_object_new_uint64(g->ways));
      if (g->index == TLB_INDEX_MODULO) json_object_object_add(x, "tag", json_object_new_uint64(vpn / sets));
      json_object_array_add(arr, x);
    }
  return arr;
}

static const char *prot_text(unsigned prot, char buf[4]) {
  buf[0] = prot & PT_R ? 'r' : '-';
  buf[1] = prot & PT_W ? 'w' : '-';
  buf[2] = prot & PT_X ? 'x' : '-';
  buf[3] = 0;
  return buf;
}

void explain_entry_text(const pt_entry *e, char *buf, size_t len) {
  char p[4], sz[32];
  if (!e->valid)
    snprintf(buf, len, "not valid");
  else if (e->leaf)
    snprintf(buf, len, "V %s leaf %s page, frame %#llx (pa %#llx)", prot_text(e->prot, p),
             num_format_size(1ull << e->page_shift, sz, sizeof sz), (unsigned long long)e->frame,
             (unsigned long long)e->addr);
  else
    snprintf(buf, len, "V next table %#llx", (unsigned long long)e->addr);
}

static char *hex(uint64_t v, char buf[24]) {
  snprintf(buf, 24, "0x%016llx", (unsigned long long)v);
  return buf;
}

/* One address's walk in the final table, as text or as a JSON object. */
static void explain_one(const pt *t, const mmu_config *mc, unsigned shift, uint64_t va, json_object *arr) {
  const pt_format *f = pt_get_format(t);
  pt_walk w;
  uint64_t raw[PT_MAX_LEVELS];
  pt_walk_va(t, va, &w);
  pt_walk_raw(t, va, raw);
  if (w.mapped) shift = w.map.page_shift;
  uint64_t page = 1ull << shift, off = va & (page - 1);
  char buf[32], h[24], what[160];
  json_object *o = NULL, *ents = NULL;
  if (arr) {
    o = json_object_new_object();
    ents = json_object_new_array();
    json_object_object_add(o, "va", json_object_new_uint64(va));
    uint64_t pa = w.mapped ? w.map.pa + off : 0;
    json_object_object_add(o, "pa", w.mapped ? json_object_new_uint64(pa) : NULL);
    json_object_object_add(o, "page_size", json_object_new_uint64(page));
    json_object_object_add(o, "mapped", json_object_new_boolean(w.mapped));
    uint64_t low = f->va_bits < 64 ? va & ((1ull << f->va_bits) - 1) : va; /* the bits a walk indexes */
    json_object_object_add(o, "vpn", json_object_new_uint64(low >> shift));
    json_object_object_add(o, "entries", ents);
    json_object_object_add(o, "tlb", sets_json(mc, va, shift));
    json_object_array_add(arr, o);
  } else {
    printf("VA %#llx, format %s, %s page\n", (unsigned long long)va, f->name, num_format_size(page, buf, sizeof buf));
  }
  for (unsigned i = 0; i < w.nsteps; i++) {
    const pt_step *s = &w.step[i];
    pt_entry e;
    diag d;
    if (pt_entry_decode(f, s->level, raw[i], &e, &d)) e = (pt_entry){.raw = raw[i]}; /* never: pt wrote it */
    if (!arr) {
      explain_entry_text(&e, what, sizeof what);
      print_bits(f, s->level, shift, va);
      printf(" entry %#llx (table %#llx + %u x %u B) = %s %s\n", (unsigned long long)s->entry_pa,
             (unsigned long long)s->table_pa, s->index, f->level[s->level].entry_bytes, hex(e.raw, h), what);
      continue;
    }
    json_object *x = json_object_new_object();
    char p[4];
    json_object_object_add(x, "level", json_object_new_string(f->level[s->level].name));
    json_object_object_add(x, "index", json_object_new_uint64(s->index));
    unsigned bits = pt_format_index_bits(f, s->level, shift), lo = pt_format_index_shift(f, s->level, shift);
    json_object *range = json_object_new_array_ext(2); /* the VA bits the index is, high and low */
    json_object_array_add(range, json_object_new_uint64(lo + bits - 1));
    json_object_array_add(range, json_object_new_uint64(lo));
    json_object_object_add(x, "va_bits", range);
    json_object_object_add(x, "table", json_object_new_uint64(s->table_pa));
    json_object_object_add(x, "entry_address", json_object_new_uint64(s->entry_pa));
    json_object_object_add(x, "raw", json_object_new_string(hex(e.raw, h)));
    json_object_object_add(x, "valid", json_object_new_boolean(e.valid));
    if (e.valid) json_object_object_add(x, "leaf", json_object_new_boolean(e.leaf));
    if (e.leaf) {
      json_object_object_add(x, "prot", json_object_new_string(prot_text(e.prot, p)));
      json_object_object_add(x, "page_size", json_object_new_uint64(1ull << e.page_shift));
      json_object_object_add(x, "frame", json_object_new_uint64(e.frame));
      json_object_object_add(x, "frame_address", json_object_new_uint64(e.addr));
    } else if (e.valid) {
      json_object_object_add(x, "next_table", json_object_new_uint64(e.addr));
    }
    json_object_array_add(ents, x);
  }
  if (arr) return;
  printf("  offset VA[%2u: 0] = %#llx\n", shift - 1, (unsigned long long)off);
  uint64_t frame_pa = w.mapped ? w.map.pa : 0, pa = frame_pa + off, frame = frame_pa >> shift;
  if (w.mapped)
    printf("  PA %#llx (frame %#llx at %#llx + offset); %u entries read\n", (unsigned long long)pa,
           (unsigned long long)frame, (unsigned long long)frame_pa, w.nsteps);
  else
    printf("  not mapped: an access faults; %u entries read\n", w.nsteps);
  print_sets(mc, va, shift);
}

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

/* Touches every address in order through one machine, then walks each. */
static int explain_all(const machine_spec *ms, unsigned shift, char **va_text, int n, bool json) {
  const pt_format *f = &ms->format;
  uint64_t *va = calloc((size_t)n, sizeof *va);
  if (!va) return fprintf(stderr, "tlbsim explain: out of memory\n"), EXIT_INPUT;
  int rc = EXIT_OK;
  for (int i = 0; rc == EXIT_OK && i < n; i++) rc = parse_va(f, va_text[i], &va[i]);
  machine_spec s = *ms;
  s.page_size = 1ull << shift;
  diag d;
  machine *m = rc ? NULL : machine_create(&s, &d);
  if (!rc && !m) rc = cli_input_error(&d);
  for (int i = 0; rc == EXIT_OK && i < n; i++) {
    trace_record r = {.kind = REC_ACCESS, .access = TRACE_READ, .addr = va[i], .size = 1, .line = (unsigned long)i + 1};
    if (machine_apply(m, &r, "explain", &d)) rc = cli_input_error(&d);
  }
  if (rc == EXIT_OK) {
    json_object *doc = json ? json_object_new_object() : NULL, *arr = json ? json_object_new_array() : NULL;
    if (json) {
      json_object_object_add(doc, "format", json_object_new_string(f->name));
      json_object_object_add(doc, "addresses", arr);
    }
    for (int i = 0; i < n; i++) explain_one(machine_get_pt(m), &s.sys.mmu, shift, va[i], arr);
    if (json) {
      puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
      json_object_put(doc);
    }
  }
  machine_destroy(m);
  free(va);
  return rc;
}

int cmd_explain(int argc, char **argv) {
  cli_config conf = {0};
  uint64_t page_opt = 0;
  int format = 0;
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "page-size", .kind = OPT_SIZE, .dest = &page_opt, .arg = "SIZE", .lo = 1,
       .help = "the page to map (default: the configuration's [machine] page_size)"},
      {.name = "format", .kind = OPT_CHOICE, .dest = &format, .arg = "F", .choices = explain_format_names,
       .help = "text (default) or json: per address va, vpn, pa, page_size, the entries read (each with\n"
               "its index's va_bits, high and low), and per TLB array holding the page its set and\n"
               "(modulo index) its tag, the VPN above the set bits"},
  };
  const cli_spec spec = {
      .cmd = "explain", .usage = "[OPTIONS] VADDR...", .operands = "VADDR", .min_operands = 1, .max_operands = 4096,
      .about = "Touches each VADDR in order on one machine (default preset x86-64; demand paging maps\n"
               "each page on a frame of its physical memory), then walks each in the final table: per\n"
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
    rc = explain_all(&ms, log2_u64(page), argv + optind_first, argc - optind_first, format == 1);
  cfg_destroy(c);
  return rc;
}
