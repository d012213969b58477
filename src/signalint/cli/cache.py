"""`signalint cache clear|info`: inspect or empty the result cache, and the
project's work directory (copies of old revisions, tsc's build wrappers:
`signalint.project.work_dir`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from signalint import answers
from signalint.cache.local_store import ResultCache
from signalint.cli.project_args import open_project
from signalint.pipeline import old_tree
from signalint.project import work_dir as work
from signalint.settings.config import state_dir
from signalint.wording import count


def _open() -> tuple[Path, ResultCache]:
    root, config, _ = open_project()
    return root, ResultCache(state_dir(root), max_rows=config.cache_max_rows)


@click.group()
def cache() -> None:
    """Inspect or clear the result cache (.signalint/cache.sqlite or SIGNALINT_STATE_DIR)
    and the project's work directory (SIGNALINT_WORK_DIR)."""


@cache.command()
def clear() -> int:
    """Remove every cached result, file hash, engine version and kept answer,
    and the copies of old revisions no check is using; the next check runs
    all engines."""
    root, store = _open()
    removed = store.clear()
    answered = answers.forget(root, os.environ)
    home = work.for_project(root)
    gone, busy = old_tree.remove_trees(home)
    work.remove_legacy(state_dir(root))
    work.sweep(home.parent)
    click.echo(
        f"removed {count(removed, 'cached result')} from {store.path}"
        f" and {count(answered, 'kept answer')}"
    )
    copies = f"removed {count(gone, 'copy', plural_noun='copies')} of old revisions from {home}"
    click.echo(copies + (f" ({busy} in use kept)" if busy else ""))
    return 0


@cache.command()
def info() -> int:
    """Show where the cache lives and how many results it holds, and where
    the project's work directory is and its size."""
    root, store = _open()
    click.echo(f"{store.path}: {count(store.row_count(), 'result')}")
    home = work.for_project(root)
    files, size = work.size_of(home)
    click.echo(f"{home}: {count(files, 'file')}, {size / 1024 / 1024:.1f} MiB")
    return 0
