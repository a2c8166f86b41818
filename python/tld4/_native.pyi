"""Type stub of tld4's native module (checked by mypy --strict on python/tests)."""

import os
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Sequence, TypedDict, Union, overload

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
OffsetKind = Literal["none", "aoffi", "ptp"]
"""A gather's offsets: none, one (dx, dy) for the footprint (AOFFI), or four (PTP)."""
_OffsetKinds = Union[OffsetKind, Sequence[OffsetKind], npt.NDArray[np.str_], None]
_PerQueryInt = Union[int, np.integer[Any], Sequence[int], npt.NDArray[np.integer[Any]]]
_Residency = Mapping[str, Any]
_ReadResult = Union[bytes, bytearray, memoryview, npt.NDArray[np.uint8], None]

class Residency(TypedDict):
    """A sparse texture's residency map, as ``Texture.residency`` gives it."""

    tile_width: int
    tile_height: int
    resident: npt.NDArray[np.bool_]

FAULT_KINDS: list[str]

class DecodeError(ValueError):
    """A word nvdisasm refuses: the message is the one ``tld4 disasm`` prints after ``error: ``."""

class AsmError(ValueError):
    """Text that is no TLD4: ``.column`` is the 1-based column where parsing stopped."""

    column: int

class WarpFault(Exception):
    """A warp exception raised by TLD4: ``.kind`` is the Rust ``FaultKind`` name (``unknown_sampler``, ...), ``.lane`` the lowest lane concerned or None."""

    kind: str
    """The Rust ``FaultKind`` name: ``illegal_encoding``, ``register_out_of_range``,
    ``misaligned_register``, ``unknown_texture_header``, ``unknown_sampler``,
    ``invalid_texture``, ``invalid_config`` or ``not_modeled``."""
    lane: Optional[int]
    """The lowest lane concerned, for faults that depend on a lane."""

class ScenarioError(ValueError):
    """A scenario that cannot be loaded: the message is ``tld4 run``'s, with its JSON path; ``.path`` is that path."""

    path: str
    """The JSON path the error concerns (``lanes[2].R4``...)."""

class ScanError(ValueError):
    """A file ``tld4 scan`` cannot read (or an entry of it): the message is the CLI's."""

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
        """The architecture the word was decoded for (``sm_100``, ...)."""
    @property
    def fields(self) -> dict[str, int]:
        """Every field, name -> raw value, as ``tld4 disasm --fields`` lists them (the family's
        own rows after the base table's)."""
    @property
    def field_meanings(self) -> dict[str, str]:
        """Each field's meaning, name -> text, as the last column of ``tld4 disasm --fields``."""
    @property
    def scheduling(self) -> dict[str, int]:
        """The scheduling-control fields: a dict of ``usched_info``, ``batch_t``, ``dst_wr_sb``,
        ``src_rel_sb``, ``req_bit_set``, ``pm_pred`` and ``opex`` (raw values)."""
    def used_registers(self) -> list[tuple[str, Literal["read", "cond_read", "cond_write"]]]:
        """The registers the instruction reads and writes, as (name, access) pairs: ``R8``,
        ``UR4``, ``P0``...; access ``read`` (every active lane), ``cond_read`` (executing lanes),
        ``cond_write``."""
    def encode(self) -> int:
        """The word encoded back (equal to ``.word`` up to bits nvdisasm ignores)."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def decode(word: int, arch: str = "sm_100") -> Instruction:
    """Decodes one 128-bit word (``hi << 64 | lo``) for ``arch``. Raises ``DecodeError`` (a
    ``ValueError``) with ``tld4 disasm``'s message where nvdisasm refuses the word."""

def assemble(text: str, arch: str = "sm_100") -> int:
    """Assembles nvdisasm's text of one TLD4 into its word. Raises ``AsmError`` (a ``ValueError``)
    with ``.column`` where the text is no TLD4."""

def disasm(
    words: Union[bytes, bytearray, memoryview, Iterable[int], npt.NDArray[np.uint64], npt.NDArray[np.uint8]],
    arch: str = "sm_100",
) -> list[Optional[str]]:
    """nvdisasm's text of each word, None for a word nvdisasm refuses (``arch`` as for
    ``decode``). ``words``: raw code (``bytes``, ``bytearray``, ``memoryview`` or a flat ``uint8`` array:
    16-byte words, little-endian, low half first, as ``tld4 disasm --binary`` reads a file); a
    numpy ``uint64`` array of (lo, hi) halves as they lie in memory, of shape (n, 2) or flat of
    even length; or an iterable of ints. Raw code of a length not a multiple of 16 is a
    ``ValueError``. Decodes without the GIL."""

