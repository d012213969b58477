"""Cargo's JSON messages (`cargo clippy --message-format json`, also `cargo check`) -> `Batch`.

One JSON object per line; only `reason: "compiler-message"` lines are
diagnostics: `message.level` ("error", "warning", ...), `message.code.code`
(`clippy::len_zero`, `unused_variables`, `E0308`), `message.message`,
`message.children` (notes and help) and `message.spans`, whose primary
span has `file_name` (relative to the workspace root, where cargo ran),
1-based `line_start`/`column_start` counted in code points, and the end.
A primary span inside a macro from outside the project is followed to its
expansion's call site in the project. Messages without a span ("aborting
due to 2 previous errors") are summaries, not diagnostics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from signalint.ingest import Batch, ReportError
from signalint.ingest.common import Entry, Maker, expect, lines, number

_CLIPPY_DOCS = "https://rust-lang.github.io/rust-clippy/master/index.html#"
_RUSTC_DOCS = "https://doc.rust-lang.org/error_codes/"


def _docs(code: str) -> str | None:
    if code.startswith("clippy::"):
        return _CLIPPY_DOCS + code.removeprefix("clippy::")
    if len(code) == 5 and code[0] == "E" and code[1:].isdigit():
        return f"{_RUSTC_DOCS}{code}.html"
    return None


def _span(maker: Maker, spans: list[Any], where: str) -> tuple[str, dict[str, Any]]:
    """The primary span's file and span, followed out of foreign macros."""
    primary = next((s for s in spans if isinstance(s, dict) and s.get("is_primary")), spans[0])
    refused: ReportError | None = None
    for _ in range(32):  # expansion chains are short; a loop is not followed forever
        span = expect(primary, dict, f"{where}.spans", "span objects")
        try:
            return maker.file(span.get("file_name"), f"{where}.file_name"), span
        except ReportError as exc:
            refused = refused or exc
            expansion = span.get("expansion")
            if not isinstance(expansion, dict) or not isinstance(expansion.get("span"), dict):
                break
            primary = expansion["span"]
    assert refused is not None
    raise refused


def parse(text: str, root: Path, base: Path | None = None) -> Batch:
    maker = Maker("clippy", root, base)
    for line_number, raw in lines(text, "Cargo"):
        where = f"line {line_number}"
        record = expect(raw, dict, where, "an object per line (cargo --message-format json)")
        if record.get("reason") != "compiler-message":
            continue
        message = expect(record.get("message"), dict, f"{where}: message", "an object")
        spans = message.get("spans") or []
        if not isinstance(spans, list) or not spans:
            continue
        file, span = _span(maker, spans, where)
        start_line = number(span.get("line_start"), f"{where}: line_start", 1)
        start_col = number(span.get("column_start"), f"{where}: column_start", 1)
        end_line = number(span.get("line_end"), f"{where}: line_end", start_line)
        end_col = number(span.get("column_end"), f"{where}: column_end", start_col)
        code = message.get("code")
        rule = str(code.get("code")) if isinstance(code, dict) and code.get("code") else ""
        level = str(message.get("level") or "warning")
        notes = [
            str(child["message"])
            for child in message.get("children") or []
            if isinstance(child, dict) and child.get("message")
        ]
        maker.add(
            Entry(
                file,
                start_line,
                maker.places.codepoint_col(file, start_line, start_col),
                rule or level,
                "error" if level.startswith("error") else "warning",
                str(message.get("message") or ""),
                end=(end_line, maker.places.codepoint_col(file, end_line, end_col)),
                docs_url=_docs(rule) if rule else None,
                help="\n".join(notes) or None,
            )
        )
    return maker.batch()
