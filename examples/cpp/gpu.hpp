// The toy SM's GPU memory and driver: one flat byte image at a base address, a bump allocator
// over it, and a driver that lays texels out with tld4_texels_write and writes texture
// headers and samplers into its pools with tld4_tic_encode / tld4_tsc_encode, at the slots
// it chooses (other slots stay zero: an empty slot).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tld4.h"

namespace sim {

class GpuMemory {
 public:
  GpuMemory(uint64_t base, size_t size) : base_(base), bytes_(size, 0), next_(base) {}
  uint64_t base() const { return base_; }
  uint64_t end() const { return base_ + bytes_.size(); }
  // `bytes` at an address aligned to `align` (a power of two); throws when full.
  uint64_t alloc(size_t bytes, uint64_t align);
  uint8_t *at(uint64_t addr) { return bytes_.data() + (addr - base_); }
  // Eight little-endian words (a 32-byte descriptor) at `addr`.
  void write_words(uint64_t addr, const uint32_t words[8]);
  // A copy of `len` bytes at `addr`; false where not mapped.
  bool read(uint64_t addr, void *dst, size_t len) const;
  // The image as tld4 reads it: a flat range (texels are then read in place).
  tld4_memory flat() const;

 private:
  uint64_t base_;
  std::vector<uint8_t> bytes_;
  uint64_t next_;
};

// A texture the driver placed: where its texels start, their extent, its header.
struct Placed {
  uint64_t texels;
  size_t extent;
  tld4_tic_desc header;
};

class Driver {
 public:
  // Pools of `headers` texture headers and `samplers` samplers, 32 bytes each, zeroed.
  Driver(GpuMemory &mem, uint32_t headers, uint32_t samplers);
  uint64_t header_pool() const { return header_pool_; }
  uint64_t sampler_pool() const { return sampler_pool_; }
  // Lays the texels out (`layout`, `param` as tld4_texels_write takes them) in new memory
  // and writes the header describing them at slot `index`.
  Placed add_texture(uint32_t index, const tld4_texture_desc &desc,
                     const std::vector<uint32_t> &fields, uint32_t layout, uint32_t param);
  void set_header(uint32_t index, const tld4_tic_desc &header);
  void set_sampler(uint32_t index, const tld4_tsc_desc &sampler);

 private:
  // Stores an entry's eight words at slot `index` of the pool at `pool` (`slots` long).
  void put(uint64_t pool, uint32_t slots, uint32_t index, const uint32_t words[8]);
  GpuMemory &mem_;
  uint64_t header_pool_, sampler_pool_;
  uint32_t headers_, samplers_;
};

}  // namespace sim
