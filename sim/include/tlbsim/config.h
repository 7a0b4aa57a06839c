/* tlbsim/config.h — configuration as sections of key = value, with where
 * each value came from.
 *
 * cfg        owns every entry read from INI files (parsed by libinih) and
 *            from --set overrides, in order, each with its source file and
 *            line. Consumers read typed values through cfg_get_* which mark
 *            entries used; cfg_check_unused then reports the first key no
 *            consumer asked for: a misspelt key is an error, not a no-op.
 * cfg_entry  one key's latest value (a later file or --set replaces an
 *            earlier value; the same key twice in one file is an error).
 *
 * Presets are found by name by the loader (loader.h): $TLBSIM_PRESET_PATH
 * (colon list of directories), then those compiled into the library.
 */
#ifndef TLBSIM_CONFIG_H
#define TLBSIM_CONFIG_H

#include "tlbsim/base.h"

typedef struct cfg cfg;

cfg *cfg_create(void);
void cfg_destroy(cfg *c);

/* Reads an INI file; errors are "FILE:LINE: ...". */
int cfg_load_file(cfg *c, const char *path, diag *d);
/* Reads INI text (NUL-terminated, outliving c) as if from a file called
 * name: a preset compiled into the library (loader.h). */
int cfg_load_text(cfg *c, const char *name, const char *text, diag *d);
/* Applies "SECTION.KEY=VALUE" (split at the last dot before '='). `origin`
 * and `index` name it in errors, e.g. "--set", 2 → "--set:2: ...". */
int cfg_set(cfg *c, const char *assignment, const char *origin, unsigned long index, diag *d);

/* Typed getters. Return 0 and the default when the key is absent, 0 and the
 * value when present, well-formed and within [lo, hi], -1 with
 * "FILE:LINE: section.key: 'VALUE' is not a whole number" (or "a size") or
 * "FILE:LINE: section.key: 'VALUE' is out of range (LO..HI)" otherwise. Each
 * marks the entry used. Numbers go through the numbers module (num.h); the
 * range is that of the field the value is stored in, so no caller narrows a
 * value silently. */
int cfg_get_str(cfg *c, const char *section, const char *key, const char *def, const char **out);
int cfg_get_u64(cfg *c, const char *section, const char *key, uint64_t def, uint64_t lo, uint64_t hi,
                uint64_t *out, diag *d);
int cfg_get_u32(cfg *c, const char *section, const char *key, uint32_t def, uint32_t lo, uint32_t hi,
                uint32_t *out, diag *d);
int cfg_get_size(cfg *c, const char *section, const char *key, uint64_t def, uint64_t lo, uint64_t hi,
                 uint64_t *out, diag *d);
/* A finite real number within [lo, hi]. */
int cfg_get_real(cfg *c, const char *section, const char *key, double def, double lo, double hi, double *out,
                 diag *d);
int cfg_get_bool(cfg *c, const char *section, const char *key, bool def, bool *out, diag *d);
/* Comma-separated list of sizes, each within [lo, hi]; *n set to the count
 * (0 when absent). */
int cfg_get_size_list(cfg *c, const char *section, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
                      size_t max, size_t *n, diag *d);
/* Comma-separated items of section.key (blanks around each trimmed; an
 * item is at most CFG_ITEM_MAX - 1 bytes), each handed to fn in order;
 * *n (may be NULL) gets the count, 0 when the key is absent. fn returns
 * -1 with why set (no location) to refuse an item: the error is reported
 * as "FILE:LINE: section.key: WHY". */
#define CFG_ITEM_MAX 64
typedef int (*cfg_item_fn)(void *ctx, const char *item, diag *why);
int cfg_get_list(cfg *c, const char *section, const char *key, cfg_item_fn fn, void *ctx, size_t *n, diag *d);
bool cfg_has(const cfg *c, const char *section, const char *key);
/* Of keys a and b of a section, the one set last (by a later file or --set,
 * or on a later line), or the one set at all: where an error about the two together is named,
 * since the value just changed is the likelier mistake. a when neither is. */
const char *cfg_latest(const cfg *c, const char *section, const char *a, const char *b);
/* Reports a bad value of a key at its source location ("FILE:LINE:
 * section.key: ..."); a key that is not set is reported at its section's
 * header. */
int cfg_error(const cfg *c, const char *section, const char *key, diag *d, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Reports what is wrong with a section as a whole at its header (where
 * it was first seen): "FILE:LINE: [section]: ...". */
int cfg_section_error(const cfg *c, const char *section, diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One key a module reads from its section, declared once in the module:
 * how it is parsed, where it is stored, its default and range, and what it
 * means (tlbsim.ini(5) is written from these tables: man_source). A key
 * whose default or range depends on other keys (a TLB's ways default to
 * its entries) is CFG_KEY_BY_CODE: the module reads it itself; the table
 * only documents it. */
typedef enum { CFG_KEY_U32, CFG_KEY_U64, CFG_KEY_SIZE, CFG_KEY_REAL, CFG_KEY_BOOL, CFG_KEY_BY_CODE } cfg_key_kind;

typedef struct cfg_key {
  const char *name;
  cfg_key_kind kind;
  size_t offset;             /* of the field (uint32_t, uint64_t, double or bool) in the struct read */
  uint64_t def, lo, hi;      /* whole numbers and sizes; a boolean's default is def */
  double rdef, rlo, rhi;     /* reals */
  const char *unit, *default_text, *doc;
} cfg_key;

/* A section's keys; `section` as the man page names it ("tlb.NAME"). */
typedef struct cfg_keys {
  const char *section;
  const cfg_key *key;
  size_t n;
} cfg_keys;

/* Reads every key of k but the BY_CODE ones from `section` into base
 * (each through its typed getter: the same ranges and errors). */
int cfg_read_keys(cfg *c, const char *section, const cfg_keys *k, void *base, diag *d);

/* Sections in first-seen order; names stay valid while c lives. */
size_t cfg_section_count(const cfg *c);
const char *cfg_section_at(const cfg *c, size_t i);
bool cfg_has_section(const cfg *c, const char *section);
/* Whether section came only from overrides (cfg_set): no file loaded has
 * it, so a --set named a section the configuration lacks, a TLB level that
 * is not there, and an error about it is the --set's. */
bool cfg_section_is_new(const cfg *c, const char *section);

/* The last INI file loaded (a preset's path or name), or NULL; and its
 * text when it was text (cfg_load_text), NULL for a file. */
const char *cfg_file(const cfg *c);
const char *cfg_text(const cfg *c);

/* First entry nobody read, as "FILE:LINE: unknown key 'k' in [s]". */
int cfg_check_unused(const cfg *c, diag *d);

#endif
