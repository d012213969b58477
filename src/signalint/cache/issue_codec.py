"""How issues are stored in the result cache: compact rows derived from `Issue`.

The row layout is the `Issue` dataclass's fields in declaration order (the
derived `issue_id` first), and `ENCODING_VERSION` is a digest of those field
names: adding, removing or renaming a field changes every cache key that
holds encoded issues, so an old row can never be decoded into the wrong
fields.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from sys import intern
from typing import Final

from signalint.model import Issue

FIELDS: Final = ("issue_id", *(f.name for f in dataclasses.fields(Issue) if f.init))
ENCODING_VERSION: Final = hashlib.sha256(",".join(FIELDS).encode()).hexdigest()[:12]


def dump_issues(issues: Sequence[Issue]) -> bytes:
    """`issues` as one compact JSON array of rows (tuples become arrays)."""
    rows = [[getattr(i, f) for f in FIELDS] for i in issues]
    return json.dumps(rows, separators=(",", ":")).encode()


# Each field's slot, set directly: the frozen dataclass's own `__setattr__`
# refuses, and `object.__setattr__` looks the slot up again for every value
# (a warm check restores thousands of issues).
_SLOTS: Final = tuple(getattr(Issue, name).__set__ for name in FIELDS)
_TUPLES: Final = FIELDS.index("also_reported_by")
# Fields whose few distinct values repeat over thousands of issues (a
# file's path in each of its issues, a rule's name and docs link in every
# file): interned, one string each instead of one per decoded issue.
_SHARED: Final = tuple(FIELDS.index(n) for n in ("engine", "file", "rule", "severity", "docs_url"))


def load_issues(blob: bytes) -> list[Issue]:
    """The issues `dump_issues` encoded, restored without re-hashing their ids.

    Only for blobs `dump_issues` wrote (the cache's keys include
    `ENCODING_VERSION`): values are trusted, not validated.
    """
    issues = []
    new = object.__new__
    for row in json.loads(blob):
        if len(row) != len(_SLOTS):
            raise ValueError(f"an issue row has {len(row)} fields, expected {len(_SLOTS)}")
        row[_TUPLES] = tuple(row[_TUPLES])
        for at in _SHARED:
            value = row[at]
            if type(value) is str:
                row[at] = intern(value)
        issue = new(Issue)
        for put, value in zip(_SLOTS, row, strict=True):
            put(issue, value)
        issues.append(issue)
    return issues
