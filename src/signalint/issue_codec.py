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
from typing import Final

from signalint.model import Issue

FIELDS: Final = ("issue_id", *(f.name for f in dataclasses.fields(Issue) if f.init))
ENCODING_VERSION: Final = hashlib.sha256(",".join(FIELDS).encode()).hexdigest()[:12]


def dump_issues(issues: Sequence[Issue]) -> bytes:
    """`issues` as one compact JSON array of rows (tuples become arrays)."""
    rows = [[getattr(i, f) for f in FIELDS] for i in issues]
    return json.dumps(rows, separators=(",", ":")).encode()


def load_issues(blob: bytes) -> list[Issue]:
    """The issues `dump_issues` encoded, restored without re-hashing their ids."""
    issues = []
    for row in json.loads(blob):
        fields = dict(zip(FIELDS, row, strict=True))
        if isinstance(fields.get("also_reported_by"), list):
            fields["also_reported_by"] = tuple(fields["also_reported_by"])
        issues.append(Issue.restore(**fields))
    return issues
