#include "tlbsim/base.h"

#include <stdarg.h>
#include <stdio.h>

int diag_set(diag *d, const char *file, unsigned long line, const char *fmt, ...) {
  if (!d) return -1;
  int n = 0;
  if (file && line) n = snprintf(d->msg, sizeof d->msg, "%s:%lu: ", file, line);
  else if (file) n = snprintf(d->msg, sizeof d->msg, "%s: ", file);
  if (n < 0 || (size_t)n >= sizeof d->msg) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}
