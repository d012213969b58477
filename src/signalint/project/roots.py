"""Where a project's root is: the override variable, settings homes, markers.

`find_root` is what the MCP server and hooks use (the working directory,
or `SIGNALINT_PROJECT_ROOT`); `discover_root` is the CLI's rule, found
upward from the working directory as git finds a repository."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from signalint.errors import SignalintError

ROOT_VARIABLE = "SIGNALINT_PROJECT_ROOT"
# Upward root discovery (CLI): a Signalint config wins over any nearer
# project marker, as a repository's top wins over its subdirectories in git.
CONFIG_MARKER = "signalint.config.json"
CONFIG_MARKERS = (CONFIG_MARKER, ".signalint.json")
ROOT_MARKERS = ("package.json", "pyproject.toml", ".git")
# The lock files of the JavaScript package managers (an install's record).
JS_LOCKFILES = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    ".pnp.cjs",
)
# A directory holding one of these is a workspace's top: a repository's, or
# where its packages were installed from a lock file.
WORKSPACE_MARKS = (".git", *JS_LOCKFILES, "pnpm-workspace.yaml", "uv.lock", "poetry.lock")
# How far above a project root its workspace's top is looked for.
MAX_WORKSPACE_DEPTH = 8


def workspace_top(root: Path, marks: tuple[str, ...] = WORKSPACE_MARKS) -> Path:
    """The directory whose installs a project at `root` uses: the nearest of
    `root` and its ancestors (within `MAX_WORKSPACE_DEPTH` levels) holding
    one of `marks`; `root` when none does (a project of its own)."""
    for place in (root, *root.parents)[:MAX_WORKSPACE_DEPTH]:
        if any((place / mark).exists() for mark in marks):
            return place
    return root


class RootError(SignalintError):
    """`SIGNALINT_PROJECT_ROOT` names something that cannot be a project root."""

    def __init__(self, variable: str, value: str, reason: str) -> None:
        self.variable = variable
        self.value = value
        self.reason = reason
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.variable}={self.value!r} cannot be the project root: {self.reason}"


def find_root(env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> Path:
    """The canonical (realpath) project root.

    A non-empty `SIGNALINT_PROJECT_ROOT` must name a directory (relative values
    are taken from `cwd`); otherwise `RootError`. Unlike the reference, which
    warns and falls back to the working directory, we refuse: a stale override
    silently checking the wrong repository is worse than a clear error.
    Without the variable the root is `cwd` (default: the process's).
    """
    env = os.environ if env is None else env
    base = os.getcwd() if cwd is None else os.fspath(cwd)
    value = env.get(ROOT_VARIABLE, "")
    if not value:
        return Path(os.path.realpath(base))
    candidate = os.path.join(base, os.path.expanduser(value))
    if not os.path.exists(candidate):
        raise RootError(ROOT_VARIABLE, value, "no such directory")
    if not os.path.isdir(candidate):
        raise RootError(ROOT_VARIABLE, value, "not a directory")
    if not os.access(candidate, os.R_OK | os.X_OK):
        raise RootError(ROOT_VARIABLE, value, "permission denied")
    return Path(os.path.realpath(candidate))


def discover_root(env: Mapping[str, str] | None = None, cwd: str | Path | None = None) -> Path:
    """The CLI's project root: like `find_root`, but found upward from `cwd`.

    A non-empty `SIGNALINT_PROJECT_ROOT` wins (same rules as `find_root`).
    Otherwise, as git finds a repository from a subdirectory: the nearest
    directory at or above `cwd` holding settings (`signalint.config.json`,
    `.signalint.json`, a `package.json` with a `"signalint"` key or a
    `pyproject.toml` with a `[tool.signalint]` table); failing that, the
    nearest holding `package.json`, `pyproject.toml` or `.git`; failing that,
    `cwd` itself. Canonical (realpath).
    """
    env = os.environ if env is None else env
    if env.get(ROOT_VARIABLE, ""):
        return find_root(env, cwd)
    start = Path(os.path.realpath(os.getcwd() if cwd is None else os.fspath(cwd)))
    chain = [start, *start.parents]
    for directory in chain:
        if _holds_settings(directory):
            return directory
    for directory in chain:
        if any(os.path.lexists(directory / name) for name in ROOT_MARKERS):
            return directory
    return start


def _holds_settings(directory: Path) -> bool:
    return (
        any((directory / name).is_file() for name in CONFIG_MARKERS)
        or _has_package_key(directory)
        or _has_tool_table(directory)
    )


def _has_package_key(directory: Path) -> bool:
    try:
        text = (directory / "package.json").read_bytes()
    except OSError:
        return False
    if b'"signalint"' not in text:
        return False  # cheap: most package.json files never mention us
    try:
        data = json.loads(text.decode("utf-8-sig", errors="replace"))
    except ValueError:
        return True  # a config we cannot read may be ours: load_config reports it
    return isinstance(data, dict) and "signalint" in data


def _has_tool_table(directory: Path) -> bool:
    try:
        text = (directory / "pyproject.toml").read_bytes()
    except OSError:
        return False
    if b"signalint" not in text:
        return False  # cheap: most pyproject.toml files never mention us
    import tomllib  # here: the CLI's forwarding path reads no TOML otherwise

    try:
        data = tomllib.loads(text.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return True  # a config we cannot read is still ours: load_config reports it
    tool = data.get("tool")
    return isinstance(tool, dict) and "signalint" in tool
