"""`signalint merge`: join the outputs of `check --shard I/N` into the whole check's report.

Exit codes as `signalint check` would give for the unsharded check: 0
clean (or, with --fail-on-priority, nothing at or above the threshold and
no engine error), 1 issues found, an engine error or anything not checked;
2 when the inputs are not the shards of one check (the message names the
file and what is wrong) or an option is wrong.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from signalint.report import fails_priority, nothing_checked_message
from signalint.shard_merge import FORMATS, Format, merge, read, render


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
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to this file instead of stdout.",
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
    output: Path | None,
    fail_on_priority: int | None,
) -> int:
    """Merge the outputs of `signalint check --shard I/N` into one report.

    FILES are the json (or sarif) outputs of shards 1 to N of one check,
    in any order ("-" reads one from stdin). The report equals what the
    unsharded check would have printed: the same issues, clusters, counts
    and order, each engine's outcome combined from its shards (statuses,
    files checked, cache counts); only the check id is new, and it names
    no retained check. In SARIF each run is one engine's, with the id
    `signalint/<engine>/`, as the unsharded check writes it.
    """
    outputs = []
    for name in files:
        if name == "-":
            from signalint.shard_merge import parse

            outputs.append(parse(sys.stdin.read(), "stdin"))
        else:
            outputs.append(read(Path(name), name))
    form, merged = merge(outputs, output_format)
    text = render(form, merged, compact=outputs[0].compact)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        from signalint.files import write_atomic

        write_atomic(output, text.encode("utf-8"))
    result = merged.judged
    from signalint.service import engine_problems

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
