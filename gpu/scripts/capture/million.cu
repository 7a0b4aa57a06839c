// million.cu — a million cudaMallocAsync/cudaFreeAsync pairs from 4 host
// threads (250000 each, own stream), then cudaDeviceReset: the capture's
// memory stays bounded (VmHWM printed) and what it holds is flushed at the
// reset. Build: nvcc -arch=sm_90 -o million million.cu
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *work(void *arg) {
  (void)arg;
  cudaStream_t s;
  if (cudaStreamCreate(&s) != cudaSuccess) return (void *)1;
  for (int i = 0; i < 250000; i++) {
    void *p;
    if (cudaMallocAsync(&p, 4096u << (i % 8), s) != cudaSuccess || cudaFreeAsync(p, s) != cudaSuccess) return (void *)1;
  }
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  return NULL;
}

int main() {
  cudaSetDevice(0);
  cudaFree(0);
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, NULL);
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    bad |= r != NULL;
  }
  cudaDeviceReset();
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM", 5)) printf("million: %s", line);
  if (f) fclose(f);
  printf("million: %s\n", bad ? "a call failed" : "done");
  return bad;
}
