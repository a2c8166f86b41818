"""python/examples/texture_gather.ipynb runs headless (nbclient) without an error, so it can
never go stale: each of its cells asserts what it shows."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "texture_gather.ipynb"


def test_the_notebook_runs_and_its_cells_assert_what_they_show() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) >= 6
    assert sum("assert" in c.source for c in code) >= 6
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    for c in code:
        assert not [o for o in c.get("outputs", []) if o.get("output_type") == "error"]
    printed = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "stream"]
    assert len(printed) >= 5