class Texture:
    """A texture: kind, format, size and texels.

    ``Texture(kind, format, texels, layers=1, swizzle=None, residency=None)``: ``kind`` one of ``"2d"``,
    ``"2d_array"``, ``"cube"``, ``"cube_array"``; ``format`` a format name (``"rgba8_unorm"``,
    ``"d32_float"``...); ``texels`` a numpy array of shape ``(h, w, fields)`` for 2D (the last axis
    left out for one-field formats), with a leading axis of storage layers for the other
    kinds (``layers``, 6, or ``6 * layers``, faces +X, -X, +Y, -Y, +Z, -Z), whose dtype holds
    the fields' bits: ``uint8``/``uint16``/``uint32`` as the format stores them (or ``int8``..
    ``int32`` for signed formats, ``float16``/``float32`` for float formats); packed formats
    (``rgb10a2_unorm``, ``r11g11b10_float``, ``rgb9e5``, ``d24_unorm_s8_uint``) take ``uint32`` bit
    fields. ``swizzle``: four sources, e.g. ``"bgra"`` or ``["r", "r", "r", "one"]``.
    ``residency``: a sparse residency map (docs/sources.md, Decisions: sparse residency), a dict of
    ``tile_width``, ``tile_height`` and either ``non_resident`` (a list of [storage layer, tile x,
    tile y], as in the JSON files) or ``resident`` (a ``bool`` array of shape (storage layers,
    tiles down, tiles across)); a gather whose footprint touches a non-resident tile reads
    zeros and reports it (``gather(..., return_resident=True)``, a sparse TLD4's predicate)."""

    def __init__(
        self,
        kind: TextureKind,
        format: str,
        texels: npt.ArrayLike,
        layers: int = 1,
        swizzle: Union[str, Sequence[str], None] = None,
        residency: Optional[_Residency] = None,
    ) -> None: ...
    @staticmethod
    def texel_shape(
        kind: TextureKind, format: str, width: int, height: int, layers: int = 1
    ) -> tuple[tuple[int, ...], str]:
        """The shape and dtype of the texels a texture of this kind, format and size takes, as
        a numpy shape tuple and the unsigned dtype of the raw bits (``uint8``, ``uint16`` or
        ``uint32``; signed and float formats also take the signed or float dtype of the same
        width). Sizes ``Texture`` refuses raise the ``ValueError`` it raises. For example
        (python/tests/test_surface.py runs it):

        >>> tld4.Texture.texel_shape("cube", "d32_float", 8, 8)
        ((6, 8, 8), 'uint32')
        >>> tld4.Texture.texel_shape("2d_array", "rgba8_unorm", 16, 4, layers=3)
        ((3, 4, 16, 4), 'uint8')"""
    @property
    def kind(self) -> str:
        """``"2d"``, ``"2d_array"``, ``"cube"`` or ``"cube_array"``."""
    @property
    def format(self) -> str:
        """The format's name."""
    @property
    def width(self) -> int:
        """Width in texels."""
    @property
    def height(self) -> int:
        """Height in texels."""
    @property
    def layers(self) -> int:
        """Layers (whole cubes for a cube array)."""
    @property
    def residency(self) -> Optional[Residency]:
        """The sparse residency map, or None: a dict of ``tile_width``, ``tile_height`` and
        ``resident``, a ``bool`` array of shape (storage layers, tiles down, tiles across), True
        where the tile is resident."""
    def raw_fields(self) -> npt.NDArray[np.uint32]:
        """The raw fields of every texel, as a ``uint32`` array of shape (storage layers, h, w, 4)
        (fields past the format's are 0)."""

