"""Compares, kernel by kernel, GPGPU-Sim's texture-cache accesses with tld4's sector count.

The simulator prints its statistics after each kernel (`kernel_name = ...`, then
`L1T_total_cache_accesses = N`, counted from the start of the program); the gather test
prints `TLD4_SECTORS CASE N`, tld4's distinct 32-byte sectors a warp summed over the
kernel's warps, for each tld4 kernel in launch order. Kernels without texture accesses
(plain loads, vector add) are skipped. Usage: python3 check_sectors.py LOG
"""

import re
import sys


def main(path: str) -> int:
    text = open(path, encoding="utf-8", errors="replace").read()
    kernels = []  # (name, L1T accesses during that kernel)
    last_total = 0
    name = None
    for line in text.splitlines():
        m = re.match(r"kernel_name = (\S+)", line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r"\s*L1T_total_cache_accesses = (\d+)", line)
        if m and name is not None:
            total = int(m.group(1))
            kernels.append((name, total - last_total))
            last_total = total
            name = None
    tex_kernels = [(n, a) for n, a in kernels if "kplain" not in n]
    expected = [(c, int(n)) for c, n in re.findall(r"^TLD4_SECTORS (\S+) (\d+)$", text, re.M)]
    if len(tex_kernels) != len(expected):
        print(f"FAIL sectors: {len(tex_kernels)} tld4 kernels in the statistics, "
              f"{len(expected)} TLD4_SECTORS lines")
        return 1
    bad = 0
    for (kname, got), (case, want) in zip(tex_kernels, expected):
        ok = got == want
        bad += not ok
        print(f"  {'PASS' if ok else 'FAIL'} sectors {case}: texture-cache accesses {got}, "
              f"tld4 sectors {want} ({kname})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
