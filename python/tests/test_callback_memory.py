"""`Memory.from_callback`: GPU memory read through a Python function, what it read kept
across calls until invalidated. Its results are those of the same bytes as ranges
(`from_ranges`) and as laid out (`from_textures`); the function is called a few times in a
loop of calls, not per warp; errors are Python's (the function's own exception, or a
TypeError / ValueError naming the read), never a panic; a function calling tld4 with the
memory or warp its own call uses gets a RuntimeError."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Callable, Optional, Union

import numpy as np
import numpy.typing as npt
import pytest

import tld4

_Got = Union[bytes, bytearray, memoryview, npt.NDArray[np.uint8], None]
KINDS = ("2d", "cube_array")


class Backing:
    """A simulator's sparse memory: regions a callback reads, every call counted."""

    def __init__(self, regions: list[tuple[int, bytes]]) -> None:
        self.regions = [(a, bytearray(b)) for a, b in regions]
        self.calls: list[tuple[int, int]] = []

    def read(self, address: int, size: int) -> Optional[bytes]:
        self.calls.append((address, size))
        for a, b in self.regions:
            if a <= address and address + size <= a + len(b):
                return bytes(b[address - a : address - a + size])
        return None

    def write(self, address: int, data: bytes) -> None:
        for a, b in self.regions:
            if a <= address and address + len(data) <= a + len(b):
                b[address - a : address - a + len(data)] = data
                return
        raise AssertionError(f"no region holds {address:#x}")

    def ranges(self) -> tld4.Memory:
        return tld4.Memory.from_ranges([(a, bytes(b)) for a, b in self.regions], POOLS[0], POOLS[1])


def _textures() -> tld4.Memory:
    rng = np.random.default_rng(43)
    shape2d, dtype2d = tld4.Texture.texel_shape("2d", "rgba8_unorm", 32, 32)
    tex2d = tld4.Texture("2d", "rgba8_unorm", rng.integers(0, 256, size=shape2d).astype(dtype2d))
    shape, dtype = tld4.Texture.texel_shape("cube_array", "rgba8_unorm", 16, 16, layers=2)
    cube = tld4.Texture("cube_array", "rgba8_unorm", rng.integers(0, 256, size=shape).astype(dtype), layers=2)
    return tld4.Memory.from_textures(
        [(tex2d, tld4.Sampler(address_u="repeat")), (cube, tld4.Sampler())], layout="block-linear"
    )


LAID_OUT = _textures()
POOLS = (LAID_OUT.header_pool, LAID_OUT.sampler_pool)
EXECS = {
    "2d": tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;"))),
    "cube_array": tld4.Exec(tld4.decode(tld4.assemble("TLD4.G R10, R8, R20, UR4, ARRAY_CUBE ;"))),
}


def backing() -> Backing:
    return Backing(LAID_OUT.regions())


def callback_memory(b: Backing) -> tld4.Memory:
    return tld4.Memory.from_callback(b.read, *POOLS)


def run(
    mem: tld4.Memory, kind: str, seed: int, warp: Optional[tld4.Warp] = None
) -> tuple[int, npt.NDArray[np.uint32], npt.NDArray[np.uint64]]:
    """One warp of `kind` gathers at coordinates drawn from `seed`: (executed, R8..R11, texel
    addresses)."""
    rng = np.random.default_rng(seed)
    w = warp if warp is not None else tld4.Warp()
    if kind == "2d":
        w.uregs[4] = tld4.Pool.handle(0, 0)
        w.regs.view(np.float32)[20:22] = rng.uniform(-0.5, 1.5, size=(2, 32))
    else:
        w.uregs[4] = tld4.Pool.handle(1, 1)
        w.regs[20] = rng.integers(0, 2, size=32)  # the layer, an integer
        w.regs.view(np.float32)[21:24] = rng.uniform(-1.0, 1.0, size=(3, 32))
    executed, addresses = EXECS[kind].execute_memory(w, mem)
    return executed, w.regs[8:12].copy(), addresses


@pytest.mark.parametrize("kind", KINDS)
def test_results_are_those_of_the_same_bytes_as_ranges_and_laid_out(kind: str) -> None:
    b = backing()
    ranges, through = b.ranges(), callback_memory(b)
    for seed in range(5):
        want = run(LAID_OUT, kind, seed)
        assert want[0] == 0xFFFFFFFF and np.count_nonzero(want[1]) > 64
        for got in (run(ranges, kind, seed), run(through, kind, seed)):
            assert got[0] == want[0]
            np.testing.assert_array_equal(got[1], want[1])
            np.testing.assert_array_equal(got[2], want[2])
    # Memory.read reads through it too
    address = int(want[2][0, 0])
    assert through.read(address, 4) == LAID_OUT.read(address, 4)


