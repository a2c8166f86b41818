#include "faults.hpp"

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "tld4_helpers.hpp"
#include "workload.hpp"

namespace sim {

const char *name(SimFault f) {
  switch (f) {
    case SimFault::None: return "none";
    case SimFault::IllegalInstruction: return "illegal instruction";
    case SimFault::RegisterFault: return "register fault";
    case SimFault::UnknownTexture: return "unknown texture";
    case SimFault::UnknownSampler: return "unknown sampler";
    case SimFault::InvalidTexture: return "invalid texture";
    case SimFault::MemoryFault: return "memory fault";
    case SimFault::Unsupported: return "unsupported";
    case SimFault::HostError: return "host error";
  }
  return "?";
}

SimFault classify(tld4_status status, const tld4_error &e) {
  if (status == TLD4_OK) return SimFault::None;
  switch (e.fault) {
    case TLD4_FAULT_NONE: return SimFault::HostError;  // a bad argument, a NULL, a panic
    case TLD4_FAULT_ILLEGAL_ENCODING: return SimFault::IllegalInstruction;
    case TLD4_FAULT_REGISTER_OUT_OF_RANGE:
    case TLD4_FAULT_MISALIGNED_REGISTER: return SimFault::RegisterFault;
    case TLD4_FAULT_UNKNOWN_TEXTURE_HEADER: return SimFault::UnknownTexture;
    case TLD4_FAULT_UNKNOWN_SAMPLER: return SimFault::UnknownSampler;
    case TLD4_FAULT_INVALID_TEXTURE:
      return e.detail.read == TLD4_READ_TEXEL ? SimFault::MemoryFault : SimFault::InvalidTexture;
    case TLD4_FAULT_NOT_MODELED: return SimFault::Unsupported;
    case TLD4_FAULT_INVALID_CONFIG:
    case TLD4_FAULT_OTHER:
    // (a constant-bank TLD4 of SM75-SM90 whose handle the simulator's constant memory lacks:
    // this SM runs SM100's form, so only its own bug gets here)
    case TLD4_FAULT_NO_CONSTANT: return SimFault::HostError;
  }
  return SimFault::HostError;
}

namespace {

struct Case {
  const char *what;
  bool memory;          // bound to the memory image, else to the owned pool
  uint32_t header, sampler;
  uint32_t num_regs;    // registers a thread has
  SimFault want;
};

}  // namespace

int check_faults(const tld4_exec *exec, const tld4_pool *pool, GpuMemory &mem, Driver &driver,
                 const Operands &op) {
  // Header 3: texture 0's header with its texels moved past the end of memory; sampler 2:
  // CLAMP_OGL (legal, not modeled). Header 2 stays empty, sampler 4095 is past the memory.
  // Texture 0's header as the driver wrote it, read back from memory and decoded.
  uint32_t words[8];
  if (!mem.read(driver.header_pool(), words, sizeof words))  // a little-endian host
    throw std::runtime_error("header 0 is not mapped");
  tld4_tic_desc past{};
  tld4_error e;
  ok(tld4_tic_decode(words, &past, &e), e, "decode header 0");
  past.address = (mem.end() + 511) / 512 * 512;
  driver.set_header(3, past);
  tld4_tsc_desc ogl{};
  ogl.address_u = TLD4_TSC_CLAMP_OGL;
  ogl.address_v = TLD4_TSC_CLAMP_TO_EDGE;
  driver.set_sampler(2, ogl);

  const Case cases[] = {
      {"empty header slot (memory)", true, 2, 0, 255, SimFault::UnknownTexture},
      {"header index past the owned pool", false, 7, 0, 255, SimFault::UnknownTexture},
      {"texels past the end of memory", true, 3, 0, 255, SimFault::MemoryFault},
      {"sampler past the end of memory", true, 0, 4095, 255, SimFault::UnknownSampler},
      {"CLAMP_OGL sampler", true, 0, 2, 255, SimFault::Unsupported},
      {"destinations past 6 registers", true, 0, 0, 6, SimFault::RegisterFault},
  };
  const tld4_memory flat = mem.flat();
  int wrong = 0;
  std::unique_ptr<WarpSlot> slot(new WarpSlot());
  for (const Case &c : cases) {
    tld4_bound *raw = nullptr;
    if (c.memory)
      ok(tld4_exec_bind_memory(exec, &flat, driver.header_pool(), driver.sampler_pool(), &raw, &e),
         e, "bind memory");
    else
      ok(tld4_exec_bind(exec, pool, &raw, &e), e, "bind");
    Bound bound(raw);
    set_up(*slot, 0, op);
    uint32_t handle = 0;
    ok(tld4_handle(c.header, c.sampler, &handle, &e), e, "handle");
    slot->uregs[op.handle_ureg] = handle;
    tld4_warp_flat warp = slot->flat(c.num_regs);
    const tld4_status s = tld4_bound_run_flat(bound.get(), &warp, nullptr, nullptr, &e);
    const SimFault got = classify(s, e);
    bool right = got == c.want;
    // What was read, and where, is typed too.
    if (c.want == SimFault::MemoryFault)
      right = right && e.detail.address >= mem.end() && e.detail.layer == 0 &&
              e.detail.x < textures[0].width && e.detail.y < textures[0].height;
    if (c.want == SimFault::Unsupported)
      right = right && e.detail.not_modeled == TLD4_NOT_MODELED_DESCRIPTOR &&
              e.detail.read == TLD4_READ_SAMPLER && e.detail.value == TLD4_TSC_CLAMP_OGL;
    std::printf("  %-34s -> %-16s (lane %d", c.what, name(got), e.lane);
    if (e.detail.read == TLD4_READ_TEXEL)
      std::printf(", texel (layer %u, x %u, y %u) at 0x%llx", e.detail.layer, e.detail.x,
                  e.detail.y, static_cast<unsigned long long>(e.detail.address));
    if (e.detail.field) std::printf(", %s = %llu", e.detail.field,
                                    static_cast<unsigned long long>(e.detail.value));
    std::printf(")%s\n", right ? "" : "  WRONG");
    wrong += !right;
  }
  return wrong;
}

}  // namespace sim
