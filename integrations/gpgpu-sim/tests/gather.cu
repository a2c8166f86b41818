// PTX tld4 on GPGPU-Sim with tld4 as the texture unit: each case makes a texture object
// through the CUDA runtime (arrays, layered and cube arrays, pitch 2D), runs a kernel whose
// inline PTX is one tld4 form, and compares every lane's four values (and the predicate)
// with tld4's own gather of the same texels and coordinates, computed here through the C
// library from an owned pool laid out by tld4_pool_image (not the simulator's driver code).
// It also prints, per kernel, the distinct 32-byte sectors tld4 reads a warp, summed, for
// run.sh to compare with the simulator's texture-cache accesses. Each texture object's
// header and sampler are read back from simulated memory and decoded in the layout of the
// class of the architecture given as argv[1] (descriptors.h).
#include <cuda_runtime.h>
#include <tld4.h>

#include "descriptors.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#define CK(x)                                                               \
  do {                                                                      \
    cudaError_t e_ = (x);                                                   \
    if (e_ != cudaSuccess) {                                                \
      printf("FAIL %s:%d %s: cudaError %d\n", __FILE__, __LINE__, #x, (int)e_); \
      return false;                                                         \
    }                                                                       \
  } while (0)

const int LANES = 64;  // two warps

// The PTX forms. COMP: r g b a; DTYPE: f32 s32 u32.
#define TLD4_2D(NAME, COMP, DTYPE)                                                  \
  __global__ void NAME(cudaTextureObject_t t, const float2 *c, uint4 *out, int *res) { \
    int i = threadIdx.x + blockIdx.x * blockDim.x;                                  \
    unsigned a, b, cc, d; int p;                                                    \
    asm volatile("{ .reg .pred q; tld4." #COMP ".2d.v4." #DTYPE ".f32 {%0,%1,%2,%3}|q, [%5, {%6, %7}];" \
                 " selp.s32 %4, 1, 0, q; }"                                         \
                 : "=r"(a), "=r"(b), "=r"(cc), "=r"(d), "=r"(p)                     \
                 : "l"(t), "f"(c[i].x), "f"(c[i].y));                               \
    out[i] = make_uint4(a, b, cc, d); res[i] = p;                                    \
  }
TLD4_2D(k2d_r_f32, r, f32)
TLD4_2D(k2d_g_f32, g, f32)
TLD4_2D(k2d_b_f32, b, f32)
TLD4_2D(k2d_a_f32, a, f32)
TLD4_2D(k2d_r_s32, r, s32)
TLD4_2D(k2d_r_u32, r, u32)

// 2D with an offset (no predicate destination).
__global__ void k2d_off(cudaTextureObject_t t, const float2 *c, uint4 *out, int *res, int dx, int dy) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.g.2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6}], {%7, %8};"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "r"(dx), "r"(dy));
  out[i] = make_uint4(a, b, cc, d); res[i] = 1;
}

// 2D array: {layer, u, v, unused}.
__global__ void ka2d(cudaTextureObject_t t, const float2 *c, uint4 *out, int *res, int layer) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d; float z = 0.f;
  asm volatile("tld4.b.a2d.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "r"(layer), "f"(c[i].x), "f"(c[i].y), "f"(z));
  out[i] = make_uint4(a, b, cc, d); res[i] = 1;
}

// Cube: {x, y, z, unused}; cube array: {layer, x, y, z}.
__global__ void kcube(cudaTextureObject_t t, const float4 *c, uint4 *out, int *res) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d; float z = 0.f;
  asm volatile("tld4.r.cube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "f"(c[i].x), "f"(c[i].y), "f"(c[i].z), "f"(z));
  out[i] = make_uint4(a, b, cc, d); res[i] = 1;
}
__global__ void kacube(cudaTextureObject_t t, const float4 *c, uint4 *out, int *res, int layer) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned a, b, cc, d;
  asm volatile("tld4.a.acube.v4.f32.f32 {%0,%1,%2,%3}, [%4, {%5, %6, %7, %8}];"
               : "=r"(a), "=r"(b), "=r"(cc), "=r"(d)
               : "l"(t), "r"(layer), "f"(c[i].x), "f"(c[i].y), "f"(c[i].z));
  out[i] = make_uint4(a, b, cc, d); res[i] = 1;
}

