// The toy SM's workload: the textures its driver writes, the warps it runs (coordinates,
// active lanes, handles), and what every lane must read, computed here from texel_formula.hpp.
#pragma once

#include <cstdint>

#include "sm.hpp"
#include "tld4.h"

namespace sim {

// The two textures: 0 is 64 x 64 pitch (rows 512 bytes apart) with sampler 0 (wrap); 1 is
// 64 x 32 block-linear (2 GOBs a block) with sampler 1 (clamp to edge). RGBA8_UINT.
struct TextureInfo {
  uint32_t width, height;
  bool pitch;          // else block-linear
  uint32_t param;      // pitch row alignment in bytes, or log2 GOBs a block
  bool wrap;           // else clamp to edge
  uint64_t texels = 0; // where the driver placed them
  uint32_t handle = 0;
};
constexpr int kTextures = 2;
constexpr uint32_t kPitch = 512;
extern TextureInfo textures[kTextures];

constexpr uint32_t kSentinel = 0xdeadbeef;  // destinations before the TLD4

// Warp `w`'s texture, active lanes and lane coordinates (texel (i, j) + (0.75, 0.75): the
// footprint is exactly i..i+1, j..j+1, free of rounding).
int texture_of(uint64_t w);
uint32_t active_of(uint64_t w);
void lane_texel(uint64_t w, uint32_t lane, const TextureInfo &t, int *i, int *j);

// Writes warp `w`'s coordinates, handle and sentinel destinations into `slot`.
void set_up(WarpSlot &slot, uint64_t w, const Operands &op);
// What set_up wrote into register `r` of `lane` (a coordinate, or the sentinel): what a lane
// that does not execute still holds after the TLD4.
uint32_t before(uint64_t w, uint32_t lane, uint32_t r, const Operands &op);

// The footprint of lane `lane` of warp `w`, in result order (x, y, z, w), after wrap/clamp.
struct Footprint {
  uint32_t x[4], y[4];
};
Footprint footprint(uint64_t w, uint32_t lane);

// Expected value and address of result k of that footprint.
uint32_t expected_value(uint64_t w, const Footprint &f, int k);
uint64_t expected_address(uint64_t w, const Footprint &f, int k);

}  // namespace sim