class Sampler:
    """A sampler, with the names of the JSON files.

    `Sampler(address_u="clamp_to_edge", address_v="clamp_to_edge",
    border="float_transparent_black", compare=None, seamless_cube=True,
    normalized_coords=True)`: address modes
    ``repeat``, ``mirrored_repeat``, ``clamp_to_edge``, ``clamp_to_border``,
    ``mirror_clamp_to_edge``; ``border`` a Vulkan name or ``{"float": [r, g, b, a]}``, `{"int":
    [...]}``, ``{"words": [...]}``; ``compare`` None (off) or ``never``, ``less``, ``equal`,
    ``less_or_equal``, ``greater``, ``not_equal``, ``greater_or_equal``, ``always``;
    ``normalized_coords=False``: coordinates in texels, u = s (CUDA's ``normalizedCoords = 0``),
    with clamp to edge or clamp to border on 2D and 2D array textures (docs/sources.md,
    Unnormalized coordinates)."""

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
    def address_u(self) -> AddressMode:
        """The address mode of s."""
    @property
    def address_v(self) -> AddressMode:
        """The address mode of t."""
    @property
    def border_words(self) -> tuple[int, int, int, int]:
        """The border colour's four raw words."""
    @property
    def compare(self) -> Optional[CompareFunction]:
        """The depth compare function, or None."""
    @property
    def seamless_cube(self) -> bool:
        """Seamless cube edges."""
    @property
    def normalized_coords(self) -> bool:
        """Normalized coordinates (False: in texels)."""

@overload
def gather(
    texture: Texture,
    sampler: Sampler,
    coords: npt.ArrayLike,
    component: _PerQueryInt = 0,
    offset: Optional[npt.ArrayLike] = None,
    offsets: Optional[npt.ArrayLike] = None,
    dref: Union[float, npt.ArrayLike, None] = None,
    precision: _Precision = None,
    offset_kind: _OffsetKinds = None,
    return_resident: Literal[False] = False,
) -> npt.NDArray[Any]:
    """Gathers the 2x2 footprint of each query, computed by the lane-parallel texture unit 32
    queries at a time, without the GIL.

    ``coords``: an (n, k) array, k = 2 (2d: s, t), 3 (2d_array: s, t, layer; cube: x, y, z) or
    4 (cube_array: x, y, z, layer); layers are floats, rounded as NVIDIA's compiler does
    (floor(layer + 0.5)). Per query or one for all (an int, a name, a pair, a number, or an
    array of n of them; errors name the argument and the query's index): ``component`` 0..3;
    ``offset`` (dx, dy) or (n, 2) for AOFFI; ``offsets`` (4, 2) or (n, 4, 2) for PTP;
    ``offset_kind`` ``"none"``, ``"aoffi"`` or ``"ptp"``, or (n,) of them (by default the kind of
    whichever of ``offset`` and ``offsets`` is given; with a kind per query both may be given,
    each query reading its kind's); ``dref`` a number or (n,) for depth compare (the sampler's
    compare function must be set). ``precision`` as in the JSON files. Returns an (n, 4) array
    in gather order (i0,j1), (i1,j1), (i1,j0), (i0,j0): ``float32``, or ``uint32`` / ``int32`` for
    integer formats (without depth compare); with ``return_resident=True``, a pair (values,
    resident), ``resident`` an (n,) ``bool`` array, False where the footprint touched a
    non-resident tile of a sparse texture (whose values are then 0: a sparse TLD4's
    predicate, docs/sources.md, Decisions: sparse residency)."""
@overload
def gather(
    texture: Texture,
    sampler: Sampler,
    coords: npt.ArrayLike,
    component: _PerQueryInt = 0,
    offset: Optional[npt.ArrayLike] = None,
    offsets: Optional[npt.ArrayLike] = None,
    dref: Union[float, npt.ArrayLike, None] = None,
    precision: _Precision = None,
    offset_kind: _OffsetKinds = None,
    *,
    return_resident: Literal[True],
) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]: ...

class CheckReport:
    """The verdicts on a set of observed gathers."""

    @property
    def exact(self) -> int:
        """Queries bit for bit tld4's result."""
    @property
    def allowed(self) -> int:
        """Queries inside the CTS's bounds but not tld4's."""
    @property
    def wrong(self) -> int:
        """Queries outside the CTS's bounds."""
    @property
    def queries(self) -> int:
        """Queries checked."""
    @property
    def details(self) -> list[dict[str, Any]]:
        """Per query: ``verdict`` ("exact", "allowed", "wrong"), ``explanation``, ``model`` and
        ``observed`` (the four values' 32-bit patterns) and ``details`` (the verdict as JSON)."""
    @property
    def wrong_indices(self) -> list[int]:
        """The indices of the wrong queries."""

