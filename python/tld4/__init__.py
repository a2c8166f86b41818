"""tld4: a bit-accurate emulator of NVIDIA's TLD4 (texture gather), from Python.

Decode, assemble and disassemble TLD4 words exactly as nvdisasm does; gather from textures
held in numpy arrays with the lane-parallel software texture unit; execute an instruction
for a warp whose registers are a numpy array; run the JSON scenarios of ``tld4 run``; explain
an instruction and one lane's path as ``tld4 explain`` does, with its picture; scan compiled
code for TLD4s. Every value comes from the Rust crates of the tld4 workspace.

>>> import numpy as np, tld4
>>> tld4.decode(tld4.assemble("TLD4.R R10, R8, R4, UR4, 2D ;")).text
'TLD4.R R10, R8, R4, UR4, 2D ;'
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple, Union

if TYPE_CHECKING:
    # (the stub's Literal names, for annotations: tld4.AddressMode, ...)
    from ._native import AddressMode as AddressMode
    from ._native import CompareFunction as CompareFunction
    from ._native import OffsetKind as OffsetKind
    from ._native import Residency as Residency
    from ._native import TextureKind as TextureKind

from ._native import (
    FAULT_KINDS,
    AsmError,
    CheckReport,
    DecodeError,
    Exec,
    ExplainError,
    Explanation,
    Instruction,
    Memory,
    Pool,
    Sampler,
    Scenario,
    ScenarioError,
    ScenarioResult,
    ScanError,
    Texture,
    Warp,
    WarpFault,
    assemble,
    check,
    decode,
    disasm,
    explain,
    gather,
    sampler_descriptor,
    texture_descriptors,
)
from ._native import scan as _scan

__all__ = [
    "FAULT_KINDS",
    "AsmError",
    "CheckReport",
    "DecodeError",
    "Exec",
    "ExplainError",
    "Explanation",
    "Instruction",
    "Memory",
    "Pool",
    "Sampler",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "ScanError",
    "ScanRow",
    "Texture",
    "Warp",
    "WarpFault",
    "assemble",
    "check",
    "decode",
    "disasm",
    "explain",
    "gather",
    "sampler_descriptor",
    "scan",
    "texture_descriptors",
]


class ScanRow(NamedTuple):
    """One TLD4 found by ``scan``: the columns ``tld4 scan`` prints, in its order."""

    file: str
    """The file, then ``(member)`` for an archive member and ``#n`` for a fat-binary entry."""
    kernel: str
    """The kernel's name."""
    offset: int
    """The instruction's byte offset in the kernel's code."""
    word: int
    """The 128-bit word."""
    text: str
    """The cubin's architecture's nvdisasm text, ``error: <why>`` for a word nvdisasm refuses,
    or ``not modeled: <why>`` for a form tld4 does not model yet."""
    arch: str
    """The cubin's architecture (``sm_90``, ``sm_100a``...)."""

    def __str__(self) -> str:
        """The row as ``tld4 scan`` prints it (tab-separated)."""
        return f"{self.file}\t{self.kernel}\t{self.offset:#06x}\t{self.word:032x}\t{self.text}\t{self.arch}"


def scan(path: Union[str, os.PathLike[str]]) -> list[ScanRow]:
    """Every TLD4 in a cubin, fat binary, host ELF file or archive: the rows ``tld4 scan``
    prints, for every architecture from sm_75 to sm_121 (each cubin read with its own
    architecture's tables); raises ``ScanError`` with the CLI's
    message where the file or one of its entries cannot be read."""
    return [ScanRow(*row) for row in _scan(os.fspath(path))]
