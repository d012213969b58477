"""The session log: an append-only JSON-lines file, rotated, read back whole or by tail.

Each record is one line. A crash can leave a partial last line: the next
append starts on a fresh line, and readers skip lines that are not JSON
objects, counting them. Before a record would take the file past its size
bound, the file is renamed to `<name>.1` (replacing the older backup).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_BYTES = 10 * 1024 * 1024
REPLAY_LINES = 5000


def compact_json(value: object) -> str:
    """`value` as one line of JSON without spaces (non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parse_lines(lines: Iterable[bytes]) -> tuple[list[dict[str, Any]], int]:
    """The JSON objects among `lines`, and how many lines were malformed."""
    records: list[dict[str, Any]] = []
    malformed = 0
    for raw in lines:
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            malformed += 1
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            malformed += 1
    return records, malformed


class SessionLog:
    """An append-only JSON-lines file, rotated to `<name>.1` before it would
    exceed `max_bytes` (one oversized record still gets written)."""

    def __init__(
        self, path: Path, max_bytes: int = MAX_BYTES, replay_lines: int = REPLAY_LINES
    ) -> None:
        self.path = path
        self.backup = path.with_name(path.name + ".1")
        self.max_bytes = max_bytes
        self.replay_lines = replay_lines
        self._found_json: tuple[list[Any], str] | None = None

    def append(self, record: dict[str, Any]) -> bool:
        """Write `record` as one line; return True when the log rotated first."""
        line = (self._line(record) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        size = self.path.stat().st_size if self.path.exists() else 0
        rotated = size > 0 and size + len(line) > self.max_bytes
        if rotated:
            os.replace(self.path, self.backup)
        with self.path.open("a+b") as fh:
            end = fh.seek(0, os.SEEK_END)
            if end:
                fh.seek(end - 1)
                # A crash can leave a partial last line; never glue a record to it.
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write(line)
        return rotated

    def _line(self, record: dict[str, Any]) -> str:
        """`record` as JSON. A check's `found` list (one entry per distinct
        diagnostic: the bulk of the line) is serialized once per list object,
        so an unchanged project's repeated checks reuse it; it goes last."""
        found = record.get("found")
        if not isinstance(found, list) or len(found) < 64:
            return compact_json(record)
        memo = self._found_json
        if memo is None or memo[0] is not found:
            memo = self._found_json = (found, compact_json(found))
        head = compact_json({k: v for k, v in record.items() if k != "found"})
        return f'{head[:-1]},"found":{memo[1]}}}'

    def _lines(self, path: Path) -> list[bytes]:
        try:
            return path.read_bytes().split(b"\n")
        except FileNotFoundError:
            return []

    def read(self) -> tuple[list[dict[str, Any]], int]:
        """Every valid record of `.1` then the current file; malformed count."""
        return parse_lines(self._lines(self.backup) + self._lines(self.path))

    def tail(self) -> tuple[list[dict[str, Any]], int]:
        """Valid records among the last `replay_lines` non-empty current lines."""
        lines = [line for line in self._lines(self.path) if line.strip()]
        return parse_lines(lines[-self.replay_lines :])


__all__ = ["MAX_BYTES", "REPLAY_LINES", "SessionLog", "compact_json", "parse_lines"]
