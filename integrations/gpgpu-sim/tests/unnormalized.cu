// Texture objects with CUDA's default, unnormalized coordinates (normalizedCoords = 0): each
// case's every lane's four values must equal tld4's own gather with an unnormalized sampler
// (an owned pool laid out by tld4_pool_image), and the header the simulator wrote must say
// NORMALIZED_COORDS = 0 in the modeled class's layout (descriptors.h). Cases: sizes that are
// not powers of two (u / size would be inexact), formats unorm, float, uint, sint; clamp to
// edge and clamp to border (CUDA clamps wrap and mirror with unnormalized coordinates);
// an offset; a 2D array (the layer is not scaled).
#include <cuda_runtime.h>
#include <tld4.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "descriptors.h"

const int LANES = 64;

__global__ void k2d_g(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.g.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void k2d_r_u32(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.r.2d.v4.u32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void k2d_r_s32(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.r.2d.v4.s32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void k2d_a_off(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.a.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}], {%7, %8};"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "r"(3), "r"(-2));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void ka2d_b(cudaTextureObject_t t, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  float z = 0.f;
  asm volatile("tld4.b.a2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "r"(2), "f"(c[i].x), "f"(c[i].y), "f"(z));
  out[i] = make_uint4(a, b, cc, d);
}

struct Case {
  const char *name, *format, *sass;
  cudaChannelFormatDesc desc;
  cudaTextureReadMode mode;
  int w, h, layers;  // layers > 1: a layered array
  cudaTextureAddressMode am;
  void (*k)(cudaTextureObject_t, const float2 *, uint4 *);
  int layer, dx, dy;
};

static unsigned rng = 99;
static unsigned rnd() { rng = rng * 1664525u + 1013904223u; return rng >> 8; }

int main(int argc, char **argv) {
  uint32_t arch = expected_arch(argc, argv);
  if (!arch) return 1;
  cudaChannelFormatDesc rgba8u = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc r32f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaChannelFormatDesc r32u = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc r32s = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
  cudaChannelFormatDesc rgba32f = cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindFloat);
  Case cases[] = {
    {"unnormalized_rgba8_unorm_12x5_clamp", "rgba8_unorm", "TLD4.G R10, R8, R20, UR4, 2D ;", rgba8u, cudaReadModeNormalizedFloat, 12, 5, 1, cudaAddressModeClamp, k2d_g, 0, 0, 0},
    {"unnormalized_rgba8_unorm_7x3_border", "rgba8_unorm", "TLD4.G R10, R8, R20, UR4, 2D ;", rgba8u, cudaReadModeNormalizedFloat, 7, 3, 1, cudaAddressModeBorder, k2d_g, 0, 0, 0},
    {"unnormalized_r32_float_33x17_clamp", "r32_float", "TLD4.G R10, R8, R20, UR4, 2D ;", r32f, cudaReadModeElementType, 33, 17, 1, cudaAddressModeClamp, k2d_g, 0, 0, 0},
    {"unnormalized_r32_uint_10x6_border", "r32_uint", "TLD4.R R10, R8, R20, UR4, 2D ;", r32u, cudaReadModeElementType, 10, 6, 1, cudaAddressModeBorder, k2d_r_u32, 0, 0, 0},
    {"unnormalized_r32_sint_9x9_wrap_as_clamp", "r32_sint", "TLD4.R R10, R8, R20, UR4, 2D ;", r32s, cudaReadModeElementType, 9, 9, 1, cudaAddressModeWrap, k2d_r_s32, 0, 0, 0},
    {"unnormalized_rgba32_float_11x7_offset_clamp", "rgba32_float", "TLD4.A.AOFFI R10, R8, R20, R24, UR4, 2D ;", rgba32f, cudaReadModeElementType, 11, 7, 1, cudaAddressModeClamp, k2d_a_off, 0, 3, -2},
    {"unnormalized_a2d_rgba8_unorm_13x6_layer2_border", "rgba8_unorm", "TLD4.B R10, R8, R20, UR4, ARRAY_2D ;", rgba8u, cudaReadModeNormalizedFloat, 13, 6, 3, cudaAddressModeBorder, ka2d_b, 2, 0, 0},
  };
  const float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  int failures = 0;
  for (const Case &cs : cases) {
    int comps = (cs.desc.x > 0) + (cs.desc.y > 0) + (cs.desc.z > 0) + (cs.desc.w > 0);
    int fb = cs.desc.x / 8, texel = comps * fb;
    bool integer = cs.mode == cudaReadModeElementType && cs.desc.f != cudaChannelFormatKindFloat;
    std::vector<uint32_t> fields((size_t)cs.w * cs.h * cs.layers * comps);
    std::vector<uint8_t> bytes(fields.size() * fb);
    for (size_t i = 0; i < fields.size(); i++) {
      uint32_t v = rnd();
      if (cs.desc.f == cudaChannelFormatKindFloat) {
        float f = (float)(int)(v % 2001 - 1000) / 64.0f;
        memcpy(&v, &f, 4);
      } else if (fb < 4) {
        v &= (1u << (8 * fb)) - 1;
      }
      fields[i] = v;
      memcpy(&bytes[i * fb], &v, fb);
    }
    // Coordinates in texels, past every edge.
    std::vector<float2> c(LANES);
    for (int i = 0; i < LANES; i++) {
      c[i].x = -2.0f + (float)(rnd() % (100 * (cs.w + 4))) / 100.0f;
      c[i].y = -2.0f + (float)(rnd() % (100 * (cs.h + 4))) / 100.0f;
    }
    cudaArray_t a;
    if (cs.layers == 1) {
      cudaMallocArray(&a, &cs.desc, cs.w, cs.h);
      cudaMemcpy2DToArray(a, 0, 0, bytes.data(), cs.w * texel, cs.w * texel, cs.h, cudaMemcpyHostToDevice);
    } else {
      cudaExtent ext = make_cudaExtent(cs.w, cs.h, cs.layers);
      cudaMalloc3DArray(&a, &cs.desc, ext, cudaArrayLayered);
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(bytes.data(), cs.w * texel, cs.w, cs.h);
      p.dstArray = a;
      p.extent = ext;
      p.kind = cudaMemcpyHostToDevice;
      cudaMemcpy3D(&p);
    }
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);  // CUDA's defaults: point, unnormalized
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cs.am;
    td.readMode = cs.mode;
    for (int k = 0; k < 4; k++) td.borderColor[k] = integer ? 7.0f * (k + 1) : border[k];
    cudaTextureObject_t t;
    if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaSuccess) {
      printf("FAIL %s: cudaCreateTextureObject\n", cs.name);
      failures++;
      continue;
    }
    // Wrap and mirror become clamp to edge with unnormalized coordinates (CUDA).
    uint32_t hw_am = cs.am == cudaAddressModeBorder ? 3 : 2;
    ExpectedTexture want_desc = {(uint32_t)(cs.layers > 1 ? TLD4_KIND_2D_ARRAY : TLD4_KIND_2D), cs.format,
                                 (uint32_t)cs.w, (uint32_t)cs.h, (uint32_t)cs.layers, false, hw_am};
    failures += check_descriptors(cs.name, t, arch, want_desc);
    float2 *dc; uint4 *dout;
    cudaMalloc(&dc, LANES * sizeof(float2));
    cudaMalloc(&dout, LANES * sizeof(uint4));
    cudaMemcpy(dc, c.data(), LANES * sizeof(float2), cudaMemcpyHostToDevice);
    cs.k<<<LANES / 32, 32>>>(t, dc, dout);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES);
    cudaMemcpy(got.data(), dout, LANES * sizeof(uint4), cudaMemcpyDeviceToHost);
    // tld4's own gather: an owned pool, an unnormalized sampler with the same address mode.
    tld4_error err;
    tld4_pool *pool;
    tld4_insn *insn;
    tld4_texture_desc tdsc = {(uint32_t)(cs.layers > 1 ? TLD4_KIND_2D_ARRAY : TLD4_KIND_2D), cs.format,
                              (uint32_t)cs.w, (uint32_t)cs.h, (uint32_t)cs.layers};
    tld4_sampler_desc smp;
    uint32_t tex, sm, handle;
    tld4_pool_new(&pool, &err);
    tld4_pool_add_texture(pool, &tdsc, fields.data(), fields.size(), &tex, &err);
    tld4_sampler_default(&smp, &err);
    smp.address_u = smp.address_v = hw_am == 3 ? 3 : 2;  // Vulkan's numbering
    smp.normalized_coords = false;
    for (int k = 0; k < 4; k++) {
      if (integer) smp.border[k] = 7 * (k + 1);
      else memcpy(&smp.border[k], &border[k], 4);
    }
    tld4_pool_add_sampler(pool, &smp, &sm, &err);
    tld4_handle(tex, sm, &handle, &err);
    tld4_parse(cs.sass, &insn, &err);
    tld4_image_entry e = {tex, sm, TLD4_LAYOUT_BLOCK_LINEAR, 0};
    size_t needed = 0;
    uint64_t hp, sp, base = 0x100000;
    tld4_pool_image(pool, &e, 1, base, NULL, 0, &needed, &hp, &sp, &err);
    std::vector<uint8_t> image(needed);
    tld4_pool_image(pool, &e, 1, base, image.data(), image.size(), &needed, &hp, &sp, &err);
    tld4_memory m;
    memset(&m, 0, sizeof m);
    m.kind = TLD4_MEMORY_FLAT; m.base = base; m.bytes = image.data(); m.len = image.size();
    std::vector<tld4_gather_query> q(LANES);
    std::vector<tld4_gather_result> want(LANES);
    for (int i = 0; i < LANES; i++) {
      memset(&q[i], 0, sizeof q[i]);
      q[i].coords[0] = c[i].x; q[i].coords[1] = c[i].y;
      q[i].layer = cs.layer;
      q[i].offsets[0][0] = cs.dx; q[i].offsets[0][1] = cs.dy;
    }
    if (tld4_mem_gather(insn, &m, hp, sp, handle, NULL, q.data(), LANES, want.data(), &err) != TLD4_OK) {
      printf("FAIL %s reference: %s\n", cs.name, err.message);
      failures++;
      continue;
    }
    int bad = 0;
    for (int i = 0; i < LANES; i++)
      for (int k = 0; k < 4; k++) {
        uint32_t g = (&got[i].x)[k];
        if (g != want[i].values[k]) {
          if (bad < 4) printf("  %s lane %d value %d: simulator 0x%08x, tld4 0x%08x\n", cs.name, i, k, g, want[i].values[k]);
          bad++;
        }
      }
    printf("%s %s: %d lanes, %d mismatches\n", bad ? "FAIL" : "PASS", cs.name, LANES, bad);
    failures += bad != 0;
    tld4_insn_free(insn);
    tld4_pool_free(pool);
    cudaDestroyTextureObject(t);
  }
  printf("unnormalized: %d failures\n", failures);
  return failures != 0;
}
