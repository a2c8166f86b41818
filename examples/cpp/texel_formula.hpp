// What the toy SM expects, computed here from the texture's own definition and the published
// layout and footprint rules, never by tld4: the texels' values, the footprint of a lane, the
// address rules (docs/sources.md, Block-linear layout) and the address modes.
#pragma once

#include <algorithm>
#include <cstdint>

namespace sim {

// Texture t's texel (x, y) is RGBA8_UINT (x, green, y, t); TLD4.G gathers the green channel.
inline uint32_t green(uint32_t t, uint32_t x, uint32_t y) { return (7 * x + 3 * y + 11 * t) & 0xff; }

// REPEAT / WRAP and CLAMP_TO_EDGE of an integer texel coordinate.
inline uint32_t wrap(int v, int n) { return static_cast<uint32_t>(((v % n) + n) % n); }
inline uint32_t clamp(int v, int n) { return static_cast<uint32_t>(std::clamp(v, 0, n - 1)); }

// Byte offset of (x, y) in a pitch layout.
inline uint64_t pitch_offset(uint32_t x, uint32_t y, uint32_t pitch, uint32_t bytes) {
  return uint64_t{y} * pitch + uint64_t{x} * bytes;
}

// Byte offset of (x, y) (layer 0) in a block-linear layout with 2^k GOBs a block height:
// (y / R) * (W * R) + (xb / 64) * (64 * R) + ((y % R) / 8) * 512 + gob(xb % 64, y % 8), with
// R = 8 * 2^k rows a block, W the width in bytes rounded up to 64, and inside a GOB the
// offset's bits, lowest first, x0 x1 x2 x3 y0 y1 x4 y2 x5 (xb in bytes).
inline uint64_t block_linear_offset(uint32_t x, uint32_t y, uint32_t width, uint32_t bytes,
                                    uint32_t k) {
  const uint64_t xb = uint64_t{x} * bytes, R = 8ull << k;
  const uint64_t W = (uint64_t{width} * bytes + 63) / 64 * 64;
  const uint64_t gx = xb % 64, gy = y % 8;
  const uint64_t gob = (gx % 16) | (gy % 2) << 4 | (gy / 2 % 2) << 5 | (gx / 16 % 2) << 6 |
                       (gy / 4) << 7 | (gx / 32) << 8;
  return (y / R) * (W * R) + (xb / 64) * (64 * R) + ((y % R) / 8) * 512 + gob;
}

}  // namespace sim
