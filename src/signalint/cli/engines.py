"""`signalint engines`: install pinned engines (D12), list how each resolves."""

from __future__ import annotations

import json
from pathlib import Path

import click

from signalint.engines import resolve
from signalint.engines.registry import ENGINES
from signalint.process import run_blocking

INSTALL_TIMEOUT_S = 600.0


@click.group()
def engines() -> None:
    """Install pinned engines or list how each resolves."""


@engines.command()
@click.argument("names", nargs=-1)
@click.pass_context
def install(ctx: click.Context, names: tuple[str, ...]) -> None:
    """Install pinned engines (default: all) into Signalint's managed directory.

    npm packages go to an npm prefix there, pip packages into a virtual
    environment there. The project's own copy (node_modules/.bin, or its
    virtual environment for Python engines) always takes precedence.
    """
    unknown = [name for name in names if name not in ENGINES]
    if unknown:
        raise click.UsageError(
            f"unknown engine {', '.join(repr(n) for n in unknown)}; "
            f"choose from {', '.join(ENGINES)}"
        )
    selected = list(dict.fromkeys(names)) or list(ENGINES)
    directory = resolve.prepare_managed_dir()
    packages = " ".join(ENGINES[n].spec.provision.requirement for n in selected)
    click.echo(f"Installing into {directory}: {packages}", err=True)
    for command in resolve.install_commands([ENGINES[n] for n in selected], INSTALL_TIMEOUT_S):
        tool = Path(command.argv[0]).name
        result = run_blocking(command)
        if result.missing:
            click.echo(f"{tool} was not found on PATH; install it first.", err=True)
            ctx.exit(1)
        if result.timed_out:
            click.echo(f"{tool} did not finish within {INSTALL_TIMEOUT_S:g} s.", err=True)
            ctx.exit(1)
        if result.exit_code != 0:
            click.echo(result.stderr.rstrip() or result.stdout.rstrip(), err=True)
            said = " ".join(command.argv[:4])
            click.echo(f"`{said} ...` failed (exit code {result.exit_code}).", err=True)
            ctx.exit(1)
    for name in selected:
        click.echo(f"{name} {ENGINES[name].spec.provision.version} installed")


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
    type=click.Path(exists=True, file_okay=False, path_type=Path),
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
