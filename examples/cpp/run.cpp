#include "run.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "tld4_helpers.hpp"
#include "workload.hpp"

namespace sim {

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Toy timing: an FMUL result is ready 4 cycles after issue; a TLD4's 32 + 2 a sector, and
// 200 more when any sector missed.
constexpr uint64_t kFmul = 4, kTexBase = 32, kPerSector = 2, kMiss = 200;

void fail(FormStats &st, const char *form, uint64_t w, uint32_t lane, const char *what,
          unsigned long long got, unsigned long long want) {
  if (st.failures++ < 10)
    std::fprintf(stderr, "%s: warp %llu lane %u %s = %#llx, expected %#llx\n", form,
                 static_cast<unsigned long long>(w), lane, what, got, want);
}

// Checks one warp's results and texel records (if not NULL) against workload.hpp.
void check(FormStats &st, bool memory, uint64_t w, const WarpSlot &slot, const Operands &op,
           const tld4_lane_texels *texels) {
  const char *form = memory ? "memory" : "owned";
  for (uint32_t lane = 0; lane < 32; lane++) {
    const tld4_lane_texels &rec = texels ? texels[lane] : tld4_lane_texels{};
    st.lanes_checked++;
    if (!(slot.active >> lane & 1)) {  // untouched, and no texels read
      for (uint32_t d : op.dests)
        if (slot.regs[d][lane] != before(w, lane, d, op))
          fail(st, form, w, lane, "idle R", slot.regs[d][lane], before(w, lane, d, op));
      if (rec.num_sectors != 0 || rec.texels[0].kind != TLD4_TEXEL_NONE)
        fail(st, form, w, lane, "idle texel kind", rec.texels[0].kind, TLD4_TEXEL_NONE);
      continue;
    }
    const Footprint f = footprint(w, lane);
    for (int k = 0; k < 4; k++) {
      const uint32_t got = slot.regs[op.dests[k]][lane], want = expected_value(w, f, k);
      if (got != want) fail(st, form, w, lane, "result", got, want);
      const tld4_texel_address &t = rec.texels[k];
      if (!texels) continue;
      if (!memory) {  // owned textures have no addresses
        if (t.kind != TLD4_TEXEL_NONE) fail(st, form, w, lane, "texel kind", t.kind, TLD4_TEXEL_NONE);
      } else if (t.kind != TLD4_TEXEL_MEMORY || t.address != expected_address(w, f, k)) {
        fail(st, form, w, lane, "texel address", t.address, expected_address(w, f, k));
      }
    }
  }
}

}  // namespace

FormStats run_form(tld4_bound *bound, bool memory, bool addresses, const Operands &op) {
  FormStats st;
  const char *form = memory ? "memory" : "owned";
  std::unique_ptr<WarpSlot[]> slots(new WarpSlot[kSlots]());
  std::vector<tld4_warp_flat> flats(kSlots);
  std::vector<tld4_lane_texels> texels(32 * kSlots);
  std::vector<tld4_exec_report> reports(kSlots);
  SectorCache cache(64, 4);  // 64 sets x 4 ways x 32 bytes = 8 KiB
  Scoreboard sb;
  tld4_warp_sector sectors[TLD4_MAX_WARP_SECTORS];
  tld4_error e;
  const Clock::time_point start = Clock::now();
  for (uint64_t first = 0; first < kWarps; first += kSlots) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kSlots, kWarps - first));
    for (uint32_t s = 0; s < n; s++) {
      set_up(slots[s], first + s, op);
      flats[s] = slots[s].flat();
    }
    size_t done = 0;
    const Clock::time_point t0 = Clock::now();
    const tld4_status status =
        tld4_bound_run_flat_batch(bound, flats.data(), n, addresses ? texels.data() : nullptr,
                                  reports.data(), &done, &e);
    st.tld4_seconds += seconds(t0, Clock::now());
    if (status != TLD4_OK) throw Tld4Failure(form, e);
    for (uint32_t s = 0; s < n; s++) {
      const uint64_t w = first + s;
      const tld4_lane_texels *rec = &texels[32 * s];
      // The warp's program: the prologue writes u and v (FMULs), the TLD4 waits on them,
      // the store after it waits on the TLD4's results.
      sb.reset();
      sb.write({tld4_used_register{TLD4_FILE_REG, static_cast<uint8_t>(op.u_reg), 0,
                                   TLD4_ACCESS_COND_WRITE, TLD4_ROLE_OTHER},
                tld4_used_register{TLD4_FILE_REG, static_cast<uint8_t>(op.v_reg), 0,
                                   TLD4_ACCESS_COND_WRITE, TLD4_ROLE_OTHER}},
               kFmul);
      const uint64_t issue = sb.issue_cycle(op.used, 1);
      size_t nsec = 0;
      if (addresses)
        ok(tld4_warp_sectors(rec, sectors, TLD4_MAX_WARP_SECTORS, &nsec, &e), e, "sectors");
      bool missed = false;
      for (size_t k = 0; k < nsec; k++) missed |= !cache.access(sectors[k].address);
      for (uint32_t lane = 0; addresses && lane < 32; lane++) st.lane_sectors += rec[lane].num_sectors;
      st.warp_sectors += nsec;
      const uint64_t ready = issue + kTexBase + kPerSector * nsec + (missed ? kMiss : 0);
      sb.write(op.used, ready);
      uint64_t store = issue + 1;
      for (uint32_t d : op.dests) store = std::max(store, sb.reg_ready(d));
      st.tld4_cycles += ready - issue;
      st.stall_cycles += store - (issue + 1);
      if (reports[s].executed != slots[s].active)
        fail(st, form, w, 0, "executed mask", reports[s].executed, slots[s].active);
      check(st, memory, w, slots[s], op, addresses ? rec : nullptr);
    }
    st.warps += n;
  }
  st.total_seconds = seconds(start, Clock::now());
  st.hits = cache.hits;
  st.misses = cache.misses;
  return st;
}

}  // namespace sim
