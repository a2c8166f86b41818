#!/usr/bin/env python3
"""Instructions a unit of work (a warp, a lane gather) by callgrind, where wall time swings.

Runs a command twice under `valgrind --tool=callgrind`, at two amounts of work (the `{}` in
its arguments replaced by each), and divides the difference of the two runs' instruction
counts by the difference of the work: what is done once (start-up, checks, building the
texture) cancels out. docs/benchmarks.md's "instructions a warp" figures are made so.

    python3 profiling/per_warp.py --at 1 2 --units 32768 -- \\
        target/release/examples/stream_bench cube {}
    python3 profiling/per_warp.py --at 2560 5120 --functions --env SIZE=256 ONLY=callback -- \\
        target/release/examples/bound_bench {}
    python3 profiling/per_warp.py --check profiling/checks.txt

`--units` is the work one step of `{}` stands for (stream_bench: a round of 32768 warps);
`--functions` prints each function's own instructions a unit (callgrind_annotate's
exclusive counts, differenced the same way); `--check FILE` runs the ratio checks listed in
FILE (see profiling/checks.txt) and exits 1 where one fails.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.M)
# callgrind_annotate's lines: "  1,234 (12.34%)  file:function [object]"
FUNCTION = re.compile(r"^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*?)(?:\s+\[[^\]]*\])?\s*$")


class ProfileError(Exception):
    """A run that did not give a count."""


def callgrind(command, env, at, functions):
    """The instruction count of `command` with `{}` replaced by `at` (and, with `functions`,
    each function's own count)."""
    args = [a.replace("{}", str(at)) for a in command]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *args],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if run.returncode != 0:
            tail = "\n".join(run.stderr.splitlines()[-5:])
            raise ProfileError(f"{shlex.join(args)} exited {run.returncode}:\n{tail}")
        with open(out, encoding="utf-8", errors="replace") as f:
            m = TOTALS.search(f.read())
        if not m:
            raise ProfileError(f"{out}: no totals line")
        per = {}
        if functions:
            text = subprocess.run(
                ["callgrind_annotate", "--threshold=100", out],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            for line in text.splitlines():
                f = FUNCTION.match(line)
                if f and "PROGRAM TOTALS" not in line:
                    name = f.group(2)
                    per[name] = per.get(name, 0) + int(f.group(1).replace(",", ""))
        return int(m.group(1)), per


def work_between(steps, units):
    """The units of work between the two steps (an error unless the second is larger)."""
    work = (steps[1] - steps[0]) * units
    if work <= 0:
        raise ProfileError("the second amount of work must be the larger")
    return work


def per_unit(command, env, steps, units, functions=False):
    """Instructions a unit of work: the two runs' difference over the work between them; and
    each function's, largest first."""
    work = work_between(steps, units)
    (a, fa), (b, fb) = (callgrind(command, env, s, functions) for s in steps)
    rows = sorted(
        ((fb.get(n, 0) - fa.get(n, 0)) / work, n) for n in set(fa) | set(fb)
    )
    return (b - a) / work, rows[::-1]


def parse_env(pairs):
    env = {}
    for p in pairs:
        if p == "-":  # (none)
            continue
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise ProfileError(f"--env {p!r}: not KEY=VALUE")
        env[key] = value
    return env


def check(path):
    """Each check line of `path`: `NAME | MAX | ENV_A | ENV_B | UNITS | STEP STEP | COMMAND`:
    the command's instructions a unit with ENV_A over those with ENV_B at most MAX. Returns
    the number of checks that failed. The callgrind runs (four a check) run side by side, one
    a CPU (instruction counts do not depend on what else runs); the lines print in order."""
    checks = []
    with open(path, encoding="utf-8") as f:
        lines = [(n, l.strip()) for n, l in enumerate(f, 1)]
    for n, line in lines:
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 7:
            raise ProfileError(f"{path}:{n}: 7 fields separated by '|', found {len(parts)}")
        name, most, env_a, env_b, units, steps, command = parts
        try:
            most, units = float(most), int(units)
            steps = [int(s) for s in steps.split()]
        except ValueError as e:
            raise ProfileError(f"{path}:{n}: {e}") from None
        if len(steps) != 2:
            raise ProfileError(f"{path}:{n}: two steps of work, found {len(steps)}")
        try:
            work = work_between(steps, units)
        except ProfileError as e:
            raise ProfileError(f"{path}:{n}: {e}") from None
        envs = (parse_env(env_a.split()), parse_env(env_b.split()))
        checks.append((name, most, work, steps, shlex.split(command), envs))
    jobs = max(1, min(len(os.sched_getaffinity(0)), 4 * len(checks)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        counts = [
            [[pool.submit(callgrind, cmd, env, s, False) for s in steps] for env in envs]
            for (_, _, _, steps, cmd, envs) in checks
        ]
        failed = 0
        for (name, most, work, _, _, _), runs in zip(checks, counts):
            a, b = ((end.result()[0] - start.result()[0]) / work for start, end in runs)
            ratio = a / b
            ok = ratio <= most
            failed += not ok
            print(f"{'ok' if ok else 'FAILED'}: {name}: {a:.0f} / {b:.0f} = {ratio:.3f} (at most {most})")
    return failed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--at", nargs=2, type=int, metavar=("A", "B"), help="the two amounts of work")
    p.add_argument("--units", type=int, default=1, help="units of work one step stands for")
    p.add_argument("--env", nargs="*", default=[], help="KEY=VALUE set for the command")
    p.add_argument("--functions", action="store_true", help="each function's count too")
    p.add_argument("--check", metavar="FILE", help="run the ratio checks in FILE")
    p.add_argument("command", nargs="*", help="the command, `{}` where the work goes")
    a = p.parse_args()
    try:
        if a.check:
            return 1 if check(a.check) else 0
        if not a.at or not a.command or not any("{}" in c for c in a.command):
            p.error("--at A B and a command with {} (or --check FILE)")
        total, rows = per_unit(a.command, parse_env(a.env), a.at, a.units, a.functions)
        print(f"{total:.1f} instructions a unit")
        for v, name in rows:
            if abs(v) >= 1:
                print(f"{v:9.1f}  {name}")
    except (ProfileError, OSError, subprocess.CalledProcessError) as e:
        print(f"per_warp.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
