/* tests/harness.h — runs CUnit suites and turns failures into an exit code. */
#ifndef TLBSIM_TEST_HARNESS_H
#define TLBSIM_TEST_HARNESS_H

#include <CUnit/CUnit.h>

typedef struct test_case {
  const char *name;
  void (*fn)(void);
} test_case;

typedef struct test_suite {
  const char *name;
  const test_case *cases; /* terminated by {NULL, NULL} */
} test_suite;

/* Registers and runs the suites (terminated by {NULL, NULL}); returns the
 * process exit status: 0 when every assertion passed. */
int harness_run(const test_suite *suites);

#endif
