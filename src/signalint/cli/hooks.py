"""`signalint hooks preview|install|run --runtime claude|codex|cursor|gemini|vscode`.

`preview` shows the change `install` would make to the host's hook file and
writes nothing. `install` merges our post-edit and stop hooks into that file
(other hooks, comments and formatting stay; a backup is kept), asking on a
terminal, and needs `--yes` without one. `run` is what the host executes:
it reads the host's event (stdin, or `--payload`), applies the policy of
`signalint.hosts.hook_policy` and prints the decision as JSON in the host's
format on stdout, exit 0. A payload or setting it cannot use is reported on
stderr with exit 1, which every host treats as a non-blocking hook error
(never 2, which some hosts read as "block").
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from signalint.cli.hook_args import DEFAULT_FAIL_ON_PRIORITY, DEFAULT_MAX_BLOCKS
from signalint.hosts.hook_events import RUNTIMES

if TYPE_CHECKING:
    from signalint.hosts.settings_file import Change

RUNTIME = click.option(
    "--runtime",
    type=click.Choice(RUNTIMES),
    required=True,
    help="The agent host whose hook file and event format to use.",
)
POLICY = [
    click.option(
        "--fail-on-priority",
        type=click.IntRange(min=1),
        default=DEFAULT_FAIL_ON_PRIORITY,
        show_default=True,
        metavar="N",
        help="Stop hook: block while a returned cluster or flat issue has priority <= N "
        "(1 most urgent .. 5; 3 includes every error).",
    ),
    click.option(
        "--allow-partial",
        is_flag=True,
        help="Stop hook: let the agent stop although an engine failed or is missing.",
    ),
    click.option(
        "--max-blocks",
        type=click.IntRange(min=1),
        default=DEFAULT_MAX_BLOCKS,
        show_default=True,
        metavar="N",
        help="Stop hook: after N consecutive blocks, let the agent stop with a warning.",
    ),
]


def _policy_args(fail_on_priority: int, allow_partial: bool, max_blocks: int) -> list[str]:
    extra: list[str] = []
    if fail_on_priority != DEFAULT_FAIL_ON_PRIORITY:
        extra += ["--fail-on-priority", str(fail_on_priority)]
    if allow_partial:
        extra.append("--allow-partial")
    if max_blocks != DEFAULT_MAX_BLOCKS:
        extra += ["--max-blocks", str(max_blocks)]
    return extra


def _planned(runtime: str, fail_on_priority: int, allow_partial: bool, max_blocks: int) -> Change:
    """What `install` would write for `runtime` in the project found from here."""
    from signalint.hosts import hook_config
    from signalint.project.roots import discover_root

    args = _policy_args(fail_on_priority, allow_partial, max_blocks)
    return hook_config.plan(discover_root(), runtime, args)


def _with_policy(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(POLICY):
        f = option(f)
    return f


@click.group("hooks")
def hooks() -> None:
    """Verify-after-edit hooks for agent hosts: preview, install, run.

    The post-edit hook checks the files the agent just edited and gives the
    model the issues it finds; the stop hook checks the project and keeps
    the agent working while urgent issues remain or coverage is incomplete
    (at most --max-blocks times in a row). Hook files follow each host's
    current documentation (see README, "Verify-after-edit hooks").
    """


@hooks.command("preview")
@RUNTIME
@_with_policy
def preview(runtime: str, fail_on_priority: int, allow_partial: bool, max_blocks: int) -> int:
    """Show the change `install` would make; write nothing."""
    change = _planned(runtime, fail_on_priority, allow_partial, max_blocks)
    if not change.changed:
        click.echo(f"{change.path} already has the signalint hooks; install would change nothing.")
        return 0
    click.echo(f"install would write {change.path}:")
    click.echo(change.diff(), nl=False)
    return 0


@hooks.command("install")
@RUNTIME
@_with_policy
@click.option("--yes", "-y", is_flag=True, help="Write without asking (needed without a terminal).")
def install(
    runtime: str, fail_on_priority: int, allow_partial: bool, max_blocks: int, yes: bool
) -> int:
    """Merge the signalint hooks into the host's hook file (other hooks are kept)."""
    from signalint.hosts import settings_file

    change = _planned(runtime, fail_on_priority, allow_partial, max_blocks)
    if not change.changed:
        click.echo(f"{change.path} already has the signalint hooks; nothing changed.")
        return 0
    click.echo(change.diff(), nl=False)
    if not yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            click.echo("No terminal to ask on, so nothing was written; pass --yes to install.")
            return 0
        if not click.confirm(f"Write {change.path}?", default=True):
            click.echo("Not written.")
            return 0
    try:
        backup = settings_file.write(change)
    except OSError as exc:
        click.echo(f"error: cannot write {change.path}: {exc.strerror}", err=True)
        return 1
    saved = f" (previous file kept as {backup.name})" if backup else ""
    click.echo(f"Wrote {change.path}{saved}. Restart or reload the host to load the hooks.")
    return 0


@hooks.command("run")
@RUNTIME
@_with_policy
@click.option(
    "--payload",
    metavar="JSON",
    help="The host event as JSON (default: read it from stdin, as hosts send it).",
)
@click.option(
    "--no-daemon",
    is_flag=True,
    help="Check in this process even when the project's daemon runs "
    "(SIGNALINT_DAEMON=0 does so always).",
)
def run(
    runtime: str,
    fail_on_priority: int,
    allow_partial: bool,
    max_blocks: int,
    payload: str | None,
    no_daemon: bool,
) -> int:
    """Answer one host event with a decision in the host's JSON format (exit 0).

    A post-edit event answered before, on files unchanged since, whose
    answer reported nothing new, is answered again from that answer without
    a check (README, "An unchanged project answers at once").

    When the project's daemon runs (`signalint daemon start`) it answers,
    with the engines kept warm; `--no-daemon` or SIGNALINT_DAEMON=0 checks in
    this process.
    """
    from signalint.hosts.hook_run import run_command

    if no_daemon:  # this process checks: no daemon (`daemon.client.check`)
        os.environ["SIGNALINT_DAEMON"] = "0"
    return run_command(runtime, payload, fail_on_priority, allow_partial, max_blocks)
