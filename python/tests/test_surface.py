"""What a Python user meets first: disasm of raw code, texel_shape's promise, per-query arrays
in gather and check, and sparse residency with its flag."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest

import tld4

TEXTS = ["TLD4.R R10, R8, R4, UR4, 2D ;", "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;"]


def test_disasm_takes_raw_code_and_flat_uint64_arrays() -> None:
    words = [tld4.assemble(t) for t in TEXTS] + [0]
    expect = [tld4.decode(w).text for w in words[:2]] + [None]
    assert expect[:2] == TEXTS
    # raw code as `tld4 disasm --binary` reads it: 16 bytes a word, little-endian, low half first
    raw = b"".join(w.to_bytes(16, "little") for w in words)
    for code in (raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8)):
        assert tld4.disasm(code) == expect, type(code)
    flat = np.frombuffer(raw, np.uint64)
    assert flat.shape == (6,)
    assert tld4.disasm(flat) == expect
    assert tld4.disasm(flat.reshape(3, 2)) == expect
    spread = np.zeros(12, np.uint64)
    spread[::2] = flat
    assert tld4.disasm(spread[::2]) == expect  # not contiguous
    assert tld4.disasm(words) == expect  # ints, as before
    with pytest.raises(ValueError, match="49 bytes, not a whole number of 16-byte words"):
        tld4.disasm(raw + b"\x00")
    with pytest.raises(ValueError, match="even length"):
        tld4.disasm(flat[:5])


def test_texel_shape_does_what_its_example_says() -> None:
    doc = tld4.Texture.texel_shape.__doc__
    assert doc is not None
    examples = doctest.DocTestParser().get_examples(doc)
    assert len(examples) >= 2
    for ex in examples:
        assert repr(eval(ex.source, {"tld4": tld4})) == ex.want.strip(), ex.source
    shape, dtype = tld4.Texture.texel_shape("cube_array", "rgba16_float", 4, 4, layers=2)
    tex = tld4.Texture("cube_array", "rgba16_float", np.zeros(shape, dtype), layers=2)
    assert (tex.width, tex.height, tex.layers) == (4, 4, 2)


@pytest.mark.parametrize(
    "kind, fmt, width, height, layers",
    [
        ("2d", "r8_uint", 0, 4, 1),
        ("2d", "r8_uint", 65537, 1, 1),
        ("cube", "r32_float", 4, 8, 1),
        ("2d", "r8_uint", 4, 4, 2),
        ("2d_array", "r8_uint", 4, 4, 0),
    ],
)
def test_texel_shape_refuses_what_texture_refuses_with_its_error(
    kind: str, fmt: str, width: int, height: int, layers: int
) -> None:
    with pytest.raises(ValueError) as shape_error:
        tld4.Texture.texel_shape(kind, fmt, width, height, layers=layers)  # type: ignore[arg-type]
    lead = {"2d": [], "2d_array": [max(layers, 1)], "cube": [6]}[kind]
    dtype = {"r8_uint": np.uint8, "r32_float": np.float32}[fmt]
    texels = np.zeros([*lead, height, width], dtype)
    with pytest.raises(ValueError) as texture_error:
        tld4.Texture(kind, fmt, texels, layers=layers)  # type: ignore[arg-type]
    assert str(shape_error.value) == str(texture_error.value)


def test_texel_shape_refuses_sizes_past_the_texel_budget_and_names_bad_sizes() -> None:
    with pytest.raises(ValueError, match="MAX_TEXTURE_BYTES"):
        tld4.Texture.texel_shape("2d_array", "rgba32_float", 8192, 8192, layers=2)
    with pytest.raises(ValueError, match="width"):
        tld4.Texture.texel_shape("2d", "r8_uint", -1, 4)


def _layered_texture() -> tld4.Texture:
    rng = np.random.default_rng(44)
    shape, dtype = tld4.Texture.texel_shape("2d_array", "rgba8_unorm", 16, 8, layers=3)
    return tld4.Texture("2d_array", "rgba8_unorm", rng.integers(0, 256, shape).astype(dtype), layers=3)


def test_component_offset_kind_and_offsets_per_query_equal_one_call_a_query() -> None:
    rng = np.random.default_rng(4)
    n = 300
    tex = _layered_texture()
    smp = tld4.Sampler(address_u="repeat", address_v="mirrored_repeat")
    coords = np.column_stack([rng.uniform(-1, 2, (n, 2)), rng.integers(0, 3, n)]).astype(np.float32)
    component = rng.integers(0, 4, n)
    kinds = rng.choice(["none", "aoffi", "ptp"], n)
    offset = rng.integers(-8, 8, (n, 2))
    offsets = rng.integers(-8, 8, (n, 4, 2))
    got = tld4.gather(
        tex, smp, coords, component=component, offset_kind=kinds, offset=offset, offsets=offsets
    )
    assert got.shape == (n, 4)
    for k in range(n):
        kw: dict[str, Any] = {}
        if kinds[k] == "aoffi":
            kw["offset"] = offset[k]
        elif kinds[k] == "ptp":
            kw["offsets"] = offsets[k]
        one = tld4.gather(tex, smp, coords[k : k + 1], component=int(component[k]), **kw)
        np.testing.assert_array_equal(got[k], one[0], err_msg=f"query {k}")
    # check takes the same per-query arrays: tld4's own results are exact
    report = tld4.check(
        tex, smp, coords, got, component=component, offset_kind=kinds, offset=offset, offsets=offsets
    )
    assert (report.exact, report.wrong) == (n, 0)
    # scalars still work, numpy's as Python's
    np.testing.assert_array_equal(
        tld4.gather(tex, smp, coords, component=np.int64(2)), tld4.gather(tex, smp, coords, component=2)
    )
    np.testing.assert_array_equal(
        tld4.gather(tex, smp, coords, component=np.full(n, 2)), tld4.gather(tex, smp, coords, component=2)
    )


@pytest.mark.parametrize("kind", ["2d", "2d_array", "cube", "cube_array"])
def test_whole_blocks_of_every_kind_equal_one_call_a_query(kind: tld4.TextureKind) -> None:
    # gather transposes whole 32-row blocks at once and pads the last; one query alone is a
    # padded block of one: lanes in the wrong place or a layer converted wrongly differ
    rng = np.random.default_rng(43)
    n, layers = 101, 3
    layered = kind.endswith("array")
    shape, dtype = tld4.Texture.texel_shape(kind, "rgba8_unorm", 8, 8, layers=layers if layered else 1)
    texels = rng.integers(0, 256, size=shape).astype(dtype)
    tex = tld4.Texture(kind, "rgba8_unorm", texels, layers=layers if layered else 1)
    smp = tld4.Sampler(address_u="repeat", address_v="mirrored_repeat")
    cols = [rng.uniform(-2, 3, (n, 2))] if kind.startswith("2d") else [rng.uniform(-1, 1, (n, 3))]
    if layered:
        # halves, negatives, past the last layer, NaN and infinities among the float layers
        special = [0.5, 1.5, -0.5, -0.7, 2.5, 7.0, np.nan, np.inf, -np.inf, 65535.5]
        layer = rng.uniform(-1, layers + 1, n)
        layer[: len(special)] = special
        cols.append(layer[:, None])
    coords = np.hstack(cols).astype(np.float32)
    got = tld4.gather(tex, smp, coords)
    assert got.shape == (n, 4)
    for k in range(n):
        one = tld4.gather(tex, smp, coords[k : k + 1])
        np.testing.assert_array_equal(got[k], one[0], err_msg=f"{kind} query {k}")
    # a transposed copy (not C-contiguous) reads the same values
    np.testing.assert_array_equal(tld4.gather(tex, smp, np.asfortranarray(coords)), got)


def test_depth_reference_and_offset_kind_per_query_with_depth_compare() -> None:
    rng = np.random.default_rng(5)
    n = 120
    depth = rng.uniform(0, 1, (8, 8)).astype(np.float32)
    tex = tld4.Texture("2d", "d32_float", depth)
    smp = tld4.Sampler(compare="less")
    coords = rng.uniform(0, 1, (n, 2)).astype(np.float32)
    dref = rng.uniform(0, 1, n).astype(np.float32)
    kinds = rng.choice(["none", "aoffi"], n)
    offset = rng.integers(-2, 3, (n, 2))
    got = tld4.gather(tex, smp, coords, dref=dref, offset_kind=kinds, offset=offset)
    for k in range(n):
        kw: dict[str, Any] = {"offset": offset[k]} if kinds[k] == "aoffi" else {}
        one = tld4.gather(tex, smp, coords[k : k + 1], dref=float(dref[k]), **kw)
        np.testing.assert_array_equal(got[k], one[0], err_msg=f"query {k}")


def test_per_query_errors_name_the_argument_and_the_query() -> None:
    tex = _layered_texture()
    smp = tld4.Sampler()
    coords = np.zeros((3, 3), np.float32)
    with pytest.raises(ValueError, match=r"component\[2\]: 5 is outside 0..=3"):
        tld4.gather(tex, smp, coords, component=[0, 1, 5])
    with pytest.raises(ValueError, match=r"component: an int .* got 2 values"):
        tld4.gather(tex, smp, coords, component=[0, 1])
    with pytest.raises(TypeError, match="component"):
        tld4.gather(tex, smp, coords, component=[0.5, 1, 2])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"offset_kind\[1\]: 'aofi' is not an offset kind"):
        tld4.gather(tex, smp, coords, offset_kind=["none", "aofi", "none"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"offset_kind\[2\]: ptp, but no offsets are given"):
        tld4.gather(tex, smp, coords, offset_kind=["none", "aoffi", "ptp"], offset=(1, 1))
    with pytest.raises(ValueError, match=r"offset\[1, 0\]: offset 40 is outside -32..=31"):
        tld4.gather(tex, smp, coords, offset=[[0, 0], [40, 0], [0, 0]])
    with pytest.raises(ValueError, match="offsets: given, but offset_kind is aoffi"):
        tld4.gather(tex, smp, coords, offset_kind="aoffi", offset=(1, 1), offsets=np.zeros((4, 2)))
    with pytest.raises(ValueError, match="not both"):
        tld4.gather(tex, smp, coords, offset=(1, 1), offsets=np.zeros((4, 2)))


def _sparse_texture(**residency: Any) -> tuple[tld4.Texture, np.ndarray]:
    texels = np.arange(1, 65, dtype=np.uint32).reshape(8, 8)
    return tld4.Texture("2d", "r32_uint", texels, residency={"tile_width": 4, "tile_height": 4, **residency}), texels


# (s, t) in the top-right tile (x 4..7, y 0..3), then in the bottom-left one
SPARSE_COORDS = np.array([[0.75, 0.25], [0.25, 0.75]], np.float32)


def test_sparse_residency_reads_zeros_and_gather_reports_it() -> None:
    tex, texels = _sparse_texture(non_resident=[[0, 1, 0]])
    plain = tld4.Texture("2d", "r32_uint", texels)
    smp = tld4.Sampler()
    values, resident = tld4.gather(tex, smp, SPARSE_COORDS, return_resident=True)
    assert resident.dtype == np.bool_ and resident.tolist() == [False, True]
    assert values[0].tolist() == [0, 0, 0, 0]
    np.testing.assert_array_equal(values[1], tld4.gather(plain, smp, SPARSE_COORDS)[1])
    assert tld4.gather(plain, smp, SPARSE_COORDS, return_resident=True)[1].tolist() == [True, True]
    # per-query arrays report it too (the grouped path)
    _, r = tld4.gather(tex, smp, SPARSE_COORDS, component=[0, 1], return_resident=True)
    assert r.tolist() == [False, True]
    # the map as an array, and read back
    m = np.ones((1, 2, 2), bool)
    m[0, 0, 1] = False  # storage layer 0, tile row 0, tile column 1
    same, _ = _sparse_texture(resident=m)
    np.testing.assert_array_equal(tld4.gather(same, smp, SPARSE_COORDS), values)
    back = tex.residency
    assert back is not None and (back["tile_width"], back["tile_height"]) == (4, 4)
    np.testing.assert_array_equal(back["resident"], m)
    assert plain.residency is None
    # a texture header holds no residency: no memory form
    with pytest.raises(ValueError, match="residency"):
        tld4.Memory.from_textures([(tex, smp)])


def test_a_bad_residency_map_names_its_key() -> None:
    with pytest.raises(ValueError, match=r"residency.non_resident\[0\]"):
        _sparse_texture(non_resident=[[0, 5, 0]])
    with pytest.raises(ValueError, match="residency.resident: shape"):
        _sparse_texture(resident=np.ones((1, 3, 2), bool))
    with pytest.raises(ValueError, match="not both"):
        _sparse_texture(resident=np.ones((1, 2, 2), bool), non_resident=[])


def test_a_sparse_tld4_sets_its_predicate_and_execute_report_names_the_lanes() -> None:
    tex, _ = _sparse_texture(non_resident=[[0, 1, 0]])
    pool = tld4.Pool()
    pool.set_texture(0, tex)
    pool.set_sampler(0, tld4.Sampler())
    insn = tld4.decode(tld4.assemble("TLD4.R P0, R10, R8, R20, UR4, 2D ;"))
    exec_ = tld4.Exec(insn)
    warp = tld4.Warp()
    warp.uregs[4] = tld4.Pool.handle(0, 0)
    f = warp.regs.view(np.float32)
    f[20:22, :16] = SPARSE_COORDS[0][:, None]
    f[20:22, 16:] = SPARSE_COORDS[1][:, None]
    executed, nonresident = exec_.execute_report(warp, pool)
    assert (executed, nonresident) == (0xFFFFFFFF, 0x0000FFFF)
    # ptxas's predicate is "not resident" (docs/sources.md, What ptxas emits)
    assert warp.preds[0].tolist() == [True] * 16 + [False] * 16
    assert warp.regs[8:12, 0].tolist() == [0, 0, 0, 0]  # Rd = R8: x, y, z, w in R8..R11
    assert exec_.execute(warp, pool) == 0xFFFFFFFF
