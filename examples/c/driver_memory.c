/* tld4 from C11 as a simulator's driver uses it: a flat GPU memory image of its own, texture
 * header and sampler pools written with tld4_tic_encode / tld4_tsc_encode at indices it
 * chooses, texels laid out block-linear with tld4_texels_write, the instruction bound to that
 * memory once (tld4_exec_bind_memory) and run over a batch of warps; every lane checked
 * against the owned pool's run, then an empty header slot and an unmodeled address mode
 * mapped to fault kinds by err.fault and err.detail alone (no message parsing).
 * Prints PASS or FAIL; exits 1 on failure. Built and run (also under valgrind and the
 * sanitizers) by examples/build-and-run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tld4.h"

#define W 16
#define H 16
#define NWARPS 8
#define NREGS 32
#define BASE 0x200000000ull /* where the image starts in GPU memory */
#define HEADERS (BASE + 0x000)
#define SAMPLERS (BASE + 0x400)
#define TEXELS (BASE + 0x1000)
#define TEX_INDEX 9
#define SMP_INDEX 3

static void put_words(uint8_t *image, uint64_t addr, const uint32_t w[8]) {
  for (int k = 0; k < 8; k++)
    for (int b = 0; b < 4; b++) image[addr - BASE + 4 * k + b] = (uint8_t)(w[k] >> (8 * b));
}

static float coord(int warp, int lane, int axis) {
  return (float)((lane * (axis ? 5 : 3) + warp * 7) % 37) / 37.0f;
}

static uint32_t regs_owned[NWARPS][NREGS][32], regs_mem[NWARPS][NREGS][32];
static uint32_t preds_owned[NWARPS][7], preds_mem[NWARPS][7]; /* P0..P6 of each warp */

