"""Where a project's settings live, and reading them: no knowledge of engines.

`config_source` finds the file `load_config` reads; `read_json` and
`read_pyproject` read it strictly (a malformed file, a duplicate key or an
unreadable file is a `ConfigError` naming the file and the line and column
or key). This module sits below the engines, so the engine runner can name
the file where a setting goes (`timeout_setting`); validation of the values,
which needs the engine registry, is `signalint.config`.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Final

from signalint.errors import SignalintError

CONFIG_FILE: Final = "signalint.config.json"
PYPROJECT_FILE: Final = "pyproject.toml"


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


def timeout_setting(root: Path, engine: str) -> str:
    """Where to raise `engine`'s deadline for the project at `root`, as a phrase.

    Names the file `load_config` reads (`config_source`), or a new
    `signalint.config.json` when the project has none (or its pyproject.toml
    cannot be read).
    """
    key = f"timeoutsMs.{engine}"
    try:
        source = config_source(root)
    except ConfigError:
        source = None
    if source is not None and source.name == PYPROJECT_FILE:
        return f"{key} (milliseconds) in [tool.signalint] of {PYPROJECT_FILE}"
    return f"{key} (milliseconds) in {CONFIG_FILE}"


def read_json(path: Path) -> object:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, None, f"not valid UTF-8 ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(path, None, f"cannot be read: {exc.strerror or exc}") from exc
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys)
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


def config_source(root: Path) -> Path | None:
    """The file `load_config` reads: the JSON file, else a pyproject.toml with
    a `[tool.signalint]` table, else None (defaults). A malformed pyproject.toml
    raises `ConfigError`: we cannot tell whether it holds our table.
    """
    if (root / CONFIG_FILE).is_file():
        return root / CONFIG_FILE
    pyproject = root / PYPROJECT_FILE
    if pyproject.is_file() and read_pyproject(pyproject) is not None:
        return pyproject
    return None