// The same gather as four plain loads of a linear copy of an r32 texture (wrap mode):
// texels (i0, j1), (i1, j1), (i1, j0), (i0, j0), i0 = floor(u * w - 0.5) (PTX ISA, tld4).
__global__ void kplain(const float *texels, int w, int h, const float2 *c, uint4 *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  float x = c[i].x * w - 0.5f, y = c[i].y * h - 0.5f;
  int i0 = (int)floorf(x), j0 = (int)floorf(y);
  int i1 = i0 + 1, j1 = j0 + 1;
  i0 = ((i0 % w) + w) % w; i1 = ((i1 % w) + w) % w;
  j0 = ((j0 % h) + h) % h; j1 = ((j1 % h) + h) % h;
  out[i] = make_uint4(__float_as_uint(texels[j1 * w + i0]), __float_as_uint(texels[j1 * w + i1]),
                      __float_as_uint(texels[j0 * w + i1]), __float_as_uint(texels[j0 * w + i0]));
}

static uint32_t rng_state = 12345;
static uint32_t rnd() { rng_state = rng_state * 1664525u + 1013904223u; return rng_state >> 8; }

struct Tex {
  int kind;                 // TLD4_KIND_*
  const char *format;       // tld4's name
  cudaChannelFormatDesc desc;
  cudaTextureReadMode mode;
  int w, h, layers;         // layers: tld4's (whole cubes for cube arrays)
  cudaTextureAddressMode am;
  bool pitch;               // a pitch-2D resource instead of an array
  std::vector<uint32_t> fields;  // tld4 raw fields
  std::vector<uint8_t> bytes;    // the same texels as bytes (x fastest, y, storage layer)
};

static int storage_layers(const Tex &t) {
  if (t.kind == TLD4_KIND_CUBE) return 6;
  if (t.kind == TLD4_KIND_CUBE_ARRAY) return 6 * t.layers;
  return t.layers;
}

static void fill(Tex &t) {
  int comps = (t.desc.x > 0) + (t.desc.y > 0) + (t.desc.z > 0) + (t.desc.w > 0);
  int fb = t.desc.x / 8;
  size_t n = (size_t)t.w * t.h * storage_layers(t) * comps;
  t.fields.resize(n);
  t.bytes.resize(n * fb);
  for (size_t i = 0; i < n; i++) {
    uint32_t v = rnd();
    if (t.desc.f == cudaChannelFormatKindFloat && fb == 4) {
      float f = (float)(int)(v % 2001 - 1000) / 64.0f;
      memcpy(&v, &f, 4);
    } else if (fb < 4) {
      v &= (1u << (8 * fb)) - 1;
    }
    t.fields[i] = v;
    memcpy(&t.bytes[i * fb], &v, fb);
  }
}

