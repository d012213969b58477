"""The text format: every issue, located and ranked, for a person fixing them.

Layout:
- a header: status, counts and the check id;
- one line per engine: status, files checked, a coverage gap or coverage
  warning, and the first line of an error (its full text comes at the end);
- in a workspace, one line per package: status, error and warning counts,
  directory and its engines; with `--new-from-rev`, how many issues were
  left out as present at that revision;
- in a workspace, the issues grouped by package (`Package NAME (path/)`,
  then `outside every package`): in each, errors before warnings, a
  cluster's members in that package under the cluster's own id;
- otherwise `Errors`, then `Warnings`: in each, the clusters by priority, every one
  listing its issues (a large one shows its first `CLUSTER_LINES` and
  `… and N more (signalint show <clusterId>)`), then the single issues by
  priority. Each issue is one line,
  `file:line:col  severity  engine[,engine…]  rule  message  [issueId]`,
  which editors and terminals recognize as a location;
- engine error details, then how to expand ids and list everything.

Unlike the JSON summary, nothing is capped but the clusters' lines: every
group of 2+ issues is a cluster here (the JSON demotes groups beyond the top
10 to its flat list), and every single issue is listed. Colour is added
only when writing to a terminal, through rich, imported lazily so that
commands which print nothing styled never load it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from signalint import ids
from signalint.formats.commands import command_words
from signalint.model import CheckResult, EngineOutcome, Issue
from signalint.pipeline.cluster import Cluster, Clustering, cluster, issue_priority
from signalint.pipeline.report import (
    NOTHING_ADDED,
    Additions,
    left_out_step,
    nothing_checked_message,
)
from signalint.wording import count as _plural

if TYPE_CHECKING:
    from typing import TextIO

# A line is a list of (text, style) spans; the style is a rich style name
# and is ignored when rendering without colour.
Span = tuple[str, str]
Line = list[Span]

STATUS_STYLES = {"clean": "bold green", "issues_found": "bold yellow", "error": "bold red"}
ENGINE_STYLES = {"ok": "green", "error": "red", "disabled": "yellow"}
SEVERITY_STYLES = {"error": "red", "warning": "yellow"}
# Issues shown under a cluster before `… and N more`; a cluster at most this
# large is listed whole.
CLUSTER_LINES = 10
# Width of an engine's message in the engine summary (one line each).
ENGINE_MESSAGE_LIMIT = 100


def engine_names(issue: Issue) -> str:
    """The engine that reported `issue`, then every other that saw it too (D20)."""
    return ",".join((issue.engine, *issue.also_reported_by))


def issue_line(issue: Issue, short_id: str) -> Line:
    """`file:line:col  severity  engines  rule  message  [id]` as styled spans.

    The location starts the line, as compilers print it, so editors'
    error parsers (quickfix, compilation mode, terminal links) find it.
    """
    return [
        (f"{issue.file}:{issue.line}:{issue.col}", "bold"),
        ("  ", ""),
        (issue.severity, SEVERITY_STYLES[issue.severity]),
        (f"  {engine_names(issue)}  {issue.rule}  ", "dim"),
        (issue.summary, ""),
        (f"  [{short_id}]", "dim"),
    ]


def covered_nothing(result: CheckResult) -> list[str]:
    """Engines that ran ok on no file they should have checked while another
    engine checked some: the check's coverage warning (D17)."""
    if result.coverage_warning is None:
        return []
    return [n for n in result.uncovered_engines if result.outcomes[n].status == "ok"]


def _first_line(text: str) -> str:
    lines = text.strip().splitlines() or [""]
    return ids.summarize(lines[0], ENGINE_MESSAGE_LIMIT)


def _engine_line(name: str, outcome: EngineOutcome, width: int, no_coverage: bool) -> Line:
    line: Line = [
        (f"  {name:<{width}}  ", ""),
        (f"{outcome.status:<8}", ENGINE_STYLES.get(outcome.status, "")),
    ]
    if outcome.status != "disabled":
        line.append((f"  {_plural(outcome.files_checked, 'file')}", ""))
    if outcome.coverage_gap:
        line.append((f"  coverage gap: {_first_line(outcome.coverage_gap)}", "red"))
    if no_coverage:
        line.append(("  coverage warning: checked no file while other engines did", "yellow"))
    if outcome.message:
        if outcome.status == "error":
            line.append((f"  {_first_line(outcome.message)} (details below)", "dim"))
        else:
            line.append((f"  ({_first_line(outcome.message)})", "dim"))
    return line


def _engine_lines(result: CheckResult) -> list[Line]:
    if not result.outcomes:
        return [[("engines: none enabled", "bold")]]
    lines: list[Line] = [[("engines:", "bold")]]
    width = max(len(name) for name in result.outcomes)
    no_coverage = set(covered_nothing(result))
    for name in sorted(result.outcomes):
        lines.append(_engine_line(name, result.outcomes[name], width, name in no_coverage))
    return lines


