"""``tld4.check``: conformance verdicts on observed gathers (docs/python.md, Conformance
verdicts): tld4's own results exact, values within the CTS's threshold allowed, others wrong."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

import tld4


def _setup(n: int = 200) -> tuple[tld4.Texture, tld4.Sampler, npt.NDArray[np.float32]]:
    texels = (np.arange(16, dtype=np.uint8) * 17).reshape(4, 4)
    tex = tld4.Texture("2d", "r8_unorm", texels)
    smp = tld4.Sampler(address_u="repeat", address_v="clamp_to_edge")
    coords = np.random.default_rng(7).random((n, 2), dtype=np.float32) * 1.5 - 0.25
    return tex, smp, coords


def test_tld4s_own_results_are_exact() -> None:
    tex, smp, coords = _setup()
    got = tld4.gather(tex, smp, coords)
    report = tld4.check(tex, smp, coords, got)
    assert (report.queries, report.exact, report.allowed, report.wrong) == (200, 200, 0, 0)
    assert report.details[0]["verdict"] == "exact"
    assert "exact=200" in repr(report)


def test_rounding_is_allowed_and_a_wrong_texel_caught() -> None:
    tex, smp, coords = _setup()
    got = tld4.gather(tex, smp, coords)
    observed = got.copy()
    observed[3, 1] += 1 / 255  # within the CTS's 7-bit threshold
    observed[7, 0] += 0.5  # no texel of any footprint in bounds
    report = tld4.check(tex, smp, coords, observed)
    assert (report.exact, report.allowed, report.wrong) == (198, 1, 1)
    assert report.wrong_indices == [7]
    assert report.details[3]["verdict"] == "allowed"
    assert "nearest footprint" in report.details[7]["explanation"]
    assert report.details[7]["observed"][0] == int(observed[7:8, 0:1].view(np.uint32)[0, 0])


def test_integer_and_compare_results() -> None:
    tex = tld4.Texture("2d", "r8_uint", np.array([[1, 2], [3, 4]], np.uint8))
    coords = np.array([[0.5, 0.5]], np.float32)
    assert tld4.check(tex, tld4.Sampler(), coords, [[3, 4, 2, 1]]).exact == 1
    assert tld4.check(tex, tld4.Sampler(), coords, [[3, 4, 2, 5]]).wrong == 1
    depth = tld4.Texture("2d", "d32_float", np.array([[0.1, 0.2], [0.3, 0.4]], np.float32))
    smp = tld4.Sampler(compare="less")
    got = tld4.gather(depth, smp, coords, dref=0.25)
    assert tld4.check(depth, smp, coords, got, dref=0.25).exact == 1
    assert tld4.check(depth, smp, coords, 1.0 - got, dref=0.25).wrong == 1


def test_a_badly_shaped_observation_is_a_value_error() -> None:
    tex, smp, coords = _setup(4)
    with pytest.raises(ValueError, match=r"observed: an array of shape \(4, 4\)"):
        tld4.check(tex, smp, coords, np.zeros((4, 3), np.float32))