// tld4's gather of the same texture: an owned pool laid out by tld4_pool_image.
static bool reference(const Tex &t, const char *sass, const std::vector<tld4_gather_query> &q,
                      std::vector<tld4_gather_result> &r, long *sectors) {
  tld4_error err;
  tld4_pool *pool = NULL;
  tld4_insn *insn = NULL;
  tld4_texture_desc td = {(uint32_t)t.kind, t.format, (uint32_t)t.w, (uint32_t)t.h,
                          (uint32_t)(t.kind == TLD4_KIND_2D || t.kind == TLD4_KIND_CUBE ? 1 : t.layers)};
  tld4_sampler_desc s;
  uint32_t tex = 0, smp = 0, handle = 0;
  bool ok = tld4_pool_new(&pool, &err) == TLD4_OK &&
            tld4_pool_add_texture(pool, &td, t.fields.data(), t.fields.size(), &tex, &err) == TLD4_OK &&
            tld4_sampler_default(&s, &err) == TLD4_OK;
  if (ok) {
    // CUDA's address modes in Vulkan's numbers: wrap 0, clamp 2, mirror 1, border 3.
    uint32_t vk = t.am == cudaAddressModeWrap ? 0 : t.am == cudaAddressModeClamp ? 2
                : t.am == cudaAddressModeMirror ? 1 : 3;
    s.address_u = s.address_v = vk;
    for (int i = 0; i < 4; i++) s.border[i] = 0;
    s.seamless_cube = false;
    ok = tld4_pool_add_sampler(pool, &s, &smp, &err) == TLD4_OK &&
         tld4_handle(tex, smp, &handle, &err) == TLD4_OK &&
         tld4_parse(sass, &insn, &err) == TLD4_OK;
  }
  std::vector<uint8_t> image;
  uint64_t hp = 0, sp = 0, base = 0x100000;
  if (ok) {
    int bytes = t.desc.x / 8 * ((t.desc.x > 0) + (t.desc.y > 0) + (t.desc.z > 0) + (t.desc.w > 0));
    tld4_image_entry e = {tex, smp, bytes >= 4 ? (uint32_t)TLD4_LAYOUT_BLOCK_LINEAR : (uint32_t)TLD4_LAYOUT_PITCH,
                          bytes >= 4 ? 0u : 32u};
    size_t needed = 0;
    tld4_pool_image(pool, &e, 1, base, NULL, 0, &needed, &hp, &sp, &err);
    image.resize(needed);
    ok = tld4_pool_image(pool, &e, 1, base, image.data(), image.size(), &needed, &hp, &sp, &err) == TLD4_OK;
  }
  if (ok) {
    tld4_memory m;
    memset(&m, 0, sizeof m);
    m.kind = TLD4_MEMORY_FLAT;
    m.base = base;
    m.bytes = image.data();
    m.len = image.size();
    r.resize(q.size());
    ok = tld4_mem_gather(insn, &m, hp, sp, handle, NULL, q.data(), q.size(), r.data(), &err) == TLD4_OK;
  }
  if (!ok) printf("FAIL reference (%s): %s\n", sass, err.message);
  *sectors = 0;
  for (size_t w = 0; ok && w < q.size(); w += 32) {
    std::set<uint64_t> s32;
    for (size_t l = w; l < w + 32 && l < q.size(); l++)
      for (int k = 0; k < 4; k++)
        if (r[l].texels[k].kind == TLD4_TEXEL_MEMORY) s32.insert(r[l].texels[k].address & ~31ull);
    *sectors += s32.size();
  }
  tld4_insn_free(insn);
  tld4_pool_free(pool);
  return ok;
}

static uint32_t g_arch = 0;  // the architecture the configuration models (argv[1])
static int failures = 0;

static bool make_texture(const char *name, Tex &t, cudaTextureObject_t *obj, void **keep) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof rd);
  int bytes = t.desc.x / 8 * ((t.desc.x > 0) + (t.desc.y > 0) + (t.desc.z > 0) + (t.desc.w > 0));
  if (t.pitch) {
    size_t pitch = (t.w * bytes + 31) / 32 * 32;
    void *d;
    CK(cudaMalloc(&d, pitch * t.h));
    std::vector<uint8_t> rows(pitch * t.h, 0);
    for (int y = 0; y < t.h; y++) memcpy(&rows[y * pitch], &t.bytes[(size_t)y * t.w * bytes], t.w * bytes);
    CK(cudaMemcpy(d, rows.data(), rows.size(), cudaMemcpyHostToDevice));
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = d;
    rd.res.pitch2D.desc = t.desc;
    rd.res.pitch2D.width = t.w;
    rd.res.pitch2D.height = t.h;
    rd.res.pitch2D.pitchInBytes = pitch;
    *keep = d;
  } else {
    cudaArray_t a;
    if (t.kind == TLD4_KIND_2D) {
      CK(cudaMallocArray(&a, &t.desc, t.w, t.h));
      CK(cudaMemcpy2DToArray(a, 0, 0, t.bytes.data(), t.w * bytes, t.w * bytes, t.h, cudaMemcpyHostToDevice));
    } else {
      unsigned flags = t.kind == TLD4_KIND_2D_ARRAY ? cudaArrayLayered
                     : t.kind == TLD4_KIND_CUBE ? cudaArrayCubemap : (cudaArrayCubemap | cudaArrayLayered);
      cudaExtent ext = make_cudaExtent(t.w, t.h, storage_layers(t));
      CK(cudaMalloc3DArray(&a, &t.desc, ext, flags));
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(t.bytes.data(), t.w * bytes, t.w, t.h);
      p.dstArray = a;
      p.extent = ext;
      p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    *keep = a;
  }
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = t.am;
  td.filterMode = cudaFilterModePoint;
  td.readMode = t.mode;
  td.normalizedCoords = 1;
  CK(cudaCreateTextureObject(obj, &rd, &td, NULL));
  // CUDA's address modes as the TSC's: wrap 0, clamp 2, mirror 1, border 3.
  static const uint32_t hw[4] = {0, 2, 1, 3};
  ExpectedTexture want = {(uint32_t)t.kind, t.format, (uint32_t)t.w, (uint32_t)t.h,
                          (uint32_t)(t.kind == TLD4_KIND_2D_ARRAY || t.kind == TLD4_KIND_CUBE_ARRAY
                                         ? t.layers : 1),
                          true, hw[t.am]};
  failures += check_descriptors(name, *obj, g_arch, want);
  cudaResourceDesc back;
  CK(cudaGetTextureObjectResourceDesc(&back, *obj));
  if (back.resType != rd.resType) { printf("FAIL resource desc read back\n"); return false; }
  return true;
}

