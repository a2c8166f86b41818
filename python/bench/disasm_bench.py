"""tld4.disasm on a numpy array against the `tld4 disasm --binary` CLI on the same words, in
one run.

The words are the SM100 golden corpus (tests/golden/nvdisasm_sm100.tsv: TLD4s and refused
words, about two to one) repeated to N. The CLI side is the whole process (`tld4 disasm
--binary FILE`, its listing to /dev/null: start-up included, a few ms); the Python side is
`tld4.disasm` of the (N, 2) `uint64` array (decoding, and a list of N str or None). Rounds
alternate the two; printed: each side's rate, the ratio Python rate / CLI rate per round, its
median and spread (min..max).
Usage: python python/bench/disasm_bench.py TLD4_BINARY [N] [ROUNDS]
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import tld4
from bench_args import parser, positive

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "nvdisasm_sm100.tsv"


def main() -> None:
    p = parser(__doc__)
    p.add_argument("binary", help="the tld4 command-line tool (target/release/tld4)")
    p.add_argument("n", nargs="?", type=positive, default=1_000_000, help="words (default 1000000)")
    p.add_argument("rounds", nargs="?", type=positive, default=7, help="rounds (default 7)")
    a = p.parse_args()
    binary, n, rounds = a.binary, a.n, a.rounds
    if shutil.which(binary) is None:
        p.error(f"{binary}: not an executable file (build it: cargo build --release --bin tld4)")
    corpus = [
        int(line.split("\t", 1)[0], 16)
        for line in GOLDEN.read_text().splitlines()
        if line and not line.startswith("#")
    ]
    words = (corpus * (n // len(corpus) + 1))[:n]
    raw = b"".join(w.to_bytes(16, "little") for w in words)
    pairs = np.frombuffer(raw, np.uint64).reshape(n, 2)
    refused = sum(t is None for t in tld4.disasm(pairs[:len(corpus)]))
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(raw)
        f.flush()
        cli_times, py_times, ratios = [], [], []
        for _ in range(rounds):
            t = time.perf_counter()
            subprocess.run([binary, "disasm", "--binary", f.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            cli = time.perf_counter() - t
            t = time.perf_counter()
            tld4.disasm(pairs)
            py = time.perf_counter() - t
            cli_times.append(cli)
            py_times.append(py)
            ratios.append(cli / py)
    print(f"{n} words ({refused} of the corpus's {len(corpus)} refused), {rounds} rounds")
    print("CLI          s:", " ".join(f"{x:.3f}" for x in cli_times))
    print("tld4.disasm  s:", " ".join(f"{x:.3f}" for x in py_times))
    print(
        f"tld4.disasm rate / CLI rate: median {statistics.median(ratios):.3f}x (spread "
        f"{min(ratios):.3f}..{max(ratios):.3f}); {n / statistics.median(py_times) / 1e6:.2f} M words/s "
        f"from Python, {n / statistics.median(cli_times) / 1e6:.2f} M/s by the CLI"
    )


if __name__ == "__main__":
    main()