int main(void) {
  tld4_error err;
  uint32_t fields[W * H * 4];
  for (int i = 0; i < W * H * 4; i++) fields[i] = (uint32_t)(i * 37 % 251);
  tld4_texture_desc desc = {TLD4_KIND_2D, "rgba8_unorm", W, H, 1};

  /* The driver: texels, then the header describing them, then the sampler. */
  size_t extent = 0;
  tld4_tic_desc tic;
  CHECK(tld4_texels_write(&desc, fields, W * H * 4, TLD4_LAYOUT_BLOCK_LINEAR, 1, TEXELS, NULL, 0,
                          &extent, NULL, &err) == TLD4_ERR_BUFFER_TOO_SMALL,
        "extent: %s", err.message);
  size_t len = (size_t)(TEXELS - BASE) + extent;
  uint8_t *image = calloc(len, 1);
  CHECK(image != NULL, "calloc");
  if (!image) return 1;
  CHECK(tld4_texels_write(&desc, fields, W * H * 4, TLD4_LAYOUT_BLOCK_LINEAR, 1, TEXELS,
                          image + (TEXELS - BASE), extent, &extent, &tic, &err) == TLD4_OK,
        "texels: %s", err.message);
  uint32_t words[8];
  CHECK(tld4_tic_encode(&tic, words, &err) == TLD4_OK, "tic: %s", err.message);
  put_words(image, HEADERS + 32 * TEX_INDEX, words);
  tld4_sampler_desc s;
  tld4_tsc_desc tsc;
  tld4_sampler_default(&s, &err);
  s.address_u = 0; /* VkSamplerAddressMode REPEAT: TSC WRAP */
  CHECK(tld4_sampler_to_tsc(&s, &tsc, &err) == TLD4_OK, "tsc: %s", err.message);
  CHECK(tsc.address_u == TLD4_TSC_WRAP && tsc.address_v == TLD4_TSC_CLAMP_TO_EDGE, "modes");
  CHECK(tld4_tsc_encode(&tsc, words, &err) == TLD4_OK, "tsc: %s", err.message);
  put_words(image, SAMPLERS + 32 * SMP_INDEX, words);

  /* The owned pool with the same texture, for reference. */
  tld4_pool *pool = NULL;
  tld4_pool_new(&pool, &err);
  CHECK(tld4_pool_set_texture(pool, TEX_INDEX, &desc, fields, W * H * 4, &err) == TLD4_OK, "%s",
        err.message);
  CHECK(tld4_pool_set_sampler(pool, SMP_INDEX, &s, &err) == TLD4_OK, "%s", err.message);

  tld4_exec *exec = NULL;
  tld4_word word;
  CHECK(tld4_assemble("TLD4.B R10, R8, R20, UR4, 2D ;", &word, &err) == TLD4_OK, "%s", err.message);
  CHECK(tld4_exec_from_word(word, NULL, &exec, &err) == TLD4_OK, "%s", err.message);
  uint32_t handle = 0;
  tld4_handle(TEX_INDEX, SMP_INDEX, &handle, &err);
  uint32_t uregs[8] = {0, 0, 0, 0, handle, 0, 0, 0};

  tld4_warp_flat warps_owned[NWARPS], warps_mem[NWARPS];
  for (int w = 0; w < NWARPS; w++) {
    for (int l = 0; l < 32; l++) {
      float u = coord(w, l, 0), v = coord(w, l, 1);
      memcpy(&regs_owned[w][20][l], &u, 4);
      memcpy(&regs_owned[w][21][l], &v, 4);
    }
    memcpy(regs_mem[w], regs_owned[w], sizeof regs_owned[w]);
    tld4_warp_flat f = {&regs_owned[w][0][0], NREGS, 32, 1, preds_owned[w], uregs, 8, 0xffffffffu};
    warps_owned[w] = f;
    f.regs = &regs_mem[w][0][0];
    f.preds = preds_mem[w];
    warps_mem[w] = f;
  }

  /* Bind both, run the batches. */
  tld4_memory mem = {TLD4_MEMORY_FLAT, BASE, image, len, NULL, NULL};
  tld4_bound *owned = NULL, *bound = NULL;
  CHECK(tld4_exec_bind(exec, pool, &owned, &err) == TLD4_OK, "%s", err.message);
  CHECK(tld4_exec_bind_memory(exec, &mem, HEADERS, SAMPLERS, &bound, &err) == TLD4_OK, "%s",
        err.message);
  size_t done = 0;
  static tld4_lane_texels texels[NWARPS * 32];
  CHECK(tld4_bound_run_flat_batch(owned, warps_owned, NWARPS, NULL, NULL, &done, &err) == TLD4_OK,
        "owned batch: %s", err.message);
  CHECK(tld4_bound_run_flat_batch(bound, warps_mem, NWARPS, texels, NULL, &done, &err) == TLD4_OK,
        "memory batch: %s", err.message);
  CHECK(done == NWARPS, "%zu warps done", done);
  CHECK(memcmp(regs_owned, regs_mem, sizeof regs_owned) == 0, "memory and owned results differ");
  int sectors = 0;
  for (int i = 0; i < NWARPS * 32; i++) {
    sectors += (int)texels[i].num_sectors;
    for (int t = 0; t < 4; t++)
      CHECK(texels[i].texels[t].kind == TLD4_TEXEL_MEMORY &&
                texels[i].texels[t].address >= TEXELS &&
                texels[i].texels[t].address < TEXELS + extent,
            "lane record %d texel %d", i, t);
  }
  printf("%d warps over the driver's image: results equal the owned pool's, %d lane sectors\n",
         NWARPS, sectors);

  /* Failures, mapped by kind alone. An empty header slot (index 2: zeroed). */
  uint32_t h2 = 0;
  tld4_handle(2, SMP_INDEX, &h2, &err);
  uregs[4] = h2;
  tld4_warp_flat one = warps_mem[0];
  CHECK(tld4_bound_run_flat(bound, &one, NULL, NULL, &err) != TLD4_OK, "empty slot ran");
  CHECK(err.fault == TLD4_FAULT_UNKNOWN_TEXTURE_HEADER, "fault %s", tld4_fault_name(err.fault));
  CHECK(err.detail.read == TLD4_READ_TEXTURE_HEADER && err.detail.index == 2, "detail");
  /* A sampler with CLAMP_OGL (hardware 4): valid, not modeled, the field named. */
  tsc.address_u = TLD4_TSC_CLAMP_OGL;
  tld4_tsc_encode(&tsc, words, &err);
  put_words(image, SAMPLERS + 32 * SMP_INDEX, words);
  uregs[4] = handle;
  tld4_bound_free(bound); /* the memory changed: bind again */
  CHECK(tld4_exec_bind_memory(exec, &mem, HEADERS, SAMPLERS, &bound, &err) == TLD4_OK, "rebind");
  CHECK(tld4_bound_run_flat(bound, &one, NULL, NULL, &err) == TLD4_ERR_WARP_FAULT, "ogl ran");
  CHECK(err.fault == TLD4_FAULT_NOT_MODELED && err.detail.not_modeled == TLD4_NOT_MODELED_DESCRIPTOR
            && err.detail.read == TLD4_READ_SAMPLER && err.detail.field != NULL
            && strcmp(err.detail.field, "ADDRESS_U") == 0 && err.detail.value == 4,
        "not modeled detail");
  printf("empty slot: %s; CLAMP_OGL: %s (%s = %llu)\n", tld4_fault_name(TLD4_FAULT_UNKNOWN_TEXTURE_HEADER),
         tld4_fault_name(err.fault), err.detail.field ? err.detail.field : "?",
         (unsigned long long)err.detail.value);

  tld4_bound_free(bound);
  tld4_bound_free(owned);
  tld4_exec_free(exec);
  tld4_pool_free(pool);
  free(image);
  return finish("the driver's image executes as the owned pool; failures mapped by kind");
}