def _cluster_lines(item: Cluster, short_ids: dict[str, str]) -> list[Line]:
    lines: list[Line] = [
        [],
        [
            (f"P{item.priority}  ", "bold" if item.priority <= 2 else ""),
            (item.summary, "bold"),
            (f"  [cluster {item.cluster_id}]", "dim"),
        ],
    ]
    if item.suggested_action:
        lines.append([(f"  {item.suggested_action}", "cyan")])
    # Errors first inside a mixed cluster: they are what breaks the build.
    members = sorted(item.issues, key=lambda i: (i.severity != "error", i.sort_key()))
    shown = members if len(members) <= CLUSTER_LINES else members[:CLUSTER_LINES]
    lines += [issue_line(issue, short_ids[issue.issue_id]) for issue in shown]
    if len(shown) < len(members):
        more = len(members) - len(shown)
        lines.append([(f"  … and {more} more (signalint show {item.cluster_id})", "dim")])
    return lines


def _section(
    title: str, clusters: list[Cluster], singles: list[Issue], short_ids: dict[str, str]
) -> list[Line]:
    if not clusters and not singles:
        return []
    count = sum(item.issue_count for item in clusters) + len(singles)
    lines: list[Line] = [[], [(f"{title} ({count})", "bold underline")]]
    for item in clusters:
        lines += _cluster_lines(item, short_ids)
    if singles:
        priorities = sorted({issue_priority(issue) for issue in singles})
        ladder = "/".join(f"P{p}" for p in priorities)
        lines += [[], [(f"{ladder}  {_plural(len(singles), 'single issue')}", "bold")]]
        lines += [issue_line(issue, short_ids[issue.issue_id]) for issue in singles]
    return lines


def _package_lines(workspace: Mapping[str, Any]) -> list[Line]:
    """One line per package: status, counts and its engines (module docstring)."""
    lines: list[Line] = []
    if workspace.get("warning"):
        lines.append([(f"workspace: {workspace['warning']}", "yellow")])
    packages = workspace.get("packages") or []
    if not packages:
        return lines
    lines.append([(f"packages ({workspace.get('source', '')}):", "bold")])
    width = max(len(p["name"]) for p in packages)
    for package in packages:
        counts = package["counts"]
        engines = ", ".join(
            f"{name} {entry['status']}" + (" (cached)" if entry.get("cached") else "")
            for name, entry in package["engines"].items()
        )
        lines.append(
            [
                (f"  {package['name']:<{width}}  ", "bold"),
                (f"{package['status']:<12}", STATUS_STYLES.get(package["status"], "")),
                (f"  {_plural(counts['errors'], 'error')}, ", ""),
                (f"{_plural(counts['warnings'], 'warning')}", ""),
                (f"  {package['path']}/  {engines}", "dim"),
            ]
        )
    outside = workspace.get("outsidePackages") or {}
    if outside.get("issues"):
        lines.append([(f"  (outside every package: {_plural(outside['issues'], 'issue')})", "")])
    return lines


def _by_package(
    packages: list[Any],
    groups: Sequence[Cluster],
    singles: list[Issue],
    short_ids: dict[str, str],
) -> list[Line]:
    """Issues grouped by the package holding their file (deepest first), then
    those outside every package. A cluster spanning packages appears under
    each with the part in that package, under its one id (which `signalint
    show` expands whole); errors before warnings inside a package."""
    deepest = sorted(packages, key=lambda p: -len(p["path"]))

    def owner(file: str) -> str | None:
        for package in deepest:
            if file == package["path"] or file.startswith(package["path"] + "/"):
                return str(package["name"])
        return None

    owners: dict[str, str | None] = {}

    def of(issue: Issue) -> str | None:
        if issue.file not in owners:
            owners[issue.file] = owner(issue.file)
        return owners[issue.file]

    lines: list[Line] = []
    headings = [(p["name"], f"{p['name']} ({p['path']}/)") for p in packages]
    for name, heading in [*headings, (None, "outside every package")]:
        parts = [(item, [i for i in item.issues if of(i) == name]) for item in groups]
        parts = [(item, members) for item, members in parts if members]
        own = [issue for issue in singles if of(issue) == name]
        if not parts and not own:
            continue
        count = sum(len(members) for _, members in parts) + len(own)
        lines += [[], [(f"Package {heading} ({_plural(count, 'issue')})", "bold underline")]]
        for severity in ("error", "warning"):
            for item, members in parts:
                if item.severity == severity:
                    lines += _cluster_part(item, members, short_ids)
            for issue in own:
                if issue.severity == severity:
                    lines.append(issue_line(issue, short_ids[issue.issue_id]))
    return lines


def _cluster_part(item: Cluster, members: list[Issue], short_ids: dict[str, str]) -> list[Line]:
    """A cluster's members in one package, headed as the whole cluster is."""
    shown_of = (
        f" ({len(members)} of {item.issue_count} here)" if len(members) < item.issue_count else ""
    )
    lines: list[Line] = [
        [
            (f"P{item.priority}  ", "bold" if item.priority <= 2 else ""),
            (item.summary + shown_of, "bold"),
            (f"  [cluster {item.cluster_id}]", "dim"),
        ]
    ]
    ordered = sorted(members, key=Issue.sort_key)
    shown = ordered[:CLUSTER_LINES]
    lines += [issue_line(issue, short_ids[issue.issue_id]) for issue in shown]
    if len(shown) < len(ordered):
        more = len(ordered) - len(shown)
        lines.append([(f"  … and {more} more (signalint show {item.cluster_id})", "dim")])
    return lines


