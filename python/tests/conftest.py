"""Shared paths and the reference tools the tests compare with."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


def cargo() -> Optional[str]:
    """The cargo that builds the reference binaries (a Rust toolchain is the package's one
    prerequisite, so it is there wherever `pip install ./python` worked)."""
    return shutil.which("cargo")


def run_cargo(args: list[str], stdin: Optional[str] = None) -> subprocess.CompletedProcess[str]:
    """`cargo run -q ARGS` at the repository's root, its output as text."""
    exe = cargo()
    if exe is None:
        pytest.skip("cargo is not installed: the Rust reference cannot be built")
    env = dict(os.environ)
    env.setdefault("CARGO_TERM_COLOR", "never")
    return subprocess.run(
        [exe, "run", "-q", *args],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
