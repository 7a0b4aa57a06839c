/* tlbsim/loader.h — from what a user names to a machine: the preset or
 * configuration file, the overrides, the spec read from them, the machine
 * built. The one way the CLI, libtlbsim (and through it Python) and the
 * browser build do it, with the same defaults and the same errors.
 *
 * loader_request  what the caller was given: a preset name, a file, or a
 *                 file laid over a preset (a later value replaces an
 *                 earlier one: calibrate's machine files); neither: the
 *                 fallback preset. Then SECTION.KEY=VALUE
 *                 overrides, and the name they carry in errors ("--set",
 *                 "tlbsim_machine_create": "--set:2: ...").
 *
 * Presets are found by name in the directories of $TLBSIM_PRESET_PATH (a
 * colon list), then among the presets compiled into the library
 * (every .ini of sim/presets, at build time): an installed library, a relocated one
 * or the WebAssembly build needs no file to find one, and no path of the
 * build tree is in it. A compiled-in preset's errors name it NAME.ini, the
 * file it came from (installed beside the library in share/tlbsim/presets).
 */
#ifndef TLBSIM_LOADER_H
#define TLBSIM_LOADER_H

#include "tlbsim/config.h"
#include "tlbsim/machine.h"

#define LOADER_MAX_PATH_DIRS 16

typedef struct loader_request {
  const char *preset;       /* NULL: config alone, or else fallback */
  const char *config;       /* an INI file (over the preset when both are named) */
  const char *fallback;     /* the preset when neither is named */
  const char *const *sets;  /* nsets overrides, applied in order */
  size_t nsets;
  const char *set_origin;   /* their name in errors */
} loader_request;

/* The configuration: preset, file, or file over preset, then the
 * overrides. *label gets what the report calls it (the preset's name, or
 * the file's path when no preset is named). */
cfg *loader_config(const loader_request *q, const char **label, diag *d);
/* loader_config, then the whole machine_spec read from it; a machine is
 * built once so that every key is checked, and a key nobody read is an
 * error. The cfg is the caller's (for what else a command needs of it). */
cfg *loader_spec(const loader_request *q, const char **label, machine_spec *spec, diag *d);
/* The same, keeping the machine (the configuration is not needed by it). */
machine *loader_machine(const loader_request *q, const char **label, diag *d);

/* Loads preset name: from $TLBSIM_PRESET_PATH, else compiled in. */
int loader_load_preset(cfg *c, const char *name, diag *d);

/* The presets a name may find, in search order: each directory of
 * $TLBSIM_PRESET_PATH (dir set), then the compiled-in ones (dir NULL).
 * each(ctx, name, dir, text) is called once per preset found, text NULL
 * for a file (dir/name.ini). */
typedef void (*loader_preset_fn)(void *ctx, const char *name, const char *dir, const char *text);
void loader_each_preset(loader_preset_fn each, void *ctx);

/* Every configuration key there is, section by section in the order
 * tlbsim.ini(5) lists them (the machine, its format, the allocator, the
 * memory, the MMU's sections, the GPU, managed memory), from the very tables the modules
 * read them through; sections as the page names them ("tlb.NAME",
 * "pwc.LEVEL", "format.NAME"). each(ctx, section, key, unit, default, doc). */
typedef void (*loader_key_fn)(void *ctx, const char *section, const char *key, const char *unit, const char *def,
                              const char *doc);
void loader_each_key(loader_key_fn each, void *ctx);

#endif
