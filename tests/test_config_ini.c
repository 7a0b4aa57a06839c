/* The browser build's INI syntax (sim/src/config/config_ini_web.c,
 * compiled in here as cfg_ini_parse_web) against libinih's
 * (cfg_ini_parse, the native build's): over every preset and a set of odd
 * inputs both must make the same handler calls, in order, and return the
 * same error line. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/src/config/config_ini.h"
#include "harness.h"

int cfg_ini_parse_web(cfg_ini_reader reader, void *stream, cfg_ini_handler handler, void *user);

typedef struct text_stream {
  const char *p;
} text_stream;

/* fgets over a string. */
static char *read_text(char *str, int num, void *stream) {
  text_stream *t = stream;
  if (!*t->p) return NULL;
  int n = 0;
  while (n < num - 1 && t->p[n]) {
    str[n] = t->p[n];
    if (t->p[n++] == '\n') break;
  }
  str[n] = '\0';
  t->p += n;
  return str;
}

typedef struct calls {
  char log[1 << 16];
  size_t len;
} calls;

/* Logs each call; refuses names "refused" (a handler's error). */
static int record(void *user, const char *section, const char *name, const char *value) {
  calls *c = user;
  int n = snprintf(c->log + c->len, sizeof c->log - c->len, "[%s] <%s> = <%s>\n", section, name, value);
  if (n > 0 && (size_t)n < sizeof c->log - c->len) c->len += (size_t)n;
  return strcmp(name, "refused") != 0;
}

static void same(const char *text) {
  static calls a, b;
  a.len = b.len = 0;
  a.log[0] = b.log[0] = '\0';
  text_stream ta = {text}, tb = {text};
  int ra = cfg_ini_parse(read_text, &ta, record, &a), rb = cfg_ini_parse_web(read_text, &tb, record, &b);
  if (ra != rb || strcmp(a.log, b.log)) fprintf(stderr, "differs on:\n%s\nlibinih %d:\n%s\nweb %d:\n%s\n", text, ra, a.log, rb, b.log);
  CU_ASSERT_EQUAL(ra, rb);
  CU_ASSERT_STRING_EQUAL(a.log, b.log);
}

static void test_presets(void) {
  DIR *dir = opendir(TLBSIM_SOURCE_DIR "/sim/presets");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  unsigned seen = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".ini")) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/sim/presets/%s", TLBSIM_SOURCE_DIR, e->d_name);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    same(text);
    seen++;
  }
  closedir(dir);
  CU_ASSERT(seen >= 6);
}

static void test_odd_inputs(void) {
  static const char *const cases[] = {
      "",
      "\n\n   \n",
      "\xEF\xBB\xBF[a]\nk = v\n",
      "\xEF\xBB\xBF  k = v\n",
      "k = outside any section\n",
      "[a]\nk=v\nk2 : v2\nk3 =\n = v4\n",
      "[a]\nk = v ; an inline comment\nk2 = v;not one\nk3 = ;\n",
      "[a]\n; comment\n# comment\n  ; indented comment\n",
      "[a]\nk = first\n  continued\n\tagain ; comment\n",
      "[a]\n  indented before any name\n",
      "[a]\nno equals sign here\nk = v\n",
      "[unterminated\nk = v\n",
      "[a] trailing\n[b];x\n[ spaced ]\nk=v\n",
      "[a ; not a comment]\nk = v\n",
      "[abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789]\nk = v\n",
      "[a]\nabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789 = v\n  more\n",
      "[a]\nrefused = 1\nk = v\nrefused = 2\n",
      "[a]\nk ;c = v\nk = a = b\nk = a : b\nk : a = b\n",
      "[a]\r\nk = v\r\n\r\n",
      "[a]\nk = v\n[]\nk = in the empty section\n",
      "[a]\nk = \xff\xfe bytes\n",
      "[a]\nlast = no newline",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) same(cases[i]);
}

/* Lines longer than the parser's buffer arrive in pieces (the config
 * module refuses them before that; here the rules must still agree). */
static void test_long_lines(void) {
  static char text[1200];
  snprintf(text, sizeof text, "[a]\nk = %0300d\n%0450d = v\n", 7, 8);
  same(text);
}

int main(void) {
  static const test_case cases[] = {
      {"presets", test_presets}, {"odd inputs", test_odd_inputs}, {"long lines", test_long_lines}, {NULL, NULL}};
  static const test_suite suites[] = {{"config_ini", cases}, {NULL, NULL}};
  return harness_run(suites);
}
