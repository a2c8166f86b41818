"""Every committed scenario (examples/, docs/, the fuzzer's scenario seeds) through
tld4.Scenario, compared with what `tld4 run` prints for it: the same lines, the same
pass/fail counts and exit status, the registers of each lane as the CLI's lane lines show
them, and for a scenario that does not load, the CLI's error message."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tld4

from conftest import REPO, run_cargo

SCENARIOS = sorted(
    [
        *REPO.glob("examples/scenarios/*.json"),
        REPO / "examples/cuda/gather.scenario.json",
        REPO / "docs/explain-example.json",
        *REPO.glob("fuzz/corpus/scenario/*.json"),
    ]
)

LANE = re.compile(r"^lane +(\d+):(.*)$")
WRITE = re.compile(r"(R\d+) = 0x([0-9a-f]{8})|(P\d) = (true|false)")


def cli_lanes(lines: list[str]) -> dict[int, dict[str, object]]:
    """The registers each executed lane's line shows."""
    out: dict[int, dict[str, object]] = {}
    for line in lines:
        m = LANE.match(line)
        if m is None or "(not executed)" in line:
            continue
        regs: dict[str, object] = {}
        for w in WRITE.finditer(m.group(2).split("[")[0]):
            if w.group(1):
                regs[w.group(1)] = int(w.group(2), 16)
            else:
                regs[w.group(3)] = w.group(4) == "true"
        out[int(m.group(1))] = regs
    return out


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 30
    assert all(p.is_file() for p in SCENARIOS)


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(REPO)) for p in SCENARIOS])
def test_scenario_runs_as_tld4_run_runs_it(path: Path) -> None:
    cli = run_cargo(["--bin", "tld4", "--", "run", str(path)])
    try:
        s = tld4.Scenario.load(path)
    except tld4.ScenarioError as e:
        assert cli.returncode == 2, (cli.returncode, cli.stdout)
        assert cli.stderr.strip() == f"error: {e}", (cli.stderr, str(e))
        return
    assert cli.returncode in (0, 1), cli.stderr
    r = s.run()
    assert r.lines == cli.stdout.splitlines()
    assert (cli.returncode == 1) == (r.failed > 0)
    assert s.instruction.word == int(r.lines[0].rsplit("(", 1)[1].rstrip(")"), 16)
    if r.fault is not None:
        assert r.fault in tld4.FAULT_KINDS
        assert any(f"fault ({r.fault})" in line for line in cli.stdout.splitlines())
        assert all(lane is None for lane in r.lanes)
        return
    expect = cli_lanes(cli.stdout.splitlines())
    got = {lane: regs for lane, regs in enumerate(r.lanes) if regs is not None}
    assert got == expect


def test_from_json_is_load() -> None:
    path = REPO / "examples/scenarios/gather_green.json"
    a = tld4.Scenario.load(path).run()
    b = tld4.Scenario.from_json(path.read_text(), base_dir=path.parent).run()
    assert a.lines == b.lines and a.lanes == b.lanes and a.passed == b.passed > 0


def test_a_bad_scenario_names_its_json_path() -> None:
    doc = json.loads((REPO / "examples/scenarios/gather_green.json").read_text())
    doc["lanes"][0]["R20"] = "x"
    with pytest.raises(tld4.ScenarioError) as e:
        tld4.Scenario.from_json(json.dumps(doc))
    assert isinstance(e.value, ValueError)
    assert e.value.path.startswith("lanes[0]"), e.value.path
