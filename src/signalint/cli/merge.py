"""`signalint merge`: join the outputs of `check --shard I/N` into the whole check's report.

Exit codes as `signalint check` would give for the unsharded check: 0
clean (or, with --fail-on-priority, nothing at or above the threshold and
no engine error), 1 issues found, an engine error or anything not checked;
2 when the inputs are not the shards of one check (the message names the
file and what is wrong) or an option is wrong.

The merged check is kept in the state directory of the project found
from the working directory (as `check` keeps its own), so the check id
and every id of the report expand with `signalint show` run there. When
it cannot be kept (the state directory cannot be written), the report's
`nextStep` names no id (`unkept_words`): nothing it names is unknown.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from signalint.cli.output import absolute, emit
from signalint.cli.path_option import PathOption
from signalint.formats.commands import command_words
from signalint.pipeline.report import fails_priority, nothing_checked_message
from signalint.service.shard_join import FORMATS, Format, Merged, merge, read, render
from signalint.steps import Step


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="FILES...")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    help="json or sarif: the format the shards were written in (default: theirs); "
    "the report is in the same format.",
)
@click.option(
    "--output-file",
    "--output",
    "-o",
    "output",
    type=PathOption(dir_okay=False),
    metavar="PATH",
    help="Write the report to PATH (replaced in one step: never half written) instead of stdout.",
)
@click.option(
    "--fail-on-priority",
    type=click.IntRange(min=1),
    metavar="N",
    help="Exit 1 only if a cluster or flat issue of the merged report has priority <= N "
    "(1 most urgent .. 5), or an engine failed; otherwise exit 0.",
)
def merge_command(
    files: Sequence[str],
    output_format: Format | None,
    output: str | None,
    fail_on_priority: int | None,
) -> int:
    """Merge the outputs of `signalint check --shard I/N` into one report.

    FILES are the json (or sarif) outputs of shards 1 to N of one check,
    in any order ("-" reads one from stdin). The report equals what the
    unsharded check would have printed: the same issues, clusters, counts
    and order, each engine's outcome combined from its shards (statuses,
    files checked, cache counts); only the check id is new. The merged
    check is kept in the state directory of the project found from the
    working directory, so `signalint show ID` run there expands its ids.
    In SARIF each run is one engine's, with the id `signalint/<engine>/`,
    as the unsharded check writes it.
    """
    destination = absolute(output)
    outputs = []
    for name in files:
        if name == "-":
            from signalint.service.shard_join import parse

            outputs.append(parse(sys.stdin.read(), "stdin"))
        else:
            outputs.append(read(Path(name), name))
    form, merged = merge(outputs, output_format)
    words = command_words if _keep(merged) else unkept_words
    text = render(form, merged, compact=outputs[0].compact, words=words)
    emit(text, destination)
    result = merged.judged
    from signalint.service.check_service import engine_problems

    for line in engine_problems(result):
        click.echo(line, err=True)
    if form == "sarif":
        if result.code is not None:
            click.echo(f"signalint: {nothing_checked_message(result)}", err=True)
        elif result.coverage_warning is not None:
            click.echo(f"signalint: {result.coverage_warning}", err=True)
    if fail_on_priority is not None:
        failed = result.status == "error" or fails_priority(merged.clustering, fail_on_priority)
        return 1 if failed else 0
    return 0 if result.status == "clean" else 1


def _keep(merged: Merged) -> bool:
    """Keep the merged check where `signalint show` run here finds it
    (the project found from the working directory); False when it cannot
    be written there."""
    from signalint.kept.snapshot_store import SnapshotStore, snapshot_dir
    from signalint.pipeline.snapshot import Snapshot
    from signalint.project.roots import RootError, discover_root
    from signalint.settings.config import load_config
    from signalint.settings.homes import ConfigError

    try:
        root = discover_root()
        config = load_config(root)
    except (RootError, ConfigError, OSError):
        return False
    problems: list[str] = []
    store = SnapshotStore(
        config.snapshot_max,
        config.snapshot_ttl_s,
        directory=snapshot_dir(root),
        warn=problems.append,
    )
    snapshot = Snapshot(
        merged.result, merged.clustering, (".",), "project", merged.filtered_out or 0
    )
    store.put(snapshot)
    store.flush()
    return not problems


def unkept_words(step: Step) -> str:
    """`nextStep` phrases naming no check id: for a merged check that could
    not be kept, whose ids `signalint show` cannot expand."""
    if step.action == "see_all":
        return "the shards' `--format sarif` outputs, merged, list every issue."
    if step.check_id:
        return "run `signalint check` in the project to get ids `signalint show` expands."
    return command_words(step)
