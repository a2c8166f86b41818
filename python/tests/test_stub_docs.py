"""The committed stub (tld4/_native.pyi, what an editor and mypy show) documents every name as
fully as the runtime docstrings do (`help()` in a session): each runtime docstring's text is
in the stub's docstring of that name (whitespace and backquote style aside)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import tld4
from tld4 import _native

STUB = Path(tld4.__file__).with_name("_native.pyi")


def normalized(doc: str) -> str:
    """Whitespace collapsed, ``x`` and `x` alike."""
    return " ".join(re.sub(r"`+", "`", doc).split())


def stub_docs() -> dict[str, str]:
    """Every docstring of the stub by name: `name` or `Class.member` (for an overloaded
    function, the docstring one of its overloads has)."""
    tree = ast.parse(STUB.read_text())
    docs: dict[str, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for k, node in enumerate(body):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node, clean=True)
                if doc:
                    docs.setdefault(prefix + node.name, doc)
                if isinstance(node, ast.ClassDef):
                    visit(node.body, node.name + ".")
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                nxt = body[k + 1] if k + 1 < len(body) else None
                if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                    docs.setdefault(prefix + node.target.id, inspect.cleandoc(nxt.value.value))

    visit(tree.body, "")
    return docs


def runtime_docs() -> dict[str, str]:
    """Every runtime docstring of the native module's public names and their members."""
    docs: dict[str, str] = {}
    for name in dir(_native):
        if name.startswith("_"):
            continue
        obj = getattr(_native, name)
        if inspect.isclass(obj):
            if obj.__doc__ and obj.__module__ != "builtins":
                docs[name] = obj.__doc__
            for member in vars(obj):
                # (through getattr: a static method's own docstring, not staticmethod's)
                doc = getattr(getattr(obj, member), "__doc__", None)
                if not member.startswith("_") and isinstance(doc, str) and doc.strip():
                    docs[f"{name}.{member}"] = doc
        elif callable(obj) and obj.__doc__:
            docs[name] = obj.__doc__
    return docs


def test_the_stub_documents_every_name_as_fully_as_the_runtime() -> None:
    stub = stub_docs()
    runtime = runtime_docs()
    assert len(runtime) > 60  # (the classes' members are there: the comparison is real)
    missing = sorted(k for k in runtime if k not in stub)
    assert missing == [], f"documented at runtime, not in the stub: {missing}"
    shorter = sorted(k for k, doc in runtime.items() if normalized(inspect.cleandoc(doc)) not in normalized(stub[k]))
    assert shorter == [], f"the stub's docstring lacks the runtime's text: {shorter}"
