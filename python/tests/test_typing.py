"""The stub's Literal names: mypy --strict catches a misspelt address mode, compare function
or texture kind before the code runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

SNIPPET = """
import numpy as np
import tld4

ok = tld4.Sampler(address_u="repeat", compare="less_or_equal")
bad = tld4.Sampler(address_u="repet")
also_bad = tld4.Sampler(compare="lesser")
tex = tld4.Texture("2D", "r32_float", np.zeros((4, 4), np.float32))
mode: tld4.AddressMode = ok.address_u
"""


def test_mypy_strict_catches_misspelt_names(tmp_path: Path) -> None:
    f = tmp_path / "snippet.py"
    f.write_text(SNIPPET)
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(f)],
        capture_output=True,
        text=True,
    )
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    # Exactly the three misspellings, on their lines (6, 7, 8), and nothing else.
    assert [line.split(":")[1] for line in errors] == ["6", "7", "8"], out
    assert "'repet'" in out and "'lesser'" in out and "'2D'" in out, out
