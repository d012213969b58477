"""The project a command works on: root, configuration and validated paths.

Shared by the commands that take project paths, so every one of them refuses
the same things with the same messages. Refusals are `SignalintError`s
(exit code 2), rendered once by the CLI entry point.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from signalint.config import Config, config_source, load_config
from signalint.project import discover_root, target_from_cwd


def open_project(paths: Sequence[str] = ()) -> tuple[Path, Config, tuple[str, ...]]:
    """Root, config and de-duplicated project-relative targets ("." when none).

    The root is found upward from the working directory (`discover_root`);
    `paths` are relative to the working directory, as in git (relative to
    the root when the working directory is outside it, which only
    `SIGNALINT_PROJECT_ROOT` allows), and are refused when outside the
    project or ignored (`target_from_cwd`, naming the config file).
    Raises `RootError`, `ConfigError` or `PathRefused`, each naming the
    variable, file and key, or path at fault.
    """
    root = discover_root()
    config = load_config(root)
    cwd = Path(os.path.realpath(os.getcwd()))
    if not cwd.is_relative_to(root):
        cwd = root  # only with SIGNALINT_PROJECT_ROOT elsewhere: paths are root-relative
    found = config_source(root)
    if found is None:
        source = "the default settings (there is no signalint.config.json)"
    elif found.name == "pyproject.toml":
        source = "[tool.signalint] of pyproject.toml"
    else:
        source = found.name
    targets = tuple(
        dict.fromkeys(target_from_cwd(root, cwd, p, config.ignore, source) for p in paths)
    )
    return root, config, targets or (".",)
