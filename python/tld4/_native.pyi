"""Type stub of tld4's native module (checked by mypy --strict on python/tests)."""

import os
from typing import Any, Iterable, Literal, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, os.PathLike[str]]
_Border = Union[str, Mapping[str, Sequence[float]]]
_Precision = Union[str, Mapping[str, Union[int, str]], None]
AddressMode = Literal[
    "repeat", "mirrored_repeat", "clamp_to_edge", "clamp_to_border", "mirror_clamp_to_edge"
]
"""A sampler's address mode (Vulkan's VkSamplerAddressMode, as the JSON files name it)."""
CompareFunction = Literal[
    "never", "less", "equal", "less_or_equal", "greater", "not_equal", "greater_or_equal", "always"
]
"""A depth-compare sampler's function (VkCompareOp): ``dref OP texel``."""
TextureKind = Literal["2d", "2d_array", "cube", "cube_array"]
"""A texture's kind: 2D, 2D array, cube (six faces) or cube array (six faces a layer)."""

FAULT_KINDS: list[str]

class DecodeError(ValueError):
    """A word nvdisasm refuses; the message is the one ``tld4 disasm`` prints after ``error: ``."""

class AsmError(ValueError):
    """Text that is no TLD4; ``column`` is the 1-based column where parsing stopped."""

    column: int

class WarpFault(Exception):
    """A warp exception raised by TLD4."""

    kind: str
    """The Rust ``FaultKind`` name: ``illegal_encoding``, ``register_out_of_range``,
    ``misaligned_register``, ``unknown_texture_header``, ``unknown_sampler``,
    ``invalid_texture``, ``invalid_config`` or ``not_modeled``."""
    lane: Optional[int]
    """The lowest lane concerned, for faults that depend on a lane."""

class ScenarioError(ValueError):
    """A scenario that does not load; the message is ``tld4 run``'s."""

    path: str
    """The JSON path the error concerns (``lanes[2].R4``...)."""

class ScanError(ValueError):
    """A file (or an entry of it) ``tld4 scan`` cannot read."""

class ExplainError(ValueError):
    """An instruction, scenario or lane ``tld4 explain`` refuses (the message is the CLI's),
    or a picture asked of an explanation that has none."""

class Instruction:
    """A decoded TLD4 of one architecture."""

    @property
    def text(self) -> str:
        """nvdisasm's text, exactly as ``tld4 disasm`` prints it."""
    @property
    def word(self) -> int:
        """The 128-bit word (``hi << 64 | lo``)."""
    @property
    def arch(self) -> str:
        """The architecture (``sm_100``...)."""
    @property
    def fields(self) -> dict[str, int]:
        """Every field, name -> raw value, as ``tld4 disasm --fields`` lists them."""
    @property
    def field_meanings(self) -> dict[str, str]:
        """Every base-table field, name -> meaning."""
    @property
    def scheduling(self) -> dict[str, int]:
        """usched_info, batch_t, dst_wr_sb, src_rel_sb, req_bit_set, pm_pred, opex."""
    def used_registers(self) -> list[tuple[str, Literal["read", "cond_read", "cond_write"]]]:
        """The registers read and written, as (name, access) pairs."""
    def encode(self) -> int:
        """The word encoded back."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def decode(word: int, arch: str = "sm_100") -> Instruction:
    """Decodes a 128-bit word; raises ``DecodeError`` where nvdisasm refuses it."""

def assemble(text: str, arch: str = "sm_100") -> int:
    """Assembles nvdisasm's text into its word; raises ``AsmError`` with ``.column``."""

def disasm(
    words: Union[Iterable[int], npt.NDArray[np.uint64]], arch: str = "sm_100"
) -> list[Optional[str]]:
    """nvdisasm's text of each word (None where refused); a numpy array is (n, 2) (lo, hi)."""

