"""`signalint engines`: install pinned engines (D12), list how each resolves."""

from __future__ import annotations

import json
from pathlib import Path

import click

from signalint.cli.path_option import PathOption
from signalint.engines import install as installer
from signalint.engines import resolve
from signalint.engines.registry import ENGINES

INSTALL_TIMEOUT_S = 600.0


@click.group()
def engines() -> None:
    """Install pinned engines or list how each resolves."""


@engines.command()
@click.argument("names", nargs=-1)
@click.option(
    "--force",
    is_flag=True,
    help="Reinstall even when the pinned versions are installed and answer --version.",
)
@click.pass_context
def install(ctx: click.Context, names: tuple[str, ...], force: bool) -> None:
    """Install pinned engines (default: all) into Signalint's managed directory.

    npm packages go to an npm prefix there, pip packages into a virtual
    environment there. The project's own copy (node_modules/.bin, or its
    virtual environment for Python engines) always takes precedence.

    One install at a time: a second one waits for the first. Each install
    builds a new copy of the managed directory beside it, checks that every
    engine there answers --version with its pinned version, and only then
    swaps it in; on failure the managed directory stays as it was. Engines
    already installed at their pinned versions are left alone (unless --force).
    """
    unknown = [name for name in names if name not in ENGINES]
    if unknown:
        raise click.UsageError(
            f"unknown engine {', '.join(repr(n) for n in unknown)}; "
            f"choose from {', '.join(ENGINES)}"
        )
    selected = list(dict.fromkeys(names)) or list(ENGINES)

    def say(line: str) -> None:
        click.echo(line, err=True)

    try:
        done = installer.install(
            [ENGINES[n] for n in selected], INSTALL_TIMEOUT_S, say, force=force
        )
    except installer.InstallError as error:
        click.echo(str(error), err=True)
        click.echo(f"Nothing changed in {resolve.managed_dir()}.", err=True)
        ctx.exit(1)
    for item in done:
        state = "already installed" if item.already else "installed"
        click.echo(f"{item.engine} {item.version} {state}")


def _rows(root: Path) -> list[dict[str, str | None]]:
    rows: list[dict[str, str | None]] = []
    for name in ENGINES:
        found = resolve.resolve(ENGINES[name], root)
        rows.append(
            {
                "engine": name,
                "source": found.source,
                "version": (
                    resolve.version(found.path, ENGINES[name].spec.provision)
                    if found.path
                    else None
                ),
                "path": str(found.path) if found.path else None,
                "pinned": ENGINES[name].spec.provision.version,
                "install": resolve.install_hint(name) if found.path is None else None,
            }
        )
    return rows


@engines.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
@click.option(
    "--root",
    type=PathOption(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="Project root whose node_modules is searched first.",
)
def list_engines(as_json: bool, root: Path) -> None:
    """Show where each engine resolves from (project, managed, PATH) and its version."""
    rows = _rows(root.resolve())
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    headers = ("engine", "source", "version", "path")
    table = [headers] + [
        (
            str(row["engine"]),
            str(row["source"]),
            row["version"] or "-",
            row["path"] or f"(run: {row['install']})",
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in table) for i in range(len(headers) - 1)]
    for line in table:
        padded = [cell.ljust(width) for cell, width in zip(line, widths, strict=False)]
        click.echo("  ".join([*padded, line[-1]]))
