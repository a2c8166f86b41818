"""Every word of tests/golden/nvdisasm_sm100.tsv through tld4.decode, tld4.assemble and
tld4.disasm: the decoder accepts a word exactly when nvdisasm printed a TLD4, prints
nvdisasm's text (runs of spaces collapsed, as the corpus stores them), encodes the word back,
and assembles nvdisasm's text into a word with the same text; a refused word raises
DecodeError whose message is `tld4 disasm`'s. (The Rust test tests/nvdisasm_corpus.rs checks
the same corpus through the crates.) Parametrized by the corpus's groups."""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pytest

import tld4

from conftest import GOLDEN, run_cargo


class Entry(NamedTuple):
    line: int
    word: int
    verdict: str  # "tld4", "error" or "other"
    text: str


def load(name: str) -> dict[str, list[Entry]]:
    groups: dict[str, list[Entry]] = {}
    group = "(no group)"
    for n, line in enumerate((GOLDEN / name).read_text().splitlines(), 1):
        if line.startswith("# group:"):
            group = line[len("# group:") :].strip()
            continue
        if line.startswith("#") or not line.strip():
            continue
        hexword, rest = line.split("\t", 1)
        assert len(hexword) == 32, f"line {n}"
        if rest.startswith("error: "):
            entry = Entry(n, int(hexword, 16), "error", rest[len("error: ") :])
        elif rest.startswith("other: "):
            entry = Entry(n, int(hexword, 16), "other", rest[len("other: ") :])
        else:
            entry = Entry(n, int(hexword, 16), "tld4", rest)
        groups.setdefault(group, []).append(entry)
    return groups


CORPUS = load("nvdisasm_sm100.tsv")
OPEX = re.compile(r"^Opclass 'tld4_.*undefined value 0x([0-9a-f]+) for table 'TABLES_opex_0'")


def collapse(s: str) -> str:
    return " ".join(s.split())


def check(e: Entry) -> list[str]:
    bad: list[str] = []
    where = f"line {e.line}: word {e.word:032x}"
    try:
        insn = tld4.decode(e.word)
    except tld4.DecodeError as err:
        msg = str(err)
        if not msg.startswith(f"{e.word:032x}: "):
            bad.append(f"{where}: the message does not start with the word: {msg}")
        if e.verdict == "tld4":
            bad.append(f"{where}: refused ({msg}), nvdisasm prints `{e.text}`")
        m = OPEX.match(e.text) if e.verdict == "error" else None
        if m is not None and f"opex {int(m.group(1), 16):#04x}" not in msg:
            bad.append(f"{where}: refused for another reason: nvdisasm `{e.text}`, ours `{msg}`")
        if m is None and e.verdict in ("error", "other") and "TABLES_opex_0" in msg:
            bad.append(f"{where}: blames the opex table, nvdisasm: {e.text}")
        return bad
    if e.verdict != "tld4":
        return [f"{where}: accepted as `{insn.text}`, nvdisasm: {e.verdict}: {e.text}"]
    if collapse(insn.text) != collapse(e.text):
        bad.append(f"{where}: text `{insn.text}`, nvdisasm `{e.text}`")
    if insn.encode() != e.word or insn.word != e.word:
        bad.append(f"{where}: encodes to {insn.encode():032x}")
    again = tld4.decode(tld4.assemble(e.text))
    if collapse(again.text) != collapse(e.text):
        bad.append(f"{where}: text -> bits -> text gives `{again.text}`")
    return bad


@pytest.mark.parametrize("group", sorted(CORPUS))
def test_every_word_of_the_group_decodes_as_nvdisasm_prints_it(group: str) -> None:
    entries = CORPUS[group]
    bad = [b for e in entries for b in check(e)]
    assert not bad, f"{len(bad)} problems, the first: " + "\n".join(bad[:10])
    # disasm over the group as an iterable of ints and as (lo, hi) uint64 pairs
    words = [e.word for e in entries]
    expect = [tld4.decode(w).text if e.verdict == "tld4" else None for w, e in zip(words, entries)]
    assert tld4.disasm(words) == expect
    pairs = np.array([[w & (2**64 - 1), w >> 64] for w in words], dtype=np.uint64)
    assert tld4.disasm(pairs) == expect


def test_the_corpus_is_all_there() -> None:
    n = sum(len(v) for v in CORPUS.values())
    header = (GOLDEN / "nvdisasm_sm100.tsv").read_text().split("\n", 12)
    stated = next(line for line in header if line.startswith("# lines: "))
    assert n == int(stated.split()[2]), stated
    assert len(CORPUS) > 3


def test_errors_carry_the_cli_message_and_the_column() -> None:
    with pytest.raises(tld4.DecodeError) as err:
        tld4.decode(0)
    assert isinstance(err.value, ValueError)
    assert str(err.value).startswith("0" * 32 + ": ")
    with pytest.raises(tld4.AsmError) as aerr:
        tld4.assemble("TLD4.R R10, R8, Q4, UR4, 2D ;")
    # 1-based column of `Q4`
    assert aerr.value.column == "TLD4.R R10, R8, Q4, UR4, 2D ;".index("Q4") + 1, str(aerr.value)
    assert str(aerr.value).startswith(f"column {aerr.value.column}: ")
    with pytest.raises(ValueError):
        tld4.decode(0, arch="sm_1")


def test_decode_error_messages_are_tld4_disasms() -> None:
    refused = [e.word for g in CORPUS.values() for e in g if e.verdict != "tld4"][::20]
    assert len(refused) > 100
    cli = run_cargo(["--bin", "tld4", "--", "disasm"], stdin="".join(f"{w:032x}\n" for w in refused))
    lines = cli.stdout.splitlines()
    assert len(lines) == len(refused), cli.stderr
    for w, line in zip(refused, lines):
        with pytest.raises(tld4.DecodeError) as err:
            tld4.decode(w)
        assert line == f"error: {err.value}"
