"""`signalint cache clear|info`: inspect or empty the result cache."""

from __future__ import annotations

import os
from pathlib import Path

import click

from signalint import answers
from signalint.cli.project_args import open_project
from signalint.config import state_dir
from signalint.storage.results import ResultCache
from signalint.wording import count


def _open() -> tuple[Path, ResultCache]:
    root, config, _ = open_project()
    return root, ResultCache(state_dir(root), max_rows=config.cache_max_rows)


@click.group()
def cache() -> None:
    """Inspect or clear the result cache (.signalint/cache.sqlite or SIGNALINT_STATE_DIR)."""


@cache.command()
def clear() -> int:
    """Remove every cached result, file hash, engine version and kept answer;
    the next check runs all engines."""
    root, store = _open()
    removed = store.clear()
    answered = answers.forget(root, os.environ)
    click.echo(
        f"removed {count(removed, 'cached result')} from {store.path}"
        f" and {count(answered, 'kept answer')}"
    )
    return 0


@cache.command()
def info() -> int:
    """Show where the cache lives and how many results it holds."""
    _, store = _open()
    click.echo(f"{store.path}: {count(store.row_count(), 'result')}")
    return 0
