"""The github format: one workflow command per issue (GitHub Actions annotations).

Every issue of the check is emitted, not only the summarized ones (D6), in
`Issue.sort_key()` order. Engines that failed or were unavailable get one
annotation each without a file, so a CI log shows why coverage is partial.
"""

from __future__ import annotations

from signalint.model import CheckResult, Issue
from signalint.pipeline.cluster import Clustering


def escape_data(value: str) -> str:
    """Escape a command's message part (GitHub's `escapeData`)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a property value: message escapes plus `:` and `,` (`escapeProperty`)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(level: str, properties: list[tuple[str, object]], message: str) -> str:
    """`::level key=value,...::message` with both parts escaped."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    head = f"::{level} {props}" if props else f"::{level}"
    return f"{head}::{escape_data(message)}"


def issue_command(issue: Issue) -> str:
    """The annotation for one issue; end position only when the engine gave one."""
    properties: list[tuple[str, object]] = [
        ("file", issue.file),
        ("line", issue.line),
        ("col", issue.col),
    ]
    if issue.end_line is not None:
        properties.append(("endLine", issue.end_line))
    if issue.end_col is not None:
        properties.append(("endColumn", issue.end_col))
    properties.append(("title", issue.rule))
    return command(issue.severity, properties, issue.message)


def render(result: CheckResult, clustering: Clustering | None = None) -> str:
    """All annotations, one per line, ending in a newline (empty when clean).

    `clustering` is accepted for a uniform writer signature and not used:
    annotations are never capped.
    """
    lines: list[str] = []
    for name in sorted(result.outcomes):
        outcome = result.outcomes[name]
        if outcome.status == "ok":
            continue
        level = "error" if outcome.status == "error" else "warning"
        detail = outcome.message or f"{name} did not run"
        lines.append(command(level, [("title", f"signalint: {name} {outcome.status}")], detail))
    lines.extend(issue_command(issue) for issue in sorted(result.issues, key=Issue.sort_key))
    return "".join(line + "\n" for line in lines)
