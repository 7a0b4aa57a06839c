/* config_ini_web.c — the INI syntax of config_ini.h for the browser build,
 * which has no libinih: the rules libinih applies with Debian's options,
 * line by line (tests/test_config_ini.c holds the two side by side; it
 * found, for one, that a continuation line keeps its inline comment). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "config_ini.h"

#define LINE_MAX_BYTES 200 /* libinih's INI_MAX_LINE: the buffer handed to the reader */
#define NAME_MAX_BYTES 50  /* its MAX_SECTION and MAX_NAME, NUL included */

static char *strip_right(char *s) {
  char *p = s + strlen(s);
  while (p > s && isspace((unsigned char)p[-1])) *--p = '\0';
  return s;
}

static char *skip_left(char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/* The first of `stop` in s (none: NULL), or the ';' of an inline comment
 * (one after whitespace), or the end. */
static char *find_stop(char *s, const char *stop) {
  bool after_space = false;
  while (*s && !(stop && strchr(stop, *s)) && !(after_space && *s == ';')) {
    after_space = isspace((unsigned char)*s);
    s++;
  }
  return s;
}

static void copy_name(char *dst, const char *src) {
  size_t n = strnlen(src, NAME_MAX_BYTES - 1); /* libinih cuts a longer name there too */
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* Cuts an inline comment off s and the whitespace before it. */
static char *value_of(char *s) {
  char *end = find_stop(s, NULL);
  *end = '\0';
  return strip_right(s);
}

int cfg_ini_parse(cfg_ini_reader reader, void *stream, cfg_ini_handler handler, void *user) {
  char line[LINE_MAX_BYTES], section[NAME_MAX_BYTES] = "", prev[NAME_MAX_BYTES] = "";
  int lineno = 0, error = 0;
  while (reader(line, LINE_MAX_BYTES, stream)) {
    lineno++;
    char *start = line;
    if (lineno == 1 && !strncmp(start, "\xEF\xBB\xBF", 3)) start += 3; /* a UTF-8 BOM */
    start = skip_left(strip_right(start));
    bool ok = true;
    if (!*start || *start == ';' || *start == '#') {
      /* blank or a comment */
    } else if (*prev && start > line) {
      ok = handler(user, section, prev, start) != 0; /* indented: the previous value goes on, comment and all */
    } else if (*start == '[') {
      char *end = find_stop(start + 1, "]");
      if (*end == ']') {
        *end = '\0';
        copy_name(section, start + 1);
        *prev = '\0';
      } else {
        ok = false;
      }
    } else {
      char *end = find_stop(start, "=:");
      if (*end == '=' || *end == ':') {
        *end = '\0';
        char *name = strip_right(start), *value = skip_left(value_of(end + 1));
        copy_name(prev, name);
        ok = handler(user, section, name, value) != 0;
      } else {
        ok = false;
      }
    }
    if (!ok && !error) error = lineno;
  }
  return error;
}
