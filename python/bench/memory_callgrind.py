"""memory_bench.py's loops in instructions executed (callgrind), a count the load does not
change: for each workload and memory (ranges, callback), the whole process runs under
`valgrind --tool=callgrind` twice, with N and 2N `execute_memory` calls after the first fetch;
the difference of their totals over N is the instructions a call (Python's own included).
Usage: python python/bench/memory_callgrind.py [N]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import WARPS, Backing, workload  # noqa: E402
from bench_args import parser, positive  # noqa: E402


def loop(kind: str, form: str, n: int) -> None:
    """The measured process: n calls of a workload over one memory form."""
    laid_out, exec_, warps = workload(kind, np.random.default_rng(20261206))
    regions = [(a, bytes(b)) for a, b in laid_out.regions()]
    pools = (laid_out.header_pool, laid_out.sampler_pool)
    if form == "ranges":
        mem = tld4.Memory.from_ranges(regions, *pools)
    else:
        mem = tld4.Memory.from_callback(Backing(regions).read, *pools)
    for w in warps:
        exec_.execute_memory(w, mem)
    for i in range(n):
        exec_.execute_memory(warps[i % WARPS], mem)


def instructions(kind: str, form: str, n: int) -> int:
    """Callgrind's total for the process running `loop(kind, form, n)`."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, "--loop", kind, form, str(n)],
            check=True,
            capture_output=True,
        )
        totals = re.search(r"^(?:summary|totals): (\d+)", Path(out).read_text(), re.MULTILINE)
        assert totals, "no totals in callgrind's output"
        return int(totals.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--loop"]:
        loop(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    p = parser(__doc__)
    p.add_argument("n", nargs="?", type=positive, default=2000, help="calls (default 2000)")
    n = p.parse_args().n
    for kind in ("2d", "cube_array"):
        per_call = {form: (instructions(kind, form, 2 * n) - instructions(kind, form, n)) / n for form in ("ranges", "callback")}
        print(
            f"{kind:10} instructions a call: ranges {per_call['ranges']:.0f}, callback "
            f"{per_call['callback']:.0f} ({per_call['callback'] / per_call['ranges']:.3f}x)"
        )


if __name__ == "__main__":
    main()
