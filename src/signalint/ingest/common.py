"""What the report normalizers share: reading JSON whole, and making issues in place.

A report is read completely or not at all: a truncated or garbled one is a
`ReportError` saying where reading stopped, so a half-written file never
clears a file's diagnostics by accident.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Entry:
    """One diagnostic as a report gives it: its project-relative file,
    position (`end` as (line, col), when given), rule, severity and
    message, and what helps to fix it."""

    file: str
    line: int
    col: int
    rule: str
    severity: Severity
    message: str
    end: tuple[int, int] | None = None
    fixable: bool = False
    docs_url: str | None = None
    help: str | None = None


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

    def add(self, entry: Entry) -> None:
        """Keep `entry` (its file already contained, `file`), its position
        clamped to the file's lines."""
        line, col, end_line, end_col = self.places.span(
            entry.file, (entry.line, entry.col), entry.end
        )
        self.issues.append(
            Issue(
                engine=self.tool,
                file=entry.file,
                line=line,
                col=col,
                rule=entry.rule or self.tool,
                severity=entry.severity,
                message=entry.message,
                fixable=entry.fixable,
                end_line=end_line,
                end_col=end_col,
                docs_url=entry.docs_url or None,
                help=entry.help or None,
            )
        )

    def batch(self) -> Batch:
        return Batch(self.tool, tuple(self.issues), tuple(self.files))
