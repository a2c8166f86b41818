#include "gpu.hpp"

#include <cstring>
#include <stdexcept>

#include "tld4_helpers.hpp"

namespace sim {

uint64_t GpuMemory::alloc(size_t bytes, uint64_t align) {
  const uint64_t at = (next_ + align - 1) & ~(align - 1);
  if (at + bytes > end()) throw std::runtime_error("GPU memory image full");
  next_ = at + bytes;
  return at;
}

void GpuMemory::write_words(uint64_t addr, const uint32_t words[8]) {
  uint8_t *p = at(addr);
  for (int k = 0; k < 8; k++)
    for (int b = 0; b < 4; b++) p[4 * k + b] = static_cast<uint8_t>(words[k] >> (8 * b));
}

bool GpuMemory::read(uint64_t addr, void *dst, size_t len) const {
  if (addr < base_ || addr - base_ > bytes_.size() || len > bytes_.size() - (addr - base_))
    return false;
  std::memcpy(dst, bytes_.data() + (addr - base_), len);
  return true;
}

tld4_memory GpuMemory::flat() const {
  return tld4_memory{TLD4_MEMORY_FLAT, base_, bytes_.data(), bytes_.size(), nullptr, nullptr};
}

Driver::Driver(GpuMemory &mem, uint32_t headers, uint32_t samplers)
    : mem_(mem), headers_(headers), samplers_(samplers) {
  header_pool_ = mem.alloc(32 * size_t{headers}, 32);
  sampler_pool_ = mem.alloc(32 * size_t{samplers}, 32);
}

Placed Driver::add_texture(uint32_t index, const tld4_texture_desc &desc,
                           const std::vector<uint32_t> &fields, uint32_t layout,
                           uint32_t param) {
  tld4_error e;
  size_t extent = 0;
  // The extent first (cap 0: TLD4_ERR_BUFFER_TOO_SMALL), at an address any layout accepts.
  const uint64_t probe = 0;
  tld4_status s = tld4_texels_write(&desc, fields.data(), fields.size(), layout, param, probe,
                                    nullptr, 0, &extent, nullptr, &e);
  if (s != TLD4_ERR_BUFFER_TOO_SMALL) throw Tld4Failure("texel extent", e);
  Placed p{};
  p.texels = mem_.alloc(extent, 512);
  p.extent = extent;
  ok(tld4_texels_write(&desc, fields.data(), fields.size(), layout, param, p.texels,
                       mem_.at(p.texels), extent, &extent, &p.header, &e),
     e, "texels");
  set_header(index, p.header);
  return p;
}

void Driver::put(uint64_t pool, uint32_t slots, uint32_t index, const uint32_t words[8]) {
  if (index >= slots) throw std::runtime_error("descriptor slot past its pool");
  mem_.write_words(pool + 32 * uint64_t{index}, words);
}

void Driver::set_header(uint32_t index, const tld4_tic_desc &header) {
  tld4_error e;
  uint32_t words[8];
  ok(tld4_tic_encode(&header, words, &e), e, "texture header");
  put(header_pool_, headers_, index, words);
}

void Driver::set_sampler(uint32_t index, const tld4_tsc_desc &sampler) {
  tld4_error e;
  uint32_t words[8];
  ok(tld4_tsc_encode(&sampler, words, &e), e, "sampler");
  put(sampler_pool_, samplers_, index, words);
}

}  // namespace sim
