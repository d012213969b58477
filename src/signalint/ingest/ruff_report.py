"""Ruff's JSON report (`ruff check --output-format json`) -> `Batch`.

The array of diagnostics the engine adapter reads too (engines/ruff/adapter.py
says what each field means): absolute `filename`, 1-based code-point
`location`/`end_location`, `code` (null for syntax errors in older
releases), `url`, `fix` with its `applicability`. Columns become UTF-16.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from signalint.ingest import Batch
from signalint.ingest.common import Entry, Maker, expect, load, number

SYNTAX_RULE = "invalid-syntax"


def _point(value: Any, where: str) -> tuple[int, int]:
    point = expect(value, dict, where, "an object {row, column}")
    return number(point.get("row"), f"{where}.row"), number(point.get("column"), f"{where}.column")


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    report = expect(load(text, "Ruff"), list, "report", "a JSON array (ruff --output-format json)")
    maker = Maker("ruff", root, base)
    for index, raw in enumerate(report):
        where = f"[{index}]"
        diag = expect(raw, dict, where, "a diagnostic object")
        file = maker.file(diag.get("filename"), f"{where}.filename")
        line, col = _point(diag.get("location"), f"{where}.location")
        end = None
        if diag.get("end_location") is not None:
            end = _point(diag["end_location"], f"{where}.end_location")
        message = str(diag.get("message") or "")
        cell = diag.get("cell")
        if isinstance(cell, int):  # a notebook: rows count within the cell
            message = f"cell {cell}: {message}"
        else:
            col = maker.places.codepoint_col(file, line, col)
            if end is not None:
                end = (end[0], maker.places.codepoint_col(file, *end))
        fix = diag.get("fix")
        maker.add(
            Entry(
                file,
                line,
                col,
                str(diag.get("code") or SYNTAX_RULE),
                "warning" if diag.get("severity") == "warning" else "error",
                message,
                end=end,
                fixable=isinstance(fix, dict) and fix.get("applicability") == "safe",
                docs_url=diag.get("url") if isinstance(diag.get("url"), str) else None,
                help=str(fix["message"]) if isinstance(fix, dict) and fix.get("message") else None,
            )
        )
    return maker.batch()
