// A CUDA 13 vector add: the smallest program that shows the simulator runs CUDA 13 binaries.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1000;
  float ha[n], hb[n], hc[n];
  for (int i = 0; i < n; i++) { ha[i] = i * 0.5f; hb[i] = 3.0f * i - 7.0f; }
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, ha, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, n * sizeof(float), cudaMemcpyHostToDevice);
  vecadd<<<(n + 127) / 128, 128>>>(da, db, dc, n);
  cudaMemcpy(hc, dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (hc[i] != ha[i] + hb[i]) bad++;
  printf("vecadd: %d of %d wrong\n", bad, n);
  return bad != 0;
}
