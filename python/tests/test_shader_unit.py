"""A shader unit test as a learner writes it with pytest and numpy.testing (the Python twin
of tests/shader_unit_test.rs): build what a shader's TLD4 sees (a texture whose texels say
where they come from, a sampler, the handle in a uniform register, per-lane coordinates in
the warp's registers), execute, and assert on the registers. Every expected value is worked
out from the texture's formula, not taken from the emulator."""

from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import tld4


@pytest.fixture
def scene() -> tuple[tld4.Pool, int]:
    """A 4x4 RGBA8 texture whose red channel is 16 * x + y, sampled with repeat."""
    y, x = np.mgrid[0:4, 0:4]
    texels = np.zeros((4, 4, 4), np.uint8)
    texels[..., 0] = 16 * x + y
    texels[..., 3] = 255
    pool = tld4.Pool()
    pool.set_texture(0, tld4.Texture("2d", "rgba8_unorm", texels))
    pool.set_sampler(0, tld4.Sampler(address_u="repeat", address_v="repeat"))
    return pool, tld4.Pool.handle(0, 0)


def test_each_lane_gathers_the_footprint_around_its_coordinate(scene: tuple[tld4.Pool, int]) -> None:
    pool, handle = scene
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    warp.uregs[4] = handle
    lanes = np.arange(32)
    f = warp.regs.view(np.float32)  # the same registers, read as floats
    f[20] = ((lanes % 4) + 1) / 4  # u: the corner of texels lane % 4 and lane % 4 + 1
    f[21] = 0.25  # v: between rows 0 and 1
    assert exec_.execute(warp, pool) == 0xFFFFFFFF
    i0 = lanes % 4
    i1 = (lanes % 4 + 1) % 4  # repeat wraps 4 to 0
    # gather order x, y, z, w = (i0, j1), (i1, j1), (i1, j0), (i0, j0), j0 = 0, j1 = 1
    want = np.stack([16 * i0 + 1, 16 * i1 + 1, 16 * i1, 16 * i0]) / 255
    npt.assert_allclose(f[8:12], want, rtol=1e-6)


def test_inactive_and_guarded_lanes_keep_their_registers(scene: tuple[tld4.Pool, int]) -> None:
    pool, handle = scene
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("@P0 TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp(active_mask=0x0000FFFF)
    warp.uregs[4] = handle
    warp.preds[0] = True
    warp.preds[0, 8:16] = False
    warp.regs.view(np.float32)[20:22] = 0.5
    warp.regs[8] = 7
    assert exec_.execute(warp, pool) == 0x000000FF
    npt.assert_array_equal(warp.regs[8, 8:], 7)
    # (i0, j1) = (1, 2): red 16 + 2
    npt.assert_allclose(warp.regs[8, :8].view(np.float32), 18 / 255, rtol=1e-6)


def test_a_handle_naming_no_sampler_faults_and_writes_nothing(scene: tuple[tld4.Pool, int]) -> None:
    pool, _ = scene
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    warp.uregs[4] = tld4.Pool.handle(0, 9)
    before = warp.regs.copy()
    with pytest.raises(tld4.WarpFault) as fault:
        exec_.execute(warp, pool)
    assert fault.value.kind == "unknown_sampler"
    assert fault.value.lane == 0
    npt.assert_array_equal(warp.regs, before)


def test_gather_returns_the_footprint_of_many_queries() -> None:
    # a 3x2 R32_UINT texture numbered 10 * y + x: the values name their texels
    tex = tld4.Texture("2d", "r32_uint", np.array([[0, 1, 2], [10, 11, 12]], np.uint32))
    r = tld4.gather(tex, tld4.Sampler(), np.array([[1 / 3, 0.5], [2 / 3, 0.5]]))
    assert r.dtype == np.uint32
    npt.assert_array_equal(r, [[10, 11, 1, 0], [11, 12, 2, 1]])
