"""Unnormalized coordinates (docs/sources.md, Unnormalized coordinates): `Sampler(normalized_coords=False)`
takes coordinates in texels, u = s, with no division by the size. On a power-of-two texture
the result is the normalized gather's at s / size, bit for bit; on others it is the rule
written out here in numpy (i0 = floor(u - 0.5), clamped to the edge, on coordinates that are
multiples of 2^-8, which the 8-bit sub-texel model leaves unchanged); the memory form carries
it in the sampler entry."""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.testing as npt
import pytest

import tld4


def grid_coords(w: int, h: int, n: int, seed: int) -> np.ndarray:
    """n texel-space points on the 2^-8 grid, around and across a w x h texture."""
    rng = np.random.default_rng(seed)
    u = rng.integers(-3 * 256, (w + 3) * 256, n) / 256
    v = rng.integers(-3 * 256, (h + 3) * 256, n) / 256
    return np.stack([u, v], axis=1).astype(np.float32)


def test_unnormalized_equals_normalized_at_s_over_size_on_powers_of_two() -> None:
    rng = np.random.default_rng(7)
    for w, h in [(8, 4), (16, 16), (1, 2)]:
        tex = tld4.Texture("2d", "rgba8_unorm", rng.integers(0, 256, (h, w, 4), dtype=np.uint8))
        coords = grid_coords(w, h, 500, w * 100 + h)
        modes: list[Literal["clamp_to_edge", "clamp_to_border"]] = ["clamp_to_edge", "clamp_to_border"]
        for mode in modes:
            unn = tld4.Sampler(address_u=mode, address_v=mode, normalized_coords=False)
            norm = tld4.Sampler(address_u=mode, address_v=mode)
            assert not unn.normalized_coords and norm.normalized_coords
            for component in range(4):
                got = tld4.gather(tex, unn, coords, component=component)
                want = tld4.gather(tex, norm, coords / np.array([w, h], np.float32), component=component)
                npt.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_unnormalized_follows_the_rule_on_other_sizes() -> None:
    for w, h in [(7, 5), (13, 3), (100, 37)]:
        ids = (np.arange(h)[:, None] * 1000 + np.arange(w)[None, :]).astype(np.uint32)
        tex = tld4.Texture("2d", "r32_uint", ids)
        coords = grid_coords(w, h, 400, w + h)
        got = tld4.gather(tex, tld4.Sampler(normalized_coords=False), coords)
        i0 = np.floor(coords[:, 0].astype(np.float64) - 0.5).astype(np.int64)
        j0 = np.floor(coords[:, 1].astype(np.float64) - 0.5).astype(np.int64)

        def cx(i: np.ndarray) -> np.ndarray:  # clamp to edge
            return np.asarray(np.clip(i, 0, w - 1))

        def cy(j: np.ndarray) -> np.ndarray:
            return np.asarray(np.clip(j, 0, h - 1))

        # gather order (i0, j1), (i1, j1), (i1, j0), (i0, j0)
        want = np.stack(
            [ids[cy(j0 + 1), cx(i0)], ids[cy(j0 + 1), cx(i0 + 1)], ids[cy(j0), cx(i0 + 1)], ids[cy(j0), cx(i0)]],
            axis=1,
        )
        npt.assert_array_equal(got, want)


def test_unnormalized_memory_form_and_refusals() -> None:
    texels = np.arange(35, dtype=np.uint32).reshape(5, 7)
    tex, smp = tld4.Texture("2d", "r32_uint", texels), tld4.Sampler(normalized_coords=False)
    # TEXSAMP1 FLOAT_COORD_NORMALIZATION (word 1, bit 25): FORCE_UNNORMALIZED_COORDS
    words = np.frombuffer(tld4.sampler_descriptor(smp), np.uint32)
    assert words[1] >> 25 & 1 == 1
    assert np.frombuffer(tld4.sampler_descriptor(tld4.Sampler()), np.uint32)[1] >> 25 & 1 == 0
    mem = tld4.Memory.from_textures([(tex, smp)], base=0x10000, layout="pitch")
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    # lane l at (l / 4, 2.5): u - 0.5 from -0.5 to 7.25
    warp.regs.view(np.float32)[20] = np.arange(32, dtype=np.float32) / 4
    warp.regs.view(np.float32)[21] = 2.5
    exec_.execute_memory(warp, mem)
    coords = np.stack([np.arange(32) / 4, np.full(32, 2.5)], axis=1).astype(np.float32)
    npt.assert_array_equal(warp.regs[8:12].T, tld4.gather(tex, smp, coords))
    # wrap with unnormalized coordinates, and cubes, are not modeled
    with pytest.raises(ValueError, match="not modeled: unnormalized coordinates with the address mode Repeat"):
        tld4.gather(tex, tld4.Sampler(address_u="repeat", normalized_coords=False), coords)
    cube = tld4.Texture("cube", "r32_uint", np.zeros((6, 4, 4), np.uint32))
    with pytest.raises(ValueError, match="not modeled: unnormalized coordinates on a Cube texture"):
        tld4.gather(cube, tld4.Sampler(normalized_coords=False), np.ones((1, 3), np.float32))
