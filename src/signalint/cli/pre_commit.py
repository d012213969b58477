"""`signalint pre-commit FILES...`: `check` for a git hook's files.

The command a git hook runs (`.pre-commit-hooks.yaml`, docs/ci.md): it
takes `check`'s options, passes over the files a hook should not block on
(`signalint.pipeline.hook_files`: ignored by the settings, or checked by no enabled
engine), and checks the rest as `signalint check FILES...` does, so the
type checkers still check the program those files belong to. When nothing
is left it says so on stderr and exits 0.
"""

from __future__ import annotations

from typing import Any

import click

from signalint.cli import engine_choice, output
from signalint.cli.check import Selection as CheckSelection
from signalint.cli.check import check as check_command
from signalint.pipeline.hook_files import select
from signalint.project.roots import discover_root

HELP = """Check the files a git hook passes (pre-commit passes the staged ones).

As `signalint check FILES...`, with every option of `check`, except that
files ignored by the settings (`ignore`, node_modules, .git, .signalint)
and files no enabled engine checks are passed over instead of refused, as
ESLint's `--no-warn-ignored` and Ruff's `--force-exclude` do. The type
checkers still check the program the remaining files belong to. With no
file left it prints what it passed over on stderr and exits 0; with no
FILES at all it checks the whole project.
"""


@click.pass_context
def _run(ctx: click.Context, /, **options: Any) -> Any:
    paths: tuple[str, ...] = options.pop("paths")
    if paths:
        root = discover_root()
        # The settings and engines the check will run with (`--config`,
        # `--only`, `--skip`) decide what is passed over, too.
        choice = engine_choice.EngineChoice(options["only"], options["skip"] or frozenset())
        config = CheckSelection(choice, output.absolute(options["config_file"])).config(root)
        selection = select(root, config, paths)
        note = selection.passed_over()
        if note is not None:
            click.echo(f"signalint: {note}", err=True)
        if not selection.kept:
            click.echo("signalint: no file left to check", err=True)
            return 0
        paths = selection.kept
    return ctx.invoke(check_command, paths=paths, **options)


pre_commit = click.Command(
    "pre-commit",
    params=list(check_command.params),
    callback=_run,
    help=HELP,
    short_help="Check a git hook's files, passing over ignored and unchecked ones.",
)
