"""tld4.gather against the Rust texture unit in instructions executed (callgrind), for every
texture kind: counts that a loaded machine does not change, where gather_bench.py's wall
times swing.

Runs itself under `valgrind --tool=callgrind`, collecting only inside the two native calls
(`tld4.gather`, and `_rust_gather_lanes_seconds`, whose packing is removed by taking the
difference of its runs with repeat=3 and repeat=1: what is left is two passes of
`Gatherer::gather_lanes` over prepacked blocks, the Rust side of gather_bench.py), one dump a
call. Prints per kind the instructions a query on each side and their ratio.
Usage: python python/bench/gather_callgrind.py [N]
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import tld4
from tld4 import _native

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gather_bench import KINDS, LAYERS, queries  # noqa: E402
from bench_args import parser, positive  # noqa: E402



def child(n: int) -> None:
    rng = np.random.default_rng(20261203)
    smp = tld4.Sampler(address_u="repeat", address_v="mirrored_repeat")
    for kind in KINDS:
        layers = LAYERS if kind.endswith("array") else 1
        shape, dtype = tld4.Texture.texel_shape(kind, "rgba8_unorm", 256, 256, layers=layers)
        tex = tld4.Texture(kind, "rgba8_unorm", rng.integers(0, 256, size=shape).astype(dtype), layers=layers)
        coords = queries(kind, n, rng)
        tld4.gather(tex, smp, coords[:64])
        tld4.gather(tex, smp, coords)
        _native._rust_gather_lanes_seconds(tex, smp, coords, 1)
        _native._rust_gather_lanes_seconds(tex, smp, coords, 3)


def dumps(function: str, n: int) -> list[int]:
    """The instructions of each call of `function` in a run of the child under callgrind (one
    run a function: two --toggle-collect options in one run collected nothing)."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cg.out"
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}"]
        cmd += [f"--toggle-collect={function}", f"--dump-after={function}"]
        env = dict(os.environ, TLD4_CALLGRIND_CHILD="1")
        subprocess.run([*cmd, sys.executable, __file__, str(n)], env=env, check=True, capture_output=True)
        files = [p for p in Path(d).glob("cg.out.*") if p.suffix[1:].isdigit()]
        totals = []
        for p in sorted(files, key=lambda p: int(p.suffix[1:])):
            m = re.search(r"^summary: (\d+)", p.read_text(), re.M)
            assert m, p
            totals.append(int(m.group(1)))
        return totals


def main() -> None:
    p = parser(__doc__)
    p.add_argument("n", nargs="?", type=positive, default=100_000, help="queries a call (default 100000)")
    n = p.parse_args().n
    if os.environ.get("TLD4_CALLGRIND_CHILD"):
        child(n)
        return
    gathers = dumps("*__pyfunction_gather", n)
    rusts = dumps("*__pyfunction__rust_gather_lanes_seconds", n)
    assert len(gathers) == len(rusts) == 2 * len(KINDS), (gathers, rusts)
    print(f"{n} queries a call, RGBA8 256x256 ({LAYERS} layers for arrays); instructions (callgrind)")
    for k, kind in enumerate(KINDS):
        py, (r1, r3) = gathers[2 * k + 1], rusts[2 * k : 2 * k + 2]
        rust = (r3 - r1) / 2
        print(
            f"{kind:10} tld4.gather {py / n:7.1f} a query, Rust gather_lanes {rust / n:7.1f}: "
            f"ratio {py / rust:.3f}x"
        )


if __name__ == "__main__":
    main()
