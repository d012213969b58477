"""The project a command works on: root, configuration and validated paths.

Shared by the commands that take project paths, so every one of them refuses
the same things with the same messages (exit code 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from signalint.config import Config, ConfigError, load_config
from signalint.project import PathRefused, RootError, find_root, safe_relative


def open_project(paths: Sequence[str] = ()) -> tuple[Path, Config, tuple[str, ...]]:
    """Root, config and de-duplicated project-relative targets ("." when none).

    Raises click.UsageError naming the variable, config key or path at fault.
    """
    try:
        root = find_root()
        config = load_config(root)
        targets = tuple(dict.fromkeys(safe_relative(root, p) for p in paths)) or (".",)
    except (ConfigError, RootError, PathRefused) as exc:
        raise click.UsageError(str(exc)) from exc
    return root, config, targets
