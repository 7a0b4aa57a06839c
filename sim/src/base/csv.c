/* CSV fields in and out (see tlbsim/csv.h). */
#include "tlbsim/csv.h"

#include <stdbool.h>
#include <string.h>

void csv_write_field(FILE *f, const char *s) {
  if (!s[strcspn(s, ",\"\n\r")]) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* One quoted field from p (at its opening quote) written to w; returns
 * the position after the closing quote, or NULL when there is none. */
static char *unquote(char *p, char **w) {
  for (p++;; p++) {
    if (!*p) return NULL;
    if (*p == '"' && p[1] == '"') *(*w)++ = *p++;
    else if (*p == '"') return p + 1;
    else *(*w)++ = *p;
  }
}

int csv_split(char *line, char **field, int max) {
  int n = 0;
  for (char *p = line;;) {
    if (n == max) return -1;
    char *w = p;
    field[n++] = w;
    if (*p == '"') {
      if (!(p = unquote(p, &w)) || (*p && *p != ',')) return -1;
    } else {
      while (*p && *p != ',') *w++ = *p++;
    }
    bool more = *p == ',';
    *w = '\0';
    if (!more) return n;
    p++;
  }
}
