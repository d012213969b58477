"""`signalint cache clear|info`: inspect or empty the result cache."""

from __future__ import annotations

import click

from signalint.cli.project_args import open_project
from signalint.config import state_dir
from signalint.storage.results import ResultCache
from signalint.wording import count


def _open() -> ResultCache:
    root, config, _ = open_project()
    return ResultCache(state_dir(root), max_rows=config.cache_max_rows)


@click.group()
def cache() -> None:
    """Inspect or clear the result cache (.signalint/cache.sqlite or SIGNALINT_STATE_DIR)."""


@cache.command()
def clear() -> int:
    """Remove every cached result, file hash and engine version; the next check runs all engines."""
    store = _open()
    removed = store.clear()
    click.echo(f"removed {count(removed, 'cached result')} from {store.path}")
    return 0


@cache.command()
def info() -> int:
    """Show where the cache lives and how many results it holds."""
    store = _open()
    click.echo(f"{store.path}: {count(store.row_count(), 'result')}")
    return 0
