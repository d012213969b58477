"""Reading Python tools' configuration files: TOML tables and INI sections.

Shared by the Python engines (Ruff, mypy, Pyright) to decide whether a
project configures them and which config files define their results. Every
reader is forgiving: an unreadable or malformed file reads as "no table",
because the engine itself reports a broken config far better than we could.
The parsers are imported when a file is read: a JavaScript project, and every
check answered from the cache, never reads one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from signalint.engines.paths import MAX_CONFIG_CHAIN


def load_toml(path: Path) -> dict[str, Any] | None:
    """The parsed TOML document at `path`; None when unreadable or not TOML."""
    import tomllib

    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def tool_table(path: Path, tool: str) -> dict[str, Any] | None:
    """`[tool.<tool>]` of the pyproject.toml at `path`, if it has one."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if tool.encode() not in raw:
        return None  # cheap: most pyproject.toml files never mention the tool
    data = load_toml(path)
    tools = data.get("tool") if data else None
    table = tools.get(tool) if isinstance(tools, dict) else None
    return table if isinstance(table, dict) else None


def ini_section(path: Path, section: str) -> dict[str, str] | None:
    """Section `[section]` of the INI file at `path` (mypy.ini, setup.cfg), if present."""
    import configparser

    parser = configparser.RawConfigParser()
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return None
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


def relative_config(root: Path, base_rel: str, target: str) -> str | None:
    """A config path `target` named in the project config `base_rel`, resolved
    against that file's directory, as a project-relative POSIX path (`../` when
    it lies outside the root); None for an empty target."""
    if not target:
        return None
    expanded = os.path.expandvars(os.path.expanduser(target))
    base = root / PurePosixPath(base_rel).parent
    absolute = os.path.normpath(os.path.join(base, expanded))
    return Path(os.path.relpath(absolute, root)).as_posix()


def extend_chain(
    root: Path, start: list[str], extends: Callable[[Path, str], list[str]]
) -> list[str]:
    """`start` plus every config reachable through `extends(root, rel)` links.

    `extends` returns the project-relative paths a config file extends; the
    walk is bounded (cycles and long chains) and keeps first-seen order.
    """
    seen: list[str] = []
    queue = list(start)
    while queue and len(seen) < MAX_CONFIG_CHAIN:
        rel = queue.pop(0)
        if rel in seen:
            continue
        seen.append(rel)
        queue.extend(extends(root, rel))
    return seen
