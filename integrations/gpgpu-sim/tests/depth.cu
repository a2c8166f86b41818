// The depth-reference operand `f` of PTX tld4 on GPGPU-Sim with tld4 as the texture unit.
//
// CUDA's texture objects cannot ask for a depth-compare sampler or a depth format, so a tld4
// with `f` on a texture object as CUDA makes it reaches tld4 with the sampler's compare off:
// `depth ARCH off` runs such a kernel after printing tld4's own verdict on the same
// instruction form, texture and sampler (TLD4.R.DC: "not modeled", compare off); run.sh
// checks that the simulator stops at the tld4 with that same reason.
//
// `depth ARCH values` then stands in for a driver that can express depth compare (as
// OpenGL's and Vulkan's can): it rewrites each texture object's header in simulated memory
// as a D32_FLOAT view of the same r32 texels and its sampler with compare on
// (LESS_OR_EQUAL), both in the layout of the modeled GPU's class (tld4_tic_encode_arch),
// runs kernels whose tld4 has `f` (2d, 2d with an offset, a2d, cube, acube), and compares
// every lane's four values with tld4's own gather (TLD4.*.DC) of a D32_FLOAT texture with
// the same texels and a compare sampler.
#include <cuda_runtime.h>
#include <tld4.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "descriptors.h"

const int LANES = 64;

__global__ void k2d(cudaTextureObject_t t, const float4 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.r.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}], %7;"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "f"(c[i].w));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void k2d_off(cudaTextureObject_t t, const float4 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.g.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}], {%7, %8}, %9;"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "r"(-2), "r"(1), "f"(c[i].w));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void ka2d(cudaTextureObject_t t, const float4 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  float z = 0.f;
  asm volatile("tld4.b.a2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}], %9;"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "r"(1), "f"(c[i].x), "f"(c[i].y), "f"(z), "f"(c[i].w));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void kcube(cudaTextureObject_t t, const float4 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  float z = 0.f;
  asm volatile("tld4.a.cube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}], %9;"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "f"(c[i].z), "f"(z), "f"(c[i].w));
  out[i] = make_uint4(a, b, cc, d);
}
__global__ void kacube(cudaTextureObject_t t, const float4 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.r.acube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}], %9;"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "r"(1), "f"(c[i].x), "f"(c[i].y), "f"(c[i].z), "f"(c[i].w));
  out[i] = make_uint4(a, b, cc, d);
}

static uint32_t rng = 777;
static uint32_t rnd() { rng = rng * 1664525u + 1013904223u; return rng >> 8; }

struct Case {
  const char *name, *sass;
  uint32_t kind;
  int size, layers;  // layers: tld4's (whole cubes for a cube array)
  void (*k)(cudaTextureObject_t, const float4 *, uint4 *);
  int layer;         // the kernel's layer (a2d, acube)
  int dx, dy;        // the kernel's offset
};

static int storage_layers(const Case &c) {
  return c.kind == TLD4_KIND_CUBE ? 6 : c.kind == TLD4_KIND_CUBE_ARRAY ? 6 * c.layers : c.layers;
}

// A texture object over an r32 float array as CUDA makes it (compare off).
static bool make(const Case &c, const std::vector<float> &texels, cudaTextureObject_t *obj) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t a;
  if (c.kind == TLD4_KIND_2D) {
    if (cudaMallocArray(&a, &d, c.size, c.size) != cudaSuccess ||
        cudaMemcpy2DToArray(a, 0, 0, texels.data(), c.size * 4, c.size * 4, c.size,
                            cudaMemcpyHostToDevice) != cudaSuccess)
      return false;
  } else {
    unsigned flags = c.kind == TLD4_KIND_2D_ARRAY ? cudaArrayLayered
                   : c.kind == TLD4_KIND_CUBE ? cudaArrayCubemap
                   : (cudaArrayCubemap | cudaArrayLayered);
    cudaExtent ext = make_cudaExtent(c.size, c.size, storage_layers(c));
    if (cudaMalloc3DArray(&a, &d, ext, flags) != cudaSuccess) return false;
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr((void *)texels.data(), c.size * 4, c.size, c.size);
    p.dstArray = a;
    p.extent = ext;
    p.kind = cudaMemcpyHostToDevice;
    if (cudaMemcpy3D(&p) != cudaSuccess) return false;
  }
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  return cudaCreateTextureObject(obj, &rd, &td, NULL) == cudaSuccess;
}