def test_the_function_is_called_for_the_first_calls_only() -> None:
    b = backing()
    mem = callback_memory(b)
    run(mem, "2d", 0)
    run(mem, "cube_array", 0)
    first = list(b.calls)
    # whole textures (one call each, larger than a sector) and the descriptors (whole
    # sectors, kept as descriptors, not as sectors)
    assert sum(size > 32 for _, size in first) == 2, first
    assert len(first) <= 8, first
    assert mem.kept() == (2, 0), mem.kept()
    for seed in range(1, 200):
        run(mem, KINDS[seed % 2], seed)
    assert b.calls == first, "199 more calls read nothing through the function"


def test_pools_at_aligned_addresses_are_kept_together() -> None:
    # a header pool, a sampler pool and texels 1 MiB apart, as a simulator may place them
    rng = np.random.default_rng(1)
    shape, dtype = tld4.Texture.texel_shape("2d", "rgba8_unorm", 16, 16)
    tex = tld4.Texture("2d", "rgba8_unorm", rng.integers(0, 256, size=shape).astype(dtype))
    header, sampler, texels = tld4.texture_descriptors(tex, tld4.Sampler(), 0x30_0000)
    b = Backing([(0x10_0000, header), (0x20_0000, sampler), (0x30_0000, texels)])
    mem = tld4.Memory.from_callback(b.read, 0x10_0000, 0x20_0000)
    ranges = tld4.Memory.from_ranges(b.regions, 0x10_0000, 0x20_0000)
    for seed in range(20):
        np.testing.assert_array_equal(run(mem, "2d", seed)[1], run(ranges, "2d", seed)[1])
    assert b.calls == [(0x10_0000, 32), (0x20_0000, 32), (0x30_0000, len(texels))]


def test_invalidation_makes_changed_bytes_seen() -> None:
    b = backing()
    mem = callback_memory(b)
    before = run(mem, "2d", 7)
    # every texel the warp read changes: the texture's bytes written anew
    (texture_at, texture_bytes) = next((a, n) for a, n in b.calls if n > 32)
    b.write(texture_at, bytes(255 - x for x in b.read(texture_at, texture_bytes) or b""))
    want = run(b.ranges(), "2d", 7)
    assert not np.array_equal(want[1], before[1])
    calls = len(b.calls)
    # ranges beside the texture and the descriptors: all stays kept
    mem.invalidate(0, POOLS[0])
    mem.invalidate(texture_at - 0x100, 0x100)
    mem.invalidate(texture_at + texture_bytes, 1 << 20)
    mem.invalidate(texture_at, 0)
    run(mem, "2d", 7)
    assert len(b.calls) == calls
    mem.invalidate(texture_at + texture_bytes - 1, 1)  # its last byte: fetched anew
    np.testing.assert_array_equal(run(mem, "2d", 7)[1], want[1])
    assert len(b.calls) == calls + 1
    # clear: everything read anew
    b.write(texture_at, bytes(texture_bytes))
    mem.clear()
    assert mem.kept() == (0, 0)
    np.testing.assert_array_equal(run(mem, "2d", 7)[1], run(b.ranges(), "2d", 7)[1])
    with pytest.raises(ValueError, match="passes 2"):
        mem.invalidate(1 << 63, 1 << 63 | 1)
    with pytest.raises(ValueError, match="length"):
        mem.invalidate(0, -1)
    for not_callback in (LAID_OUT, b.ranges()):
        with pytest.raises(TypeError, match="not a callback memory"):
            not_callback.invalidate(0, 1)
        with pytest.raises(TypeError, match="not a callback memory"):
            not_callback.kept()
    with pytest.raises(TypeError, match="no list of regions"):
        mem.regions()


class Refused(Exception):
    """The function's own exception."""


def test_the_functions_exception_ends_the_call_as_itself_and_nothing_is_kept() -> None:
    b = backing()
    refuse: set[int] = set()

    def read(address: int, size: int) -> Optional[bytes]:
        if size in refuse:
            raise Refused(f"{address:#x}+{size}")
        return b.read(address, size)

    mem = tld4.Memory.from_callback(read, *POOLS)
    want = run(b.ranges(), "cube_array", 3)
    refuse.add(32)  # the descriptors' sectors
    with pytest.raises(Refused):
        run(mem, "cube_array", 3)
    refuse.clear()
    probe = backing()
    run(callback_memory(probe), "cube_array", 3)
    texture_bytes = max(n for _, n in probe.calls)
    refuse.add(texture_bytes)  # the texture, fetched whole
    with pytest.raises(Refused) as e:
        run(mem, "cube_array", 3)
    assert f"+{texture_bytes}" in str(e.value)
    assert mem.kept()[0] == 0
    refuse.clear()
    got = run(mem, "cube_array", 3)
    np.testing.assert_array_equal(got[1], want[1])
    with pytest.raises(Refused):
        refuse.add(4)
        mem.read(POOLS[0] + 30, 4)  # across two sectors: its bytes alone


