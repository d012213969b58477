"""The project a command works on: root, configuration and validated paths.

Shared by the commands that take project paths, so every one of them refuses
the same things with the same messages. Refusals are `SignalintError`s
(exit code 2), rendered once by the CLI entry point.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from signalint.pipeline.targets import from_cwd, targets_of
from signalint.project.roots import discover_root
from signalint.settings.config import Config, load_config


def open_project(paths: Sequence[str] = ()) -> tuple[Path, Config, tuple[str, ...]]:
    """Root, config and de-duplicated project-relative targets ("." when none).

    The root is found upward from the working directory (`discover_root`);
    `paths` are relative to the working directory, as in git (relative to
    the root when the working directory is outside it, which only
    `SIGNALINT_PROJECT_ROOT` allows), and are refused when outside the
    project or ignored (`targets.from_cwd`, naming the config file).
    Raises `RootError`, `ConfigError` or `PathRefused`, each naming the
    variable, file and key, or path at fault.
    """
    root = discover_root()
    config = load_config(root)
    return root, config, targets_of(paths, from_cwd(root, config))
