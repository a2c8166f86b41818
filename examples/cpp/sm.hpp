// The toy SM: its own register file per warp slot (uint32_t regs[255][32]), a scoreboard
// built from the instruction's operand lists, and a small sector cache fed with each warp's
// distinct 32-byte sectors.
#pragma once

#include <cstdint>
#include <vector>

#include "tld4.h"

namespace sim {

// What the SM needs of one TLD4, all from the C ABI's operand lists and layout.
struct Operands {
  std::vector<tld4_used_register> used;  // every register read or written
  uint32_t u_reg = 0, v_reg = 0;         // Ra's coordinates u, v (tld4_insn_operand_layout)
  uint32_t handle_ureg = 0;              // the uniform register holding the handle
  std::vector<uint32_t> dests;           // result k (x, y, z, w) lands in dests[k]
};
Operands operands_of(const tld4_insn *insn);

// A warp slot: the simulator's own storage, handed to tld4 as flat arrays (register-major,
// as the hardware's register file banks them), predicates by pointer.
struct WarpSlot {
  uint32_t regs[255][32];
  uint32_t preds[7];
  uint32_t uregs[64];
  uint32_t active;
  tld4_warp_flat flat(uint32_t num_regs = 255) {
    return tld4_warp_flat{&regs[0][0], num_regs, 32, 1, preds, uregs, 64, active};
  }
};

// The cycle at which each register's pending value is ready, for one warp.
class Scoreboard {
 public:
  void reset();
  // The first cycle from `earliest` at which every register in `regs` is ready: the
  // sources (read after write) and the destinations (write after write).
  uint64_t issue_cycle(const std::vector<tld4_used_register> &regs, uint64_t earliest) const;
  // The destinations in `regs` become ready at `cycle`.
  void write(const std::vector<tld4_used_register> &regs, uint64_t cycle);
  // The cycle at which general register `r` is ready.
  uint64_t reg_ready(uint32_t r) const { return reg_[r]; }

 private:
  uint64_t &slot(const tld4_used_register &r);
  uint64_t slot(const tld4_used_register &r) const;
  uint64_t reg_[256] = {}, ureg_[256] = {}, pred_[8] = {};
};

// A set-associative cache of 32-byte sectors with LRU replacement.
class SectorCache {
 public:
  SectorCache(uint32_t sets, uint32_t ways) : sets_(sets), ways_(ways), tags_(sets * ways), age_(sets * ways) {}
  // True on a hit; a miss fills the sector.
  bool access(uint64_t sector_address);
  uint64_t hits = 0, misses = 0;

 private:
  uint32_t sets_, ways_;
  std::vector<uint64_t> tags_;  // sector number + 1; 0 is empty
  std::vector<uint64_t> age_;
  uint64_t clock_ = 0;
};

}  // namespace sim
