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
import re
from pathlib import Path, PurePosixPath
from typing import Any


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


_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _requirement_names(entries: object) -> set[str]:
    """Normalized distribution names of a list of requirement strings
    (`"ty>=0.0.1"`, `"pyrefly[extra]; python_version>'3.9'"`)."""
    found: set[str] = set()
    if not isinstance(entries, list):
        return found
    for entry in entries:
        match = _REQUIREMENT_NAME.match(entry) if isinstance(entry, str) else None
        if match:
            found.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())
    return found


def declared_dependencies(path: Path) -> frozenset[str]:
    """Normalized names of every dependency the pyproject.toml at `path`
    declares: `[project]` dependencies and optional dependencies, PEP 735
    `[dependency-groups]`, uv's `dev-dependencies`, PDM's dev dependencies
    and Poetry's dependency tables and groups. Empty when unreadable."""
    data = load_toml(path) if path.is_file() else None
    if not data:
        return frozenset()
    found: set[str] = set()
    project = data.get("project")
    if isinstance(project, dict):
        found |= _requirement_names(project.get("dependencies"))
        optional = project.get("optional-dependencies")
        if isinstance(optional, dict):
            for entries in optional.values():
                found |= _requirement_names(entries)
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        for entries in groups.values():
            found |= _requirement_names(entries)
    tools = data.get("tool")
    tools = tools if isinstance(tools, dict) else {}
    uv = tools.get("uv")
    if isinstance(uv, dict):
        found |= _requirement_names(uv.get("dev-dependencies"))
    pdm = tools.get("pdm")
    pdm_dev = pdm.get("dev-dependencies") if isinstance(pdm, dict) else None
    if isinstance(pdm_dev, dict):
        for entries in pdm_dev.values():
            found |= _requirement_names(entries)
    poetry = tools.get("poetry")
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        poetry_groups = poetry.get("group")
        if isinstance(poetry_groups, dict):
            tables += [g.get("dependencies") for g in poetry_groups.values() if isinstance(g, dict)]
        for table in tables:
            if isinstance(table, dict):
                found |= _requirement_names(list(table))
    return frozenset(found)


def declares(path: Path, name: str) -> bool:
    """Whether the pyproject.toml at `path` declares the dependency `name`
    (`declared_dependencies`); a file never mentioning it is not parsed."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    return name.encode() in raw and name in declared_dependencies(path)
