// How the toy SM turns every tld4 failure into one of its own fault kinds: from the status,
// err.fault and err.detail alone (never the message text), the same way for owned textures
// and textures in memory.
#pragma once

#include "gpu.hpp"
#include "sm.hpp"
#include "tld4.h"

namespace sim {

enum class SimFault {
  None,
  IllegalInstruction,  // the instruction cannot execute
  RegisterFault,       // an operand past the thread's registers, a misaligned pair
  UnknownTexture,      // the handle names no texture header (empty or unmapped slot)
  UnknownSampler,      // the handle names no sampler
  InvalidTexture,      // a descriptor the texture unit refuses
  MemoryFault,         // a texel read from unmapped memory
  Unsupported,         // valid, but tld4 does not model it: the SM stops and reports it
  HostError,           // the simulator passed tld4 something wrong (its own bug)
};
const char *name(SimFault f);
SimFault classify(tld4_status status, const tld4_error &e);

// Runs the failure cases (empty and unmapped slots, texels past memory, an unmodeled
// sampler, registers past the thread's) and checks each kind; returns the number wrong.
int check_faults(const tld4_exec *exec, const tld4_pool *pool, GpuMemory &mem, Driver &driver,
                 const Operands &op);

}  // namespace sim