// tld4's own gather: an owned pool with the texels as `format` and a sampler comparing or
// not; the status, and the values in `want`.
static tld4_status reference(const Case &c, const char *format, bool compare,
                             const std::vector<float> &texels,
                             const std::vector<tld4_gather_query> &q,
                             std::vector<tld4_gather_result> &want, tld4_error *err) {
  tld4_pool *pool = NULL;
  tld4_insn *insn = NULL;
  std::vector<uint32_t> fields(texels.size());
  memcpy(fields.data(), texels.data(), 4 * texels.size());
  tld4_texture_desc td = {c.kind, format, (uint32_t)c.size, (uint32_t)c.size,
                          (uint32_t)(c.kind == TLD4_KIND_2D || c.kind == TLD4_KIND_CUBE ? 1 : c.layers)};
  tld4_sampler_desc s;
  uint32_t tex = 0, smp = 0;
  tld4_status st = tld4_pool_new(&pool, err);
  if (st == TLD4_OK) st = tld4_pool_add_texture(pool, &td, fields.data(), fields.size(), &tex, err);
  if (st == TLD4_OK) st = tld4_sampler_default(&s, err);
  if (st == TLD4_OK) {
    s.address_u = s.address_v = 2;  // clamp to edge (Vulkan's numbering)
    s.compare_enable = compare;
    s.compare_op = 3;  // LESS_OR_EQUAL: dref <= texel
    s.seamless_cube = false;
    st = tld4_pool_add_sampler(pool, &s, &smp, err);
  }
  if (st == TLD4_OK) st = tld4_parse(c.sass, &insn, err);
  std::vector<uint8_t> image;
  uint64_t hp = 0, sp = 0, base = 0x100000;
  if (st == TLD4_OK) {
    tld4_image_entry e = {tex, smp, TLD4_LAYOUT_BLOCK_LINEAR, 0};
    size_t needed = 0;
    tld4_pool_image(pool, &e, 1, base, NULL, 0, &needed, &hp, &sp, err);
    image.resize(needed);
    st = tld4_pool_image(pool, &e, 1, base, image.data(), image.size(), &needed, &hp, &sp, err);
  }
  if (st == TLD4_OK) {
    tld4_memory m;
    memset(&m, 0, sizeof m);
    m.kind = TLD4_MEMORY_FLAT;
    m.base = base;
    m.bytes = image.data();
    m.len = image.size();
    uint32_t handle = 0;
    tld4_handle(tex, smp, &handle, err);
    want.resize(q.size());
    st = tld4_mem_gather(insn, &m, hp, sp, handle, NULL, q.data(), q.size(), want.data(), err);
  }
  tld4_insn_free(insn);
  tld4_pool_free(pool);
  return st;
}

