"""Hostile input to the Python package: never an abort or a PanicException, always one of
the package's exceptions (or MemoryError), naming the argument at fault."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tld4


def _exec_and_pool() -> tuple[tld4.Exec, tld4.Pool, tld4.Warp]:
    pool = tld4.Pool()
    pool.set_texture(0, tld4.Texture("2d", "r32_uint", np.arange(16, dtype=np.uint32).reshape(4, 4)))
    pool.set_sampler(0, tld4.Sampler())
    exec_ = tld4.Exec(tld4.decode(tld4.assemble("TLD4.R R10, R8, R20, UR4, 2D ;")))
    warp = tld4.Warp()
    warp.uregs[4] = tld4.Pool.handle(0, 0)
    warp.regs.view(np.float32)[20:22] = 0.5
    return exec_, pool, warp


def test_register_views_cannot_change_the_warps_storage() -> None:
    exec_, pool, warp = _exec_and_pool()
    for view in (warp.regs, warp.uregs, warp.preds):
        with pytest.raises(ValueError):
            view.resize((3,))
    # A view reshaped in place is only that view: the warp still executes as before.
    r = warp.regs
    r.shape = (255 * 32,)
    assert exec_.execute(warp, pool) == 0xFFFFFFFF
    assert warp.regs.shape == (255, 32)
    # The storage itself shrunk behind the views' back: a ValueError naming it, never a
    # PanicException (a BaseException) and never UR4 read as 0.
    base = warp.uregs.base
    assert isinstance(base, np.ndarray)
    base.resize((4,), refcheck=False)
    with pytest.raises(ValueError, match="Warp.uregs"):
        exec_.execute(warp, pool)


def test_one_warp_executed_from_several_threads_takes_turns() -> None:
    exec_, pool, warp = _exec_and_pool()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(50):
                exec_.execute(warp, pool)
        except BaseException as e:  # noqa: BLE001 - any failure is the test's finding
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_out_of_range_arguments_name_themselves() -> None:
    tex = tld4.Texture("2d", "r8_uint", np.zeros((2, 2), np.uint8))
    with pytest.raises(ValueError, match="component"):
        tld4.gather(tex, tld4.Sampler(), np.zeros((1, 2)), component=-1)
    with pytest.raises(ValueError, match="layers"):
        tld4.Texture("2d_array", "r8_uint", np.zeros((1, 2, 2), np.uint8), layers=-1)
    with pytest.raises(ValueError, match="active_mask"):
        tld4.Warp(active_mask=2**33)
    warp = tld4.Warp()
    with pytest.raises(ValueError, match="active_mask"):
        warp.active_mask = -1
    with pytest.raises(ValueError, match="regs_per_thread"):
        tld4.Warp(regs_per_thread=-1)
    pool = tld4.Pool()
    with pytest.raises(ValueError, match="index"):
        pool.set_texture(-1, tex)
    with pytest.raises(ValueError, match="index"):
        pool.set_sampler(2**40, tld4.Sampler())


def test_allocations_too_large_for_the_process_are_memory_errors() -> None:
    # Under a 6 GiB address-space limit, in a child process: a (2**30, 2) array of zero
    # strides (16 GiB of words) to disasm, and a 16384 x 16384 RGBA8 texture (1 GiB of texels,
    # the most a texture may hold, read as 4 GiB of fields). A texture past that budget is a
    # ValueError before anything is read (test_surface.py).
    script = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))
        import numpy as np
        import tld4
        words = np.lib.stride_tricks.as_strided(np.zeros(2, np.uint64), shape=(2**30, 2), strides=(0, 8))
        try:
            tld4.disasm(words)
        except MemoryError:
            print("disasm: MemoryError")
        texels = np.zeros((16384, 16384, 4), np.uint8)
        try:
            tld4.Texture("2d", "rgba8_unorm", texels)
        except MemoryError:
            print("texture: MemoryError")
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["disasm: MemoryError", "texture: MemoryError"], out
