"""`signalint lsp`: run the language server (`signalint.lsp`)."""

from __future__ import annotations

from pathlib import Path

import click

from signalint.cli.path_option import PathOption


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default).")
@click.option(
    "--socket",
    "socket_path",
    type=PathOption(dir_okay=False, path_type=Path),
    help="Listen on this Unix socket for one client instead.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    help="Listen on this TCP port of 127.0.0.1 for one client instead.",
)
def lsp(stdio: bool, socket_path: Path | None, port: int | None) -> int:
    """Serve the project's diagnostics to an editor or agent host (LSP).

    Diagnostics are pushed for open files and every file with issues, and
    answered to pull requests; unsaved buffers are checked by the engines
    that can check a file on its own; code actions apply the engines' safe
    fixes. See README "Editors" for each editor's setup.
    """
    if socket_path is not None and port is not None:
        raise click.UsageError("--socket and --port cannot be combined: choose one")
    if stdio and (socket_path is not None or port is not None):
        raise click.UsageError("--stdio cannot be combined with --socket or --port")
    from signalint.lsp.run import main

    return main(socket_path, port)
