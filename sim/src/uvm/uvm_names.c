/* uvm_names.c — the managed-memory vocabulary (sides, advice) that the
 * trace records and the uvm model share (see tlbsim/uvm.h). A module of its
 * own, depending on nothing, so the trace readers take the names without the
 * model: the GPU machine's plain build (gpu/scripts/device_sweep.sh) compiles
 * the trace module and needs no configuration, page-table or frame code. */
#include "tlbsim/uvm.h"

const char *const uvm_side_names[] = {"gpu", "host", NULL};
const char *const uvm_advice_names[] = {
    "read_mostly",     "unset_read_mostly",     "preferred_gpu",         "preferred_host",
    "unset_preferred", "accessed_by_gpu",       "accessed_by_host",      "unset_accessed_by_gpu",
    "unset_accessed_by_host", NULL};