def _baseline_lines(baseline: Mapping[str, Any]) -> list[Line]:
    """What `--new-from-rev` left out: the unchanged issues, the engines that
    failed at the baseline, and a borrowing cut at its limit."""
    lines: list[Line] = [
        [
            (f"only new since {baseline['rev']} ({str(baseline['commit'])[:12]}): ", "bold"),
            (
                f"{_plural(baseline['new'], 'new issue')}, "
                f"{baseline['unchanged']} unchanged not listed",
                "",
            ),
        ]
    ]
    for entry in baseline.get("fallback") or ():
        reason = next((t.strip() for t in str(entry["reason"]).splitlines() if t.strip()), "")
        lines.append(
            [
                (f"  {entry['engine']} failed at {baseline['rev']}", "yellow"),
                (
                    f": its issues are new only on lines changed since then ({entry['rule']}); "
                    f"it said: {reason}",
                    "",
                ),
            ]
        )
    if baseline.get("borrowedAllIgnoredFiles") is False:
        lines.append(
            [
                (
                    f"  only {baseline['borrowedIgnoredFiles']} ignored files were copied "
                    f"into the tree at {baseline['rev']} (the limit)",
                    "yellow",
                )
            ]
        )
    return lines


def _engine_error_lines(result: CheckResult) -> list[Line]:
    """Each failed engine with its coverage gap and message, whole."""
    failed = [(n, o) for n, o in sorted(result.outcomes.items()) if o.status == "error"]
    lines: list[Line] = [[], [("Engine errors", "bold underline")]] if failed else []
    for name, outcome in failed:
        lines.append([(f"  {name}:", "bold red")])
        gap = f"coverage gap: {outcome.coverage_gap}" if outcome.coverage_gap else ""
        for text in (gap, outcome.message or ""):
            lines += [[(f"    {raw}", "")] for raw in text.strip().splitlines()]
    return lines


def build_lines(
    result: CheckResult, clustering: Clustering, added: Additions = NOTHING_ADDED
) -> list[Line]:
    """The document as styled spans (exposed for tests and other writers).

    Renders every issue of `result` (see the module docstring);
    `clustering` is the summary the other formats show, whose ids and
    counts this document agrees with. `added` (`report.Additions`): its
    `filtered_out` counts diagnostics dropped for lying outside the
    requested paths; `workspace` adds one line per package after the
    engines (the JSON's `workspace` block); `baseline` says what
    `--new-from-rev` left out.
    """
    filtered_out = added.filtered_out or 0
    workspace: Mapping[str, Any] | None = added.workspace
    baseline: Mapping[str, Any] | None = added.baseline
    issues = result.issues
    everything = cluster(issues, max_clusters=len(issues), max_flat=len(issues))
    short_ids = everything.short_ids
    files = everything.file_count
    lines: list[Line] = [
        [
            ("signalint: ", "bold"),
            (result.status, STATUS_STYLES.get(result.status, "")),
            (f" - {_plural(everything.total, 'issue')}", ""),
            (f" in {_plural(files, 'file')}" if files else "", ""),
            (f" - check {result.check_id}", "dim"),
        ]
    ]
    lines += _engine_lines(result)
    if workspace is not None:
        lines += _package_lines(workspace)
    if baseline is not None:
        lines += _baseline_lines(baseline)
    if result.code is not None:
        lines.append([(nothing_checked_message(result), "red")])

    groups = everything.clusters  # already in priority order
    singles = [record.issue for record in everything.flat]  # already in priority order
    packages = (workspace or {}).get("packages") or []
    if packages:
        lines += _by_package(packages, groups, singles, short_ids)
    for title, severity in (("Errors", "error"), ("Warnings", "warning")):
        if packages:
            break
        lines += _section(
            title,
            [item for item in groups if item.severity == severity],
            [issue for issue in singles if issue.severity == severity],
            short_ids,
        )

    lines += _engine_error_lines(result)

    footer = [
        f"Expand any id with `signalint show <id>` (this check: {result.check_id}); "
        "`signalint check --format sarif` lists every issue for tools."
    ]
    step = left_out_step(result.check_id, 0, filtered_out, command_words, result.scoped_engines)
    if step:
        footer.append(step)
    lines.append([])
    lines += [[(text, "dim")] for text in footer]
    return lines


def render_lines(lines: list[Line], colour: bool) -> str:
    """Styled lines as text, with ANSI colour or plain (for other commands)."""
    return _coloured(lines) if colour else _plain(lines)


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
    added: Additions = NOTHING_ADDED,
) -> str:
    """The document, ending in a newline (`added`: see `build_lines`).

    `color=None` decides by `wants_colour(stream)`: ANSI styles only when the
    output goes to a terminal. Pass `color=False` for plain text.
    """
    lines = build_lines(result, clustering, added)
    use_colour = wants_colour(stream) if color is None else color
    return render_lines(lines, use_colour)
