"""`signalint fix [PATHS] [--engine NAME] [--dry-run]`: the engines' safe fixes, as one
transaction.

Checks PATHS, takes every fixable issue (of `--engine` only, if given),
lets the engines apply their safe fixes on a shadow copy (`fixes.suggest`),
prints the unified diff, and unless `--dry-run` writes the changed files
through the same journaled transaction as the MCP server's applied fixes
(all-or-nothing, even if the process is killed).

Exit codes: 0 applied (or nothing to fix), 1 a write failed or an engine
failed, 2 usage errors.
"""

from __future__ import annotations

import asyncio
import sys

import click

from signalint.engines.registry import ENGINES
from signalint.wording import count


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--engine",
    "engine",
    type=click.Choice(sorted(ENGINES)),
    help="Only this engine's fixes.",
)
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
def fix(paths: tuple[str, ...], engine: str | None, dry_run: bool) -> int:
    """Apply the engines' own safe fixes to PATHS (default: the whole project).

    ESLint, Oxlint, Biome and Ruff fix whole files in a shadow copy first;
    the diff is printed on stdout, then the files are written all-or-nothing.
    """
    from signalint.features.engine_fixes import suggest
    from signalint.features.transactions import (
        Prepared,
        TransactionRefused,
        new_transaction_id,
        preview_payload,
        write,
    )
    from signalint.formats.commands import command_words
    from signalint.project.roots import discover_root
    from signalint.service import check_service as service
    from signalint.settings.config import load_config

    root = discover_root()
    config = load_config(root)
    checked = asyncio.run(
        service.check(
            service.CheckRequest(root, config, paths, locate=service.from_cwd(root, config))
        )
    )
    issues = [
        issue
        for issue in checked.result.issues
        if issue.fixable and (engine is None or engine in (issue.engine, *issue.also_reported_by))
    ]
    if not issues:
        click.echo("signalint: no fixable issue found", err=True)
        return 0
    suggestion = asyncio.run(suggest(root, config, issues, engine))
    failed = [f"{n}: {e.get('message', e['status'])}" for n, e in suggestion.engines.items()
              if e["status"] == "error"]  # fmt: skip
    for line in failed:
        click.echo(f"signalint: fix failed for {line}", err=True)
    if not suggestion.patches:
        click.echo(f"signalint: {suggestion.explain()}", err=True)
        return 1 if failed else 0
    prepared = Prepared(new_transaction_id(), suggestion.patches, 0.0)
    preview = preview_payload(prepared, command_words)
    for item in preview["patchesPreview"]:
        sys.stdout.write(item["diff"])
    files = len(suggestion.patches)
    if dry_run:
        click.echo(
            f"signalint: {count(files, 'file')} would change "
            f"({count(len(issues), 'fixable issue')})",
            err=True,
        )
        return 1 if failed else 0
    try:
        modified = write(root, prepared)
    except TransactionRefused as exc:
        click.echo(f"signalint: {exc.code}: {exc.message}", err=True)
        return 1
    click.echo(f"signalint: fixed {count(len(modified), 'file')}: {', '.join(modified)}", err=True)
    return 1 if failed else 0
