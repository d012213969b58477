"""`signalint ingest`: any tool's report, as a Signalint check in any output format.

Exit codes as `signalint check`: 0 clean (or, with --fail-on-priority,
nothing at or above the threshold), 1 issues found, 2 a report that cannot
be used (unknown format, truncated, too large, a path outside the project),
which is refused whole with the place in it that is at fault.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from signalint import formats
from signalint.ingest import FORMATS, MAX_REPORT_BYTES, ReportError, parse_report


def _read(source: str) -> str:
    """The report's text from a file or stdin ('-'), refused beyond the size limit."""
    name = "standard input" if source == "-" else source
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_REPORT_BYTES + 1)
        else:
            with open(source, "rb") as handle:
                data = handle.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise ReportError(name, f"cannot read it ({exc.strerror or exc})") from exc
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(
            name, f"more than {MAX_REPORT_BYTES} bytes; split the report (fewer files at once)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReportError(name, f"not UTF-8 text (byte {exc.start})") from exc


@click.command()
@click.argument("report", default="-", metavar="[FILE|-]")
@click.option(
    "--format",
    "report_format",
    type=click.Choice(list(FORMATS)),
    required=True,
    help="The report's format: ruff (--output-format json), mypy (-O json), clippy "
    "(cargo --message-format json), golangci (JSON output), eslint (--format json) or "
    "sarif (SARIF 2.1.0: CodeQL, Semgrep, ...).",
)
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(formats.FORMATS),
    default="json",
    show_default=True,
    help="As `signalint check --format`: json, text, github or sarif.",
)
@click.option(
    "--fail-on-priority",
    type=click.IntRange(min=1),
    metavar="N",
    help="Exit 1 only if a returned cluster or flat issue has priority <= N (1 most urgent).",
)
def ingest(
    report: str, report_format: str, output_format: str, fail_on_priority: int | None
) -> int:
    """Read a report another tool wrote (FILE, or standard input) and print it as a check.

    The report's paths must lie inside the project (found upward from the
    working directory, as for `signalint check`); relative ones are taken
    from the working directory, where the tool ran. The result is kept as an
    ingested batch, so `signalint show ID` expands its ids. Exit 0 when the
    report has no issue (or none at --fail-on-priority), 1 when it has, 2
    when it cannot be used: truncated, over 16 MB, a path outside the project.
    """
    from signalint.features.live import batch_snapshot
    from signalint.kept.snapshot_store import SnapshotStore, live_snapshot_dir
    from signalint.pipeline.report import Additions, fails_priority
    from signalint.project.roots import discover_root
    from signalint.settings.config import load_config

    root = discover_root()
    config = load_config(root)
    text = _read(report)
    batch = parse_report(report_format, text, root, base=Path(os.getcwd()))
    snap = batch_snapshot(batch, str(root))
    store = SnapshotStore(
        config.snapshot_max, config.snapshot_ttl_s, directory=live_snapshot_dir(root)
    )
    store.put(snap)
    result, clustering = snap.result, snap.clustering
    options: dict[str, object] = {}
    if output_format == "json":
        added = Additions(filtered_out=snap.reported_filtered_out)
        options = {"compact": config.compact, "added": added}
    elif output_format == "sarif":
        options = {"versions": {batch.source: None}}
    elif output_format == "text":
        added = Additions(filtered_out=snap.reported_filtered_out or 0)
        options = {"stream": sys.stdout, "added": added}
    sys.stdout.write(formats.render(output_format, result, clustering, **options))
    sys.stdout.flush()
    if fail_on_priority is not None:
        return 1 if fails_priority(clustering, fail_on_priority) else 0
    return 1 if result.issues else 0
