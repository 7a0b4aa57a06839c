#include "tlbsim/gpu_uvm.h"

#include <stdio.h>
#include <string.h>

const char *const gpu_uvm_init_names[GPU_UVM_INIT_COUNT + 1] = {"malloc", "gpu", "host", "host_prefetch", "advise", NULL};
const char *const gpu_uvm_first_names[GPU_UVM_FIRST_COUNT + 1] = {"stream", "gather", NULL};

bool gpu_uvm_host_written(gpu_uvm_init i) {
  return i == GPU_UVM_HOST || i == GPU_UVM_HOST_PREFETCH || i == GPU_UVM_ADVISE;
}

const char *gpu_uvm_refusal(gpu_uvm_init i, uint64_t size, uint64_t dev_free, uint64_t host_avail) {
  if (!size || size % 128) return "the size is not a positive multiple of 128 bytes";
  if (size > dev_free / 2) return "more than half the device's free memory";
  if (size / 128 > UINT32_MAX) return "more lines than the gather's 32-bit hash range";
  if (gpu_uvm_host_written(i) && (host_avail < GPU_UVM_HOST_MARGIN || size > host_avail - GPU_UVM_HOST_MARGIN))
    return "more than the host's available memory less 8 GiB";
  return NULL;
}

uint64_t gpu_host_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb << 10;
}
