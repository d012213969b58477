"""What the report normalizers share: reading JSON whole, and making issues in place.

A report is read completely or not at all: a truncated or garbled one is a
`ReportError` saying where reading stopped, so a half-written file never
clears a file's diagnostics by accident.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from signalint.ingest import Batch, ReportError
from signalint.ingest.places import Places
from signalint.model import Issue, Severity


def load(text: str, what: str) -> Any:
    """The JSON document `text` (a `what` report), or `ReportError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"line {exc.lineno}",
            f"not JSON at column {exc.colno} ({exc.msg}); is the {what} report complete?",
        ) from exc


def lines(text: str, what: str) -> Iterator[tuple[int, Any]]:
    """(1-based line number, JSON value) of each non-blank line of a JSON-lines report."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReportError(
                f"line {number}",
                f"not JSON at column {exc.colno} ({exc.msg}); is the {what} report complete?",
            ) from exc


def expect(value: Any, kind: type, where: str, wanted: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ReportError(where, f"expected {wanted}")
    return value


def number(value: Any, where: str, default: int | None = None) -> int:
    """A non-negative integer field (`default` when absent)."""
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ReportError(where, f"expected a non-negative integer, got {value!r:.40}")
    return value


class Maker:
    """Issues of one report, with paths contained and positions clamped."""

    def __init__(self, tool: str, root: Path, base: Path | None = None) -> None:
        self.tool = tool
        self.places = Places(root, absolute=True, base=base)
        self.issues: list[Issue] = []
        self.files: dict[str, None] = {}

    def file(self, value: Any, where: str, *, must_exist: bool = True) -> str:
        found = self.places.file(value, where, must_exist=must_exist)
        self.files.setdefault(found, None)
        return found

    def add(
        self,
        file: str,
        line: int,
        col: int,
        rule: str,
        severity: Severity,
        message: str,
        *,
        end: tuple[int, int] | None = None,
        fixable: bool = False,
        docs_url: str | None = None,
        help: str | None = None,
    ) -> None:
        line, col, end_line, end_col = self.places.span(file, (line, col), end)
        self.issues.append(
            Issue(
                engine=self.tool,
                file=file,
                line=line,
                col=col,
                rule=rule or self.tool,
                severity=severity,
                message=message,
                fixable=fixable,
                end_line=end_line,
                end_col=end_col,
                docs_url=docs_url or None,
                help=help or None,
            )
        )

    def batch(self) -> Batch:
        return Batch(self.tool, tuple(self.issues), tuple(self.files))
