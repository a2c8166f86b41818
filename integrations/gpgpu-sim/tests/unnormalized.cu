// A texture object with CUDA's default, unnormalized coordinates (normalizedCoords = 0).
// Until tld4's texture unit models them, the simulator must stop at the tld4 with an error
// that names the instruction and says "not modeled", never return a value: run.sh checks
// the exit status and the message.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void gather_unnormalized(cudaTextureObject_t t, float *out) {
  float u = threadIdx.x + 0.5f, v = 1.5f;
  unsigned a, b, c, d;
  asm volatile("tld4.r.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
               : "l"(t), "f"(u), "f"(v));
  out[threadIdx.x] = __uint_as_float(a) + __uint_as_float(b) + __uint_as_float(c) + __uint_as_float(d);
}

int main() {
  const int w = 8, h = 4;
  float texels[w * h];
  for (int i = 0; i < w * h; i++) texels[i] = (float)i;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t a;
  cudaMallocArray(&a, &desc, w, h);
  cudaMemcpy2DToArray(a, 0, 0, texels, w * 4, w * 4, h, cudaMemcpyHostToDevice);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);  // CUDA's defaults: clamp, point, element type, unnormalized
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaSuccess) {
    printf("cudaCreateTextureObject failed\n");
    return 2;
  }
  float *out;
  cudaMalloc(&out, 32 * sizeof(float));
  gather_unnormalized<<<1, 32>>>(t, out);
  cudaDeviceSynchronize();
  printf("unnormalized: the gather returned values\n");
  return 0;
}