def check(
    texture: Texture,
    sampler: Sampler,
    coords: npt.ArrayLike,
    observed: npt.ArrayLike,
    component: _PerQueryInt = 0,
    offset: Optional[npt.ArrayLike] = None,
    offsets: Optional[npt.ArrayLike] = None,
    dref: Union[float, npt.ArrayLike, None] = None,
    precision: _Precision = None,
    offset_kind: _OffsetKinds = None,
) -> CheckReport:
    """Conformance verdicts on observed gathers: the queries as ``gather`` takes them, ``observed``
    an (n, 4) array of the results someone got (float32 values, or integers for UINT/SINT
    formats). Each query is exact (tld4's result bit for bit), allowed (inside the Khronos
    CTS's gather bounds) or wrong; returns a ``CheckReport``. ``component``, ``offset_kind``,
    ``offset``, ``offsets`` and ``dref`` per query or shared, as ``gather`` takes them."""

def _rust_gather_lanes_seconds(
    texture: Texture, sampler: Sampler, coords: npt.ArrayLike, repeat: int = 5
) -> list[float]: ...

class Warp:
    """A warp of 32 lanes: ``regs`` a writable (255, 32) ``uint32`` numpy array (register r of
    lane l at ``regs[r, l]``; write floats with ``regs.view(numpy.float32)``), ``uregs`` (255,)
    ``uint32``, ``preds`` (7, 32) ``bool``, ``active_mask`` (bit l: lane l active; all 32 by default)
    and ``regs_per_thread`` (255 by default). The arrays are views of the warp's storage:
    executing writes into it, and what you write into them is what the instruction reads.
    Their shape cannot change the storage (``resize`` of a view fails; a view reshaped in place
    is only that view), and an execution checks the storage's shape before reading it.
    Executions of one warp from several threads take turns."""

    active_mask: int
    """Bit ``l`` set: lane ``l`` is active."""
    regs_per_thread: int
    """Registers a thread has (an operand at or past it faults); at most 255."""

    def __init__(self, active_mask: int = 0xFFFFFFFF, regs_per_thread: int = 255) -> None: ...
    @property
    def regs(self) -> npt.NDArray[np.uint32]:
        """The general registers: a writable (255, 32) ``uint32`` view, ``regs[r, lane]``."""
    @property
    def uregs(self) -> npt.NDArray[np.uint32]:
        """The uniform registers UR0..UR254: a writable (255,) ``uint32`` view."""
    @property
    def preds(self) -> npt.NDArray[np.bool_]:
        """The predicates P0..P6: a writable (7, 32) ``bool`` view, ``preds[p, lane]``."""

class Pool:
    """A texture pool: texture headers and samplers by index, as a handle names them."""

    def __init__(self) -> None: ...
    def set_texture(self, index: int, texture: Texture) -> None:
        """Puts ``texture`` at header index ``index`` (0..2^20-1)."""
    def set_sampler(self, index: int, sampler: Sampler) -> None:
        """Puts ``sampler`` at sampler index ``index`` (0..4095)."""
    @staticmethod
    def handle(texture: int, sampler: int) -> int:
        """The 32-bit handle of header ``texture`` and sampler ``sampler`` (bits 19:0 and 31:20),
        to put in the register the instruction reads it from."""