// Rewrites the object's header as a D32_FLOAT view and its sampler with compare on
// (LESS_OR_EQUAL), in the layout of `arch`'s class, in simulated memory.
static bool make_depth(cudaTextureObject_t obj, uint32_t arch) {
  typedef int (*pools_fn)(uint64_t *, uint64_t *, uint32_t *);
  pools_fn pools = (pools_fn)dlsym(RTLD_DEFAULT, "tld4_sim_descriptor_pools");
  uint64_t hp = 0, sp = 0;
  uint32_t a = 0;
  if (!pools || !pools(&hp, &sp, &a) || a != arch) return false;
  uint64_t t = obj & 0xfffff, s = (obj >> 20) & 0xfff;
  uint32_t tic[8], tsc[8];
  tld4_tic_desc d;
  tld4_tsc_desc sd;
  tld4_error err;
  if (cudaMemcpy(tic, (void *)(hp + 32 * t), 32, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(tsc, (void *)(sp + 32 * s), 32, cudaMemcpyDeviceToHost) != cudaSuccess ||
      tld4_tic_decode_arch(arch, tic, &d, &err) != TLD4_OK ||
      tld4_tsc_decode_arch(arch, tsc, &sd, &err) != TLD4_OK)
    return false;
  d.format = "d32_float";
  sd.depth_compare = true;
  sd.compare_func = 3;  // ZC_LESS_OR_EQUAL (VkCompareOp's order)
  if (tld4_tic_encode_arch(arch, &d, tic, &err) != TLD4_OK ||
      tld4_tsc_encode_arch(arch, &sd, tsc, &err) != TLD4_OK) {
    printf("FAIL depth header: %s\n", err.message);
    return false;
  }
  return cudaMemcpy((void *)(hp + 32 * t), tic, 32, cudaMemcpyHostToDevice) == cudaSuccess &&
         cudaMemcpy((void *)(sp + 32 * s), tsc, 32, cudaMemcpyHostToDevice) == cudaSuccess;
}

int main(int argc, char **argv) {
  uint32_t arch = expected_arch(argc, argv);
  if (!arch || argc < 3) return 1;
  bool values = !strcmp(argv[2], "values");
  Case cases[] = {
    {"dc_2d_r", "TLD4.R.DC R10, R8, R20, R24, UR4, 2D ;", TLD4_KIND_2D, 16, 1, k2d, 0, 0, 0},
    {"dc_2d_g_offset", "TLD4.G.AOFFI.DC R10, R8, R20, R24, UR4, 2D ;", TLD4_KIND_2D, 16, 1, k2d_off, 0, -2, 1},
    {"dc_a2d_b_layer1", "TLD4.B.DC R10, R8, R20, R24, UR4, ARRAY_2D ;", TLD4_KIND_2D_ARRAY, 16, 3, ka2d, 1, 0, 0},
    {"dc_cube_a", "TLD4.A.DC R10, R8, R20, R24, UR4, CUBE ;", TLD4_KIND_CUBE, 8, 1, kcube, 0, 0, 0},
    {"dc_acube_r_layer1", "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;", TLD4_KIND_CUBE_ARRAY, 8, 2, kacube, 1, 0, 0},
  };
  int failures = 0;
  for (const Case &c : cases) {
    std::vector<float> texels((size_t)c.size * c.size * storage_layers(c));
    for (auto &v : texels) v = (float)(rnd() % 1000) / 1000.0f;
    bool cube = c.kind == TLD4_KIND_CUBE || c.kind == TLD4_KIND_CUBE_ARRAY;
    std::vector<float4> coords(LANES);
    std::vector<tld4_gather_query> q(LANES);
    for (int i = 0; i < LANES; i++) {
      float4 &p = coords[i];
      if (cube) {
        p = make_float4((int)(rnd() % 2001) / 1000.0f - 1.0f, (int)(rnd() % 2001) / 1000.0f - 1.0f,
                        (int)(rnd() % 2001) / 1000.0f - 1.0f, 0.f);
      } else {
        p = make_float4(-0.25f + (rnd() % 6000) / 4000.0f, -0.25f + (rnd() % 6000) / 4000.0f, 0.f, 0.f);
      }
      p.w = (float)(rnd() % 1100) / 1000.0f - 0.05f;  // the depth reference
      memset(&q[i], 0, sizeof q[i]);
      q[i].coords[0] = p.x; q[i].coords[1] = p.y; q[i].coords[2] = cube ? p.z : 0.f;
      q[i].layer = c.layer;
      q[i].offsets[0][0] = c.dx; q[i].offsets[0][1] = c.dy;
      q[i].dref = p.w;
    }
    cudaTextureObject_t obj;
    if (!make(c, texels, &obj)) { printf("FAIL %s: texture object\n", c.name); failures++; continue; }
    std::vector<tld4_gather_result> want;
    tld4_error err;
    if (!values) {
      // CUDA's sampler (compare off) over the r32 float texels: tld4's own verdict first.
      tld4_status st = reference(c, "r32_float", false, texels, q, want, &err);
      printf("TLD4_VERDICT %s %s: %s\n", c.name, tld4_status_name(st), err.message);
      fflush(stdout);
    } else if (!make_depth(obj, arch)) {
      printf("FAIL %s: cannot rewrite the descriptors\n", c.name);
      failures++;
      continue;
    } else if (reference(c, "d32_float", true, texels, q, want, &err) != TLD4_OK) {
      printf("FAIL %s reference: %s\n", c.name, err.message);
      failures++;
      continue;
    }
    float4 *dc; uint4 *dout;
    cudaMalloc(&dc, sizeof(float4) * LANES);
    cudaMalloc(&dout, sizeof(uint4) * LANES);
    cudaMemcpy(dc, coords.data(), sizeof(float4) * LANES, cudaMemcpyHostToDevice);
    c.k<<<LANES / 32, 32>>>(obj, dc, dout);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES);
    cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    int bad = 0, ones = 0;
    for (int i = 0; i < LANES; i++)
      for (int k = 0; k < 4; k++) {
        uint32_t g = (&got[i].x)[k];
        if (values && g != want[i].values[k]) {
          if (bad < 4) printf("  %s lane %d value %d: simulator 0x%08x, tld4 0x%08x\n", c.name, i, k, g, want[i].values[k]);
          bad++;
        }
        ones += g == 0x3f800000u;
      }
    // Both outcomes of the comparison occur (values 0.0 and 1.0; cube corners may average).
    printf("%s %s: %d lanes, %d mismatches (%d of %d values 1.0)\n", bad ? "FAIL" : "PASS", c.name, LANES, bad, ones, 4 * LANES);
    if (bad || ones == 0 || ones == 4 * LANES) failures++;
    cudaDestroyTextureObject(obj);
  }
  printf("depth: %d failures\n", failures);
  return failures != 0;
}
