// A texture object with CUDA's default, unnormalized coordinates (normalizedCoords = 0).
// With a tld4 whose texture unit models them (tld4_sampler_desc has normalized_coords),
// every lane's four values must equal tld4's own gather with an unnormalized sampler
// (prints PASS/FAIL); with an older tld4 the simulator must stop at the tld4 with an error
// that names the instruction and says "not modeled", never return a value (run.sh checks).
#include <cuda_runtime.h>
#include <tld4.h>

#include <cstdio>
#include <cstring>
#include <vector>

__global__ void gather_unnormalized(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.g.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y));
  out[i] = make_uint4(a, b, cc, d);
}

// Sets the sampler's normalized_coords where the library has the field.
template <typename T>
auto unnormalize(T &s, int) -> decltype(s.normalized_coords = false, true) {
  s.normalized_coords = false;
  return true;
}
template <typename T>
bool unnormalize(T &, long) { return false; }

int main() {
  const int w = 12, h = 5, n = 64;  // not powers of two: u / size would be inexact
  std::vector<uint32_t> fields(w * h * 4);
  unsigned s = 99;
  for (auto &f : fields) { s = s * 1664525u + 1013904223u; f = (s >> 13) & 0xff; }
  std::vector<uint8_t> bytes(fields.begin(), fields.end());
  std::vector<float2> c(n);
  for (int i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    c[i].x = -2.0f + (float)((s >> 8) % 1700) / 100.0f;
    s = s * 1664525u + 1013904223u;
    c[i].y = -2.0f + (float)((s >> 8) % 900) / 100.0f;
  }
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  cudaArray_t a;
  cudaMallocArray(&a, &desc, w, h);
  cudaMemcpy2DToArray(a, 0, 0, bytes.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice);
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);  // CUDA's defaults: clamp, point, unnormalized
  td.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaSuccess) {
    printf("cudaCreateTextureObject failed\n");
    return 2;
  }
  float2 *dc; uint4 *dout;
  cudaMalloc(&dc, n * sizeof(float2));
  cudaMalloc(&dout, n * sizeof(uint4));
  cudaMemcpy(dc, c.data(), n * sizeof(float2), cudaMemcpyHostToDevice);
  gather_unnormalized<<<n / 32, 32>>>(t, dc, dout);
  cudaDeviceSynchronize();
  std::vector<uint4> got(n);
  cudaMemcpy(got.data(), dout, n * sizeof(uint4), cudaMemcpyDeviceToHost);
  // tld4's own gather: an owned pool, an unnormalized clamp-to-edge sampler.
  tld4_error err;
  tld4_pool *pool;
  tld4_insn *insn;
  tld4_texture_desc tdsc = {TLD4_KIND_2D, "rgba8_unorm", (uint32_t)w, (uint32_t)h, 1};
  tld4_sampler_desc smp;
  uint32_t tex, sm, handle;
  tld4_pool_new(&pool, &err);
  tld4_pool_add_texture(pool, &tdsc, fields.data(), fields.size(), &tex, &err);
  tld4_sampler_default(&smp, &err);
  smp.address_u = smp.address_v = 2;  // clamp to edge (Vulkan's numbering)
  if (!unnormalize(smp, 0)) {
    printf("unnormalized: this tld4 has no unnormalized sampler; the simulator returned values\n");
    return 3;
  }
  tld4_pool_add_sampler(pool, &smp, &sm, &err);
  tld4_handle(tex, sm, &handle, &err);
  tld4_parse("TLD4.G R10, R8, R20, UR4, 2D ;", &insn, &err);
  tld4_image_entry e = {tex, sm, TLD4_LAYOUT_BLOCK_LINEAR, 0};
  size_t needed = 0;
  uint64_t hp, sp, base = 0x100000;
  tld4_pool_image(pool, &e, 1, base, NULL, 0, &needed, &hp, &sp, &err);
  std::vector<uint8_t> image(needed);
  tld4_pool_image(pool, &e, 1, base, image.data(), image.size(), &needed, &hp, &sp, &err);
  tld4_memory m;
  memset(&m, 0, sizeof m);
  m.kind = TLD4_MEMORY_FLAT; m.base = base; m.bytes = image.data(); m.len = image.size();
  std::vector<tld4_gather_query> q(n);
  std::vector<tld4_gather_result> want(n);
  for (int i = 0; i < n; i++) {
    memset(&q[i], 0, sizeof q[i]);
    q[i].coords[0] = c[i].x; q[i].coords[1] = c[i].y;
  }
  if (tld4_mem_gather(insn, &m, hp, sp, handle, NULL, q.data(), n, want.data(), &err) != TLD4_OK) {
    printf("FAIL unnormalized reference: %s\n", err.message);
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      bad += (&got[i].x)[k] != want[i].values[k];
  printf("%s unnormalized_rgba8_unorm_12x5_clamp: %d lanes, %d mismatches\n", bad ? "FAIL" : "PASS", n, bad);
  return bad != 0;
}
