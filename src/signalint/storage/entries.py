"""How engine results are kept under their keys (D1, D2).

A key is a digest of everything the result depends on (`digest`), so the
same key always means the same result and any store may hold it. Two kinds
of value:

- a file-local engine's entry for one file: its issues (`issue_codec`), or
  `NOT_CHECKED` for a candidate the engine does not check; beside it a
  content-independent membership mark, `CHECKED` or `NOT_CHECKED`, saying
  whether the engine checks that path at all;
- a whole-program engine's `ProgramRecord`: what one run read (inputs with
  content hashes), the candidates it did not read, the files it checked,
  and its issues.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from signalint.model import Issue
from signalint.storage.issue_codec import ENCODING_VERSION, dump_issues, load_issues

# 4: Oxlint and Biome issues carry `fixable` (results cached before say False).
KEY_VERSION: Final = f"4:{ENCODING_VERSION}"
CHECKED: Final = b"+"
# Not JSON, so it can never be mistaken for an issue list.
NOT_CHECKED: Final = b"-"


def digest(*parts: object) -> str:
    """A key from parts (joined with a separator no path contains)."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()


def encode_entry(issues: Sequence[Issue] | None) -> bytes:
    """A file's entry: its issues, or None for a file the engine does not check."""
    return NOT_CHECKED if issues is None else dump_issues(issues)


def decode_entry(blob: bytes) -> tuple[Issue, ...] | None:
    """The issues `encode_entry` kept, or None for a file the engine does not check."""
    return None if blob == NOT_CHECKED else tuple(load_issues(blob))


@dataclass(frozen=True, slots=True)
class RecordDraft:
    """A whole-program run's record before its inputs are hashed
    (`check_store.CheckStore.keep`): it becomes a `ProgramRecord` only when
    every input is readable and none was touched since the run started
    (`started_ns`), else it is dropped."""

    inputs: tuple[str, ...]  # absolute paths
    outside: list[str]
    checked: list[str] | None
    issues: tuple[Issue, ...]
    started_ns: int


class ProgramRecord:
    """What one whole-program run saw: inputs with content hashes, checked files, issues.

    Issues loaded from a store are decoded only when asked for, i.e. only
    once the record has been proven fresh.
    """

    __slots__ = ("_issues", "_raw", "checked", "inputs", "loaded", "outside")

    def __init__(
        self,
        inputs: dict[str, str],
        outside: list[str],
        checked: list[str] | None,
        issues: tuple[Issue, ...] | None = None,
        raw: str | None = None,
    ) -> None:
        self.inputs = inputs  # absolute path -> content hash
        self.outside = outside  # candidate project files that were not inputs
        self.checked = checked  # absolute project files checked; None: the inputs
        self._issues = issues
        self._raw = raw
        self.loaded = False  # read from the store in this check, not yet confirmed

    @property
    def issues(self) -> tuple[Issue, ...]:
        if self._issues is None:
            self._issues = tuple(load_issues((self._raw or "[]").encode()))
            self._raw = None
        return self._issues

    def dump(self) -> bytes:
        record = {
            "inputs": self.inputs,
            "outside": self.outside,
            "checked": self.checked,
            "issues": dump_issues(self.issues).decode(),
        }
        return json.dumps(record).encode()

    @classmethod
    def load(cls, blob: bytes) -> ProgramRecord:
        record = json.loads(blob)
        return cls(record["inputs"], record["outside"], record["checked"], raw=record["issues"])


__all__ = [
    "CHECKED",
    "KEY_VERSION",
    "NOT_CHECKED",
    "ProgramRecord",
    "RecordDraft",
    "decode_entry",
    "digest",
    "encode_entry",
]
