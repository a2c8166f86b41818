"""The README's Python example prints what the README shows below it."""

from __future__ import annotations

import contextlib
import io
import re

from conftest import REPO


def test_the_readme_example_prints_what_the_readme_shows() -> None:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("\n## Python\n") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    shown = re.search(r"```python\n.*?```\s*.*?```text\n(.*?)```", section, re.S)
    assert code is not None and shown is not None
    lines = [line for line in code.group(1).splitlines() if line.strip()]
    assert len(lines) <= 12, f"the example has {len(lines)} lines"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), "README.md", "exec"), {})
    assert out.getvalue() == shown.group(1)
