#include "harness.h"

#include <CUnit/Basic.h>
#include <stdio.h>

int harness_run(const test_suite *suites) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  for (const test_suite *s = suites; s->name; s++) {
    CU_pSuite suite = CU_add_suite(s->name, NULL, NULL);
    if (!suite) return 2;
    for (const test_case *c = s->cases; c->name; c++)
      if (!CU_add_test(suite, c->name, c->fn)) return 2;
  }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  unsigned ran = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  if (ran == 0) {
    fprintf(stderr, "no tests ran\n");
    return 1;
  }
  return failed ? 1 : 0;
}
