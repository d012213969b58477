"""mypy's JSON-lines report (`mypy -O json`) -> `Batch`.

One object per line: `file` (relative to where mypy ran), 1-based `line`,
0-based `column` (-1 when unknown), `end_line`/`end_column`, `message`,
`hint` (its notes), `code` (null for some errors) and `severity` ("error"
or "note"). A standalone note is a warning. Columns are taken as code
points (what mypy 2's native parser reports for the text before them, up
to characters outside the Basic Multilingual Plane) and become UTF-16.
"""

from __future__ import annotations

from pathlib import Path

from signalint.engines.mypy.adapter import docs_url
from signalint.ingest import Batch
from signalint.ingest.common import Entry, Maker, expect, lines


def _column(value: object) -> int:
    return value + 1 if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    maker = Maker("mypy", root, base)
    for number, raw in lines(text, "mypy"):
        where = f"line {number}"
        diag = expect(raw, dict, where, "an object per line (mypy -O json)")
        file = maker.file(diag.get("file"), f"{where}: file")
        line = diag.get("line")
        if isinstance(line, bool) or not isinstance(line, int):
            line = 1
        col = maker.places.codepoint_col(file, line, _column(diag.get("column")))
        end = None
        end_line = diag.get("end_line")
        if isinstance(end_line, int) and not isinstance(end_line, bool) and end_line >= 1:
            end = (
                end_line,
                maker.places.codepoint_col(file, end_line, _column(diag.get("end_column"))),
            )
        code = diag.get("code")
        severity = diag.get("severity")
        maker.add(
            Entry(
                file,
                line,
                col,
                str(code) if code else ("note" if severity == "note" else "error"),
                "error" if severity == "error" else "warning",
                str(diag.get("message") or ""),
                end=end,
                docs_url=docs_url(str(code)) if code else None,
                help=str(diag["hint"]) if diag.get("hint") else None,
            )
        )
    return maker.batch()
