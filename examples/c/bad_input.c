/* tld4 from C11 with hostile arguments: each call must return its typed status (never
 * TLD4_ERR_PANIC, which a checked build of the library gives for an arithmetic overflow)
 * and write nothing it should not. Pools appended past the last index a handle names,
 * strides whose products overflow, more than 255 registers, pool images near 2^64, flat
 * memory holding the last byte of the address space. Prints PASS or FAIL; exits 1 on
 * failure. Built and run (plain, and under AddressSanitizer + UBSan against the debug
 * library, whose overflow checks are on) by examples/build-and-run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tld4.h"

int main(void) {
  tld4_error err;
  tld4_pool *pool = NULL;
  EXPECT(tld4_pool_new(&pool, &err), TLD4_OK);

  /* Samplers 0..4095 append; the 4097th has no index a handle can hold. */
  tld4_sampler_desc s;
  EXPECT(tld4_sampler_default(&s, &err), TLD4_OK);
  uint32_t index = 0;
  for (int k = 0; k < 4096; k++) EXPECT(tld4_pool_add_sampler(pool, &s, &index, &err), TLD4_OK);
  index = 77;
  EXPECT(tld4_pool_add_sampler(pool, &s, &index, &err), TLD4_ERR_INVALID_ARGUMENT);
  CHECK(index == 77, "index written");

  /* A texture at the last header index: the next append is refused. */
  tld4_texture_desc desc = {TLD4_KIND_2D, "rgba8_unorm", 1, 1, 1};
  const uint32_t texel[4] = {1, 2, 3, 4};
  EXPECT(tld4_pool_set_texture(pool, 0, &desc, texel, 4, &err), TLD4_OK);
  EXPECT(tld4_pool_set_texture(pool, (1u << 20) - 1, &desc, texel, 4, &err), TLD4_OK);
  EXPECT(tld4_pool_add_texture(pool, &desc, texel, 4, &index, &err), TLD4_ERR_INVALID_ARGUMENT);

  /* Strides and register counts whose products overflow. */
  tld4_insn *insn = NULL;
  tld4_exec *exec = NULL;
  EXPECT(tld4_parse("TLD4.R R10, R8, R20, UR4, 2D ;", &insn, &err), TLD4_OK);
  EXPECT(tld4_exec_new(insn, NULL, &exec, &err), TLD4_OK);
  static uint32_t regs[32 * 32];
  const uint32_t uregs[8] = {0};
  uint32_t preds[7] = {0};
  const struct { uint32_t num_regs; size_t reg_stride, lane_stride; } bad[] = {
      {32, 1, (size_t)1 << 59}, {32, 1, SIZE_MAX}, {32, SIZE_MAX, 1},
      {32, SIZE_MAX / 16, SIZE_MAX / 8}, {256, 32, 1}, {UINT32_MAX, 32, 1},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    tld4_warp_flat w = {regs, bad[k].num_regs, bad[k].reg_stride, bad[k].lane_stride,
                        preds, uregs, 8, 0xffffffffu};
    EXPECT(tld4_exec_run_flat(exec, pool, &w, NULL, &err), TLD4_ERR_INVALID_ARGUMENT);
  }

  /* Pool images whose pools would pass 2^64 are refused, never wrapped to address 0. */
  tld4_image_entry entry = {0, 0, TLD4_LAYOUT_PITCH, 32};
  size_t needed = 0;
  uint64_t hp = 0, sp = 0;
  const uint64_t tops[] = {0xfffffffffffffe00ull, UINT64_MAX - 511, 0xfffffffffffffc00ull};
  for (size_t k = 0; k < 3; k++)
    EXPECT(tld4_pool_image(pool, &entry, 1, tops[k], NULL, 0, &needed, &hp, &sp, &err),
           TLD4_ERR_INVALID_ARGUMENT);
  /* Texels past 2^57: the header's address fields cannot hold them. */
  EXPECT(tld4_pool_image(pool, &entry, 1, 0xffffffffffff0000ull, NULL, 0, &needed, &hp, &sp,
                         &err),
         TLD4_ERR_DESCRIPTOR);

  /* Flat memory may hold the last byte (base + len = 2^64), not one past it. */
  static uint8_t top[64];
  tld4_memory m = {TLD4_MEMORY_FLAT, UINT64_MAX - 63, top, sizeof top, NULL, NULL};
  tld4_gather_query q = {{0.5f, 0.5f, 0.0f}, 0, {{0}}, 0.0f};
  tld4_gather_result r;
  /* the header read at the top succeeds; its zero words are not a texture header */
  EXPECT(tld4_mem_gather(insn, &m, UINT64_MAX - 63, UINT64_MAX - 31, 0, NULL, &q, 1, &r, &err),
         TLD4_ERR_DESCRIPTOR);
  m.base = UINT64_MAX - 62;
  EXPECT(tld4_mem_gather(insn, &m, UINT64_MAX - 62, UINT64_MAX - 30, 0, NULL, &q, 1, &r, &err),
         TLD4_ERR_INVALID_ARGUMENT);

  tld4_exec_free(exec);
  tld4_insn_free(insn);
  tld4_pool_free(pool);
  return finish("every hostile argument has its typed status");
}
