/* config_ini.h — the INI syntax under the config module: the module's
 * portability seam.
 *
 * cfg_ini_parse  reads an INI stream line by line through `reader` and
 *                calls `handler` once per "name = value" (or "name:
 *                value"), with the current section, exactly as libinih's
 *                ini_parse_stream does with the options Debian builds it
 *                with (ini.h: a UTF-8 BOM skipped, ';' and '#' comment
 *                lines, ';' inline comments after whitespace, indented
 *                lines continuing the previous value (inline comment and
 *                all), sections of at most 49 characters, every line parsed after an error).
 *
 * The native build is libinih's (config_ini_inih.c). The browser build,
 * for which no libinih is at hand, has config_ini_web.c, which follows
 * those rules; tests/test_config_ini.c checks that the two give the same
 * calls and the same error line over every preset and a set of odd inputs.
 */
#ifndef TLBSIM_CONFIG_INI_H
#define TLBSIM_CONFIG_INI_H

/* fgets-like: up to num - 1 bytes of one line with its newline, NUL
 * terminated; NULL at the end (or to stop). */
typedef char *(*cfg_ini_reader)(char *str, int num, void *stream);
/* Nonzero to go on; 0 counts as an error on that line. */
typedef int (*cfg_ini_handler)(void *user, const char *section, const char *name, const char *value);

/* 0, the first line with an error (a line that is neither a section, a
 * name/value pair, a comment nor a continuation, or whose handler call
 * returned 0), or -1 when out of memory. */
int cfg_ini_parse(cfg_ini_reader reader, void *stream, cfg_ini_handler handler, void *user);

#endif