class Memory:
    """GPU memory holding texture headers, samplers and texels.

    ``Memory(data, base, header_pool, sampler_pool)``: ``data`` a bytes-like image mapped at
    address ``base``; header ``i`` is read at ``header_pool + 32 * i``, sampler ``j`` at
    ``sampler_pool + 32 * j`` (the descriptors' layouts are ``texture_descriptors``')."""

    header_pool: int
    """Address of texture header 0."""
    sampler_pool: int
    """Address of sampler 0."""

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
        """Lays out textures and samplers as a driver does, from ``base``: header ``i`` and sampler
        ``i`` describe ``entries[i]``, a (texture, sampler) pair; texels in ``layout``
        (``"block-linear"``, or ``"pitch"`` for 2-D textures). Without ``layout``, each texture is
        block-linear where the model lays its texels out so (4-, 8- and 16-byte texels) and
        pitch otherwise (1- and 2-byte formats, 2-D: docs/python.md)."""
    @staticmethod
    def from_ranges(
        ranges: Sequence[tuple[int, Union[bytes, bytearray, memoryview]]],
        header_pool: int,
        sampler_pool: int,
    ) -> Memory:
        """Memory made of many ranges, as a simulator holds its sparse GPU memory: ``ranges`` a
        list of ``(address, data)`` (each ``data`` bytes-like, copied), sorted by address, none
        overlapping the one before, none past 2^64 (``ValueError`` naming the range's index
        otherwise); header ``i`` at ``header_pool + 32 * i``, sampler ``j`` at `sampler_pool + 32
        * j`. A texture lying in one range is read in place, as from one flat range."""
    @staticmethod
    def from_callback(
        read: Callable[[int, int], _ReadResult],
        header_pool: int,
        sampler_pool: int,
    ) -> Memory:
        """Memory read through ``read(address, size)``, a function returning the ``size`` bytes at
        ``address`` (``bytes``, ``bytearray``, ``memoryview`` or a ``uint8`` numpy array), or None
        where they cannot be read (then read as unmapped memory is); header ``i`` at
        ``header_pool + 32 * i``, sampler ``j`` at ``sampler_pool + 32 * j``. It is asked for whole
        textures and 32-byte sectors, and what it returned is kept across calls until
        ``invalidate`` or ``clear``: kept bytes must not change meanwhile. An exception ``read``
        raises ends the call that read (``Exec.execute_memory``, ``read``) with that exception; a
        return of another type or length is a ``TypeError`` or ``ValueError`` naming the read.
        ``read`` runs with the GIL held and may not use this memory (``RuntimeError``); calls from
        several threads take turns (docs/python.md)."""
    def invalidate(self, address: int, length: int) -> None:
        """A callback memory: drops what it keeps of the ``length`` bytes at ``address`` (every
        texture or sector overlapping them), to be read again when next needed. Call it
        after those bytes changed, before the next call reading them."""
    def clear(self) -> None:
        """A callback memory: drops everything it keeps."""
    def kept(self) -> tuple[int, int]:
        """A callback memory: how many (textures, 32-byte sectors) it keeps (at most 4 and 64)."""
    def regions(self) -> list[tuple[int, bytes]]:
        """The mapped regions, as (address, bytes) (``TypeError`` for a callback memory, whose
        regions are its function's)."""
    def read(self, address: int, n: int) -> bytes:
        """``n`` bytes at ``address``; ``ValueError`` where they are not all mapped."""

def texture_descriptors(
    texture: Texture, sampler: Sampler, address: int, layout: str = "block-linear"
) -> tuple[bytes, bytes, bytes]:
    """A texture and sampler in memory form, as a driver writes them: `(header, sampler,
    texels)`, the 32-byte texture header (TIC), the 32-byte sampler (TSC) and the texel bytes
    that start at ``address`` (block-linear textures: 512-byte aligned; pitch: 32)."""

def sampler_descriptor(sampler: Sampler) -> bytes:
    """The 32-byte sampler descriptor (TSC) of ``sampler``, as a driver writes it."""

class Exec:
    """A decoded instruction prepared for execution (SM100 family words).

    ``Exec(instruction, config=None)``: ``config`` a dict with ``require_aligned_pairs`` (bool)
    and ``precision`` (as in the JSON files)."""

    def __init__(
        self, instruction: Instruction, config: Optional[Mapping[str, Any]] = None
    ) -> None: ...
    def execute(self, warp: Warp, pool: Pool) -> int:
        """Executes the instruction for ``warp`` against ``pool``: reads the sources, gathers, writes
        the destinations into the warp's arrays. Returns the mask of executed lanes; raises
        ``WarpFault`` (nothing written) with ``.kind`` the fault's name. Runs without the GIL."""
    def execute_report(self, warp: Warp, pool: Pool) -> tuple[int, int]:
        """Executes as ``execute`` does and returns (executed lanes, non-resident lanes): bit ``l`` of
        the second mask is set where lane ``l``'s footprint touched a non-resident tile of a
        sparse texture (``Texture(..., residency=...)``); those lanes read zeros, and a sparse
        TLD4 (a predicate destination, ``TLD4.R P0, ...``) also sets that predicate in
        ``warp.preds`` (docs/sources.md, Decisions: sparse residency)."""
    def execute_memory(
        self, warp: Warp, memory: Memory
    ) -> tuple[int, npt.NDArray[np.uint64]]:
        """Executes against textures in GPU memory (``memory``'s header and sampler pools). Returns
        (executed lanes, texel addresses): a (32, 4) ``uint64`` array, the byte address of each
        lane's four texels in gather order, 0 where no texel was read (border, cube corner,
        lane not executed). Raises ``WarpFault`` as ``execute`` does."""

