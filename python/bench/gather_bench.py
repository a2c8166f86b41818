"""tld4.gather against the Rust texture unit on the same queries, for every texture kind, in
one run.

The Rust side is `Gatherer::gather_lanes` over the queries already packed into 32-lane
blocks (`tld4._native._rust_gather_lanes_seconds`: packing not timed); the Python side is the
whole `tld4.gather` call (reading the numpy coordinates, packing, converting float layers,
gathering, writing the (n, 4) result). For each kind (2d, 2d_array, cube, cube_array:
RGBA8 256x256, 4 layers, repeat / mirrored repeat), rounds alternate the two; the ratio of
each round is kept, and the median and the spread (min..max) printed per kind.
Usage: python python/bench/gather_bench.py [N] [ROUNDS] [FORMAT]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import numpy.typing as npt

import tld4
from tld4 import _native
from bench_args import parser, positive

KINDS: list[tld4.TextureKind] = ["2d", "2d_array", "cube", "cube_array"]
LAYERS = 4


def queries(kind: tld4.TextureKind, n: int, rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """n queries of a kind: (s, t) in -2..3, float layers in -0.5..LAYERS-0.5, cube directions."""
    if kind in ("2d", "2d_array"):
        cols = [rng.uniform(-2.0, 3.0, size=(n, 2))]
    else:
        cols = [rng.uniform(-1.0, 1.0, size=(n, 3))]
    if kind.endswith("array"):
        cols.append(rng.uniform(-0.5, LAYERS - 0.5, size=(n, 1)))
    return np.hstack(cols).astype(np.float32)


def main() -> None:
    p = parser(__doc__)
    p.add_argument("n", nargs="?", type=positive, default=1_000_000, help="queries a call (default 1000000)")
    p.add_argument("rounds", nargs="?", type=positive, default=7, help="rounds a kind (default 7)")
    p.add_argument("format", nargs="?", default="rgba8_unorm", help="the texel format (default rgba8_unorm)")
    a = p.parse_args()
    n, rounds, fmt = a.n, a.rounds, a.format
    try:
        tld4.Texture.texel_shape("2d", fmt, 1, 1)
    except ValueError as e:
        p.error(f"format {fmt!r}: {e}")
    rng = np.random.default_rng(20261203)
    smp = tld4.Sampler(address_u="repeat", address_v="mirrored_repeat")
    print(f"{n} queries a call, {fmt} 256x256 ({LAYERS} layers for arrays), {rounds} rounds a kind")
    for kind in KINDS:
        layers = LAYERS if kind.endswith("array") else 1
        shape, dtype = tld4.Texture.texel_shape(kind, fmt, 256, 256, layers=layers)
        texels = rng.integers(0, 256, size=shape).astype(dtype)
        tex = tld4.Texture(kind, fmt, texels, layers=layers)
        coords = queries(kind, n, rng)
        tld4.gather(tex, smp, coords[:1000])  # warm up (first-call setup, a cube's apron)
        ratios, py_times, rust_times = [], [], []
        for _ in range(rounds):
            t = time.perf_counter()
            tld4.gather(tex, smp, coords)
            py = time.perf_counter() - t
            rust = _native._rust_gather_lanes_seconds(tex, smp, coords, 1)[0]
            py_times.append(py)
            rust_times.append(rust)
            ratios.append(py / rust)
        med = statistics.median(ratios)
        print(
            f"{kind:10} tld4.gather / Rust gather_lanes: median {med:.3f}x (spread "
            f"{min(ratios):.3f}..{max(ratios):.3f}); {n / statistics.median(py_times) / 1e6:.1f} M "
            f"queries/s from Python, {n / statistics.median(rust_times) / 1e6:.1f} M/s in Rust"
        )


if __name__ == "__main__":
    main()
