"""``tld4.explain`` against ``tld4 explain``: the same text, byte for byte, and the same PNG
bytes, for committed scenarios; and its errors, with the CLI's messages."""

from __future__ import annotations

import io
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Optional

import pytest

import tld4

from conftest import REPO, run_cargo

EXAMPLE = REPO / "docs/explain-example.json"
EXAMPLE_INSN = "TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 2D"

# (instruction, scenario relative to the repository, lane): the README's example on two lanes,
# and each committed example scenario with its own instruction.
CASES = [
    (EXAMPLE_INSN, "docs/explain-example.json", 0),
    (EXAMPLE_INSN, "docs/explain-example.json", 3),
    (None, "examples/scenarios/gather_green.json", 0),
    (None, "examples/scenarios/memory_pitch_rgba8.json", 1),
    (None, "examples/cuda/gather.scenario.json", 5),
]


def cli_explain(insn: str, scenario: str, lane: int, png: Path) -> str:
    """``tld4 explain INSN --scenario S --lane N --png FILE``'s standard output, less the
    ``picture:`` lines, which the Python API gives as ``.notes`` and ``.png()``."""
    out = run_cargo(
        ["--bin", "tld4", "--", "explain", insn, "--scenario", scenario, "--lane", str(lane), "--png", str(png)]
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    cut = text.index("picture: ") if "picture: " in text else len(text)
    return text[:cut]


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, read from its IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize("insn,scenario,lane", CASES, ids=[f"{c[1]}:lane{c[2]}" for c in CASES])
def test_text_and_png_are_the_clis(
    insn: Optional[str], scenario: str, lane: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    word = tld4.Scenario.load(REPO / scenario).instruction.word if insn is None else tld4.assemble(insn)
    with tempfile.TemporaryDirectory() as d:
        png = Path(d) / "cli.png"
        cli_text = cli_explain(f"{word:032x}", scenario, lane, png)
        cli_png = png.read_bytes()
    # The CLI ran at the repository's root with the relative path, which the text names: the
    # API is given the same path from the same directory.
    monkeypatch.chdir(REPO)
    by_path = tld4.explain(word, scenario=scenario, lane=lane)
    by_text = tld4.explain(f"{word:032x}", scenario=Path(scenario), lane=lane)
    loaded = tld4.explain(tld4.decode(word), scenario=tld4.Scenario.load(scenario), lane=lane)
    for e in (by_path, by_text, loaded):
        assert e.text == cli_text
        assert e.consistent
        assert str(e) == cli_text
    assert by_path.png() == cli_png
    assert loaded.png() == cli_png
    assert png_size(cli_png)[0] > 0
    assert by_path.svg().startswith("<svg")


def test_the_instruction_alone_is_the_clis_text_and_has_no_picture() -> None:
    out = run_cargo(["--bin", "tld4", "--", "explain", EXAMPLE_INSN])
    assert out.returncode == 0, out.stderr
    e = tld4.explain(EXAMPLE_INSN)
    assert e.text == out.stdout
    assert e.text.startswith("instruction: TLD4.R.F16.RN.AOFFI R10, R8, R20, R24, UR4, 2D ;\n")
    assert e.notes == []
    with pytest.raises(tld4.ExplainError, match="no picture"):
        e.png()
    with pytest.raises(tld4.ExplainError, match="no picture"):
        e.svg()


@pytest.mark.parametrize(
    "insn",
    ["TLD4.Q R1", "00000000000000000000000000000d64", "0x12"],
)
def test_bad_instructions_raise_the_clis_message(insn: str) -> None:
    out = run_cargo(["--bin", "tld4", "--", "explain", insn])
    assert out.returncode == 2
    with pytest.raises(tld4.ExplainError) as info:
        tld4.explain(insn)
    assert out.stderr.strip() == f"error: {info.value}"
    assert isinstance(info.value, ValueError)


def test_bad_lanes_and_scenarios_are_errors_not_crashes() -> None:
    with pytest.raises(tld4.ExplainError, match="lane 32: a warp has lanes 0..31"):
        tld4.explain(EXAMPLE_INSN, scenario=EXAMPLE, lane=32)
    with pytest.raises(tld4.ExplainError, match="a lane is followed on a scenario"):
        tld4.explain(EXAMPLE_INSN, lane=1)
    with pytest.raises(OSError, match="no-such.json"):
        tld4.explain(EXAMPLE_INSN, scenario=REPO / "no-such.json")
    bad = tld4.Scenario.from_json((REPO / "docs/explain-example.json").read_text())
    e = tld4.explain(EXAMPLE_INSN, scenario=bad)
    assert "lane 0 of scenario:" in e.text


def test_the_png_decodes_and_has_the_pictures_size() -> None:
    e = tld4.explain(EXAMPLE_INSN, scenario=EXAMPLE, lane=0)
    data = e.png()
    w, h = png_size(data)
    assert w >= 100 and h >= 100
    # The IDAT stream inflates to one filter byte and three bytes a pixel per row.
    chunks = io.BytesIO(data[8:])
    idat = b""
    while True:
        head = chunks.read(8)
        if len(head) < 8:
            break
        n, kind = struct.unpack(">I4s", head)
        body = chunks.read(n)
        chunks.read(4)
        if kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + 3 * w)
