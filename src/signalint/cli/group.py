"""The `signalint` click group: its commands, imported only when invoked.

Split from `cli.main` (the command table is `cli.table`) so that the entry
point can forward a command to the project's daemon (`daemon.client`)
before click is imported.
"""

from __future__ import annotations

import importlib

import click

from signalint import __version__
from signalint.cli.table import COMMANDS, VERSION_FLAGS, recover_fix_transactions


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(entry[0])
        command = getattr(module, entry[1])
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, *VERSION_FLAGS, prog_name="signalint")
def cli() -> None:
    """Signalint runs your project's own linters and type checkers (Oxlint,
    TypeScript, Vue (vue-tsc), Svelte (svelte-check), Astro (astro check),
    Biome, ESLint, Ruff, mypy, Pyright, basedpyright, ty, Pyrefly:
    `signalint engines list` names them all), normalizes their diagnostics
    into one schema, and ranks them in clusters, for coding agents and people.

    Start with `signalint init` in your project, then `signalint check`.
    `signalint help COMMAND` shows a command's help; `signalint -v` the version.
    """
    recover_fix_transactions()
