"""The lavapipe gather corpus (tests/golden/lavapipe_gather.json: random gathers whose results
Mesa's lavapipe computed) through tld4.gather, judged by the agreement rules of
tests/lavapipe_corpus.rs: our results are written into a copy of the corpus and the Rust
harness (`tld4-lavapipe compare`, oracles/lavapipe/src/classify.rs, the one place of the rules)
compares them with lavapipe's. It must find no real disagreement (bit-exact, normalized
formats within 1 ulp, sRGB colour as 8-bit codes; disagreements only at the ambiguous spots it
classifies), and as in the Rust test at least 90% of the results are bit-identical.

Each case's queries go through one tld4.gather call (grouped by component, offset mode and
compare), so this exercises numpy in and out, not a Python loop per query."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

import tld4

from conftest import GOLDEN, run_cargo

CORPUS = GOLDEN / "lavapipe_gather.json"
TEXELS = re.compile(r'"texels":\[[^\]]*\]')


def no_nan(m: re.Match[str]) -> str:
    return m.group(0).replace('"NaN"', '"0x7e00"')


RESULT = re.compile(r'"result":\[[^\]]*\]')

def num(v: Any) -> float:
    """A JSON number of the corpus as a float (strings: NaN, inf, -inf, 0x bits)."""
    if isinstance(v, str) and v.startswith("0x"):
        return float(np.uint32(int(v, 16)).view(np.float32))
    return float(v)


def f32(v: Any) -> np.float32:
    """The f32 nearest a JSON number's decimal text (loaded with parse_float=Decimal): as
    the cases files read it, without the double rounding decimal -> f64 -> f32."""
    if not isinstance(v, Decimal):
        return np.float32(num(v))
    a = np.float32(float(v))
    if not np.isfinite(a):
        return a
    with np.errstate(over="ignore"):
        near = [np.nextafter(a, np.float32(-np.inf)), a, np.nextafter(a, np.float32(np.inf))]
    return min(near, key=lambda c: (abs(Decimal(float(c)) - v), int(c.view(np.uint32)) & 1))


def field_bits(fmt: str, v: Any, width: int) -> int:
    """The raw bits of one texel field, as the cases files read them (tld4_textures::cases)."""
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    # float fields of 16 and 32 bits are given as numbers (the packed float formats as bits)
    if fmt.endswith("_float") and fmt != "r11g11b10_float":
        if width == 32:
            return int(f32(v).view(np.uint32))
        return int(np.float16(np.float64(num(v))).view(np.uint16))
    return int(v) & ((1 << width) - 1)


def texture_of(t: dict[str, Any]) -> tld4.Texture:
    fmt: str = t["format"]
    kind = t["dim"]  # (a JSON name: the stub types it as TextureKind)
    layers: int = t.get("layers", 1)
    shape, dtype = tld4.Texture.texel_shape(kind, fmt, t["width"], t["height"], layers)
    width = np.dtype(dtype).itemsize * 8
    vals = [field_bits(fmt, v, width) for v in t["texels"]]
    arr = np.array(vals, dtype=np.uint64).astype(dtype).reshape(shape)
    return tld4.Texture(kind, fmt, arr, layers=layers, swizzle=t.get("swizzle"))


def plain(v: Any) -> Any:
    """A JSON value with its Decimals as floats."""
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def result_json(v: np.generic) -> Any:
    """One result value as the cases files write it."""
    if isinstance(v, np.floating):
        f = float(v)
        if math.isnan(f):
            return "NaN"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    return int(v)


def gather_case(case: dict[str, Any]) -> list[list[Any]]:
    """Our results for every query of a case, through grouped tld4.gather calls."""
    tex = texture_of(case["texture"])
    s = case["sampler"]
    smp = tld4.Sampler(
        address_u=s["address_u"],
        address_v=s["address_v"],
        border=plain(s.get("border")),
        compare=s.get("compare"),
        seamless_cube=s.get("seamless_cube", True),
    )
    queries = case["queries"]
    groups: dict[tuple[int, str, bool], list[int]] = {}
    for k, q in enumerate(queries):
        mode = "aoffi" if "offset" in q else "ptp" if "offsets" in q else "none"
        groups.setdefault((q.get("component", 0), mode, "dref" in q), []).append(k)
    out: list[Optional[list[Any]]] = [None] * len(queries)
    for (component, mode, compare), ks in groups.items():
        coords = np.array([[f32(c) for c in queries[k]["coord"]] for k in ks], dtype=np.float32)
        offset = np.array([queries[k]["offset"] for k in ks]) if mode == "aoffi" else None
        offsets = np.array([queries[k]["offsets"] for k in ks]) if mode == "ptp" else None
        dref = np.array([f32(queries[k]["dref"]) for k in ks], dtype=np.float32) if compare else None
        r: npt.NDArray[Any] = tld4.gather(
            tex, smp, coords, component=component, offset=offset, offsets=offsets, dref=dref,
            precision=plain(case.get("precision")),
        )
        assert r.shape == (len(ks), 4)
        for row, k in zip(r, ks):
            out[k] = [result_json(v) for v in row]
    assert all(o is not None for o in out)
    return [o for o in out if o is not None]


def bits(v: Any) -> int:
    if isinstance(v, int):
        return v & 0xFFFFFFFF
    return int(f32(v).view(np.uint32))


def test_tld4_gather_agrees_with_lavapipe(tmp_path: Path) -> None:
    text = CORPUS.read_text()
    corpus = json.loads(text, parse_float=Decimal)
    total = exact = 0
    ours: list[list[Any]] = []
    for case in corpus["cases"]:
        results = gather_case(case)
        for q, r in zip(case["queries"], results):
            total += 1
            exact += [bits(v) for v in q["result"]] == [bits(v) for v in r]
            ours.append(r)
    assert total >= 20_000, total
    # our results in place of lavapipe's, every other byte of the corpus as it is
    it = iter(ours)
    text, n = RESULT.subn(lambda _: '"result":' + json.dumps(next(it)), text)
    assert n == total
    # `tld4-lavapipe compare` checks that both files hold the same textures with ==, under
    # which a NaN texel differs from itself (it refuses the golden corpus against itself):
    # both copies get the same raw bits there. Only its judging of results is used, which
    # reads no float texel (the texture unit ran on the corpus's own texels above).
    path, reference = tmp_path / "ours.json", tmp_path / "lavapipe.json"
    path.write_text(TEXELS.sub(no_nan, text))
    reference.write_text(TEXELS.sub(no_nan, CORPUS.read_text()))
    report = run_cargo(["-p", "tld4-lavapipe", "--", "compare", str(reference), str(path)])
    assert report.returncode == 0, report.stdout[-4000:] + report.stderr[-4000:]
    # the tolerances must not carry the corpus (tests/lavapipe_corpus.rs asks the same)
    assert exact * 10 >= total * 9, f"only {exact} of {total} bit-identical"
