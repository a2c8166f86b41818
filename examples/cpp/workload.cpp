#include "workload.hpp"

#include <cstring>

#include "texel_formula.hpp"

namespace sim {

TextureInfo textures[kTextures] = {
    {64, 64, true, kPitch, true},
    {64, 32, false, 1, false},
};

int texture_of(uint64_t w) { return static_cast<int>(w / 16 % kTextures); }

uint32_t active_of(uint64_t w) {
  if (w % 7 != 3) return ~0u;
  return ~(1u << (w % 32) | 1u << (w * 13 % 32));
}

void lane_texel(uint64_t w, uint32_t lane, const TextureInfo &t, int *i, int *j) {
  *i = static_cast<int>((lane + 3 * w) % t.width);
  *j = static_cast<int>((5 * w + lane / 8) % t.height);
}

namespace {
// The f32 bits of lane `lane`'s coordinate u (axis 0) or v (axis 1).
uint32_t coord_bits(uint64_t w, uint32_t lane, int axis) {
  const TextureInfo &t = textures[texture_of(w)];
  int i, j;
  lane_texel(w, lane, t, &i, &j);
  const float c = axis == 0 ? (static_cast<float>(i) + 0.75f) / static_cast<float>(t.width)
                            : (static_cast<float>(j) + 0.75f) / static_cast<float>(t.height);
  uint32_t bits;
  std::memcpy(&bits, &c, 4);
  return bits;
}
}  // namespace

uint32_t before(uint64_t w, uint32_t lane, uint32_t r, const Operands &op) {
  if (r == op.u_reg) return coord_bits(w, lane, 0);
  if (r == op.v_reg) return coord_bits(w, lane, 1);
  return kSentinel;
}

void set_up(WarpSlot &slot, uint64_t w, const Operands &op) {
  slot.active = active_of(w);
  slot.uregs[op.handle_ureg] = textures[texture_of(w)].handle;
  for (uint32_t lane = 0; lane < 32; lane++) {
    for (uint32_t d : op.dests) slot.regs[d][lane] = kSentinel;
    slot.regs[op.u_reg][lane] = coord_bits(w, lane, 0);
    slot.regs[op.v_reg][lane] = coord_bits(w, lane, 1);
  }
}

Footprint footprint(uint64_t w, uint32_t lane) {
  const TextureInfo &t = textures[texture_of(w)];
  int i, j;
  lane_texel(w, lane, t, &i, &j);
  const int px[4] = {i, i + 1, i + 1, i}, py[4] = {j + 1, j + 1, j, j};
  const int W = static_cast<int>(t.width), H = static_cast<int>(t.height);
  Footprint f;
  for (int k = 0; k < 4; k++) {
    f.x[k] = t.wrap ? wrap(px[k], W) : clamp(px[k], W);
    f.y[k] = t.wrap ? wrap(py[k], H) : clamp(py[k], H);
  }
  return f;
}

uint32_t expected_value(uint64_t w, const Footprint &f, int k) {
  return green(static_cast<uint32_t>(texture_of(w)), f.x[k], f.y[k]);
}

uint64_t expected_address(uint64_t w, const Footprint &f, int k) {
  const TextureInfo &t = textures[texture_of(w)];
  if (t.pitch) {
    const uint32_t pitch = (t.width * 4 + t.param - 1) / t.param * t.param;
    return t.texels + pitch_offset(f.x[k], f.y[k], pitch, 4);
  }
  return t.texels + block_linear_offset(f.x[k], f.y[k], t.width, 4, t.param);
}

}  // namespace sim