static void compare(const char *name, const std::vector<uint4> &got, const std::vector<int> &res,
                    const std::vector<tld4_gather_result> &want, bool check_pred, long sectors) {
  int bad = 0;
  for (int i = 0; i < LANES; i++) {
    const uint32_t *g = &got[i].x;
    for (int k = 0; k < 4; k++)
      if (g[k] != want[i].values[k]) {
        if (bad < 4) printf("  %s lane %d value %d: simulator 0x%08x, tld4 0x%08x\n", name, i, k, g[k], want[i].values[k]);
        bad++;
      }
    if (check_pred && res[i] != (int)want[i].resident) bad++;
  }
  printf("%s %s: %d lanes, %d mismatches\n", bad ? "FAIL" : "PASS", name, LANES, bad);
  printf("TLD4_SECTORS %s %ld\n", name, sectors);
  if (bad) failures++;
}

// 2D coordinates over [-0.75, 1.75): wrapping, clamping and bordering all show.
static std::vector<float2> coords2d() {
  std::vector<float2> c(LANES);
  for (int i = 0; i < LANES; i++) {
    c[i].x = -0.75f + (rnd() % 10000) / 4000.0f;
    c[i].y = -0.75f + (rnd() % 10000) / 4000.0f;
  }
  return c;
}

template <typename C>
static bool run(const char *name, Tex &t, const char *sass, void (*k)(cudaTextureObject_t, const C *, uint4 *, int *),
                const std::vector<C> &c, const std::vector<tld4_gather_query> &q, bool pred) {
  cudaTextureObject_t obj;
  void *keep;
  fill(t);
  if (!make_texture(name, t, &obj, &keep)) { failures++; return false; }
  C *dc; uint4 *dout; int *dres;
  CK(cudaMalloc(&dc, sizeof(C) * LANES));
  CK(cudaMalloc(&dout, sizeof(uint4) * LANES));
  CK(cudaMalloc(&dres, sizeof(int) * LANES));
  CK(cudaMemcpy(dc, c.data(), sizeof(C) * LANES, cudaMemcpyHostToDevice));
  k<<<LANES / 32, 32>>>(obj, dc, dout, dres);
  CK(cudaDeviceSynchronize());
  std::vector<uint4> got(LANES);
  std::vector<int> res(LANES);
  CK(cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(res.data(), dres, sizeof(int) * LANES, cudaMemcpyDeviceToHost));
  std::vector<tld4_gather_result> want;
  long sectors = 0;
  if (!reference(t, sass, q, want, &sectors)) { failures++; return false; }
  compare(name, got, res, want, pred, sectors);
  CK(cudaDestroyTextureObject(obj));
  return true;
}