class ScenarioResult:
    """What running a scenario gave, as ``tld4 run`` computes it."""

    @property
    def passed(self) -> int:
        """Passed checks (lanes, or the fault expectation)."""
    @property
    def failed(self) -> int:
        """Failed checks."""
    @property
    def lanes(self) -> list[Optional[dict[str, Union[int, bool]]]]:
        """Per lane (32), the registers and predicate the instruction wrote: a dict such as
        ``{"R8": bits, "R9": bits, "P0": False}``, or None where the lane did not execute (and
        every entry None when the instruction faulted)."""
    @property
    def fault(self) -> Optional[str]:
        """The fault's kind name (``"unknown_sampler"``...), or None."""
    @property
    def fault_message(self) -> Optional[str]:
        """The fault's message, or None."""
    @property
    def lines(self) -> list[str]:
        """The lines ``tld4 run`` prints."""

class Scenario:
    """A scenario: a warp, its textures and samplers, one TLD4, what is expected of each lane.
    ``Scenario.load(path)`` or ``Scenario.from_json(text)``, then ``.run()``."""

    @staticmethod
    def load(path: _Path, confine: bool = False) -> Scenario:
        """Reads a scenario file (relative region files and cubins from its directory). Raises
        ``ScenarioError`` with ``tld4 run``'s message."""
    @staticmethod
    def from_json(text: str, base_dir: Optional[_Path] = None) -> Scenario:
        """A scenario from its JSON text (``base_dir``: where relative file names are read)."""
    @property
    def instruction(self) -> Instruction:
        """The instruction."""
    def warnings(self) -> list[str]:
        """Warnings about inputs that are valid but probably not what was meant (``tld4 run``
        prints them on standard error)."""
    def run(self) -> ScenarioResult:
        """Runs the instruction on a copy of the scenario's warp (without the GIL) and reports
        lane by lane, exactly as ``tld4 run`` does."""

def scan(path: str) -> list[tuple[str, str, int, int, str, str]]:
    """The rows ``tld4 scan PATH`` prints (the ``tld4.scan`` wrapper makes them ``ScanRow``s). Raises
    ``ScanError`` with the CLI's message where the file, or an entry of it, cannot be read;
    cubins of every architecture the decoder knows are read, as the CLI reads them."""

class Explanation:
    """What ``tld4 explain`` prints for an instruction (on a scenario, following one lane), and the
    picture its ``--png`` and ``--svg`` draw."""

    @property
    def text(self) -> str:
        """The text, exactly as ``tld4 explain`` prints it."""
    @property
    def consistent(self) -> bool:
        """False when the lane's predicted writes differ from the emulator's (``tld4 explain``
        then exits 1): a bug of tld4, never of the input."""
    @property
    def notes(self) -> list[str]:
        """What the picture leaves out and why (``tld4 explain --png`` prints each after
        ``picture: ``); empty without a picture."""
    def png(self) -> bytes:
        """The picture as PNG bytes (``tld4 explain --png``'s file; in a notebook,
        ``IPython.display.Image(e.png())``). Raises ``ExplainError`` when there is none (no
        scenario, the lane does not execute, the texture is too large to draw)."""
    def svg(self) -> str:
        """The picture as an SVG document (``tld4 explain --svg``'s file). Raises ``ExplainError``
        when there is none."""

def explain(
    instruction: Union[str, int, Instruction],
    scenario: Union[Scenario, _Path, None] = None,
    lane: int = 0,
    arch: str = "sm_100",
) -> Explanation:
    """Explains one TLD4 as ``tld4 explain`` does and returns its text and picture: every field,
    operand and destination, and on a scenario one lane's whole path through the texture
    unit. ``instruction``: text, a word or an ``Instruction``; ``scenario``: a ``Scenario`` or the path
    of a scenario file (its instruction is replaced by this one). Raises ``ExplainError`` (a
    ``ValueError``) with the CLI's message for bad input."""
