#!/usr/bin/env python3
"""Which opcodes print as TLD4 on each architecture nvdisasm knows, and how the forms differ.

The generator of tests/golden/nvdisasm_arches.txt (docs/sources.md, "TLD4 on every
architecture"). Standard library only; needs nvdisasm (`bash oracles/nvdisasm/install.sh`).

    python3 oracles/nvdisasm/arches.py --seed 20261203 --random 40 \
        --out tests/golden/nvdisasm_arches.txt

What it does, for every architecture `nvdisasm -b` accepts:
1. opcode scan: every one of the 4,096 opcodes on the ptxas base word and on --random random
   128-bit words (opcode bits replaced); an opcode is a TLD4 form when any of its words
   prints with the mnemonic TLD4;
2. grouping: the words of tests/golden/nvdisasm_sm100.tsv whose opcode is a TLD4 form on
   some architecture, plus the scan's words of those opcodes, disassembled for every
   architecture; architectures whose verdicts (text with spaces collapsed, or the refusal
   message) agree on every one of them are one family;
3. per family and form: every single-bit flip of a base word of the form, printed where it
   differs from the base (the field positions, INVALID values and refusals of that form).
"""

import argparse
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

ARCHS = ("SM75 SM80 SM86 SM87 SM88 SM89 SM90 SM90a SM100 SM100a SM100f SM101 SM101a SM101f "
         "SM103 SM103a SM103f SM107 SM107a SM107f SM110 SM110a SM110f SM120 SM120a SM120f "
         "SM121 SM121a SM121f").split()

