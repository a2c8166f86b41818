// One form's run of the toy SM: kWarps warps through kSlots warp slots, a batch of slots per
// tld4 call, each warp's texel records merged into sectors for the cache and its results
// released through the scoreboard; every lane checked against workload.hpp.
#pragma once

#include <cstdint>

#include "sm.hpp"
#include "tld4.h"

namespace sim {

constexpr uint64_t kWarps = 10000;
constexpr uint32_t kSlots = 8;

struct FormStats {
  uint64_t warps = 0, lanes_checked = 0, failures = 0;
  double tld4_seconds = 0, total_seconds = 0;  // in tld4's calls; the whole loop, checks too
  uint64_t lane_sectors = 0, warp_sectors = 0;  // per-lane sector references; distinct a warp
  uint64_t hits = 0, misses = 0;
  uint64_t tld4_cycles = 0, stall_cycles = 0;  // summed over warps
};

// Runs every warp over `bound` (bound to the memory image if `memory`). With `addresses`,
// tld4 writes each lane's texel records: checked (addresses in the memory form, none in the
// owned form), merged into the warp's sectors and fed to the cache.
FormStats run_form(tld4_bound *bound, bool memory, bool addresses, const Operands &op);

}  // namespace sim