static std::vector<tld4_gather_query> queries2d(const std::vector<float2> &c, int layer = 0, int dx = 0, int dy = 0) {
  std::vector<tld4_gather_query> q(LANES);
  for (int i = 0; i < LANES; i++) {
    memset(&q[i], 0, sizeof q[i]);
    q[i].coords[0] = c[i].x;
    q[i].coords[1] = c[i].y;
    q[i].layer = layer;
    q[i].offsets[0][0] = dx;
    q[i].offsets[0][1] = dy;
  }
  return q;
}

static Tex tex2d(const char *fmt, cudaChannelFormatDesc d, cudaTextureReadMode m, cudaTextureAddressMode am,
                 int w = 16, int h = 8) {
  Tex t;
  t.kind = TLD4_KIND_2D; t.format = fmt; t.desc = d; t.mode = m; t.w = w; t.h = h; t.layers = 1;
  t.am = am; t.pitch = false;
  return t;
}

int main(int argc, char **argv) {
  g_arch = expected_arch(argc, argv);
  if (!g_arch) return 1;
  cudaChannelFormatDesc rgba8u = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc rgba8s = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindSigned);
  cudaChannelFormatDesc r32f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaChannelFormatDesc r32s = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
  cudaChannelFormatDesc r32u = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc rgba32f = cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindFloat);
  cudaChannelFormatDesc rg16u = cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindUnsigned);
  cudaChannelFormatDesc r8u = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);

  // Components, formats (unorm, snorm, float, sint, uint) and address modes on 2D.
  struct C2 { const char *name, *fmt; cudaChannelFormatDesc d; cudaTextureReadMode m; cudaTextureAddressMode am;
              const char *sass; void (*k)(cudaTextureObject_t, const float2 *, uint4 *, int *); int w, h; };
  C2 cases[] = {
    {"2d_r_rgba8_unorm_wrap", "rgba8_unorm", rgba8u, cudaReadModeNormalizedFloat, cudaAddressModeWrap, "TLD4.R R10, R8, R20, UR4, 2D ;", k2d_r_f32, 16, 8},
    {"2d_g_rgba8_unorm_clamp", "rgba8_unorm", rgba8u, cudaReadModeNormalizedFloat, cudaAddressModeClamp, "TLD4.G R10, R8, R20, UR4, 2D ;", k2d_g_f32, 16, 8},
    {"2d_b_rgba8_snorm_mirror", "rgba8_snorm", rgba8s, cudaReadModeNormalizedFloat, cudaAddressModeMirror, "TLD4.B R10, R8, R20, UR4, 2D ;", k2d_b_f32, 16, 8},
    {"2d_a_rgba8_unorm_border", "rgba8_unorm", rgba8u, cudaReadModeNormalizedFloat, cudaAddressModeBorder, "TLD4.A R10, R8, R20, UR4, 2D ;", k2d_a_f32, 16, 8},
    {"2d_r_r32_float_wrap", "r32_float", r32f, cudaReadModeElementType, cudaAddressModeWrap, "TLD4.R R10, R8, R20, UR4, 2D ;", k2d_r_f32, 32, 16},
    {"2d_r_r32_sint_clamp", "r32_sint", r32s, cudaReadModeElementType, cudaAddressModeClamp, "TLD4.R R10, R8, R20, UR4, 2D ;", k2d_r_s32, 16, 16},
    {"2d_r_r32_uint_mirror", "r32_uint", r32u, cudaReadModeElementType, cudaAddressModeMirror, "TLD4.R R10, R8, R20, UR4, 2D ;", k2d_r_u32, 16, 16},
    {"2d_a_rgba32_float_wrap", "rgba32_float", rgba32f, cudaReadModeElementType, cudaAddressModeWrap, "TLD4.A R10, R8, R20, UR4, 2D ;", k2d_a_f32, 8, 8},
    {"2d_g_rg16_unorm_wrap", "rg16_unorm", rg16u, cudaReadModeNormalizedFloat, cudaAddressModeWrap, "TLD4.G R10, R8, R20, UR4, 2D ;", k2d_g_f32, 16, 8},
  };
  for (auto &cs : cases) {
    Tex t = tex2d(cs.fmt, cs.d, cs.m, cs.am, cs.w, cs.h);
    auto c = coords2d();
    run<float2>(cs.name, t, cs.sass, cs.k, c, queries2d(c), true);
  }
  { // pitch-2D resource, 1-byte texels
    Tex t = tex2d("r8_unorm", r8u, cudaReadModeNormalizedFloat, cudaAddressModeWrap, 40, 8);
    t.pitch = true;
    auto c = coords2d();
    run<float2>("2d_r_pitch_r8_unorm_wrap", t, "TLD4.R R10, R8, R20, UR4, 2D ;", k2d_r_f32, c, queries2d(c), true);
  }
  // Offsets, layers, cubes: kernels with extra arguments, wrapped in lambdas-as-functions.
  {
    static int dx = -3, dy = 5;
    Tex t = tex2d("r32_float", r32f, cudaReadModeElementType, cudaAddressModeWrap, 16, 16);
    auto c = coords2d();
    struct K { static void k(cudaTextureObject_t o, const float2 *c, uint4 *out, int *res) { k2d_off<<<LANES / 32, 32>>>(o, c, out, res, dx, dy); } };
    // run() launches k<<<>>> itself; a host function cannot be launched, so call it directly below.
    fill(t);
    cudaTextureObject_t obj; void *keep;
    if (!make_texture("2d_g_offset_r32_float", t, &obj, &keep)) return 1;
    float2 *dc; uint4 *dout; int *dres;
    cudaMalloc(&dc, sizeof(float2) * LANES); cudaMalloc(&dout, sizeof(uint4) * LANES); cudaMalloc(&dres, sizeof(int) * LANES);
    cudaMemcpy(dc, c.data(), sizeof(float2) * LANES, cudaMemcpyHostToDevice);
    K::k(obj, dc, dout, dres);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES); std::vector<int> res(LANES);
    cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    cudaMemcpy(res.data(), dres, sizeof(int) * LANES, cudaMemcpyDeviceToHost);
    std::vector<tld4_gather_result> want; long sectors;
    if (reference(t, "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;", queries2d(c, 0, dx, dy), want, &sectors))
      compare("2d_g_offset_r32_float", got, res, want, false, sectors);
    else failures++;
  }
  {
    Tex t; t.kind = TLD4_KIND_2D_ARRAY; t.format = "rgba8_unorm"; t.desc = rgba8u; t.mode = cudaReadModeNormalizedFloat;
    t.w = 16; t.h = 16; t.layers = 3; t.am = cudaAddressModeWrap; t.pitch = false;
    fill(t);
    auto c = coords2d();
    cudaTextureObject_t obj; void *keep;
    if (!make_texture("a2d_b_layer2_rgba8_unorm", t, &obj, &keep)) return 1;
    float2 *dc; uint4 *dout; int *dres;
    cudaMalloc(&dc, sizeof(float2) * LANES); cudaMalloc(&dout, sizeof(uint4) * LANES); cudaMalloc(&dres, sizeof(int) * LANES);
    cudaMemcpy(dc, c.data(), sizeof(float2) * LANES, cudaMemcpyHostToDevice);
    ka2d<<<LANES / 32, 32>>>(obj, dc, dout, dres, 2);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES); std::vector<int> res(LANES);
    cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    std::vector<tld4_gather_result> want; long sectors;
    if (reference(t, "TLD4.B R10, R8, R20, UR4, ARRAY_2D ;", queries2d(c, 2), want, &sectors))
      compare("a2d_b_layer2_rgba8_unorm", got, res, want, false, sectors);
    else failures++;
  }
  for (int arr = 0; arr < 2; arr++) {
    Tex t; t.kind = arr ? TLD4_KIND_CUBE_ARRAY : TLD4_KIND_CUBE; t.format = "r32_float"; t.desc = r32f;
    t.mode = cudaReadModeElementType; t.w = 8; t.h = 8; t.layers = arr ? 2 : 1; t.am = cudaAddressModeClamp; t.pitch = false;
    fill(t);
    std::vector<float4> c(LANES);
    std::vector<tld4_gather_query> q(LANES);
    for (int i = 0; i < LANES; i++) {
      c[i] = make_float4((int)(rnd() % 2001) / 1000.0f - 1.0f, (int)(rnd() % 2001) / 1000.0f - 1.0f,
                         (int)(rnd() % 2001) / 1000.0f - 1.0f, 0.f);
      memset(&q[i], 0, sizeof q[i]);
      q[i].coords[0] = c[i].x; q[i].coords[1] = c[i].y; q[i].coords[2] = c[i].z; q[i].layer = arr;
    }
    cudaTextureObject_t obj; void *keep;
    if (!make_texture(arr ? "acube_a_layer1_r32_float" : "cube_r_r32_float", t, &obj, &keep)) return 1;
    float4 *dc; uint4 *dout; int *dres;
    cudaMalloc(&dc, sizeof(float4) * LANES); cudaMalloc(&dout, sizeof(uint4) * LANES); cudaMalloc(&dres, sizeof(int) * LANES);
    cudaMemcpy(dc, c.data(), sizeof(float4) * LANES, cudaMemcpyHostToDevice);
    if (arr) kacube<<<LANES / 32, 32>>>(obj, dc, dout, dres, 1);
    else kcube<<<LANES / 32, 32>>>(obj, dc, dout, dres);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES); std::vector<int> res(LANES);
    cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    std::vector<tld4_gather_result> want; long sectors;
    if (reference(t, arr ? "TLD4.A R10, R8, R20, UR4, ARRAY_CUBE ;" : "TLD4.R R10, R8, R20, UR4, CUBE ;", q, want, &sectors))
      compare(arr ? "acube_a_layer1_r32_float" : "cube_r_r32_float", got, res, want, false, sectors);
    else failures++;
  }
  { // the plain-load reference kernel: tld4.r on r32_float against four loads by index
    Tex t = tex2d("r32_float", r32f, cudaReadModeElementType, cudaAddressModeWrap, 32, 16);
    fill(t);
    std::vector<float2> c(LANES);
    for (int i = 0; i < LANES; i++) {  // texel quarters: exact in f32 for power-of-two sizes
      c[i].x = ((int)(rnd() % 256) - 64) / (4.0f * t.w) + 0.125f / t.w;
      c[i].y = ((int)(rnd() % 128) - 32) / (4.0f * t.h) + 0.125f / t.h;
    }
    cudaTextureObject_t obj; void *keep;
    if (!make_texture("2d_r_r32_float_quarters", t, &obj, &keep)) return 1;
    float2 *dc; uint4 *dout, *dplain; int *dres; float *dtex;
    cudaMalloc(&dc, sizeof(float2) * LANES); cudaMalloc(&dout, sizeof(uint4) * LANES);
    cudaMalloc(&dplain, sizeof(uint4) * LANES); cudaMalloc(&dres, sizeof(int) * LANES);
    cudaMalloc(&dtex, t.bytes.size());
    cudaMemcpy(dtex, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), sizeof(float2) * LANES, cudaMemcpyHostToDevice);
    k2d_r_f32<<<LANES / 32, 32>>>(obj, dc, dout, dres);
    kplain<<<LANES / 32, 32>>>(dtex, t.w, t.h, dc, dplain);
    cudaDeviceSynchronize();
    std::vector<uint4> got(LANES), plain(LANES);
    cudaMemcpy(got.data(), dout, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    cudaMemcpy(plain.data(), dplain, sizeof(uint4) * LANES, cudaMemcpyDeviceToHost);
    std::vector<tld4_gather_result> want; long sectors;
    std::vector<int> res(LANES, 1);
    if (reference(t, "TLD4.R R10, R8, R20, UR4, 2D ;", queries2d(c), want, &sectors))
      compare("2d_r_r32_float_quarters", got, res, want, false, sectors);
    else failures++;
    int bad = 0;
    for (int i = 0; i < LANES; i++)
      if (memcmp(&got[i], &plain[i], sizeof(uint4))) bad++;
    printf("%s plain_loads_vs_tld4_r32_float: %d lanes, %d mismatches\n", bad ? "FAIL" : "PASS", LANES, bad);
    if (bad) failures++;
  }
  printf("gather: %d failures\n", failures);
  return failures != 0;
}
