"""The package's surface: zero-copy registers, argument checks with their messages, depth
compare, F16 halves, memory-backed execution with texel addresses, scan and descriptors."""

from __future__ import annotations

import numpy as np
import numpy.testing as npt
import pytest

import tld4

from conftest import REPO


def test_the_register_view_is_the_warps_storage() -> None:
    warp = tld4.Warp()
    regs = warp.regs
    assert regs.shape == (255, 32) and regs.dtype == np.uint32 and regs.flags.writeable
    regs[3, 5] = 42
    assert warp.regs[3, 5] == 42  # the same memory, no copy
    assert np.shares_memory(warp.regs, regs)
    assert warp.uregs.shape == (255,) and warp.preds.shape == (7, 32)


def test_texels_of_the_wrong_shape_or_dtype_name_what_is_expected() -> None:
    with pytest.raises(ValueError, match=r"expected shape \(h, w, 4\) and dtype uint8"):
        tld4.Texture("2d", "rgba8_unorm", np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match=r"expected shape \(6, h, w\) and dtype uint32 or float32"):
        tld4.Texture("cube", "d32_float", np.zeros((6, 4, 4), np.float64))
    tld4.Texture("cube", "d32_float", np.zeros((6, 4, 4), np.float32))
    with pytest.raises(ValueError, match="coords"):
        tld4.gather(tld4.Texture("2d", "r8_uint", np.zeros((2, 2), np.uint8)), tld4.Sampler(), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="address_u"):
        tld4.Sampler(address_u="sideways")  # type: ignore[arg-type]


def test_depth_compare_and_f16_halves() -> None:
    depth = np.array([[0.25, 0.75], [0.5, 1.0]], np.float32)
    tex = tld4.Texture("2d", "d32_float", depth)
    smp = tld4.Sampler(compare="less")
    r = tld4.gather(tex, smp, np.array([[0.5, 0.5]]), dref=0.6)
    # dref < d: texels (0,1)=0.5, (1,1)=1.0, (1,0)=0.75, (0,0)=0.25
    npt.assert_array_equal(r, [[0.0, 1.0, 1.0, 0.0]])
    pool = tld4.Pool()
    pool.set_texture(0, tld4.Texture("2d", "r32_float", depth))
    pool.set_sampler(0, tld4.Sampler())
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    warp.regs.view(np.float32)[20:22] = 0.5
    exec_.execute(warp, pool)
    halves = warp.regs[[8, 10], 0].copy().view(np.float16)  # Rd = R8: (x, y), Rd2 = R10: (z, w), low half first
    npt.assert_array_equal(halves, np.array([0.5, 1.0, 0.75, 0.25], np.float16))


def test_memory_backed_execution_gives_the_owned_result_and_texel_addresses() -> None:
    texels = np.arange(16, dtype=np.uint32).reshape(4, 4)
    tex, smp = tld4.Texture("2d", "r32_uint", texels), tld4.Sampler()
    mem = tld4.Memory.from_textures([(tex, smp)], base=0x10000, layout="pitch")
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    warp.regs.view(np.float32)[20:22] = 0.5
    executed, addresses = exec_.execute_memory(warp, mem)
    assert executed == 0xFFFFFFFF
    assert addresses.shape == (32, 4) and addresses.dtype == np.uint64
    # the texels (1,2), (2,2), (2,1), (1,1): values 9, 10, 6, 5
    npt.assert_array_equal(warp.regs[8:12, 0], [9, 10, 6, 5])
    # each address holds its texel's value
    for a, v in zip(addresses[0], warp.regs[8:12, 0]):
        assert int.from_bytes(mem.read(int(a), 4), "little") == v
    # the same image as a flat byte image with its pools
    header, sampler, data = tld4.texture_descriptors(tex, smp, 0x2000, layout="pitch")
    assert len(header) == 32 and sampler == tld4.sampler_descriptor(smp) and len(data) >= 64
    image = bytearray(0x2000 + len(data))
    image[0:32], image[0x100:0x120], image[0x2000:] = header, sampler, data
    flat = tld4.Memory(image, base=0, header_pool=0, sampler_pool=0x100)
    warp2 = tld4.Warp()
    warp2.regs.view(np.float32)[20:22] = 0.5
    exec_.execute_memory(warp2, flat)
    npt.assert_array_equal(warp2.regs[8:12], warp.regs[8:12])
    # the same bytes as ranges far apart: pools, texels and an unrelated range
    ranged = tld4.Memory.from_ranges(
        [(0, image[:0x200]), (0x2000, image[0x2000:]), (1 << 40, bytes(64))],
        header_pool=0,
        sampler_pool=0x100,
    )
    warp3 = tld4.Warp()
    warp3.regs.view(np.float32)[20:22] = 0.5
    exec_.execute_memory(warp3, ranged)
    npt.assert_array_equal(warp3.regs[8:12], warp.regs[8:12])
    with pytest.raises(ValueError, match="range 1: address 0x100 is below the end of range 0"):
        tld4.Memory.from_ranges([(0, bytes(0x200)), (0x100, bytes(4))], 0, 0x100)


