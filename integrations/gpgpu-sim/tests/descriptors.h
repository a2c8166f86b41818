// The texture header and sampler the simulator's driver side wrote for a texture object,
// read back from simulated GPU memory and decoded in the layout of the GPU class the
// configuration models (tld4_tic_decode_arch): they must describe the texture made, and,
// for a class with V1 headers (sm_75 .. sm_89), must not read as the same texture in V2.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <tld4.h>

#include <cstdio>
#include <cstring>

// The architecture the test was told the configuration models (argv[1], "sm_75").
static uint32_t expected_arch(int argc, char **argv) {
  uint32_t arch = 0;
  tld4_error err;
  if (argc < 2 || tld4_arch_from_name(argv[1], &arch, &err) != TLD4_OK) {
    printf("FAIL usage: %s sm_XY (the architecture the configuration models)\n", argv[0]);
    return 0;
  }
  return arch;
}

struct ExpectedTexture {
  uint32_t kind;
  const char *format;
  uint32_t width, height, depth;
  bool normalized;
  uint32_t address_u;  // the TSC's hardware number
};

// 0 on success, 1 (after a FAIL line) otherwise.
static int check_descriptors(const char *name, cudaTextureObject_t obj, uint32_t arch,
                             const ExpectedTexture &want) {
  typedef int (*pools_fn)(uint64_t *, uint64_t *, uint32_t *);
  pools_fn pools = (pools_fn)dlsym(RTLD_DEFAULT, "tld4_sim_descriptor_pools");
  if (!pools) {
    printf("FAIL descriptors %s: the simulator exports no tld4_sim_descriptor_pools\n", name);
    return 1;
  }
  uint64_t hp = 0, sp = 0;
  uint32_t sim_arch = 0;
  if (!pools(&hp, &sp, &sim_arch) || sim_arch != arch) {
    printf("FAIL descriptors %s: the simulator wrote them for tld4_arch %u, the configuration "
           "models %u\n", name, sim_arch, arch);
    return 1;
  }
  tld4_error err;
  tld4_arch_class cls;
  if (tld4_arch_descriptors(arch, &cls, &err) != TLD4_OK) {
    printf("FAIL descriptors %s: %s\n", name, err.message);
    return 1;
  }
  uint32_t tic[8], tsc[8];
  uint64_t t = obj & 0xfffff, s = (obj >> 20) & 0xfff;  // the handle's two indices
  if (cudaMemcpy(tic, (void *)(hp + 32 * t), 32, cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(tsc, (void *)(sp + 32 * s), 32, cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf("FAIL descriptors %s: cannot read the pools\n", name);
    return 1;
  }
  tld4_tic_desc d;
  tld4_tsc_desc sd;
  if (tld4_tic_decode_arch(arch, tic, &d, &err) != TLD4_OK) {
    printf("FAIL descriptors %s: the header is no %s V%u header: %s\n", name, cls.name,
           cls.header_version, err.message);
    return 1;
  }
  tld4_tsc_decode_arch(arch, tsc, &sd, &err);
  bool same = d.kind == want.kind && d.format && !strcmp(d.format, want.format) &&
              d.width == want.width && d.height == want.height && d.depth == want.depth &&
              d.normalized_coords == want.normalized && sd.address_u == want.address_u;
  if (!same) {
    printf("FAIL descriptors %s: %s V%u header reads kind %u %s %ux%ux%u normalized %d, "
           "sampler address_u %u\n", name, cls.name, cls.header_version, d.kind,
           d.format ? d.format : "?", d.width, d.height, d.depth, d.normalized_coords,
           sd.address_u);
    return 1;
  }
  // The other layout reads something else (or refuses it).
  tld4_tic_desc other;
  bool v2_reads_it = tld4_tic_decode(tic, &other, &err) == TLD4_OK && other.kind == d.kind &&
                     other.format && !strcmp(other.format, d.format) &&
                     other.width == d.width && other.height == d.height &&
                     other.address == d.address;
  if ((cls.header_version == 1) == v2_reads_it) {
    printf("FAIL descriptors %s: a %s header %s as the same texture in the V2 layout\n", name,
           cls.name, v2_reads_it ? "reads" : "does not read");
    return 1;
  }
  printf("PASS descriptors %s: %s V%u header at 0x%llx (words 0x%08x 0x%08x ...) and "
         "sampler decode to %s %ux%ux%u\n", name, cls.name, cls.header_version,
         (unsigned long long)(hp + 32 * t), tic[0], tic[1], want.format, want.width,
         want.height, want.depth);
  return 0;
}
