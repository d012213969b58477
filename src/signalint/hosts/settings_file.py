"""Read and change one host settings file without losing anything else (D11).

A `Change` is computed first (`plan_member`, `plan_text`) and written only
when asked (`write`): the caller can preview it, show its diff or refuse.
JSON files are edited with the span editor (`hosts.jsonc`: comments,
trailing commas, key order and formatting stay); TOML files with tomlkit,
which keeps comments, tables and formatting. A file that does not parse is
a `SettingsError` naming the file, line and column, and is never written.

Writes are atomic (a temporary file in the same directory, fsync, rename,
the old mode kept) and the previous content is kept beside the file as
`<name>.signalint-backup`. Writing the same content again changes nothing,
so a second run is byte-identical.
"""

from __future__ import annotations

import difflib
import json
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signalint.errors import SignalintError
from signalint.files import write_atomic
from signalint.hosts import jsonc

BACKUP_SUFFIX = ".signalint-backup"


class SettingsError(SignalintError):
    """A settings file that cannot be read or changed; nothing was written."""

    exit_code = 1

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


@dataclass(frozen=True, slots=True)
class Change:
    """`old` is the file's text (None: no file), `new` the text to write."""

    path: Path
    old: str | None
    new: str

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.old or "").splitlines(keepends=True),
                self.new.splitlines(keepends=True),
                fromfile=f"{self.path} (now)",
                tofile=f"{self.path} (after)",
            )
        )


def read_text(path: Path) -> str | None:
    """The file's text, None when missing; undecodable bytes are a SettingsError."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(path, f"cannot read it ({exc.strerror})") from None
    try:
        return data.decode("utf-8-sig") if data.startswith(b"\xef\xbb\xbf") else data.decode()
    except UnicodeDecodeError:
        raise SettingsError(path, "it is not UTF-8 text") from None


def load(path: Path, fmt: str, text: str | None = None) -> Any:
    """The file's value (`{}` when missing or empty); malformed: SettingsError."""
    text = read_text(path) if text is None else text
    if text is None or not text.strip():
        return {}
    if fmt == "toml":
        import tomlkit
        from tomlkit.exceptions import ParseError

        try:
            return tomlkit.parse(text).unwrap()
        except ParseError as exc:
            raise SettingsError(
                path, f"not valid TOML at line {exc.line} column {exc.col}: {exc}"
            ) from None
    try:
        return jsonc.loads(text)
    except jsonc.JsoncError as exc:
        raise SettingsError(
            path, f"not valid JSON at line {exc.line} column {exc.column}: {exc.reason}"
        ) from None


def get(value: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def plan_member(path: Path, fmt: str, keys: Sequence[str], value: Any) -> Change:
    """The change that sets `keys` (a path of table/object keys) to `value`."""
    old = read_text(path)
    load(path, fmt, old)  # refuse a malformed file before editing it
    if fmt == "toml":
        new = _toml_set(old or "", keys, value)
    else:
        try:
            new = jsonc.set_member(old or "", keys, value)
        except jsonc.JsoncError as exc:
            where = f"line {exc.line} column {exc.column}"
            raise SettingsError(path, f"{where}: {exc.reason}") from None
    return Change(path, old, new)


def _toml_set(text: str, keys: Sequence[str], value: Any) -> str:
    import tomlkit
    from tomlkit.items import Table

    doc = tomlkit.parse(text)
    container: Any = doc
    for key in keys[:-1]:
        if key not in container:
            table = tomlkit.table(is_super_table=True)
            container[key] = table
        container = container[key]
        if not isinstance(container, Table | dict):
            raise SettingsError(Path("."), f"{key} is not a table")
    table = tomlkit.table()
    for name, item in value.items():
        table[name] = item
    container[keys[-1]] = table
    out = tomlkit.dumps(doc)
    return out if out.endswith("\n") else out + "\n"


def plan_text(path: Path, new: str) -> Change:
    return Change(path, read_text(path), new)


def write(change: Change) -> Path | None:
    """Write `change` atomically; returns the backup path (None: no previous file).

    Nothing happens when the content is unchanged.
    """
    path = change.path
    if not change.changed:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    mode = 0o644
    if change.old is not None:
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        mode = stat.S_IMODE(path.stat().st_mode)
        write_atomic(backup, change.old.encode(), mode=mode, durable=True)
    write_atomic(path, change.new.encode(), mode=mode, durable=True)
    return backup


def pretty(value: Any, fmt: str, keys: Sequence[str]) -> str:
    """`value` as it appears at `keys` in a new file of format `fmt` (the snippet)."""
    if fmt == "toml":
        return _toml_set("", keys, value)
    nested: Any = value
    for key in reversed(keys):
        nested = {key: nested}
    return json.dumps(nested, indent=2) + "\n"


__all__ = [
    "BACKUP_SUFFIX",
    "Change",
    "SettingsError",
    "get",
    "load",
    "plan_member",
    "plan_text",
    "pretty",
    "read_text",
    "write",
]