# What ptxas 13.5 emits for PTX tld4.g.2d with an offset on sm_100 (docs/sources.md).
PTXAS_BASE = 0x00000000089E1F0A_20FF04181C087F63
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nvdisasm_path():
    out = subprocess.run(["bash", os.path.join(ROOT, "oracles/nvdisasm/install.sh")],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


class Nvdisasm:
    """nvdisasm -b ARCH on raw words; refusals found as oracles/nvdisasm/src/nvdisasm.rs
    does (addressed refusals recorded, the rest rerun, bisection where no address is given)."""

    def __init__(self, path):
        self.path = path
        self.dir = tempfile.mkdtemp(prefix="tld4-arches-")
        self.runs = 0

    def version(self):
        out = subprocess.run([self.path, "--version"], capture_output=True, text=True).stdout
        return next(l.strip() for l in out.splitlines() if "release" in l)

    def _run(self, words, arch):
        f = os.path.join(self.dir, "w.bin")
        with open(f, "wb") as fh:
            for w in words:
                fh.write(struct.pack("<QQ", w & (2**64 - 1), w >> 64))
        p = subprocess.run([self.path, "-b", arch, f], capture_output=True, text=True)
        self.runs += 1
        lines = {}
        for line in p.stdout.splitlines():
            m = re.match(r"\s*/\*([0-9a-f]+)\*/\s*(.*)$", line)
            if m:
                lines[int(m.group(1), 16) // 16] = m.group(2).strip()
        errs, bare = {}, []
        for line in p.stderr.splitlines():
            if not line.startswith("nvdisasm error"):
                continue
            msg = line.split(":", 1)[1].strip()
            m = re.search(r" at address 0x([0-9a-f]+)$", msg)
            if m:
                errs.setdefault(int(m.group(1), 16) // 16, msg[: m.start()].strip())
            else:
                bare.append(msg)
        return p.returncode == 0, lines, errs, bare

    def verdicts(self, words, arch):
        """One string per word: the text (spaces collapsed), `error: MSG` or `other: TEXT`."""
        out = [None] * len(words)
        todo = [list(range(len(words)))]
        while todo:
            idx = todo.pop()
            if not idx:
                continue
            ok, lines, errs, bare = self._run([words[i] for i in idx], arch)
            if ok:
                for k, i in enumerate(idx):
                    out[i] = classify(lines.get(k))
            elif errs:
                for k, m in errs.items():
                    out[idx[k]] = "error: " + m
                todo.append([i for k, i in enumerate(idx) if k not in errs])
            elif len(idx) == 1:
                out[idx[0]] = "error: " + "; ".join(bare)
            else:
                h = len(idx) // 2
                todo += [idx[:h], idx[h:]]
        return out


def classify(text):
    if text is None:
        return "other: (nothing printed)"
    text = " ".join(text.split())
    body = text.split(" ", 1)[1] if text.startswith("@") else text
    return text if re.split(r"[. ;]", body)[0] == "TLD4" else "other: " + text


def is_tld4(v):
    return not v.startswith(("error: ", "other: "))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--random", type=int, default=40, help="random words per opcode and arch")
    ap.add_argument("--out", default="-")
    ap.add_argument("--archs", default=",".join(ARCHS))
    ap.add_argument("--corpus", metavar="DIR",
                    help="write the per-family golden corpora into DIR instead of the report")
    ap.add_argument("--corpus-random", type=int, default=1500,
                    help="random words a family corpus holds")
    ap.add_argument("--families", default="",
                    help="with --corpus: only these families (comma-separated names)")
    args = ap.parse_args()
    if args.corpus:
        return write_corpora(args)
    archs = args.archs.split(",")
    nd = Nvdisasm(nvdisasm_path())
    rng = random.Random(args.seed)
    out = []
    say = out.append
    say("# TLD4 on every architecture of nvdisasm -b: opcode scan, families, bit flips")
    say(f"# generated by oracles/nvdisasm/arches.py with {nd.version()}")
    say(f"# command: python3 oracles/nvdisasm/arches.py --seed {args.seed} "
        f"--random {args.random} --out tests/golden/nvdisasm_arches.txt")
    # 1. opcode scan: the same words for every architecture.
    scan = []
    for op in range(4096):
        scan.append((PTXAS_BASE & ~0xFFF) | op)
        for _ in range(args.random):
            scan.append((rng.getrandbits(128) & ~0xFFF) | op)
    forms = {}
    tld4_scan_words = {}
    say("")
    say(f"## opcode scan ({len(scan)} words an architecture: every opcode on the ptxas base "
        f"and on {args.random} random words)")
    for a in archs:
        v = nd.verdicts(scan, a)
        ops = {}
        for w, x in zip(scan, v):
            if is_tld4(x):
                ops.setdefault(w & 0xFFF, []).append(w)
        forms[a] = sorted(ops)
        for op, ws in ops.items():
            tld4_scan_words.setdefault(op, set()).update(ws)
        say(f"{a}\t" + (" ".join(f"{op:#05x}({len(ops[op])})" for op in sorted(ops)) or "none"))
        print(a, "scanned", file=sys.stderr, flush=True)
    all_ops = sorted({op for a in archs for op in forms[a]})
    # 2. grouping.
    words = []
    with open(os.path.join(ROOT, "tests/golden/nvdisasm_sm100.tsv")) as fh:
        for line in fh:
            if not line.startswith("#"):
                w = int(line.split("\t")[0], 16)
                if w & 0xFFF in all_ops:
                    words.append(w)
    seen = set(words)
    for op in all_ops:
        for w in sorted(tld4_scan_words[op]):
            if w not in seen:
                seen.add(w)
                words.append(w)
    verdicts = {a: nd.verdicts(words, a) for a in archs}
    families = []
    for a in archs:
        for fam in families:
            if verdicts[fam[0]] == verdicts[a] and forms[fam[0]] == forms[a]:
                fam.append(a)
                break
        else:
            families.append([a])
    say("")
    say(f"## families: identical verdicts on all {len(words)} words with a TLD4 opcode "
        f"(the SM100 corpus's and the scan's TLD4 words)")
    for fam in families:
        n = sum(1 for x in verdicts[fam[0]] if is_tld4(x))
        say(f"{' '.join(fam)}\tforms {' '.join(f'{op:#05x}' for op in forms[fam[0]]) or 'none'}"
            f"\t{n} TLD4, {len(words) - n} not")
    # 3. bit flips per family and form.
    for fam in families:
        a = fam[0]
        for op in forms[a]:
            base = (PTXAS_BASE & ~0xFFF) | op
            if not is_tld4(nd.verdicts([base], a)[0]):
                base = min(w for w, x in zip(words, verdicts[a]) if w & 0xFFF == op and is_tld4(x))
            flips = [base] + [base ^ (1 << i) for i in range(12, 128)]
            v = nd.verdicts(flips, a)
            say("")
            say(f"## {a} form {op:#05x}: base {base:032x} = {v[0]}")
            say("# bit\ttext with the bit flipped (bits that change nothing are left out)")
            for i, x in enumerate(v[1:]):
                if x != v[0]:
                    say(f"{i + 12}\t{x}")
    text = "\n".join(out) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as fh:
            fh.write(text)
    print(f"nvdisasm runs: {nd.runs}", file=sys.stderr)


# The families of tests/golden/nvdisasm_arches.txt: (name, the architecture the corpus is
# made with, its TLD4 opcodes). The report shows every member of a family prints alike.
FAMILIES = [
    ("sm_75", "SM75", [0x364, 0xB63, 0xB65, 0xF63]),
    ("sm_80", "SM80", [0x364, 0xB63, 0xB65, 0xF63]),
    ("sm_100", "SM100", [0xD64, 0xF63]),
    ("sm_107", "SM107", []),
    ("sm_120", "SM120", [0xD64, 0xF63, 0xF64]),
]


# What each pre-SM100 form requires (decoder/src/fields/arch_rows.rs: bit 91 clear; on SM75
# bit 59 set in 0x364 and 0xb65): (family, opcode) -> [(bit, value)]. The corpus sets them in
# 97% of a form's words (a random generator of its own, so the other families' words stay as
# they were), and adds the single-bit flips of the ptxas base with them set.
FORM_REQUIRED = {
    ("sm_75", 0x364): [(91, 0), (59, 1)],
    ("sm_75", 0xB63): [(91, 0)],
    ("sm_75", 0xB65): [(91, 0), (59, 1)],
    ("sm_80", 0x364): [(91, 0)],
    ("sm_80", 0xB63): [(91, 0)],
    ("sm_80", 0xB65): [(91, 0)],
}


def with_required(w, bits):
    for b, v in bits:
        w = (w & ~(1 << b)) | (v << b)
    return w


# Scheduling values around the one that makes nvdisasm close the text with `;` and no space
# before it (usched_info, batch_t, dst_wr_sb, src_rel_sb, req_bit_set = 0, 0, 7, 7, 0;
# decoder/src/scheduling.rs), and each of its fields changed once.
SCHEDULING = [(0, 0, 7, 7, 0), (1, 0, 7, 7, 0), (1, 1, 7, 7, 0), (0, 0, 6, 7, 0),
              (0, 0, 7, 6, 0), (0, 0, 7, 7, 1), (0, 0, 7, 7, 0x20), (0, 0, 0, 0, 0)]


def with_scheduling(w, values):
    """`w` with bits 124:105 holding usched_info, dst_wr_sb, src_rel_sb, req_bit_set and
    batch_t as `values` gives them."""
    usched, batch, wr, rd, req = values
    w &= ~(((1 << 20) - 1) << 105)
    return w | usched << 105 | wr << 110 | rd << 113 | req << 116 | batch << 122


def write_corpora(args):
    """tests/golden/nvdisasm_arch_<family>.tsv: every opcode on the ptxas base word, every
    single-bit flip of the ptxas base in each TLD4 form of the family, the structured words of
    the SM100 corpus (bases, flips, field values; --corpus-random of them) in those forms, and random words of the SM100
    corpus (biased toward legal TLD4s) with the opcode set to one of the family's forms."""
    nd = Nvdisasm(nvdisasm_path())
    rng = random.Random(args.seed)
    structured, randoms = [], []
    with open(os.path.join(ROOT, "tests/golden/nvdisasm_sm100.tsv")) as fh:
        rows = [l for l in fh if not l.startswith("#")]
    # The corpus's last 10,000 words are its random ones (its header).
    for i, line in enumerate(rows):
        w = int(line.split("\t")[0], 16)
        (randoms if i >= len(rows) - 10000 else structured).append(w)
    families = args.families.split(",") if args.families else [f[0] for f in FAMILIES]
    for name, arch, ops in FAMILIES:
        if name not in families:
            continue
        words, seen = [], set()
        bias = random.Random(f"{args.seed}-{name}")

        def form_word(w):
            req = FORM_REQUIRED.get((name, w & 0xFFF))
            return with_required(w, req) if req and bias.random() < 0.97 else w

        def add(w):
            if w not in seen:
                seen.add(w)
                words.append(w)
        for op in range(4096):
            add((PTXAS_BASE & ~0xFFF) | op)
        for op in ops:
            base = (PTXAS_BASE & ~0xFFF) | op
            for i in range(12, 128):
                add(base ^ (1 << i))
            req = FORM_REQUIRED.get((name, op))
            if req:
                legal = with_required(base, req)
                add(legal)
                for i in range(12, 128):
                    add(legal ^ (1 << i))
            for values in SCHEDULING:
                add(with_scheduling(with_required(base, req or []), values))
        tld4 = [w for w in structured if w & 0xFFF in (0xD64, 0xF63)]
        for w in rng.sample(tld4, min(args.corpus_random, len(tld4))):
            if ops:
                add(form_word((w & ~0xFFF) | rng.choice(ops)))
        for w in rng.sample(randoms, min(args.corpus_random, len(randoms))):
            if ops:
                add(form_word((w & ~0xFFF) | rng.choice(ops)))
        v = nd.verdicts(words, arch)
        path = os.path.join(args.corpus, f"nvdisasm_arch_{name}.tsv")
        with open(path, "w") as fh:
            fh.write(f"# nvdisasm golden corpus for TLD4 on the {name} family: words in listings\n")
            fh.write(f"# generated by oracles/nvdisasm/arches.py with {nd.version()}, "
                     f"`nvdisasm -b {arch} FILE`\n")
            fh.write(f"# command: python3 oracles/nvdisasm/arches.py --seed {args.seed} "
                     f"--corpus-random {args.corpus_random} --corpus tests/golden\n")
            fh.write("# spacing: runs of spaces collapsed to one\n")
            for w, x in zip(words, v):
                fh.write(f"{w:032x}\t{x}\n")
        n = sum(1 for x in v if is_tld4(x))
        print(f"{name}: {len(words)} words, {n} TLD4", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
