#include "sm.hpp"

#include <algorithm>
#include <stdexcept>

#include "tld4_helpers.hpp"

namespace sim {

Operands operands_of(const tld4_insn *insn) {
  tld4_error e;
  Operands op;
  tld4_used_register used[TLD4_MAX_USED_REGISTERS];
  size_t n = 0;
  ok(tld4_insn_used_registers(insn, used, TLD4_MAX_USED_REGISTERS, &n, &e), e, "used registers");
  op.used.assign(used, used + n);
  tld4_operand_layout layout;
  ok(tld4_insn_operand_layout(insn, &layout, &e), e, "operand layout");
  if (layout.coords != 2 || layout.ra == 255)
    throw std::runtime_error("the toy SM runs 2D gathers with coordinates in registers");
  op.u_reg = layout.ra + layout.coords_at;
  op.v_reg = op.u_reg + 1;
  tld4_operand_vector vec[TLD4_MAX_OPERAND_VECTORS];
  ok(tld4_insn_operand_vectors(insn, vec, TLD4_MAX_OPERAND_VECTORS, &n, &e), e, "operands");
  for (size_t i = 0; i < n; i++)
    if (vec[i].role == TLD4_ROLE_RD || vec[i].role == TLD4_ROLE_RD2)
      for (uint32_t k = 0; k < vec[i].count; k++) op.dests.push_back(vec[i].first + k);
  bool handle = false;
  for (const tld4_used_register &r : op.used)
    if (r.role == TLD4_ROLE_HANDLE && r.file == TLD4_FILE_UREG) {
      op.handle_ureg = r.number;
      handle = true;
    }
  if (!handle || op.dests.size() != 4)
    throw std::runtime_error("the toy SM runs TLD4s with a uniform handle and four results");
  return op;
}

void Scoreboard::reset() {
  std::fill(std::begin(reg_), std::end(reg_), 0);
  std::fill(std::begin(ureg_), std::end(ureg_), 0);
  std::fill(std::begin(pred_), std::end(pred_), 0);
}

uint64_t &Scoreboard::slot(const tld4_used_register &r) {
  switch (r.file) {
    case TLD4_FILE_UREG: return ureg_[r.number];
    case TLD4_FILE_PRED: return pred_[r.number & 7];
    case TLD4_FILE_REG: break;
  }
  return reg_[r.number];
}

uint64_t Scoreboard::slot(const tld4_used_register &r) const {
  return const_cast<Scoreboard *>(this)->slot(r);
}

uint64_t Scoreboard::issue_cycle(const std::vector<tld4_used_register> &regs,
                                 uint64_t earliest) const {
  uint64_t at = earliest;
  for (const tld4_used_register &r : regs) at = std::max(at, slot(r));
  return at;
}

void Scoreboard::write(const std::vector<tld4_used_register> &regs, uint64_t cycle) {
  for (const tld4_used_register &r : regs)
    if (r.access == TLD4_ACCESS_COND_WRITE) slot(r) = cycle;
}

bool SectorCache::access(uint64_t sector_address) {
  const uint64_t sector = sector_address / 32, tag = sector + 1;
  const uint32_t set = static_cast<uint32_t>(sector % sets_);
  uint64_t *tags = &tags_[size_t{set} * ways_], *age = &age_[size_t{set} * ways_];
  ++clock_;
  uint32_t victim = 0;
  for (uint32_t w = 0; w < ways_; w++) {
    if (tags[w] == tag) {
      age[w] = clock_;
      ++hits;
      return true;
    }
    if (age[w] < age[victim]) victim = w;
  }
  tags[victim] = tag;
  age[victim] = clock_;
  ++misses;
  return false;
}

}  // namespace sim
