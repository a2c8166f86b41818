// tld4 in a toy SM, from C++17, built only through the installed CMake package
// (find_package(tld4)): the TLD4 of the kernel `one_gather` read from its cubin
// (tests/cubins/one_gather.sm100.cubin, offset 0x90: `TLD4.G R6, R4, R4, UR4, 2D`), a flat
// GPU memory image at a base address whose texture-header and sampler pools the SM's driver
// writes with tld4's encoders, warp slots with their own `uint32_t regs[255][32]`, a
// scoreboard built from the operand lists, and each warp's texel addresses merged into its
// distinct 32-byte sectors for a small cache. 10,000 warps run bound to the owned textures,
// then bound to the memory image; every lane is checked against values and addresses this
// program computes itself (texel_formula.hpp), and every failure case is mapped to the SM's
// own fault kinds from the error record alone (faults.cpp).
// Usage: simulator CUBIN [ROUNDS]: ROUNDS (default 1) runs of each form, their median rate
// printed with the range. Prints PASS or FAIL; exits 1 on failure.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "faults.hpp"
#include "gpu.hpp"
#include "run.hpp"
#include "texel_formula.hpp"
#include "sm.hpp"
#include "tld4_helpers.hpp"
#include "workload.hpp"

namespace {

using namespace sim;

constexpr uint64_t kBase = 0x7f0000000000ull;  // where the SM's GPU memory image starts
constexpr size_t kImage = 64 * 1024;

// Texture t's texels as tld4_texels_write and tld4_pool_set_texture take them.
std::vector<uint32_t> fields_of(uint32_t t) {
  const TextureInfo &ti = textures[t];
  std::vector<uint32_t> f;
  for (uint32_t y = 0; y < ti.height; y++)
    for (uint32_t x = 0; x < ti.width; x++) f.insert(f.end(), {x, green(t, x, y), y, t});
  return f;
}

// One form's rounds: the last round's counts, and the rate in tld4 over every round.
struct Rounds {
  FormStats last;
  uint64_t failures = 0;
  std::vector<double> rates;  // warps/s in tld4, one a round
};

void add(Rounds &r, const FormStats &s) {
  r.last = s;
  r.failures += s.failures;
  r.rates.push_back(s.warps / s.tld4_seconds);
}

void print(const char *form, Rounds r) {
  std::sort(r.rates.begin(), r.rates.end());
  const double median = r.rates[r.rates.size() / 2];
  std::printf("%-24s: %llu warps, %llu lanes checked, %llu wrong; %.0f warps/s in tld4",
              form, static_cast<unsigned long long>(r.last.warps),
              static_cast<unsigned long long>(r.last.lanes_checked),
              static_cast<unsigned long long>(r.failures), median);
  if (r.rates.size() > 1)
    std::printf(" (median of %zu rounds, %.0f-%.0f)", r.rates.size(), r.rates.front(),
                r.rates.back());
  std::printf(", %.0f for the SM's whole loop with checks\n",
              r.last.warps / r.last.total_seconds);
}

int run(const char *cubin, int rounds) {
  tld4_error e;
  std::printf("tld4 %s (header %d.%d.%d)\n", tld4_version(), TLD4_VERSION_MAJOR,
              TLD4_VERSION_MINOR, TLD4_VERSION_PATCH);
  tld4_word word;
  tld4_insn *raw_insn = nullptr;
  ok(tld4_cubin_find_file(cubin, "one_gather", 0x90, &word, &raw_insn, &e), e, "cubin");
  Insn insn(raw_insn);
  char text[128];
  ok(tld4_insn_text(insn.get(), text, sizeof text, nullptr, &e), e, "text");
  const Operands op = operands_of(insn.get());
  std::printf("one_gather+0x90: %s  (u, v in R%u, R%u; handle in UR%u; results in R%u R%u R%u R%u)\n",
              text, op.u_reg, op.v_reg, op.handle_ureg, op.dests[0], op.dests[1], op.dests[2],
              op.dests[3]);

  // The driver: pools of 8 headers and 4 samplers, then each texture's texels and header.
  GpuMemory mem(kBase, kImage);
  Driver driver(mem, 8, 4);
  tld4_pool *raw_pool = nullptr;
  ok(tld4_pool_new(&raw_pool, &e), e, "pool");
  Pool pool(raw_pool);
  for (uint32_t t = 0; t < kTextures; t++) {
    TextureInfo &ti = textures[t];
    const tld4_texture_desc desc{TLD4_KIND_2D, "rgba8_uint", ti.width, ti.height, 1};
    const std::vector<uint32_t> fields = fields_of(t);
    const Placed p = driver.add_texture(
        t, desc, fields, ti.pitch ? TLD4_LAYOUT_PITCH : TLD4_LAYOUT_BLOCK_LINEAR, ti.param);
    ti.texels = p.texels;
    tld4_sampler_desc s;
    ok(tld4_sampler_default(&s, &e), e, "sampler");
    s.address_u = s.address_v = ti.wrap ? 0 : 2;  // Vulkan: REPEAT, CLAMP_TO_EDGE
    tld4_tsc_desc tsc;
    ok(tld4_sampler_to_tsc(&s, &tsc, &e), e, "tsc");
    driver.set_sampler(t, tsc);
    ok(tld4_handle(t, t, &ti.handle, &e), e, "handle");
    // The same texture and sampler owned by tld4, at the same indices.
    ok(tld4_pool_set_texture(pool.get(), t, &desc, fields.data(), fields.size(), &e), e, "owned");
    ok(tld4_pool_set_sampler(pool.get(), t, &s, &e), e, "owned sampler");
    std::printf("texture %u: %ux%u %s at 0x%llx (%zu bytes), handle 0x%08x\n", t, ti.width,
                ti.height, ti.pitch ? "pitch" : "block-linear",
                static_cast<unsigned long long>(p.texels), p.extent, ti.handle);
  }

  tld4_exec *raw_exec = nullptr;
  ok(tld4_exec_new(insn.get(), nullptr, &raw_exec, &e), e, "exec");
  Exec exec(raw_exec);
  ok(tld4_exec_check(exec.get(), 255, &e), e, "check");
  const tld4_memory flat = mem.flat();
  tld4_bound *raw = nullptr;
  ok(tld4_exec_bind(exec.get(), pool.get(), &raw, &e), e, "bind");
  Bound owned(raw);
  ok(tld4_exec_bind_memory(exec.get(), &flat, driver.header_pool(), driver.sampler_pool(), &raw, &e),
     e, "bind memory");
  Bound in_memory(raw);

  // The forms in turn, round after round, so that the machine's load falls on each alike.
  Rounds o, m, r;
  for (int k = 0; k < rounds; k++) {
    add(o, run_form(owned.get(), false, false, op));
    add(m, run_form(in_memory.get(), true, false, op));
    add(r, run_form(in_memory.get(), true, true, op));
  }
  print("owned", o);
  print("memory", m);
  print("memory, texel addresses", r);
  const FormStats &a = r.last;
  std::printf("memory traffic: %llu lane-sector references -> %llu warp sectors (%.1f a warp); "
              "cache (8 KiB, 4-way): %llu hits, %llu misses\n",
              static_cast<unsigned long long>(a.lane_sectors),
              static_cast<unsigned long long>(a.warp_sectors),
              static_cast<double>(a.warp_sectors) / a.warps,
              static_cast<unsigned long long>(a.hits), static_cast<unsigned long long>(a.misses));
  std::printf("scoreboard: TLD4 results ready %.1f cycles after issue on average, the store "
              "after it stalls %.1f\n",
              static_cast<double>(a.tld4_cycles) / a.warps,
              static_cast<double>(a.stall_cycles) / a.warps);

  std::printf("failures, mapped to the SM's fault kinds:\n");
  const int wrong = check_faults(exec.get(), pool.get(), mem, driver, op);
  const bool pass = o.failures == 0 && m.failures == 0 && r.failures == 0 && wrong == 0;
  std::printf(pass ? "PASS\n" : "FAIL\n");
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 1;
  if ((argc != 2 && argc != 3) || rounds < 1) {
    std::fprintf(stderr, "usage: %s CUBIN [ROUNDS]\n", argv[0]);
    return 2;
  }
  try {
    return run(argv[1], rounds);
  } catch (const sim::Tld4Failure &f) {
    std::printf("FAIL: %s (%s)\n", f.what(), sim::name(sim::classify(f.record.status, f.record)));
    return 1;
  } catch (const std::exception &ex) {
    std::printf("FAIL: %s\n", ex.what());
    return 1;
  }
}