class Texture:
    """A texture: kind, format, size and texels (see the package docs for shapes)."""

    def __init__(
        self,
        kind: TextureKind,
        format: str,
        texels: npt.ArrayLike,
        layers: int = 1,
        swizzle: Union[str, Sequence[str], None] = None,
    ) -> None: ...
    @staticmethod
    def texel_shape(
        kind: TextureKind, format: str, width: int, height: int, layers: int = 1
    ) -> tuple[list[int], str]:
        """The shape and (unsigned) dtype of the texels this texture takes."""
    @property
    def kind(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def layers(self) -> int: ...
    def raw_fields(self) -> npt.NDArray[np.uint32]:
        """Every texel's raw fields, (storage layers, h, w, 4)."""

class Sampler:
    """A sampler, with the names of the JSON files."""

    def __init__(
        self,
        address_u: AddressMode = "clamp_to_edge",
        address_v: AddressMode = "clamp_to_edge",
        border: Optional[_Border] = None,
        compare: Optional[CompareFunction] = None,
        seamless_cube: bool = True,
        normalized_coords: bool = True,
    ) -> None: ...
    @property
    def address_u(self) -> AddressMode: ...
    @property
    def address_v(self) -> AddressMode: ...
    @property
    def border_words(self) -> tuple[int, int, int, int]: ...
    @property
    def compare(self) -> Optional[CompareFunction]: ...
    @property
    def seamless_cube(self) -> bool: ...
    @property
    def normalized_coords(self) -> bool: ...

def gather(
    texture: Texture,
    sampler: Sampler,
    coords: npt.ArrayLike,
    component: int = 0,
    offset: Optional[npt.ArrayLike] = None,
    offsets: Optional[npt.ArrayLike] = None,
    dref: Union[float, npt.ArrayLike, None] = None,
    precision: _Precision = None,
) -> npt.NDArray[Any]:
    """The (n, 4) gathered values of n queries, in gather order."""

class CheckReport:
    """Conformance verdicts on observed gathers (``check``)."""

    @property
    def exact(self) -> int:
        """Queries bit for bit tld4's result."""
    @property
    def allowed(self) -> int:
        """Queries inside the Khronos CTS's gather bounds, not tld4's result."""
    @property
    def wrong(self) -> int:
        """Queries outside the CTS's bounds."""
    @property
    def queries(self) -> int:
        """Queries checked."""
    @property
    def details(self) -> list[dict[str, Any]]:
        """Per query: ``verdict`` ("exact", "allowed", "wrong"), ``explanation``, ``model``
        and ``observed`` (the four values' 32-bit patterns), ``details`` (JSON)."""
    @property
    def wrong_indices(self) -> list[int]:
        """The indices of the wrong queries."""

def check(
    texture: Texture,
    sampler: Sampler,
    coords: npt.ArrayLike,
    observed: npt.ArrayLike,
    component: int = 0,
    offset: Optional[npt.ArrayLike] = None,
    offsets: Optional[npt.ArrayLike] = None,
    dref: Union[float, npt.ArrayLike, None] = None,
    precision: _Precision = None,
) -> CheckReport:
    """Verdicts on n observed gathers ((n, 4) values) of the queries ``gather`` takes:
    exact (tld4's), allowed (inside the Khronos CTS's bounds) or wrong."""

def _rust_gather_lanes_seconds(
    texture: Texture, sampler: Sampler, coords: npt.ArrayLike, repeat: int = 5
) -> list[float]: ...

class Warp:
    """A warp of 32 lanes whose registers are numpy arrays."""

    active_mask: int
    regs_per_thread: int

    def __init__(self, active_mask: int = 0xFFFFFFFF, regs_per_thread: int = 255) -> None: ...
    @property
    def regs(self) -> npt.NDArray[np.uint32]:
        """R0..R254: a writable (255, 32) view, ``regs[r, lane]``."""
    @property
    def uregs(self) -> npt.NDArray[np.uint32]:
        """UR0..UR254: a writable (255,) view."""
    @property
    def preds(self) -> npt.NDArray[np.bool_]:
        """P0..P6: a writable (7, 32) view, ``preds[p, lane]``."""

class Pool:
    """Texture headers and samplers by index."""

    def __init__(self) -> None: ...
    def set_texture(self, index: int, texture: Texture) -> None: ...
    def set_sampler(self, index: int, sampler: Sampler) -> None: ...
    @staticmethod
    def handle(texture: int, sampler: int) -> int:
        """The 32-bit handle of a header and a sampler index."""

class Memory:
    """GPU memory holding texture headers, samplers and texels."""

    header_pool: int
    sampler_pool: int

    def __init__(
        self,
        data: Union[bytes, bytearray, memoryview],
        base: int,
        header_pool: int,
        sampler_pool: int,
    ) -> None: ...
    @staticmethod
    def from_textures(
        entries: Sequence[tuple[Texture, Sampler]],
        base: int = 0x10000,
        layout: Optional[Literal["block-linear", "pitch"]] = None,
    ) -> Memory:
        """Textures and samplers laid out as a driver does, from ``base``: header ``i`` and
        sampler ``i`` describe ``entries[i]``. Without ``layout``, block-linear for 4-, 8- and
        16-byte texels and pitch for 1- and 2-byte formats (2-D), which the model lays out
        block-linear only at 4 bytes and more."""
    @staticmethod
    def from_ranges(
        ranges: Sequence[tuple[int, Union[bytes, bytearray, memoryview]]],
        header_pool: int,
        sampler_pool: int,
    ) -> Memory: ...
    def regions(self) -> list[tuple[int, bytes]]: ...
    def read(self, address: int, n: int) -> bytes: ...

def texture_descriptors(
    texture: Texture, sampler: Sampler, address: int, layout: str = "block-linear"
) -> tuple[bytes, bytes, bytes]:
    """(texture header, sampler, texel bytes) as a driver writes them."""

def sampler_descriptor(sampler: Sampler) -> bytes:
    """The 32-byte sampler descriptor (TSC)."""

class Exec:
    """A decoded instruction prepared for execution."""

    def __init__(
        self, instruction: Instruction, config: Optional[Mapping[str, Any]] = None
    ) -> None: ...
    def execute(self, warp: Warp, pool: Pool) -> int:
        """The mask of executed lanes; raises ``WarpFault``."""
    def execute_memory(
        self, warp: Warp, memory: Memory
    ) -> tuple[int, npt.NDArray[np.uint64]]:
        """(executed lanes, (32, 4) texel addresses); raises ``WarpFault``."""

class ScenarioResult:
    """What running a scenario gave, as ``tld4 run`` computes it."""

    @property
    def passed(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def lanes(self) -> list[Optional[dict[str, Union[int, bool]]]]: ...
    @property
    def fault(self) -> Optional[str]: ...
    @property
    def fault_message(self) -> Optional[str]: ...
    @property
    def lines(self) -> list[str]: ...

class Scenario:
    """A JSON scenario of ``tld4 run``."""

    @staticmethod
    def load(path: _Path, confine: bool = False) -> Scenario: ...
    @staticmethod
    def from_json(text: str, base_dir: Optional[_Path] = None) -> Scenario: ...
    @property
    def instruction(self) -> Instruction: ...
    def warnings(self) -> list[str]: ...
    def run(self) -> ScenarioResult: ...

def scan(path: str) -> list[tuple[str, str, int, int, str, str]]: ...

class Explanation:
    """What ``tld4 explain`` prints for one TLD4, and the picture ``--png``/``--svg`` draw."""

    @property
    def text(self) -> str:
        """The text, exactly as ``tld4 explain`` prints it."""
    @property
    def consistent(self) -> bool:
        """False when the lane's predicted writes differ from the emulator's (a bug of tld4)."""
    @property
    def notes(self) -> list[str]:
        """What the picture leaves out and why; empty without a picture."""
    def png(self) -> bytes:
        """The picture as PNG bytes; raises ``ExplainError`` when there is none."""
    def svg(self) -> str:
        """The picture as an SVG document; raises ``ExplainError`` when there is none."""

def explain(
    instruction: Union[str, int, Instruction],
    scenario: Union[Scenario, _Path, None] = None,
    lane: int = 0,
    arch: str = "sm_100",
) -> Explanation:
    """``tld4 explain INSTRUCTION [--scenario S.json --lane N] [--arch ARCH]``: its text and
    picture. Raises ``ExplainError`` with the CLI's message for bad input."""
