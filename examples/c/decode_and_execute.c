/* tld4 from C11: assemble, decode and disassemble a TLD4, list its operands, then execute it
 * for one warp over flat register arrays against a texture made here, checking every lane
 * against values computed here from that texture. Prints PASS or FAIL; exits 1 on failure.
 * Built and run (also under valgrind) by examples/build-and-run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tld4.h"

#define W 4
#define H 4
#define NREGS 32

/* The texture's G channel at (x, y): what this program stores, so what it expects. */
static uint32_t green(int x, int y) { return (uint32_t)(16 * x + y + 1); }

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int main(void) {
  tld4_error err;
  const char *text = "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;";

  /* Assemble, decode, disassemble. */
  tld4_word word;
  tld4_insn *insn = NULL;
  CHECK(tld4_assemble(text, &word, &err) == TLD4_OK, "assemble: %s", err.message);
  CHECK(tld4_decode(word, &insn, &err) == TLD4_OK, "decode: %s", err.message);
  char back[128];
  CHECK(tld4_disassemble(word, back, sizeof back, NULL, &err) == TLD4_OK, "disassemble: %s",
        err.message);
  CHECK(strcmp(back, text) == 0, "disassembly %s, expected %s", back, text);
  printf("word %016llx%016llx: %s\n", (unsigned long long)word.hi, (unsigned long long)word.lo,
         back);

  /* Operands: Ra = R20, R21 (u, v); Rb = R24 (offsets); UR4 (handle); Rd = R8, R9 and
   * Rd2 = R10, R11 (the four results). */
  tld4_used_register used[TLD4_MAX_USED_REGISTERS];
  size_t n = 0;
  CHECK(tld4_insn_used_registers(insn, used, TLD4_MAX_USED_REGISTERS, &n, &err) == TLD4_OK,
        "operands: %s", err.message);
  static const struct { tld4_reg_file file; uint8_t number; tld4_role role; } want[] = {
      {TLD4_FILE_REG, 20, TLD4_ROLE_RA},   {TLD4_FILE_REG, 21, TLD4_ROLE_RA},
      {TLD4_FILE_REG, 24, TLD4_ROLE_RB},   {TLD4_FILE_UREG, 4, TLD4_ROLE_HANDLE},
      {TLD4_FILE_REG, 8, TLD4_ROLE_RD},    {TLD4_FILE_REG, 9, TLD4_ROLE_RD},
      {TLD4_FILE_REG, 10, TLD4_ROLE_RD2},  {TLD4_FILE_REG, 11, TLD4_ROLE_RD2},
  };
  CHECK(n == sizeof want / sizeof want[0], "%zu operands", n);
  for (size_t i = 0; i < n && i < sizeof want / sizeof want[0]; i++) {
    CHECK(used[i].file == want[i].file && used[i].number == want[i].number &&
              used[i].role == want[i].role,
          "operand %zu: file %d number %u role %d", i, (int)used[i].file, used[i].number,
          (int)used[i].role);
    printf("  %s%u %s\n",
           used[i].file == TLD4_FILE_UREG ? "UR" : used[i].file == TLD4_FILE_PRED ? "P" : "R",
           used[i].number, used[i].access == TLD4_ACCESS_COND_WRITE ? "written" : "read");
  }
  tld4_scheduling sched;
  CHECK(tld4_insn_scheduling(insn, &sched, &err) == TLD4_OK, "scheduling: %s", err.message);

  /* A 4x4 RGBA8_UINT texture whose G is green(x, y), clamp to edge. */
  tld4_pool *pool = NULL;
  CHECK(tld4_pool_new(&pool, &err) == TLD4_OK, "pool: %s", err.message);
  uint32_t texels[W * H * 4];
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      uint32_t *t = &texels[(y * W + x) * 4];
      t[0] = 200;
      t[1] = green(x, y);
      t[2] = 0;
      t[3] = 255;
    }
  tld4_texture_desc desc = {TLD4_KIND_2D, "rgba8_uint", W, H, 1};
  uint32_t tex = 0, smp = 0, handle = 0;
  CHECK(tld4_pool_add_texture(pool, &desc, texels, W * H * 4, &tex, &err) == TLD4_OK,
        "texture: %s", err.message);
  tld4_sampler_desc sampler;
  tld4_sampler_default(&sampler, NULL); /* clamp to edge */
  CHECK(tld4_pool_add_sampler(pool, &sampler, &smp, &err) == TLD4_OK, "sampler: %s",
        err.message);
  CHECK(tld4_handle(tex, smp, &handle, &err) == TLD4_OK, "handle: %s", err.message);

  /* One warp, register-major: regs[r][lane]. Lane l samples near texel (i, j) with an
   * offset (dx, dy); u = (i + 0.75) / W puts u * W - 0.5 at i + 0.25, so i0 = i. */
  static uint32_t regs[NREGS][32];
  uint32_t uregs[8] = {0};
  uregs[4] = handle;
  int di[32], dj[32];
  for (int l = 0; l < 32; l++) {
    int i = l % 4 - 1, j = (l / 4) % 4 - 1;
    int dx = l % 3 - 1, dy = (l / 8) % 3 - 1;
    float u = ((float)i + 0.75f) / W, v = ((float)j + 0.75f) / H;
    memcpy(&regs[20][l], &u, 4);
    memcpy(&regs[21][l], &v, 4);
    regs[24][l] = ((uint32_t)dx & 0x3f) | ((uint32_t)dy & 0x3f) << 8;
    for (int r = 8; r < 12; r++) regs[r][l] = 0xdeadbeef;
    di[l] = i + dx;
    dj[l] = j + dy;
  }
  tld4_exec *exec = NULL;
  CHECK(tld4_exec_new(insn, NULL, &exec, &err) == TLD4_OK, "exec: %s", err.message);
  uint32_t preds[7] = {0}; /* P0..P6, bit l for lane l */
  tld4_warp_flat warp = {&regs[0][0], NREGS, 32, 1, preds, uregs, 8, ~0u ^ (1u << 5)};
  tld4_exec_report report;
  CHECK(tld4_exec_run_flat(exec, pool, &warp, &report, &err) == TLD4_OK, "run: %s",
        err.message);
  CHECK(report.executed == (~0u ^ (1u << 5)), "executed %08x", report.executed);

  /* Expected: x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0), clamped to the edge. */
  for (int l = 0; l < 32; l++) {
    if (l == 5) {
      for (int r = 8; r < 12; r++)
        CHECK(regs[r][l] == 0xdeadbeef, "inactive lane 5 R%d changed", r);
      continue;
    }
    int i0 = di[l], j0 = dj[l];
    int px[4] = {i0, i0 + 1, i0 + 1, i0}, py[4] = {j0 + 1, j0 + 1, j0, j0};
    for (int k = 0; k < 4; k++) {
      uint32_t expect = green(clamp(px[k], 0, W - 1), clamp(py[k], 0, H - 1));
      CHECK(regs[8 + k][l] == expect, "lane %d R%d = %u, expected %u", l, 8 + k,
            regs[8 + k][l], expect);
    }
  }

  /* Errors: a NULL argument, and a handle naming no texture (a warp fault). */
  CHECK(tld4_exec_run_flat(exec, NULL, &warp, NULL, &err) == TLD4_ERR_NULL_POINTER &&
            strcmp(err.message, "pool is NULL") == 0,
        "NULL pool: %s", err.message);
  uregs[4] = 7;
  CHECK(tld4_exec_run_flat(exec, pool, &warp, NULL, &err) == TLD4_ERR_WARP_FAULT &&
            err.fault == TLD4_FAULT_UNKNOWN_TEXTURE_HEADER && err.lane == 0,
        "fault: %d %s", (int)err.fault, err.message);
  printf("fault as expected: %s (%s)\n", tld4_fault_name(err.fault), err.message);

  tld4_exec_free(exec);
  tld4_pool_free(pool);
  tld4_insn_free(insn);
  return finish("31 lanes x 4 results");
}