def test_a_missing_header_in_memory_is_a_fault_with_its_kind() -> None:
    mem = tld4.Memory(bytes(64), base=0, header_pool=0x1000, sampler_pool=0x2000)
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    with pytest.raises(tld4.WarpFault) as e:
        exec_.execute_memory(tld4.Warp(), mem)
    assert e.value.kind == "unknown_texture_header"


def test_scan_finds_the_committed_cubins_tld4s() -> None:
    cubins = sorted((REPO / "tests/cubins").glob("*.cubin"))
    assert cubins
    rows = [r for c in cubins for r in tld4.scan(c)]
    assert rows
    archs = {r.arch for r in rows}
    assert {"sm_75", "sm_90", "sm_100", "sm_120"} <= archs, archs
    for r in rows:
        assert r.arch.startswith("sm_") and r.offset % 16 == 0
        if not r.text.startswith(("error: ", "not modeled: ")):
            assert tld4.decode(r.word, arch=r.arch).text == r.text
        assert str(r).split("\t")[-1] == r.arch
    with pytest.raises(tld4.ScanError):
        tld4.scan(REPO / "README.md")


def test_fault_kinds_are_the_rust_names() -> None:
    assert "unknown_sampler" in tld4.FAULT_KINDS and "not_modeled" in tld4.FAULT_KINDS


def test_gather_lets_other_threads_run() -> None:
    """While a long gather runs in one thread, another Python thread keeps running: the
    gather does not hold the GIL. (The main thread records the times it ran; some must fall
    in the middle half of the gather.)"""
    import threading
    import time

    tex = tld4.Texture("2d", "rgba8_unorm", np.zeros((64, 64, 4), np.uint8))
    coords = np.random.default_rng(1).uniform(0, 1, size=(4_000_000, 2)).astype(np.float32)
    window: list[float] = []

    def work() -> None:
        window.append(time.perf_counter())
        tld4.gather(tex, tld4.Sampler(), coords)
        window.append(time.perf_counter())

    t = threading.Thread(target=work)
    ticks: list[float] = []
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    start, end = window
    quarter = (end - start) / 4
    inside = [x for x in ticks if start + quarter < x < end - quarter]
    assert inside, f"no tick during the gather's middle half ({end - start:.3f} s, {len(ticks)} ticks)"


def test_exec_takes_sm100_family_words_only() -> None:
    word = tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;", arch="sm_120")
    with pytest.raises(ValueError, match="SM100-family"):
        tld4.Exec(tld4.decode(word, arch="sm_120"))
    tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;", arch="sm_103"), arch="sm_103"))


def test_fractional_offsets_raise_instead_of_truncating() -> None:
    texels = np.arange(16, dtype=np.float32).reshape(4, 4)
    tex = tld4.Texture("2d", "r32_float", texels)
    smp = tld4.Sampler(address_u="repeat", address_v="repeat")
    coords = np.array([[0.5, 0.5]], np.float32)
    whole = tld4.gather(tex, smp, coords, offset=(1, 0))
    # A float that is whole is the same offset.
    npt.assert_array_equal(tld4.gather(tex, smp, coords, offset=(1.0, 0.0)), whole)
    with pytest.raises(ValueError, match=r"offset: offsets are whole texels"):
        tld4.gather(tex, smp, coords, offset=(1.5, 0))
    with pytest.raises(ValueError, match=r"offset: offsets are whole texels"):
        tld4.gather(tex, smp, coords, offset=np.array([[0.0, float("nan")]]))
    ptp = np.zeros((4, 2))
    ptp[2, 1] = 0.5
    with pytest.raises(ValueError, match=r"offsets: offsets are whole texels"):
        tld4.gather(tex, smp, coords, offsets=ptp)


def test_memory_from_textures_default_layout_takes_one_and_two_byte_formats() -> None:
    smp = tld4.Sampler()
    coords_reg = np.float32(0.5)
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    for fmt, dtype in [("r8_uint", np.uint8), ("r16_uint", np.uint16), ("rg8_uint", np.uint8)]:
        shape, _ = tld4.Texture.texel_shape("2d", fmt, 4, 4)
        texels = (np.arange(int(np.prod(shape))) % 200).astype(dtype).reshape(shape)
        tex = tld4.Texture("2d", fmt, texels)
        mem = tld4.Memory.from_textures([(tex, smp)])
        warp = tld4.Warp()
        warp.regs.view(np.float32)[20:22] = coords_reg
        exec_.execute_memory(warp, mem)
        # the same values as the owned texture
        pool = tld4.Pool()
        pool.set_texture(0, tex)
        pool.set_sampler(0, smp)
        owned = tld4.Warp()
        owned.regs.view(np.float32)[20:22] = coords_reg
        exec_.execute(owned, pool)
        npt.assert_array_equal(warp.regs[8:12], owned.regs[8:12], err_msg=fmt)
    # asked for explicitly, block-linear still says why it refuses a 1-byte format
    r8 = tld4.Texture("2d", "r8_uint", np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError):
        tld4.Memory.from_textures([(r8, smp)], layout="block-linear")
