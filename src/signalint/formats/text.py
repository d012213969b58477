"""The text format: a human-readable summary for terminals.

Layout: a header (status, counts, engine outcomes), the ranked clusters,
then the flat records as `file:line:col  severity  rule  summary` lines,
which editors and terminals recognize as locations. Colour is added only
when writing to a terminal, through rich, imported lazily so that commands
which print nothing styled never load it.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from signalint.cluster import Clustering
from signalint.model import CheckResult
from signalint.report import next_step, nothing_checked_message

if TYPE_CHECKING:
    from typing import TextIO

# A line is a list of (text, style) spans; the style is a rich style name
# and is ignored when rendering without colour.
Span = tuple[str, str]
Line = list[Span]

STATUS_STYLES = {"clean": "bold green", "issues_found": "bold yellow", "error": "bold red"}
ENGINE_STYLES = {"ok": "green", "error": "red", "disabled": "yellow"}
SEVERITY_STYLES = {"error": "red", "warning": "yellow"}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def build_lines(result: CheckResult, clustering: Clustering) -> list[Line]:
    """The document as styled spans (exposed for tests and other writers)."""
    files = clustering.file_count
    lines: list[Line] = [
        [
            ("signalint: ", "bold"),
            (result.status, STATUS_STYLES.get(result.status, "")),
            (f" - {_plural(clustering.total, 'issue')}", ""),
            (f" in {_plural(files, 'file')}" if files else "", ""),
        ]
    ]
    engines: Line = [("engines: ", "bold")]
    for index, name in enumerate(sorted(result.outcomes)):
        outcome = result.outcomes[name]
        engines.append(("; " if index else "", ""))
        engines.append((f"{name} ", ""))
        engines.append((outcome.status, ENGINE_STYLES.get(outcome.status, "")))
        if outcome.message:
            engines.append((f" ({outcome.message})", "dim"))
    lines.append(engines if result.outcomes else [("engines: none enabled", "bold")])
    if result.code is not None:
        lines.append([(nothing_checked_message(result), "red")])

    if clustering.clusters:
        lines += [[], [("Clusters", "bold underline")]]
    for item in clustering.clusters:
        row: Line = [
            (f"  P{item.priority}  ", "bold" if item.priority <= 2 else ""),
            (item.summary, ""),
            (f"  [cluster {item.cluster_id}]", "dim"),
        ]
        if item.sample_ids:
            row.append((f"  samples: {', '.join(item.sample_ids)}", "dim"))
        lines.append(row)
        if item.suggested_action:
            lines.append([(f"      {item.suggested_action}", "cyan")])

    if clustering.flat:
        lines += [[], [("Issues", "bold underline")]]
    for record in clustering.flat:
        issue = record.issue
        lines.append(
            [
                (f"{issue.file}:{issue.line}:{issue.col}", "bold"),
                ("  ", ""),
                (issue.severity, SEVERITY_STYLES[issue.severity]),
                (f"  {issue.rule}  ", "dim"),
                (issue.summary, ""),
            ]
        )
    step = next_step(result.check_id, clustering.omitted, 0)
    if step:
        lines += [[], [(step, "dim")]]
    return lines


def _plain(lines: list[Line]) -> str:
    return "".join("".join(text for text, _ in line) + "\n" for line in lines)


def _coloured(lines: list[Line]) -> str:
    # Imported here: rich costs tens of milliseconds to import.
    from io import StringIO

    from rich.console import Console
    from rich.text import Text

    buffer = StringIO()
    console = Console(file=buffer, force_terminal=True, soft_wrap=True, highlight=False)
    for line in lines:
        text = Text()
        for content, style in line:
            text.append(content, style=style or None)
        console.print(text)
    return buffer.getvalue()


def wants_colour(stream: TextIO | None = None) -> bool:
    """True when `stream` (default stdout) is a terminal and NO_COLOR is unset."""
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def render(
    result: CheckResult,
    clustering: Clustering,
    *,
    color: bool | None = None,
    stream: TextIO | None = None,
) -> str:
    """The summary, ending in a newline.

    `color=None` decides by `wants_colour(stream)`: ANSI styles only when the
    output goes to a terminal. Pass `color=False` for plain text.
    """
    lines = build_lines(result, clustering)
    use_colour = wants_colour(stream) if color is None else color
    return _coloured(lines) if use_colour else _plain(lines)
