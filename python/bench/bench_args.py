"""The bench scripts' command lines: a bad argument is argparse's usage line and a message
naming it (exit status 2), never a traceback."""

from __future__ import annotations

import argparse
from typing import Optional


def positive(text: str) -> int:
    """A whole number of at least 1 (`1_000_000` allowed, as Python writes it)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is less than 1")
    return value


def parser(doc: Optional[str]) -> argparse.ArgumentParser:
    """A parser whose description is the script's docstring, the usage line left to argparse."""
    text = (doc or "").split("\nUsage:")[0].strip()
    return argparse.ArgumentParser(description=text, formatter_class=argparse.RawDescriptionHelpFormatter)
