"""Where a project's settings live, and reading them: no knowledge of engines.

The settings have four possible homes in the project root (`HOMES`):
`signalint.config.json`, `.signalint.json` (for projects whose own linters
would lint a `*.config.*` file as code), a `"signalint"` key in
`package.json`, and a `[tool.signalint]` table in `pyproject.toml`. Exactly
one may hold them: two homes that could disagree would make the effective
settings a guess, so `config_source` refuses that, naming both.

`config_source` finds the file `load_config` reads; `read_json`,
`read_package` and `read_pyproject` read it strictly (a malformed file, a
duplicate key or an unreadable file is a `ConfigError` naming the file and
the line and column or key). This module sits below the engines, so the engine runner can name
the file where a setting goes (`timeout_setting`); validation of the values,
which needs the engine registry, is `signalint.settings.config`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from signalint import answers
from signalint.errors import SignalintError

CONFIG_FILE: Final = "signalint.config.json"
DOT_CONFIG_FILE: Final = ".signalint.json"
PACKAGE_FILE: Final = "package.json"
PACKAGE_KEY: Final = "signalint"
PYPROJECT_FILE: Final = "pyproject.toml"
# Every home, in the order `init` tries them for a JS/TS project (README).
HOMES: Final = (CONFIG_FILE, DOT_CONFIG_FILE, PACKAGE_FILE, PYPROJECT_FILE)


class ConfigError(SignalintError):
    """An invalid setting. `file` is None for environment variables.

    `location` is a dotted key path (`engines.biome.includeFormatter`,
    `ignore[2]`), `line:column` for malformed JSON, or the variable name.
    A file with several invalid values raises one error naming them all:
    `problems` holds every (location, message) pair, the first of which is
    also `location` and `message`.
    """

    def __init__(
        self,
        file: Path | None,
        location: str | None,
        message: str,
        more: tuple[tuple[str | None, str], ...] = (),
    ) -> None:
        self.file = file
        self.location = location
        self.message = message
        self.problems: tuple[tuple[str | None, str], ...] = ((location, message), *more)
        super().__init__(str(self))

    def __str__(self) -> str:
        where = str(self.file) if self.file is not None else "environment variable"
        if len(self.problems) > 1:
            lines = [f"{where}: {len(self.problems)} problems:"]
            lines += [f"  {loc}: {msg}" if loc else f"  {msg}" for loc, msg in self.problems]
            return "\n".join(lines)
        if self.location is None:
            return f"{where}: {self.message}"
        # line:column attaches editor-style ("file:3:7"); key paths read better spaced.
        sep = " " if self.file is None else ":" if _is_line_col(self.location) else ": "
        return f"{where}{sep}{self.location}: {self.message}"


def _is_line_col(location: str) -> bool:
    line, _, col = location.partition(":")
    return line.isdigit() and col.isdigit()


def describe_source(path: Path) -> str:
    """How a settings home is named to a user: the file, or the key in it."""
    if path.name == PYPROJECT_FILE:
        return f"[tool.signalint] of {PYPROJECT_FILE}"
    if path.name == PACKAGE_FILE:
        return f'the "{PACKAGE_KEY}" key of {PACKAGE_FILE}'
    return path.name


def key_prefix(path: Path) -> str:
    """The key path of the settings inside their file (for error locations)."""
    if path.name == PYPROJECT_FILE:
        return "tool.signalint"
    return PACKAGE_KEY if path.name == PACKAGE_FILE else ""


def timeout_setting(root: Path, engine: str) -> str:
    """Where to raise `engine`'s deadline for the project at `root`, as a phrase.

    Names the home `load_config` reads (`config_source`), or a new
    `signalint.config.json` when the project has none (or its homes cannot
    be read).
    """
    key = f"timeoutsMs.{engine}"
    try:
        source = config_source(root)
    except ConfigError:
        source = None
    return f"{key} (milliseconds) in {describe_source(source or Path(CONFIG_FILE))}"


def read_json(path: Path, *, strict_keys: bool = True) -> object:
    """A JSON file; `strict_keys` refuses a key given twice in one object."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"not valid UTF-8 ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from exc
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys if strict_keys else None)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"{exc.lineno}:{exc.colno}", f"malformed JSON: {exc.msg}") from exc
    except _DuplicateKey as exc:
        key = json.dumps(exc.args[0])
        raise ConfigError(path, None, f"key {key} given twice in one object; keep one") from exc


class _DuplicateKey(ValueError):
    """Raised by the JSON hook; args[0] is the repeated key."""


def _reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # json.loads would keep the last duplicate silently; a config where one
    # of two entries is ignored is exactly the kind of surprise we refuse.
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def read_pyproject(path: Path) -> object | None:
    """The `[tool.signalint]` table, or None when the file has none."""
    import tomllib  # here: a project without pyproject.toml never pays for it

    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        # The message already carries "(at line L, column C)".
        raise ConfigError(path, None, f"malformed TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from exc
    tool = data.get("tool")
    if not isinstance(tool, dict):
        return None
    return tool.get("signalint")


def read_package(path: Path) -> object | None:
    """The `"signalint"` value of a package.json, or None when it has none.

    A package.json that never mentions us is not parsed (it is the package
    manager's file; a broken one is its problem). One that does must parse:
    whether it holds our settings cannot be told otherwise.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from exc
    if f'"{PACKAGE_KEY}"'.encode() not in raw:
        return None
    # Not our file: its other keys are the package manager's business.
    data = read_json(path, strict_keys=False)
    return data.get(PACKAGE_KEY) if isinstance(data, dict) else None


def read_settings(path: Path) -> object:
    """The raw settings held by the home `path` (see `config_source`)."""
    if path.name == PYPROJECT_FILE:
        return read_pyproject(path)
    if path.name == PACKAGE_FILE:
        return read_package(path)
    return read_json(path)


def config_source(root: Path) -> Path | None:
    """The home `load_config` reads: the one of `HOMES` that holds settings
    (`signalint.config.json` or `.signalint.json` by existing, package.json
    and pyproject.toml by holding our key), else None (defaults).

    Raises `ConfigError` when several homes hold settings (naming them all),
    and when a package.json that mentions us or any pyproject.toml is
    malformed: we cannot tell whether it holds our settings.
    """
    homes = (CONFIG_FILE, DOT_CONFIG_FILE, PACKAGE_FILE, PYPROJECT_FILE)
    answers.note(str(root / name) for name in homes)
    found = [root / name for name in (CONFIG_FILE, DOT_CONFIG_FILE) if (root / name).is_file()]
    package = root / PACKAGE_FILE
    if package.is_file() and read_package(package) is not None:
        found.append(package)
    pyproject = root / PYPROJECT_FILE
    if pyproject.is_file() and read_pyproject(pyproject) is not None:
        found.append(pyproject)
    if len(found) > 1:
        named = " and ".join(describe_source(path) for path in found)
        raise ConfigError(
            root,
            None,
            f"the settings are in {len(found)} places ({named}); keep them in one "
            "(two copies could disagree, so neither is used)",
        )
    return found[0] if found else None
