// tld4 from C++17: a tiny simulator loop. It takes the TLD4 that ptxas compiled into the
// kernel `one_gather` (tests/cubins/one_gather.sm100.cubin, offset 0x90:
// `TLD4.G R6, R4, R4, UR4, 2D`), finds its operands through the C ABI, and executes it for
// many warps over its own register storage through the callback interface, checking every
// lane against values it computes itself from the texture it made. Then it lays the texture
// out as GPU memory and runs every warp again in the memory form (a flat range, then a read
// callback), checking the results against the owned run and each lane's texel addresses.
// Usage: simulator CUBIN (examples/build-and-run.sh passes the committed cubin).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tld4.h"

namespace {

constexpr int kSize = 32;   // texture width and height
constexpr int kWarps = 32;  // tid.y = warp index, tid.x = lane, as the kernel's 32x32 block
constexpr int kRounds = 50; // the simulator loop runs every warp this often
constexpr uint32_t kRegs = 16;

// The texture's G channel at (x, y).
uint32_t green(int x, int y) { return static_cast<uint32_t>((7 * x + 3 * y) & 0xff); }
int wrap(int v) { return ((v % kSize) + kSize) % kSize; }

// Throws with the error record's message unless the call succeeded.
void ok(tld4_status s, const tld4_error &e, const char *what) {
  if (s != TLD4_OK) throw std::runtime_error(std::string(what) + ": " + e.message);
}

// RAII owners of the C objects (create/free pairs).
struct PoolFree { void operator()(tld4_pool *p) const { tld4_pool_free(p); } };
struct InsnFree { void operator()(tld4_insn *p) const { tld4_insn_free(p); } };
struct ExecFree { void operator()(tld4_exec *p) const { tld4_exec_free(p); } };

// The simulator's own per-warp storage: registers lane-major, predicates a bit mask per lane.
struct Warp {
  std::vector<uint32_t> regs = std::vector<uint32_t>(32 * kRegs, 0);
  uint8_t preds[32] = {};
  uint32_t uregs[64] = {};
  uint32_t &reg(uint32_t lane, uint32_t r) { return regs[lane * kRegs + r]; }
  uint32_t reg(uint32_t lane, uint32_t r) const { return regs[lane * kRegs + r]; }
};

extern "C" {
uint32_t cb_reg(void *user, uint32_t lane, uint32_t r) {
  return static_cast<Warp *>(user)->reg(lane, r);
}
void cb_set_reg(void *user, uint32_t lane, uint32_t r, uint32_t value) {
  static_cast<Warp *>(user)->reg(lane, r) = value;
}
bool cb_pred(void *user, uint32_t lane, uint32_t p) {
  return (static_cast<Warp *>(user)->preds[lane] >> p & 1) != 0;
}
void cb_set_pred(void *user, uint32_t lane, uint32_t p, bool value) {
  uint8_t &b = static_cast<Warp *>(user)->preds[lane];
  b = static_cast<uint8_t>((b & ~(1u << p)) | (static_cast<uint32_t>(value) << p));
}
uint32_t cb_ureg(void *user, uint32_t u) {
  return u < 64 ? static_cast<Warp *>(user)->uregs[u] : 0;
}
}

// GPU memory as the simulator holds it: one byte vector at a base address, read through the
// callback form of tld4_memory (the flat form needs no callback).
struct GpuMemory {
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

extern "C" int cb_read(void *user, uint64_t addr, uint8_t *dst, size_t len) {
  const GpuMemory &m = *static_cast<const GpuMemory *>(user);
  if (addr < m.base || addr - m.base > m.bytes.size() || len > m.bytes.size() - (addr - m.base))
    return 1;  // not mapped: tld4 reports TLD4_ERR_MEMORY with this value
  std::memcpy(dst, m.bytes.data() + (addr - m.base), len);
  return 0;
}

// The same textures in GPU memory: tld4_pool_image lays texture header 3 and sampler 1 out
// (block-linear) as texture header 0 and sampler 0 at kBase, and every warp runs again in the
// memory form, once over the flat range and once through the read callback. Both must write
// what the owned-texture run wrote (`owned`), and each lane's texel addresses must hold the
// texels it gathered.
int run_memory(const tld4_exec *exec, const tld4_pool *pool, int ra, int handle_ur,
               const std::vector<uint32_t> &dests, const std::vector<Warp> &owned) {
  constexpr uint64_t kBase = 0x7f0000000ull;
  tld4_error e;
  tld4_image_entry entry{3, 1, TLD4_LAYOUT_BLOCK_LINEAR, 0};
  size_t size = 0;
  uint64_t header_pool = 0, sampler_pool = 0;
  if (tld4_pool_image(pool, &entry, 1, kBase, nullptr, 0, &size, &header_pool, &sampler_pool,
                      &e) != TLD4_ERR_BUFFER_TOO_SMALL)
    throw std::runtime_error(std::string("image size: ") + e.message);
  GpuMemory gpu;
  gpu.base = kBase;
  gpu.bytes.resize(size);
  ok(tld4_pool_image(pool, &entry, 1, kBase, gpu.bytes.data(), size, &size, &header_pool,
                     &sampler_pool, &e),
     e, "pool image");
  uint32_t handle = 0;
  ok(tld4_handle(0, 0, &handle, &e), e, "handle");
  std::printf("memory image: %zu bytes at 0x%llx, header pool 0x%llx, sampler pool 0x%llx\n",
              size, static_cast<unsigned long long>(kBase),
              static_cast<unsigned long long>(header_pool),
              static_cast<unsigned long long>(sampler_pool));

  tld4_memory flat{TLD4_MEMORY_FLAT, kBase, gpu.bytes.data(), gpu.bytes.size(), nullptr,
                   nullptr};
  tld4_memory callback{TLD4_MEMORY_CALLBACK, 0, nullptr, 0, &gpu, cb_read};
  long checked = 0, failures = 0, texels_checked = 0;
  for (const tld4_memory *mem : {&flat, &callback}) {
    for (int w = 0; w < kWarps; w++) {
      Warp warp;
      warp.uregs[handle_ur] = handle;
      for (uint32_t lane = 0; lane < 32; lane++) {
        float u = static_cast<float>(lane) * 0.03125f, v = static_cast<float>(w) * 0.03125f;
        std::memcpy(&warp.reg(lane, ra), &u, 4);
        std::memcpy(&warp.reg(lane, ra + 1), &v, 4);
      }
      tld4_regfile rf{&warp, cb_reg, cb_set_reg, cb_pred, cb_set_pred, cb_ureg, ~0u, kRegs};
      tld4_lane_texels texels[32];
      tld4_exec_report report;
      ok(tld4_exec_run_callbacks_memory(exec, mem, header_pool, sampler_pool, &rf, texels,
                                        &report, &e),
         e, "execute (memory)");
      for (uint32_t lane = 0; lane < 32; lane++) {
        for (int k = 0; k < 4; k++) {
          uint32_t got = warp.reg(lane, dests[k]);
          uint32_t want = owned[w].reg(lane, dests[k]);
          checked++;
          if (got != want && failures++ < 10)
            std::fprintf(stderr, "memory: warp %d lane %u R%u = %u, owned run %u\n", w, lane,
                         dests[k], got, want);
          // RGBA8_UINT: the texel's G byte at its address is the raw result.
          const tld4_texel_address &t = texels[lane].texels[k];
          if (t.kind != TLD4_TEXEL_MEMORY || t.bytes != 4) {
            if (failures++ < 10)
              std::fprintf(stderr, "lane %u: texel %d not in memory\n", lane, k);
            continue;
          }
          uint8_t rgba[4];
          if (cb_read(&gpu, t.address, rgba, 4) != 0 || rgba[1] != got) {
            if (failures++ < 10)
              std::fprintf(stderr, "lane %u texel %d at 0x%llx does not hold %u\n", lane, k,
                           static_cast<unsigned long long>(t.address), got);
          }
          texels_checked++;
        }
      }
      if (w == 1 && mem == &flat) {
        const tld4_lane_texels &t = texels[5];
        std::printf("warp 1 lane 5 texels (x, y, z, w):");
        for (const tld4_texel_address &a : t.texels)
          std::printf(" 0x%llx", static_cast<unsigned long long>(a.address));
        std::printf(", %u sector(s):", t.num_sectors);
        for (uint32_t k = 0; k < t.num_sectors; k++)
          std::printf(" 0x%llx", static_cast<unsigned long long>(t.sectors[k]));
        std::printf("\n");
      }
    }
  }
  if (failures) {
    std::printf("FAIL (memory form): %ld problems in %ld results\n", failures, checked);
    return 1;
  }
  std::printf("PASS (memory form, flat range and read callback): %ld results equal the owned run, "
              "%ld texel addresses hold the texels gathered\n",
              checked, texels_checked);
  return 0;
}

int run(const char *cubin) {
  tld4_error e;
  tld4_word word;
  tld4_insn *raw_insn = nullptr;
  ok(tld4_cubin_find_file(cubin, "one_gather", 0x90, &word, &raw_insn, &e), e, "cubin");
  std::unique_ptr<tld4_insn, InsnFree> insn(raw_insn);
  char text[128];
  ok(tld4_insn_text(insn.get(), text, sizeof text, nullptr, &e), e, "text");
  std::printf("one_gather+0x90: %s\n", text);

  // Operands, from the instruction: Ra (u, v), the handle's uniform register, Rd and Rd2.
  tld4_operand_vector vec[TLD4_MAX_OPERAND_VECTORS];
  size_t nvec = 0;
  ok(tld4_insn_operand_vectors(insn.get(), vec, TLD4_MAX_OPERAND_VECTORS, &nvec, &e), e,
     "operands");
  tld4_used_register used[TLD4_MAX_USED_REGISTERS];
  size_t nused = 0;
  ok(tld4_insn_used_registers(insn.get(), used, TLD4_MAX_USED_REGISTERS, &nused, &e), e,
     "used registers");
  int ra = -1, handle_ur = -1;
  std::vector<uint32_t> dests;  // result k lands in dests[k]
  for (size_t i = 0; i < nvec; i++) {
    if (vec[i].role == TLD4_ROLE_RA) ra = vec[i].first;
    if (vec[i].role == TLD4_ROLE_RD || vec[i].role == TLD4_ROLE_RD2)
      for (uint32_t k = 0; k < vec[i].count; k++) dests.push_back(vec[i].first + k);
  }
  for (size_t i = 0; i < nused; i++)
    if (used[i].role == TLD4_ROLE_HANDLE) handle_ur = used[i].number;
  if (ra < 0 || handle_ur < 0 || dests.size() != 4)
    throw std::runtime_error("unexpected operands");
  std::printf("Ra = R%d, handle in UR%d, results in R%u R%u R%u R%u\n", ra, handle_ur,
              dests[0], dests[1], dests[2], dests[3]);

  // A 32x32 RGBA8_UINT texture, repeat addressing.
  tld4_pool *raw_pool = nullptr;
  ok(tld4_pool_new(&raw_pool, &e), e, "pool");
  std::unique_ptr<tld4_pool, PoolFree> pool(raw_pool);
  std::vector<uint32_t> texels;
  for (int y = 0; y < kSize; y++)
    for (int x = 0; x < kSize; x++)
      texels.insert(texels.end(), {static_cast<uint32_t>(x), green(x, y), 0u, 255u});
  tld4_texture_desc desc{TLD4_KIND_2D, "rgba8_uint", kSize, kSize, 1};
  ok(tld4_pool_set_texture(pool.get(), 3, &desc, texels.data(), texels.size(), &e), e,
     "texture");
  tld4_sampler_desc sampler;
  ok(tld4_sampler_default(&sampler, &e), e, "sampler");
  sampler.address_u = sampler.address_v = 0;  // VK_SAMPLER_ADDRESS_MODE_REPEAT
  ok(tld4_pool_set_sampler(pool.get(), 1, &sampler, &e), e, "sampler");
  uint32_t handle = 0;
  ok(tld4_handle(3, 1, &handle, &e), e, "handle");

  tld4_exec *raw_exec = nullptr;
  ok(tld4_exec_new(insn.get(), nullptr, &raw_exec, &e), e, "exec");
  std::unique_ptr<tld4_exec, ExecFree> exec(raw_exec);
  ok(tld4_exec_check(exec.get(), kRegs, &e), e, "check");

  // The simulator loop: every round, every warp runs the kernel's prologue (u = tid.x / 32,
  // v = tid.y / 32, as its FMULs by 0.03125) and then the TLD4.
  std::vector<Warp> warps(kWarps);
  long checked = 0, failures = 0;
  for (int round = 0; round < kRounds; round++) {
    for (int w = 0; w < kWarps; w++) {
      Warp &warp = warps[w];
      warp.uregs[handle_ur] = handle;
      for (uint32_t lane = 0; lane < 32; lane++) {
        float u = static_cast<float>(lane) * 0.03125f, v = static_cast<float>(w) * 0.03125f;
        std::memcpy(&warp.reg(lane, ra), &u, 4);
        std::memcpy(&warp.reg(lane, ra + 1), &v, 4);
      }
      tld4_regfile rf{&warp, cb_reg, cb_set_reg, cb_pred, cb_set_pred, cb_ureg, ~0u, kRegs};
      tld4_exec_report report;
      ok(tld4_exec_run_callbacks(exec.get(), pool.get(), &rf, &report, &e), e, "execute");
      if (report.executed != ~0u) throw std::runtime_error("not every lane executed");
      // u * 32 - 0.5 = lane - 0.5: i0 = lane - 1, j0 = w - 1; x, y, z, w = (i0, j1), (i1, j1),
      // (i1, j0), (i0, j0), wrapped by repeat.
      for (int lane = 0; lane < 32; lane++) {
        int i0 = lane - 1, j0 = w - 1;
        const int px[4] = {i0, i0 + 1, i0 + 1, i0}, py[4] = {j0 + 1, j0 + 1, j0, j0};
        for (int k = 0; k < 4; k++) {
          uint32_t expect = green(wrap(px[k]), wrap(py[k]));
          uint32_t got = warp.reg(lane, dests[k]);
          checked++;
          if (got != expect && failures++ < 10)
            std::fprintf(stderr, "warp %d lane %d R%u = %u, expected %u\n", w, lane, dests[k],
                         got, expect);
        }
      }
    }
  }
  if (failures) {
    std::printf("FAIL: %ld of %ld results wrong\n", failures, checked);
    return 1;
  }
  std::printf("PASS: %d rounds x %d warps x 32 lanes, %ld results\n", kRounds, kWarps, checked);
  return run_memory(exec.get(), pool.get(), ra, handle_ur, dests, warps);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CUBIN\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception &ex) {
    std::printf("FAIL: %s\n", ex.what());
    return 1;
  }
}
