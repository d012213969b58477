"""Diagnostics from outside the engines: LSP batches and any tool's report (D8).

Every input becomes one `Batch`: the issues it reports and every file it
names. A batch names a file whose set it replaces in the live buffer
(`signalint.features.live`), even when it reports nothing there (that clears it).

Normalizers (one module per format, listed in `FORMATS`) are pure functions
of the report's text and the project root: they start no process. Anything
they cannot use whole is a `ReportError` naming the place in the input
(`diagnostics[3].range.start.line`, `line 7`, `runs[0].results[2]`) and what
is accepted; nothing is half-ingested.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from signalint.errors import SignalintError
from signalint.model import Issue

# Bytes of one report (CLI input, MCP `report`); more is refused, never cut.
MAX_REPORT_BYTES: Final = 16 * 1024 * 1024
# Diagnostics in one batch; a larger batch is refused whole.
MAX_BATCH: Final = 10_000
# Bounds of one LSP diagnostic's fields (`ingest.lsp`, the MCP ingest tool):
# its message and each related note, its code or source (a rule id), a
# file:// URI or docs URL (a long path, percent-encoded), its related notes.
MAX_MESSAGE_CHARS: Final = 32_768
MAX_CODE_CHARS: Final = 200
MAX_URI_CHARS: Final = 16_384
MAX_RELATED: Final = 100


class ReportError(SignalintError, ValueError):
    """Input that is not used: `where` names the place in it, `message` the problem."""

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


@dataclass(frozen=True, slots=True)
class Batch:
    """One normalized report: its issues and every file it speaks for.

    `source` is the name the issues carry as their engine (a language
    server's name, or the tool that wrote the report); `files` includes
    each file of `issues` plus files named with no diagnostic (cleared).
    """

    source: str
    issues: tuple[Issue, ...]
    files: tuple[str, ...]


# format name -> the module defining `parse(text, root, base) -> Batch`
FORMATS: Final[dict[str, str]] = {
    "ruff": "signalint.ingest.ruff_report",
    "mypy": "signalint.ingest.mypy_report",
    "clippy": "signalint.ingest.clippy",
    "golangci": "signalint.ingest.golangci",
    "eslint": "signalint.ingest.eslint_report",
    "sarif": "signalint.ingest.sarif_report",
}

Parser = Callable[[str, Path, Path | None], Batch]


def parse_report(format_name: str, text: str, root: Path, base: Path | None = None) -> Batch:
    """The batch of a raw report in `format_name` (one of `FORMATS`).

    Relative paths in it start from `base` (default: `root`), where the
    tool ran. Raises `ReportError` for an unknown format, a report over
    `MAX_REPORT_BYTES`, or anything the format's parser refuses.
    """
    module = FORMATS.get(format_name)
    if module is None:
        choices = ", ".join(FORMATS)
        raise ReportError("format", f"unknown format {format_name[:40]!r}; accepted: {choices}")
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_REPORT_BYTES:
        raise ReportError(
            "report",
            f"{size} bytes; at most {MAX_REPORT_BYTES} bytes are accepted "
            "(split the report, or report fewer files at once)",
        )
    parser: Parser = importlib.import_module(module).parse
    batch = parser(text, root, base)
    if len(batch.issues) > MAX_BATCH:
        raise ReportError(
            "report",
            f"{len(batch.issues)} diagnostics; at most {MAX_BATCH} are accepted in one batch",
        )
    return batch


__all__ = [
    "FORMATS",
    "MAX_BATCH",
    "MAX_CODE_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_RELATED",
    "MAX_REPORT_BYTES",
    "MAX_URI_CHARS",
    "Batch",
    "ReportError",
    "parse_report",
]
