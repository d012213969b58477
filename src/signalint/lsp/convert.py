"""Signalint issues as LSP diagnostics, and file paths as URIs.

An `Issue`'s line and column are 1-based and count characters (code
points); an LSP position is 0-based and counts code units of the encoding
the session agreed on (`positionEncoding`: UTF-16 unless the client
prefers UTF-8 or UTF-32). The column is converted on its line of the text
(the open buffer's, else the file's on disk); without a text characters are
taken for units.

Each diagnostic carries what an editor or agent needs to act on it:
`source` (the engine, or the engines joined by ", " when several reported
the same problem, D20), `code` (the rule) with `codeDescription.href` (the
rule's documentation, when the engine gives it), severity, `relatedInformation`
naming each other engine of a merged issue, `tags` (`signalint.lsp.tags`) and
`data`: the issue id `signalint show` resolves, the engines, whether an
engine can fix it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types

from signalint.lsp.tags import tags_of
from signalint.model import Issue

SOURCE = "signalint"


def uri_of(root: Path, file: str) -> str:
    """The `file:` URI of a project-relative path."""
    return (root / file).as_uri()


def path_of(uri: str) -> Path | None:
    """The path a `file:` URI names; None for any other scheme or a NUL in it."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = unquote(parsed.path)
    if "\0" in path or not path.startswith("/"):
        return None
    return Path(path)


def _units(line: str, chars: int, encoding: str) -> int:
    """Code units in `encoding` of the first `chars` characters of `line`."""
    head = line[:chars]
    past = max(0, chars - len(line))
    if encoding == "utf-32":
        return chars
    if encoding == "utf-8":
        return len(head.encode("utf-8", "surrogatepass")) + past
    return len(head) + sum(1 for c in head if ord(c) > 0xFFFF) + past


def _position(lines: Sequence[str] | None, line: int, col: int, encoding: str) -> types.Position:
    row, chars = line - 1, col - 1
    if lines is not None and 0 <= row < len(lines):
        return types.Position(row, _units(lines[row], chars, encoding))
    return types.Position(row, chars)


def engines_of(issue: Issue) -> tuple[str, ...]:
    """Every engine that reported the issue, its primary first."""
    return (issue.engine, *issue.also_reported_by)


def diagnostic(
    issue: Issue, uri: str, lines: Sequence[str] | None = None, encoding: str = "utf-16"
) -> types.Diagnostic:
    """One issue as an LSP diagnostic (`lines`: the document's text, split)."""
    start = _position(lines, issue.line, issue.col, encoding)
    if issue.end_line is not None and issue.end_col is not None:
        end = _position(lines, issue.end_line, issue.end_col, encoding)
    else:
        end = types.Position(start.line, start.character + 1)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    where = types.Range(start, end)
    engines = engines_of(issue)
    related = [
        types.DiagnosticRelatedInformation(
            types.Location(uri, where), f"{other} reports the same problem here"
        )
        for other in issue.also_reported_by
    ]
    data: dict[str, Any] = {
        "issueId": issue.issue_id,
        "engines": list(engines),
        "fixable": issue.fixable,
    }
    return types.Diagnostic(
        range=where,
        message=issue.message,
        severity=(
            types.DiagnosticSeverity.Error
            if issue.severity == "error"
            else types.DiagnosticSeverity.Warning
        ),
        code=issue.rule,
        code_description=(types.CodeDescription(href=issue.docs_url) if issue.docs_url else None),
        source=", ".join(engines),
        tags=tags_of(issue.engine, issue.rule) or None,
        related_information=related or None,
        data=data,
    )


def unseen_notice(
    engines: Sequence[str],
    pending: Sequence[str] = (),
    buffers: Sequence[str] = (),
    failed: Sequence[str] = (),
) -> types.Diagnostic:
    """The diagnostic a file carries while `engines` have not seen the
    unsaved buffer: `pending` of them are checking it now and answer
    shortly, `failed` ones failed on it (the reason is shown apart,
    `window/showMessage`), the others answer when it is saved. `buffers`
    names the unsaved files when the diagnostic is another file's (a
    dependent published from the buffers' program)."""
    what = "this unsaved buffer" if not buffers else "the unsaved " + ", ".join(buffers)
    parts: list[str] = []
    later = [e for e in engines if e not in pending and e not in failed]
    for names, said, when in (
        (list(pending), "not seen", "follow shortly"),
        ([e for e in engines if e in failed], "failed on", "come when it is saved"),
        (later, "not seen", "come when it is saved"),
    ):
        if not names:
            continue
        one = len(names) == 1
        have = ("has " if one else "have ") if said == "not seen" else ""
        parts.append(
            f"{', '.join(names)} {have}{said} {what}: "
            f"{'its' if one else 'their'} diagnostics {when}"
        )
    data: dict[str, Any] = {"unseen": list(engines)}
    if pending:
        data["pending"] = list(pending)
    if failed:
        data["failed"] = [e for e in engines if e in failed]
    return types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        message="; ".join(parts),
        severity=types.DiagnosticSeverity.Information,
        code="unsaved",
        source=SOURCE,
        data=data,
    )


__all__ = ["SOURCE", "diagnostic", "engines_of", "path_of", "unseen_notice", "uri_of"]
