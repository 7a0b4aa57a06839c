/* pt_config.c — a page-table format from a configuration (pt_format_read,
 * see tlbsim/pt.h): a [format.NAME] section, or a built-in format by name. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tlbsim/pt.h"

#define FORMAT_PREFIX "format."

static bool has_prefix(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

typedef struct format_values {
  uint32_t va_bits;
  bool sign_extend;
} format_values;

static const cfg_key format_table[] = {
    {"va_bits", CFG_KEY_U32, offsetof(format_values, va_bits), 0, 5, 64, 0, 0, 0, "bits", "required",
     "virtual-address bits the format translates (5..64)"},
    {"levels", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "required",
     "the levels, root first: NAME:LOWEST_VA_BIT:INDEX_BITS:ENTRY_BYTES,..."},
    {"leaves", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "list", "required",
     "the page sizes and the level that maps each: PAGE_SIZE@LEVEL,..."},
    {"sign_extend", CFG_KEY_BOOL, offsetof(format_values, sign_extend), 0, 0, 1, 0, 0, 0, "bool", "false",
     "addresses above the VA space are its sign extension (x86-64 canonical form)"},
    {"description", CFG_KEY_BY_CODE, 0, 0, 0, 0, 0, 0, 0, "text", "defined in the configuration",
     "what tlbsim formats says of it"},
};
static const cfg_keys format_keys = {"format.NAME", format_table, sizeof format_table / sizeof format_table[0]};

const cfg_keys *pt_format_config_keys(void) { return &format_keys; }

static int add_level(void *f, const char *item, diag *why) { return pt_format_add_level(f, item, why); }
static int add_leaf(void *f, const char *item, diag *why) { return pt_format_add_leaf(f, item, why); }

/* [format.NAME]: va_bits, levels, leaves, sign_extend, description; checked
 * as a built-in format is, a fault reported at the key it lies in. */
static int read_format_section(cfg *c, const char *sec, pt_format *f, diag *d) {
  const char *name = sec + strlen(FORMAT_PREFIX), *text;
  if (!*name || strlen(name) >= PT_NAME_MAX || pt_format_find(name))
    return cfg_section_error(c, sec, d, "a format's name is 1 to %d characters, not a built-in format's",
                             PT_NAME_MAX - 1);
  format_values v;
  *f = (pt_format){0};
  snprintf(f->name, sizeof f->name, "%s", name);
  static const char *const need[] = {"va_bits", "levels", "leaves"};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
    if (!cfg_has(c, sec, need[i])) return cfg_section_error(c, sec, d, "missing key '%s'", need[i]);
  if (cfg_read_keys(c, sec, &format_keys, &v, d)) return -1;
  f->va_bits = (uint8_t)v.va_bits;
  f->sign_extend = v.sign_extend;
  cfg_get_str(c, sec, "description", "defined in the configuration", &text);
  snprintf(f->description, sizeof f->description, "%s", text);
  if (cfg_get_list(c, sec, "levels", add_level, f, NULL, d) || cfg_get_list(c, sec, "leaves", add_leaf, f, NULL, d))
    return -1;
  diag why;
  int fault = pt_format_check(f, &why);
  if (fault == PT_FORMAT_OK) return 0;
  /* Levels that do not span va_bits: either key may be the slip, the one set last is named. */
  const char *key = fault == PT_FORMAT_BAD_LEAVES ? "leaves"
                    : fault == PT_FORMAT_BAD_SPAN ? cfg_latest(c, sec, "levels", "va_bits")
                                                  : "levels";
  return cfg_error(c, sec, key, d, "%s", why.msg);
}

int pt_format_read(cfg *c, const char *section, const char *key, pt_format *out, diag *d) {
  const char *name;
  cfg_get_str(c, section, key, "x86-64-4", &name);
  bool found = false;
  for (size_t i = 0; i < cfg_section_count(c); i++) {
    const char *sec = cfg_section_at(c, i);
    pt_format f;
    if (!has_prefix(sec, FORMAT_PREFIX)) continue;
    if (read_format_section(c, sec, &f, d)) return -1;
    if (strcmp(f.name, name)) continue;
    *out = f;
    found = true;
  }
  if (found) return 0;
  const pt_format *builtin = pt_format_find(name);
  if (builtin) {
    *out = *builtin;
    return 0;
  }
  char known[256] = "";
  for (size_t i = 0; i < pt_format_count(); i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, pt_format_at(i)->name, sizeof known - strlen(known) - 1);
  }
  return cfg_error(c, section, key, d, "unknown page-table format '%s' (known: %s, or a [format.NAME])", name,
                   known);
}

