// Simulation speed: the same gather as one tld4 and as four plain loads, each kernel timed
// on the host (wall clock around launch and synchronize) in one run, so the ratio holds on
// a loaded machine; both results are checked equal. Prints SPEED lines for the README.
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void gather_tld4(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.r.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d) : "l"(t), "f"(c[i].x), "f"(c[i].y));
  out[i] = make_uint4(a, b, cc, d);
}

__global__ void gather_plain(const float *texels, int w, int h, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  float x = c[i].x * w - 0.5f, y = c[i].y * h - 0.5f;
  int i0 = (int)floorf(x), j0 = (int)floorf(y);
  int i1 = i0 + 1, j1 = j0 + 1;
  i0 = ((i0 % w) + w) % w; i1 = ((i1 % w) + w) % w;
  j0 = ((j0 % h) + h) % h; j1 = ((j1 % h) + h) % h;
  out[i] = make_uint4(__float_as_uint(texels[j1 * w + i0]), __float_as_uint(texels[j1 * w + i1]),
                      __float_as_uint(texels[j0 * w + i1]), __float_as_uint(texels[j0 * w + i0]));
}

int main() {
  const int w = 64, h = 64, n = 4096;
  std::vector<float> texels(w * h);
  for (int i = 0; i < w * h; i++) texels[i] = (float)((i * 37) % 1000) / 8.0f;
  std::vector<float2> c(n);
  unsigned s = 7;
  for (int i = 0; i < n; i++) {  // texel quarters: exact in f32
    s = s * 1664525u + 1013904223u;
    c[i].x = (float)((s >> 8) % (4 * w)) / (4.0f * w) + 0.125f / w;
    s = s * 1664525u + 1013904223u;
    c[i].y = (float)((s >> 8) % (4 * h)) / (4.0f * h) + 0.125f / h;
  }
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t a;
  cudaMallocArray(&a, &desc, w, h);
  cudaMemcpy2DToArray(a, 0, 0, texels.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.normalizedCoords = 1;
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaSuccess) return 2;
  float2 *dc; uint4 *o1, *o2; float *dt;
  cudaMalloc(&dc, n * sizeof(float2)); cudaMalloc(&o1, n * sizeof(uint4)); cudaMalloc(&o2, n * sizeof(uint4));
  cudaMalloc(&dt, w * h * sizeof(float));
  cudaMemcpy(dc, c.data(), n * sizeof(float2), cudaMemcpyHostToDevice);
  cudaMemcpy(dt, texels.data(), w * h * sizeof(float), cudaMemcpyHostToDevice);
  auto t0 = std::chrono::steady_clock::now();
  gather_tld4<<<n / 128, 128>>>(t, dc, o1);
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  gather_plain<<<n / 128, 128>>>(dt, w, h, dc, o2);
  cudaDeviceSynchronize();
  auto t2 = std::chrono::steady_clock::now();
  std::vector<uint4> r1(n), r2(n);
  cudaMemcpy(r1.data(), o1, n * sizeof(uint4), cudaMemcpyDeviceToHost);
  cudaMemcpy(r2.data(), o2, n * sizeof(uint4), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += memcmp(&r1[i], &r2[i], sizeof(uint4)) != 0;
  double g = std::chrono::duration<double>(t1 - t0).count(), p = std::chrono::duration<double>(t2 - t1).count();
  printf("SPEED %d lanes: tld4 kernel %.2f s, four-load kernel %.2f s, ratio %.2f; %d mismatches\n", n, g, p, g / p, bad);
  return bad != 0;
}
