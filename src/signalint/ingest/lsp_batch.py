"""LSP-shaped diagnostics (as the MCP server ingests them) -> one `Batch`.

Each element of `diagnostics` is either

- one diagnostic: LSP's `Diagnostic` plus the file it is in, `file`
  (project-relative or a `file://` URI; `uri` is accepted as its alias):
  `{file, range: {start: {line, character}, end}, severity?, code?, source?,
  message, codeDescription?: {href}}`; or
- a `textDocument/publishDiagnostics` notification's params, forwarded as
  the server sent them: `{uri, diagnostics: [Diagnostic...]}`. It names its
  file even when `diagnostics` is empty, which clears that file (D8).

LSP positions are zero-based lines and zero-based UTF-16 `character`
offsets; they become 1-based lines and 1-based UTF-16 columns, clamped to
the file's text. `severity` 1 is an error; 2 (warning), 3 (information), 4
(hint) or none are warnings; the names "error", "warning", "information"
and "hint" are accepted too. Anything else, like a range without `start`
or a `line` that is not a non-negative integer, is refused naming the
field's path, and nothing of the batch is used. So is a field over its
bound (`signalint.ingest`: a message of more than 32,768 characters, a code
or source of more than 200, more than 100 related notes), at any depth.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from signalint.ingest import (
    MAX_BATCH,
    MAX_CODE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_RELATED,
    MAX_URI_CHARS,
    Batch,
    ReportError,
)
from signalint.ingest.places import Places
from signalint.model import Issue, Severity

DEFAULT_SOURCE: Final = "external-lsp"
_SEVERITY_NAMES: Final[dict[str, Severity]] = {
    "error": "error",
    "warning": "warning",
    "information": "warning",
    "info": "warning",
    "hint": "warning",
}
_LABEL: Final = re.compile(r"[^A-Za-z0-9._@/+-]+")


def source_label(source: str | None, server_name: str | None) -> str:
    """The name a batch's issues carry as their engine, and its key in the buffer.

    The server's name when given (two language servers stay apart), else
    the source unless it is the generic "lsp", else "external-lsp" (the
    reference's engine name). Characters outside `[A-Za-z0-9._@/+-]` become
    '-', at most 64 are kept.
    """
    for value in (server_name, source if source != "lsp" else None):
        cleaned = clean_name(value)
        if cleaned:
            return cleaned
    return DEFAULT_SOURCE


def clean_name(value: str | None) -> str | None:
    """`value` as a source name (see `source_label`), or None when nothing is left."""
    if not value or not value.strip():
        return None
    return _LABEL.sub("-", value.strip()).strip("-")[:64] or None


def _int(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ReportError(where, f"expected a non-negative integer, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value[:40])
    if isinstance(value, bool | int | float) or value is None:
        return repr(value)
    return "an object" if isinstance(value, dict) else "an array"


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReportError(where, f"expected an object, got {_shown(value)}")
    return value


def _point(value: object, where: str) -> tuple[int, int]:
    if type(value) is dict:
        line, character = value.get("line"), value.get("character")
        # The common case, checked cheaply: two non-negative ints (bool is not int here).
        if type(line) is int and type(character) is int and line >= 0 and character >= 0:
            return line, character
    point = _object(value, where)
    for key in ("line", "character"):
        if key not in point:
            raise ReportError(f"{where}.{key}", "this field is required")
    return _int(point["line"], f"{where}.line"), _int(point["character"], f"{where}.character")


def severity_of(value: object, where: str) -> Severity:
    """LSP severity -> ours (module docstring)."""
    if value == 1 and type(value) is int:
        return "error"
    if value is None:
        return "warning"
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4:
        return "error" if value == 1 else "warning"
    if isinstance(value, str) and value.lower() in _SEVERITY_NAMES:
        return _SEVERITY_NAMES[value.lower()]
    raise ReportError(
        where, f"expected 1 (error), 2 (warning), 3 (information) or 4 (hint), got {_shown(value)}"
    )


def _bounded(value: str, where: str, limit: int) -> str:
    if len(value) > limit:
        raise ReportError(where, f"longer than {limit} characters ({len(value)} given)")
    return value


def _code(value: object, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict):  # {value, target}, as some servers send it
        value, where = value.get("value"), f"{where}.value"
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ReportError(where, f"expected a string or an integer, got {_shown(value)}")
    if isinstance(value, int) and value.bit_length() > 3 * MAX_CODE_CHARS:
        raise ReportError(where, f"longer than {MAX_CODE_CHARS} characters")
    return _bounded(str(value), where, MAX_CODE_CHARS) or None


# Issues made from earlier batches, by what made them: a language server
# re-publishes most of a file's diagnostics after every edit. Bounded.
Memo = dict[tuple[object, ...], Issue]
MEMO_LIMIT: Final = 50_000


class _Builder:
    def __init__(self, root: Path, label: str, memo: Memo | None = None) -> None:
        self.places = Places(root)
        self.label = label
        self.memo: Memo = {} if memo is None else memo
        self.issues: list[Issue] = []
        self.files: dict[str, None] = {}

    def name(self, value: object, where: str) -> str:
        file = self.places.file(value, where, must_exist=False)
        self.files.setdefault(file, None)
        return file

    def _common(self, diag: dict[str, Any], file: str) -> Issue | None:
        """The issue of a diagnostic of the common shape, checked cheaply; else None.

        Common: a non-blank message, a range with both ends, severity 1-4 or
        none, a string or integer code or none, nothing for help or docs.
        Anything else (including every malformed diagnostic) takes `add`'s
        general path, which names the field at fault.
        """
        message, span = diag.get("message"), diag.get("range")
        if type(message) is not str or not message or message.isspace() or type(span) is not dict:
            return None
        if len(message) > MAX_MESSAGE_CHARS:
            return None
        start, end = span.get("start"), span.get("end")
        if type(start) is not dict or type(end) is not dict:
            return None
        sl, sc = start.get("line"), start.get("character")
        el, ec = end.get("line"), end.get("character")
        if not (type(sl) is int and type(sc) is int and type(el) is int and type(ec) is int):
            return None
        if sl < 0 or sc < 0 or el < 0 or ec < 0:
            return None
        value = diag.get("severity")
        if value is None:
            severity: Severity = "warning"
        elif type(value) is int and 1 <= value <= 4:
            severity = "error" if value == 1 else "warning"
        else:
            return None
        code, source = diag.get("code"), diag.get("source")
        if type(source) is str and len(source) > MAX_CODE_CHARS:
            return None
        if type(code) is str and code and len(code) <= MAX_CODE_CHARS:
            rule = code
        elif type(code) is int and -(10**9) < code < 10**9:
            rule = str(code)
        elif code is None:
            rule = source if type(source) is str and source else self.label
        else:
            return None
        if "relatedInformation" in diag or "codeDescription" in diag:
            return None
        clamp = self.places.clamp
        line, col = clamp(file, sl + 1, sc + 1)
        end_line, end_col = clamp(file, el + 1, ec + 1)
        if (end_line, end_col) < (line, col):
            end_line, end_col = line, col
        key = (self.label, file, line, col, rule, severity, message, end_line, end_col)
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) >= MEMO_LIMIT:
                self.memo.clear()
            found = self.memo[key] = Issue(
                self.label, file, line, col, rule[:200], severity, message,
                end_line=end_line, end_col=end_col,
            )  # fmt: skip
        return found

    def add(self, raw: object, where: str, file: str | None = None) -> None:
        diag = _object(raw, where)
        if file is None:
            key = "file" if "file" in diag else "uri" if "uri" in diag else None
            if key is None:
                raise ReportError(f"{where}.file", "this field is required (a path or file:// URI)")
            file = self.places.file(diag[key], f"{where}.{key}")
            self.files.setdefault(file, None)
        common = self._common(diag, file)
        if common is not None:
            self.issues.append(common)
            if len(self.issues) > MAX_BATCH:
                raise ReportError("diagnostics", f"at most {MAX_BATCH} diagnostics in one batch")
            return
        message = diag.get("message")
        if not isinstance(message, str) or not message.strip():
            raise ReportError(f"{where}.message", "expected a non-empty string")
        _bounded(message, f"{where}.message", MAX_MESSAGE_CHARS)
        start, end = (0, 0), None
        if diag.get("range") is not None:
            span = _object(diag["range"], f"{where}.range")
            if "start" not in span:
                raise ReportError(f"{where}.range.start", "this field is required")
            start = _point(span["start"], f"{where}.range.start")
            if span.get("end") is not None:
                end = _point(span["end"], f"{where}.range.end")
        severity = severity_of(diag.get("severity"), f"{where}.severity")
        code = _code(diag.get("code"), f"{where}.code")
        source = diag.get("source")
        if isinstance(source, str):
            _bounded(source, f"{where}.source", MAX_CODE_CHARS)
        rule = code or (source if isinstance(source, str) and source else self.label)
        one_based = None if end is None else (end[0] + 1, end[1] + 1)
        line, col, end_line, end_col = self.places.span(
            file, (start[0] + 1, start[1] + 1), one_based
        )
        docs = diag.get("codeDescription")
        href = docs.get("href") if isinstance(docs, dict) else None
        if isinstance(href, str):
            _bounded(href, f"{where}.codeDescription.href", MAX_URI_CHARS)
        related = _related(diag.get("relatedInformation"), f"{where}.relatedInformation")
        self.issues.append(
            Issue(
                engine=self.label,
                file=file,
                line=line,
                col=col,
                rule=rule[:200],
                severity=severity,
                message=message,
                end_line=end_line,
                end_col=end_col,
                docs_url=href if isinstance(href, str) and href else None,
                help=related,
            )
        )
        if len(self.issues) > MAX_BATCH:
            raise ReportError("diagnostics", f"at most {MAX_BATCH} diagnostics in one batch")


def _related(value: object, where: str) -> str | None:
    """Messages of LSP `relatedInformation`, as the issue's help."""
    if not isinstance(value, list):
        return None
    if len(value) > MAX_RELATED:
        raise ReportError(where, f"has {len(value)} items; at most {MAX_RELATED} are accepted")
    notes = [
        _bounded(item["message"], f"{where}[{index}].message", MAX_MESSAGE_CHARS)
        for index, item in enumerate(value)
        if isinstance(item, dict) and isinstance(item.get("message"), str)
    ]
    return "\n".join(notes) or None


def parse(
    diagnostics: Sequence[object],
    root: Path,
    *,
    label: str = DEFAULT_SOURCE,
    files: Sequence[str] = (),
    field: str = "diagnostics",
    memo: Memo | None = None,
) -> Batch:
    """The batch of `diagnostics` (module docstring) from the source `label`.

    `files` names more files this batch speaks for (each one without a
    diagnostic is cleared). `memo` keeps issues made before (issues are
    immutable, so one made for an identical diagnostic is reused). Raises
    `ReportError` naming the first bad field.
    """
    builder = _Builder(root, label, memo)
    for index, path in enumerate(files):
        builder.name(path, f"files[{index}]")
    for index, raw in enumerate(diagnostics):
        where = f"{field}[{index}]"
        if isinstance(raw, dict) and isinstance(raw.get("diagnostics"), list):
            # publishDiagnostics params: {uri, version?, diagnostics}
            key = "uri" if "uri" in raw else "file"
            file = builder.name(raw.get(key), f"{where}.{key}")
            for inner, item in enumerate(raw["diagnostics"]):
                builder.add(item, f"{where}.diagnostics[{inner}]", file)
        else:
            builder.add(raw, where)
    return Batch(label, tuple(builder.issues), tuple(builder.files))


__all__ = ["DEFAULT_SOURCE", "clean_name", "parse", "severity_of", "source_label"]