def test_none_reads_as_unmapped_memory() -> None:
    calls: list[int] = []

    def nothing(address: int, size: int) -> None:
        calls.append(address)

    mem = tld4.Memory.from_callback(nothing, 0x1000, 0x2000)
    with pytest.raises(tld4.WarpFault) as e:
        EXECS["2d"].execute_memory(tld4.Warp(), mem)
    held = tld4.Memory(bytes(64), base=0, header_pool=0x1000, sampler_pool=0x2000)
    with pytest.raises(tld4.WarpFault) as f:
        EXECS["2d"].execute_memory(tld4.Warp(), held)
    assert e.value.kind == f.value.kind == "unknown_texture_header"
    assert 0x1000 in calls
    with pytest.raises(ValueError, match="0x1000"):
        mem.read(0x1000, 4)


def _returning(make: Callable[[bytes], object]) -> tld4.Memory:
    b = backing()
    return tld4.Memory.from_callback(lambda a, n: make(b.read(a, n) or b""), *POOLS)  # type: ignore[arg-type, return-value]


def test_every_bytes_like_return_reads_alike() -> None:
    want = run(LAID_OUT, "cube_array", 5)
    makes: list[Callable[[bytes], _Got]] = [
        bytearray,
        memoryview,
        lambda d: np.frombuffer(d, np.uint8),
        lambda d: np.frombuffer(d, np.uint8).repeat(2)[::2],  # not contiguous
        lambda d: np.frombuffer(d, np.uint8).reshape(-1, 1 if len(d) % 2 else 2),
    ]
    for make in makes:
        got = run(_returning(make), "cube_array", 5)
        np.testing.assert_array_equal(got[1], want[1])


def test_a_return_of_another_type_or_length_names_the_read() -> None:
    read = r"read\(0x[0-9a-f]+, (32|\d+)\)"
    cases: list[tuple[Callable[[bytes], object], type[Exception], str]] = [
        (lambda d: d[:-1], ValueError, read + r" returned \d+ bytes, not \d+"),
        (lambda d: d + b"\0", ValueError, read + r" returned \d+ bytes, not \d+"),
        (lambda d: d.decode("latin-1"), TypeError, read + " returned str; expected bytes"),
        (list, TypeError, read + " returned list"),
        (lambda d: 7, TypeError, read + " returned int"),
        (lambda d: np.frombuffer(d, np.uint8).astype(np.float32), TypeError, "dtype float32, not uint8"),
    ]
    for make, error, message in cases:
        with pytest.raises(error, match=message):
            run(_returning(make), "2d", 0)
    with pytest.raises(TypeError, match="expected a function"):
        tld4.Memory.from_callback(b"bytes", 0, 0)  # type: ignore[arg-type]


def test_a_function_calling_tld4_with_its_own_memory_or_warp_gets_a_runtime_error() -> None:
    b = backing()
    own_warp = tld4.Warp()
    other = b.ranges()
    uses: dict[str, Callable[[tld4.Memory], object]] = {
        "invalidate": lambda m: m.invalidate(0, 1),
        "clear": lambda m: m.clear(),
        "kept": lambda m: m.kept(),
        "read": lambda m: m.read(POOLS[0], 4),
        "execute_memory": lambda m: run(m, "2d", 1),
        "its warp": lambda m: EXECS["2d"].execute_memory(own_warp, other),
    }
    for name, use in uses.items():
        box: list[tld4.Memory] = []

        def read(address: int, size: int) -> Optional[bytes]:
            use(box[0])
            return b.read(address, size)

        box.append(tld4.Memory.from_callback(read, *POOLS))
        with pytest.raises(RuntimeError, match="in use by a call on this thread") as e:
            run(box[0], "2d", 1, own_warp)
        assert ("the Warp" if name == "its warp" else "the Memory") in str(e.value), name
    # a function calling tld4 with another memory is fine
    inner: list[tuple[int, npt.NDArray[np.uint32], npt.NDArray[np.uint64]]] = []

    def nested(address: int, size: int) -> Optional[bytes]:
        inner.append(run(other, "cube_array", 2))
        return b.read(address, size)

    got = run(tld4.Memory.from_callback(nested, *POOLS), "2d", 1)
    np.testing.assert_array_equal(got[1], run(other, "2d", 1)[1])
    np.testing.assert_array_equal(inner[0][1], run(other, "cube_array", 2)[1])


def test_calls_from_several_threads_take_turns() -> None:
    b = backing()
    mem = callback_memory(b)
    want = {seed: run(LAID_OUT, KINDS[seed % 2], seed) for seed in range(8)}
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            warp = tld4.Warp()
            for i in range(40):
                seed = (k + i) % 8
                got = run(mem, KINDS[seed % 2], seed, warp)
                np.testing.assert_array_equal(got[1], want[seed][1])
                if i % 10 == 0:
                    mem.invalidate(0, 1 << 40)
        except BaseException as e:  # noqa: BLE001 - any failure is the test's finding
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_memory_whose_function_holds_it_is_collected() -> None:
    class Simulator:
        def __init__(self) -> None:
            self.backing = backing()
            self.memory = tld4.Memory.from_callback(self.read, *POOLS)

        def read(self, address: int, size: int) -> Optional[bytes]:
            return self.backing.read(address, size)

    sim = Simulator()
    run(sim.memory, "2d", 0)
    gone = weakref.ref(sim)
    del sim
    gc.collect()
    assert gone() is None
