"""golangci-lint's JSON report (`--output.json.path stdout`; v1 `--out-format json`) -> `Batch`.

`{"Issues": [{FromLinter, Text, Severity, Pos: {Filename, Offset, Line,
Column}, ...}], "Report": {...}}`; `Issues` may be null when clean.
`Filename` is relative to where golangci-lint ran; `Column` is 1-based
and counts bytes (Go's token positions), so it becomes UTF-16 here. The
rule is the linter (`govet`, `staticcheck`). An issue fails a golangci-lint
run unless a severity rule says otherwise, so it is an error unless its
`Severity` is a warning-like one ("warning", "info", "hint", "low",
"minor", "medium").
"""

from __future__ import annotations

from pathlib import Path

from signalint.ingest import Batch, ReportError
from signalint.ingest.common import Entry, Maker, expect, load, number

_MILD = frozenset({"warning", "warn", "info", "information", "hint", "low", "minor", "medium"})


def _byte_col(maker: Maker, file: str, line: int, col: int) -> int:
    lines = maker.places.text(file).lines()
    if lines is None or not 1 <= line <= len(lines) or col < 1:
        return col
    text = lines[line - 1]
    raw = text.encode("utf-8")
    prefix = raw[: col - 1].decode("utf-8", errors="ignore")
    return len(prefix.encode("utf-16-le")) // 2 + 1 + max(0, col - 1 - len(raw))


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    report = expect(load(text, "golangci-lint"), dict, "report", 'an object {"Issues": [...]}')
    if "Issues" not in report:
        raise ReportError("report", 'no "Issues" key: not a golangci-lint JSON report')
    issues = expect(report.get("Issues") or [], list, "Issues", "an array")
    maker = Maker("golangci-lint", root, base)
    for index, raw in enumerate(issues):
        where = f"Issues[{index}]"
        issue = expect(raw, dict, where, "an issue object")
        pos = expect(issue.get("Pos"), dict, f"{where}.Pos", "an object {Filename, Line, Column}")
        file = maker.file(pos.get("Filename"), f"{where}.Pos.Filename")
        line = number(pos.get("Line"), f"{where}.Pos.Line", 1)
        col = _byte_col(maker, file, line, number(pos.get("Column"), f"{where}.Pos.Column", 1))
        severity = str(issue.get("Severity") or "").lower()
        maker.add(
            Entry(
                file,
                line,
                col,
                str(issue.get("FromLinter") or "golangci-lint"),
                "warning" if severity in _MILD else "error",
                str(issue.get("Text") or ""),
            )
        )
    return maker.batch()
