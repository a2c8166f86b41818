"""python/examples/texture_gather.ipynb runs headless (nbclient) without an error, so it can
never go stale: each of its cells asserts what it shows; the outputs it stores (what GitHub
shows a reader) are the ones a fresh run gives, and none prints numpy's reprs of scalars."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "texture_gather.ipynb"


def _outputs(cell: Any) -> list[dict[str, Any]]:
    """A cell's outputs as compared: type, stream text, and each data's MIME types and values."""
    out = []
    for o in cell.get("outputs", []):
        kept: dict[str, Any] = {"output_type": o["output_type"]}
        if "text" in o:
            kept["text"] = o["text"]
        if "data" in o:
            kept["data"] = dict(o["data"])
        out.append(kept)
    return out


def test_the_notebook_runs_and_its_cells_assert_what_they_show() -> None:
    stored = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    code = [c for c in stored.cells if c.cell_type == "code"]
    assert len(code) >= 6
    assert sum("assert" in c.source for c in code) >= 6
    fresh = copy.deepcopy(stored)
    for c in fresh.cells:
        if c.cell_type == "code":
            c.outputs = []
    NotebookClient(fresh, timeout=120, kernel_name="python3").execute()
    fresh_code = [c for c in fresh.cells if c.cell_type == "code"]
    for c in fresh_code:
        assert not [o for o in c.get("outputs", []) if o.get("output_type") == "error"]
    printed = [o for c in fresh_code for o in c.get("outputs", []) if o.get("output_type") == "stream"]
    assert len(printed) >= 5
    # The stored outputs are a fresh run's, cell by cell (python/examples/make_notebook.py
    # writes them), and every code cell shows something.
    for k, (s, f) in enumerate(zip(code, fresh_code)):
        assert _outputs(s), f"code cell {k} stores no output"
        assert _outputs(s) == _outputs(f), f"code cell {k}: stored outputs differ from a fresh run's"
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for c in code for o in c.outputs)
    for noise in ("np.int", "np.uint", "np.float", "np.bool", "dtype="):
        assert noise not in text, f"an output prints numpy's {noise}..."
