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

Neither holds an absolute path once stored: a record writes its paths
against `Anchors` (the project root, the managed engines), so a checkout
at another path, on another machine, finds the same values under the same
keys. Keys name the platform (`PLATFORM`): engines may answer differently
on another system.
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from signalint.cache.issue_codec import ENCODING_VERSION, dump_issues, load_issues
from signalint.model import Issue

# 4: Oxlint and Biome issues carry `fixable` (results cached before say False).
# 5: Biome 1.x and ESLint 8 are read (results cached before: no file checked).
KEY_VERSION: Final = f"5:{ENCODING_VERSION}"
PLATFORM: Final = f"{sys.platform}-{platform.machine()}"
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


class Anchors:
    """Absolute directories that stored paths are written against, each with
    its token: a path under one is kept as the token and the rest of the path;
    any other path stays absolute (it names the same file only on a machine
    laid out alike)."""

    def __init__(self, directories: dict[str, str]) -> None:
        # token -> absolute directory; the longest directory wins.
        pairs = [(d.rstrip("/") + "/", f"@{t}/") for t, d in directories.items() if d]
        self._pairs = sorted(pairs, key=lambda p: -len(p[0]))

    def portable(self, path: str) -> str:
        for directory, token in self._pairs:
            if path.startswith(directory):
                return token + path[len(directory) :]
            if path + "/" == directory:
                return token.rstrip("/")
        return path

    def absolute(self, path: str) -> str:
        if path.startswith("@"):
            for directory, token in self._pairs:
                if path.startswith(token):
                    return directory + path[len(token) :]
                if path == token.rstrip("/"):
                    return directory.rstrip("/")
        return path


NO_ANCHORS: Final = Anchors({})


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

    def dump(self, anchors: Anchors = NO_ANCHORS) -> bytes:
        """The stored form, with paths written against `anchors`."""
        checked = self.checked
        record = {
            "inputs": {anchors.portable(p): d for p, d in self.inputs.items()},
            "outside": self.outside,
            "checked": None if checked is None else [anchors.portable(p) for p in checked],
            "issues": dump_issues(self.issues).decode(),
        }
        return json.dumps(record).encode()

    @classmethod
    def read(cls, blob: bytes, anchors: Anchors = NO_ANCHORS) -> ProgramRecord | None:
        """`load`, or None for a blob that is signed but unreadable (another
        encoding): a miss."""
        try:
            return cls.load(blob, anchors)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    @classmethod
    def load(cls, blob: bytes, anchors: Anchors = NO_ANCHORS) -> ProgramRecord:
        """A record `dump` wrote, its paths made absolute again through `anchors`."""
        record = json.loads(blob)
        inputs = {anchors.absolute(p): d for p, d in record["inputs"].items()}
        checked = record["checked"]
        if checked is not None:
            checked = [anchors.absolute(p) for p in checked]
        return cls(inputs, record["outside"], checked, raw=record["issues"])


__all__ = [
    "CHECKED",
    "KEY_VERSION",
    "NOT_CHECKED",
    "NO_ANCHORS",
    "PLATFORM",
    "Anchors",
    "ProgramRecord",
    "RecordDraft",
    "decode_entry",
    "digest",
    "encode_entry",
]
