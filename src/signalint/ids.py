"""Identifiers: issue ids, check ids, fingerprints, summary prefixes (D4).

Pure functions over primitive values, so the model and the cache can share
them without import cycles.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
import time
from collections.abc import Iterable

SHORT_ID_LENGTH = 12
_SEP = "\x1f"
_WS = re.compile(r"\s+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")


def normalize_message(message: str) -> str:
    """Collapse all whitespace runs to one space and strip the ends."""
    return _WS.sub(" ", message).strip()


@functools.lru_cache(maxsize=65536)
def message_template(message: str) -> str:
    """The normalized message with quoted values replaced by a placeholder.

    Two diagnostics that differ only in the names they quote share a
    template; used for loop signatures and delta matching, never for ids.
    """
    return _QUOTED.sub("'…'", normalize_message(message))


def summarize(message: str, limit: int) -> str:
    """One line of at most `limit` characters, ending in an ellipsis if cut."""
    text = normalize_message(message)
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def _digest(*parts: object) -> str:
    return hashlib.sha256(_SEP.join(str(p) for p in parts).encode("utf-8")).hexdigest()


def issue_id(engine: str, file: str, rule: str, line: int, col: int, message: str) -> str:
    """Full 64-hex id over everything that makes a diagnostic distinct."""
    return _digest("issue", engine, file, rule, line, col, normalize_message(message))


def cluster_id(rule: str, severity: str, systemic: bool) -> str:
    """Cluster ids are unique within a check: one cluster per rule."""
    return _digest("cluster", rule, severity, systemic)[:SHORT_ID_LENGTH]


def new_check_id() -> str:
    """A fresh id for every check invocation (D4), 16 hex characters.

    The first 8 are the creation time (Unix seconds), the rest random, so
    an id that is no longer retained can be told apart as expired rather
    than unknown (`check_id_time`).
    """
    return f"{int(time.time()) & 0xFFFFFFFF:08x}{secrets.token_hex(4)}"


def check_id_time(check_id: str) -> float | None:
    """When the check `check_id` ran (Unix seconds), if it looks like one of ours."""
    if not re.fullmatch(r"[0-9a-f]{16}", check_id):
        return None
    return float(int(check_id[:8], 16))


def fingerprint(issue_ids: Iterable[str]) -> str:
    """Content hash of a set of diagnostics: equal sets, equal fingerprints."""
    return _digest("fingerprint", *sorted(set(issue_ids)))[:16]


def shorten(full_ids: Iterable[str], minimum: int = SHORT_ID_LENGTH) -> dict[str, str]:
    """Map each distinct full id to its shortest unambiguous prefix.

    Prefixes start at `minimum` characters and are extended only for ids
    that share a prefix with another distinct id, one character at a time.
    """
    pending = set(full_ids)
    result = {full: full[:minimum] for full in pending}
    if len(set(result.values())) == len(result):
        return result  # the usual case: no two ids share a prefix
    result = {}
    length = minimum
    while pending:
        groups: dict[str, list[str]] = {}
        for full in pending:
            groups.setdefault(full[:length], []).append(full)
        pending = set()
        for prefix, members in groups.items():
            if len(members) == 1 or length >= len(members[0]):
                for full in members:
                    result[full] = prefix
            else:
                pending.update(members)
        length += 1
    return result
