// managed_pack.cu — where cudaMallocManaged places allocations smaller than a
// 2 MiB VA block (tlbsim's [uvm] packing rule, gpu/results/h200/managed_pack.csv).
// Build and run: nvcc -arch=sm_90 -o managed_pack managed_pack.cu && ./managed_pack
// (and ./managed_pack empty: managed_pack_empty.csv, a block left empty, first in its process)
// One CSV row per call: scenario,step,op,size,va,offset_in_2m (offset from the
// 2 MiB-aligned address below va), value (the first word read by the host
// after the call: the "kept" scenario writes 42 from the GPU, frees, allocates
// the same size again and reads what the new allocation holds, 42 where the
// runtime kept the memory and handed it back, 0 where the driver released it
// and zero-filled it anew). Every allocation is at most a few MiB: no
// oversubscription.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const unsigned long long BLOCK = 2ull << 20;
static int step;

__global__ void put42(int *p) { *p = 42; }

static void *alloc(const char *scenario, size_t size) {
  void *p;
  if (cudaMallocManaged(&p, size) != cudaSuccess) {
    fprintf(stderr, "managed_pack: cudaMallocManaged(%zu) failed\n", size);
    exit(1);
  }
  unsigned long long v = (unsigned long long)p;
  printf("%s,%d,alloc,%zu,%#llx,%llu,\n", scenario, step++, size, v, v % BLOCK);
  return p;
}

static void release(const char *scenario, void *p) {
  unsigned long long v = (unsigned long long)p;
  if (cudaFree(p) != cudaSuccess) {
    fprintf(stderr, "managed_pack: cudaFree failed\n");
    exit(1);
  }
  printf("%s,%d,free,0,%#llx,%llu,\n", scenario, step++, v, v % BLOCK);
}

/* One 4 KiB allocation alone in a block of its own, written by the GPU, freed (the block now
 * empty), and 4 KiB allocated again: 42 where the runtime keeps an empty block, 0 where it gave
 * the block back to the driver. First in its process, so the blocks are known: the first 4 KiB
 * at a block's start, 2 MiB - 4 KiB filling that block, the next 4 KiB in a new one. */
static void *written(const char *scenario, size_t size) {
  int *p = (int *)alloc(scenario, size);
  put42<<<1, 1>>>(p);
  if (cudaDeviceSynchronize() != cudaSuccess) exit(1);
  return p;
}

static void empty_block(void) {
  alloc("empty", 4096);
  alloc("empty", (2 << 20) - 4096);
  void *p = written("empty", 4096);
  release("empty", p);
  int *q = (int *)alloc("empty", 4096);
  printf("empty,%d,read,4096,%#llx,%llu,%d\n", step++, (unsigned long long)q, (unsigned long long)q % BLOCK, *q);
}

int main(int argc, char **argv) {
  printf("scenario,step,op,size,va,offset_in_2m,value\n");
  if (argc > 1) {
    empty_block();
    return 0;
  }
  // mixed: small sizes between block-sized ones
  size_t mixed[] = {4096, 4096, 65536, 100000, 1 << 20, 2 << 20, 3 << 20, 4096, 512, 1, 8 << 20, 4096, 1000};
  for (size_t s : mixed) alloc("mixed", s);
  // fill: 100000-byte allocations until they leave their first 2 MiB block
  for (int i = 0; i < 45; i++) alloc("fill", 100000);
  // reuse: a freed small allocation's space, and a freed block's
  void *a = alloc("reuse", 4096), *b = alloc("reuse", 4096), *c = alloc("reuse", 4096);
  release("reuse", b);
  alloc("reuse", 4096);
  alloc("reuse", 2048);
  release("reuse", a);
  release("reuse", c);
  alloc("reuse", 4096);
  // near: sizes just under and at the block, and 1.5 MiB into a part-used block
  alloc("near", (2 << 20) - 512);
  alloc("near", 1536 << 10);
  alloc("near", 1536 << 10);
  alloc("near", 2 << 20);
  // kept: a small allocation alone in a fresh block, and a large one, written by the GPU, freed,
  // allocated again: what the new one holds
  size_t kept[] = {4096, 4 << 20};
  for (size_t s : kept) {
    alloc("kept", (2 << 20) - 512); /* fills the tail: the next small one starts a fresh block */
    void *p = written("kept", s);
    release("kept", p);
    int *q = (int *)alloc("kept", s);
    printf("kept,%d,read,%zu,%#llx,%llu,%d\n", step++, s, (unsigned long long)q, (unsigned long long)q % BLOCK, *q);
  }
  return 0;
}
